# SPDX-License-Identifier: GPL-2.0
"""audit_all - kconfig-audit --arch all: every architecture of the tree,
one progress line each, a JSON each (OUT/ARCH.json, as --json writes for
one), the findings and a summary table (selects, candidates, confirmed,
seconds).

What the architectures share is done once: the program (built once per
kconfig), the conf that confirms (once per kconfig), the object folder
in which make builds conf for conf's environment (copied from the first
architecture's), and every "unsat" answer, which depends on the
question's cone alone (audit_cache.Answers): an architecture asks only
the questions whose cone no architecture answered before.  They run two
at a time (the machine's two cores).

It writes only under OUT and the audit's cache.
"""

import json
import os
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import audit_confirm, util
from .audit_cache import cache_dir
from .errors import UsageError

# The architectures that run side by side
JOBS = 2


def arches_of(srctree):
    """The architectures of @srctree: the folders of arch/ with a
    Kconfig, sorted."""
    d = Path(srctree) / 'arch'
    return sorted(a.name for a in d.iterdir()
                  if (a / 'Kconfig').is_file())


def seed_obj(srctree, arch, first):
    """Give @arch's object folder the host programs that make built in
    @first's (scripts/, conf among them), so that make configures it
    without building conf again: conf is the same for every ARCH."""
    src = cache_dir(srctree, first) / 'obj'
    dest = cache_dir(srctree, arch) / 'obj'
    if dest.exists() or not (src / 'scripts' / 'kconfig' / 'conf').is_file():
        return
    tmp = dest.with_name('.obj-%d' % os.getpid())
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src / 'scripts', tmp / 'scripts', symlinks=True)
    for f in ('Makefile', '.gitignore'):
        if (src / f).is_file():
            shutil.copy2(src / f, tmp / f)
    os.rename(tmp, dest)


def one(audit_tree, srctree, arch, kconfig, out, opts, use_cache, first):
    """Audit @arch; returns its row of the table (with its document, or
    the error that stopped it)."""
    start = time.monotonic()
    try:
        if first and first != arch:
            seed_obj(srctree, arch, first)
        # JOBS architectures side by side, one process each
        doc, _ = audit_tree(srctree, arch, kconfig, out / arch, opts,
                            use_cache=use_cache, label=arch, quiet=True,
                            jobs=1)
    except UsageError as e:    # SetupError too: that architecture only
        return {'arch': arch, 'error': str(e),
                'seconds': round(time.monotonic() - start, 1)}
    util.write_atomic(str(out / (arch + '.json')),
                      json.dumps(dict(doc, own=opts.get('own', False)),
                                 indent=2) + '\n')
    s = doc['summary']
    return {'arch': arch, 'selects': s['selects'],
            'candidates': s['candidates'], 'confirmed': len(doc['findings']),
            'rejected': len(doc['rejected']),
            'asked': 0 if doc['cached'] else
            s['selects'] - s.get('carried', 0) - s.get('reused', 0),
            'cached': doc['cached'], 'seconds': doc['seconds'],
            'peak_rss_kib': doc.get('peak_rss_kib'),
            'json': str(out / (arch + '.json')), 'doc': doc}


def run_all(audit_tree, prepare, srctree, kconfig, out, opts, use_cache):
    """Audit every architecture of @srctree into @out with @audit_tree
    (audit.audit_tree()), after @prepare (audit.setup()) for the first
    one; one progress line each as it ends.  Returns the rows, in the
    order of arches_of()."""
    arches = arches_of(srctree)
    lock = threading.Lock()
    done = []

    def step(arch, first):
        row = one(audit_tree, srctree, arch, kconfig, out, opts, use_cache,
                  first)
        with lock:
            done.append(row)
            if 'error' in row:
                audit_confirm.log('%-10s [%2d/%d] failed: %s' % (
                    arch, len(done), len(arches), row['error']))
            else:
                audit_confirm.log(
                    '%-10s [%2d/%d] %5d selects, %5d asked, %2d candidates, '
                    '%2d confirmed, %6.1f s%s' % (
                        arch, len(done), len(arches), row['selects'],
                        row['asked'], row['candidates'], row['confirmed'],
                        row['seconds'], ', from the cache' if row['cached']
                        else ''))
        return row

    audit_confirm.log('auditing %d architectures of %s, %d at a time' % (
        len(arches), srctree, JOBS))
    # what they share, once, before they run side by side: the program,
    # the confirming conf, and the host programs of the object folder
    prepare(srctree, arches[0], srctree)
    with ThreadPoolExecutor(max_workers=JOBS) as ex:
        rows = list(ex.map(lambda a: step(a, arches[0]), arches))
    return rows


def print_all(rows, seconds):
    """The findings (each once, with the architectures that have it),
    the table, and the summary line."""
    seen = {}
    for r in rows:
        for f in r.get('doc', {}).get('findings', []):
            k = (f['file'], f['line'], f['selector'], f['target'])
            seen.setdefault(k, (f, []))[1].append(r['arch'])
    for (file, line, sel, target), (f, arches) in sorted(seen.items()):
        print('%s:%d: warning: %s [=%s] can select %s, whose direct '
              'dependencies are unmet%s (%s); reproducer %s' % (
                  file, line, sel, f['level'], target,
                  ' (tristate only)' if f['tristate_only'] else '',
                  ' '.join(arches), f['reproducer']))
    print('%-10s %8s %8s %10s %9s %8s' % ('arch', 'selects', 'asked',
                                          'candidates', 'confirmed',
                                          'seconds'))
    for r in rows:
        if 'error' in r:
            print('%-10s %s' % (r['arch'], 'error: ' + r['error']))
            continue
        print('%-10s %8d %8d %10d %9d %8.1f%s' % (
            r['arch'], r['selects'], r['asked'], r['candidates'],
            r['confirmed'], r['seconds'], ' (cache)' if r['cached'] else ''))
    ok = [r for r in rows if 'error' not in r]
    peak = max([r['peak_rss_kib'] or 0 for r in ok if not r['cached']] or
               [0])
    print('kconfig-audit: all %d architectures: %d selects, %d asked, %d '
          'candidates, %d confirmed (%d distinct), %d failed, %.1f s%s' % (
              len(rows), sum(r['selects'] for r in ok),
              sum(r['asked'] for r in ok),
              sum(r['candidates'] for r in ok),
              sum(r['confirmed'] for r in ok), len(seen),
              len(rows) - len(ok), seconds,
              ', peak %d MiB' % (peak // 1024) if peak else
              ', from the cache'))
    return len(seen)


def summary_doc(rows, seconds, srctree):
    """The --json document of --arch all: a row per architecture (its
    JSON's path in "json"), and the totals."""
    return {'version': 2, 'tool': 'kconfig-audit', 'arch': 'all',
            'srctree': str(srctree), 'seconds': seconds,
            'architectures': [{k: v for k, v in r.items() if k != 'doc'}
                              for r in rows],
            'findings': sorted({(f['selector'], f['target'], f['file'],
                                 f['line']) for r in rows
                                for f in r.get('doc', {}).get('findings',
                                                              [])})}

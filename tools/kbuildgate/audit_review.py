# SPDX-License-Identifier: GPL-2.0
"""audit_review - kconfig-audit reviewing a change (--base, --base-rev,
--patch): the old or new tree made from a patch or a commit, the
identity of a finding across two trees (identity(), mark()), and the
review's warning and note lines (print_review()).

It writes only the temporary trees it is given.
"""

import shutil
import subprocess
from pathlib import Path

from .audit_cache import walk_kconfig
from .errors import SetupError, UsageError


def identity(f):
    """A finding is the same across trees when its selector, its target
    and the select's condition are: not its line."""
    return (f['selector'], f['target'], f['condition'])


def mark(doc, base):
    """Mark each finding of @doc new or known against @base's findings;
    a finding of the base whose reproducer differs in kind (tristate
    only, or not) is new."""
    old = {identity(f): f for f in base['findings']}
    for f in doc['findings']:
        b = old.get(identity(f))
        f['status'] = 'known' if b and \
            b['tristate_only'] == f['tristate_only'] else 'new'
        if b and f['status'] == 'new':
            f['reason'] = 'the base has it, but not tristate only' \
                if f['tristate_only'] else \
                'the base has it only as tristate only'
        elif not b:
            f['reason'] = 'no configuration of the base leaves it unmet'


def copy_kconfig_tree(srctree, dest, extra=()):
    """A copy of what kconfig reads in @srctree: the Kconfig files,
    scripts/ (Kconfig.include and the scripts it runs), the top-level
    Makefile (the version, which chooses the series' kconfig patches of
    a tree without them) and @extra."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(srctree / 'Makefile', dest / 'Makefile')
    for rel in walk_kconfig(srctree):
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(srctree / rel, dest / rel)
    shutil.copytree(srctree / 'scripts', dest / 'scripts',
                    dirs_exist_ok=True, symlinks=True,
                    ignore=shutil.ignore_patterns('*.o', '.*.cmd'))
    # the scripts that Kconfig files of some architectures run
    for tools in srctree.glob('arch/*/tools'):
        shutil.copytree(tools, dest / tools.relative_to(srctree),
                        dirs_exist_ok=True, symlinks=True)
    for rel in extra:
        if (srctree / rel).is_file() and not (dest / rel).exists():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(srctree / rel, dest / rel)


def patch_files(patch):
    """The files that a git-format patch names (a/ and b/ sides)."""
    files = set()
    for line in Path(patch).read_text(errors='replace').splitlines():
        if line.startswith(('--- a/', '+++ b/')):
            files.add(line[6:].split('\t')[0])
        elif line.startswith('diff --git '):
            for p in line.split()[2:4]:
                if p.startswith(('a/', 'b/')):
                    files.add(p[2:])
    return sorted(files)


def apply_patch(srctree, patch, dest):
    """@srctree's Kconfig files, copied to @dest, with @patch applied."""
    files = patch_files(patch)
    if not files:
        raise UsageError('%s: not a patch (no "diff --git" or "+++ b/" '
                         'line)' % patch)
    if any(f.startswith('scripts/kconfig/') for f in files):
        raise UsageError('%s changes scripts/kconfig: audit two full trees '
                         'with --base' % patch)
    copy_kconfig_tree(srctree, dest, files)
    ps = subprocess.run(['git', 'apply', '--whitespace=nowarn',
                         str(Path(patch).resolve())], cwd=dest,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True)
    if ps.returncode:
        first = (ps.stdout.strip().splitlines() or ['git apply failed'])[0]
        raise UsageError('%s does not apply to %s: %s' % (patch, srctree,
                                                          first))


def export_rev(srctree, rev, dest):
    """The Kconfig files, scripts/ and the top-level Makefile of @rev in
    the git tree @srctree."""
    ps = subprocess.run(['git', '-C', str(srctree), 'rev-parse', '--verify',
                         '--quiet', rev + '^{commit}'],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                        text=True)
    if ps.returncode:
        raise UsageError('%s: no commit %s in %s' % (rev, rev, srctree))
    arch = subprocess.Popen(['git', '-C', str(srctree), 'archive', rev, '--',
                             ':(glob)**/Kconfig*', 'scripts', 'Makefile'],
                            stdout=subprocess.PIPE)
    tar = subprocess.run(['tar', '-x', '-C', str(dest)], stdin=arch.stdout)
    arch.stdout.close()
    if arch.wait() or tar.returncode:
        raise SetupError('git archive %s failed in %s' % (rev, srctree))


def print_review(doc):
    """Each new finding as a compiler warning with notes."""
    for f in doc['findings']:
        if f.get('status') != 'new':
            continue
        print('%s:%d: warning: %s selects %s, whose direct dependencies '
              'can be unmet%s' % (f['file'], f['line'], f['selector'],
                                  f['target'], ' (tristate only)'
                                  if f['tristate_only'] else ''))
        if f.get('depends_on'):
            print('%s:%d: note: %s depends on [%s]: %s' % (
                f['file'], f['line'], f['target'],
                f.get('depends_value') or 'n', f['depends_on']))
        if f.get('blocking'):
            print('%s:%d: note: blocked by %s' % (
                f['file'], f['line'], ', '.join(
                    '%s [=%s]' % (b['expr'], b['value'])
                    for b in f['blocking'])))
        print('%s:%d: note: %s [=%s] reproduces it: %s' % (
            f['file'], f['line'], f['selector'], f['level'],
            f['reproducer']))
        if f.get('hint'):
            print('%s:%d: note: to meet it, enable %s, or make %s depend '
                  'on %s' % (f['file'], f['line'], ', '.join(f['hint']),
                             f['selector'], 'it' if len(f['hint']) == 1
                             else 'them'))
        print('%s:%d: note: %s' % (f['file'], f['line'], f['reason']))


def print_results(args, doc, base, sweep, seconds):
    """The warning lines and the summary lines of the audit (or of the
    review, against @base)."""
    found, summary = doc['findings'], doc['summary']
    if base is not None:
        mark(doc, base)
        new = [f for f in found if f['status'] == 'new']
        print_review(doc)
        what = args.patch or 'new tree'
        print('kconfig-audit: %s %s: %d new unmet select(s), %d known '
              '(%d selects, %d solved again, the rest from the cache), '
              '%.1f s' % (args.arch, what, len(new), len(found) - len(new),
                          summary['selects'],
                          0 if doc['cached'] else
                          summary['selects'] - summary['carried'] -
                          summary.get('reused', 0), seconds))
    else:
        for f in found:
            print('%s:%d: warning: %s [=%s] can select %s, whose direct '
                  'dependencies are unmet%s; reproducer %s' % (
                      f['file'], f['line'], f['selector'], f['level'],
                      f['target'], ' (tristate only)' if f['tristate_only']
                      else '', f['reproducer']))
        print('kconfig-audit: %s %s: %d selects, %d candidates, %d '
              'confirmed (%d tristate only), %d rejected, %.1f s%s' % (
                  args.arch, args.fragment or 'Kconfig', summary['selects'],
                  summary['candidates'], len(found),
                  sum(f['tristate_only'] for f in found),
                  len(doc['rejected']), seconds,
                  ', from the cache' if doc['cached'] else
                  ', peak %d MiB' % (doc['peak_rss_kib'] // 1024)))
    if sweep is not None:
        print('kconfig-audit: %d randconfigs hit %d distinct unmet selects, '
              '%d of them not found by the audit%s' % (
                  sweep['randconfigs'], len(sweep['unmet']),
                  len(sweep['missed']), ''.join(
                      '\n  missed: %s selects %s (%s:%s), seed %d' % (
                          m['selector'], m['target'], m['file'], m['line'],
                          m['seed']) for m in sweep['missed'])))

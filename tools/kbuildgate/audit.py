# SPDX-License-Identifier: GPL-2.0
"""kconfig-audit - find every select that some configuration can leave
unmet, statically, and confirm each one with the tree's own conf.

  kconfig-audit [--srctree DIR] [--arch ARCH|all] [--fragment FILE [--own]]
                [--out DIR] [--json FILE] [--limit N] [--only SYMBOL]
                [--randconfigs N] [--no-cache]
                [--base OLDTREE | --base-rev REV | --patch PATCH]

Steps, with a progress line each:

  1. build tools/audit/kconfig-audit against the kconfig sources of the
     tree (tools/audit/build), and conf for ARCH (make allnoconfig
     syncconfig, for the variables that kconfig reads), both kept in
     the cache (build/ARCH-HASH) until the kconfig sources change; on a
     tree without the series (a stock or mainline tree), the conf that
     confirms is built in the cache (kconfig/HASH) from a copy of the
     tree's scripts/kconfig with the series' kconfig patches of its
     version (kernel-patches/VERSION): the tree is never changed;
  2. run it on the tree's Kconfig, or on a fragment (what can a
     configuration derived from this board hit?): PicoSAT asks, for each
     select, whether the selector and the select's condition can be above
     the target's direct dependencies (y above m, or m above n), and each
     model becomes a full .config, a candidate;
  3. confirm the candidates with the tree's conf in one run, conf
     --batch (patch 11: one parse for all of them), each read as a
     defconfig would be: a candidate is a finding only if conf's own JSON
     report has that select unmet.  The others are kept apart with the
     reason: the symbols that conf set otherwise than the model did.

With --own, it asks only about the selects of the fragment's own files
(those that its first file reaches without going through the tree's
Kconfig): the board's selects, which kautobuild --audit gates on.

With --randconfigs N, conf then runs N randconfigs (KCONFIG_SEED 1..N)
and every unmet select they hit must be among the findings; the ones
that are not are listed as missed.

A finding carries the select's file:line, the selector and the target,
the value of the select (y or m), whether only the tristate question finds
it (a built-in selector, a target whose dependencies allow only m: kismet
merges y and m and cannot ask it), conf's blocking conjuncts and hint,
and the confirming .config as a reproducer (OUT/findings/).

With --arch all, every architecture of the tree (audit_all.py): one
progress line and one JSON (OUT/ARCH.json) each, the findings with the
architectures that have them, and a table.  The tree may be a stock or
mainline one, without the series (docs/audit.md, "Any tree").

Reviewing a change (docs/audit.md):

  --base OLDTREE   audit OLDTREE and the tree, and report only the
                   findings of the tree that OLDTREE does not have: the
                   same selector, target and select condition (not the
                   line), with a reproducer of the same kind (tristate
                   only or not).  The others are counted as known.  Each
                   new one is printed as
                     FILE:LINE: warning: S selects T, whose direct
                     dependencies can be unmet
                   with note: lines (T's dependencies, the blocking
                   conjuncts, the reproducing .config, the hint), then
                   one summary line "kconfig-audit: ..."; the JSON marks
                   each finding "new" or "known", with a reason.
  --base-rev REV   the same, the old tree being the Kconfig files of
                   commit REV of the git tree --srctree.
  --patch PATCH    apply a git-format patch to a copy of the Kconfig files
                   of --srctree (and scripts/, and the files it names), in
                   a temporary folder, and audit that against --srctree.

The cache ($BUILD/cache/audit, or $KCONFIG_AUDIT_CACHE) keeps each tree's
result by the hash of its Kconfig files and kconfig sources (a second
audit of a tree costs the hashing, a few seconds), and the answer of each
question by the hash of its cone of influence: the select and the
definitions of every symbol whose value can reach the selector, the
condition or the target's dependencies.  A changed tree asks the solver
only the questions whose cone the change touched; the others, and the
conf confirmation of their candidates, come from the cache.  --no-cache
asks everything and keeps nothing.

Exit status: 0 no finding (with --base, --base-rev or --patch: no new
one), 1 findings (new ones), 2 usage or infrastructure error.
"""

import argparse
import concurrent.futures
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from . import audit_all, audit_confirm, kmake, util
from .audit_cache import (CACHE_VERSION, Answers, audit_key, cache_dir,
                          cache_root, cached_tree, kconfig_hash,
                          sort_answers)
from .audit_confirm import (child_stderr, confirm, log, parse_output,
                            randconfig_sweep)
from .audit_review import apply_patch, export_rev, print_results
from .audit_series import carries_series, series_conf
from .errors import SetupError, UsageError
from .kmake import conf_env, kconfig_sources, newer

TOP = Path(util.TOP)


def setup(srctree, arch, build_from):
    """The C program, conf and conf's environment for @srctree, whose
    make is that of @build_from (a full tree: @srctree may be a copy of
    the Kconfig files and scripts/ only, of this tree or of one of its
    commits).  The program is built against @srctree's kconfig sources,
    once for every architecture; conf is @build_from's own when the two
    share their kconfig sources and carry the series, else one built in
    the cache from @srctree's scripts/kconfig, with the series' kconfig
    patches when it lacks them (audit_series); its environment is that
    of @build_from's make for @arch."""
    khash = kconfig_hash(srctree)
    obj = cache_dir(build_from, arch) / 'obj'
    conf = obj / 'scripts' / 'kconfig' / 'conf'
    # the three builds of a cold audit, side by side
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        tool = pool.submit(kmake.build_helper, str(TOP), srctree,
                           cache_root() / 'build' / ('audit-' + khash),
                           'audit')
        series = pool.submit(series_conf, srctree, khash, cache_root()) \
            if khash != kconfig_hash(build_from) or \
            not carries_series(srctree) else None
        if newer(conf, kconfig_sources(build_from)) and \
                (obj / 'include/config/auto.conf.cmd').is_file():
            env = conf_env(obj)
        else:
            # allnoconfig: the variables are the same as defconfig's,
            # and every architecture has it (some defconfigs merge
            # fragments)
            env = kmake.build_conf(build_from, obj, arch,
                                   targets=('allnoconfig', 'syncconfig'))
        tool = tool.result()
        if series:
            conf = series.result()
    env = kmake.environment(extra=dict(env, srctree=str(srctree)))
    return tool, str(conf), env


def cpu_jobs():
    """The processes that the C program's first pass may use: the CPUs
    this process may run on, up to 8."""
    return max(1, min(8, len(os.sched_getaffinity(0))))


def ask(tool, env, kconfig, work, opts, answers, out, quiet=False, jobs=1):
    """Run the C program @tool on @kconfig in @work with the options
    @opts, the questions that @answers knows left out, in @jobs
    processes; its output in OUT/audit.out.  Returns (its output, its
    peak memory in KiB, its exit status); raises SetupError when it
    fails."""
    cmd = [tool, '--out', str(work), '--jobs', str(jobs)]
    if opts.get('limit') is not None:
        cmd += ['--limit', str(opts['limit'])]
    if opts.get('only'):
        cmd += ['--only', opts['only']]
    if opts.get('own'):
        cmd.append('--own')
    if answers and answers.db:
        known = work / 'known.list'
        known.write_text(''.join(h + '\n' for h in answers.db))
        cmd += ['--known', str(known)]
    # its progress lines go to stderr as they come (quiet: to
    # OUT/audit.log)
    with open(out / 'audit.out', 'w') as fo, \
            open(out / 'audit.log', 'w') if quiet else \
            contextlib.nullcontext(child_stderr()) as fe:
        proc = subprocess.Popen(cmd + [kconfig], cwd=work, env=env,
                                stdout=fo, stderr=fe)
        # its own peak memory, not that of the builds before it
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SetupError('kconfig-audit exited %d' % proc.returncode)
    return (out / 'audit.out').read_text(), usage.ru_maxrss, proc.returncode


def audit_tree(srctree, arch, kconfig, out, opts, build_from=None,
               use_cache=True, label='tree', quiet=False, jobs=None):
    """Audit @srctree, asking the C program only the questions whose cone
    has no answer yet; return the document (findings, rejected, summary)
    and the conf setup (None when the tree's result came from the
    cache).  Reproducers are copied into OUT/findings/.  @quiet: no
    progress lines (--arch all prints one per architecture).  @jobs:
    the C program's processes (default cpu_jobs())."""
    start = time.monotonic()
    log = audit_confirm.log if not quiet else (lambda msg: None)
    options = ' '.join('%s=%s' % kv for kv in sorted(opts.items()))
    key = audit_key(srctree, arch, kconfig, options)
    tdir = cache_root() / 'trees' / key
    fdir = out / 'findings'
    if fdir.exists():
        shutil.rmtree(fdir)
    fdir.mkdir(parents=True)
    # the builds of setup() go on while the cache is read, unless the
    # tree's result is there to be read
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        ready = None if use_cache and (tdir / 'audit.json').is_file() \
            else pool.submit(setup, srctree, arch, build_from or srctree)
        answers = Answers(arch, srctree) if use_cache else None
        doc = cached_tree(tdir, answers, fdir) if use_cache else None
        if doc:
            doc['seconds'] = round(time.monotonic() - start, 1)
            log('%s: the result of %s, from the cache (%s)' % (
                label, srctree, key))
            return doc, None
        log('%s: building kconfig-audit and conf for %s (%s)' % (
            label, arch, srctree))
        tool, conf, env = ready.result() if ready else \
            setup(srctree, arch, build_from or srctree)
    work = out / 'candidates'
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    log('%s: asking PicoSAT about the selects of %s%s' % (
        label, kconfig, ' (%d answers known)' % len(answers.db)
        if answers and answers.db else ''))
    text, peak_kb, rc = ask(tool, env, kconfig, work, opts, answers, out,
                            quiet, jobs or cpu_jobs())
    cands, questions, summary = parse_output(text)
    if summary is None:
        raise SetupError('%s: no answer (exit %d): see the messages '
                         'above' % (kconfig, rc))
    log('%s: %d selects: %d unsatisfiable, %d candidates, %d answered by '
        'the cache (%d variables, %d clauses, %d coarse comparisons, '
        '%.1f s)' % (label, summary['selects'], summary['unsat'],
                     len(cands), summary.get('reused', 0),
                     summary['variables'], summary['clauses'],
                     summary['coarse'], summary['sat_seconds']))
    if cands:
        log('%s: confirming %d candidates with conf --batch' % (label,
                                                               len(cands)))
    found, rejected = confirm(conf, env, str(srctree), kconfig, cands,
                              work) if cands else ([], [])
    found, rejected = sort_answers(
        questions, {'cand-%d' % c['n']: c for c in found + rejected},
        answers, work, fdir)
    if answers:
        answers.save()
    doc = {'version': 2, 'tool': 'kconfig-audit', 'arch': arch,
           'srctree': str(srctree), 'kconfig': kconfig, 'key': key,
           'peak_rss_kib': peak_kb,
           'coarse_note': 'comparisons other than = and != between '
           'bool or tristate operands are free variables',
           'summary': summary, 'findings': found, 'rejected': rejected,
           'cached': False,
           'seconds': round(time.monotonic() - start, 1)}
    if use_cache:
        tdir.mkdir(parents=True, exist_ok=True)
        util.write_atomic(str(tdir / 'audit.json'),
                          json.dumps(doc, indent=2) + '\n')
    return doc, (conf, env)


def parser():
    """kconfig-audit's argparse parser."""
    ap = argparse.ArgumentParser(
        prog='kconfig-audit', description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog='Exit status: 0 no finding (with --base or --patch: no new '
        'one), 1 findings (new ones), 2 usage or infrastructure error.  '
        'See docs/audit.md.')
    ap.add_argument('--version', action='version',
                    version='kconfig-audit %d' % CACHE_VERSION)
    ap.add_argument('--srctree', **kmake.srctree_option(
        'the kernel tree to audit; with --patch, the tree the patch '
        'applies to, and the base'))
    ap.add_argument('--arch', default='arm',
                    help='ARCH of the Kconfig tree (default: arm), or "all": '
                    'every architecture of the tree, a JSON each in OUT '
                    '(default build/out/audit/all), the answers that do not '
                    'depend on the architecture asked once, a summary '
                    'table; --json then writes the table')
    ap.add_argument('--fragment', help='a Kconfig fragment (KBUILD_KCONFIG)'
                    ' instead of the tree\'s Kconfig')
    ap.add_argument('--out', help='where candidates, findings and '
                    'reproducers go (default: build/out/audit/ARCH, or '
                    'ARCH-review with --base, --base-rev or --patch)')
    ap.add_argument('--json', help='write the results as JSON')
    ap.add_argument('--limit', type=int, help='ask about the first N '
                    'selects only (for tests)')
    ap.add_argument('--own', action='store_true',
                    help='with --fragment: ask about the selects of the '
                    'fragment\'s own files only')
    ap.add_argument('--only', metavar='SYMBOL',
                    help='ask about the selects of SYMBOL only')
    ap.add_argument('--randconfigs', type=int, default=0, metavar='N',
                    help='then run N randconfigs with conf and check that '
                    'the audit found every unmet select they hit')
    ap.add_argument('--base', metavar='OLDTREE',
                    help='review a change: report only the findings that '
                    'OLDTREE does not have (by selector, target and the '
                    'select\'s condition); the others are counted as '
                    'known; exit 1 only on new ones')
    ap.add_argument('--base-rev', metavar='REV',
                    help='as --base, with the Kconfig files of commit REV '
                    'of the git tree --srctree as the old tree')
    ap.add_argument('--patch', metavar='PATCH',
                    help='review a git-format patch: apply it to a copy of '
                    'the Kconfig files of --srctree (in a temporary '
                    'folder), audit that against --srctree as the base')
    ap.add_argument('--no-cache', action='store_true',
                    help='ask every question again and keep nothing: the '
                    'cache ($BUILD/cache/audit) holds each tree\'s result, '
                    'by the hash of its Kconfig files, and the answer of '
                    'each question, by the hash of its cone of influence')
    return ap


def check_args(args):
    """Raise UsageError for options that exclude one another, a missing
    fragment, tree or patch, or an architecture that the tree does not
    have.  Returns the Kconfig file to audit (Kconfig, or the fragment's
    absolute path)."""
    review = bool(args.base or args.base_rev or args.patch)
    if sum(map(bool, (args.base, args.base_rev, args.patch))) > 1:
        raise UsageError('--base, --base-rev and --patch exclude one '
                         'another')
    if review and args.randconfigs:
        raise UsageError('--randconfigs audits one tree: not with --base, '
                         '--base-rev or --patch')
    if args.own and not args.fragment:
        raise UsageError('--own needs --fragment')
    kconfig = 'Kconfig'
    if args.fragment:
        frag = Path(args.fragment)
        if not frag.is_absolute() and not frag.is_file():
            # a fragment of the tree (arch/arm/boards/Kconfig.NAME)
            frag = Path(args.srctree) / frag
        frag = frag.resolve()
        if not frag.is_file():
            raise UsageError('%s: no such file' % args.fragment)
        kconfig = str(frag)
    for t, what in ((args.srctree, '--srctree'), (args.base, '--base')):
        if t is not None:
            try:
                kmake.check_tree(Path(t).resolve())
            except UsageError as e:
                raise UsageError('%s: %s' % (what, e))
    if args.arch == 'all':
        if review or args.randconfigs or args.fragment:
            raise UsageError('--arch all audits the tree\'s Kconfig: not '
                             'with --fragment, --randconfigs, --base, '
                             '--base-rev or --patch')
    else:
        kmake.check_arch(Path(args.srctree).resolve(), args.arch)
    if args.patch and not Path(args.patch).is_file():
        raise UsageError('--patch: %s: no such file' % args.patch)
    return kconfig


def sweep_randconfigs(args, srctree, kconfig, out, doc, setup_):
    """--randconfigs: the unmet selects of N randconfigs, and those of
    them that the audit (@doc) did not find."""
    if setup_ is None:
        _, conf, env = setup(srctree, args.arch, srctree)
    else:
        conf, env = setup_
    log('sweeping %d randconfigs' % args.randconfigs)
    work = out / 'candidates'
    work.mkdir(parents=True, exist_ok=True)
    hits = randconfig_sweep(conf, env, kconfig, args.randconfigs, work)
    known = {(f['selector'], f['target'], f['file'], f['line'])
             for f in doc['findings']}
    keys = ('selector', 'target', 'file', 'line')
    return {'randconfigs': args.randconfigs,
            'unmet': [dict(zip(keys, k), seed=v) for k, v in
                      sorted(hits.items(), key=lambda kv: kv[1])],
            'missed': [dict(zip(keys, k), seed=v)
                       for k, v in hits.items() if k not in known]}


def run_audit(args, srctree, kconfig, out):
    """Audit the tree (and, reviewing a change, the base first; then
    --randconfigs).  Returns (doc, base doc or None, sweep or None)."""
    review = bool(args.base or args.base_rev or args.patch)
    opts = {'limit': args.limit, 'only': args.only, 'own': args.own}
    use_cache = not args.no_cache
    tmp = None
    base = None
    try:
        newtree, build_from = srctree, srctree
        if review:
            tmp = Path(tempfile.mkdtemp(prefix='kconfig-audit.'))
            if args.patch:
                log('applying %s to a copy of %s' % (args.patch, srctree))
                newtree = tmp / 'new'
                apply_patch(srctree, args.patch, newtree)
                basetree = srctree
            elif args.base_rev:
                log('exporting the Kconfig files of %s' % args.base_rev)
                basetree = tmp / 'base'
                basetree.mkdir()
                export_rev(srctree, args.base_rev, basetree)
            else:
                basetree = Path(args.base).resolve()
            base, _ = audit_tree(basetree, args.arch, kconfig,
                                 out / 'base', opts,
                                 build_from=srctree if args.base_rev
                                 else basetree,
                                 use_cache=use_cache, label='base')
        doc, setup_ = audit_tree(newtree, args.arch, kconfig, out, opts,
                                 build_from=build_from,
                                 use_cache=use_cache,
                                 label='new' if review else 'tree')
        sweep = sweep_randconfigs(args, srctree, kconfig, out, doc,
                                  setup_) if args.randconfigs else None
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return doc, base, sweep


def run_logged(argv, f):
    """kconfig-audit with the arguments @argv, run in this process as
    the command would run: its output and that of its programs into the
    open file @f, its clock from now.  For kautobuild's audit step, one
    target at a time: stdout and stderr are the process's own, redirected
    while it runs.  Returns the exit status: main()'s, argparse's on bad
    arguments, 1 on an unexpected exception (its traceback into @f)."""
    audit_confirm.restart()
    with contextlib.redirect_stdout(f), contextlib.redirect_stderr(f):
        try:
            return main(argv)
        except SystemExit as e:
            if e.code is None or isinstance(e.code, int):
                return e.code or 0
            print(e.code, file=sys.stderr)
            return 1
        except Exception:
            traceback.print_exc()
            return 1
        finally:
            f.flush()


def main_all(args, srctree, kconfig, out):
    """--arch all (audit_all): exit 1 when some architecture has a
    finding, 2 when one could not be audited."""
    rows = audit_all.run_all(audit_tree, setup, srctree, kconfig, out,
                             {'limit': args.limit, 'only': args.only,
                              'own': args.own}, not args.no_cache)
    seconds = round(time.monotonic() - audit_confirm.START, 1)
    found = audit_all.print_all(rows, seconds)
    if args.json:
        util.write_atomic(args.json, json.dumps(audit_all.summary_doc(
            rows, seconds, srctree), indent=2) + '\n')
    if any('error' in r for r in rows):
        return 2
    return 1 if found else 0


def main(argv=None):
    """kconfig-audit's command line (@argv, default sys.argv[1:]);
    returns the exit status."""
    args = parser().parse_args(argv)
    srctree = Path(args.srctree).resolve()
    review = bool(args.base or args.base_rev or args.patch)
    out = Path(args.out or Path(util.TREES) / 'out' / 'audit' / (
        args.arch + ('-review' if review else ''))).resolve()
    try:
        kconfig = check_args(args)
        if args.arch == 'all':
            return main_all(args, srctree, kconfig, out)
        doc, base, sweep = run_audit(args, srctree, kconfig, out)
    except UsageError as e:
        print('kconfig-audit: %s' % e, file=sys.stderr)
        return 2
    found = doc['findings']
    seconds = round(time.monotonic() - audit_confirm.START, 1)
    print_results(args, doc, base, sweep, seconds)
    if args.json:
        out_doc = dict(doc, own=args.own, randconfig_sweep=sweep,
                       seconds=seconds, tree_seconds=doc['seconds'])
        if review:
            out_doc.update(
                base={'srctree': base['srctree'], 'key': base['key'],
                      'cached': base['cached'],
                      'findings': len(base['findings'])},
                patch=args.patch, base_rev=args.base_rev,
                new=sum(f['status'] == 'new' for f in found),
                known=sum(f['status'] == 'known' for f in found))
        util.write_atomic(args.json, json.dumps(out_doc, indent=2) + '\n')
    if review:
        return 1 if any(f['status'] == 'new' for f in found) else 0
    return 1 if found else 0

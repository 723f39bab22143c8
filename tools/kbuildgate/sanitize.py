# SPDX-License-Identifier: GPL-2.0
"""kconfig-sanitize - run kconfig's conf under ASan/UBSan/LSan and valgrind.

  kconfig-sanitize [--srctree DIR] [--stock DIR] [--out DIR] [--set full|ci]
                   [--only REGEX] [--jobs N] [--valgrind] [--no-sanitize]
                   [--json FILE]

Builds scripts/kconfig/conf of --srctree (default build/patched) with
-fsanitize=address,undefined through HOSTCFLAGS/HOSTLDFLAGS, in its own
O= folders (--out, default build/out/sanitize), and runs the scenario set
under it: every ARM defconfig, allyes/allmod/allno on ARM and x86, seeded
randconfigs (KCONFIG_SEED), the board fragments and the example fragments
(KCONFIG_WERROR=1, KCONFIG_WARN_DROPPED=1, KCONFIG_UNMET_REPORT), a
KCONFIG_ALLCONFIG with dropped requests, olddefconfig/savedefconfig, and
the in-tree "make testconfig".  --set ci is the reduced set of the test
suite.

conf is called directly, as scripts/kconfig/Makefile calls it, with the
environment that the Kconfig preprocessor reads: it is taken from
include/config/auto.conf.cmd after one "make defconfig syncconfig" per
architecture, where kconfig records every variable it looked up.

Sanitizers: ASan with LeakSanitizer on (kconfig keeps its data reachable
from globals at exit, so a leak report is a real leak), UBSan with
halt_on_error and print_stacktrace; every report goes to a log file
(log_path) and counts, whatever the exit status.

--valgrind also builds conf of --stock (default build/pristine) and of
--srctree without sanitizers and runs a reduced set under valgrind
memcheck, stock against patched: the patched conf must add no
"definitely lost" bytes and no memcheck errors.

Exit status: 0 clean, 1 sanitizer reports, unexpected exits, or more
definitely-lost bytes than stock, 2 usage or setup errors.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import kmake, util
from .errors import UsageError
from .sanitize_scenarios import VALGRIND_CI, VALGRIND_SET, scenarios

TOP = Path(util.TOP)
BUILD = Path(util.TREES)  # the trees of KERNEL_VERSION (util.py)
SAN_CFLAGS = '-fsanitize=address,undefined -fno-omit-frame-pointer -g -O1'
SAN_LDFLAGS = '-fsanitize=address,undefined'



def log(msg):
    """Print @msg at once (flushed)."""
    print(msg, flush=True)


def show_tail(path, lines=40):
    """Print the last @lines lines of @path, indented."""
    try:
        text = path.read_text(errors='replace').splitlines()
    except OSError as e:
        log('    (no log: %s)' % e)
        return
    for line in text[-lines:]:
        log('    | ' + line)


def run_dir(base, sc):
    """The fresh folder of Scenario @sc under @base, with its
    files written in it.  Returns its Path."""
    d = base / re.sub(r'[^\w.-]', '_', sc.name)
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    for name, text in sc.files.items():
        (d / name).write_text(text)
    return d


def conf_cmd(confbin, sc):
    """conf's command line for Scenario @sc: @confbin, its arguments
    and its Kconfig (KBUILD_KCONFIG, else Kconfig)."""
    kconfig = sc.env.get('KBUILD_KCONFIG', 'Kconfig')
    return [str(confbin)] + sc.args + [kconfig]


def base_env(arch_env):
    """The environment of a conf run: PATH, HOME, LC_ALL=C and the
    variables of @arch_env (conf's, kmake.conf_env())."""
    e = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
         'HOME': os.environ.get('HOME', '/root'), 'LC_ALL': 'C'}
    e.update(arch_env)
    return e


def san_options(logdir):
    """ASAN_OPTIONS, LSAN_OPTIONS and UBSAN_OPTIONS that halt on
    the first error and log into @logdir/san.*."""
    lp = str(logdir / 'san')
    return {
        'ASAN_OPTIONS': 'detect_leaks=1:log_path=%s:halt_on_error=1:'
                        'detect_stack_use_after_return=1:'
                        'strict_string_checks=1' % lp,
        'LSAN_OPTIONS': 'log_path=%s' % lp,
        'UBSAN_OPTIONS': 'halt_on_error=1:print_stacktrace=1:log_path=%s' % lp,
    }


def count_reports(logdir):
    """The sanitizer logs (san.*) in @logdir, sorted: each one a
    report."""
    files = sorted(logdir.glob('san.*'))
    return files


def show_failures(failed):
    """Name each failed run, then print the end of its log and of its
    sanitizer logs, so that a CI log says why."""
    for r in failed:
        log('  FAIL %s: %s (%s)' % (r['name'], '; '.join(r['problems']),
                                    r['dir']))
        show_tail(Path(r['dir']) / 'output.log')
        for f in sorted((Path(r['dir']) / 'sanlogs').glob('san.*')):
            log('    %s:' % f)
            show_tail(f, 20)


def run_sanitized(args, sc, confbin, envs, base):
    """Run Scenario @sc under the sanitizers (conf @confbin with
    the ARCH environments @envs, or make for a make target), in a folder
    under @base.  Returns its result: exit status, seconds, reports and
    the problems found (none is a pass)."""
    d = run_dir(base, sc)
    logdir = d / 'sanlogs'
    logdir.mkdir()
    start = time.monotonic()
    if sc.make_target:
        ps = kmake.make(args.srctree, args.out / sc.arch, sc.arch,
                        sc.make_target, stdin=None, text=True,
                        env=kmake.environment(extra=san_options(logdir)),
                        variables=['HOSTCFLAGS=' + SAN_CFLAGS,
                                   'HOSTLDFLAGS=' + SAN_LDFLAGS,
                                   'PYTHON3=/usr/bin/python3'])
    else:
        env = base_env(envs[sc.arch])
        env.update(san_options(logdir))
        env.update(sc.env)
        if sc.report:
            env['KCONFIG_UNMET_REPORT'] = str(d / 'report.json')
        ps = subprocess.run(conf_cmd(confbin, sc), cwd=d, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    secs = time.monotonic() - start
    (d / 'output.log').write_text(ps.stdout)
    reports = count_reports(logdir)
    problems = []
    if reports:
        problems.append('%d sanitizer report(s): %s' %
                        (len(reports), ' '.join(str(r) for r in reports)))
    if re.search(r'runtime error:|ERROR: (Address|Leak)Sanitizer',
                 ps.stdout) and not reports:
        problems.append('sanitizer output in the log')
    if ps.returncode not in sc.ok:
        problems.append('exit %d, expected %s' %
                        (ps.returncode, '/'.join(map(str, sc.ok))))
    if sc.report and ps.returncode in (0, 1):
        try:
            json.loads((d / 'report.json').read_bytes().decode('utf-8'))
        except (OSError, ValueError) as e:
            problems.append('report.json: %s' % e)
    return {'name': sc.name, 'arch': sc.arch, 'exit': ps.returncode,
            'seconds': round(secs, 2), 'reports': len(reports),
            'problems': problems, 'dir': str(d)}


VG_LOST = re.compile(r'definitely lost: ([\d,]+) bytes in ([\d,]+) blocks')
VG_ERRORS = re.compile(r'ERROR SUMMARY: ([\d,]+) errors')


def run_valgrind(sc, confbin, env_arch, base, tag):
    """Run Scenario @sc with conf @confbin (the @tag tree's, with
    @env_arch) under valgrind, in a folder under @base/@tag.  Returns
    its exit status, the bytes and blocks definitely lost, the other
    errors, the seconds and the log."""
    d = run_dir(base / tag, sc)
    env = base_env(env_arch)
    env.update(sc.env)
    if sc.report and tag == 'patched':
        env['KCONFIG_UNMET_REPORT'] = str(d / 'report.json')
    vlog = d / 'valgrind.log'
    cmd = ['valgrind', '--tool=memcheck', '--leak-check=full',
           '--show-leak-kinds=definite', '--errors-for-leak-kinds=definite',
           '--num-callers=30', '--log-file=%s' % vlog] + conf_cmd(confbin, sc)
    start = time.monotonic()
    ps = subprocess.run(cmd, cwd=d, env=env, stdin=subprocess.DEVNULL,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True)
    (d / 'output.log').write_text(ps.stdout)
    text = vlog.read_text()
    m = VG_LOST.search(text)
    lost = int(m.group(1).replace(',', '')) if m else 0
    blocks = int(m.group(2).replace(',', '')) if m else 0
    m = VG_ERRORS.search(text)
    errors = int(m.group(1).replace(',', '')) if m else -1
    # errors counts the definitely-lost records too; the rest are real errors
    leak_records = len(re.findall(r'are definitely lost in loss record', text))
    return {'exit': ps.returncode, 'lost': lost, 'blocks': blocks,
            'errors': errors - leak_records if errors >= 0 else -1,
            'seconds': round(time.monotonic() - start, 1), 'log': str(vlog)}


def do_sanitize(args, all_sc):
    """Build conf with the sanitizers, then run every Scenario of
    @all_sc (--only's) under them; prints each and the failures.
    Returns {'scenarios', 'reports', 'failed'}."""
    log('== sanitize: building conf of %s with %s' % (args.srctree, SAN_CFLAGS))
    envs = {}
    boot_logs = args.out / 'build-sanlogs'
    shutil.rmtree(boot_logs, ignore_errors=True)
    boot_logs.mkdir(parents=True)
    for arch in ('arm', 'x86'):
        envs[arch] = kmake.build_conf(args.srctree, args.out / arch, arch,
                                      cflags=SAN_CFLAGS, ldflags=SAN_LDFLAGS,
                                      extra=san_options(boot_logs))
    confbin = args.out / 'arm' / 'scripts/kconfig/conf'
    results = []
    build_reports = count_reports(boot_logs)
    if build_reports:
        results.append({'name': 'build:defconfig+syncconfig', 'arch': '-',
                        'exit': 0, 'seconds': 0, 'reports': len(build_reports),
                        'problems': ['%d sanitizer report(s)' %
                                     len(build_reports)], 'dir': str(boot_logs)})
    base = args.out / 'runs'
    n = len(all_sc)
    log('== sanitize: %d scenario(s), %d job(s), logs in %s' %
        (n, args.jobs, base))
    start = time.monotonic()
    with ThreadPoolExecutor(args.jobs) as pool:
        futs = [pool.submit(run_sanitized, args, sc, confbin, envs, base)
                for sc in all_sc]
        for i, f in enumerate(futs, 1):
            r = f.result()
            results.append(r)
            log('[%3d/%d] %-44s %-4s exit %-3d %6.1fs  %s' %
                (i, n, r['name'], r['arch'], r['exit'], r['seconds'],
                 '; '.join(r['problems']) or 'ok'))
    reports = sum(r['reports'] for r in results)
    failed = [r for r in results if r['problems']]
    log('kconfig-sanitize: %d scenario(s) in %.0fs, %d sanitizer report(s), '
        '%d with problems' % (n, time.monotonic() - start, reports,
                              len(failed)))
    show_failures(failed)
    return {'scenarios': results, 'reports': reports, 'failed': len(failed)}


def do_valgrind(args, all_sc):
    """Build stock and patched conf without the sanitizers, then
    run the valgrind set of @all_sc on both; patched conf losing more
    bytes or making more memcheck errors than stock, or exiting wrongly,
    is a problem.  Returns {'scenarios', 'failed'}."""
    names = VALGRIND_SET if args.set == 'full' else VALGRIND_CI
    by_name = {sc.name: sc for sc in all_sc}
    vsc = [by_name[n] for n in names if n in by_name]
    if args.only:
        vsc = [sc for sc in vsc if re.search(args.only, sc.name)]
    trees = (('stock', args.stock), ('patched', args.srctree))
    log('== valgrind: building conf of %s and %s without sanitizers' %
        (args.stock, args.srctree))
    envs, confs = {}, {}
    for tag, tree in trees:
        for arch in ('arm', 'x86'):
            envs[tag, arch] = kmake.build_conf(
                tree, args.out / ('vg-' + tag) / arch, arch, cflags='',
                ldflags='')
        confs[tag] = args.out / ('vg-' + tag) / 'arm' / 'scripts/kconfig/conf'
    base = args.out / 'valgrind'
    rows = []
    log('%-30s %16s %16s %8s %8s' % ('scenario', 'stock lost', 'patched lost',
                                     'errors', 'exits'))
    jobs = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for sc in vsc:
            jobs.append((sc, {tag: pool.submit(run_valgrind, sc, confs[tag],
                                               envs[tag, sc.arch], base, tag)
                              for tag, _ in trees}))
        for sc, futs in jobs:
            st, pa = futs['stock'].result(), futs['patched'].result()
            problems = []
            if pa['lost'] > st['lost']:
                problems.append('patched loses %d more bytes' %
                                (pa['lost'] - st['lost']))
            if pa['errors'] > max(st['errors'], 0):
                problems.append('%d memcheck error(s), stock %d' %
                                (pa['errors'], st['errors']))
            if pa['exit'] not in sc.ok:
                problems.append('patched exit %d' % pa['exit'])
            rows.append({'name': sc.name, 'stock': st, 'patched': pa,
                         'problems': problems})
            log('%-30s %8d B/%4d %8d B/%4d %3d/%-4d %3d/%-4d %s' %
                (sc.name, st['lost'], st['blocks'], pa['lost'], pa['blocks'],
                 st['errors'], pa['errors'], st['exit'], pa['exit'],
                 '; '.join(problems) or 'ok'))
    bad = [r for r in rows if r['problems']]
    log('kconfig-sanitize: valgrind: %d scenario(s), definitely lost stock %d B,'
        ' patched %d B, %d with problems' %
        (len(rows), sum(r['stock']['lost'] for r in rows),
         sum(r['patched']['lost'] for r in rows), len(bad)))
    return {'scenarios': rows, 'failed': len(bad)}


def main():
    """kconfig-sanitize's command line: the sanitizers, then
    valgrind, results to --json.  Returns the exit status: 0 clean, 1 a
    problem found, 2 a usage or setup error."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--version', action='version',
                    version='%(prog)s ' + util.VERSION)
    ap.add_argument('--srctree', type=Path, **kmake.srctree_option(
        'the tree with the series, whose conf is built with the '
        'sanitizers'))
    ap.add_argument('--stock', type=Path, default=BUILD / 'pristine',
                    help='the stock tree, built the same way to compare '
                    '(default: build/pristine)')
    ap.add_argument('--out', type=Path, default=BUILD / 'out' / 'sanitize',
                    help='folder for the builds, logs and report (default: '
                    'build/out/sanitize)')
    ap.add_argument('--set', choices=('full', 'ci'), default='full',
                    help='full (the default): every ARM defconfig, 50 '
                    'randconfig seeds and all the valgrind runs; ci: a few '
                    'defconfigs, 5 seeds, no allmodconfig')
    ap.add_argument('--only', help='run only the scenarios matching REGEX')
    ap.add_argument('--jobs', type=int, default=1,
                    help='scenarios run at a time (default 1)')
    ap.add_argument('--valgrind', action='store_true',
                    help='also run valgrind memcheck, stock against patched')
    ap.add_argument('--no-sanitize', action='store_true',
                    help='skip the sanitizer runs (with --valgrind)')
    ap.add_argument('--json', type=Path, help='write the results here')
    args = ap.parse_args()
    args.srctree = args.srctree.resolve()
    args.stock = args.stock.resolve()
    args.out = args.out.resolve()

    try:
        for t in [args.srctree] + ([args.stock] if args.valgrind else []):
            kmake.check_tree(t)
    except UsageError as e:
        print('kconfig-sanitize: %s' % e, file=sys.stderr)
        return 2
    for prog in ['make', 'gcc'] + (['valgrind'] if args.valgrind else []):
        if not shutil.which(prog):
            print('kconfig-sanitize: %s not found (tools/install-deps)' % prog,
                  file=sys.stderr)
            return 2

    all_sc = scenarios(args.srctree, args.set)
    run_sc = [sc for sc in all_sc
              if not args.only or re.search(args.only, sc.name)]
    result = {'srctree': str(args.srctree), 'set': args.set}
    status = 0
    try:
        if not args.no_sanitize:
            result['sanitize'] = do_sanitize(args, run_sc)
            if result['sanitize']['failed']:
                status = 1
        if args.valgrind:
            result['valgrind'] = do_valgrind(args, all_sc)
            if result['valgrind']['failed']:
                status = 1
    except UsageError as e:
        print('kconfig-sanitize: %s' % e, file=sys.stderr)
        return 2
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1) + '\n')
    return status


if __name__ == '__main__':
    sys.exit(main())

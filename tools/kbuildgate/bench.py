# SPDX-License-Identifier: GPL-2.0
"""kconfig-bench - instruction counts and gate wall time, stock against patched.

  kconfig-bench [--json FILE]
                [--part instructions|gate|audit|audit-all|import|builds]
                [--build-arch ARCH]
                [--defconfigs N]

Part "instructions" runs conf under valgrind's callgrind, which counts instructions rather
than seconds, so the figures repeat whatever else the machine does.  Each
case runs in fresh output folders (no .config, no include/config/), in
the pristine tree and in the patched tree, five folders each whose names
differ in length (the address-keyed expression hash table of 6.12 and
later moves a count by up to 3% with the path), and the medians are
compared:

  arm-allyesconfig  ARCH=arm allyesconfig: nothing is unmet, so the new
                    code must cost next to nothing (goal: <= 1.01x)
  arm-msm-board     examples/msm-board.Kconfig, 17 unmet selects with
                    their diagnosis and hints (goal: <= 1.01x)
  x86-allyesconfig  ARCH=x86 allyesconfig from nothing (goal: <= 1.02x)
  x86-olddefconfig-allyes, x86-syncconfig-allyes
                    olddefconfig, and syncconfig (what make runs when
                    .config changed), with an existing x86 allyesconfig
                    .config of 18,000 lines, the same file for both trees
                    (stock's allyesconfig) (goal: <= 1.02x)
  x86-olddefconfig-debian
                    olddefconfig with Debian's own amd64 .config
                    (linux-config-6.1, pinned by tools/install-deps): a
                    distribution's configuration (goal: <= 1.02x)

Stock kconfig cannot parse a fragment that sources "Kconfig", so the board
fragment is given to both trees with the top-level Kconfig's statements
copied in its place.

Part "gate" times the gate over the ARM defconfigs (all 100, or the first
N), each way in a fresh output folder, after conf is built:

  stock       make <x>_defconfig one after another, in the pristine tree
  patched     the same in the patched tree
  batch       make batchconfig in the patched tree: one conf process, one
              parse (goal: >= 20x faster than stock), with its peak memory
              (the maximum resident set size of make and its children);
              each of its .config files must equal the patched single run's
  kautobuild  tools/kautobuild --config-only over the same defconfigs, and
              a rerun with nothing changed, against stock olddefconfig on
              each resulting .config

Part "audit" runs tools/kconfig-audit over the whole tree of ARCH=arm and
ARCH=x86 (its program and conf built beforehand, not timed), with an
empty cache: wall time (goal for arm: <= 300 s on 2 cores, against
kismet's hour), CPU time (user + system of it and its children; goal for
arm: <= 120 s), the peak memory of the SAT process, the selects asked,
the candidates, the confirmed findings and the rejected ones.  Then, on
ARM, what the cache gives (docs/audit.md):

  again       the same tree audited a second time (goal: <= 10 s CPU)
  change      --patch: a one-file change (a new bool symbol selecting
              REGMAP_I2C, which needs I2C) against the cached tree, the
              copy of the Kconfig files and the patch included (goal:
              <= 30 s CPU, and the new select found)

Part "import" runs "kconfig-fragment import --arch all --check": every
defconfig of every architecture of the tree as a hierarchy of fragments
(docs/import.md), each board's .config regenerated under
KCONFIG_WERROR=1 and compared byte for byte (bench_import.py): the time
of the import (goal: <= 900 s) and of the regeneration of every board
(goal: <= 1800 s, two at a time), every board identical or named as an
exception with its reason, and fewer lines than the defconfigs in every
architecture with more than two.

Part "builds" builds a sample board of each architecture whose Debian
cross compiler is installed (bench_import.bench_builds()): the board
with the fewest symbols at y that the compiler can build, configured
from its fragment with that compiler, then "make vmlinux" (goal: each
builds, within 1800 s); the boards of the part "import", or of "make -f
Kbuild.mk import-all".  Not in CI.

kismet, the peer reference, does not run here (no kmax), so its hour per
architecture is quoted, not measured.

Part "audit-all" runs tools/kconfig-audit on stock 7.2 (build/7.2/pristine,
no series: its confirming conf is built in the cache), each time with an
empty cache but the last, the program and conf built within the time:

  arm         --arch arm, cold (goal: <= 30 s of wall time)
  all cold    --arch all, every architecture, cold (goal: <= 600 s)
  all warm    --arch all again, from that cache (goal: < 60 s)

with the CPU time and the peak memory of each, and the table of --arch
all.  kismet's figures for ARM on stock 6.1 on this machine (issue 38:
54 min, 6,094 s of CPU, 4.8 GiB) are quoted beside them.

Exit status: 0 every goal met, 1 a goal missed, 2 infrastructure error.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from . import kmake, util
from .bench_audit import bench_audit, bench_audit_all
from .bench_import import bench_builds, bench_import

TOP = util.TOP
BUILD = util.TREES  # the trees of KERNEL_VERSION (util.py)
# name, ARCH, target, fragment, existing .config (None, 'allyesconfig':
# stock's, or a path), goal
DEBIAN_CONFIG = '/usr/src/linux-config-6.1/config.amd64_none_amd64.xz'
CASES = [('arm-allyesconfig', 'arm', 'allyesconfig', None, None, 1.01),
         ('arm-msm-board', 'arm', 'allnoconfig', 'examples/msm-board.Kconfig',
          None, 1.01),
         ('x86-allyesconfig', 'x86', 'allyesconfig', None, None, 1.02),
         ('x86-olddefconfig-allyes', 'x86', 'olddefconfig', None,
          'allyesconfig', 1.02),
         ('x86-syncconfig-allyes', 'x86', 'syncconfig', None, 'allyesconfig',
          1.02),
         ('x86-olddefconfig-debian', 'x86', 'olddefconfig', None,
          DEBIAN_CONFIG, 1.02)]
WRAPPER = '''#!/bin/sh
exec valgrind -q --tool=callgrind --callgrind-out-file="%s" "%s" "$@"
'''


def inline_fragment(tree, fragment, out):
    """@fragment with 'source "Kconfig"' replaced by the root's statements."""
    root = open(os.path.join(tree, 'Kconfig')).read()
    root = re.sub(r'^mainmenu .*\n', '', root, flags=re.M)
    text = open(fragment).read().replace('source "Kconfig"\n', root)
    with open(out, 'w') as f:
        f.write(text)
    return out


def input_config(tmp, arch, config):
    """The existing .config of a case: stock's allyesconfig of @arch, made
    once, or the file @config (xz-compressed if it ends in .xz)."""
    if config != 'allyesconfig':
        if not os.path.exists(config):
            raise RuntimeError('%s is missing: tools/install-deps installs it'
                               % config)
        if not config.endswith('.xz'):
            return config
        path = os.path.join(tmp, os.path.basename(config)[:-3])
        if not os.path.exists(path):
            with open(path, 'wb') as f:
                subprocess.run(['xz', '-dc', config], stdout=f, check=True)
        return path
    path = os.path.join(tmp, 'input-%s-allyesconfig' % arch)
    if not os.path.exists(path):
        out = os.path.join(tmp, 'input-%s' % arch)
        ps = kmake.make(os.path.join(BUILD, 'pristine'), out, arch,
                        'allyesconfig', stdin=None)
        if ps.returncode:
            raise RuntimeError('stock allyesconfig failed:\n' + ps.stdout)
        shutil.copy(os.path.join(out, '.config'), path)
    return path


def count(tree, tmp, name, arch, target, fragment, config):
    """Instructions that conf executes for @target in a fresh folder, with
    @config as its existing .config if given."""
    out = os.path.join(tmp, name)
    env = {}
    if fragment:
        env['KBUILD_KCONFIG'] = inline_fragment(
            tree, os.path.join(TOP, fragment), os.path.join(tmp, name + '.Kconfig'))
    # build conf, then start again from a fresh output folder
    ps = kmake.make(tree, out, arch, target,
                    env=kmake.environment(extra=env), stdin=None)
    for p in ('.config', '.config.old', 'include'):
        p = os.path.join(out, p)
        shutil.rmtree(p) if os.path.isdir(p) else os.path.exists(p) and os.unlink(p)
    if config:
        shutil.copy(input_config(tmp, arch, config),
                    os.path.join(out, '.config'))
    conf = os.path.join(out, 'scripts/kconfig/conf')
    if not os.path.exists(conf):
        raise RuntimeError('%s: conf was not built:\n%s' % (tree, ps.stdout))
    os.rename(conf, conf + '.real')
    result = os.path.join(tmp, name + '.callgrind')
    with open(conf, 'w') as f:
        f.write(WRAPPER % (result, conf + '.real'))
    os.chmod(conf, 0o755)
    # keep make from rebuilding conf over the wrapper
    os.utime(conf)
    ps = kmake.make(tree, out, arch, target,
                    env=kmake.environment(extra=env), stdin=None)
    if not os.path.exists(result):
        raise RuntimeError('%s: callgrind wrote nothing:\n%s' % (tree, ps.stdout))
    with open(result) as f:
        m = re.search(r'^(?:summary|totals): (\d+)', f.read(), re.M)
    return int(m.group(1)), ps.returncode


def timed(cmd, env=None):
    """Run @cmd; return (seconds, peak RSS in KiB of it and its children,
    returncode)."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return time.monotonic() - start, usage.ru_maxrss, p.returncode


def sequential(tree, out, defconfigs, olddefconfig=None):
    """make <x>_defconfig for each of @defconfigs in @out; return (seconds,
    {defconfig: .config bytes}).  With @olddefconfig (a list), time a
    "make olddefconfig" on each resulting .config too, into it."""
    env = kmake.environment()
    timed(kmake.command(tree, out, 'arm', 'allnoconfig', quiet=True), env)    # build conf first
    configs, seconds = {}, 0
    for i, d in enumerate(defconfigs):
        s, _, rc = timed(kmake.command(tree, out, 'arm', d, quiet=True), env)
        seconds += s
        if rc == 0:
            with open(os.path.join(out, '.config'), 'rb') as f:
                configs[d] = f.read()
        if olddefconfig is not None:
            olddefconfig.append(timed(kmake.command(tree, out, 'arm', 'olddefconfig', quiet=True),
                                      env)[0])
        if (i + 1) % 20 == 0:
            print('  ... %s: %d/%d in %.0fs' % (os.path.basename(tree), i + 1,
                                                len(defconfigs), seconds),
                  flush=True)
    return seconds, configs


def kautobuild(tmp, tree, defconfigs):
    """tools/kautobuild --config-only over @defconfigs, then again with
    nothing changed; return the two wall times."""
    cmd = [sys.executable, os.path.join(TOP, 'tools', 'kautobuild'),
           '--config-only', '--srctree', tree, '--arch', 'arm',
           '--out', os.path.join(tmp, 'kautobuild'),
           '--json', os.path.join(tmp, 'kautobuild.json')] + defconfigs
    times = []
    for what in ('first run', 'rerun, nothing changed'):
        s, _, rc = timed(cmd, kmake.environment())
        times.append(round(s, 2))
        print('  %-52s %8.1fs%s' % ('tools/kautobuild --config-only, ' + what,
                                    s, '' if rc in (0, 1) else
                                    '  (exit %d)' % rc), flush=True)
    return times


def bench_gate(tmp, count):
    """The part "gate": the first @count ARM defconfigs configured
    one make each in the stock and the patched tree, in one make
    batchconfig, and by kautobuild --config-only; prints each time.
    Returns (the batch's goal met, the figures)."""
    patched = os.path.join(BUILD, 'patched')
    pristine = os.path.join(BUILD, 'pristine')
    defconfigs = sorted(d for d in os.listdir(os.path.join(
        pristine, 'arch/arm/configs')) if d.endswith('_defconfig'))[:count]
    n = len(defconfigs)
    print('gate over %d ARM defconfigs, wall time (conf built beforehand)' % n,
          flush=True)

    old = []
    stock, _ = sequential(pristine, os.path.join(tmp, 'stock'), defconfigs,
                          old)
    print('  %-52s %8.1fs' % ('stock, make <x>_defconfig one after another',
                              stock), flush=True)
    print('  %-52s %8.1fs' % ('stock, make olddefconfig on each .config',
                              sum(old)), flush=True)
    single, configs = sequential(patched, os.path.join(tmp, 'single'),
                                 defconfigs)
    print('  %-52s %8.1fs' % ('patched, make <x>_defconfig one after another',
                              single), flush=True)

    out = os.path.join(tmp, 'batch')
    lst = os.path.join(tmp, 'batch.list')
    with open(lst, 'w') as f:
        for d in defconfigs:
            f.write('%s defconfig arch/arm/configs/%s\n' % (d, d))
    env = dict(kmake.environment(), KCONFIG_BATCH=lst,
               KCONFIG_BATCH_DIR=os.path.join(out, 'batch'))
    timed(kmake.command(patched, out, 'arm', 'allnoconfig', quiet=True), kmake.environment())
    batch, rss, rc = timed(kmake.command(patched, out, 'arm', 'batchconfig', quiet=True), env)
    same = 0
    for d in defconfigs:
        path = os.path.join(out, 'batch', d, '.config')
        if os.path.exists(path):
            with open(path, 'rb') as f:
                same += f.read() == configs.get(d)
    speedup = stock / batch
    # the goal is for the whole set: a few targets cannot amortize a parse
    fast = speedup >= 20 or count is not None
    ok = rc == 0 and same == n and fast
    print('  %-52s %8.1fs  %.0fx faster than stock (goal >= 20x%s) %s' %
          ('patched, make batchconfig (one parse)', batch, speedup,
           ', for all' if count is not None else '',
           'ok' if ok else 'MISSED'))
    print('  %-52s %8.1f MiB' % ('batchconfig peak memory (max RSS)',
                                 rss / 1024))
    print('  %-52s %d/%d' % ('batch .config equal to the single run', same, n),
          flush=True)
    kab = kautobuild(tmp, patched, defconfigs)
    return ok, {'defconfigs': n, 'stock_seconds': round(stock, 2),
                'stock_olddefconfig_seconds': round(sum(old), 2),
                'kautobuild_seconds': kab[0], 'kautobuild_rerun_seconds': kab[1],
                'patched_seconds': round(single, 2),
                'batch_seconds': round(batch, 2),
                'batch_max_rss_kib': rss, 'speedup': round(speedup, 1),
                'batch_identical': same, 'goal_speedup': 20}


# the output folders' name paddings each count is taken with
LAYOUTS = ('', 'x', 'xx', 'xxx', 'xxxxxxx')


def median_count(tree, tmp, name, arch, target, fragment, config):
    """The median of conf's instruction counts over LAYOUTS.  Stock
    kconfig's expression hash table (6.12 on) takes its buckets from the
    addresses of its nodes, and the path of the output folder moves them:
    on 7.2 one count moves by up to 3% with the folder's name alone, more
    than the goal.  The median over five folders of different lengths is
    the figure of each tree."""
    counts = sorted(count(tree, tmp, name + pad, arch, target, fragment,
                          config)[0] for pad in LAYOUTS)
    return counts[len(counts) // 2], counts


def bench_instructions(tmp, only=None):
    """The part "instructions": conf's instruction counts on
    each case of CASES (or of @only), stock against patched (median_count()); prints
    each ratio.  Returns (every ratio within its goal, the figures)."""
    results, ok = [], True
    print('%-24s %14s %14s %7s %6s' % ('case', 'stock', 'patched',
                                        'ratio', 'goal'))
    for name, arch, target, fragment, config, goal in CASES:
        if only and name not in only:
            continue
        stock, stocks = median_count(os.path.join(BUILD, 'pristine'), tmp,
                                     'stock-' + name, arch, target, fragment,
                                     config)
        patched, patcheds = median_count(os.path.join(BUILD, 'patched'),
                                         tmp, 'serie-' + name, arch, target,
                                         fragment, config)
        ratio = patched / stock
        ok = ok and ratio <= goal
        print('%-24s %14d %14d %6.3fx %5.2fx %s' %
              (name, stock, patched, ratio, goal,
               'ok' if ratio <= goal else 'MISSED'), flush=True)
        print('%-24s %14s %14s  (range over %d folders)' % (
            '', '%d-%dM' % (stocks[0] // 10**6, stocks[-1] // 10**6),
            '%d-%dM' % (patcheds[0] // 10**6, patcheds[-1] // 10**6),
            len(LAYOUTS)), flush=True)
        results.append({'case': name, 'stock': stock, 'patched': patched,
                        'ratio': round(ratio, 4), 'goal': goal,
                        'stock_counts': stocks, 'patched_counts': patcheds})
    return ok, results


def main():
    """kconfig-bench's command line: the parts asked for (--part), the
    figures written to --json.  Returns the exit status: 0 every goal met,
    1 one missed, 2 an infrastructure error."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--version', action='version',
                    version='%(prog)s ' + util.VERSION)
    ap.add_argument('--json', help='write the figures here')
    ap.add_argument('--part', action='append',
                    choices=('instructions', 'gate', 'audit', 'audit-all',
                             'import', 'builds'),
                    help='run only this part (default: all)')
    ap.add_argument('--case', action='append', metavar='NAME',
                    choices=[c[0] for c in CASES],
                    help='count only this case of part "instructions" '
                    '(default: all): %s' % ', '.join(c[0] for c in CASES))
    ap.add_argument('--build-arch', action='append', metavar='ARCH',
                    help='build the sample of this architecture only, in '
                    'part "builds" (default: every one)')
    ap.add_argument('--defconfigs', type=int, default=None, metavar='N',
                    help='time the gate over the first N defconfigs only')
    args = ap.parse_args()
    parts = args.part or ['instructions', 'gate', 'audit', 'audit-all',
                          'import', 'builds']
    if 'instructions' in parts and not shutil.which('valgrind'):
        print('kconfig-bench: valgrind not found', file=sys.stderr)
        return 2
    for tree in ('pristine', 'patched'):
        if not os.path.isdir(os.path.join(BUILD, tree)):
            print('kconfig-bench: %s missing: run "make -f Kbuild.mk trees"'
                  % os.path.join(BUILD, tree), file=sys.stderr)
            return 2

    figures, ok = {}, True
    with tempfile.TemporaryDirectory(prefix='kconfig-bench.') as tmp:
        try:
            if 'instructions' in parts:
                good, figures['instructions'] = bench_instructions(
                    tmp, args.case)
                ok = ok and good
            if 'gate' in parts:
                good, figures['gate'] = bench_gate(tmp, args.defconfigs)
                ok = ok and good
            if 'audit' in parts:
                print('kconfig-audit, the whole tree:', flush=True)
                good, figures['audit'] = bench_audit(tmp)
                ok = ok and good
            if 'audit-all' in parts:
                print('kconfig-audit, every architecture of stock 7.2:',
                      flush=True)
                good, figures['audit-all'] = bench_audit_all(tmp)
                ok = ok and good
            if 'import' in parts:
                print('kconfig-fragment import --arch all --check, every '
                      'defconfig of every architecture:', flush=True)
                good, figures['import'] = bench_import(tmp)
                ok = ok and good
            if 'builds' in parts:
                print('a sample board of each architecture, built with '
                      'Debian\'s cross compiler:', flush=True)
                good, figures['builds'] = bench_builds(
                    tmp, figures.get('import', {}).get('imported'),
                    args.build_arch)
                ok = ok and good
        except RuntimeError as e:
            print('kconfig-bench: %s' % e, file=sys.stderr)
            return 2
    if args.json:
        with open(args.json + '.tmp', 'w') as f:
            json.dump(figures, f, indent=2)
            f.write('\n')
        os.replace(args.json + '.tmp', args.json)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())

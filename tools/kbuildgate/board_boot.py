# SPDX-License-Identifier: GPL-2.0
"""board-boot - configure, build, check and boot one board fragment.

  board-boot [--srctree DIR] [--out DIR] [--jobs N] [--timeout S]
             [--no-sparse] BOARD

BOARD names a file in qemu-images/boards/ (FRAGMENT, DEFCONFIG or IMPORT,
and CONFIG_FRAGMENT, ARCH, MACHINE, CPU, EXPECT, SPARSE).  The steps, each
with its log in OUT/BOARD/:

  import     for IMPORT=NAME: "kconfig-fragment import --check" of
             NAME_defconfig into OUT/BOARD/import/ (the generated board,
             its .config compared with the defconfig's), which is then
             the FRAGMENT, its NAME.config and CONFIG_FRAGMENT together
             the KCONFIG_ALLCONFIG
  configure  KBUILD_KCONFIG=FRAGMENT KCONFIG_WERROR=1 make allnoconfig,
             CONFIG_FRAGMENT as KCONFIG_ALLCONFIG if there is one, with
             kconfig's JSON report; or make DEFCONFIG, the
             CONFIG_FRAGMENT merged in (merge_config.sh), then olddefconfig
             under KCONFIG_WERROR, KCONFIG_WARN_DROPPED and
             KCONFIG_WARN_UNKNOWN_SYMBOLS
  build      make zImage (incremental: a rerun with nothing changed takes
             seconds)
  sparse     make C=2 on the paths the board names; the count is reported
  initramfs  qemu-images/build-initramfs
  boot       qemu-images/boot, which waits for the init's verdict

Exit status: 0 the board booted and registered every expected driver,
1 a step failed, 2 usage or infrastructure error.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

from . import kmake, util
from .boards import read_board as read_board_file
from .build import NO_SPARSE
from .errors import UsageError
from .util import SPARSE

TOP = util.TOP
BOARDS = os.path.join(TOP, 'qemu-images', 'boards')


def read_board(name):
    """The description qemu-images/boards/@name, as a dict; exits 2 when
    there is none."""
    path = os.path.join(BOARDS, name)
    if not os.path.isfile(path):
        raise SystemExit('board-boot: no board %s (%s)' % (
            name, ', '.join(sorted(os.listdir(BOARDS)))))
    return read_board_file(path)


class Steps:
    """The steps of one board-boot, each a command with its log in
    @out, a progress line before and after, and its result."""

    def __init__(self, out):
        """@out: the board's output folder, where each step's log
        goes."""
        self.out = out
        self.start = time.monotonic()
        self.results = []

    def run(self, step, cmd, env=None, **kw):
        """Run @cmd as @step, its output in OUT/STEP.log; returns (exit
        status, log)."""
        log = os.path.join(self.out, step + '.log')
        t = time.monotonic()
        print('[%6.1fs] %-9s ... (log %s)' % (t - self.start, step, log),
              flush=True)
        with open(log, 'w') as f:
            ps = subprocess.run(cmd, env=env, stdout=f,
                                stderr=subprocess.STDOUT, **kw)
        seconds = time.monotonic() - t
        status = 'PASS' if ps.returncode == 0 else 'FAIL'
        print('[%6.1fs] %-9s %s in %.1fs' % (time.monotonic() - self.start,
                                             step, status, seconds),
              flush=True)
        self.results.append({'step': step, 'status': status,
                             'seconds': round(seconds, 1), 'log': log,
                             'returncode': ps.returncode})
        if ps.returncode:
            with open(log) as f:
                print('\n'.join('    ' + l for l in
                                f.read().splitlines()[-15:]))
        return ps.returncode, log


def main():
    """board-boot's command line; returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--version', action='version',
                    version='%(prog)s ' + util.VERSION)
    ap.add_argument('--srctree', default=os.path.join(util.TREES, 'patched'),
                    help='the kernel tree with the series (default: the '
                    'patched tree of tools/kernel-tree)')
    ap.add_argument('--out', default=os.path.join(util.TREES, 'out', 'boards'),
                    help='folder for the build, the logs and the report '
                    '(default: build/out/boards)')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1,
                    help='make -j for the kernel build (default: the number '
                    'of CPUs)')
    ap.add_argument('--timeout', type=float, default=120,
                    help='seconds the boot in QEMU may take (default 120)')
    ap.add_argument('--no-sparse', action='store_true',
                    help='skip sparse (make C=2) on the files that the board '
                    'names (its MSM code)')
    ap.add_argument('board', help='the board to build and boot (a name in '
                    'tools/kbuildgate/boards.py)')
    args = ap.parse_args()

    board = read_board(args.board)
    srctree = os.path.abspath(args.srctree)
    if 'FRAGMENT' in board and \
            not os.path.isfile(os.path.join(srctree, board['FRAGMENT'])):
        print('board-boot: %s has no %s: is the series applied?' %
              (srctree, board['FRAGMENT']), file=sys.stderr)
        return 2
    arch = board['ARCH']
    try:
        kmake.check_tree(srctree)
        kmake.check_arch(srctree, arch, '%s: ARCH=' % args.board)
    except UsageError as e:
        print('board-boot: %s' % e, file=sys.stderr)
        return 2
    cross = kmake.CROSS_COMPILE.get(arch, '')
    out = os.path.join(os.path.abspath(args.out), args.board)
    os.makedirs(out, exist_ok=True)
    make = kmake.command(srctree, out, arch)
    env = kmake.environment(werror=True, report=os.path.join(
        out, 'kconfig-report.json'))
    steps = Steps(out)
    verdict = 'FAIL'

    rc = 0
    if 'IMPORT' in board:
        # the board that kconfig-fragment import makes of the defconfig
        name = board['IMPORT']
        imported = os.path.join(out, 'import')
        rc, _ = steps.run('import', [
            sys.executable, os.path.join(TOP, 'tools', 'kconfig-fragment'),
            'import', '--srctree', srctree, '--arch', arch, '--out',
            imported, '--work', os.path.join(out, 'import-work'), '--check',
            '--json', os.path.join(out, 'import.json'), name])
        board['FRAGMENT'] = os.path.join(imported, 'Kconfig.' + name)
        allconfig = ''
        for f in (os.path.join(imported, name + '.config'),
                  os.path.join(BOARDS, board.get('CONFIG_FRAGMENT', ''))):
            if os.path.isfile(f):
                with open(f) as fh:
                    allconfig += fh.read()
        board['CONFIG_FRAGMENT'] = os.path.join(out, 'allconfig')
        util.write_atomic(board['CONFIG_FRAGMENT'], allconfig)
    if not rc and 'DEFCONFIG' in board:
        # A defconfig, with a config fragment merged in, must be clean
        # under every warning kconfig has.
        env.update(KCONFIG_WARN_DROPPED='1', KCONFIG_WARN_UNKNOWN_SYMBOLS='1')
        fragment = os.path.join(BOARDS, board['CONFIG_FRAGMENT'])
        merge = os.path.join(srctree, 'scripts', 'kconfig', 'merge_config.sh')
        rc, _ = steps.run('configure', ['sh', '-c', '"$@" %s && '
                                        '%s -m -O %s %s/.config %s && '
                                        '"$@" olddefconfig' % (
                                            board['DEFCONFIG'], merge, out,
                                            out, fragment), 'sh'] + make,
                          env=dict(env, ARCH=arch, CROSS_COMPILE=cross))
    elif not rc:
        env['KBUILD_KCONFIG'] = board['FRAGMENT']
        if board.get('CONFIG_FRAGMENT'):
            # values the board's configuration starts from
            env['KCONFIG_ALLCONFIG'] = os.path.join(
                BOARDS, board['CONFIG_FRAGMENT'])
        rc, _ = steps.run('configure', make + ['allnoconfig'], env=env)
    if not rc:
        rc, _ = steps.run('build', make + ['-j%d' % args.jobs, 'zImage'],
                          env=env)
    sparse = None
    if not rc and board.get('SPARSE') and not args.no_sparse:
        check = ['CHECK=' + SPARSE] if SPARSE else []
        _, log = steps.run('sparse', make + ['-j%d' % args.jobs, 'C=2'] +
                           check + board['SPARSE'].split(), env=env)
        with open(log) as f:
            text = f.read()
        sparse = len(re.findall(r'^\S+:\d+:\d+: (?:warning|error):',
                                text, re.M))
        skipped = NO_SPARSE.search(text)
        if skipped:
            # the kernel turned sparse off: nothing was checked
            print('           sparse: %s' % skipped.group(0))
            sparse, rc = None, 1
        else:
            print('           sparse: %d warning(s) or error(s)' % sparse)
    if not rc:
        rc, _ = steps.run('initramfs',
                          [os.path.join(TOP, 'qemu-images', 'build-initramfs'),
                           srctree, os.path.join(out, 'initramfs')],
                          env=dict(env, CROSS_COMPILE=cross))
    drivers = []
    if not rc:
        rc, _ = steps.run('boot', [
            sys.executable, os.path.join(TOP, 'qemu-images', 'boot'),
            '--kernel', os.path.join(out, 'arch', arch, 'boot', 'zImage'),
            '--initrd', os.path.join(out, 'initramfs', 'initramfs.cpio'),
            '--log', os.path.join(out, 'console.log'),
            '--machine', board['MACHINE'], '--cpu', board['CPU'],
            '--expect', board.get('EXPECT', ''),
            '--timeout', str(args.timeout)])
        with open(os.path.join(out, 'console.log'), errors='replace') as f:
            m = re.search(r'^init: platform drivers:(.*)$', f.read(), re.M)
        drivers = m.group(1).split() if m else []
        if not rc:
            verdict = 'PASS'

    expected = [d for d in board.get('EXPECT', '').split(',') if d]
    print('%s: %s in %.1fs' % (args.board, verdict,
                               time.monotonic() - steps.start))
    if expected:
        print('  expected drivers registered: %s' %
              ' '.join(d for d in expected if d in drivers))
        missing = [d for d in expected if d not in drivers]
        if missing and drivers:
            print('  missing: %s' % ' '.join(missing))
    result = {'board': args.board, 'status': verdict, 'steps': steps.results,
              'sparse': sparse, 'drivers': drivers, 'expected': expected,
              'config': os.path.join(out, '.config')}
    util.write_atomic(os.path.join(out, 'result.json'),
                      json.dumps(result, indent=2))
    return 0 if verdict == 'PASS' else 1


if __name__ == '__main__':
    sys.exit(main())

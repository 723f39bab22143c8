# SPDX-License-Identifier: GPL-2.0
"""board-boot - configure, build, check and boot one board fragment.

  board-boot [--srctree DIR] [--out DIR] [--jobs N] [--timeout S]
             [--no-sparse] BOARD

BOARD names a file in qemu-images/boards/ (FRAGMENT, DEFCONFIG or IMPORT,
and CONFIG_FRAGMENT, ARCH, MACHINE, CPU, EXPECT, SPARSE).  The steps are
those of kautobuild's pipeline (run.Run), one target, each phase with its
log in OUT/BOARD/:

  import     for IMPORT=NAME: "kconfig-fragment import --check --base
             allnoconfig" (the plan's form) of
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
  build      make zImage dtbs (incremental: a rerun with nothing changed
             takes seconds)
  sparse     make C=2 on the paths the board names; the count is reported
  initramfs  qemu-images/build-initramfs (log: boot.log)
  boot       qemu-images/boot, which waits for the init's verdict

Exit status: 0 the board booted and registered every expected driver,
1 a step failed, 2 usage or infrastructure error.
"""

import json
import os
import sys
import time

from . import kmake, util
from .boards import board_target
from .boards import read_board as read_board_file
from .build import NO_SPARSE, sparse_counts
from .errors import UsageError
from .run import Options, Run

TOP = util.TOP
BOARDS = os.path.join(TOP, 'qemu-images', 'boards')


def read_board(name):
    """The description qemu-images/boards/@name, as a dict; exits
    (SystemExit, naming the boards there are) when there is none."""
    path = os.path.join(BOARDS, name)
    if not os.path.isfile(path):
        raise SystemExit('board-boot: no board %s (%s)' % (
            name, ', '.join(sorted(os.listdir(BOARDS)))))
    return read_board_file(path)


class BoardRun(Run):
    """The run (run.Run) of one board, reported as board-boot does: a
    line as each phase starts and as it ends, the end of its log when it
    failed, and sparse's count; no kautobuild progress lines.  Its
    results are board-boot's steps, in order."""

    def __init__(self, opts, srctree, out):
        """@opts, @srctree, @out: those of run.Run."""
        super().__init__(opts, srctree, out)
        self.results = []
        self.sparse = None

    def started(self, t, phase, log):
        """Print the line of @phase starting, its output in @log."""
        print('[%6.1fs] %-9s ... (log %s)' % (time.monotonic() - self.start,
                                              phase, log), flush=True)

    def ended(self, t, phase, log, rc, seconds):
        """Print and record the end of @phase (exit status @rc, after
        @seconds): its line, the last 15 lines of @log when it failed,
        and for sparse its count (self.sparse: the warnings and errors,
        None when the kernel turned sparse off)."""
        status = 'PASS' if rc == 0 else 'FAIL'
        print('[%6.1fs] %-9s %s in %.1fs' % (time.monotonic() - self.start,
                                             phase, status, seconds),
              flush=True)
        self.results.append({'step': phase, 'status': status,
                             'seconds': round(seconds, 1), 'log': log,
                             'returncode': rc})
        if rc:
            print('\n'.join('    ' + line for line in
                            util.log_tail(log, 15).splitlines()))
        if phase == 'sparse':
            with open(log, errors='replace') as f:
                text = f.read()
            skipped = NO_SPARSE.search(text)
            if skipped:
                # the kernel turned sparse off: nothing was checked
                print('           sparse: %s' % skipped.group(0))
            else:
                self.sparse = sparse_counts(text)['warnings']
                print('           sparse: %d warning(s) or error(s)' %
                      self.sparse)

    def progress(self, t, step, res):
        """No kautobuild progress line: the phases have theirs."""

    def command(self, phase, cmd, log):
        """Run @cmd as @phase, its output in @log; returns the exit
        status."""
        self.started(None, phase, log)
        start = time.monotonic()
        with open(log, 'w') as f:
            rc = kmake.logged(f, cmd, None)
        self.ended(None, phase, log, rc, time.monotonic() - start)
        return rc


def parse_args(argv=None):
    """board-boot's command line (@argv, default sys.argv[1:]) as an
    argparse namespace."""
    ap = util.tool_parser('board-boot', __doc__)
    ap.add_argument('--srctree', **kmake.srctree_option())
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
    ap.add_argument('board', help='the board to build and boot (a file of '
                    'qemu-images/boards/)')
    return ap.parse_args(argv)


def check(board, name, srctree):
    """Raise UsageError unless @srctree is a kernel tree that has the
    fragment of @board (the description of the board @name) and its
    ARCH."""
    if 'FRAGMENT' in board and \
            not os.path.isfile(os.path.join(srctree, board['FRAGMENT'])):
        raise UsageError('%s has no %s: is the series applied?' %
                         (srctree, board['FRAGMENT']))
    kmake.check_tree(srctree)
    kmake.check_arch(srctree, board['ARCH'], '%s: ARCH=' % name)


def import_board(run, board, srctree, out):
    """For IMPORT=NAME: the board that "kconfig-fragment import --check
    --base allnoconfig" makes of NAME_defconfig, in @out/import/, becomes
    @board's FRAGMENT,
    and its NAME.config with the board's CONFIG_FRAGMENT its
    CONFIG_FRAGMENT (@out/allconfig).  Returns the import's exit
    status."""
    name = board['IMPORT']
    imported = os.path.join(out, 'import')
    rc = run.command('import', [
        sys.executable, os.path.join(TOP, 'tools', 'kconfig-fragment'),
        'import', '--srctree', srctree, '--arch', board['ARCH'], '--out',
        imported, '--work', os.path.join(out, 'import-work'), '--check',
        # the plan's form: alone, a board is smaller on alldefconfig
        '--base', 'allnoconfig',
        '--json', os.path.join(out, 'import.json'), name],
        os.path.join(out, 'import.log'))
    board['FRAGMENT'] = os.path.join(imported, 'Kconfig.' + name)
    allconfig = ''
    for f in (os.path.join(imported, name + '.config'),
              os.path.join(BOARDS, board.get('CONFIG_FRAGMENT', ''))):
        if os.path.isfile(f):
            with open(f) as fh:
                allconfig += fh.read()
    board['CONFIG_FRAGMENT'] = os.path.join(out, 'allconfig')
    util.write_atomic(board['CONFIG_FRAGMENT'], allconfig)
    return rc


def report(name, run, result, board, out):
    """Print the verdict of the board @name and its drivers, and write
    OUT/BOARD/result.json from @run's steps and the target's @result (None
    when the import failed).  Returns the exit status: 0 when it booted,
    else 1."""
    steps = result['steps'] if result else {}
    passed = result is not None and result['status'] == 'PASS' and \
        steps.get('boot', {}).get('status') == 'PASS'
    verdict = 'PASS' if passed else 'FAIL'
    drivers = result.get('drivers', []) if result else []
    expected = [d for d in board.get('EXPECT', '').split(',') if d]
    print('%s: %s in %.1fs' % (name, verdict, time.monotonic() - run.start))
    if expected:
        print('  expected drivers registered: %s' %
              ' '.join(d for d in expected if d in drivers))
        missing = [d for d in expected if d not in drivers]
        if missing and drivers:
            print('  missing: %s' % ' '.join(missing))
    doc = {'board': name, 'status': verdict, 'steps': run.results,
           'sparse': run.sparse, 'drivers': drivers, 'expected': expected,
           'config': os.path.join(out, '.config')}
    util.write_atomic(os.path.join(out, 'result.json'),
                      json.dumps(doc, indent=2))
    return 0 if passed else 1


def main(argv=None):
    """board-boot's command line (@argv, default sys.argv[1:]): the board
    through run.Run.  Returns the exit status: 0 it booted with its
    drivers, 1 a step failed, 2 a usage error."""
    args = parse_args(argv)
    board = read_board(args.board)
    srctree = os.path.abspath(args.srctree)
    try:
        check(board, args.board, srctree)
    except UsageError as e:
        print('board-boot: %s' % e, file=sys.stderr)
        return 2
    out = os.path.abspath(args.out)
    run = BoardRun(Options(jobs=args.jobs, force=True, werror=True,
                           no_batch=True, boot_timeout=args.timeout,
                           warn_all=True), srctree, out)
    d = os.path.join(out, args.board)
    os.makedirs(d, exist_ok=True)
    if 'IMPORT' in board and import_board(run, board, srctree, d):
        return report(args.board, run, None, board, d)
    t = board_target(args.board, board, os.path.join(BOARDS, args.board),
                     board['ARCH'])
    if args.no_sparse:
        t.sparse = []
    result, = run.run([t])
    return report(args.board, run, result, board, d)


if __name__ == '__main__':
    sys.exit(main())

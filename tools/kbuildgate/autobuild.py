# SPDX-License-Identifier: GPL-2.0
"""kautobuild - the CI gate: configure, build and boot boards and defconfigs.

  kautobuild [--config-only] [--jobs N] [--json FILE] [--junit FILE]
             [--srctree DIR] [--arch ARCH] [--out DIR] [--fail-on-dropped]
             [--build-defconfigs] [--no-batch] [--force]
             [--boot-timeout S] [--lava-url BASE] [--lava-run] [--audit]
             [TARGET...]
  kautobuild --fragments DIR [OPTIONS] [TARGET...]
  kautobuild --list [TARGET...]
  kautobuild --ci gitlab|github [--ci-out FILE] [OPTIONS] [TARGET...]
  kautobuild --merge A.json B.json ... [--json FILE] [--junit FILE]

TARGET is a board (qemu-images/boards/NAME, or arch/ARCH/boards/Kconfig.NAME
of the tree when no other board fragment sources it), a path to a Kconfig
fragment (its "# arch: NAME" line, else --arch), or a defconfig of
arch/ARCH/configs/ (with or without the _defconfig suffix).  Without
TARGET: every board and every defconfig of --arch.  --fragments DIR adds
every board of a folder of fragments (kconfig-fragment import's): each
Kconfig.NAME that no other file of DIR sources, configured as
KBUILD_KCONFIG=DIR/Kconfig.NAME [KCONFIG_ALLCONFIG=DIR/NAME.config] make
allnoconfig (alldefconfig for a board whose first lines say "#
kconfig-base: alldefconfig", kmake.fragment_base()); with --fragments and
no TARGET, only those.  A folder of
"kconfig-fragment import --arch all" (DIR/ARCH/Kconfig.NAME) gives the
boards of each architecture, named ARCH/NAME, each of its ARCH.

Steps, each target in OUT/NAME/ with one log per step:

  configure  the gate, from kconfig's JSON report (KCONFIG_UNMET_REPORT)
             rather than conf's KCONFIG_WERROR exit status, which would also
             fail defconfigs on what the policy only counts (a symbol
             assigned twice, dropped requests): KBUILD_KCONFIG=FRAGMENT make allnoconfig
             (or the fragment's kconfig-base) for boards and fragments, make NAME_defconfig for defconfigs
             (all of them in one "make batchconfig" when the tree has it).
             Boards and fragments go through kmake.configure(),
             as in kconfig-gate and kconfig-fragment.  Fails on any unmet
             select, on a fragment's select of a symbol that no Kconfig
             file defines, and on conf's failure (a syntax error at its
             FILE:LINE); dropped requests are counted and listed, and fail
             only with --fail-on-dropped.  The JSON's "reason" of a failed
             configure starts with what failed ("unmet select: ...",
             "undefined symbol: ...", "syntax error: FILE:LINE",
             "dropped request: ...", "configure: ..."), then conf's own
             lines as they are; "reasons" lists each.  Run in parallel
             (--jobs).
  audit      with --audit, for boards and fragments: tools/kconfig-audit
             --fragment --own, the selects of the fragment's own files
             that some configuration derived from it can leave unmet
             (PicoSAT, each confirmed by conf).  Fails on any finding, with
             its reproducer .config.  In OUT/NAME/audit/ and audit.json.
  build      make zImage dtbs (bzImage on x86), then make C=2 (sparse) on
             the paths the board names (SPARSE=).  Defconfigs skip it unless
             --build-defconfigs.  Skipped when .config, the source tree
             and the toolchain are unchanged since the last good build.
  boot       qemu-images/build-initramfs and qemu-images/boot, for boards
             naming a QEMU MACHINE; a LAVA job for the same boot is written
             to OUT/NAME/lava-job.yaml.
  lava       with --lava-run, after a boot: the same boot as a LAVA job
             (file:// URLs), run by Debian's lava-dispatcher through its
             standalone runner, lava-run, on a qemu device; LAVA's own
             result of the BOOT test case must be pass.  In OUT/NAME/lava/.

A failed step fails its target; the run goes on with the next one.

--ci writes a pipeline that fans the run out on a CI engine, one job per
target (GitLab CI child pipeline or GitHub Actions workflow; see
tools/kbuildgate/ci.py), validated against the engine's published schema
when tools/install-deps has fetched it, and exits; with --fragments of
"import --arch all", one job an architecture instead (a matrix), which
imports that architecture and gates its boards.  Options given with it
(--config-only, --lava-run...) are passed on to each job.

Exit status: 0 every target passed, 1 some target failed, 2 usage or
infrastructure error (no tree, series missing, no cross compiler, unknown
target, QEMU cannot start).
"""

import argparse
import json
import os
import shutil
import sys
import time

from . import ci, kmake
from .boards import fragment_folder, resolve
from .boot import BOOT_TIMEOUT
from .errors import UsageError
from .report import exit_status, merge, summary, write_outputs
from .run import Options, Run
from .util import TOP, TREES, VERSION


def check_infrastructure(args, srctree, targets):
    """Raise UsageError unless the tree, its series and every program
    the run's steps need are there."""
    kmake.check_tree(srctree, series=True)
    if not shutil.which('make'):
        raise UsageError('make is not installed')
    for arch in sorted({t.arch for t in targets}):
        kmake.check_arch(srctree, arch)
        cc = kmake.CROSS_COMPILE.get(arch, '') + 'gcc'
        if not shutil.which(cc):
            raise UsageError('no %s compiler: %s not in PATH%s' % (
                arch, cc, ' (apt-get install gcc-arm-linux-gnueabi)'
                if arch == 'arm' else ''))
    for t in targets:
        if t.fragment and not os.path.isabs(t.fragment) and \
                not os.path.isfile(os.path.join(srctree, t.fragment)):
            raise UsageError('%s: %s is not in %s: is the series applied?' %
                             (t.name, t.fragment, srctree))
    if args.audit and any(t.fragment for t in targets) and \
            not os.path.isfile('/usr/include/picosat/picosat.h'):
        raise UsageError('--audit: PicoSAT is not installed (apt-get '
                         'install picosat)')
    if args.config_only:
        return
    builds = [t for t in targets
              if t.kind != 'defconfig' or args.build_defconfigs]
    if any(t.sparse for t in builds) and not shutil.which('sparse'):
        raise UsageError('sparse is not installed (apt-get install sparse)')
    if any(t.machine for t in builds) and \
            not shutil.which('qemu-system-arm'):
        raise UsageError('qemu-system-arm is not installed')
    if args.lava_run and any(t.machine for t in builds):
        if not shutil.which('lava-run'):
            raise UsageError('--lava-run: lava-run is not installed '
                             '(apt-get install lava-dispatcher)')
        if os.geteuid() != 0:
            raise UsageError('--lava-run: lava-run must run as root')


def parser():
    """kautobuild's argparse parser."""
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        usage=__doc__.split('\n\n')[1].strip('\n').replace('  kautobuild',
                                                            'kautobuild', 1),
        epilog='\n'.join(__doc__.split('\n\n', 2)[2:]),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--version', action='version',
                    version='kautobuild ' + VERSION)
    ap.add_argument('--config-only', action='store_true',
                    help='stop after the configure step')
    ap.add_argument('--jobs', '-j', type=int, default=os.cpu_count() or 1,
                    help='parallel configure steps, and make -jN')
    ap.add_argument('--json', help='write the results as JSON')
    ap.add_argument('--junit', help='write the results as JUnit XML')
    ap.add_argument('--srctree', **kmake.srctree_option())
    ap.add_argument('--arch', default='arm',
                    help='architecture of defconfigs and fragments (arm)')
    ap.add_argument('--out', default=os.path.join(TREES, 'out', 'kautobuild'),
                    help='output folder, one subfolder per target '
                    '(default: %(default)s)')
    ap.add_argument('--fail-on-dropped', action='store_true',
                    help='fail configure on dropped requests too')
    ap.add_argument('--build-defconfigs', action='store_true',
                    help='build defconfigs too (skipped by default)')
    ap.add_argument('--no-batch', action='store_true',
                    help='one make per defconfig even if the tree has '
                    '"make batchconfig"')
    ap.add_argument('--force', action='store_true',
                    help='ignore the stamps: configure and build again')
    ap.add_argument('--boot-timeout', type=float, default=BOOT_TIMEOUT,
                    metavar='S', help='seconds a boot may take '
                    '(default: %(default)s)')
    ap.add_argument('--lava-url', metavar='BASE',
                    help='URL under which OUT is published, for the LAVA '
                    'jobs (default: file:// paths)')
    ap.add_argument('--lava-run', action='store_true',
                    help='run each boot as a LAVA job too, with lava-run '
                    '(lava-dispatcher; as root)')
    ap.add_argument('--audit', action='store_true',
                    help='audit the selects of each board\'s own fragment '
                    'files (tools/kconfig-audit --own)')
    ap.add_argument('--list', action='store_true',
                    help='print the targets as JSON and exit')
    ap.add_argument('--ci', choices=sorted(ci.PIPELINES),
                    help='write a CI pipeline with one job per target, '
                    'and exit')
    ap.add_argument('--ci-out', metavar='FILE',
                    help='write the --ci pipeline here (default: stdout)')
    ap.add_argument('--ci-schemas', metavar='TGZ',
                    default=os.path.join(TOP, 'build', ci.SCHEMAS_TGZ),
                    help='the schemastore tarball of tools/install-deps, '
                    'to validate the pipeline with')
    ap.add_argument('--fragments', metavar='DIR',
                    help='the boards of a folder of fragments '
                    '(kconfig-fragment import --out DIR)')
    ap.add_argument('--merge', nargs='+', metavar='JSON',
                    help='combine the JSON results of several runs')
    ap.add_argument('targets', nargs='*', metavar='TARGET',
                    help='a board, a Kconfig fragment or a defconfig '
                    '(default: every board and defconfig of --arch)')
    return ap


def targets_of(args, srctree):
    """The run's targets: those named, or every board and defconfig of
    --arch, and the boards of --fragments."""
    kmake.check_arch(srctree, args.arch)
    targets = resolve(args.targets, srctree, args.arch) \
        if args.targets or not args.fragments else []
    if args.fragments:
        targets += fragment_folder(args.fragments, args.arch)
    return targets


def main():
    """kautobuild's command line; returns the exit status."""
    args = parser().parse_args()
    try:
        if args.merge:
            if args.targets:
                raise UsageError('--merge takes no TARGET')
            return merge(args)
        srctree = os.path.abspath(args.srctree)
        if not os.path.isdir(srctree):
            raise UsageError('%s: no such kernel tree' % srctree)
        targets = targets_of(args, srctree)
        if args.list:
            print(json.dumps([t.listing() for t in targets], indent=2))
            return 0
        if args.ci:
            return ci.write_pipeline(args, targets)
        if not targets:
            raise UsageError('no targets')
        check_infrastructure(args, srctree, targets)
        out = os.path.abspath(args.out)
        os.makedirs(out, exist_ok=True)
        run = Run(Options.of(args), srctree, out)
        print('kautobuild: %d target(s), %s, out %s%s' % (
            len(targets), srctree, out,
            ', batchconfig' if run.batch else ''), flush=True)
        results = run.run(targets)
    except UsageError as e:
        print('kautobuild: %s' % e, file=sys.stderr)
        return 2
    doc = {'version': 1, 'tool': 'kautobuild', 'srctree': srctree,
           'arch': args.arch, 'out': out, 'config_only': args.config_only,
           'fail_on_dropped': args.fail_on_dropped,
           'batchconfig': run.batch,
           'seconds': round(time.monotonic() - run.start, 1),
           'targets': results}
    summary(results)
    try:
        write_outputs(args, doc)
    except UsageError as e:
        print('kautobuild: %s' % e, file=sys.stderr)
        return 2
    if args.json:
        print('json: %s' % os.path.abspath(args.json))
    if args.junit:
        print('junit: %s' % os.path.abspath(args.junit))
    return exit_status(results)


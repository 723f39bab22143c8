# SPDX-License-Identifier: GPL-2.0
"""sanitize_scenarios - the inputs of kconfig-sanitize (sanitize.py): a
Scenario per run of conf, the sets of them (ci, full) and the valgrind
sets.

It reads the tree's defconfigs and the examples; it runs nothing.
"""

import re
from pathlib import Path

from . import util

TOP = Path(util.TOP)

SEED105 = 'CONFIG_ARCH_MULTI_V7=y\nCONFIG_ARCH_QCOM=y\nCONFIG_COMPILE_TEST=n\n'

CI_DEFCONFIGS = ('multi_v7_defconfig', 'qcom_defconfig', 'vexpress_defconfig',
                 'imx_v6_v7_defconfig', 'omap2plus_defconfig',
                 'at91_dt_defconfig', 'tegra_defconfig', 'versatile_defconfig',
                 'sunxi_defconfig', 'exynos_defconfig')
VALGRIND_SET = ('defconfig:multi_v7_defconfig', 'defconfig:qcom_defconfig',
                'allnoconfig:arm', 'allyesconfig:x86', 'randconfig:arm:1',
                'board:msm-virt', 'allconfig-dropped:arm',
                'example:torvalds-usb', 'example:msm-board')
VALGRIND_CI = ('defconfig:qcom_defconfig', 'allnoconfig:x86',
               'example:torvalds-usb')


class Scenario:
    """One input of conf under the sanitizers or valgrind: a name,
    conf's arguments, its environment and files, the exit statuses that
    are right, and whether it writes the JSON report."""

    def __init__(self, name, arch, args, env=None, ok=(0,), files=None,
                 report=False, make_target=None):
        """@name: e.g. 'defconfig:qcom_defconfig'; @arch: the ARCH;
        @args: conf's arguments; @env: variables added; @ok: the exit
        statuses that pass; @files: {name: text} written in its folder;
        @report: run with KCONFIG_UNMET_REPORT=report.json; @make_target: run
        "make TARGET" instead of conf."""
        self.name, self.arch, self.args = name, arch, args
        self.env = env or {}
        self.ok = ok
        self.files = files or {}        # name -> text, written in the run dir
        self.report = report            # KCONFIG_UNMET_REPORT=report.json
        self.make_target = make_target  # run "make TARGET" instead of conf


def scenarios(srctree, which):
    """The Scenarios of @srctree for the set @which ('ci' or
    'full'): defconfigs, all*config, randconfigs, the boards, the
    examples, dropped requests, a .config read back, and testconfig."""
    arm_configs = sorted(p.name for p in
                         (srctree / 'arch/arm/configs').glob('*_defconfig'))
    gate = {'KCONFIG_WERROR': '1', 'KCONFIG_WARN_DROPPED': '1'}
    s = []
    defconfigs = arm_configs if which == 'full' else \
        [c for c in CI_DEFCONFIGS if c in arm_configs]
    for c in defconfigs:
        s.append(Scenario('defconfig:' + c, 'arm',
                          ['--defconfig=arch/arm/configs/' + c]))
    for mode in ('allnoconfig', 'allyesconfig', 'allmodconfig'):
        if which == 'ci' and mode == 'allmodconfig':
            continue
        for arch in ('arm', 'x86'):
            s.append(Scenario('%s:%s' % (mode, arch), arch, ['--' + mode]))
    for seed in range(1, (50 if which == 'full' else 5) + 1):
        arch = 'arm' if seed % 2 else 'x86'
        s.append(Scenario('randconfig:%s:%d' % (arch, seed), arch,
                          ['--randconfig'], {'KCONFIG_SEED': hex(seed)}))
    for board in ('msm-virt', 'qemu-virt'):
        frag = srctree / 'arch/arm/boards' / ('Kconfig.' + board)
        if frag.exists():
            s.append(Scenario('board:' + board, 'arm', ['--allnoconfig'],
                              dict(gate, KBUILD_KCONFIG=str(frag)),
                              report=True))
    for frag in sorted((TOP / 'examples').glob('*.Kconfig')):
        m = re.search(r'^#\s*arch:\s*(\S+)', frag.read_text(), re.M)
        s.append(Scenario('example:' + frag.stem, m.group(1) if m else 'x86',
                          ['--allnoconfig'],
                          dict(gate, KBUILD_KCONFIG=str(frag)), ok=(0, 1),
                          report=True))
    # requests that do not survive: BASELINE.md's seed 105 input
    s.append(Scenario('allconfig-dropped:arm', 'arm', ['--allnoconfig'],
                      dict(gate, KCONFIG_ALLCONFIG='seed105.config'),
                      ok=(1,), files={'seed105.config': SEED105},
                      report=True))
    # a .config read back: olddefconfig and savedefconfig
    s.append(Scenario('olddefconfig:arm', 'arm', ['--olddefconfig'],
                      {'KCONFIG_WARN_DROPPED': '1'}, report=True,
                      files={'.config': SEED105 + 'CONFIG_USB=y\n'
                             'CONFIG_NO_SUCH_SYMBOL=y\n'}))
    s.append(Scenario('savedefconfig:arm', 'arm',
                      ['--savedefconfig=defconfig'],
                      files={'.config': SEED105}))
    s.append(Scenario('testconfig', 'arm', [], make_target='testconfig'))
    return s

# SPDX-License-Identifier: GPL-2.0
"""Shared helpers: the trees under build/ and a make runner for them.

The trees are made by "make -f Kbuild.mk trees git-tree" (tools/kernel-tree):
build/pristine is the distro kernel as shipped, build/patched carries the
series (patch -p1), build/git carries it as git commits (git am).  With
KERNEL_VERSION=6.12 in the environment the tests run on the 6.12 trees,
build/6.12/{pristine,patched,git}, and its series.
"""

import hashlib
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

import pytest

TOP = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get('BUILD', TOP / 'build'))
sys.path.insert(0, str(TOP / 'tools'))
from kbuildgate import util  # noqa: E402

KERNEL_VERSION = util.KERNEL_VERSION  # and its trees: one rule, in util.py
TREES = Path(util.TREES)
PRISTINE = TREES / 'pristine'
PATCHED = TREES / 'patched'
GIT = TREES / 'git'
SERIES_DIR = TOP / 'kernel-patches' / KERNEL_VERSION
FRAGMENTS = Path(__file__).resolve().parent / 'fragments'
EXAMPLES = TOP / 'examples'

from kbuildgate import kmake as _kmake  # noqa: E402

# make testconfig's stock tests: 17 in 6.1, 16 in 6.12 (the choice rework
# removed one), 21 in 7.2; of those, the ones that a conf which closes its
# input before it exits makes fail with BrokenPipeError (none in 7.2, whose
# conftest.py stops writing once conf has exited)
STOCK_TESTS, STOCK_TESTS_BROKEN_PIPE = {'6.1': (17, 12),
                                       '6.12': (16, 10),
                                       '7.2': (21, 0)}[KERNEL_VERSION]

UNMET_RE = re.compile(r'unmet direct dependencies detected for (\w+)')


def kmake(tree, out, *targets, arch='x86', env=None, stdin=subprocess.DEVNULL,
          jobs=1):
    """Run make in @tree with O=@out (kbuildgate.kmake.make(), its
    environment with the variables of @env); return the
    CompletedProcess.

    stdout and stderr are merged into .stdout, in order.
    """
    return _kmake.make(tree, out, arch, *targets, jobs=jobs, stdin=stdin,
                       env=_kmake.environment(extra=env))


def tool_env(extra=None):
    """The environment in which the tests run a tool of tools/: the
    caller's, with kmake's policy (no KCONFIG_*, ARCH, MAKEFLAGS...),
    and the variables of @extra."""
    return _kmake.environment(extra=extra)


def unmet_reports(text):
    """The symbols named by 'unmet direct dependencies' lines, in order."""
    return UNMET_RE.findall(text)


def snapshot(out):
    """Contents of .config, .config.old, include/config and
    include/generated under @out, as {relative path: sha256}."""
    out = Path(out)
    files = {}
    for name in ('.config', '.config.old'):
        if (out / name).exists():
            files[name] = hashlib.sha256((out / name).read_bytes()).hexdigest()
    for d in ('include/config', 'include/generated'):
        for p in sorted((out / d).rglob('*')):
            if p.is_file():
                files[str(p.relative_to(out))] = \
                    hashlib.sha256(p.read_bytes()).hexdigest()
    return files


class RealUnmet(NamedTuple):
    """A real unmet select of the tree, on ARM, and how to make it."""
    allconfig: str      # the KCONFIG_ALLCONFIG
    target: str         # the make target, with env
    env: dict
    selector: str
    symbol: str
    warning: str        # the series' warning and note, which name them
    note: str
    fix: tuple          # a .config line, and the line that meets the select


# 6.1: BASELINE.md's, TEST_MAPLE_TREE selecting DEBUG_MAPLE_TREE without
# DEBUG_KERNEL in "KCONFIG_SEED=105 make randconfig".  6.12 fixed that one;
# there ARM_GIC_V3 (selected by the Broadcom STB platform) selects
# HAVE_ARM_SMCCC_DISCOVERY without ARM_PSCI_FW in allnoconfig, and 7.2
# still does, at the same lines.
GIC_V3_UNMET = RealUnmet(
    'CONFIG_MMU=y\nCONFIG_ARCH_MULTI_V7=y\nCONFIG_ARCH_BCM=y\n'
    'CONFIG_ARCH_BRCMSTB=y\n',
    'allnoconfig', {},
    'ARM_GIC_V3', 'HAVE_ARM_SMCCC_DISCOVERY',
    'drivers/irqchip/Kconfig:40: warning: ARM_GIC_V3 [=y] selects '
    'HAVE_ARM_SMCCC_DISCOVERY, whose direct dependencies are unmet',
    'drivers/firmware/smccc/Kconfig:8: note: HAVE_ARM_SMCCC_DISCOVERY '
    'depends on [n]: ARM_PSCI_FW [=n]',
    ('CONFIG_ARCH_BRCMSTB=y', '# CONFIG_ARCH_BRCMSTB is not set'))
REAL_UNMET = {
    '6.1': RealUnmet(
        'CONFIG_ARCH_MULTI_V7=y\nCONFIG_ARCH_QCOM=y\nCONFIG_COMPILE_TEST=n\n',
        'randconfig', {'KCONFIG_SEED': '105'},
        'TEST_MAPLE_TREE', 'DEBUG_MAPLE_TREE',
        'lib/Kconfig.debug:2270: warning: TEST_MAPLE_TREE [=y] selects '
        'DEBUG_MAPLE_TREE if RUNTIME_TESTING_MENU [=y], whose direct '
        'dependencies are unmet',
        'lib/Kconfig.debug:1666: note: DEBUG_MAPLE_TREE depends on [n]: '
        'DEBUG_KERNEL [=n]',
        ('CONFIG_TEST_MAPLE_TREE=y', '# CONFIG_TEST_MAPLE_TREE is not set')),
    '6.12': GIC_V3_UNMET,
    '7.2': GIC_V3_UNMET,
}[KERNEL_VERSION]


def pytest_configure(config):
    # "make -f Kbuild.mk test" runs -m "not slow and not stock": the tests marked slow
    # build or boot a kernel, run the long harness or the sanitizers, or
    # wait on a fixture that configures every ARM defconfig one make at a
    # time; "make -f Kbuild.mk check" runs them all.
    config.addinivalue_line(
        'markers', 'slow: needs a kernel build, a boot, the long harness or '
                   'minutes of configuring; left out of "make -f Kbuild.mk test"')
    # and the tests of the stock tree alone: they prove the baseline, which
    # no change of the project's can move
    config.addinivalue_line(
        'markers', 'stock: runs the stock (pristine) tree only, the baseline; '
                   'left out of "make -f Kbuild.mk test"')


# The topic series of 7.2 that fix unmet selects of the stock tree
# (kernel-patches/7.2/TOPIC/): with them the patched tree no longer has
# REAL_UNMET (GIC_V3_UNMET is the irqchip topic's).  The tests of how the
# series reports a real unmet select run on the patched tree with these
# topics reverted (the unfixed fixture); test_identical expects the
# configuration they change (FIX_TOPIC_CHANGES).
FIX_TOPICS = ('irqchip', 'drm-imx', 'media-marvell', 'asoc-au1x',
              'asoc-renesas') \
    if KERNEL_VERSION == '7.2' else ()
FIX_TOPIC_CHANGES = {'arm-real-unmet': {'-CONFIG_HAVE_ARM_SMCCC_DISCOVERY=y'}} \
    if KERNEL_VERSION == '7.2' else {}


def fix_topic_patches():
    """The patches of FIX_TOPICS, in series order."""
    out = []
    for topic in FIX_TOPICS:
        for line in (SERIES_DIR / topic / 'series').read_text().splitlines():
            line = line.split('#')[0].strip()
            if line:
                out.append(SERIES_DIR / topic / line)
    return out


@pytest.fixture(scope='session')
def unfixed(tmp_path_factory):
    """PATCHED with the fix topics reverted: the series' kconfig on a tree
    that has REAL_UNMET.  PATCHED itself where there are none (6.1,
    6.12); for 7.2 a copy, of hard links but for the files the topics
    change, which are written anew before patch -R."""
    patches = fix_topic_patches()
    if not patches:
        return PATCHED
    dest = tmp_path_factory.mktemp('unfixed') / 'tree'
    # the tree itself, not a link to it (cp -a copies a link as a link)
    subprocess.run(['cp', '-al', str(PATCHED.resolve()), str(dest)],
                   check=True)
    assert dest.is_dir() and not dest.is_symlink()
    for patch in reversed(patches):
        for rel in re.findall(r'^\+\+\+ b/(\S+)', patch.read_text(), re.M):
            f = dest / rel
            if f.is_file():
                data = f.read_bytes()
                f.unlink()          # never write through a hard link
                f.write_bytes(data)
        subprocess.run(['patch', '-R', '-p1', '--fuzz=0', '-s', '-f',
                        '--no-backup-if-mismatch', '-i', str(patch)],
                       cwd=dest, check=True)
    return dest


def real_unmet_env(path):
    """The environment of REAL_UNMET.target, its KCONFIG_ALLCONFIG
    written to @path."""
    path.write_text(REAL_UNMET.allconfig)
    return dict(REAL_UNMET.env, KCONFIG_ALLCONFIG=str(path))


@pytest.fixture(scope='session')
def trees():
    """Stop the run, exit 2, when the trees are missing.  Opt-in: each
    test file that needs them says pytestmark =
    pytest.mark.usefixtures('trees'); selftests/unit/ needs none."""
    for t in (PRISTINE, PATCHED):
        if not (t / '.kernel-tree-key').exists():
            pytest.exit('%s missing: run "make -f Kbuild.mk trees" first' % t,
                        returncode=2)


ARM_DEFCONFIGS = sorted(p.name for p in
                        (PRISTINE / 'arch/arm/configs').glob('*_defconfig'))
RANDCONFIG_SEEDS = [1, 2, 3, 4, 5, 6, 7, 8]


def targets(tmp_path):
    """(name, arch, make target, extra environment) for every input."""
    t = [('arm-' + d, 'arm', d, {}) for d in ARM_DEFCONFIGS]
    for arch in ('arm', 'x86'):
        for mode in ('allnoconfig', 'allyesconfig', 'allmodconfig'):
            t.append(('%s-%s' % (arch, mode), arch, mode, {}))
        for seed in RANDCONFIG_SEEDS[:5 if arch == 'arm' else 3]:
            t.append(('%s-rand%d' % (arch, seed), arch, 'randconfig',
                      {'KCONFIG_SEED': str(seed)}))
    # the one with a real unmet select
    t.append(('arm-real-unmet', 'arm', REAL_UNMET.target,
              real_unmet_env(tmp_path / 'real-unmet.config')))
    return t


def configure_all(tree, out, todo, reports=None):
    """Run every target in @tree; return {name: (returncode, .config)}.
    With @reports, keep kconfig's JSON report of each target there: it
    must not change the configuration either."""
    results = {}
    for name, arch, target, env in todo:
        o = out / arch
        if reports is not None:
            env = dict(env, KCONFIG_UNMET_REPORT=str(out / (name + '.json')))
        ps = kmake(tree, o, target, arch=arch, env=env)
        config = (o / '.config').read_bytes() if ps.returncode == 0 else None
        results[name] = (ps.returncode, config)
        if reports is not None:
            reports[name] = json.loads((out / (name + '.json')).read_text())
    return results


@pytest.fixture(scope='session')
def single_runs(tmp_path_factory):
    """Every target of targets(), run alone in the stock and the patched
    tree: (targets, stock results, patched results, patched reports)."""
    tmp = tmp_path_factory.mktemp('identical')
    todo = targets(tmp)
    reports = {}
    with ThreadPoolExecutor(2) as pool:
        stock = pool.submit(configure_all, PRISTINE, tmp / 'stock', todo)
        patched = pool.submit(configure_all, PATCHED, tmp / 'patched', todo,
                              reports)
        return todo, stock.result(), patched.result(), reports

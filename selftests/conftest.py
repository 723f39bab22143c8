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

from kbuildgate.boards import CROSS_COMPILE  # noqa: E402,F401

# Variables of the caller's environment that would change kconfig's result
KCONFIG_ENV = ('KCONFIG_WERROR', 'KCONFIG_ALLCONFIG', 'KCONFIG_SEED',
               'KCONFIG_CONFIG', 'KBUILD_KCONFIG', 'KCONFIG_PROBABILITY',
               'KCONFIG_WARN_UNKNOWN_SYMBOLS', 'ARCH', 'CROSS_COMPILE',
               'KBUILD_DEFCONFIG', 'O', 'MAKEFLAGS', 'MFLAGS', 'MAKELEVEL')

UNMET_RE = re.compile(r'unmet direct dependencies detected for (\w+)')


def kmake(tree, out, *targets, arch='x86', env=None, stdin=subprocess.DEVNULL,
          jobs=1):
    """Run make in @tree with O=@out; return the CompletedProcess.

    stdout and stderr are merged into .stdout, in order.
    """
    cmd = ['make', '-s', '-C', str(tree), 'O=%s' % out, 'ARCH=%s' % arch,
           '-j%d' % jobs]
    if arch in CROSS_COMPILE:
        cmd.append('CROSS_COMPILE=' + CROSS_COMPILE[arch])
    cmd += list(targets)
    e = {k: v for k, v in os.environ.items() if k not in KCONFIG_ENV}
    e.update(env or {})
    return subprocess.run(cmd, env=e, stdin=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


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


def seed105_allconfig(path):
    """The KCONFIG_ALLCONFIG of BASELINE.md's real unmet select."""
    path.write_text('CONFIG_ARCH_MULTI_V7=y\nCONFIG_ARCH_QCOM=y\n'
                    'CONFIG_COMPILE_TEST=n\n')
    return path


@pytest.fixture(scope='session', autouse=True)
def trees():
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
    t.append(('arm-seed105', 'arm', 'randconfig',
              {'KCONFIG_SEED': '105', 'KCONFIG_ALLCONFIG':
               str(seed105_allconfig(tmp_path / 'seed105.config'))}))
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

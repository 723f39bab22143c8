# SPDX-License-Identifier: GPL-2.0
"""Each unmet select is reported once per run.

The real unmet select of BASELINE.md: with KCONFIG_ALLCONFIG holding
ARCH_MULTI_V7=y, ARCH_QCOM=y and COMPILE_TEST=n, "KCONFIG_SEED=105 make
ARCH=arm randconfig" gives TEST_MAPLE_TREE selecting DEBUG_MAPLE_TREE
without DEBUG_KERNEL (lib/Kconfig.debug:2269-2270).  Stock kconfig prints
it twice in olddefconfig and two or three times in syncconfig.
"""

import pytest

from conftest import PATCHED, PRISTINE, kmake, seed105_allconfig, \
    unmet_reports

LOCATION = ('lib/Kconfig.debug:2270: warning: TEST_MAPLE_TREE [=y] selects '
            'DEBUG_MAPLE_TREE if RUNTIME_TESTING_MENU [=y], whose direct '
            'dependencies are unmet')


def seed105(tree, out):
    allconfig = seed105_allconfig(out.parent / (out.name + '.all.config'))
    ps = kmake(tree, out, 'randconfig', arch='arm',
               env={'KCONFIG_SEED': '105', 'KCONFIG_ALLCONFIG': str(allconfig)})
    assert ps.returncode == 0, ps.stdout
    return ps


@pytest.mark.parametrize('mode', ['olddefconfig', 'syncconfig'])
def test_stock_prints_duplicates(tmp_path, mode):
    out = tmp_path / 'out'
    seed105(PRISTINE, out)
    ps = kmake(PRISTINE, out, mode, arch='arm')
    assert unmet_reports(ps.stdout).count('DEBUG_MAPLE_TREE') >= 2


@pytest.mark.parametrize('mode', ['randconfig', 'olddefconfig', 'syncconfig'])
def test_reported_once(tmp_path, mode):
    out = tmp_path / 'out'
    ps = seed105(PATCHED, out)
    if mode != 'randconfig':
        ps = kmake(PATCHED, out, mode, arch='arm')
    assert ps.returncode == 0, ps.stdout
    assert unmet_reports(ps.stdout) == ['DEBUG_MAPLE_TREE']
    assert ps.stdout.count(LOCATION) == 1
    assert ps.stdout.count('lib/Kconfig.debug:1666: note: DEBUG_MAPLE_TREE '
                           'depends on [n]: DEBUG_KERNEL [=n]') == 1
    assert ps.stdout.count('kconfig: 1 select with unmet direct '
                           'dependencies') == 1

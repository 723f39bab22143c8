# SPDX-License-Identifier: GPL-2.0
"""Each unmet select is reported once per run.

The tree's real unmet select (conftest.REAL_UNMET): on 6.1 BASELINE.md's,
"KCONFIG_SEED=105 make ARCH=arm randconfig" with KCONFIG_ALLCONFIG holding
ARCH_MULTI_V7=y, ARCH_QCOM=y and COMPILE_TEST=n gives TEST_MAPLE_TREE
selecting DEBUG_MAPLE_TREE without DEBUG_KERNEL (lib/Kconfig.debug:
2269-2270); on 6.12, allnoconfig with the Broadcom STB platform gives
ARM_GIC_V3 selecting HAVE_ARM_SMCCC_DISCOVERY without ARM_PSCI_FW.  Stock
kconfig prints it twice in olddefconfig and two or three times in
syncconfig; the series once, in the run that makes the configuration
("first") too.  On 7.2 the series fixes it (the irqchip topic): the
series' reports are tested on the patched tree without its fix topics
(conftest's unfixed).
"""

import pytest

from conftest import PRISTINE, REAL_UNMET, kmake, real_unmet_env, \
    unmet_reports

pytestmark = pytest.mark.usefixtures('trees')


def real_unmet(tree, out):
    env = real_unmet_env(out.parent / (out.name + '.all.config'))
    ps = kmake(tree, out, REAL_UNMET.target, arch='arm', env=env)
    assert ps.returncode == 0, ps.stdout
    return ps


@pytest.mark.stock
@pytest.mark.parametrize('mode', ['olddefconfig', 'syncconfig'])
def test_stock_prints_duplicates(tmp_path, mode):
    out = tmp_path / 'out'
    real_unmet(PRISTINE, out)
    ps = kmake(PRISTINE, out, mode, arch='arm')
    assert unmet_reports(ps.stdout).count(REAL_UNMET.symbol) >= 2


@pytest.mark.parametrize('mode', ['first', 'olddefconfig', pytest.param(
    'syncconfig', marks=pytest.mark.slow)])
def test_reported_once(tmp_path, mode, unfixed):
    out = tmp_path / 'out'
    ps = real_unmet(unfixed, out)
    if mode != 'first':
        ps = kmake(unfixed, out, mode, arch='arm')
    assert ps.returncode == 0, ps.stdout
    assert unmet_reports(ps.stdout) == [REAL_UNMET.symbol]
    assert ps.stdout.count(REAL_UNMET.warning) == 1
    assert ps.stdout.count(REAL_UNMET.note) == 1
    assert ps.stdout.count('kconfig: 1 select with unmet direct '
                           'dependencies') == 1

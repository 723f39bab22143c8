# SPDX-License-Identifier: GPL-2.0
"""The kconfig patches change diagnostics and exit codes, never a config.

Every .config that the patched tree writes must be byte-identical to the
one the stock tree (6.1, or 6.12 with KERNEL_VERSION=6.12) writes for the
same input: all ARM defconfigs, allnoconfig,
allyesconfig, allmodconfig and seeded randconfigs on ARM and x86.

The single runs are conftest's single_runs: each tree runs its targets
one after the other in its own output folder, the two trees side by side.
"""

import re

import pytest

from conftest import ARM_DEFCONFIGS, FIX_TOPIC_CHANGES, KERNEL_VERSION, \
    PATCHED, kmake


# every ARM defconfig, one make at a time, in both trees (single_runs):
# "make -f Kbuild.mk check" only
pytestmark = [pytest.mark.usefixtures('trees'), pytest.mark.slow]

# measured; see docs/measurements.md, "Before and after, on 6.1"
KINDS = {'unknown': 196, 'unmet': 212, 'no-prompt': 12, 'demoted': 11,
         'promoted': 13}


@pytest.fixture(scope='module')
def configs(single_runs):
    return single_runs


def test_all_arm_defconfigs_covered(configs):
    todo, stock, _, _ = configs
    # 6.12 removed the defconfigs of boards that it no longer supports
    assert len(ARM_DEFCONFIGS) >= (100 if KERNEL_VERSION == '6.1' else 70)
    assert all(stock['arm-' + d][0] == 0 for d in ARM_DEFCONFIGS)


# The defconfig fixes of the series change these, and only these, lines
DEFCONFIG_FIXES = {
    'arm-qcom_defconfig': {
        '+CONFIG_ARM_QCOM_SPM_CPUIDLE=y', '+CONFIG_QCOM_Q6V5_MSS=y',
        '+CONFIG_QCOM_SPM=y'},
}
# 6.12 asks for QCOM_RPMH=m and QCOM_RPMHPD=m: its series has no such patch
if KERNEL_VERSION == '6.1':
    DEFCONFIG_FIXES['arm-multi_v7_defconfig'] = {
        '-CONFIG_QCOM_COMMAND_DB=m', '+CONFIG_QCOM_COMMAND_DB=y',
        '-CONFIG_QCOM_RPMH=m', '+CONFIG_QCOM_RPMH=y',
        '-CONFIG_QCOM_RPMHPD=m', '+CONFIG_QCOM_RPMHPD=y',
        '-CONFIG_INTERCONNECT_QCOM_RPMH_POSSIBLE=m',
        '+CONFIG_INTERCONNECT_QCOM_RPMH_POSSIBLE=y'}


def config_diff(old, new):
    old = set(old.decode().splitlines())
    new = set(new.decode().splitlines())
    return {'-' + l for l in old - new if l.startswith('CONFIG_')} | \
        {'+' + l for l in new - old if l.startswith('CONFIG_')}


def test_byte_identical(configs):
    """The kconfig patches change no configuration: every one is
    byte-identical, but for the two defconfigs that the series fixes."""
    todo, stock, patched, _ = configs
    differ = [name for name, *_ in todo if stock[name] != patched[name]
              and name not in DEFCONFIG_FIXES and
              name not in FIX_TOPIC_CHANGES]
    assert differ == [], 'configs differ from stock: %s' % differ
    assert all(stock[name][1] for name, *_ in todo)


def test_defconfig_fixes_change_only_what_they_fix(configs):
    _, stock, patched, _ = configs
    for name, expected in DEFCONFIG_FIXES.items():
        assert config_diff(stock[name][1], patched[name][1]) == expected


def test_fix_topics_change_only_what_they_fix(configs):
    """The topics that fix unmet selects (7.2: conftest.FIX_TOPICS)
    change the configurations that had one, and there only the symbol
    that was selected against its dependencies: of the targets here, the
    real unmet select's (HAVE_ARM_SMCCC_DISCOVERY is no longer y without
    ARM_PSCI_FW); every defconfig, all*config and randconfig is unchanged."""
    _, stock, patched, _ = configs
    for name, expected in FIX_TOPIC_CHANGES.items():
        assert config_diff(stock[name][1], patched[name][1]) == expected


def invalid_values(name, tmp_path):
    """The symbols whose value in the defconfig @name is invalid for their
    type ('m' for a bool): conf rejects them when it reads the file, and
    warns about it, stock as well."""
    ps = kmake(PATCHED, tmp_path / name, name, arch='arm')
    return set(re.findall(r"warning: symbol value '[^']*' invalid for (\w+)",
                          ps.stdout))


def test_dropped_requests_of_arm_defconfigs(configs, tmp_path):
    """BASELINE.md's method: a CONFIG_X=y/m line of the defconfig that is
    not in the resulting .config did not survive.  The report's "dropped"
    list must account for each of them.  Stock 6.1 has 457 such lines in
    75 of the 100 files; the series' fixes of qcom_defconfig (8 unknown
    symbols) and multi_v7_defconfig (2 demoted) leave 447 in 74.  444 are
    dropped; the other 3 are overridden later in the same file."""
    _, stock, patched, reports = configs
    lost_total, files, kinds = 0, 0, {}
    for d in ARM_DEFCONFIGS:
        wanted = re.findall(r'^CONFIG_\w+=[ym]$',
                            (PATCHED / 'arch/arm/configs' / d).read_text(),
                            re.M)
        config = patched['arm-' + d][1].decode().splitlines()
        lost = {l.split('=')[0][len('CONFIG_'):] for l in wanted
                if l not in config}
        dropped = reports['arm-' + d]['dropped']
        # A symbol assigned twice in one defconfig loses its first line
        # to the second, which conf already warns about ("override").
        overridden = {l.split('=')[0][len('CONFIG_'):] for l in wanted
                      if sum(w.startswith(l.split('=')[0] + '=')
                             for w in wanted) > 1}
        reported = {r['symbol'] for r in dropped}
        if lost - overridden - reported:
            # 6.12's u8500_defconfig has CONFIG_NFC_SHDLC=m, a bool
            overridden |= invalid_values(d, tmp_path)
        assert lost - overridden == reported - overridden
        lost_total += len([l for l in wanted if l not in config])
        files += bool(lost)
        for r in dropped:
            kinds[r['kind']] = kinds.get(r['kind'], 0) + 1
    print('dropped requests per kind over the ARM defconfigs:', kinds,
          'lines lost:', lost_total, 'files:', files)
    if KERNEL_VERSION == '6.1':
        assert (lost_total, files) == (447, 74)
        assert kinds == KINDS

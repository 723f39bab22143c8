# SPDX-License-Identifier: GPL-2.0
"""KCONFIG_WERROR fails every mode that makes a configuration, and nothing
that exists is touched.

Stock 6.1 and 6.12 check for unmet selects before conf_write() prints them, so
allnoconfig, allyesconfig, allmodconfig, alldefconfig and randconfig
exit 0 and write the .config.
"""

import pytest

from conftest import FRAGMENTS, PATCHED, PRISTINE, kmake, \
    REAL_UNMET, real_unmet_env, snapshot, unmet_reports

pytestmark = pytest.mark.usefixtures('trees')

FRAGMENT = str(FRAGMENTS / 'always-unmet.Kconfig')
MODES = ['allnoconfig', 'allyesconfig', 'allmodconfig', 'alldefconfig',
         'randconfig', 'defconfig', 'olddefconfig', 'oldconfig', 'syncconfig']
# "make -f Kbuild.mk test" checks one mode of each kind (all*config,
# randconfig, and the two that start from a .config); "check" all of them
EVERYDAY = ('allnoconfig', 'randconfig', 'olddefconfig', 'syncconfig')


def existing_config(tree, out):
    """An existing configuration: .config and include/config/ written by
    earlier runs without KCONFIG_WERROR, .config then edited by hand so that
    any rewrite would show."""
    env = {'KBUILD_KCONFIG': FRAGMENT}
    assert kmake(tree, out, 'alldefconfig', env=env).returncode == 0
    assert kmake(tree, out, 'syncconfig', env=env).returncode == 0
    with open(out / '.config', 'a') as f:
        f.write('# edited by hand\n')
    return snapshot(out)


@pytest.mark.parametrize('mode', [m if m in EVERYDAY else
                                  pytest.param(m, marks=pytest.mark.slow)
                                  for m in MODES])
def test_mode_fails_and_keeps_config(tmp_path, mode):
    before = existing_config(PATCHED, tmp_path)
    assert '.config' in before and 'include/config/auto.conf' in before
    ps = kmake(PATCHED, tmp_path, mode,
               env={'KBUILD_KCONFIG': FRAGMENT, 'KCONFIG_WERROR': '1',
                    'KCONFIG_SEED': '1'})
    assert ps.returncode != 0, ps.stdout
    assert 'VIRTIO_HARDEN_NOTIFICATION' in unmet_reports(ps.stdout)
    assert 'KCONFIG_WERROR is set: the configuration was not written' \
        in ps.stdout
    assert snapshot(tmp_path) == before


@pytest.mark.stock
def test_stock_real_unmet_passes_the_gate(tmp_path):
    """The baseline: stock kconfig lets the tree's real unmet select
    through under KCONFIG_WERROR (6.1: randconfig, 6.12: allnoconfig),
    and writes the .config."""
    env = dict(real_unmet_env(tmp_path / 'all.config'), KCONFIG_WERROR='1')
    ps = kmake(PRISTINE, tmp_path / 'out', REAL_UNMET.target, arch='arm',
               env=env)
    assert ps.returncode == 0
    assert unmet_reports(ps.stdout) == [REAL_UNMET.symbol]
    assert (tmp_path / 'out' / '.config').exists()


def test_patched_real_unmet_fails_the_gate(tmp_path, unfixed):
    env = dict(real_unmet_env(tmp_path / 'all.config'), KCONFIG_WERROR='1')
    ps = kmake(unfixed, tmp_path / 'out', REAL_UNMET.target, arch='arm',
               env=env)
    assert ps.returncode != 0
    assert unmet_reports(ps.stdout) == [REAL_UNMET.symbol]
    assert not (tmp_path / 'out' / '.config').exists()


def test_stock_lines_kept_on_the_real_tree(tmp_path, unfixed):
    """Every line that stock prints for the tree's real unmet select (7.2
    and 6.12: ARM_GIC_V3 selecting HAVE_ARM_SMCCC_DISCOVERY; 6.1:
    TEST_MAPLE_TREE selecting DEBUG_MAPLE_TREE), the blank line, the
    WARNING line, "  Depends on" and "  Selected by", is printed by the
    series too, once, unchanged and in the same order, with the series'
    located warning and note after them; and both write the same
    .config."""
    env = real_unmet_env(tmp_path / 'all.config')
    stock = kmake(PRISTINE, tmp_path / 'stock', REAL_UNMET.target,
                  arch='arm', env=env)
    ours = kmake(unfixed, tmp_path / 'ours', REAL_UNMET.target, arch='arm',
                 env=env)
    assert stock.returncode == 0 and ours.returncode == 0, ours.stdout
    # the blank line, the WARNING line and the indented ones after it
    start = stock.stdout.index('\nWARNING: unmet direct dependencies')
    lines = stock.stdout[start:].split('\n')
    end = 2
    while end < len(lines) and lines[end].startswith('  '):
        end += 1
    block = '\n'.join(lines[:end]) + '\n'
    lines = block.splitlines()
    assert lines[1].endswith('detected for %s' % REAL_UNMET.symbol)
    assert lines[2].startswith('  Depends on [')
    assert any(l.startswith('  Selected by [') for l in lines)
    # stock prints the block once per calculation; the series once
    assert ours.stdout.count(block) == 1, (block, ours.stdout)
    after = ours.stdout[ours.stdout.index(block) + len(block):]
    assert after.startswith(REAL_UNMET.warning + '\n'), after
    assert REAL_UNMET.note in after
    assert (tmp_path / 'stock' / '.config').read_bytes() == \
        (tmp_path / 'ours' / '.config').read_bytes()

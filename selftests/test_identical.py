# SPDX-License-Identifier: GPL-2.0
"""The kconfig patches change diagnostics and exit codes, never a config.

Every .config that the patched tree writes must be byte-identical to the
one stock 6.1 writes for the same input: all ARM defconfigs, allnoconfig,
allyesconfig, allmodconfig and seeded randconfigs on ARM and x86.

Each tree runs its targets one after the other in its own output folder;
the two trees run side by side.
"""

from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import PATCHED, PRISTINE, kmake, seed105_allconfig

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


def configure_all(tree, out, todo):
    """Run every target in @tree; return {name: (returncode, .config)}."""
    results = {}
    for name, arch, target, env in todo:
        o = out / arch
        ps = kmake(tree, o, target, arch=arch, env=env)
        config = (o / '.config').read_bytes() if ps.returncode == 0 else None
        results[name] = (ps.returncode, config)
    return results


@pytest.fixture(scope='module')
def configs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('identical')
    todo = targets(tmp)
    with ThreadPoolExecutor(2) as pool:
        stock = pool.submit(configure_all, PRISTINE, tmp / 'stock', todo)
        patched = pool.submit(configure_all, PATCHED, tmp / 'patched', todo)
        return todo, stock.result(), patched.result()


def test_all_arm_defconfigs_covered(configs):
    todo, stock, _ = configs
    assert len(ARM_DEFCONFIGS) >= 100
    assert all(stock['arm-' + d][0] == 0 for d in ARM_DEFCONFIGS)


def test_byte_identical(configs):
    todo, stock, patched = configs
    differ = [name for name, *_ in todo if stock[name] != patched[name]]
    assert differ == [], 'configs differ from stock: %s' % differ
    assert all(stock[name][1] for name, *_ in todo)

# SPDX-License-Identifier: GPL-2.0
"""A configuration synced once still fails a KCONFIG_WERROR build.

Stock kconfig checks only when syncconfig runs, and a build runs it only
when .config is newer than include/config/auto.conf.  So a configuration
with unmet selects, synced once by a plain "make prepare", then passes
"KCONFIG_WERROR=1 make prepare".
"""

from conftest import PATCHED, PRISTINE, kmake, seed105_allconfig


def synced_seed105(tree, out):
    allconfig = seed105_allconfig(out.parent / 'all.config')
    ps = kmake(tree, out, 'randconfig', arch='arm',
               env={'KCONFIG_SEED': '105', 'KCONFIG_ALLCONFIG': str(allconfig)})
    assert ps.returncode == 0, ps.stdout
    ps = kmake(tree, out, 'prepare', arch='arm', jobs=2)
    assert ps.returncode == 0, ps.stdout


def test_stock_stale_build_passes(tmp_path):
    out = tmp_path / 'out'
    synced_seed105(PRISTINE, out)
    ps = kmake(PRISTINE, out, 'prepare', arch='arm', jobs=2,
               env={'KCONFIG_WERROR': '1'})
    assert ps.returncode == 0


def test_stale_build_fails(tmp_path):
    out = tmp_path / 'out'
    synced_seed105(PATCHED, out)
    record = out / 'include/config/auto.conf.unmet'
    assert record.read_text() == (
        'lib/Kconfig.debug:2270: warning: TEST_MAPLE_TREE [=y] selects '
        'DEBUG_MAPLE_TREE if RUNTIME_TESTING_MENU [=y], whose direct '
        'dependencies are unmet\n')

    ps = kmake(PATCHED, out, 'prepare', arch='arm', jobs=2,
               env={'KCONFIG_WERROR': '1'})
    assert ps.returncode != 0
    assert 'TEST_MAPLE_TREE [=y] selects DEBUG_MAPLE_TREE' in ps.stdout
    assert 'KCONFIG_WERROR is set and the configuration has unmet selects' \
        in ps.stdout

    # Without KCONFIG_WERROR the build goes on as before.
    assert kmake(PATCHED, out, 'prepare', arch='arm').returncode == 0

    # Once the configuration is fixed, the record goes, and the gate passes.
    ps = kmake(PATCHED, out, 'olddefconfig', arch='arm',
               env={'KCONFIG_ALLCONFIG': ''})
    (out / '.config').write_text((out / '.config').read_text().replace(
        'CONFIG_TEST_MAPLE_TREE=y', '# CONFIG_TEST_MAPLE_TREE is not set'))
    ps = kmake(PATCHED, out, 'prepare', arch='arm', jobs=2,
               env={'KCONFIG_WERROR': '1'})
    assert ps.returncode == 0, ps.stdout
    assert not record.exists()

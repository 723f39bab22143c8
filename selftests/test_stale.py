# SPDX-License-Identifier: GPL-2.0
"""A configuration synced once still fails a KCONFIG_WERROR build.

Stock kconfig checks only when syncconfig runs, and a build runs it only
when .config is newer than include/config/auto.conf.  So a configuration
with unmet selects, synced once by a plain "make prepare", then passes
"KCONFIG_WERROR=1 make prepare".
"""

import pytest

from conftest import PRISTINE, REAL_UNMET, kmake, real_unmet_env


# "make prepare" builds the host programs and prepares the tree, twice:
# "make -f Kbuild.mk check" only
pytestmark = [pytest.mark.usefixtures('trees'), pytest.mark.slow]


def synced_real_unmet(tree, out):
    ps = kmake(tree, out, REAL_UNMET.target, arch='arm',
               env=real_unmet_env(out.parent / 'all.config'))
    assert ps.returncode == 0, ps.stdout
    ps = kmake(tree, out, 'prepare', arch='arm', jobs=2)
    assert ps.returncode == 0, ps.stdout


@pytest.mark.stock
def test_stock_stale_build_passes(tmp_path):
    out = tmp_path / 'out'
    synced_real_unmet(PRISTINE, out)
    ps = kmake(PRISTINE, out, 'prepare', arch='arm', jobs=2,
               env={'KCONFIG_WERROR': '1'})
    assert ps.returncode == 0


def test_stale_build_fails(tmp_path, unfixed):
    out = tmp_path / 'out'
    synced_real_unmet(unfixed, out)
    record = out / 'include/config/auto.conf.unmet'
    assert record.read_text() == REAL_UNMET.warning + '\n'

    ps = kmake(unfixed, out, 'prepare', arch='arm', jobs=2,
               env={'KCONFIG_WERROR': '1'})
    assert ps.returncode != 0
    assert '%s [=y] selects %s' % (REAL_UNMET.selector, REAL_UNMET.symbol) \
        in ps.stdout
    assert 'KCONFIG_WERROR is set and the configuration has unmet selects' \
        in ps.stdout

    # Without KCONFIG_WERROR the build goes on as before.
    assert kmake(unfixed, out, 'prepare', arch='arm').returncode == 0

    # Once the configuration is fixed, the record goes, and the gate passes.
    ps = kmake(unfixed, out, 'olddefconfig', arch='arm',
               env={'KCONFIG_ALLCONFIG': ''})
    (out / '.config').write_text((out / '.config').read_text().replace(
        *REAL_UNMET.fix))
    ps = kmake(unfixed, out, 'prepare', arch='arm', jobs=2,
               env={'KCONFIG_WERROR': '1'})
    assert ps.returncode == 0, ps.stdout
    assert not record.exists()

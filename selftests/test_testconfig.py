# SPDX-License-Identifier: GPL-2.0
"""make testconfig: the 17 stock kconfig tests, and the series' own."""

import re

from conftest import PATCHED, PRISTINE, kmake


def run_testconfig(tree, out):
    ps = kmake(tree, out, 'testconfig', 'PYTHON3=/usr/bin/python3')
    m = re.search(r'=+ (\d+) passed', ps.stdout)
    return ps, int(m.group(1)) if m else 0


def test_stock_testconfig(tmp_path):
    ps, passed = run_testconfig(PRISTINE, tmp_path)
    assert ps.returncode == 0, ps.stdout
    assert passed == 17


def test_patched_testconfig(tmp_path):
    ps, passed = run_testconfig(PATCHED, tmp_path)
    assert ps.returncode == 0, ps.stdout
    assert ' failed' not in ps.stdout
    assert passed > 17
    for test in ('unmet_select', 'mainmenu_in_source', 'mainmenu_in_fragment'):
        assert 'tests/%s/__init__.py' % test in ps.stdout

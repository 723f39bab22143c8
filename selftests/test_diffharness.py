# SPDX-License-Identifier: GPL-2.0
"""tools/kconfig-diffharness on a small seeded set: random board fragments
on the real ARM and x86 trees, stock conf against patched.

The differential properties must hold: the same .config byte for byte,
the same warned symbols, each warning printed once; and so must the hint
goals.  The comparison must flag a doctored result, so that a pass means
something.
"""

import json
import subprocess
import sys

import pytest

from conftest import PATCHED, PRISTINE, TOP, TREES

pytestmark = pytest.mark.usefixtures('trees')

TOOL = str(TOP / 'tools' / 'kconfig-diffharness')
OUT = TREES / 'out' / 'diffharness-selftest'
SEED, COUNT, MODES = 20101, 10, ('allnoconfig',)


def load_tool():
    from kbuildgate import diffharness
    return diffharness


@pytest.fixture(scope='module')
def small_run():
    """COUNT fragments per architecture: (CompletedProcess, JSON)."""
    OUT.mkdir(parents=True, exist_ok=True)
    result = OUT / 'result.json'
    if result.exists():
        result.unlink()
    ps = subprocess.run([sys.executable, TOOL, '--seed', str(SEED),
                         '--count', str(COUNT), '--modes'] + list(MODES) +
                        ['--stock', str(PRISTINE), '--patched', str(PATCHED),
                         '--out', str(OUT), '--json', str(result)],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
    assert ps.returncode in (0, 1), ps.stdout + ps.stderr
    return ps, json.loads(result.read_text())


@pytest.mark.slow
def test_identical_configs(small_run):
    ps, r = small_run
    total = r['summary']['total']
    assert total['fragments'] == 2 * COUNT
    assert total['compared'] == 2 * COUNT * len(MODES) * 2   # forms a, b
    assert total.get('conf_errors', 0) == 0, ps.stdout
    assert total.get('config_diffs', 0) == 0, ps.stdout


@pytest.mark.slow
def test_same_warned_sets(small_run):
    ps, r = small_run
    assert r['summary']['total'].get('warned_diffs', 0) == 0, ps.stdout
    # not vacuous: most random fragments have unmet selects
    assert sum(f.get('unmet', 0) > 0 for f in r['fragments']) >= COUNT


@pytest.mark.slow
def test_each_warning_once(small_run):
    ps, r = small_run
    assert r['summary']['total'].get('duplicates', 0) == 0, ps.stdout


@pytest.mark.slow
def test_hint_goals(small_run):
    """Followed hints leave no warning of their own and add none; every
    warning ends in a hint or "no select can meet it"; 95% of the fixable
    fragments are clean after one round.  With patch 8 before its fixes,
    IWL3945 failed here: "LEDS_CLASS=y || LEDS_CLASS=MAC80211" holds while
    both are n, and the hint, MAC80211, broke it."""
    ps, r = small_run
    failed = [g['key'] for g in r['goals'] if not g['ok']]
    assert failed == [], ps.stdout


@pytest.mark.slow
def test_goals_are_in_the_output(small_run):
    """The thresholds are printed, and the exit status follows the goals."""
    ps, r = small_run
    assert '>= 95.0' in ps.stdout and '== 0' in ps.stdout
    ok = all(g['ok'] for g in r['goals'])
    assert ps.returncode == (0 if ok else 1)


@pytest.mark.slow
def test_doctored_results_are_flagged(tmp_path):
    """compare() on real stock and patched runs finds nothing, and flags a
    .config with one line changed, a warning that only one side prints
    (unless stock's own .config meets it), a warning printed twice, and a
    warning without a hint."""
    tool = load_tool()
    confs = {}
    for tag, tree in (('stock', PRISTINE), ('patched', PATCHED)):
        confs[tag] = tool.Conf(tag, str(tree), 'arm', str(OUT))
        confs[tag].build()      # built by small_run or an earlier run
    root = (PATCHED / 'Kconfig').read_text()
    runs = {}
    for tag in confs:
        path = tool.write_form(str(tmp_path), 'usb', root, ['USB'], 'a', tag)
        runs[tag] = confs[tag].run(path, 'allnoconfig', str(tmp_path / tag))
    stock, patched = runs['stock'], runs['patched']
    assert stock.config and stock.config == patched.config
    assert tool.warned(stock) == tool.warned(patched) == ['USB']
    assert tool.compare(stock, patched) == []
    assert tool.no_ending(patched) == []

    lines = patched.config.splitlines(keepends=True)
    i = lines.index(b'# CONFIG_MMU is not set\n')
    bad = patched._replace(config=b''.join(
        lines[:i] + [b'CONFIG_MMU=y\n'] + lines[i + 1:]))
    [f] = tool.compare(stock, bad)
    assert f['kind'] == 'config' and 'line %d:' % (i + 1) in f['detail']

    bad = patched._replace(stderr=patched.stderr +
                           'WARNING: unmet direct dependencies detected '
                           'for MMC\n')
    [f] = tool.compare(stock, bad)
    assert f == {'kind': 'warned', 'only_stock': [], 'only_patched': ['MMC']}

    bad = patched._replace(stderr=patched.stderr * 2)
    [f] = tool.compare(stock, bad)
    assert f == {'kind': 'duplicate', 'symbol': 'USB', 'times': 2}

    # stock warns as it calculates: a warning that its final .config
    # meets is stale, one that it still meets is a difference
    f = tool.stale_in_stock(confs['stock'], tool.write_form(
        str(tmp_path), 'usb', root, ['USB'], 'a', 'stock'), stock,
        {'kind': 'warned', 'only_stock': ['MMC'], 'only_patched': []})
    assert f == {'kind': 'stale_stock', 'symbols': ['MMC']}
    f = tool.stale_in_stock(confs['stock'], tool.write_form(
        str(tmp_path), 'usb', root, ['USB'], 'a', 'stock'), stock,
        {'kind': 'warned', 'only_stock': ['USB'], 'only_patched': []})
    assert f['kind'] == 'warned' and f['stale_in_stock'] == []

    bad = patched._replace(stderr=''.join(
        l for l in patched.stderr.splitlines(keepends=True)
        if 'to meet it' not in l))
    assert tool.no_ending(bad) == ['USB']


def test_goals_fail_on_one_finding():
    tool = load_tool()
    clean = {'fixable': 20, 'fixable_clean1': 19, 'fixable_clean1_pct': 95.0}
    assert all(g[5] for g in tool.goals(clean))
    for key in ('config_diffs', 'warned_diffs', 'duplicates', 'left_own',
                'new_unmet', 'no_ending', 'conf_errors', 'union_policy'):
        failed = [g[0] for g in tool.goals(dict(clean, **{key: 1}))
                  if not g[5]]
        assert failed == [key]
    failed = [g[0] for g in tool.goals(dict(clean, fixable_clean1_pct=94.9))
              if not g[5]]
    assert failed == ['fixable_clean1_pct']
    # a series without the switch rule reports union_policy, as info
    assert all(g[5] for g in tool.goals(dict(clean, union_policy=3), False))


def test_board_platform_and_real_board(tmp_path):
    """The board classes: the platform symbol of a defconfig is found
    from the tree (the ARCH_* that most "|| COMPILE_TEST" drivers name),
    and the real board is what stock conf makes of the defconfig."""
    from kbuildgate import harness_boards as hb
    tool = load_tool()
    sel = {}
    for name in ('qcom_defconfig', 'exynos_defconfig', 'multi_v7_defconfig'):
        text = (PRISTINE / 'arch' / 'arm' / 'configs' / name).read_text()
        sel[name] = [l[7:-2] for l in text.splitlines()
                     if l.startswith('CONFIG_') and l.endswith('=y')]
    assert hb.platform_symbol(str(PRISTINE), 'arm',
                              sel['qcom_defconfig']) == 'ARCH_QCOM'
    assert hb.platform_symbol(str(PRISTINE), 'arm',
                              sel['exynos_defconfig']) == 'ARCH_EXYNOS'
    assert hb.platform_symbol(str(PRISTINE), 'arm',
                              sel['multi_v7_defconfig']).startswith('ARCH_')
    stock = tool.Conf('stock', str(PRISTINE), 'arm', str(OUT))
    stock.build()
    real = hb.real_board(stock, 'qcom_defconfig', str(tmp_path / 'real'))
    assert 'ARCH_QCOM' in real and 'ARCH_MULTI_V7' in real
    assert 'COMPILE_TEST' not in real and 'ARCH_EXYNOS' not in real


def test_a_remade_tree_stops_the_run():
    """A tree remade during a run (tools/kernel-tree) would feed conf half
    unpacked files: the harness stops with an infrastructure error."""
    tool = load_tool()
    conf = tool.Conf('stock', str(PRISTINE), 'arm', str(OUT))
    conf.key = conf._stamp()
    conf.check_unchanged()
    conf.key += 'scripts/kconfig/conf.c 1 1\n'
    with pytest.raises(tool.SetupError, match='changed during the run'):
        conf.check_unchanged()


def test_time_limit_with_nothing_checked_is_an_error(tmp_path):
    """--minutes that ends before the first fragment is an infrastructure
    error (exit 2), not a pass on no fragment."""
    ps = subprocess.run([sys.executable, TOOL, '--count', '2', '--arch', 'arm',
                         '--minutes', '0.0001', '--stock', str(PRISTINE),
                         '--patched', str(PATCHED), '--out', str(OUT)],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
    assert ps.returncode == 2, ps.stdout + ps.stderr
    assert 'no fragment checked within --minutes' in ps.stderr

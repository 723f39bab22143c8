# SPDX-License-Identifier: GPL-2.0
"""tools/kconfig-audit on the stock trees, as a maintainer has them: the
distro tarball without the series (PRISTINE of KERNEL_VERSION), on ARM.

- tools/audit/build builds the program, and conf, against the kconfig
  sources of every stock and patched tree of the tree set (6.1, 6.12,
  7.2): the program carries what a version lacks;
- the stock tree's audit exits 1 with its known findings (each version's
  own: see STOCK_FINDINGS), confirmed by a conf built in the audit's cache
  from the tree's scripts/kconfig with the series' kconfig patches (the
  same sources as the patched tree's), and the tree is left as it was;
- --base STOCK, --patch and --base-rev work on the stock tree;
- on 7.2, the upstream fix of 6.1's TEST_MAPLE_TREE -> DEBUG_MAPLE_TREE
  reverted in a copy of the tree is found by --base as new.

One cache ($KCONFIG_AUDIT_CACHE, in tmp) for the module: the stock tree
is audited cold once; the reviews then ask only what they change.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BUILD, FIX_TOPICS, KERNEL_VERSION, PATCHED, PRISTINE, \
    TOP
from kbuildgate import audit_cache, audit_series
# the same cache fixture (one per module) and runner as the review tests
from test_audit_change import env, git_patch, kconfig_repo, run  # noqa: F401

TOOL = str(TOP / 'tools' / 'kconfig-audit')

# slow: the first audit of the stock tree is cold (minutes of CPU)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures('trees')]

# The unmet selects that each stock tree has on ARM (mainline had them
# too, at that version): (selector, target, file, line)
STOCK_FINDINGS = {
    '6.1': {('TEST_MAPLE_TREE', 'DEBUG_MAPLE_TREE', 'lib/Kconfig.debug',
             2270),
            ('ARM_GIC_V3', 'HAVE_ARM_SMCCC_DISCOVERY',
             'drivers/irqchip/Kconfig', 38)},
    '6.12': {('ARM_GIC_V3', 'HAVE_ARM_SMCCC_DISCOVERY',
              'drivers/irqchip/Kconfig', 40)},
    '7.2': {('ARM_GIC_V3', 'HAVE_ARM_SMCCC_DISCOVERY',
             'drivers/irqchip/Kconfig', 40),
            ('DRM_IMX_LDB', 'DRM_BRIDGE_CONNECTOR',
             'drivers/gpu/drm/imx/ipuv3/Kconfig', 40)},
}[KERNEL_VERSION]

# The stock tree's findings on ARM that the series' fix topics fix
# (conftest.FIX_TOPICS): the patched tree does not have them
FIXED_BY_TOPICS = {('ARM_GIC_V3', 'HAVE_ARM_SMCCC_DISCOVERY'),
                   ('DRM_IMX_LDB', 'DRM_BRIDGE_CONNECTOR')} \
    if FIX_TOPICS else set()

# Every tree of the tree set that is there: stock and with the series
TREE_SET = [t for t in (BUILD / 'pristine', BUILD / 'patched',
                        BUILD / '6.12' / 'pristine', BUILD / '6.12' / 'patched',
                        BUILD / '7.2' / 'pristine', BUILD / '7.2' / 'patched')
            if (t / 'scripts' / 'kconfig' / 'conf.c').is_file()]


def tree_state(tree):
    """What a run could leave in the tree: its top folder and
    scripts/kconfig, by name and modification time."""
    state = {}
    for d in (tree, tree / 'scripts' / 'kconfig'):
        for p in d.iterdir():
            state[str(p)] = p.lstat().st_mtime_ns
    return state


@pytest.fixture(scope='module')
def stock(env, tmp_path_factory):
    """The stock tree, cold: its findings, the cache filled, and the
    tree's state before and after."""
    tmp = tmp_path_factory.mktemp('audit-stock')
    before = tree_state(PRISTINE)
    ps, doc = run(env, tmp, '--srctree', PRISTINE)
    return ps, doc, before, tree_state(PRISTINE)


def found(doc):
    return {(f['selector'], f['target'], f['file'], f['line'])
            for f in doc['findings']}


@pytest.mark.parametrize('tree', TREE_SET,
                         ids=[str(t.relative_to(BUILD)) for t in TREE_SET])
@pytest.mark.parametrize('tool', ['audit', 'conf'])
def test_builds_on_every_tree(tree, tool, tmp_path):
    """The program, and conf, build against the kconfig sources of every
    tree of the set, stock or not, and run."""
    ps = subprocess.run([str(TOP / 'tools' / 'audit' / 'build'), '--tool',
                         tool, '--srctree', str(tree), '--out',
                         str(tmp_path)], stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, text=True)
    assert ps.returncode == 0, ps.stderr
    prog = Path(ps.stdout.strip())
    assert prog.is_file() and os.access(prog, os.X_OK)
    ps = subprocess.run([str(prog), '--bogus-option'],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
    assert ps.returncode != 0 and 'usage' in (ps.stdout + ps.stderr).lower()


def test_stock_tree_findings(stock):
    """Exit 1, the stock tree's known unmet selects among the findings,
    each with its warning line and a reproducer."""
    ps, doc, _, _ = stock
    assert ps.returncode == 1, ps.stderr
    assert STOCK_FINDINGS <= found(doc)
    for sel, target, file, line in STOCK_FINDINGS:
        assert '%s:%d: warning: %s [=' % (file, line, sel) in ps.stdout
    for f in doc['findings']:
        assert Path(f['reproducer']).is_file()
    assert ps.stdout.splitlines()[-1].startswith('kconfig-audit: arm Kconfig')


def test_stock_tree_left_alone(stock):
    """conf is built and run in the cache: the tree has no new file, and
    no file of scripts/kconfig changed."""
    _, _, before, after = stock
    assert before == after
    assert not (PRISTINE / '.config').exists()
    assert not (PRISTINE / 'include' / 'config').exists()


def test_confirming_conf_carries_the_series(stock, env):
    """The stock tree has no conf --batch; the conf that confirmed was
    built in the cache from its scripts/kconfig with the series' kconfig
    patches: the same sources as the patched tree's."""
    assert not audit_series.carries_series(PRISTINE)
    root = Path(env['KCONFIG_AUDIT_CACHE'])
    [copy] = list((root / 'kconfig').glob(
        audit_cache.kconfig_hash(PRISTINE) + '-*'))
    assert (copy / 'bin' / 'conf').is_file()
    assert audit_series.carries_series(copy)
    assert audit_cache.kconfig_hash(copy) == \
        audit_cache.kconfig_hash(PATCHED)


def test_base_stock(stock, env, tmp_path):
    """--base STOCK: the patched tree against the stock one, exit 0.  The
    series' kconfig changes no answer: every finding of the stock tree is
    known, but those that the series' fix topics fix (7.2), which the
    patched tree no longer has; the stock tree's result comes from the
    cache."""
    _, sdoc, _, _ = stock
    ps, doc = run(env, tmp_path, '--srctree', PATCHED, '--base', PRISTINE)
    assert ps.returncode == 0, ps.stderr
    assert doc['base']['cached'] and doc['new'] == 0
    known = {(f['selector'], f['target']) for f in doc['findings']
             if f['status'] == 'known'}
    stock_pairs = {(f['selector'], f['target']) for f in sdoc['findings']}
    assert known == stock_pairs - FIXED_BY_TOPICS
    assert FIXED_BY_TOPICS <= stock_pairs


def i2c_patch(tree):
    path = 'drivers/misc/Kconfig'
    old = (tree / path).read_text()
    anchor = 'config DUMMY_IRQ\n'
    new = old.replace(anchor, 'config KBG_DEMO_SENSOR\n'
                      '\tbool "KBG demo board sensor"\n'
                      '\tselect REGMAP_I2C\n\n' + anchor, 1)
    assert new != old
    return git_patch(path, old, new, 'misc: add the KBG demo sensor')


def test_patch_on_stock(stock, env, tmp_path):
    """--patch against the stock tree: the new select is new, the tree's
    own findings are known, a few selects are asked again."""
    _, sdoc, _, _ = stock
    patch = tmp_path / 'i2c.patch'
    patch.write_text(i2c_patch(PRISTINE))
    ps, doc = run(env, tmp_path, '--srctree', PRISTINE, '--patch', patch)
    assert ps.returncode == 1, ps.stderr
    assert [(f['selector'], f['target']) for f in doc['findings']
            if f['status'] == 'new'] == [('KBG_DEMO_SENSOR', 'REGMAP_I2C')]
    assert doc['known'] == len(sdoc['findings'])
    s = doc['summary']
    assert s['selects'] - s['carried'] - s['reused'] < 200


def test_base_rev_on_stock(stock, env, tmp_path):
    """--base-rev on a git repository of the stock tree's Kconfig files
    and scripts/, the i2c patch committed on top."""
    repo = kconfig_repo(PRISTINE, tmp_path, i2c_patch(PRISTINE))
    ps, doc = run(env, tmp_path, '--base-rev', 'HEAD~1', '--srctree', repo)
    assert ps.returncode == 1, ps.stderr
    assert [f['selector'] for f in doc['findings']
            if f['status'] == 'new'] == ['KBG_DEMO_SENSOR']


@pytest.mark.skipif(KERNEL_VERSION != '7.2',
                    reason='7.2 has upstream\'s fix of TEST_MAPLE_TREE')
def test_base_finds_the_reverted_maple_fix(stock, env, tmp_path):
    """Upstream fixed 6.1's TEST_MAPLE_TREE -> DEBUG_MAPLE_TREE by
    dropping the select; a copy of stock 7.2 with it back, against
    stock 7.2 (--base), has it as new, with DEBUG_KERNEL blocking."""
    rel = 'lib/Kconfig.debug'
    copy = tmp_path / 'reverted'
    # the tree itself, not a link to it: cp -a copies a link as a link,
    # and the write below would go through it into the stock tree
    subprocess.run(['cp', '-al', str(PRISTINE.resolve()), str(copy)],
                   check=True)
    assert copy.is_dir() and not copy.is_symlink()
    text = (PRISTINE / rel).read_text()
    head = 'config TEST_MAPLE_TREE\n'
    block = text[text.index(head):].split('\nconfig ')[0]
    assert 'select DEBUG_MAPLE_TREE' not in block
    (copy / rel).unlink()    # a hard link to the stock tree's file
    (copy / rel).write_text(text.replace(
        head, head + '\tselect DEBUG_MAPLE_TREE\n', 1))
    ps, doc = run(env, tmp_path, '--srctree', copy, '--base', PRISTINE)
    assert ps.returncode == 1, ps.stderr
    new = [f for f in doc['findings'] if f['status'] == 'new']
    assert [(f['selector'], f['target'], f['file']) for f in new] == \
        [('TEST_MAPLE_TREE', 'DEBUG_MAPLE_TREE', rel)]
    assert {'expr': 'DEBUG_KERNEL', 'value': 'n'} in new[0]['blocking']
    assert '%s:%d: warning: TEST_MAPLE_TREE selects DEBUG_MAPLE_TREE' % (
        rel, new[0]['line']) in ps.stdout
    shutil.rmtree(copy)


@pytest.mark.skipif(KERNEL_VERSION != '7.2',
                    reason='DRM_IMX_LDB -> DRM_BRIDGE_CONNECTOR is 7.2\'s')
def test_arch_all(env, tmp_path):
    """--arch all --only DRM_IMX_LDB on stock 7.2: every architecture of
    the tree audited (a JSON and a row each, one progress line each),
    the LDB's unmet select found where COMPILE_TEST or the platform
    reaches the driver (ARM, arm64, x86 among them), exit 1."""
    arches = sorted(p.parent.name for p in (PRISTINE / 'arch').glob(
        '*/Kconfig'))
    assert len(arches) == 21
    out = tmp_path / 'all'
    ps = subprocess.run([sys.executable, TOOL, '--srctree', str(PRISTINE),
                         '--arch', 'all', '--only', 'DRM_IMX_LDB', '--out',
                         str(out), '--json', str(tmp_path / 'all.json')],
                        env=env, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, text=True)
    print(ps.stdout, ps.stderr)
    assert ps.returncode == 1, ps.stderr
    doc = json.loads((tmp_path / 'all.json').read_text())
    rows = {r['arch']: r for r in doc['architectures']}
    assert sorted(rows) == arches
    assert not any('error' in r for r in rows.values())
    for arch in arches:
        assert '] ' in ps.stderr and ps.stderr.count(' %s ' % arch) >= 1
        one = json.loads((out / (arch + '.json')).read_text())
        assert one['arch'] == arch
        assert one['summary']['selects'] == rows[arch]['selects'] > 0
    found = {a for a, r in rows.items() if r['confirmed']}
    assert {'arm', 'arm64', 'x86'} <= found
    for arch in found:
        one = json.loads((out / (arch + '.json')).read_text())
        assert [(f['selector'], f['target']) for f in one['findings']] == \
            [('DRM_IMX_LDB', 'DRM_BRIDGE_CONNECTOR')]
    lines = ps.stdout.splitlines()
    assert lines[-1].startswith('kconfig-audit: all 21 architectures: ')
    assert any(l.split()[:1] == ['arch'] and 'confirmed' in l for l in lines)
    assert ('drivers/gpu/drm/imx/ipuv3/Kconfig:40: warning: DRM_IMX_LDB '
            '[=m] can select DRM_BRIDGE_CONNECTOR') in ps.stdout

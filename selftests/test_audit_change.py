# SPDX-License-Identifier: GPL-2.0
"""tools/kconfig-audit --base / --patch: the unmet selects that a change
brings, on the real ARM tree.

The base is build/patched (the distro tarball with the series: its
kconfig has conf --batch and the JSON report that confirm a candidate).
The changed trees are made here, in tmp, from it: a copy of its Kconfig
files and scripts/ with a git-format patch applied (what --patch does
itself), never a tree kept in the repo.

- a new bool symbol with a prompt that selects REGMAP_I2C (which depends
  on I2C) is new, exit 1, with its warning, notes and summary;
- the tree against itself: nothing new, exit 0, from the cache;
- a select line moved within its symbol: nothing new, the finding keeps
  its identity (selector, target, condition) at its new line;
- TEST_MAPLE_TREE -> DEBUG_MAPLE_TREE, 6.1's real finding, stays known;
  with upstream's fix (depends on DEBUG_KERNEL) it is gone, nothing new;
- bad input: one message, exit 2.

One cache ($KCONFIG_AUDIT_CACHE, in tmp) for the module: the base is
audited cold once, each change then asks again only the selects whose
cone of influence it touches.
"""

import difflib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import KERNEL_VERSION, PATCHED, TOP
from kbuildgate import audit, audit_review


TOOL = str(TOP / 'tools' / 'kconfig-audit')

# slow: the first audit of the tree is cold (about 75 s of CPU)
pytestmark = [pytest.mark.skipif(KERNEL_VERSION != '6.1',
                                 reason='the patches are 6.1\'s lines'),
              pytest.mark.slow, pytest.mark.usefixtures('trees')]

MAPLE = ('TEST_MAPLE_TREE', 'DEBUG_MAPLE_TREE')


def git_patch(path, old, new, subject):
    """A git format-patch of one file, @old -> @new."""
    diff = ''.join(difflib.unified_diff(
        old.splitlines(True), new.splitlines(True), 'a/' + path,
        'b/' + path))
    return ('From 0000000000000000000000000000000000000000 Mon Sep 17 '
            '00:00:00 2001\nFrom: A Developer <dev@example.org>\n'
            'Subject: [PATCH] %s\n\n---\ndiff --git a/%s b/%s\n%s-- \n'
            '2.39.2\n' % (subject, path, path, diff))


def i2c_patch():
    path = 'drivers/misc/Kconfig'
    old = (PATCHED / path).read_text()
    anchor = 'config DUMMY_IRQ\n'
    assert anchor in old
    new = old.replace(anchor, 'config KBG_DEMO_SENSOR\n'
                      '\tbool "KBG demo board sensor"\n'
                      '\tselect REGMAP_I2C\n'
                      '\thelp\n\t  A sensor on the demo board.\n\n' +
                      anchor, 1)
    line = new.splitlines().index('\tselect REGMAP_I2C') + 1
    return git_patch(path, old, new, 'misc: add the KBG demo sensor'), \
        path, line


def move_patch():
    path = 'lib/Kconfig.debug'
    old = (PATCHED / path).read_text()
    before = ('config TEST_MAPLE_TREE\n\tselect DEBUG_MAPLE_TREE\n'
              '\ttristate "Test the Maple Tree code at runtime"\n')
    assert before in old
    new = old.replace(before, 'config TEST_MAPLE_TREE\n'
                      '\ttristate "Test the Maple Tree code at runtime"\n'
                      '\tselect DEBUG_MAPLE_TREE\n')
    line = new.splitlines().index('config TEST_MAPLE_TREE') + 3
    return git_patch(path, old, new, 'lib: select after the prompt'), line


@pytest.fixture(scope='module')
def env(tmp_path_factory):
    return dict(os.environ, KCONFIG_AUDIT_CACHE=str(
        tmp_path_factory.mktemp('audit-cache')))


def run(env, tmp_path, *args, name='audit'):
    ps = subprocess.run([sys.executable, TOOL, '--arch', 'arm',
                         '--out', str(tmp_path / ('out-' + name)),
                         '--json', str(tmp_path / (name + '.json'))] +
                        [str(a) for a in args], env=env,
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
    print(ps.stdout, ps.stderr)
    j = tmp_path / (name + '.json')
    return ps, json.loads(j.read_text()) if j.is_file() else None


@pytest.fixture(scope='module')
def base(env, tmp_path_factory):
    """The whole tree, cold: its findings, and the cache filled."""
    tmp = tmp_path_factory.mktemp('audit-base')
    ps, doc = run(env, tmp, '--srctree', PATCHED)
    assert ps.returncode == 1, ps.stderr
    assert not doc['cached']
    return doc


def by_pair(doc):
    return {(f['selector'], f['target']): f for f in doc['findings']}


def test_tree_against_itself(env, base, tmp_path):
    """Nothing new, exit 0; every finding known; both sides from the
    cache, in seconds."""
    ps, doc = run(env, tmp_path, '--base', PATCHED, '--srctree', PATCHED)
    assert ps.returncode == 0
    assert doc['new'] == 0 and doc['known'] == len(base['findings']) > 0
    assert by_pair(doc)[MAPLE]['status'] == 'known'
    assert doc['cached'] and doc['base']['cached']
    assert doc['seconds'] < 30
    assert ps.stdout.splitlines()[-1].startswith(
        'kconfig-audit: arm new tree: 0 new unmet select(s), %d known' %
        len(base['findings']))
    assert 'warning:' not in ps.stdout


def test_patch_new_select_needs_i2c(env, base, tmp_path):
    """A new bool symbol with a prompt selecting REGMAP_I2C, which
    depends on I2C: new, with its notes; the tree's own findings known;
    only the selects whose cone the change touches are solved again."""
    text, path, line = i2c_patch()
    patch = tmp_path / '0001-misc-add-the-KBG-demo-sensor.patch'
    patch.write_text(text)
    ps, doc = run(env, tmp_path, '--patch', patch, '--srctree', PATCHED)
    assert ps.returncode == 1, ps.stderr
    [new] = [f for f in doc['findings'] if f['status'] == 'new']
    assert (new['selector'], new['target']) == ('KBG_DEMO_SENSOR',
                                                'REGMAP_I2C')
    assert (new['file'], new['line']) == (path, line)
    # the solver may give I2C=n or I2C=m: a select from a bool needs y
    [blocking] = new['blocking']
    assert blocking['expr'] == 'I2C' and blocking['value'] in ('n', 'm')
    assert by_pair(doc)[MAPLE]['status'] == 'known'
    assert doc['known'] == len(base['findings'])
    out = ps.stdout.splitlines()
    assert out[0] == ('%s:%d: warning: KBG_DEMO_SENSOR selects REGMAP_I2C, '
                      'whose direct dependencies can be unmet' % (path, line))
    assert any(x.startswith('%s:%d: note: blocked by I2C [=%s]'
                            % (path, line, blocking['value'])) for x in out)
    assert any(' reproduces it: ' in x for x in out)
    assert out[-1].startswith('kconfig-audit: arm %s: 1 new unmet select(s)'
                              % patch)
    # incremental: a few selects solved again, the rest from the cache
    s = doc['summary']
    assert s['selects'] - s['carried'] - s['reused'] < 200
    assert Path(new['reproducer']).is_file()


def test_base_tree_against_changed_tree(env, base, tmp_path):
    """--base STOCK --srctree CHANGED: the issue's own command line."""
    text, path, line = i2c_patch()
    patch = tmp_path / 'i2c.patch'
    patch.write_text(text)
    changed = tmp_path / 'changed'
    audit.apply_patch(PATCHED, patch, changed)
    ps, doc = run(env, tmp_path, '--base', PATCHED, '--srctree', changed)
    assert ps.returncode == 1
    assert [(f['selector'], f['status']) for f in doc['findings']
            if f['status'] == 'new'] == [('KBG_DEMO_SENSOR', 'new')]
    assert by_pair(doc)[MAPLE]['status'] == 'known'
    # the changed tree against itself
    ps, doc = run(env, tmp_path, '--base', changed, '--srctree', changed,
                  name='self')
    assert ps.returncode == 0 and doc['new'] == 0


def test_patch_moves_a_select(env, base, tmp_path):
    """Moving TEST_MAPLE_TREE's select after its prompt: the finding is
    the same one, at its new line, and known; nothing is printed but the
    summary."""
    text, line = move_patch()
    patch = tmp_path / 'move.patch'
    patch.write_text(text)
    ps, doc = run(env, tmp_path, '--patch', patch, '--srctree', PATCHED)
    assert ps.returncode == 0, ps.stderr
    f = by_pair(doc)[MAPLE]
    assert f['status'] == 'known' and f['line'] == line
    assert doc['new'] == 0
    assert len(ps.stdout.splitlines()) == 1
    assert ps.stdout.startswith('kconfig-audit: arm ')


def test_patch_fixes_a_finding(env, base, tmp_path):
    """The upstream fix, TEST_MAPLE_TREE depending on DEBUG_KERNEL: the
    finding is gone, nothing is new, the other findings stay known; the
    change re-solves the selects whose cone holds TEST_MAPLE_TREE."""
    path = 'lib/Kconfig.debug'
    old = (PATCHED / path).read_text()
    before = 'config TEST_MAPLE_TREE\n\tselect DEBUG_MAPLE_TREE\n'
    assert before in old
    new = old.replace(before, before + '\tdepends on DEBUG_KERNEL\n')
    patch = tmp_path / 'fix.patch'
    patch.write_text(git_patch(path, old, new, 'lib: TEST_MAPLE_TREE '
                               'depends on DEBUG_KERNEL'))
    ps, doc = run(env, tmp_path, '--patch', patch, '--srctree', PATCHED)
    assert ps.returncode == 0, ps.stderr
    assert MAPLE not in by_pair(doc)
    assert doc['new'] == 0 and doc['known'] == len(base['findings']) - 1
    s = doc['summary']
    assert s['selects'] - s['carried'] - s['reused'] < 200


def kconfig_repo(tree, tmp_path, patch):
    """A git repository, TMP/repo, of @tree's Kconfig files and scripts/,
    with the git-format @patch (text) committed on top."""
    repo = tmp_path / 'repo'
    audit_review.copy_kconfig_tree(tree, repo)
    git = ['git', '-C', str(repo), '-c', 'user.name=t',
           '-c', 'user.email=t@example.org']
    subprocess.run(git[:3] + ['init', '-q'], check=True)
    subprocess.run(git + ['add', '-A'], check=True)
    subprocess.run(git + ['commit', '-q', '-m', 'base'], check=True)
    (tmp_path / 'change.patch').write_text(patch)
    subprocess.run(git + ['am', '-q', str(tmp_path / 'change.patch')],
                   check=True)
    return repo


def test_base_rev(env, base, tmp_path):
    """--base-rev REV on a git tree: a git repository of the tree's
    Kconfig files, the i2c patch committed on top, audited against
    HEAD~1."""
    text, path, line = i2c_patch()
    repo = kconfig_repo(PATCHED, tmp_path, text)
    ps, doc = run(env, tmp_path, '--base-rev', 'HEAD~1', '--srctree', repo)
    assert ps.returncode == 1
    assert [(f['selector'], f['line']) for f in doc['findings']
            if f['status'] == 'new'] == [('KBG_DEMO_SENSOR', line)]
    ps, doc = run(env, tmp_path, '--base-rev', 'HEAD', '--srctree', repo,
                  name='head')
    assert ps.returncode == 0 and doc['new'] == 0
    ps, _ = run(env, tmp_path, '--base-rev', 'nosuchrev', '--srctree', repo,
                name='bad')
    assert ps.returncode == 2 and 'no commit nosuchrev' in ps.stderr


@pytest.mark.parametrize('case', ['missing-tree', 'missing-base',
                                  'not-applying', 'not-a-patch'])
def test_bad_input(env, tmp_path, case):
    args = {
        'missing-tree': ['--srctree', tmp_path / 'nowhere', '--base',
                         PATCHED],
        'missing-base': ['--srctree', PATCHED, '--base',
                         tmp_path / 'nowhere'],
        'not-applying': ['--srctree', PATCHED, '--patch',
                         tmp_path / 'bad.patch'],
        'not-a-patch': ['--srctree', PATCHED, '--patch',
                        tmp_path / 'empty.patch'],
    }[case]
    (tmp_path / 'bad.patch').write_text(git_patch(
        'drivers/misc/Kconfig', 'no such\nlines\n', 'no such\ntext\n',
        'does not apply'))
    (tmp_path / 'empty.patch').write_text('Subject: nothing\n')
    ps, _ = run(env, tmp_path, *args)
    assert ps.returncode == 2
    lines = ps.stderr.strip().splitlines()
    assert len(lines) == 1 or 'applying' in lines[0], ps.stderr
    assert lines[-1].startswith('kconfig-audit: ')
    assert 'Traceback' not in ps.stderr
    assert {'missing-tree': 'is not a kernel tree',
            'missing-base': 'is not a kernel tree',
            'not-applying': 'does not apply',
            'not-a-patch': 'not a patch'}[case] in lines[-1]

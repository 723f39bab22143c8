# SPDX-License-Identifier: GPL-2.0
"""kconfig-fragment import: ARM defconfigs as board fragments in a
hierarchy, each regenerating its defconfig's .config byte for byte.

A few boards here (three PXA boards that share a family level, two of
them a group too, qcom, multi_v5); every ARM defconfig in the slow test
and in
"make -f Kbuild.mk import".
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import KERNEL_VERSION, PATCHED, TOP

pytestmark = pytest.mark.usefixtures('trees')

TOOL = str(TOP / 'tools' / 'kconfig-fragment')
BOARDS = ['corgi', 'qcom', 'spitz', 'zeus', 'multi_v5']


def run(*args, env=None):
    return subprocess.run([sys.executable] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, env=env)


def do_import(out, boards, *extra, srctree=PATCHED, work=None,
              base='allnoconfig'):
    """Import @boards on @base: the plan's, allnoconfig, unless told (on
    "auto" five boards alone are smaller on alldefconfig)."""
    args = [TOOL, 'import', '--srctree', str(srctree), '--arch', 'arm',
            '--out', str(out), '--json', str(out.parent / 'import.json'),
            '--base', base]
    if work:
        args += ['--work', str(work)]
    ps = run(*(args + list(extra) + list(boards)))
    report = json.loads((out.parent / 'import.json').read_text()) \
        if ps.returncode in (0, 1) else None
    return ps, report


@pytest.fixture(scope='module')
def imported(tmp_path_factory):
    out = tmp_path_factory.mktemp('import') / 'boards'
    ps, report = do_import(out, BOARDS, '--check')
    return out, ps, report


def chain(out, name):
    """The files that Kconfig.NAME sources, itself first, down to the one
    that sources the tree."""
    files = []
    path = out / ('Kconfig.' + name)
    while True:
        files.append(path)
        src = re.search(r'^source "([^"]+)"', path.read_text(), re.M).group(1)
        if src == 'Kconfig':
            return files
        path = out / os.path.basename(src)


def sourced(out, name):
    """Every file that Kconfig.NAME reads: itself, its levels and its
    groups."""
    files, todo = [], [out / ('Kconfig.' + name)]
    while todo:
        path = todo.pop(0)
        files.append(path)
        todo += [out / os.path.basename(src) for src in
                 re.findall(r'^source "([^"]+)"', path.read_text(), re.M)
                 if src != 'Kconfig']
    return files


def test_every_board_regenerates_its_defconfig(imported):
    """make allnoconfig on each fragment (and its NAME.config), under
    KCONFIG_WERROR=1, writes the defconfig's .config byte for byte."""
    out, ps, report = imported
    assert ps.returncode == 0, ps.stdout[-3000:]
    assert 'check: %d of %d board(s) regenerate' % (len(BOARDS), len(BOARDS)) \
        in ps.stdout
    assert report['identical'] == sorted(BOARDS)
    assert report['exceptions'] == {}


def test_levels_found_from_the_tree(imported):
    """spitz and zeus are PXA boards on an ARMv5 core: they share the
    mach-pxa level; every board ends at the architecture's level."""
    out, _, report = imported
    names = [p.name for p in chain(out, 'spitz')]
    assert names[0] == 'Kconfig.spitz'
    assert 'Kconfig.mach-pxa' in names and names[-1] == 'Kconfig.arm'
    assert [p.name for p in chain(out, 'zeus')][1:] == names[1:]
    assert chain(out, 'qcom')[-1].name == 'Kconfig.arm'
    assert {lv['level'] for lv in report['levels']} >= {'arm', 'mach-pxa'}


def test_each_select_in_one_level_sorted(imported):
    """Sorted, once in a file, and an unconditional select once in the
    files a board reads (its levels and groups).  A restated default ("select X if COND") may be raised
    below it: HW_RANDOM's default is m, qcom has it at y."""
    out, _, _ = imported
    for board in BOARDS:
        seen = {}
        for path in sourced(out, board):
            text = path.read_text()
            first = text.splitlines()[0]
            assert 'kconfig-fragment import' in first
            if path.name == 'Kconfig.' + board:
                assert 'arch/arm/configs/%s_defconfig' % board in first
            sel = re.findall(r'^\tselect (\w+)', text, re.M)
            assert sel == sorted(sel) and len(sel) == len(set(sel)), path
            for s in re.findall(r'^\tselect (\w+)$', text, re.M):
                assert s not in seen, '%s in %s and %s' % (s, seen[s], path)
                seen[s] = path.name


def test_groups_hold_what_boards_share(imported):
    """What several boards share beyond their levels is one group file,
    sourced by each of them, whose header names them: corgi and spitz, two
    Sharp Zaurus boards, share more than the PXA level that zeus has
    too."""
    out, _, report = imported
    assert report['groups']
    for g in report['groups']:
        path = out / ('Kconfig.' + g['group'])
        first = path.read_text().splitlines()[0]
        assert len(g['boards']) >= 2
        assert ' '.join(g['boards']) in first
        assert g['selects'] >= 2
        for board in BOARDS:
            uses = path in sourced(out, board)
            assert uses == (board in g['boards']), (board, path)
            assert uses == (g['group'] in report['boards'][board]['groups'])
    zaurus = [g for g in report['groups'] if 'corgi' in g['boards']]
    assert zaurus and all(g['boards'] == ['corgi', 'spitz'] for g in zaurus)


def choice_members():
    members = set()
    for path in PATCHED.rglob('Kconfig*'):
        depth = 0
        for line in path.read_text(errors='replace').splitlines():
            word = line.split()[:2]
            if word[:1] == ['choice']:
                depth += 1
            elif word[:1] == ['endchoice']:
                depth -= 1
            elif depth and word[:1] == ['config'] and len(word) == 2:
                members.add(word[1])
    return members


def test_config_files_hold_only_choices_and_values(imported):
    """NAME.config (KCONFIG_ALLCONFIG): choice members at y and int, hex
    and string values, nothing a select could say."""
    out, _, _ = imported
    members = choice_members()
    files = sorted(out.glob('*.config'))
    assert files
    for path in files:
        for line in path.read_text().splitlines()[1:]:
            sym, val = re.match(r'CONFIG_(\w+)=(.*)$', line).groups()
            if val == 'y':
                assert sym in members, '%s: %s' % (path.name, line)
            else:
                assert val not in ('m', 'n'), line


def test_dropped_lines_listed(imported):
    """A defconfig line that does not survive today is not carried, and
    the import names it with its kind, at its file and line."""
    out, ps, report = imported
    assert re.search(r'^arch/arm/configs/zeus_defconfig:\d+: '
                     r'CONFIG_NET_ETHERNET=y was dropped \(unknown\)$',
                     ps.stdout, re.M)
    assert any(d['symbol'] == 'NET_ETHERNET' and d['kind'] == 'unknown'
               for d in report['boards']['zeus']['dropped'])
    assert 'NET_ETHERNET' not in (out / 'Kconfig.zeus').read_text()


def test_second_import_changes_no_byte(imported, tmp_path):
    out, _, _ = imported
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns)
              for p in out.iterdir()}
    ps, report = do_import(out, BOARDS)
    assert ps.returncode == 0, ps.stdout[-2000:]
    assert report['files_written'] == 0
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns)
            for p in out.iterdir()} == before


def test_auto_base_where_the_plan_is_larger(tmp_path):
    """On --base auto (the default) the five boards alone are larger on
    allnoconfig than their defconfigs (they share too little to pay for
    the default-y symbols each restates), so the import keeps the
    smaller: alldefconfig, each board saying so in its first lines and
    its NAME.config holding what is below the tree's defaults; --check
    regenerates every .config byte for byte on that base."""
    out = tmp_path / 'boards'
    ps, report = do_import(out, BOARDS, '--check', base='auto')
    assert ps.returncode == 0, ps.stdout[-3000:]
    assert report['identical'] == sorted(BOARDS)
    assert report['lines'] < report['defconfig_lines']
    assert report['bases'] == {'alldefconfig': len(BOARDS)}
    for b in BOARDS:
        assert (out / ('Kconfig.' + b)).read_text().splitlines()[1] == \
            "# kconfig-base: alldefconfig (the tree's defaults stand)"
    assert any(re.search(r'^# CONFIG_\w+ is not set$', p.read_text(), re.M)
               for p in out.glob('*.config'))


def test_import_of_fewer_boards_removes_the_others(imported, tmp_path):
    """The files of an earlier import that this one does not write go (the
    levels no longer fit them); a file of someone else stays."""
    out = tmp_path / 'boards'
    shutil.copytree(imported[0], out)
    (out / 'Kconfig.mine').write_text('source "Kconfig"\n')
    ps, report = do_import(out, ['spitz', 'zeus'])
    assert ps.returncode == 0, ps.stdout[-2000:]
    assert report['files_removed'] > 0
    left = sorted(p.name for p in out.iterdir())
    assert 'Kconfig.qcom' not in left and 'qcom.config' not in left
    assert 'Kconfig.mine' in left and 'Kconfig.zeus' in left


# over 6 s on its own: "make -f Kbuild.mk check" only (docs/ci.md)
@pytest.mark.slow
def test_kautobuild_gates_the_folder(imported, tmp_path):
    """kautobuild --fragments DIR: every board of the folder, configured
    with its NAME.config, the same JSON and JUnit as for other targets."""
    out, _, _ = imported
    ps = run(str(TOP / 'tools' / 'kautobuild'), '--fragments', str(out),
             '--config-only', '--srctree', str(PATCHED),
             '--out', str(tmp_path / 'kab'),
             '--json', str(tmp_path / 'r.json'),
             '--junit', str(tmp_path / 'r.xml'))
    assert ps.returncode == 0, ps.stdout[-3000:]
    doc = json.loads((tmp_path / 'r.json').read_text())
    got = {t['name']: t for t in doc['targets']}
    assert sorted(got) == sorted(BOARDS)
    assert all(t['kind'] == 'fragment' and t['status'] == 'PASS'
               for t in got.values())
    assert got['qcom']['config_fragment'] == str(out / 'qcom.config')
    assert '<testsuite' in (tmp_path / 'r.xml').read_text()


def shadow_tree(tmp_path, edit):
    """A tree of symlinks to PATCHED whose arch/arm/configs is a copy,
    changed by @edit(configs folder)."""
    root = tmp_path / 'tree'
    root.mkdir()
    for e in os.listdir(PATCHED):
        if e != 'arch':
            os.symlink(PATCHED / e, root / e)
    (root / 'arch').mkdir()
    for e in os.listdir(PATCHED / 'arch'):
        if e != 'arm':
            os.symlink(PATCHED / 'arch' / e, root / 'arch' / e)
    (root / 'arch' / 'arm').mkdir()
    for e in os.listdir(PATCHED / 'arch' / 'arm'):
        if e != 'configs':
            os.symlink(PATCHED / 'arch' / 'arm' / e, root / 'arch' / 'arm' / e)
    configs = root / 'arch' / 'arm' / 'configs'
    configs.mkdir()
    for p in (PATCHED / 'arch' / 'arm' / 'configs').iterdir():
        (configs / p.name).write_bytes(p.read_bytes())
    edit(configs)
    return root


@pytest.mark.slow
def test_one_line_added_changes_one_line(tmp_path):
    """CONFIG_PRINTK_TIME=y added to zeus_defconfig: one select more in
    Kconfig.zeus, and no other byte of the hierarchy changes, with the
    groups that zeus shares with the other PXA boards."""
    boards = ['colibri_pxa270', 'corgi', 'spitz', 'trizeps4', 'viper',
              'zeus']

    def add(configs):
        with open(configs / 'zeus_defconfig', 'a') as f:
            f.write('CONFIG_PRINTK_TIME=y\n')

    tree = shadow_tree(tmp_path, add)
    a, b = tmp_path / 'a' / 'out', tmp_path / 'b' / 'out'
    ps, _ = do_import(a, boards, work=tmp_path / 'wa')
    assert ps.returncode == 0, ps.stdout[-2000:]
    ps, _ = do_import(b, boards, '--check', srctree=tree,
                      work=tmp_path / 'wb')
    assert ps.returncode == 0, ps.stdout[-2000:]

    def text(path):
        # the levels are sourced by their absolute path
        return path.read_text().replace(str(path.parent), 'DIR')

    assert sorted(p.name for p in a.iterdir()) == \
        sorted(p.name for p in b.iterdir())
    changed = [p.name for p in sorted(a.iterdir())
               if text(p) != text(b / p.name)]
    assert changed == ['Kconfig.zeus']
    old = text(a / 'Kconfig.zeus').splitlines()
    new = text(b / 'Kconfig.zeus').splitlines()
    assert [l for l in new if l not in old] == ['\tselect PRINTK_TIME']
    assert [l for l in old if l not in new] == []


# each tree's ARM defconfigs: files, lines, dropped lines, the defconfigs
# that have them
ALL = {'6.1': (100, 16933, 447, 74), '7.2': (70, 13063, 375, 52)}


@pytest.mark.slow
@pytest.mark.skipif(KERNEL_VERSION not in ALL,
                    reason='the figures are those of 6.1 and 7.2')
@pytest.mark.skipif(not os.environ.get('IMPORT_ALL'),
                    reason='every ARM defconfig takes 5 minutes: '
                    'IMPORT_ALL=1, or make -f Kbuild.mk import')
def test_every_arm_defconfig(tmp_path):
    """Every ARM defconfig of the tree regenerated byte for byte, in fewer
    lines than the defconfigs, and the figures as docs/import.md gives
    them.  Not part of "check" (the issue's "a few boards in check"):
    IMPORT_ALL=1 runs it."""
    files, lines, dropped, dropped_files = ALL[KERNEL_VERSION]
    ps, report = do_import(tmp_path / 'out', [], '--check', base='auto')
    assert ps.returncode == 0, ps.stdout[-3000:]
    assert report['defconfigs'] == files
    assert report['defconfig_lines'] == lines
    assert len(report['identical']) == files
    assert report['dropped'] == dropped
    assert report['dropped_files'] == dropped_files
    assert report['lines'] < report['defconfig_lines']


def test_check_runs_under_werror(tmp_path):
    """--check (importer.check_boards()) configures each board under
    KCONFIG_WERROR=1, as docs/import.md says: a board with an unmet
    select fails there, and conf itself refuses to write its .config
    (before, the run's environment lost KCONFIG_WERROR on the way to
    conf, which wrote the .config and exited 0)."""
    sys.path.insert(0, str(TOP / 'tools'))
    from kbuildgate import importer
    out = tmp_path / 'boards'
    out.mkdir()
    shutil.copy(TOP / 'examples' / 'arm-qcom-unmet.Kconfig',
                out / 'Kconfig.unmet')
    want = tmp_path / 'want.config'
    want.write_text('# not reached\n')
    res = importer.check_boards(str(PATCHED), 'arm', str(out),
                                str(tmp_path / 'work'), ['unmet'],
                                {'unmet': str(want)})
    assert res['unmet'].startswith('configure failed: unmet select'), res
    log = (tmp_path / 'work' / 'check-unmet' / 'configure.log').read_text()
    assert '*** KCONFIG_WERROR is set: the configuration was not ' \
        'written.' in log, log
    assert re.search(r'^\(exit [1-9]\d*\)$', log, re.M), log
    assert not (tmp_path / 'work' / 'check-unmet' / '.config').exists()

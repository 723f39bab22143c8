# SPDX-License-Identifier: GPL-2.0
"""kconfig-fragment import on every architecture of 7.2 (issue 39).

On the real 7.2 tree with the series (KERNEL_VERSION=7.2, CI's tree
run): a few boards of two architectures, each regenerating its
defconfig's .config byte for byte under KCONFIG_WERROR=1 (powerpc's
boards of configs/85xx/, named 85xx-NAME, and mpc5200; riscv's
configs/defconfig, named defconfig, and two nommu boards; openrisc's
six, smaller than their defconfigs on the base the import chose), the
levels
and the carrier found from each tree, the architectures' own *.config
fragments named, the hierarchy written inside the tree and used from
another copy of it, and kautobuild --fragments over a folder an
architecture with its JUnit and the CI fan-out by architecture.  Every
defconfig of every architecture is the slow test (IMPORT_ALL=1), "make
-f Kbuild.mk import-all KERNEL_VERSION=7.2" and kconfig-bench's part
"import".
"""

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
import yaml

from conftest import BUILD, KERNEL_VERSION, PATCHED, TOP

sys.path.insert(0, str(TOP / 'tools'))
from kbuildgate import ci, importer, kmake  # noqa: E402

# the 7.2 tree: CI's "check KERNEL_VERSION=7.2 CHECK_SET=tree" run
pytestmark = pytest.mark.skipif(
    KERNEL_VERSION != '7.2', reason='the boards and figures are those of '
    '7.2: KERNEL_VERSION=7.2')
TREE = PATCHED
TOOL = str(TOP / 'tools' / 'kconfig-fragment')
KAUTOBUILD = str(TOP / 'tools' / 'kautobuild')
# a few boards of a few architectures: the everyday tier
FEW = {
    'powerpc': ['85xx/tqm8540', '85xx/tqm8541', '85xx/tqm8555', 'mpc5200'],
    'riscv': ['defconfig', 'nommu_virt', 'nommu_k210'],
    # all six: on allnoconfig 507 lines against 451, now fewer
    'openrisc': ['de0_nano', 'de0_nano_multicore', 'or1klitex', 'or1ksim',
                 'simple_smp', 'virt'],
}
# each architecture's own symbol, which carries the selects
CARRIERS = {'alpha': 'ALPHA', 'arc': 'ARC', 'arm': 'ARM', 'arm64': 'ARM64',
            'csky': 'CSKY', 'hexagon': 'HEXAGON', 'loongarch': 'LOONGARCH',
            'm68k': 'M68K', 'microblaze': 'MICROBLAZE', 'mips': 'MIPS',
            'nios2': 'NIOS2', 'openrisc': 'OPENRISC', 'parisc': 'PARISC',
            'powerpc': 'PPC', 'riscv': 'RISCV', 's390': 'S390',
            'sh': 'SUPERH', 'sparc': 'SPARC', 'um': 'UML', 'x86': 'X86',
            'xtensa': 'XTENSA'}


@pytest.fixture(scope='module', autouse=True)
def tree(trees):
    if not (TREE / 'scripts' / 'kconfig' / 'conf.c').is_file():
        pytest.fail('%s is missing: make -f Kbuild.mk trees '
                    'KERNEL_VERSION=7.2' % TREE)


def run(*args, cwd=None):
    return subprocess.run([sys.executable] + [str(a) for a in args],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, cwd=cwd)


def do_import(tmp, arch, boards, *extra, srctree=TREE):
    out = tmp / 'out'
    ps = run(TOOL, 'import', '--srctree', srctree, '--arch', arch, '--out',
             out, '--work', tmp / 'work', '--json', tmp / 'import.json',
             *(list(extra) + list(boards)))
    report = json.loads((tmp / 'import.json').read_text()) \
        if ps.returncode in (0, 1) else None
    return out, ps, report


@pytest.fixture(scope='module')
def imported(tmp_path_factory):
    """FEW imported with --check, an architecture at a time."""
    res = {}
    for arch, boards in FEW.items():
        tmp = tmp_path_factory.mktemp('import-' + arch)
        res[arch] = do_import(tmp, arch, boards, '--check')
    return res


@pytest.mark.parametrize('arch', sorted(FEW))
def test_boards_regenerate_their_defconfigs(imported, arch):
    """Each board's fragment writes the .config of make ARCH=A
    NAME_defconfig, byte for byte, under KCONFIG_WERROR=1; the board of
    configs/85xx/tqm8540_defconfig is 85xx-tqm8540, configs/defconfig is
    defconfig."""
    out, ps, report = imported[arch]
    assert ps.returncode == 0, ps.stdout[-3000:]
    names = sorted(importer.board_name(b if b == 'defconfig' else
                                       b + '_defconfig') for b in FEW[arch])
    assert report['identical'] == names
    assert report['exceptions'] == {}
    for n in names:
        assert (out / ('Kconfig.' + n)).is_file()
        head = (out / ('Kconfig.' + n)).read_text().splitlines()[0]
        rel = n.replace('-', '/', 1) if arch == 'powerpc' and '-' in n \
            else n
        want = 'arch/%s/configs/%s' % (arch, rel if n == 'defconfig'
                                       else rel + '_defconfig')
        assert want in head
    assert 'kconfig-fragment: %s: check: %d of %d board(s)' % (
        arch, len(names), len(names)) in ps.stdout


def test_levels_found_from_each_tree(imported):
    """The levels are the tree's: powerpc's tqm85xx boards share the
    family of arch/powerpc/platforms/85xx, under the member of the
    "Processor Type" choice they have (PPC_85xx) when mpc5200 is not
    there; the carrier is each architecture's always-y symbol."""
    out, _, report = imported['powerpc']
    assert report['carrier'] == 'PPC'
    parents = {n: b['parent'] for n, b in report['boards'].items()}
    assert parents['85xx-tqm8540'] == parents['85xx-tqm8541'] == \
        parents['85xx-tqm8555'] != 'powerpc'
    levels = {lv['level'] for lv in report['levels']}
    assert 'platforms-85xx' in levels or 'ppc-85xx' in levels, levels
    assert imported['riscv'][2]['carrier'] == 'RISCV'
    # every file ends at the architecture's level, which sources Kconfig
    top = (out / 'Kconfig.powerpc').read_text()
    assert re.search(r'^source "Kconfig"$', top, re.M)


def test_a_board_on_the_tree_defaults(imported, tmp_path):
    """riscv's defconfig is unlike its nommu boards: on allnoconfig its
    fragment restated every default-y symbol of the tree, and riscv's
    hierarchy was larger than its defconfigs.  The import keeps it on
    alldefconfig, says so in its first lines, writes what is below its
    defaults in defconfig.config, and --check (above) regenerates it on
    that base; allnoconfig on the same files would not (its selects
    are unmet there: their menus are default-y symbols it leaves n)."""
    out, ps, report = imported['riscv']
    assert report['boards']['defconfig']['base'] == 'alldefconfig'
    assert report['lines'] < report['defconfig_lines']
    frag = out / 'Kconfig.defconfig'
    assert frag.read_text().splitlines()[1].startswith(
        '# kconfig-base: alldefconfig')
    assert kmake.fragment_base(str(frag)) == 'alldefconfig'
    assert re.search(r'^# CONFIG_\w+ is not set$',
                     (out / 'defconfig.config').read_text(), re.M)
    res = kmake.configure(TREE, tmp_path / 'o', 'riscv', 'allnoconfig',
                          werror=False, kconfig=str(frag),
                          allconfig=str(out / 'defconfig.config'))
    want = out.parent / 'work' / 'defconfigs' / 'defconfig' / '.config'
    assert res['returncode'] == 0, res['output'][-2000:]
    assert res['unmet'] > 0
    assert (tmp_path / 'o' / '.config').read_bytes() != want.read_bytes()


def test_every_openrisc_board_in_fewer_lines(imported):
    """openrisc's six defconfigs were 507 lines of fragments on
    allnoconfig against their 451; the import keeps the smaller base, and
    the whole architecture is fewer lines than its defconfigs, each
    board regenerated byte for byte (test_boards_regenerate_...)."""
    _, ps, report = imported['openrisc']
    assert ps.returncode == 0, ps.stdout[-3000:]
    assert report['defconfigs'] == 6
    assert report['defconfig_lines'] == report['all_defconfig_lines']
    assert report['lines'] < report['defconfig_lines']
    assert sum(report['bases'].values()) == 6


def test_every_architecture_and_its_carrier():
    """The 21 architectures of 7.2 with a defconfig, their 327
    defconfigs (subfolders too), and the always-y symbol of each that
    selects most."""
    arches = importer.tree_arches(str(TREE))
    assert {a: importer.tree_carrier(str(TREE), a) for a in arches} == \
        CARRIERS
    assert sum(len(importer.arch_configs(str(TREE), a)[0])
               for a in arches) == ALL_DEFCONFIGS
    assert importer.arch_configs(str(TREE), 'powerpc')[0][
        '85xx-tqm8540'] == '85xx/tqm8540_defconfig'


def test_config_fragments_named(imported):
    """powerpc's and riscv's own *.config fragments are named, each with
    its reason and the Makefile targets that merge it."""
    for arch in ('powerpc', 'riscv'):
        frags = imported[arch][2]['config_fragments']
        files = sorted(os.path.relpath(p, TREE) for p in
                       (TREE / 'arch' / arch / 'configs').rglob('*.config'))
        assert sorted(f['file'] for f in frags) == files
        assert all(f['reason'] for f in frags)
    le = [f for f in imported['powerpc'][2]['config_fragments']
          if f['file'].endswith('/le.config')]
    assert le and le[0]['used_by'], le


def shadow(tmp, name):
    """A copy of the tree made of symlinks, with arch/riscv/ a folder of
    its own, so that a hierarchy can be written inside it."""
    root = tmp / name
    (root / 'arch' / 'riscv').mkdir(parents=True)
    for p in TREE.iterdir():
        if p.name != 'arch':
            (root / p.name).symlink_to(p)
    for p in (TREE / 'arch').iterdir():
        if p.name != 'riscv':
            (root / 'arch' / p.name).symlink_to(p)
    for p in (TREE / 'arch' / 'riscv').iterdir():
        (root / 'arch' / 'riscv' / p.name).symlink_to(p)
    return root


def test_hierarchy_inside_the_tree_works_from_another_copy(tmp_path):
    """--out inside the tree: every source is relative to the tree, so the
    hierarchy, copied to the same place of another copy of the tree,
    regenerates the same .config there."""
    a, b = shadow(tmp_path, 'a'), shadow(tmp_path, 'b')
    out = a / 'arch' / 'riscv' / 'fragments'
    ps = run(TOOL, 'import', '--srctree', a, '--arch', 'riscv', '--out',
             out, '--work', tmp_path / 'work', '--check', 'nommu_virt',
             'nommu_k210', 'nommu_k210_sdcard')
    assert ps.returncode == 0, ps.stdout[-3000:]
    for f in out.iterdir():
        for src in re.findall(r'^source "([^"]+)"', f.read_text(), re.M):
            assert not os.path.isabs(src), (f, src)
            assert src == 'Kconfig' or src.startswith('arch/riscv/fragments/')
    dst = b / 'arch' / 'riscv' / 'fragments'
    dst.mkdir()
    for f in out.iterdir():
        (dst / f.name).write_text(f.read_text())
    want = tmp_path / 'work' / 'defconfigs' / 'nommu_k210_defconfig' / \
        '.config'
    res = kmake.configure(b, tmp_path / 'o', 'riscv', werror=True,
                          kconfig='arch/riscv/fragments/Kconfig.nommu_k210',
                          allconfig=str(dst / 'nommu_k210.config'))
    assert res['returncode'] == 0, res['output'][-2000:]
    assert (tmp_path / 'o' / '.config').read_bytes() == want.read_bytes()
    # and it is the copy that was read: without it, conf cannot start
    for f in dst.iterdir():
        f.unlink()
    res = kmake.configure(b, tmp_path / 'o2', 'riscv', werror=True,
                          kconfig='arch/riscv/fragments/Kconfig.nommu_k210')
    assert res['returncode'] != 0


def configure_cases(junit):
    """The boards of the configure test cases of the JUnit file @junit,
    sorted."""
    return sorted(c.get('classname') for c in
                  ET.parse(junit).getroot().iter('testcase')
                  if c.get('name') == 'configure')


def test_kautobuild_and_fanout_by_architecture(imported, tmp_path):
    """kautobuild --fragments over a folder an architecture: one kautobuild
    an architecture, its JSON and JUnit with a case for each board, the
    merge of them with every board; the GitLab and GitHub pipelines of
    the same folder have one job an architecture and pass the engines'
    schemas."""
    every = tmp_path / 'every'
    every.mkdir()
    for arch in ('powerpc', 'riscv'):
        (every / arch).symlink_to(imported[arch][0])
    results = []
    for arch in ('powerpc', 'riscv'):
        ps = run(KAUTOBUILD, '--config-only', '--srctree', TREE, '--arch',
                 arch, '--fragments', every / arch, '--out',
                 tmp_path / 'kb' / arch, '--json', tmp_path / (arch + '.json'),
                 '--junit', tmp_path / (arch + '.xml'))
        assert ps.returncode == 0, ps.stdout[-3000:]
        # a configure case a board, named ARCH/NAME
        assert configure_cases(tmp_path / (arch + '.xml')) == sorted(
            '%s/%s' % (arch, importer.board_name(
                b if b == 'defconfig' else b + '_defconfig'))
            for b in FEW[arch])
        results.append(tmp_path / (arch + '.json'))
    ps = run(KAUTOBUILD, '--merge', *results, '--junit', tmp_path / 'all.xml')
    assert ps.returncode == 0, ps.stdout
    assert len(configure_cases(tmp_path / 'all.xml')) == \
        len(FEW['riscv']) + len(FEW['powerpc'])
    # one kautobuild over the whole folder: boards named ARCH/NAME
    ps = run(KAUTOBUILD, '--list', '--srctree', TREE, '--fragments', every)
    assert ps.returncode == 0, ps.stdout
    listed = json.loads(ps.stdout)
    assert sorted(t['name'] for t in listed) == sorted(
        '%s/%s' % (a, importer.board_name(
            b if b == 'defconfig' else b + '_defconfig'))
        for a in ('powerpc', 'riscv') for b in FEW[a])
    assert {t['name']: t['arch'] for t in listed}[
        'powerpc/85xx-tqm8540'] == 'powerpc'
    schemas = BUILD / ci.SCHEMAS_TGZ
    for kind in ('gitlab', 'github'):
        ps = run(KAUTOBUILD, '--ci', kind, '--config-only', '--srctree', TREE,
                 '--fragments', every, '--ci-out', tmp_path / (kind + '.yml'),
                 '--ci-schemas', schemas)
        assert ps.returncode == 0, ps.stdout
        assert '2 architecture job(s), valid against' in ps.stdout
        text = (tmp_path / (kind + '.yml')).read_text()
        assert ci.validate(kind, text, schemas) == []
        doc = yaml.safe_load(text)
        if kind == 'gitlab':
            assert doc['gate']['parallel']['matrix'] == [
                {'KAUTOBUILD_ARCH': ['powerpc', 'riscv']}]
        else:
            assert doc['jobs']['gate']['strategy']['matrix'] == {
                'arch': ['powerpc', 'riscv']}
        assert 'kconfig-fragment" import' in text
        assert '--fragments "fragments/' in text


# 7.2's defconfigs: files and lines, of every architecture
ALL_DEFCONFIGS, ALL_LINES = 327, 55708


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get('IMPORT_ALL'),
                    reason='every defconfig of every architecture takes '
                    'about 30 minutes: IMPORT_ALL=1, or make -f Kbuild.mk '
                    'import-all KERNEL_VERSION=7.2')
def test_every_defconfig_of_every_architecture(tmp_path):
    """import --arch all --check: every defconfig of 7.2 regenerated byte
    for byte or named as an exception with its reason, every
    architecture with more than two defconfigs in fewer lines."""
    out = tmp_path / 'out'
    ps = run(TOOL, 'import', '--srctree', TREE, '--arch', 'all', '--out',
             out, '--work', tmp_path / 'work', '--check', '--json',
             tmp_path / 'all.json')
    assert ps.returncode in (0, 1), ps.stdout[-3000:]
    doc = json.loads((tmp_path / 'all.json').read_text())
    rows = doc['table']
    assert sum(r['defconfigs'] for r in rows) == ALL_DEFCONFIGS
    assert sum(r['lines_before'] for r in rows) <= ALL_LINES
    for arch, r in doc['arches'].items():
        assert all(why for why in r['exceptions'].values())
        assert len(r['identical']) + len(r['exceptions']) == \
            r['defconfigs'] + len(r['not_imported'])
        assert sorted(os.listdir(out / arch))
        if r['defconfigs'] > 2:
            assert r['lines'] < r['defconfig_lines'], arch
    assert ps.returncode == (1 if any(r['exceptions'] for r in
                                      doc['arches'].values()) else 0)

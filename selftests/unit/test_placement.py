# SPDX-License-Identifier: GPL-2.0
"""The importer's placement (placement.py): levels, selects in the
highest level that every board below needs, groups, defaults, and the
text of the files."""

from kbuildgate import placement


def boards():
    sel = lambda *s: {(x, 'y') for x in s}
    return {
        'a': {'family': 'pxa', 'cpu': 'cpu-v5', 'default': {},
              'select': sel('COMMON', 'PXA', 'A1')},
        'b': {'family': 'pxa', 'cpu': 'cpu-v5', 'default': {},
              'select': sel('COMMON', 'PXA', 'B1')},
        'c': {'family': 'qcom', 'cpu': 'cpu-v7', 'default': {},
              'select': sel('COMMON', 'C1')},
    }


def test_hierarchy_leaves_out_levels_of_one():
    nodes = placement.build_hierarchy(boards(), 'arm')
    assert nodes['arm'] == {'parent': None, 'boards': ['a', 'b', 'c']}
    # cpu-v5 holds the two pxa boards; a level of one board (cpu-v7,
    # mach-qcom) is left out, and mach-pxa would repeat cpu-v5
    assert nodes['cpu-v5'] == {'parent': 'arm', 'boards': ['a', 'b']}
    assert 'cpu-v7' not in nodes and 'qcom' not in nodes
    assert nodes['a']['parent'] == 'cpu-v5' and nodes['c']['parent'] == 'arm'


def test_each_select_in_one_level():
    b = boards()
    nodes = placement.place_selects(placement.build_hierarchy(b, 'arm'), b)
    assert nodes['arm']['select'] == {('COMMON', 'y')}
    assert nodes['cpu-v5']['select'] == {('PXA', 'y')}
    assert nodes['a']['select'] == {('A1', 'y')}
    assert nodes['c']['select'] == {('C1', 'y')}


def test_groups_take_what_boards_share():
    nodes = {'arm': {'parent': None, 'boards': ['a', 'b', 'c']}}
    shared = {('S%d' % i, 'y') for i in range(8)}
    for n in 'abc':
        nodes[n] = {'parent': 'arm', 'boards': [n], 'board': True,
                    'select': set(shared) | {(n.upper(), 'y')}}
    nodes['c']['select'] = {('C', 'y')}
    groups = placement.place_groups(nodes, min_saving=2)
    assert list(groups) == ['shared-a+b']
    assert groups['shared-a+b']['select'] == shared
    assert nodes['a']['groups'] == ['shared-a+b']
    assert nodes['a']['select'] == {('A', 'y')}
    assert nodes['c']['groups'] == []


def test_defaults_restated_where_every_board_allows():
    b = boards()
    for n in ('a', 'b'):
        b[n]['select'].add(('DEF', 'y'))
        b[n]['default']['DEF'] = ('y', 'n', 'y')
    nodes, placed, groups = placement.place(
        {k: dict(v, select=set(v['select'])) for k, v in b.items()}, 'arm',
        {'DEF': 'PXA'}, groups=False)
    # no board is below its default: the top level restates it
    assert placed['arm'] == {('DEF', 'PXA')}
    assert ('DEF', 'y') not in nodes['a']['select']
    # c has DEF below its default (n where the default gives y): only
    # the level under which every board allows it restates it
    b['c']['default']['DEF'] = ('n', 'n', 'y')
    nodes, placed, groups = placement.place(b, 'arm', {'DEF': 'PXA'},
                                            groups=False)
    assert 'arm' not in placed
    assert placed['cpu-v5'] == {('DEF', 'PXA')}
    assert ('DEF', 'y') not in nodes['a']['select']
    assert groups == {}


def test_parse_needs():
    need, conds = placement.parse_needs(
        'cond DEF PXA && MMU\nconfig /o/a.config\nselect A1 y\n'
        'select M1 m\nvalue HZ integer 100\nchoice CHOICE_A\n'
        'default DEF y n y\nconfig /o/b.config\ntristate-choice X\n')
    assert conds == {'DEF': 'PXA && MMU'}
    assert need['/o/a.config'] == {
        'select': {('A1', 'y'), ('M1', 'm')}, 'value': {'HZ': ('int', '100')},
        'choice': {'CHOICE_A'}, 'bad': [], 'default': {'DEF': ('y', 'n', 'y')},
        'below': {}, 'given': set()}
    assert need['/o/b.config']['bad'] == ['X']


def test_alldefconfig_base():
    """On alldefconfig a board selects only what its defaults do not
    give, and says in CONFIG what is below its default; on allnoconfig
    nothing changes."""
    need = placement.parse_needs(
        'config /o/a.config\nselect A y\nselect D y\ngiven D\n'
        'below OFF n\nbelow MOD m\nvalue HZ integer 100\n')[0]['/o/a.config']
    assert need['below'] == {'OFF': 'n', 'MOD': 'm'} and need['given'] == {'D'}
    assert placement.base_needs(need, 'allnoconfig') == (
        {('A', 'y'), ('D', 'y')}, {'HZ': ('int', '100')})
    assert placement.base_needs(need, 'alldefconfig') == (
        {('A', 'y')}, {'HZ': ('int', '100'), 'OFF': ('bool', 'n'),
                       'MOD': ('bool', 'm')})
    assert placement.config_text('a', 'D', dict(need, choice=set()),
                                 'alldefconfig') == (
        '# a: D, the choices and values of Kconfig.a\n'
        '# CONFIG_OFF is not set\nCONFIG_HZ=100\nCONFIG_MOD=m\n')
    assert placement.config_text('a', 'D', dict(need, choice=set())) == \
        '# a: D, the choices and values of Kconfig.a\nCONFIG_HZ=100\n'
    b = {'a': {'family': 'none', 'cpu': 'none', 'default': {},
               'select': {('A', 'y')}, 'base': 'alldefconfig'}}
    node = placement.build_hierarchy(b, 'x86')['a']
    assert node['base'] == 'alldefconfig'
    text = placement.fragment_text('a', dict(node, select={('A', 'y')}), {},
                                   '/out', '/tree', 'X86', set(), 'D')
    assert text.splitlines()[1] == \
        "# kconfig-base: alldefconfig (the tree's defaults stand)"


def test_levels_of():
    """The family defining most symbols at y, the member at y of the
    tree's dividing choice."""
    fam = {'PXA_A': 'mach-pxa', 'PXA_B': 'mach-pxa', 'QC': 'mach-qcom'}
    choice = ['PPC_BOOK3S_32', 'PPC_85xx']
    assert placement.levels_of({'PXA_A': 'y', 'PXA_B': 'y', 'QC': 'y',
                                'PPC_85xx': 'y'}, fam, choice) == \
        ('mach-pxa', 'ppc-85xx')
    assert placement.levels_of({}, fam) == ('none', 'none')
    # more than MULTI_FAMILIES families, none with half the symbols
    many = {'S%d' % i: 'f%d' % i for i in range(5)}
    assert placement.levels_of({s: 'y' for s in many}, many)[0] == 'multi'
    many['S5'] = 'f0'
    many['S6'] = 'f0'
    many['S7'] = 'f0'
    assert placement.levels_of({s: 'y' for s in many}, many)[0] == 'f0'


def test_level_named_as_a_board():
    """mips has ath79_defconfig and arch/mips/ath79/: the level gets
    '-level'."""
    sel = lambda *s: {(x, 'y') for x in s}
    b = {n: {'family': 'ath79', 'cpu': 'none', 'default': {},
             'select': sel('A')} for n in ('ath79', 'ath79b')}
    b['other'] = {'family': 'x', 'cpu': 'none', 'default': {},
                  'select': sel('B')}
    nodes = placement.build_hierarchy(b, 'mips')
    assert nodes['ath79'].get('board')
    assert nodes['ath79-level']['boards'] == ['ath79', 'ath79b']


def test_simplify():
    assert placement.simplify('HID_SUPPORT && HID && HID') == \
        'HID_SUPPORT && HID'
    assert placement.simplify('(A || B) && C && (A || B)') == \
        '(A || B) && C'
    # an || at the top: left as it is
    assert placement.simplify('A || B && B') == 'A || B && B'
    assert placement.simplify('y') == 'y'


def test_file_texts():
    assert placement.select_lines({('B', 'm'), ('A', 'y')}, {('D', 'X')}) \
        == '\tselect A\n\tselect B if m\n\tselect D if X\n'
    node = {'parent': 'arm', 'boards': ['a'], 'board': True,
            'select': {('A1', 'y')}, 'groups': []}
    text = placement.fragment_text('a', node, {}, '/out', '/tree', 'ARM',
                                   set(), 'arch/arm/configs/a_defconfig')
    assert text == ('# a: arch/arm/configs/a_defconfig, by "kconfig-fragment'
                    ' import"; do not edit\nsource "/out/Kconfig.arm"\n\n'
                    'config ARM\n\tselect A1\n')
    assert placement.config_text('a', 'D', {'choice': set(), 'value': {}}) \
        is None
    assert placement.config_text('a', 'D', {'choice': {'C'}, 'value': {
        'HZ': ('int', '100')}}) == '# a: D, the choices and values of ' \
        'Kconfig.a\nCONFIG_C=y\nCONFIG_HZ=100\n'


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_levels_and_carrier_from_a_tree(tmp_path):
    """importer.tree_levels(), tree_carrier(), choice_levels(), the board
    names: on a small arch/ folder of its own."""
    from kbuildgate import importer
    a = tmp_path / 'arch' / 'toy'
    write(a / 'Kconfig', 'config MMU\n\tbool\n\tdefault y\n\n'
          'config TOY\n\tdef_bool y\n\tselect A\n\tselect B if C || \\\n'
          '\t\tD\n\thelp\n\t  text\n\n'
          'choice\n\tprompt "Type"\nconfig T1\n\tbool "1"\n'
          'config T2\n\tbool "2"\nendchoice\n')
    write(a / 'platforms' / '85xx' / 'Kconfig', 'config P85\n\tbool "p"\n')
    write(a / 'platforms' / 'Kconfig.cputype', 'menuconfig CPUX\n\tbool\n')
    write(a / 'configs' / '85xx' / 'one_defconfig', '')
    write(a / 'configs' / 'defconfig', '')
    write(a / 'configs' / 'two_defconfig', '')
    write(a / 'configs' / 'le.config', '')
    fam, choices = importer.tree_levels(str(tmp_path), 'toy')
    assert fam == {'P85': 'platforms-85xx', 'CPUX': 'platforms-cputype'}
    assert choices == [['T1', 'T2']]
    # the always-y symbol that selects most
    assert importer.tree_carrier(str(tmp_path), 'toy') == 'TOY'
    assert importer.arch_configs(str(tmp_path), 'toy') == (
        {'85xx-one': '85xx/one_defconfig', 'defconfig': 'defconfig',
         'two': 'two_defconfig'}, ['le.config'])
    vals = {'a': {'T1': 'y'}, 'b': {'T1': 'y'}, 'c': {'T2': 'y'},
            'd': {'T2': 'y'}}
    assert importer.choice_levels(choices, vals) == [['T1', 'T2']]
    # one class of two boards does not divide them
    vals['c'] = vals['d'] = {'T1': 'y'}
    assert importer.choice_levels(choices, vals) == []


def test_bench_import_goals():
    """kconfig-bench's part "import": a missed goal is named (an arch
    with more than two defconfigs not smaller, an unchecked board, an
    exception without its reason, the time)."""
    from kbuildgate import bench_import

    def arch(**kw):
        r = {'defconfigs': 3, 'identical': ['a', 'b', 'c'],
             'exceptions': {}, 'not_imported': [], 'import_seconds': 10,
             'check_seconds': 20}
        r.update(kw)
        return r

    def row(name, n, before, after):
        return {'arch': name, 'defconfigs': n, 'lines_before': before,
                'lines_after': after}

    doc = {'arches': {'x': arch(), 'y': arch(
        defconfigs=2, identical=['a'], exceptions={'b': 'differs',
                                                   'c': 'refused'},
        not_imported=['c'])},
        'table': [row('x', 3, 100, 90), row('y', 3, 100, 80)]}
    assert bench_import.goals_of(doc) == []
    doc['table'][0]['lines_after'] = 100
    doc['arches']['y']['exceptions']['b'] = ''
    doc['arches']['x']['identical'] = ['a', 'b']
    doc['arches']['x']['import_seconds'] = bench_import.IMPORT_SECONDS
    assert bench_import.goals_of(doc) == [
        'x: 2 of 3 boards checked', 'y: exceptions without a reason: b',
        "x: 100 lines of fragments, not fewer than the defconfigs' 100",
        'import %d s > %d s' % (bench_import.IMPORT_SECONDS + 10,
                                bench_import.IMPORT_SECONDS)]

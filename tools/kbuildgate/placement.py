# SPDX-License-Identifier: GPL-2.0
"""placement - where "kconfig-fragment import" puts each select: the
pure algorithm of the importer (importer.py does the I/O).

From what each board needs beyond allnoconfig (parse_needs(), the
output of tools/import/kconfig-import), it builds the levels above the
boards (build_hierarchy(): the architecture, the CPU architectures, the
families), restates the tree's defaults where that saves lines
(place_defaults()), puts each select in the highest level under which
every board needs it (place_selects()), gathers what several boards
share beyond their levels in groups (place_groups()), and writes the
text of each file (fragment_text(), config_text()).  place() does it all.

It runs nothing and reads no file.
"""

import collections
import os

MULTI_FAMILIES = 3
# a group is worth a file of its own when it saves this many lines
GROUP_SAVING = 10


TRI = {'n': 0, 'm': 1, 'y': 2}


def place_defaults(nodes, arch, boards, conds):
    """Restate the tree's defaults where that saves lines: at the highest
    levels under which no board has a symbol below its default (the select
    would raise it), "select SYM if COND" stands for the selects of every
    board below whose value the default gives.  Those selects are taken
    out of boards[NAME]['select'].  Returns {level: {(SYM, COND)}}."""
    children = collections.defaultdict(list)
    for key, node in nodes.items():
        if node['parent']:
            children[node['parent']].append(key)
    placed = collections.defaultdict(set)

    def valid(n, sym):
        t, _, d = boards[n]['default'].get(sym, ('n', 'n', 'n'))
        return TRI[d] <= TRI[t]

    def covered(n, sym):
        t, r, d = boards[n]['default'].get(sym, ('n', 'n', 'n'))
        return (sym, t) in boards[n]['select'] and \
            max(TRI[r], TRI[d]) >= TRI[t]

    def walk(key, sym):
        below = nodes[key]['boards']
        if all(valid(n, sym) for n in below):
            saved = [n for n in below if covered(n, sym)]
            if len(saved) > 1:
                placed[key].add((sym, conds[sym]))
                for n in saved:
                    t = boards[n]['default'][sym][0]
                    boards[n]['select'].discard((sym, t))
            return
        for c in sorted(children[key]):
            walk(c, sym)

    for sym in sorted(conds):
        walk(arch, sym)
    return placed


def levels_of(vals, fam_of, choice=()):
    """The family and the choice level of a configuration: @vals is
    {SYM: value} of its .config, @fam_of {SYM: family} of the tree
    (importer.tree_levels(): the file of arch/ARCH/ that defines it, as
    mach-pxa or platforms-85xx), @choice the members of the tree's choice
    that divides the boards (importer.choice_level()).  Returns ('FAMILY',
    'LEVEL'): the family that defines most of the symbols at y ('multi'
    when more than MULTI_FAMILIES have some and none has half of them,
    'none' without one), and the member of @choice at y, lower-cased with
    '-' for '_' ('none' without one)."""
    count = collections.Counter(fam_of[s] for s, v in vals.items()
                                if v == 'y' and s in fam_of)
    if not count:
        family = 'none'
    else:
        family, most = sorted(count.items(), key=lambda kv: (-kv[1],
                                                             kv[0]))[0]
        if len(count) > MULTI_FAMILIES and 2 * most < sum(count.values()):
            family = 'multi'
    member = next((m for m in choice if vals.get(m) == 'y'), None)
    return family, (member or 'none').lower().replace('_', '-')


def build_hierarchy(boards, arch):
    """@boards: {name: {'family': f, 'cpu': c, ...}}.  Returns {file key:
    {'parent': key, 'boards': [...]}}, the keys being ARCH, the choice
    levels, the families (with the choice level when a family is under
    two) and the board names; a level named as a board gets '-level'."""
    tree = collections.defaultdict(lambda: collections.defaultdict(list))
    for name, b in boards.items():
        tree[b['cpu']][b['family']].append(name)
    cpus_of = collections.Counter(f for fams in tree.values() for f in fams)
    nodes = {arch: {'parent': None, 'boards': sorted(boards)}}

    def level(key):
        return key + '-level' if key in boards else key

    for cpu, fams in sorted(tree.items()):
        below = sorted(n for f in fams.values() for n in f)
        cparent = arch
        if len(below) > 1 and len(below) < len(boards):
            cparent = level(cpu)
            nodes[cparent] = {'parent': arch, 'boards': below}
        for fam, names in sorted(fams.items()):
            fparent = cparent
            if len(names) > 1 and len(names) < len(nodes[cparent]['boards']):
                fparent = level(fam + ('-' + cpu if cpus_of[fam] > 1
                                       else ''))
                nodes[fparent] = {'parent': cparent, 'boards': sorted(names)}
            for n in names:
                nodes[n] = {'parent': fparent, 'boards': [n], 'board': True,
                            'base': boards[n].get('base', 'allnoconfig')}
    return nodes


def place_selects(nodes, boards):
    """Each select in the one level where it belongs: the highest one under
    which every board needs it.  Fills each node's 'cum' (what every board
    under it needs) and 'select' (what it selects itself); returns
    @nodes."""
    for node in nodes.values():
        node['cum'] = set.intersection(*(boards[n]['select']
                                         for n in node['boards']))
    for key, node in nodes.items():
        p = node['parent']
        node['select'] = node['cum'] - (nodes[p]['cum'] if p else set())
    return nodes


def users_of(items, index):
    """The bit mask of the boards whose selects include all of @items."""
    mask = -1
    for it in items:
        mask &= index.get(it, 0)
        if not mask:
            break
    return mask


def best_group(seed, boards, sets, index, min_saving):
    """The group that saves most lines among those around board @seed:
    its selects shared with the boards most like it, one more board at a
    time.  Returns (saving, items, users mask) or None."""
    others = sorted((b for b in boards if b != seed),
                    key=lambda b: (-len(sets[seed] & sets[b]), b))
    items, best = set(sets[seed]), None
    for b in others:
        items &= sets[b]
        if len(items) < 2:
            break
        mask = users_of(items, index)
        u, k = bin(mask).count('1'), len(items)
        # the group's file: a header, the carrier, k selects; each user
        # trades its k selects for one source line
        saving = u * k - (k + 2) - u
        if saving >= min_saving and (not best or saving > best[0]):
            best = (saving, frozenset(items), mask)
    return best


def place_groups(nodes, min_saving=GROUP_SAVING, prefix='shared'):
    """What boards share beyond their levels, in groups: a group is a file
    of selects that each of its boards sources instead of carrying them.
    Greedy: in each round the groups that save most lines, around each
    board in turn, those whose boards no other group of the round takes;
    until no group saves @min_saving lines (fewer files: a group that
    saves a line or two is not worth a reader's look).  Returns {group key: node}; the boards'
    nodes get 'groups' and lose the selects."""
    boards = sorted(k for k, n in nodes.items() if n.get('board'))
    bit = {b: 1 << i for i, b in enumerate(boards)}
    sets = {b: set(nodes[b]['select']) for b in boards}
    groups, same = {}, {}
    while True:
        index = collections.defaultdict(int)
        for b in boards:
            for it in sets[b]:
                index[it] |= bit[b]
        cands = [g for g in (best_group(b, boards, sets, index,
                                        min_saving) for b in boards) if g]
        if not cands:
            break
        taken = 0
        for saving, items, mask in sorted(cands, key=lambda g: (
                -g[0], sorted(g[1]))):
            if mask & taken:
                continue
            taken |= mask
            users = [b for b in boards if bit[b] & mask]
            key = same.get(mask)
            if key:
                # the same boards again: one file for both
                groups[key]['select'] |= items
            else:
                key = '%s-%s+%s' % (prefix, users[0], users[1] if
                                    len(users) == 2 else len(users) - 1)
                n = 1
                while key + ('.%d' % n if n > 1 else '') in groups:
                    n += 1
                key += '.%d' % n if n > 1 else ''
                same[mask] = key
                groups[key] = {'parent': None, 'boards': users,
                               'select': set(items), 'group': True}
            for b in users:
                sets[b] -= items
                if key not in nodes[b].setdefault('groups', []):
                    nodes[b]['groups'].append(key)
    for b in boards:
        nodes[b]['select'] = sets[b]
        nodes[b]['groups'] = sorted(nodes[b].get('groups', ()))
    return groups


def source_path(path, srctree):
    """How a fragment names another in 'source': relative to the source
    tree when it is inside it, else absolute."""
    rel = os.path.relpath(path, srctree)
    return path if rel.startswith('..') else rel


def select_lines(selects, defaults=()):
    """The "select SYM [if m]" lines of @selects ({(SYM, y|m)}) and the
    "select SYM if COND" lines of @defaults ({(SYM, COND)}), sorted."""
    lines = [(s, ' if m' if lvl == 'm' else '') for s, lvl in selects]
    lines += [(s, '' if cond == 'y' else ' if ' + cond)
              for s, cond in defaults]
    return ''.join('\tselect %s%s\n' % l for l in sorted(lines))


def fragment_text(key, node, nodes, out, srctree, carrier, defaults,
                  defconfig=None):
    """A board, level or group file: a header line naming where it comes
    from, the level above and the groups it uses, and the selects (the
    make command is in docs/import.md)."""
    if node.get('board'):
        text = '# %s: %s, by "kconfig-fragment import"; do not edit\n' % (
            key, defconfig)
        if node.get('base', 'allnoconfig') != 'allnoconfig':
            text += '# kconfig-base: %s (the tree\'s defaults stand)\n' % \
                node['base']
    elif node.get('group'):
        text = '# %s: what %d boards share (%s), by "kconfig-fragment ' \
            'import"; do not edit\n' % (key, len(node['boards']),
                                        ' '.join(node['boards']))
        return text + 'config %s\n' % carrier + select_lines(node['select'])
    else:
        text = '# %s: the level of %s, by "kconfig-fragment import"; do ' \
            'not edit\n' % (key, 'every board' if not node['parent'] else
                             '%d boards (%s)' % (len(node['boards']),
                                                 ' '.join(node['boards'])))
    p = node['parent']
    text += 'source "%s"\n' % (source_path(os.path.join(
        out, 'Kconfig.' + p), srctree) if p else 'Kconfig')
    for g in node.get('groups', ()):
        text += 'source "%s"\n' % source_path(os.path.join(
            out, 'Kconfig.' + g), srctree)
    if node['select'] or defaults:
        text += '\nconfig %s\n' % carrier + select_lines(node['select'],
                                                         defaults)
    return text


def config_text(key, defconfig, need, base='allnoconfig'):
    """What the fragment cannot say in place, as KCONFIG_ALLCONFIG: the
    choice members, the values that are not their defaults, and a bool or
    tristate that a select would leave unmet (kconfig-import's "set");
    on the alldefconfig @base, each bool or tristate below its default
    too (base_needs()), n as "# CONFIG_SYM is not set"."""
    lines = ['CONFIG_%s=y\n' % s for s in sorted(need['choice'])]
    lines += ['# CONFIG_%s is not set\n' % s if v == ('bool', 'n') else
              'CONFIG_%s=%s\n' % (s, v[1])
              for s, v in sorted(base_needs(need, base)[1].items())]
    if not lines:
        return None
    return '# %s: %s, the choices and values of Kconfig.%s\n' % (
        key, defconfig, key) + ''.join(sorted(lines))


def top_level(cond, op):
    """The operands of @cond joined by @op (' && ' or ' || ') outside
    parentheses."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(cond):
        depth += {'(': 1, ')': -1}.get(c, 0)
        if depth == 0 and cond.startswith(op, i):
            parts.append(cond[start:i])
            start = i + len(op)
    return parts + [cond[start:]]


def simplify(cond):
    """@cond (kconfig-import's, in Kconfig's syntax) without a conjunct
    that it repeats: a default's condition and'ed with its menu's
    dependencies often names one symbol twice ("HID && HID")."""
    if len(top_level(cond, ' || ')) > 1:
        return cond
    terms = top_level(cond, ' && ')
    return ' && '.join(t for i, t in enumerate(terms) if t not in terms[:i])


def base_needs(need, base):
    """The selects and the CONFIG values of a board on the configuration
    target @base, from its kconfig-import @need: allnoconfig, the plan's
    (a visible prompt is n unless selected), needs every select and the
    values of config_text(); alldefconfig (the tree's defaults stand, as
    for a defconfig) needs no select of a symbol that its default gives
    ('given'), and says in CONFIG each symbol below its default
    ('below').  Returns ({(SYM, y|m)}, {SYM: (type, text)})."""
    selects, values = set(need.get('select', ())), dict(need['value'])
    if base == 'allnoconfig':
        return selects, values
    values.update((s, ('bool', lvl)) for s, lvl in
                  need.get('below', {}).items())
    given = need.get('given', set())
    return {(s, lvl) for s, lvl in selects if s not in given}, values


def parse_needs(text):
    """The output of tools/import/kconfig-import: {path: {'select':
    {(SYM, y|m)}, 'value': {SYM: (type, text)}, 'choice': {SYM}, 'bad':
    [SYM], 'default': {SYM: (T, R, D)}, 'below': {SYM: n|m}, 'given':
    {SYM}}} for each .config (base_needs() reads the last two), and {SYM:
    COND} for the symbols whose default a select can restate."""
    res, cur, conds = {}, None, {}
    for line in text.splitlines():
        word, _, rest = line.partition(' ')
        if word == 'config':
            cur = res[rest] = {'select': set(), 'value': {}, 'choice': set(),
                               'bad': [], 'default': {}, 'below': {},
                               'given': set()}
        elif word == 'cond':
            sym, cond = rest.split(' ', 1)
            conds[sym] = simplify(cond)
        elif word == 'default':
            sym, t, r, d = rest.split()
            cur['default'][sym] = (t, r, d)
        elif word == 'select':
            sym, level = rest.split()
            cur['select'].add((sym, level))
        elif word == 'value':
            sym, typ, text = rest.split(' ', 2)
            cur['value'][sym] = ({'integer': 'int'}.get(typ, typ), text)
        elif word == 'set':
            sym, level = rest.split()
            cur['value'][sym] = ('bool', level)
        elif word == 'below':
            sym, level = rest.split()
            cur['below'][sym] = level
        elif word == 'given':
            cur['given'].add(rest)
        elif word == 'choice':
            cur['choice'].add(rest)
        elif word == 'tristate-choice':
            cur['bad'].append(rest)
    return res, conds


def place(boards, arch, conds, groups=True, group_saving=GROUP_SAVING):
    """The whole placement: @boards {name: {'select', 'family', 'cpu',
    'default'}} (their selects are consumed), @conds the restatable
    defaults ({} for none).  Returns (nodes, placed, groups): every file's
    node (levels, boards and groups, the groups also in @groups),
    {level: {(SYM, COND)}} of restated defaults, and the groups."""
    nodes = build_hierarchy(boards, arch)
    placed = place_defaults(nodes, arch, boards, conds)
    place_selects(nodes, boards)
    shared = place_groups(nodes, group_saving) if groups else {}
    nodes.update(shared)
    return nodes, placed, shared

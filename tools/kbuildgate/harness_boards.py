# SPDX-License-Identifier: GPL-2.0
"""harness_boards - the "board" and "ablated" classes of the differential
harness: hints judged against what the tree's maintainers chose.

A board is one of the tree's defconfigs for the architecture: the board
fragment selects the defconfig's own =y lines (those that are candidates,
as for the "defconfig" size class, and that the defconfig's own .config
keeps: a line that it drops is stale, not the board's), its choice
members go into its .config (KCONFIG_ALLCONFIG), and an ablated board is
the same less its platform symbol.  The real board is the .config that the defconfig
gives ("make ARCH=... NAME_defconfig", run here as stock conf
--defconfig=arch/ARCH/configs/NAME), its =y and =m lines.  Each board is
judged on:

  clean1      clean after one round of the union hint (or clean as drawn)
  in_real     its union hint holds only symbols that the real board has
  named_back  (ablated boards with unmet selects) the union hint names the
              platform symbol that was taken out
  policy      the union hint holds a policy switch (POLICY) that the board
              does not select itself
  wrong_nofix "no select can meet it" on a symbol that the real board has:
              always wrong, the real configuration meets it

The platform symbol of a board is found from the tree, not from a list:
of the board's selects defined under arch/ARCH/ (by a "config" line
there), the one that the most "depends on X || COMPILE_TEST" lines
outside arch/ name (the drivers of that platform, build-tested
elsewhere): ARCH_QCOM on qcom_defconfig, ARCH_EXYNOS on
exynos_defconfig.  A board without one has no ablated form.

It runs conf through harness_conf.Conf, and reads the tree.
"""

import collections
import os
import re

# switches that unlock options rather than enable hardware: a board
# should not select them unless it does so itself
POLICY = ('COMPILE_TEST', 'EXPERT')
BOARD_CLASSES = ('board', 'ablated')

_mentions = {}


def _kconfig_files(top):
    """The Kconfig files under @top."""
    for d, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if not x.startswith('.')]
        for name in files:
            if name.startswith('Kconfig'):
                yield os.path.join(d, name)


def arch_defined(tree, arch):
    """The symbols that a "config" line under arch/@arch/ defines."""
    out = set()
    for path in _kconfig_files(os.path.join(tree, 'arch', arch)):
        with open(path, errors='replace') as f:
            out.update(re.findall(r'^\s*(?:menu)?config\s+(\w+)\s*$',
                                  f.read(), re.M))
    return out


def depends_mentions(tree):
    """{symbol: how many "depends on" lines outside arch/ that name
    COMPILE_TEST name it}"""
    if tree in _mentions:
        return _mentions[tree]
    n = collections.Counter()
    for top in sorted(os.listdir(tree)):
        if top == 'arch' or not os.path.isdir(os.path.join(tree, top)):
            continue
        for path in _kconfig_files(os.path.join(tree, top)):
            with open(path, errors='replace') as f:
                for m in re.finditer(r'^\s*depends\s+on\s+(.*\bCOMPILE_TEST'
                                     r'\b.*)$', f.read(), re.M):
                    n.update(set(re.findall(r'\b[A-Z][A-Z0-9_]+\b',
                                            m.group(1))))
    _mentions[tree] = n
    return n


def platform_symbol(tree, arch, selects):
    """The platform symbol of a board that selects @selects, or None."""
    defined = arch_defined(tree, arch)
    n = depends_mentions(tree)
    cands = [s for s in selects if s in defined and n[s]]
    return max(cands, key=lambda s: (n[s], s)) if cands else None


def board_frags(tree, arch, defconfigs, choices, seed, count):
    """The fragments of the board classes: every defconfig of
    @defconfigs ({name: selects}), the first @count in name order, as a
    board, and as an ablated board when it has a platform symbol.  The
    choice members that a defconfig sets (@choices, {name: lines}) are
    its board's .config (KCONFIG_ALLCONFIG): a select cannot set them."""
    out = []
    for name in sorted(defconfigs)[:count]:
        sel = defconfigs[name]
        plat = platform_symbol(tree, arch, sel)
        base = {'arch': arch, 'seed': seed, 'defconfig': name,
                'platform': plat, 'kconfig_seed': 1,
                'allconfig': choices.get(name, [])}
        out.append(dict(base, size='board', selects=list(sel)))
        if plat:
            out.append(dict(base, size='ablated',
                            selects=[s for s in sel if s != plat]))
    for i, f in enumerate(out):
        f['index'] = i
    return out


_real = {}


def real_board(stock, name, rundir):
    """The =y and =m symbols of the .config that defconfig @name gives,
    with @stock's conf."""
    key = (stock.tree, stock.arch, name)
    if key not in _real:
        path = os.path.join(stock.tree, 'arch', stock.arch, 'configs', name)
        run = stock.run(os.path.join(stock.tree, 'Kconfig'),
                        'defconfig=' + path, rundir)
        if run.rc or run.config is None:
            _real[key] = None
        else:
            _real[key] = set(x.decode() for x in re.findall(
                rb'^CONFIG_(\w+)=[ym]$', run.config, re.M))
    return _real[key]


def real_selects(stock, frag, rundir):
    """@frag less the selects that its real board does not have: a =y
    line of a defconfig that its own .config drops (the defconfig is
    stale) is not the board's.  They are kept as "stale"."""
    real = real_board(stock, frag['defconfig'], rundir)
    if real is None:
        return frag
    return dict(frag, selects=[s for s in frag['selects'] if s in real],
                stale=[s for s in frag['selects'] if s not in real])


def judge(res, stock, frag, report, rundir):
    """Add the board figures of @frag to its result @res, from the JSON
    @report of its first allnoconfig run."""
    real = real_board(stock, frag['defconfig'], rundir)
    if real is None:
        res['board_error'] = rundir
        return
    union = report['hint']
    sel = set(frag['selects'])
    res['board'] = b = {
        'union': union,
        'clean1': res['clean_after'] in (1,) or not report['unmet'],
        'in_real': all(h in real for h in union),
        'not_in_real': [h for h in union if h not in real],
        'policy': [h for h in union if h in POLICY and h not in sel],
        'wrong_nofix': [u['symbol'] for u in report['unmet']
                        if not u['can_fix'] and u['symbol'] in real],
    }
    if frag['size'] == 'ablated' and report['unmet']:
        b['named_back'] = frag['platform'] in union


BOARD_ROWS = (('boards', 'boards'),
              ('with_unmet', 'with unmet selects as drawn'),
              ('clean1_pct', 'clean after 1 round of the union, %'),
              ('in_real_pct', 'union hint all in the real .config, %'),
              ('named_back_pct', 'platform named back (ablated), %'),
              ('policy', 'union hints with COMPILE_TEST/EXPERT'),
              ('wrong_nofix', 'wrong "no select can meet it"'))

# (key, operator, threshold) of each class
BOARD_GOALS = (('clean1_pct', '>=', 95.0), ('in_real_pct', '>=', 90.0),
               ('named_back_pct', '>=', 90.0), ('policy', '==', 0),
               ('wrong_nofix', '==', 0))


def board_summary(results):
    """The figures of BOARD_ROWS for the board results @results."""
    rs = [r for r in results if 'board' in r]
    n = collections.Counter()
    for r in rs:
        b = r['board']
        n['boards'] += 1
        n['with_unmet'] += r.get('unmet', 0) > 0
        n['clean1'] += b['clean1']
        n['in_real'] += b['in_real']
        n['policy'] += bool(b['policy'])
        n['wrong_nofix'] += len(b['wrong_nofix'])
        if 'named_back' in b:
            n['ablated_unmet'] += 1
            n['named_back'] += b['named_back']
    s = dict(n)

    def pct(a, d):
        return round(100.0 * n[a] / n[d], 1) if n[d] else 100.0
    s['clean1_pct'] = pct('clean1', 'boards')
    s['in_real_pct'] = pct('in_real', 'boards')
    s['named_back_pct'] = pct('named_back', 'ablated_unmet')
    s['errors'] = sum('board_error' in r for r in results)
    return s


def print_boards(results, archs):
    """Print the board figures per architecture and class; return
    (figures by "ARCH CLASS", the goals that failed, how many were
    checked)."""
    out, failed = {}, []
    cols = ['%s %s' % (a, c) for a in archs for c in BOARD_CLASSES]
    for a in archs:
        for c in BOARD_CLASSES:
            out['%s %s' % (a, c)] = board_summary(
                [r for r in results if r['arch'] == a and r['size'] == c])
    cols = [c for c in cols if out[c].get('boards')]
    if not cols:
        return out, failed, 0
    print('%-40s' % 'real boards' + ''.join('%14s' % c for c in cols))
    for key, what in BOARD_ROWS:
        print('%-40s' % what + ''.join('%14s' % out[c].get(key, 0)
                                       for c in cols))
    for c in cols:
        for key, op, limit in BOARD_GOALS:
            v = out[c].get(key, 0)
            if not (v == limit if op == '==' else v >= limit):
                failed.append(('%s[%s]' % (key, c),))
    return out, failed, len(cols) * len(BOARD_GOALS)


def board_findings(results):
    """{kind: [lines]} of the board classes' findings."""
    kinds = collections.defaultdict(list)
    for r in results:
        b = r.get('board')
        if not b:
            continue
        where = '%s %s %s' % (r['arch'], r['size'], r['defconfig'])
        if b['policy']:
            kinds['board: union hint with a policy switch'].append(
                '%s: %s' % (where, ' '.join(b['union'])))
        if b['not_in_real']:
            kinds['board: union hint not in the real .config'].append(
                '%s: %s' % (where, ' '.join(b['not_in_real'])))
        if not b['clean1']:
            kinds['board: not clean after 1 round'].append(
                '%s: union %s' % (where, ' '.join(b['union'])))
        if b.get('named_back') is False:
            kinds['board: platform not named back'].append(
                '%s: %s; union %s' % (where, r['platform'],
                                      ' '.join(b['union'])))
        for s in b['wrong_nofix']:
            kinds['board: wrong "no select can meet it"'].append(
                '%s: %s' % (where, s))
    return kinds

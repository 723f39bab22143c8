# SPDX-License-Identifier: GPL-2.0
"""importer - "kconfig-fragment import": every defconfig as a board
fragment in a hierarchy of Kconfig files that regenerates its .config.

  kconfig-fragment import --srctree TREE --arch ARCH --out DIR
                          [--check] [--json FILE] [DEFCONFIG...]

DEFCONFIG is a name of arch/ARCH/configs/ (with or without _defconfig);
without any, every defconfig of the architecture.

Steps:

  1. configure every defconfig in one "make batchconfig" (kautobuild's
     configure step, kconfig.py), for its .config and its dropped
     requests;
  2. run tools/import/kconfig-import (built against the tree's kconfig by
     tools/audit/build --tool import) on all the .config files, one parse:
     it prints, for each, the symbols that "make allnoconfig" would not
     give by itself (a visible prompt is n there unless selected): the
     bool/tristate symbols at y or m above what the tree's own selects
     give them, the int/hex/string values that are not their default,
     and the choice members that are not their choice's default;
  3. group the boards into levels found from the tree: the family (the
     arch/ARCH/mach-* folder that defines most of the symbols a
     configuration has at y; "multi" when it enables more than
     MULTI_FAMILIES of them), then the CPU architectures (the CPU_32v*
     symbols at y), then the architecture; a level with one child is left
     out.  Each level selects what every board below it needs, and no
     more;
  4. what several boards share beyond their levels goes in a group,
     DIR/Kconfig.shared-..., that each of them sources (greedy: the
     groups that save most lines first; --no-groups leaves them out);
     the rest is the board's own;
  5. write DIR/Kconfig.NAME, DIR/Kconfig.<level>, the groups, and
     DIR/NAME.config where a board needs one; a file whose text is unchanged is not
     rewritten, and the files of an earlier import that this one does
     not write (their first line says so) are removed.

The selects are those of a redefinition of the architecture's symbol
(config ARM), written after 'source': a symbol of the fragment's own, or
a redefinition before the tree, would be written to .config (at the top)
and the .config would not be the defconfig's.  A module is "select SYM
if m": the select's value is ARM && m, that is m.  An int, hex or
string value that is not its default goes in NAME.config with the choice
members: a "default" line in the fragment wins over the tree's (it comes
first) but moves the symbol's line to the top of .config.

With --check, each board is configured as

  make ARCH=ARCH KBUILD_KCONFIG=DIR/Kconfig.NAME [KCONFIG_ALLCONFIG=DIR/NAME.config] allnoconfig

under KCONFIG_WERROR=1 and its .config compared, byte for byte, with the
defconfig's.

Exit status: 0 done (and, with --check, every board identical), 1 some
board differs or fails, 2 usage or tree error.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time
import types

from . import util
from .boards import Target
from .kconfig import dropped_lines
from .run import Run
from .sanitize import SetupError, build_conf

MULTI_FAMILIES = 3
# a group is worth a file of its own when it saves this many lines
GROUP_SAVING = 10


class Error(Exception):
    """A usage or infrastructure error: exit 2."""


def log(msg):
    print('kconfig-fragment: %s' % msg, file=sys.stderr, flush=True)


def run_args(jobs):
    return types.SimpleNamespace(force=False, fail_on_dropped=False,
                                 no_batch=False, jobs=jobs, audit=False,
                                 config_only=True)


def configure_defconfigs(srctree, arch, out, names):
    """Every defconfig in one batch: {name: (.config, dropped entries)}."""
    run = Run(run_args(os.cpu_count() or 1), srctree, out)
    if not run.batch:
        raise Error('%s has no "make batchconfig": is the series applied?'
                    % srctree)
    targets = [Target(n + '_defconfig', 'defconfig', arch,
                      defconfig=n + '_defconfig') for n in names]
    for t in targets:
        t.result = {'steps': {}}
    done = {}
    for t, res in run.configure_batch(targets):
        if res['status'] != 'PASS' or not t.result['config']:
            raise Error('%s: configure failed: %s' % (
                t.name, res.get('reason', '').splitlines()[:1]))
        done[t.name[:-len('_defconfig')]] = (t.result['config'],
                                             t.result['dropped'])
    return done


def helper(srctree, arch, cache):
    """tools/import/kconfig-import for @srctree, and conf's environment."""
    prog = os.path.join(cache, 'bin', 'kconfig-import')
    srcs = [os.path.join(util.TOP, 'tools', 'import', 'kconfig-import.c')]
    kc = os.path.join(srctree, 'scripts', 'kconfig')
    srcs += [os.path.join(kc, f) for f in os.listdir(kc)
             if f.endswith(('.c', '.h', '.y', '.l'))]
    if not (os.path.exists(prog) and all(
            os.stat(f).st_mtime_ns < os.stat(prog).st_mtime_ns
            for f in srcs)):
        ps = subprocess.run([os.path.join(util.TOP, 'tools', 'audit',
                                          'build'), '--tool', 'import',
                             '--srctree', srctree, '--out',
                             os.path.dirname(prog)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
        if ps.returncode:
            raise Error(ps.stderr.strip() or 'tools/audit/build failed')
    envfile = os.path.join(cache, 'conf-env.json')
    try:
        with open(envfile) as f:
            env = json.load(f)
        if env.get('srctree') != srctree:
            raise ValueError
    except (OSError, ValueError):
        from pathlib import Path
        try:
            env = build_conf(Path(srctree), Path(cache) / 'conf', arch,
                             None, None)
        except SetupError as e:
            raise Error(str(e))
        util.write_atomic(envfile, json.dumps(env, sort_keys=True))
    return prog, env


def needs(prog, env, srctree, configs):
    """What each .config needs beyond allnoconfig, from kconfig-import:
    {path: {'select': {(SYM, y|m)}, 'value': {SYM: (type, text)},
    'choice': {SYM}, 'bad': [SYM], 'default': {SYM: (T, R, D)}}}, and
    {SYM: COND} for the symbols whose default a select can restate."""
    ps = subprocess.run([prog, 'Kconfig'] + list(configs), cwd=srctree,
                        env=dict(env, PATH=os.environ.get('PATH', '')),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
    if ps.returncode:
        raise Error('kconfig-import failed:\n%s' % ps.stderr[-2000:])
    res, cur, conds = {}, None, {}
    for line in ps.stdout.splitlines():
        word, _, rest = line.partition(' ')
        if word == 'config':
            cur = res[rest] = {'select': set(), 'value': {}, 'choice': set(),
                               'bad': [], 'default': {}}
        elif word == 'cond':
            sym, cond = rest.split(' ', 1)
            conds[sym] = cond
        elif word == 'default':
            sym, t, r, d = rest.split()
            cur['default'][sym] = (t, r, d)
        elif word == 'select':
            sym, level = rest.split()
            cur['select'].add((sym, level))
        elif word == 'value':
            sym, typ, text = rest.split(' ', 2)
            cur['value'][sym] = ({'integer': 'int'}.get(typ, typ), text)
        elif word == 'choice':
            cur['choice'].add(rest)
        elif word == 'tristate-choice':
            cur['bad'].append(rest)
    return res, conds


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


def tree_families(srctree, arch):
    """{symbol: mach-* folder} for the symbols that arch/ARCH/mach-*/Kconfig
    define."""
    fam = {}
    adir = os.path.join(srctree, 'arch', arch)
    for d in sorted(os.listdir(adir)):
        k = os.path.join(adir, d, 'Kconfig')
        if not d.startswith('mach-') or not os.path.isfile(k):
            continue
        with open(k, errors='replace') as f:
            for m in re.finditer(r'^\s*(?:menu)?config\s+(\w+)', f.read(),
                                 re.M):
                fam.setdefault(m.group(1), d[len('mach-'):])
    return fam


def read_config(path):
    vals = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'CONFIG_(\w+)=(.*)', line)
            if m:
                vals[m.group(1)] = m.group(2)
    return vals


def levels_of(config, fam_of):
    """The family and the CPU architecture of a .config, from the tree."""
    vals = read_config(config)
    count = collections.Counter(fam_of[s] for s, v in vals.items()
                                if v == 'y' and s in fam_of)
    if not count:
        family = 'none'
    elif len(count) > MULTI_FAMILIES:
        family = 'multi'
    else:
        family = sorted(count.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    cpus = sorted(s[len('CPU_32'):].lower() for s, v in vals.items()
                  if re.match(r'CPU_32v\w+$', s) and v == 'y')
    return family, 'cpu-' + ('-'.join(cpus) or 'none')


def build_hierarchy(boards, arch):
    """@boards: {name: {'family': f, 'cpu': c, ...}}.  Returns {file key:
    {'parent': key, 'boards': [...]}}, the keys being ARCH, 'cpu-...',
    'mach-...' and the board names."""
    tree = collections.defaultdict(lambda: collections.defaultdict(list))
    for name, b in boards.items():
        tree[b['cpu']][b['family']].append(name)
    cpus_of = collections.Counter(f for fams in tree.values() for f in fams)
    nodes = {arch: {'parent': None, 'boards': sorted(boards)}}
    for cpu, fams in sorted(tree.items()):
        below = sorted(n for f in fams.values() for n in f)
        cparent = arch
        if len(below) > 1 and len(below) < len(boards):
            nodes[cpu] = {'parent': arch, 'boards': below}
            cparent = cpu
        for fam, names in sorted(fams.items()):
            fparent = cparent
            if len(names) > 1 and len(names) < len(nodes[cparent]['boards']):
                key = 'mach-' + fam + ('-' + cpu if cpus_of[fam] > 1 else '')
                nodes[key] = {'parent': cparent, 'boards': sorted(names)}
                fparent = key
            for n in names:
                nodes[n] = {'parent': fparent, 'boards': [n], 'board': True}
    return nodes


def place_selects(nodes, boards):
    """Each select in the one level where it belongs: the highest one under
    which every board needs it."""
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


def config_text(key, defconfig, need):
    """What the fragment cannot say in place, as KCONFIG_ALLCONFIG: the
    choice members and the values that are not their defaults."""
    lines = ['CONFIG_%s=y\n' % s for s in sorted(need['choice'])]
    lines += ['CONFIG_%s=%s\n' % (s, v[1])
              for s, v in sorted(need['value'].items())]
    if not lines:
        return None
    return '# %s: %s, the choices and values of Kconfig.%s\n' % (
        key, defconfig, key) + ''.join(sorted(lines))


def remove_stale(out, files):
    """Remove what an earlier import wrote in @out and this one did not:
    its levels no longer fit the boards it left out.  Only files whose
    first line is an import's header are touched."""
    removed = 0
    for f in sorted(os.listdir(out)):
        path = os.path.join(out, f)
        if path in files or not (f.startswith('Kconfig.') or
                                 f.endswith('.config')):
            continue
        with open(path, errors='replace') as fh:
            first = fh.readline()
        if 'by "kconfig-fragment import"' in first or \
                re.match(r'# \S+: arch/\w+/configs/\S+_defconfig, the choices '
                         r'and values of Kconfig\.', first):
            os.unlink(path)
            removed += 1
    return removed


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return False
    except OSError:
        pass
    util.write_atomic(path, text)
    return True


def check_boards(srctree, arch, out, work, names, configs):
    """Configure each board under KCONFIG_WERROR=1 (kautobuild's configure
    step, one process a board) and compare its .config, byte for byte.
    Returns {name: None (identical) or the reason}."""
    run = Run(run_args(os.cpu_count() or 1), srctree, work)
    run.env['KCONFIG_WERROR'] = '1'
    res = {}
    import concurrent.futures
    targets = []
    for n in names:
        cf = os.path.join(out, n + '.config')
        t = Target('check-' + n, 'fragment', arch,
                   fragment=os.path.join(out, 'Kconfig.' + n),
                   config_fragment=cf if os.path.isfile(cf) else None)
        t.result = {'steps': {}}
        targets.append((n, t))
    with concurrent.futures.ThreadPoolExecutor(
            max_workers=os.cpu_count() or 1) as pool:
        futs = {pool.submit(run.configure_one, t): (n, t)
                for n, t in targets}
        for fut in concurrent.futures.as_completed(futs):
            n, t = futs[fut]
            r = fut.result()
            got = os.path.join(work, t.name, '.config')
            if r['status'] != 'PASS' or not os.path.isfile(got):
                res[n] = 'configure failed: %s' % (
                    r.get('reason') or r['log'])
                continue
            with open(got, 'rb') as a, open(configs[n], 'rb') as b:
                res[n] = None if a.read() == b.read() else \
                    '.config differs from the defconfig\'s (%s)' % got
    return res


def import_all(args):
    srctree = os.path.abspath(args.srctree)
    if not os.path.isfile(os.path.join(srctree, 'scripts/kconfig/conf.c')):
        raise Error('%s is not a kernel tree' % srctree)
    if args.group_saving < 1:
        raise Error('--group-saving %d: a group must save at least 1 line'
                    % args.group_saving)
    arch = args.arch
    cfgdir = os.path.join(srctree, 'arch', arch, 'configs')
    names = sorted(re.sub(r'_defconfig$', '', os.path.basename(d))
                   for d in args.defconfigs) if args.defconfigs else \
        sorted(f[:-len('_defconfig')] for f in os.listdir(cfgdir)
               if f.endswith('_defconfig'))
    for n in names:
        if not os.path.isfile(os.path.join(cfgdir, n + '_defconfig')):
            raise Error('%s_defconfig: not in arch/%s/configs/' % (n, arch))
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    work = os.path.abspath(args.work or os.path.join(
        util.TREES, 'out', 'import', arch))
    carrier = args.carrier or arch.upper()
    start = time.monotonic()

    configured = configure_defconfigs(srctree, arch, os.path.join(
        work, 'defconfigs'), names)
    prog, env = helper(srctree, arch, os.path.join(work, 'helper'))
    configs = {n: configured[n][0] for n in names}
    need, conds = needs(prog, env, srctree, [configs[n] for n in names])
    if args.no_defaults:
        conds = {}
    fam_of = tree_families(srctree, arch)
    boards = {}
    for n in names:
        nd = need[configs[n]]
        if nd['bad']:
            raise Error('%s: members of a choice in m mode, which a fragment '
                        'cannot set: %s' % (n, ' '.join(nd['bad'])))
        family, cpu = levels_of(configs[n], fam_of)
        boards[n] = {'select': set(nd['select']), 'family': family,
                     'cpu': cpu, 'default': nd['default']}
    flat = sum(len(b['select']) for b in boards.values())
    nodes = build_hierarchy(boards, arch)
    placed = place_defaults(nodes, arch, boards, conds)
    place_selects(nodes, boards)
    groups = {} if args.no_groups else place_groups(nodes,
                                                     args.group_saving)
    nodes.update(groups)

    written, files = 0, {}
    for key, node in sorted(nodes.items()):
        cfg = None
        if node.get('board'):
            ctext = config_text(key, 'arch/%s/configs/%s_defconfig' % (
                arch, key), need[configs[key]])
            cfg = os.path.join(out, key + '.config')
            if ctext:
                files[cfg] = ctext
            else:
                if os.path.exists(cfg):
                    os.unlink(cfg)
                cfg = None
        files[os.path.join(out, 'Kconfig.' + key)] = fragment_text(
            key, node, nodes, out, srctree, carrier, placed[key],
            'arch/%s/configs/%s_defconfig' % (arch, key))
    for path, text in sorted(files.items()):
        written += write_if_changed(path, text)
    removed = remove_stale(out, files)
    seconds = time.monotonic() - start

    # the figures
    dropped = {n: configured[n][1] for n in names}
    for n in names:
        for line in dropped_lines(dropped[n]):
            print(line)
    defconfig_lines = sum(1 for n in names for _ in open(
        os.path.join(cfgdir, n + '_defconfig')))
    lines = {os.path.basename(p): t.count('\n') for p, t in files.items()}
    shape = []
    for key, node in sorted(nodes.items()):
        if node.get('board') or node.get('group'):
            continue
        shape.append({'level': key, 'parent': node['parent'],
                      'boards': len(node['boards']),
                      'selects': len(node['select']),
                      'defaults': len(placed[key]),
                      'lines': lines['Kconfig.' + key]})
    report = {
        'srctree': srctree, 'arch': arch, 'out': out,
        'defconfigs': len(names), 'defconfig_lines': defconfig_lines,
        'lines': sum(lines.values()),
        'select_lines': sum(len(n['select']) for n in nodes.values()),
        'default_lines': sum(len(p) for p in placed.values()),
        'flat_selects': flat,
        'config_files': sum(1 for p in files if p.endswith('.config')),
        'levels': shape,
        'groups': [{'group': k, 'boards': g['boards'],
                    'selects': len(g['select']),
                    'lines': lines['Kconfig.' + k]}
                   for k, g in sorted(groups.items())],
        'boards': {n: {'parent': nodes[n]['parent'],
                       'groups': nodes[n].get('groups', []),
                       'selects': len(nodes[n]['select']),
                       'defaults': len(placed[n]),
                       'lines': lines['Kconfig.' + n] + lines.get(
                           n + '.config', 0),
                       'dropped': [{'line': d.get('line'),
                                    'symbol': d.get('symbol'),
                                    'requested': d.get('requested'),
                                    'kind': d.get('kind')}
                                   for d in dropped[n]]}
                   for n in names},
        'dropped': sum(len(d) for d in dropped.values()),
        'dropped_files': sum(1 for d in dropped.values() if d),
        'files_written': written, 'files_removed': removed,
        'import_seconds': round(seconds, 1),
    }
    print('kconfig-fragment: import: %d defconfig(s), %d lines -> %d lines '
          'in %d files (%d levels, %d groups), %d select(s) and %d restated default(s) (%d flat selects), %d dropped '
          'request(s) in %d defconfig(s), %d file(s) written, %d removed, %.1f s' % (
              len(names), defconfig_lines, report['lines'], len(files),
              len(shape), len(groups), report['select_lines'], report['default_lines'],
              report['flat_selects'],
              report['dropped'], report['dropped_files'], written, removed,
              seconds),
          flush=True)
    ret = 0
    if args.check:
        start = time.monotonic()
        res = check_boards(srctree, arch, out, os.path.join(work, 'check'),
                           names, configs)
        report['check_seconds'] = round(time.monotonic() - start, 1)
        report['identical'] = sorted(n for n, r in res.items() if r is None)
        report['exceptions'] = {n: r for n, r in sorted(res.items()) if r}
        for n, r in sorted(res.items()):
            if r:
                print('%s: %s' % (os.path.join(out, 'Kconfig.' + n), r))
        print('kconfig-fragment: check: %d of %d board(s) regenerate their '
              'defconfig\'s .config byte for byte, %.1f s' % (
                  len(report['identical']), len(names),
                  report['check_seconds']), flush=True)
        ret = 1 if report['exceptions'] else 0
    if args.json:
        util.write_atomic(args.json, json.dumps(report, indent=2) + '\n')
    return ret


def add_parser(sub):
    p = sub.add_parser('import', help='every defconfig as a board fragment '
                       'in a hierarchy (see tools/kbuildgate/importer.py)',
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--srctree', default=os.environ.get('KERNEL_SRC') or
                   os.path.join(util.TREES, 'patched'))
    p.add_argument('--arch', default='arm')
    p.add_argument('--out', required=True, help='the folder of the fragments')
    p.add_argument('--work', help='where the configurations are made '
                   '(default: build/out/import/ARCH)')
    p.add_argument('--carrier', help='the always-y symbol whose '
                   'redefinitions carry the selects (default: ARCH '
                   'upper-cased)')
    p.add_argument('--no-defaults', action='store_true',
                   help='do not restate defaults as "select SYM if COND": '
                   'plain selects only')
    p.add_argument('--no-groups', action='store_true',
                   help='no shared groups: what a board needs beyond its '
                   'levels stays in its own file')
    p.add_argument('--group-saving', type=int, default=GROUP_SAVING,
                   metavar='LINES', help='make a group only where it saves '
                   'at least LINES lines (default %(default)s)')
    p.add_argument('--check', action='store_true',
                   help='configure each board and compare its .config')
    p.add_argument('--json', help='write the figures here')
    p.add_argument('defconfigs', nargs='*', metavar='DEFCONFIG')
    return p

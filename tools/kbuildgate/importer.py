# SPDX-License-Identifier: GPL-2.0
"""importer - "kconfig-fragment import": every defconfig as a board
fragment in a hierarchy of Kconfig files that regenerates its .config.

  kconfig-fragment import --srctree TREE --arch ARCH --out DIR
                          [--check] [--json FILE] [DEFCONFIG...]
  kconfig-fragment import --srctree TREE --arch all --out DIR
                          [--check] [--json FILE]

DEFCONFIG is a defconfig of arch/ARCH/configs/ (85xx/tqm8540, with or
without _defconfig, or its board name 85xx-tqm8540); without any, every
defconfig of the architecture, those of its subfolders too.  A board is
named by its path under configs/ without _defconfig, '/' as '-';
configs/defconfig is the board "defconfig".  --arch all imports every
architecture of the tree that has a defconfig, each in OUT/ARCH/, and
ends with a table: an architecture a line, its defconfigs and their
lines, the fragments' lines, levels, groups, boards identical,
exceptions, dropped lines, its *.config fragments (named in the JSON,
each with the Makefile targets that merge it), the seconds of the
import and of --check.  A defconfig that cannot be imported (its own
configuration fails, a choice in m mode) is named with its reason and
makes the exit status 1.

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
     and the choice members that are not their choice's default; and
     what "make alldefconfig" would give differently (the symbols below
     their default, the selects that their default makes needless);
  3. group the boards into levels found from the tree: the family (the
     Kconfig file of a subfolder of arch/ARCH/ that defines most of the
     symbols a configuration has at y, named by its path: mach-pxa,
     platforms-85xx; "multi" when more than MULTI_FAMILIES have some and
     none has half; a file every board uses is the architecture's), then
     the member at y of the tree's choice that divides the boards (of
     the choices of arch/ARCH/, the one that makes the fewest lines, or
     none), then the architecture; a level with one child is left out.
     Each level selects what every board below it needs, and no more;
  4. what several boards share beyond their levels goes in a group,
     DIR/Kconfig.shared-..., that each of them sources (greedy: the
     groups that save most lines first; --no-groups leaves them out);
     the rest is the board's own;
     steps 3 and 4 run on the base allnoconfig, the plan's; when that
     hierarchy has more lines than the defconfigs (a board unlike the
     others restates every default-y symbol that its defconfig had for
     free: riscv's defconfig), they run again with alldefconfig for the
     boards that are smaller on it, and for every board, and the
     smallest hierarchy is kept (--base chooses one);
  5. write DIR/Kconfig.NAME, DIR/Kconfig.<level>, the groups, and
     DIR/NAME.config where a board needs one; a file whose text is unchanged is not
     rewritten, and the files of an earlier import that this one does
     not write (their first line says so) are removed.

The selects are those of a redefinition of the architecture's symbol
(config ARM; tree_carrier()), written after 'source': a symbol of the fragment's own, or
a redefinition before the tree, would be written to .config (at the top)
and the .config would not be the defconfig's.  A module is "select SYM
if m": the select's value is ARM && m, that is m.  An int, hex or
string value that is not its default goes in NAME.config with the choice
members: a "default" line in the fragment wins over the tree's (it comes
first) but moves the symbol's line to the top of .config.

With --check, each board is configured as

  make ARCH=ARCH KBUILD_KCONFIG=DIR/Kconfig.NAME [KCONFIG_ALLCONFIG=DIR/NAME.config] BASE

BASE being allnoconfig, or alldefconfig for a board whose first lines
say "# kconfig-base: alldefconfig" (its NAME.config then also holds
the symbols below their defaults, "# CONFIG_SYM is not set"), under
KCONFIG_WERROR=1 and its .config compared, byte for byte, with the
defconfig's.

Exit status: 0 done (and, with --check, every board identical), 1 some
board differs or fails, 2 usage or tree error.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import time

from . import kmake, util
from .boards import Target
from .errors import UsageError
from .kconfig import dropped_lines
from .kmake import BASES
from .placement import (GROUP_SAVING, base_needs, config_text,
                        fragment_text, levels_of, parse_needs, place)
from .run import Options, Run


def configure_defconfigs(srctree, arch, out, rels):
    """Every defconfig of @rels ({NAME: its path under arch/ARCH/configs/})
    in one batch (the configure step of run.Run): ({name: (.config,
    dropped entries)}, {name: why it failed}, {name: why KCONFIG_WERROR=1
    refuses it}).  A defconfig whose own configuration has an unmet
    select is configured again alone without KCONFIG_WERROR, and
    imported: its board then fails the check and the gate as the
    defconfig does.  Raises UsageError when the tree has no "make
    batchconfig"."""
    run = Run(Options(config_only=True), srctree, out)
    if not run.batch:
        raise UsageError('%s has no "make batchconfig": is the series '
                         'applied?' % srctree)
    targets = {}
    for n, rel in sorted(rels.items()):
        # a batch target's name has no '/': 85xx/ge_imp3a -> 85xx-ge_imp3a
        t = Target(n if n == 'defconfig' else n + '_defconfig',
                   'defconfig', arch, defconfig=rel)
        t.result = {'steps': {}}
        targets[t.name] = (n, t)
    done, failed, refused = {}, {}, {}
    for t, res in run.configure.batch([t for _, t in targets.values()]):
        n = targets[t.name][0]
        if res['status'] == 'PASS' and t.result['config']:
            done[n] = (t.result['config'], t.result['dropped'])
            continue
        failed[n] = failure_reason(rels[n], res, t.result)
        if not t.result.get('unmet'):
            continue
        d = os.path.join(out, '.unmet', t.name)
        os.makedirs(d, exist_ok=True)
        r = kmake.configure(srctree, d, arch, rels[n], werror=False,
                            log=os.path.join(d, 'configure.log'))
        if r['returncode'] == 0 and os.path.isfile(os.path.join(d,
                                                                '.config')):
            done[n] = (os.path.join(d, '.config'), t.result['dropped'])
            refused[n] = failed.pop(n)
    return done, failed, refused


def failure_reason(rel, res, result):
    """Why the defconfig @rel (under configs/) has no .config to import:
    its batch result @res and its target's @result.  An unmet select of
    the defconfig's own configuration is named, with what blocks it:
    KCONFIG_WERROR=1 refuses that configuration, so no fragment can
    regenerate it."""
    unmet = result.get('unmet') or []
    if unmet:
        return 'make %s has %s: KCONFIG_WERROR=1 refuses its own ' \
            'configuration, so no fragment can regenerate it' % (
                rel, '; '.join(
                    '%s selected by %s with unmet dependencies (blocked by '
                    '%s)' % (u['symbol'], ', '.join(
                        '%s at %s:%s' % (s['symbol'], s['file'], s['line'])
                        for s in u['selectors']),
                        ' && '.join(b['expr'] for b in u['blocking']) or
                        '?') for u in unmet))
    return 'make %s failed: %s' % (rel, ' '.join(
        (res.get('reason') or 'no .config').splitlines()[:2]))


def helper(srctree, arch, cache, bindir=None):
    """tools/import/kconfig-import for @srctree (kmake.build_helper(), in
    @bindir, default CACHE/bin), and conf's environment for @arch
    (kmake.build_conf(), kept in CACHE/conf-env.json).  Returns (program,
    environment)."""
    prog = kmake.build_helper(util.TOP, srctree, bindir or os.path.join(
        cache, 'bin'), 'import')
    envfile = os.path.join(cache, 'conf-env.json')
    try:
        with open(envfile) as f:
            env = json.load(f)
        if env.get('srctree') != srctree or env.get('ARCH') != arch:
            raise ValueError
    except (OSError, ValueError):
        env = kmake.build_conf(srctree, os.path.join(cache, 'conf'), arch)
        util.write_atomic(envfile, json.dumps(env, sort_keys=True))
    return prog, env


def needs(prog, env, srctree, configs):
    """What each .config of @configs needs beyond allnoconfig: the
    output of kconfig-import @prog, parsed by placement.parse_needs()."""
    ps = subprocess.run([prog, 'Kconfig'] + list(configs), cwd=srctree,
                        env=dict(env, PATH=os.environ.get('PATH', '')),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
    if ps.returncode:
        raise UsageError('kconfig-import failed:\n%s' % ps.stderr[-2000:])
    return parse_needs(ps.stdout)


def level_name(rel):
    """The name of a level found in the file @rel of arch/ARCH/: its
    folder, '/' as '-', and the file's suffix when it is not "Kconfig":
    mach-pxa, platforms-85xx, platforms-cputype, boards-mach-r2d."""
    d, base = os.path.split(rel)
    suffix = '' if base == 'Kconfig' else re.sub(r'^Kconfig[.-]?', '', base)
    return '-'.join(p for p in d.split('/') + [suffix] if p)


def tree_levels(srctree, arch):
    """What the levels are found from, in arch/ARCH/'s own Kconfig files:
    ({SYM: family} for the symbols that the files of its subfolders
    define, the family being the file's level_name(); [members] of each
    choice of any of its files, in the order of the files)."""
    fam, choices = {}, []
    adir = os.path.join(srctree, 'arch', arch)
    for root, dirs, files in os.walk(adir, followlinks=True):
        dirs.sort()
        for f in sorted(files):
            if not f.startswith('Kconfig'):
                continue
            rel = os.path.relpath(os.path.join(root, f), adir)
            with open(os.path.join(root, f), errors='replace') as fh:
                text = fh.read()
            if os.path.dirname(rel):
                for m in re.finditer(r'^\s*(?:menu)?config\s+(\w+)', text,
                                     re.M):
                    fam.setdefault(m.group(1), level_name(rel))
            for m in re.finditer(r'^\s*choice\b(.*?)^\s*endchoice\b', text,
                                 re.M | re.S):
                members = re.findall(r'^\s*config\s+(\w+)', m.group(1),
                                     re.M)
                if len(members) > 1:
                    choices.append(members)
    return fam, choices


def tree_carrier(srctree, arch):
    """The symbol whose redefinitions carry a fragment's selects: of the
    symbols of arch/ARCH/Kconfig that are always y (def_bool y, or bool
    with default y, without prompt or dependency), the one that selects
    most, the architecture's own (ARM, PPC, SUPERH, X86...).  Raises
    UsageError when there is none."""
    path = os.path.join(srctree, 'arch', arch, 'Kconfig')
    with open(path, errors='replace') as f:
        text = f.read()
    best = None
    for m in re.finditer(r'^config\s+(\w+)\n((?:[ \t]+.*\n|\n)*)', text,
                         re.M):
        attrs, selects, cont = set(), 0, False
        for raw in m.group(2).splitlines():
            line = raw.strip()
            # a continued line, or one indented below an attribute (the
            # rest of a long select), is part of the one above it
            deeper, cont = cont or raw.startswith(('\t\t', '\t ')), \
                raw.endswith('\\')
            if deeper:
                continue
            if line in ('help', '---help---'):
                break       # the help text: what is before it decides
            if line.startswith('select '):
                selects += 1
            elif line and not line.startswith(('imply ', '#')):
                attrs.add(line)
        if attrs in ({'def_bool y'}, {'bool', 'default y'}) and \
                (not best or selects > best[0]):
            best = (selects, m.group(1))
    if not best:
        raise UsageError('arch/%s/Kconfig: no symbol that is always y to '
                         'carry the selects (--carrier SYM)' % arch)
    return best[1]


def read_config(path):
    """{SYM: value} of the CONFIG_SYM=value lines of the .config @path."""
    vals = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'CONFIG_(\w+)=(.*)', line)
            if m:
                vals[m.group(1)] = m.group(2)
    return vals


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
                re.match(r'# \S+: arch/\w+/configs/\S+, the choices '
                         r'and values of Kconfig\.', first):
            os.unlink(path)
            removed += 1
    return removed


def write_if_changed(path, text):
    """Write @text to @path unless it holds it already; returns whether
    it wrote."""
    try:
        with open(path) as f:
            if f.read() == text:
                return False
    except OSError:
        pass
    util.write_atomic(path, text)
    return True


def check_boards(srctree, arch, out, work, names, configs):
    """Configure each board under KCONFIG_WERROR=1 (the configure step of
    run.Run, one process a board, Options(werror=True)) and compare its
    .config, byte for byte, with @configs[name].  Returns {name: None
    (identical) or the reason}."""
    run = Run(Options(config_only=True, werror=True), srctree, work)
    res = {}
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
        futs = {pool.submit(run.configure.one, t): (n, t)
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


def board_name(rel):
    """The board of the defconfig @rel (its path under arch/ARCH/configs/):
    without _defconfig, '/' as '-' (85xx/ge_imp3a_defconfig is
    85xx-ge_imp3a); "defconfig" stays "defconfig"."""
    return re.sub(r'_defconfig$', '', rel).replace('/', '-')


def arch_configs(srctree, arch):
    """({NAME: path under arch/ARCH/configs/} of every defconfig, in
    subfolders too; [path of every *.config fragment there])."""
    cfgdir = os.path.join(srctree, 'arch', arch, 'configs')
    defs, frags = {}, []
    for root, dirs, files in os.walk(cfgdir, followlinks=True):
        dirs.sort()
        for f in sorted(files):
            rel = os.path.relpath(os.path.join(root, f), cfgdir)
            if f == 'defconfig' or f.endswith('_defconfig'):
                defs[board_name(rel)] = rel
            elif f.endswith('.config'):
                frags.append(rel)
    return defs, frags


def tree_arches(srctree):
    """The architectures of @srctree that have a defconfig, sorted."""
    adir = os.path.join(srctree, 'arch')
    return [a for a in sorted(os.listdir(adir))
            if os.path.isdir(os.path.join(adir, a, 'configs')) and
            arch_configs(srctree, a)[0]]


def defconfig_names(srctree, arch, defconfigs):
    """{NAME: path under arch/ARCH/configs/} of @defconfigs (each a NAME,
    or a path under configs/ with or without _defconfig), or of every
    defconfig of arch/ARCH/configs/; raises UsageError for one that is
    not there."""
    every = arch_configs(srctree, arch)[0]
    if not defconfigs:
        return every
    names = {}
    for d in defconfigs:
        d = re.sub(r'^arch/%s/configs/' % re.escape(arch), '', d)
        n = board_name(d)
        if n not in every:
            raise UsageError('%s: not a defconfig of arch/%s/configs/' % (
                d, arch))
        names[n] = every[n]
    return names


def choice_levels(choices, vals):
    """The choices of the tree (tree_levels()) that can divide the boards,
    found from their .config files (@vals: {name: {SYM: value}}): those
    whose members at y make two classes of two boards or more, the ones
    that make most first.  Returns [members of each]."""
    found = []
    for i, ms in enumerate(choices):
        cls = collections.Counter(
            next((m for m in ms if v.get(m) == 'y'), None)
            for v in vals.values())
        big = [c for c, k in cls.items() if c and k > 1]
        if len(big) > 1:
            found.append(((-len(big), -sum(cls[c] for c in big), i), ms))
    return [ms for _, ms in sorted(found)]


def shared_families(fam_of, vals):
    """The families of which every board has a symbol at y (arch/arm/mm,
    powerpc's sysdev): what they define is the architecture's, not a
    family's.  None with two boards or fewer."""
    if len(vals) < 3:
        return set()
    every = None
    for v in vals.values():
        fams = {fam_of[s] for s, x in v.items() if x == 'y' and s in fam_of}
        every = fams if every is None else every & fams
    return every or set()


def board_needs(srctree, arch, names, configs, need, choice=(), bases=None):
    """Each board's needs for placement.place(): its base (@bases {name:
    configuration target}, allnoconfig where not given), selects on that
    base, family, member of the tree's choice @choice and defaults, and
    {name: why it cannot be imported} (a choice in m mode)."""
    fam_of = tree_levels(srctree, arch)[0]
    vals = {n: read_config(configs[n]) for n in names}
    shared = shared_families(fam_of, vals)
    fam_of = {s: f for s, f in fam_of.items() if f not in shared}
    boards, bad = {}, {}
    for n in names:
        nd = need[configs[n]]
        if nd['bad']:
            bad[n] = 'members of a choice in m mode, which a fragment ' \
                'cannot set: %s' % ' '.join(nd['bad'])
            continue
        family, cpu = levels_of(vals[n], fam_of, choice)
        base = (bases or {}).get(n, BASES[0])
        boards[n] = {'select': base_needs(nd, base)[0], 'family': family,
                     'cpu': cpu, 'default': nd['default'], 'base': base}
    return boards, bad


def base_plans(names, need, configs, base):
    """The bases to try, each {name: configuration target}: @base for
    every board; with @base "auto", allnoconfig for every board (the
    plan's), then alldefconfig for each board that needs fewer lines on
    it, then alldefconfig for every board."""
    if base != 'auto':
        return [dict.fromkeys(names, base)]

    def cost(n, b):
        sel, val = base_needs(need[configs[n]], b)
        return len(sel) + len(val)
    return [dict.fromkeys(names, BASES[0]),
            {n: min(BASES, key=lambda b: (cost(n, b), b != BASES[0]))
             for n in names},
            dict.fromkeys(names, BASES[1])]


def smallest_hierarchy(args, srctree, arch, configs, need, conds, rels, out,
                       carrier, defconfig_lines):
    """The levels that make the smallest hierarchy: without a level above
    the families, and with each choice of choice_levels() (the choice that
    divides the boards is the tree's, which one is the data's); on the
    plan's base, allnoconfig, unless the hierarchy is then larger than
    the @defconfig_lines of the defconfigs: then the smallest of
    base_plans().  Returns (boards, bad, nodes, placed, groups, files,
    flat, choice)."""
    names = sorted(configs)
    vals = {n: read_config(configs[n]) for n in names}
    choices = [()] + choice_levels(tree_levels(srctree, arch)[1], vals)
    best = None
    for i, bases in enumerate(base_plans(names, need, configs, args.base)):
        if i == 1 and best[0] <= defconfig_lines:
            break       # the plan's base is small enough
        best = hierarchy_of(args, srctree, arch, configs, need, conds, rels,
                            out, carrier, choices, bases, best)
    return best[1]


def hierarchy_of(args, srctree, arch, configs, need, conds, rels, out,
                 carrier, choices, bases, best):
    """smallest_hierarchy() for the bases @bases: each of @choices, kept
    when it has fewer lines than @best, (lines, result) or None.
    Returns the new best."""
    names = sorted(configs)
    for choice in choices:
        boards, bad = board_needs(srctree, arch, names, configs, need,
                                  choice, bases)
        flat = sum(len(b['select']) for b in boards.values())
        nodes, placed, groups = place(boards, arch, {} if args.no_defaults
                                      else conds, not args.no_groups,
                                      args.group_saving)
        files = file_texts(nodes, placed, need, configs, rels, arch, out,
                           srctree, carrier)
        lines = sum(t.count('\n') for t in files.values())
        if best is None or lines < best[0]:
            best = (lines, (boards, bad, nodes, placed, groups, files, flat,
                            list(choice)))
    return best


def file_texts(nodes, placed, need, configs, rels, arch, out, srctree,
               carrier):
    """{path: text} of every file of the import: Kconfig.KEY of each node
    and NAME.config of each board that needs one (a stale one is
    removed by remove_stale()); @rels: {NAME: its defconfig under arch/ARCH/configs/}."""
    files = {}
    for key, node in sorted(nodes.items()):
        defconfig = 'arch/%s/configs/%s' % (arch, rels.get(key, key))
        if node.get('board'):
            ctext = config_text(key, defconfig, need[configs[key]],
                                node['base'])
            if ctext:
                files[os.path.join(out, key + '.config')] = ctext
        files[os.path.join(out, 'Kconfig.' + key)] = fragment_text(
            key, node, nodes, out, srctree, carrier, placed[key], defconfig)
    return files


def figures(srctree, arch, out, rels, nodes, placed, groups, files,
            dropped, flat):
    """The import's figures, as its JSON has them; @rels: {NAME: its
    defconfig under arch/ARCH/configs/}, every board imported."""
    cfgdir = os.path.join(srctree, 'arch', arch, 'configs')
    names = sorted(rels)
    defconfig_lines = 0
    for n in names:
        with open(os.path.join(cfgdir, rels[n])) as f:
            defconfig_lines += sum(1 for _ in f)
    lines = {os.path.basename(p): t.count('\n') for p, t in files.items()}
    shape = [{'level': key, 'parent': node['parent'],
              'boards': len(node['boards']), 'selects': len(node['select']),
              'defaults': len(placed[key]), 'lines': lines['Kconfig.' + key]}
             for key, node in sorted(nodes.items())
             if not node.get('board') and not node.get('group')]
    return {
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
        'bases': dict(collections.Counter(
            nodes[n]['base'] for n in names if n in nodes)),
        'boards': {n: {'defconfig': 'arch/%s/configs/%s' % (arch, rels[n]),
                       'parent': nodes[n]['parent'],
                       'base': nodes[n]['base'],
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
                   for n in names if n in nodes},
        'dropped': sum(len(d) for d in dropped.values()),
        'dropped_files': sum(1 for d in dropped.values() if d),
    }


def check_all(srctree, arch, out, work, names, configs, report):
    """--check: check_boards(), its lines and figures (into @report).
    Returns the exit status: 1 when some board differs or fails."""
    start = time.monotonic()
    res = check_boards(srctree, arch, out, os.path.join(work, 'check'),
                       names, configs)
    report['check_seconds'] = round(time.monotonic() - start, 1)
    report['identical'] = sorted(n for n, r in res.items() if r is None)
    report['exceptions'].update((n, r) for n, r in res.items() if r)
    for n, r in sorted(res.items()):
        if r:
            print('%s: %s' % (os.path.join(out, 'Kconfig.' + n), r))
    print('kconfig-fragment: %s: check: %d of %d board(s) regenerate their '
          'defconfig\'s .config byte for byte, %.1f s' % (
              arch, len(report['identical']), len(names),
              report['check_seconds']), flush=True)
    return 1 if report['exceptions'] else 0


def config_fragments(srctree, arch, frags):
    """The architecture's own *.config fragments (merged onto a defconfig
    by merge_config.sh, from the Makefile's %.config targets and the
    defconfig targets made of them): each named, with why it is not a
    level.  [{'file', 'used_by', 'reason'}]."""
    mk = os.path.join(srctree, 'arch', arch, 'Makefile')
    try:
        with open(mk, errors='replace') as f:
            make = f.read()
    except OSError:
        make = ''
    # each rule of the Makefile with its recipe
    rules = re.findall(r'^([\w.%-]+):[^=\n]*\n((?:\t.*\n)*)', make, re.M)
    res = []
    for rel in frags:
        base = os.path.basename(rel)
        word = re.compile(r'(?<![\w.-])%s(?:\.config)?(?![\w-])' %
                          re.escape(base[:-len('.config')]))
        used = sorted({t for t, recipe in rules if word.search(recipe)})
        res.append({'file': 'arch/%s/configs/%s' % (arch, rel),
                    'used_by': used,
                    'reason': 'a merge_config.sh fragment, not a defconfig: '
                    'no "make ARCH=%s NAME_defconfig" reads it alone, so it '
                    'has no .config of its own to regenerate; %s' % (
                        arch, 'the Makefile merges it for ' +
                        ', '.join(used) if used else
                        'merged by "make ARCH=%s %s"' % (arch, base))})
    return res


def dropped_summary(arch, report):
    """One line: the dropped defconfig lines of @arch's @report, by kind
    and by defconfig, most first."""
    kinds = collections.Counter(d['kind'] for b in report['boards'].values()
                                for d in b['dropped'])
    per = sorted(((len(b['dropped']), n) for n, b in
                  report['boards'].items() if b['dropped']),
                 key=lambda x: (-x[0], x[1]))
    return 'kconfig-fragment: %s: dropped: %d line(s) in %d defconfig(s)%s%s' \
        % (arch, report['dropped'], report['dropped_files'],
           ' (%s)' % ', '.join('%d %s' % (k, w) for w, k in
                               kinds.most_common()) if kinds else '',
           ': ' + ', '.join('%s %d' % (n, k) for k, n in per) if per else '')


def import_arch(args, srctree, arch, out, work, bindir=None):
    """Import the defconfigs of @arch (args.defconfigs, or every one) into
    @out, with @work for the configurations.  Returns (exit status,
    report)."""
    rels = defconfig_names(srctree, arch, args.defconfigs)
    os.makedirs(out, exist_ok=True)
    start = time.monotonic()
    configured, failed, refused = configure_defconfigs(
        srctree, arch, os.path.join(work, 'defconfigs'), rels)
    if not configured:
        raise UsageError('%s: no defconfig to import: %s' % (
            arch, '; '.join('%s: %s' % kv for kv in sorted(failed.items()))))
    prog, env = helper(srctree, arch, os.path.join(work, 'helper'), bindir)
    configs = {n: c for n, (c, _) in configured.items()}
    need, conds = needs(prog, env, srctree, [configs[n] for n in
                                             sorted(configs)])
    carrier = args.carrier or tree_carrier(srctree, arch)
    boards, bad, nodes, placed, groups, files, flat, choice = \
        smallest_hierarchy(args, srctree, arch, configs, need, conds, rels,
                           out, carrier, sum(line_count(os.path.join(
                               srctree, 'arch', arch, 'configs', rels[n]))
                                             for n in configs))
    exceptions = dict(failed, **bad)
    names = sorted(boards)
    written = sum(write_if_changed(p, t) for p, t in sorted(files.items()))
    removed = remove_stale(out, files)
    seconds = time.monotonic() - start

    dropped = {n: configured[n][1] for n in sorted(configured)}
    for n in sorted(dropped):
        for line in dropped_lines(dropped[n]):
            print(line)
    for n, why in sorted(exceptions.items()):
        print('arch/%s/configs/%s: not imported: %s' % (arch, rels[n], why))
    for n, why in sorted(refused.items()):
        print('arch/%s/configs/%s: imported, but %s' % (arch, rels[n], why))
    report = figures(srctree, arch, out, {n: rels[n] for n in names}, nodes,
                     placed, groups, files, {n: dropped[n] for n in names},
                     flat)
    report.update(carrier=carrier, choice_level=choice,
                  files_written=written,
                  files_removed=removed, import_seconds=round(seconds, 1),
                  exceptions=dict(exceptions, **refused),
                  not_imported=sorted(exceptions),
                  all_defconfig_lines=sum(
                      line_count(os.path.join(srctree, 'arch', arch,
                                              'configs', r))
                      for r in rels.values()),
                  config_fragments=config_fragments(
                      srctree, arch, arch_configs(srctree, arch)[1]))
    print('kconfig-fragment: import: %s: %d defconfig(s), %d lines -> %d '
          'lines in %d files (%d levels, %d groups), %d select(s) and %d '
          'restated default(s) (%d flat selects), %d dropped request(s) in '
          '%d defconfig(s), %d not imported, %d file(s) written, %d '
          'removed, %.1f s' % (
              arch, len(names), report['defconfig_lines'], report['lines'],
              len(files), len(report['levels']), len(groups),
              report['select_lines'], report['default_lines'],
              report['flat_selects'], report['dropped'],
              report['dropped_files'], len(exceptions), written, removed,
              seconds), flush=True)
    print(dropped_summary(arch, report), flush=True)
    ret = 1 if exceptions or refused else 0
    if args.check:
        ret = max(ret, check_all(srctree, arch, out, work, names, configs,
                                 report))
        # the reason of a board that KCONFIG_WERROR=1 refuses is the
        # defconfig's own unmet select
        report['exceptions'].update(refused)
    return ret, report


def line_count(path):
    """The lines of the file @path."""
    with open(path, 'rb') as f:
        return sum(1 for _ in f)


def table_row(arch, r):
    """One architecture's line of the closing table."""
    return {'arch': arch,
            'defconfigs': r['defconfigs'] + len(r['not_imported']),
            'imported': r['defconfigs'],
            'all_defconfig_lines': r['all_defconfig_lines'],
        'lines_before': r['defconfig_lines'], 'lines_after': r['lines'],
        'levels': len(r['levels']), 'groups': len(r['groups']),
        'identical': len(r.get('identical', ())),
        'exceptions': len(r['exceptions']), 'dropped': r['dropped'],
        'config_fragments': len(r['config_fragments']),
        'import_seconds': r['import_seconds'],
        'check_seconds': r.get('check_seconds')}


def print_table(rows):
    """The closing table of --arch all, one line an architecture and the
    totals."""
    cols = (('arch', 'arch'), ('defconfigs', 'defconfigs'),
            ('all_defconfig_lines', 'lines'), ('imported', 'imported'),
            ('lines_before', 'their lines'), ('lines_after', 'fragments'),
            ('levels', 'levels'), ('groups', 'groups'),
            ('identical', 'identical'), ('exceptions', 'exceptions'),
            ('dropped', 'dropped'), ('config_fragments', '*.config'),
            ('import_seconds', 'import s'), ('check_seconds', 'check s'))
    total = {c: sum(r[c] or 0 for r in rows) for c, _ in cols[1:]}
    total['arch'] = 'total'
    fmt = '%-10s' + ' %11s' * (len(cols) - 1)
    print(fmt % tuple(h for _, h in cols))
    for r in rows + [total]:
        print(fmt % tuple('-' if r[c] is None else
                          '%.1f' % r[c] if isinstance(r[c], float)
                          else r[c] for c, _ in cols))


def import_all(args):
    """kconfig-fragment import with the options @args (add_parser()'s):
    configure, place, write, and with --check regenerate each board; with
    --arch all, each architecture in OUT/ARCH/.  Returns the exit status;
    raises UsageError (exit 2)."""
    srctree = os.path.abspath(args.srctree)
    kmake.check_tree(srctree)
    if args.group_saving < 1:
        raise UsageError('--group-saving %d: a group must save at least 1 '
                         'line' % args.group_saving)
    out = os.path.abspath(args.out)
    every = args.arch == 'all'
    if every:
        if args.defconfigs or args.carrier:
            raise UsageError('--arch all takes no DEFCONFIG nor --carrier')
        arches = tree_arches(srctree)
    else:
        kmake.check_arch(srctree, args.arch)
        arches = [args.arch]
    work = os.path.abspath(args.work or os.path.join(
        util.TREES, 'out', 'import'))
    if not every and not args.work:
        work = os.path.join(work, args.arch)
    ret, reports = 0, {}
    for arch in arches:
        r, reports[arch] = import_arch(
            args, srctree, arch, os.path.join(out, arch) if every else out,
            os.path.join(work, arch) if every else work,
            os.path.join(work, 'bin') if every else None)
        ret = max(ret, r)
    rows = [table_row(a, reports[a]) for a in arches]
    if every:
        print_table(rows)
    if args.json:
        doc = reports[arches[0]] if not every else {
            'srctree': srctree, 'out': out, 'arches': reports,
            'table': rows}
        util.write_atomic(args.json, json.dumps(doc, indent=2) + '\n')
    return ret


OPTIONS = [
    (['--srctree'], kmake.srctree_option()),
    (['--arch'], dict(default='arm', help='the architecture of the '
                      'defconfigs, or "all": every architecture of the '
                      'tree, each in OUT/ARCH/ (default: %(default)s)')),
    (['--out'], dict(required=True, help='the folder of the fragments')),
    (['--work'], dict(help='where the configurations are made (default: '
                      'build/out/import/ARCH; with --arch all, '
                      'build/out/import, a folder an architecture)')),
    (['--carrier'], dict(help='the always-y symbol whose redefinitions '
                         'carry the selects (default: ARCH upper-cased)')),
    (['--no-defaults'], dict(action='store_true', help='do not restate '
                             'defaults as "select SYM if COND": plain '
                             'selects only')),
    (['--no-groups'], dict(action='store_true', help='no shared groups: '
                           'what a board needs beyond its levels stays in '
                           'its own file')),
    (['--group-saving'], dict(type=int, default=GROUP_SAVING,
                              metavar='LINES', help='make a group only '
                              'where it saves at least LINES lines '
                              '(default %(default)s)')),
    (['--base'], dict(choices=('auto',) + BASES, default='auto',
                      help='what each board starts from: allnoconfig (the '
                      'plan\'s), alldefconfig (the tree\'s defaults stand, '
                      'as for a defconfig; the board\'s first lines say '
                      '"# kconfig-base: alldefconfig"), or auto: '
                      'allnoconfig unless the hierarchy is then larger '
                      'than the defconfigs, and then the smaller (default '
                      '%(default)s)')),
    (['--check'], dict(action='store_true', help='configure each board and '
                       'compare its .config')),
    (['--json'], dict(help='write the figures here')),
    (['defconfigs'], dict(nargs='*', metavar='DEFCONFIG', help='a defconfig '
                          'of arch/ARCH/configs/ (default: every one)')),
]


def add_parser(sub):
    """Add the "import" command and its options to the subparsers @sub;
    returns its parser."""
    p = sub.add_parser('import', help='every defconfig as a board fragment '
                       'in a hierarchy (see tools/kbuildgate/importer.py)',
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    util.add_options(p, OPTIONS)
    return p

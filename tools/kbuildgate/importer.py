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
from .placement import (GROUP_SAVING, config_text, fragment_text, levels_of,
                        parse_needs, place)
from .run import Options, Run


def configure_defconfigs(srctree, arch, out, names):
    """Every defconfig of @names in one batch (the configure step of
    run.Run): {name: (.config, dropped entries)}.  Raises UsageError when
    the tree has no "make batchconfig" or a defconfig fails."""
    run = Run(Options(config_only=True), srctree, out)
    if not run.batch:
        raise UsageError('%s has no "make batchconfig": is the series '
                         'applied?' % srctree)
    targets = [Target(n + '_defconfig', 'defconfig', arch,
                      defconfig=n + '_defconfig') for n in names]
    for t in targets:
        t.result = {'steps': {}}
    done = {}
    for t, res in run.configure.batch(targets):
        if res['status'] != 'PASS' or not t.result['config']:
            raise UsageError('%s: configure failed: %s' % (
                t.name, res.get('reason', '').splitlines()[:1]))
        done[t.name[:-len('_defconfig')]] = (t.result['config'],
                                             t.result['dropped'])
    return done


def helper(srctree, arch, cache):
    """tools/import/kconfig-import for @srctree (kmake.build_helper()),
    and conf's environment (kmake.build_conf(), kept in
    CACHE/conf-env.json).  Returns (program, environment)."""
    prog = kmake.build_helper(util.TOP, srctree, os.path.join(cache, 'bin'),
                              'import')
    envfile = os.path.join(cache, 'conf-env.json')
    try:
        with open(envfile) as f:
            env = json.load(f)
        if env.get('srctree') != srctree:
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
                re.match(r'# \S+: arch/\w+/configs/\S+_defconfig, the choices '
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


def defconfig_names(srctree, arch, defconfigs):
    """The names (without _defconfig) of @defconfigs, or of every
    defconfig of arch/ARCH/configs/; raises UsageError for one that is
    not there."""
    cfgdir = os.path.join(srctree, 'arch', arch, 'configs')
    names = sorted(re.sub(r'_defconfig$', '', os.path.basename(d))
                   for d in defconfigs) if defconfigs else \
        sorted(f[:-len('_defconfig')] for f in os.listdir(cfgdir)
               if f.endswith('_defconfig'))
    for n in names:
        if not os.path.isfile(os.path.join(cfgdir, n + '_defconfig')):
            raise UsageError('%s_defconfig: not in arch/%s/configs/' %
                             (n, arch))
    return names


def board_needs(srctree, arch, names, configs, need):
    """Each board's needs for placement.place(): its selects, family,
    CPU level and defaults.  Raises UsageError for a choice in m mode."""
    fam_of = tree_families(srctree, arch)
    boards = {}
    for n in names:
        nd = need[configs[n]]
        if nd['bad']:
            raise UsageError('%s: members of a choice in m mode, which a '
                             'fragment cannot set: %s' % (
                                 n, ' '.join(nd['bad'])))
        family, cpu = levels_of(read_config(configs[n]), fam_of)
        boards[n] = {'select': set(nd['select']), 'family': family,
                     'cpu': cpu, 'default': nd['default']}
    return boards


def file_texts(nodes, placed, need, configs, arch, out, srctree, carrier):
    """{path: text} of every file of the import: Kconfig.KEY of each node
    and NAME.config of each board that needs one (a stale one is
    removed)."""
    files = {}
    for key, node in sorted(nodes.items()):
        defconfig = 'arch/%s/configs/%s_defconfig' % (arch, key)
        if node.get('board'):
            ctext = config_text(key, defconfig, need[configs[key]])
            cfg = os.path.join(out, key + '.config')
            if ctext:
                files[cfg] = ctext
            elif os.path.exists(cfg):
                os.unlink(cfg)
        files[os.path.join(out, 'Kconfig.' + key)] = fragment_text(
            key, node, nodes, out, srctree, carrier, placed[key], defconfig)
    return files


def figures(srctree, arch, out, names, nodes, placed, groups, files,
            dropped, flat):
    """The import's figures, as its JSON has them."""
    cfgdir = os.path.join(srctree, 'arch', arch, 'configs')
    defconfig_lines = 0
    for n in names:
        with open(os.path.join(cfgdir, n + '_defconfig')) as f:
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
    }


def check_all(srctree, arch, out, work, names, configs, report):
    """--check: check_boards(), its lines and figures (into @report).
    Returns the exit status: 1 when some board differs or fails."""
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
    return 1 if report['exceptions'] else 0


def import_all(args):
    """kconfig-fragment import with the options @args (add_parser()'s):
    configure, place, write, and with --check regenerate each board.
    Returns the exit status; raises UsageError (exit 2)."""
    srctree = os.path.abspath(args.srctree)
    kmake.check_tree(srctree)
    kmake.check_arch(srctree, args.arch)
    if args.group_saving < 1:
        raise UsageError('--group-saving %d: a group must save at least 1 '
                         'line' % args.group_saving)
    arch = args.arch
    names = defconfig_names(srctree, arch, args.defconfigs)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    work = os.path.abspath(args.work or os.path.join(
        util.TREES, 'out', 'import', arch))
    start = time.monotonic()

    configured = configure_defconfigs(srctree, arch, os.path.join(
        work, 'defconfigs'), names)
    prog, env = helper(srctree, arch, os.path.join(work, 'helper'))
    configs = {n: configured[n][0] for n in names}
    need, conds = needs(prog, env, srctree, [configs[n] for n in names])
    boards = board_needs(srctree, arch, names, configs, need)
    flat = sum(len(b['select']) for b in boards.values())
    nodes, placed, groups = place(boards, arch, {} if args.no_defaults
                                  else conds, not args.no_groups,
                                  args.group_saving)
    files = file_texts(nodes, placed, need, configs, arch, out, srctree,
                       args.carrier or arch.upper())
    written = sum(write_if_changed(p, t) for p, t in sorted(files.items()))
    removed = remove_stale(out, files)
    seconds = time.monotonic() - start

    dropped = {n: configured[n][1] for n in names}
    for n in names:
        for line in dropped_lines(dropped[n]):
            print(line)
    report = figures(srctree, arch, out, names, nodes, placed, groups,
                     files, dropped, flat)
    report.update(files_written=written, files_removed=removed,
                  import_seconds=round(seconds, 1))
    print('kconfig-fragment: import: %d defconfig(s), %d lines -> %d lines '
          'in %d files (%d levels, %d groups), %d select(s) and %d '
          'restated default(s) (%d flat selects), %d dropped request(s) in '
          '%d defconfig(s), %d file(s) written, %d removed, %.1f s' % (
              len(names), report['defconfig_lines'], report['lines'],
              len(files), len(report['levels']), len(groups),
              report['select_lines'], report['default_lines'],
              report['flat_selects'], report['dropped'],
              report['dropped_files'], written, removed, seconds),
          flush=True)
    ret = 0
    if args.check:
        ret = check_all(srctree, arch, out, work, names, configs, report)
    if args.json:
        util.write_atomic(args.json, json.dumps(report, indent=2) + '\n')
    return ret


OPTIONS = [
    (['--srctree'], kmake.srctree_option()),
    (['--arch'], dict(default='arm', help='the architecture of the '
                      'defconfigs (default: %(default)s)')),
    (['--out'], dict(required=True, help='the folder of the fragments')),
    (['--work'], dict(help='where the configurations are made (default: '
                      'build/out/import/ARCH)')),
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

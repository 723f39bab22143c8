# SPDX-License-Identifier: GPL-2.0
"""kconfig-diffharness - random board fragments: stock kconfig against patched.

  kconfig-diffharness [--seed N] [--count N] [--arch ARCH]... [--modes M...]
                      [--forms a b] [--rounds N] [--stock DIR] [--patched DIR]
                      [--out DIR] [--scratch DIR] [--jobs N] [--minutes M]
                      [--json FILE] [--keep]

For each ARCH (arm and x86 by default), --count board fragments are drawn
from --seed: a board symbol that selects 1 to 8 bool or tristate symbols
of the real tree (those of stock allyesconfig, less choice members and
MODULES), or, with --sizes, fragments of each size class in turn: 1-8,
9-20 or 21-40 such symbols, or "defconfig", every =y of one of the tree's
defconfigs that is such a symbol (hundreds), the sizes that real boards
have; the figures are then given per class too:

    config HARNESS_BOARD
            bool
            default y
            select FOO
            ...

Each fragment comes in two forms, used as KBUILD_KCONFIG:
  (a) Torvalds's: the board, then 'source "Kconfig"';
  (b) a copy of the top-level Kconfig with the board at its end.
Stock 6.1 cannot parse (a): the top-level Kconfig starts with mainmenu,
which must come first.  So stock runs (a)'s equivalent: a copy of the
top-level Kconfig with the board right after its mainmenu line, which
makes the same menu tree and so the same .config.

1. Differential: each form runs under allnoconfig, allyesconfig and
   randconfig (KCONFIG_SEED drawn with the fragment) with the stock and
   the patched conf.  The .config must be byte-identical (and the exit
   status the same), the same symbols must be warned about ("unmet direct
   dependencies detected for SYM"), and the patched conf must print each
   of those warnings once.  Stock warns while it calculates, so under
   randconfig it can warn about a select that its final .config meets;
   the series reports only the unmet selects of the final configuration.
   A symbol that only stock warns about, and that stock does not warn
   about when it rereads its own .config (olddefconfig), is such a stale
   warning: listed, not counted as a difference.

2. Hints, on the patched tree, form (a), allnoconfig: every warning must
   end in "note: to meet it, select ..." or "note: no select can meet it".
   A fragment is unfixable when a warning says no select can meet it
   ("can_fix": false in the JSON report of KCONFIG_UNMET_REPORT), fixable
   when every warning has a hint.  Then, round by round (--rounds), the
   board selects the report's union "hint" and allnoconfig runs again.  A
   followed hint is bad when the same SELECTOR selects TARGET warning is
   still there (for a warning whose whole hint the union held), or when a
   target that was not warned about before is.  The union may leave out a
   hint that conflicts with the others: counted apart (union_missed).

Goals (exit status 1 when one fails, thresholds in the output): no config
difference, no warned-set difference, no duplicate warning, no conf
error, no bad hint, every warning ends in a hint or "no select can meet
it", and at least 95% of the fixable fragments clean after one round.

conf runs directly, as scripts/kconfig/Makefile runs it, built in
OUT/conf/TREE-ARCH by "make allnoconfig syncconfig", with the environment
that kconfig recorded in include/config/auto.conf.cmd.  Parsing the
Kconfig files runs some 80 shell commands ($(cc-option,...) and the like),
3 of the 3.3 seconds of a run; they depend only on the tree and the
toolchain, and kconfig reads only their output.  So a small LD_PRELOAD
library replays their output from a cache that each harness run fills
afresh, and a run takes 0.3 seconds.  At start, a run that fills the cache
and one that replays it must give the same .config and output, or the
harness stops; --no-shell-cache runs conf without it.  conf's heap is
put in transparent huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1),
which halves the CPU time of a run in a virtual machine, where each page
fault is dear; 0.4 and 0.18 seconds of CPU for one ARM allnoconfig here.

Fragments with a finding keep their folder, OUT/fragments/ARCH/NNN/, with
each form, each round and each run's .config, output and report.

Exit status: 0 every goal met, 1 a goal failed, 2 usage or infrastructure
error (no tree, conf does not build, the shell cache changes a result, a
tree is remade during the run).
"""
import collections
import json
import os
import random
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from . import kmake, util
from .errors import SetupError, UsageError
from .harness_check import (NEVER_HINT, candidates, check_fragment,
                            choice_members, compare, defconfig_choices,
                            defconfig_selects, draw,
                            no_ending, stale_in_stock, warned, write_form)
from .harness_options import parser
from .harness_boards import (BOARD_CLASSES, POLICY, board_findings,
                             board_frags, print_boards)
from .harness_conf import (START, Conf, build_shim, check_shell_cache,
                           log)

# what the tests reach through this module
__all__ = ['Conf', 'SetupError', 'compare', 'goals', 'main', 'no_ending',
           'stale_in_stock', 'warned', 'write_form']

TOP = util.TOP
# whether the patched tree keeps switches out of its hints (main())
SWITCHES = [True]

# (key, what, operator, threshold)
GOALS = (
    ('config_diffs', 'config differences (.config or exit status)', '==', 0),
    ('warned_diffs', 'warned-set differences', '==', 0),
    ('duplicates', 'warnings printed more than once (patched)', '==', 0),
    ('conf_errors', 'conf errors (a run that exits non-zero)', '==', 0),
    ('left_own', 'followed hints that left their own warning', '==', 0),
    ('new_unmet', 'followed hints that added a new unmet select', '==', 0),
    ('no_ending', 'warnings with neither a hint nor "no select can meet it"',
     '==', 0),
    ('fixable_clean1_pct', 'fixable fragments clean after 1 round, %',
     '>=', 95.0),
    ('union_policy', 'union hints with a policy switch (COMPILE_TEST, '
     'EXPERT) that the board does not select', '==', 0),
)


def summarize(results):
    """The counts of the summary table, for a list of fragment results."""
    n = collections.Counter()
    for r in results:
        n['fragments'] += 1
        n['runs'] += r['runs']
        n['compared'] += r['compared']
        n['config_diffs'] += sum(f['kind'] == 'config' for f in r['diffs'])
        n['warned_diffs'] += sum(f['kind'] == 'warned' for f in r['diffs'])
        n['duplicates'] += sum(f['kind'] == 'duplicate' for f in r['diffs'])
        n['stale_stock'] += sum(f['kind'] == 'stale_stock' for f in r['diffs'])
        n['conf_errors'] += len(r['errors'])
        n['no_ending'] += len(r['no_ending'])
        n[r['class']] += 1
        if r['class'] == 'fixable':
            n['fixable_clean1'] += r['clean_after'] == 1
            n['fixable_clean3'] += r['clean_after'] is not None
        n['left_own'] += sum(len(x.get('left', ())) for x in r['rounds'])
        n['new_unmet'] += sum(len(x.get('new', ())) for x in r['rounds'])
        for h in r.get('never_hint', ()):
            n['hint_' + h] += 1
        for k in ('union_missed', 'wrongly_unfixable'):
            n[k] += sum(len(x.get(k, ())) for x in r['rounds'])
        n['stuck'] += any(x.get('stuck') for x in r['rounds'])
        n['union_policy'] += any(h in POLICY and h not in r['selects']
                                 for h in r.get('hint', ()))
    s = dict(n)
    s['fixable_clean1_pct'] = round(100.0 * n['fixable_clean1'] /
                                    n['fixable'], 1) if n['fixable'] else 100.0
    return s


def switch_rule(tree):
    """Does the series in @tree keep switches out of its hints (issue 37:
    hint_is_switch() in scripts/kconfig/)?  A series without the rule
    (the backports before it) reports union_policy, not as a goal."""
    d = os.path.join(tree, 'scripts', 'kconfig')
    for name in os.listdir(d) if os.path.isdir(d) else ():
        if name.endswith('.c'):
            with open(os.path.join(d, name), errors='replace') as f:
                if 'hint_is_switch' in f.read():
                    return True
    return False


def goals(summary, switches=True):
    """[(key, what, operator, threshold, value, ok)] of the summary; the
    union_policy goal only if @switches (switch_rule())."""
    out = []
    for key, what, op, limit in GOALS:
        if key == 'union_policy' and not switches:
            continue
        v = summary.get(key, 0)
        out.append((key, what, op, limit, v,
                    v == limit if op == '==' else v >= limit))
    return out


ROWS = (
    ('fragments', 'fragments'),
    ('runs', 'conf runs'),
    ('compared', 'inputs compared, stock against patched'),
    ('clean', 'fragments clean as drawn'),
    ('fixable', 'fixable (every warning has a hint)'),
    ('unfixable', 'unfixable ("no select can meet it")'),
    ('undiagnosed', 'undiagnosed (a warning without hint, yet can_fix)'),
    ('fixable_clean1', 'fixable, clean after 1 round'),
    ('fixable_clean3', 'fixable, clean within --rounds rounds'),
    ('stale_stock', 'stale stock warnings, not counted as differences (info)'),
    ('union_missed', 'warnings whose own hint the union left out (info)'),
    ('wrongly_unfixable', '"no select can meet it", met by the union (info)'),
    ('stuck', 'stuck: unmet selects with hints, the union adds nothing (info)'),
    ('hint_BROKEN', 'fragments with a hint that names BROKEN (info)'),
    ('hint_COMPILE_TEST',
     'fragments with a hint that names COMPILE_TEST (info)'),
    ('hint_EXPERT', 'fragments with a hint that names EXPERT (info)'),
)


SIZE_ROWS = (('fragments', 'fragments'), ('fixable', 'fixable'),
             ('fixable_clean1_pct', 'clean after 1 round, %'),
             ('stuck', 'stuck'),
             ('wrongly_unfixable', 'wrong "no select can meet it"'),
             ('union_policy', 'union with COMPILE_TEST/EXPERT'))


def print_sizes(results, archs, sizes):
    """The figures of each size class and architecture; return them."""
    out = {}
    if len(sizes) < 2:
        return out
    print('%-32s' % 'by size' + ''.join('%14s' % ('%s %s' % (a, s))
                                        for s in sizes for a in archs))
    for s in sizes:
        for a in archs:
            out['%s %s' % (a, s)] = summarize(
                [r for r in results if r['arch'] == a and r['size'] == s])
    for key, what in SIZE_ROWS:
        print('%-32s' % what + ''.join('%14s' % out['%s %s' % (a, s)].get(
            key, 0) for s in sizes for a in archs))
    return out


def print_table(summaries, archs):
    """Print the table of the figures (ROWS, then the goals with
    their verdict) of @summaries, a column for each of @archs and the
    total."""
    cols = list(archs) + ['total']
    print('%-64s' % '' + ''.join('%8s' % c for c in cols) + '   goal')
    for key, what in ROWS:
        print('%-64s' % what +
              ''.join('%8s' % summaries[c].get(key, 0) for c in cols))
    for key, what, op, limit, v, ok in goals(summaries['total'],
                                             SWITCHES[0]):
        print('%-64s' % what +
              ''.join('%8s' % summaries[c].get(key, 0) for c in cols) +
              '   %s %s  %s' % (op, limit, 'ok' if ok else 'FAIL'))


DIFF_KINDS = {'config': 'config difference',
              'warned': 'warned-set difference',
              'duplicate': 'warning printed more than once',
              'stale_stock': 'stale stock warning (info)'}


def print_findings(results, show):
    """Up to @show examples of each kind of finding."""
    kinds = collections.defaultdict(list)
    for r in results:
        where = '%s #%03d (%s)' % (r['arch'], r['index'], r['dir'])
        for f in r['diffs']:
            kinds[DIFF_KINDS[f['kind']]].append('%s %s %s: %s' % (
                where, f['form'], f['mode'],
                {k: v for k, v in f.items()
                 if k not in ('kind', 'form', 'mode')}))
        for e in r['errors']:
            kinds['conf error'].append('%s: %s/output.log' % (where, e))
        for e in r['no_ending']:
            kinds['no ending'].append('%s: %s in %s' % (where, e['symbol'],
                                                        e['run']))
        for x in r['rounds']:
            for e in x.get('left', ()):
                kinds['left own warning'].append(
                    '%s round %d: %s selects %s: hint %s, still blocked '
                    'by %s' % (where, x['round'], e['selector'], e['target'],
                               ' '.join(e['hint']),
                               ', '.join(e['blocking_after'])))
            for e in x.get('union_missed', ()):
                kinds['own hint left out of the union (info)'].append(
                    '%s round %d: %s: %s not in the union' % (
                        where, x['round'], e['target'],
                        ' '.join(e['missing'])))
            for e in x.get('wrongly_unfixable', ()):
                kinds['"no select can meet it", met by the union (info)'
                      ].append('%s round %d: %s selects %s' % (
                          where, x['round'], e['selector'], e['target']))
            for e in x.get('new', ()):
                kinds['new unmet select'].append(
                    '%s round %d: after selecting %s: %s selects %s, '
                    'blocked by %s' % (where, x['round'], ' '.join(x['added']),
                       ', '.join(e['selected_by']), e['target'],
                       ', '.join(e['blocking'])))
        if r['class'] == 'fixable' and r['clean_after'] != 1:
            kinds['fixable, not clean after 1 round'].append(
                '%s: selects %s; clean after %s' % (
                    where, ' '.join(r['selects']), r['clean_after']))
        if r.get('never_hint'):
            kinds['hint names %s (info)' % ' or '.join(NEVER_HINT)].append(
                '%s: selects %s; hint %s' % (where, ' '.join(r['selects']),
                                             ' '.join(r['never_hint'])))
    kinds.update(board_findings(results))
    for kind, lines in kinds.items():
        print('%s: %d' % (kind, len(lines)))
        for line in lines[:show]:
            print('  ' + line)
        if len(lines) > show:
            print('  ... %d more in the JSON' % (len(lines) - show))


def setup(args, archs):
    """Check the trees of @args, make its output folder and scratch
    folder, build the shell cache and stock and patched conf of each of
    @archs.  Returns (confs by (tag, arch), top-level Kconfig by (tag,
    arch), candidate symbols by arch, the shell cache or None); raises
    UsageError or OSError."""
    for t in (args.stock, args.patched):
        kmake.check_tree(t)
    args.out = os.path.abspath(args.out)
    os.makedirs(args.out, exist_ok=True)
    shutil.rmtree(os.path.join(args.out, 'fragments'), ignore_errors=True)
    if args.scratch is None:
        args.scratch = args.out
        if os.access('/dev/shm', os.W_OK):
            args.scratch = tempfile.mkdtemp(prefix='kconfig-diffharness.',
                                            dir='/dev/shm')
    else:
        args.scratch = os.path.abspath(args.scratch)
    shim = None if args.no_shell_cache else build_shim(args.out)
    confs, roots, syms = {}, {}, {}
    choices = choice_members(args.stock)
    for arch in archs:
        for tag, tree in (('stock', args.stock),
                          ('patched', args.patched)):
            c = Conf(tag, os.path.abspath(tree), arch, args.out)
            c.build(shim)
            run = check_shell_cache(c, os.path.join(
                args.out, 'setup', '%s-%s' % (tag, arch)))
            confs[tag, arch] = c
            with open(os.path.join(c.tree, 'Kconfig')) as f:
                roots[tag, arch] = f.read()
            if tag == 'stock':
                syms[arch] = candidates(run.config, choices)
        log('%s: %d candidate symbols' % (arch, len(syms[arch])))
    return confs, roots, syms, shim


def draw_all(args, archs, syms, choices):
    """The fragments of the run: --count of each of @archs, drawn from
    its candidate symbols @syms (only those of --index when given), the
    architectures in turn, and the boards of the board classes
    (harness_boards.board_frags()).  Returns the list of fragments."""
    frags = []
    sizes = [s for s in args.sizes if s not in BOARD_CLASSES]
    for arch in archs:
        rng = random.Random('%d:%s' % (args.seed, arch))
        defconfigs = defconfig_selects(args.stock, arch, syms[arch]) \
            if set(args.sizes) - set(sizes) or 'defconfig' in sizes else None
        own = [draw(rng, syms[arch], arch, args.seed, i,
                    sizes[i % len(sizes)], defconfigs)
               for i in range(args.count)] if sizes else []
        for f in board_frags(args.stock, arch, defconfigs or {},
                             defconfig_choices(args.stock, arch, choices),
                             args.seed, args.count):
            if f['size'] in args.sizes:
                f['index'] = len(own)
                own.append(f)
        frags += own
    if args.index:
        frags = [f for f in frags if f['index'] in args.index]
    # the architectures in turn, so that a time limit cuts them alike
    frags.sort(key=lambda f: (f['index'], archs.index(f['arch'])))
    return frags


def check_one(confs, roots, frag, args):
    """Check the fragment @frag (check_fragment()) with the confs
    @confs, unless --minutes has passed, and log its line.  Returns its
    result, or None when the time is up."""
    if args.minutes and time.monotonic() - START > 60 * args.minutes:
        return None
    r = check_fragment(confs, roots, frag, args)
    for c in confs.values():
        c.check_unchanged()
    bad = sum(f['kind'] != 'stale_stock' for f in r['diffs']) + \
        len(r['errors']) + len(r['no_ending']) + \
        sum(len(x.get('left', ())) + len(x.get('new', ()))
            for x in r['rounds'])
    if r['clean_after']:
        state = 'clean after round %d' % r['clean_after']
    elif r['rounds']:
        state = 'not clean after %d round(s)' % len(r['rounds'])
    else:
        state = ''
    log('%-3s #%03d %d select(s), %s unmet: %s %s; %d finding(s)' % (
        r['arch'], r['index'], len(r['selects']), r.get('unmet', '?'),
        r['class'], state, bad))
    return r


def print_results(args, archs, frags, results):
    """Print the findings of @results, the table and the goals.
    Returns (the summaries by arch and 'total', the figures by size, the
    goals that failed)."""
    summaries = {a: summarize([r for r in results if r['arch'] == a])
                 for a in archs}
    summaries['total'] = summarize(results)
    print('kconfig-diffharness: seed %d, %d fragment(s) per arch, modes %s, '
          'forms %s, %d round(s)' % (args.seed, args.count,
                                      ' '.join(args.modes),
                                      ' '.join(args.forms), args.rounds))
    if len(results) < len(frags):
        print('kconfig-diffharness: the time limit (--minutes %g) left %d of '
              'the %d fragments unchecked; the figures are of the %d checked'
              % (args.minutes, len(frags) - len(results), len(frags),
                 len(results)))
    print_findings(results, args.show)
    print_table(summaries, archs)
    by_size = print_sizes(results, archs, args.sizes)
    by_board, board_failed, board_goals = print_boards(results, archs)
    main_goals = goals(summaries['total'], SWITCHES[0])
    failed = [g for g in main_goals if not g[5]] + board_failed
    # the one-round goal holds at every random size, not only on the whole
    sizes = [k for k in by_size if k.split()[1] not in BOARD_CLASSES]
    failed += [('fixable_clean1_pct[%s]' % k,) for k in sizes
               if by_size[k].get('fixable_clean1_pct', 100.0) < 95.0]
    checked = len(main_goals) + len(sizes) + board_goals
    by_size.update({k + ' (real boards)': v for k, v in by_board.items()
                    if v.get('boards')})
    print('kconfig-diffharness: %d of %d goals met%s' % (
        checked - len(failed), checked,
        '; failed: ' + ', '.join(g[0] for g in failed) if failed else ''))
    return summaries, by_size, failed


def write_json(args, archs, frags, results, summaries, by_size, shim):
    """Write the run's document (options, goals, summaries, every
    fragment's result) to --json, atomically."""
    doc = {'seed': args.seed, 'count': args.count, 'archs': archs,
           'minutes': args.minutes, 'drawn': len(frags),
           'checked': len(results),
           'modes': args.modes, 'forms': args.forms,
           'rounds': args.rounds, 'stock': os.path.abspath(args.stock),
           'patched': os.path.abspath(args.patched),
           'shell_cache': shim is not None,
           'goals': [{'key': k, 'what': w, 'op': op, 'threshold': t,
                      'value': v, 'ok': ok}
                     for k, w, op, t, v, ok in goals(summaries['total'],
                                                     SWITCHES[0])],
           'sizes': args.sizes, 'by_size': by_size,
           'summary': summaries, 'fragments': results}
    tmp = args.json + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(doc, f, indent=1)
        f.write('\n')
    os.replace(tmp, args.json)


def main():
    """kconfig-diffharness's command line; returns the exit status: 0
    every goal met, 1 one missed, 2 a usage or setup error."""
    ap = parser(__doc__)
    args = ap.parse_args()
    archs = args.arch or ['arm', 'x86']
    if args.minutes is not None and args.minutes <= 0:
        ap.error('--minutes must be above 0')
    if args.count < 1 or args.jobs < 1 or args.rounds < 1:
        ap.error('--count, --jobs and --rounds must be at least 1')
    SWITCHES[0] = switch_rule(args.patched)
    try:
        confs, roots, syms, shim = setup(args, archs)
    except (UsageError, OSError) as e:
        print('kconfig-diffharness: %s' % e, file=sys.stderr)
        return 2
    frags = draw_all(args, archs, syms, choice_members(args.stock))
    log('%d fragments, seed %d, modes %s, forms %s, %d job(s)' % (
        len(frags), args.seed, ' '.join(args.modes), ' '.join(args.forms),
        args.jobs))
    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            results = [r for r in pool.map(
                lambda frag: check_one(confs, roots, frag, args), frags) if r]
        if not results:
            raise SetupError('no fragment checked within --minutes %g' %
                             args.minutes)
    except (UsageError, OSError) as e:
        print('kconfig-diffharness: %s' % e, file=sys.stderr)
        return 2
    finally:
        if args.scratch.startswith('/dev/shm/kconfig-diffharness.'):
            shutil.rmtree(args.scratch, ignore_errors=True)
    summaries, by_size, failed = print_results(args, archs, frags, results)
    if args.json:
        write_json(args, archs, frags, results, summaries, by_size, shim)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

# SPDX-License-Identifier: GPL-2.0
"""harness_check - one random fragment of the differential harness: drawn,
written in both forms, run with stock and patched conf in each mode,
compared, then its hints followed round by round.

It writes only the fragment's own scratch folder.
"""

import collections
import json
import os
import re
import shutil

from .errors import SetupError
from .harness_boards import BOARD_CLASSES, POLICY, judge, real_selects

MODES = ('allnoconfig', 'allyesconfig', 'randconfig')
FORMS = ('a', 'b')
BOARD = 'HARNESS_BOARD'
SKIP = {'MODULES'}                # never drawn, besides choice members
# a board should not select these: BROKEN marks code that does not build,
# COMPILE_TEST builds drivers for coverage (patch 8 never hinted it)
NEVER_HINT = ('BROKEN',) + POLICY
UNMET_RE = re.compile(
    r'^WARNING: unmet direct dependencies detected for (\w+)', re.M)
HINT_NOTE = ': note: to meet it, select '
NO_FIX_NOTE = ': note: no select can meet it'


def choice_members(tree):
    """Symbols that some Kconfig file of @tree defines inside a choice."""
    members = set()
    for top, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if not d.startswith('.')]
        for name in files:
            if not name.startswith('Kconfig'):
                continue
            depth = 0
            with open(os.path.join(top, name), errors='replace') as f:
                for line in f:
                    w = line.split()
                    if not w:
                        continue
                    if w[0] == 'choice' and len(w) <= 2:
                        depth += 1
                    elif w[0] == 'endchoice':
                        depth = max(depth - 1, 0)
                    elif depth and w[0] in ('config', 'menuconfig') and \
                            len(w) == 2:
                        members.add(w[1])
    return members


def candidates(config, choices):
    """The bool and tristate symbols of a .config, less @choices and SKIP."""
    names = re.findall(rb'^(?:CONFIG_(\w+)=[ym]|# CONFIG_(\w+) is not set)$',
                       config, re.M)
    names = {(a or b).decode() for a, b in names}
    return sorted(names - choices - SKIP)


# The sizes of real boards: a handful of selects, a board file of some
# dozens (msm-virt's three levels select 45), and a whole defconfig
SIZES = ('1-8', '9-20', '21-40', 'defconfig') + BOARD_CLASSES


def defconfig_selects(tree, arch, syms):
    """{defconfig: its CONFIG_X=y lines that are candidates, in order}"""
    d = os.path.join(tree, 'arch', arch, 'configs')
    cand, out = set(syms), {}
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else ():
        if not name.endswith('defconfig'):
            continue
        with open(os.path.join(d, name), errors='replace') as f:
            s = [m.group(1) for m in re.finditer(r'^CONFIG_(\w+)=y$',
                                                 f.read(), re.M)]
        s = [x for x in dict.fromkeys(s) if x in cand]
        if s:
            out[name] = s
    return out


def defconfig_choices(tree, arch, choices):
    """{defconfig: its CONFIG_X=y lines of choice members @choices}: what
    a select cannot set, and a board sets in its .config"""
    d = os.path.join(tree, 'arch', arch, 'configs')
    out = {}
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else ():
        if name.endswith('defconfig'):
            with open(os.path.join(d, name), errors='replace') as f:
                out[name] = [m.group(0) for m in re.finditer(
                    r'^CONFIG_(\w+)=y$', f.read(), re.M)
                    if m.group(1) in choices]
    return out


def draw(rng, syms, arch, seed, index, size='1-8', defconfigs=None):
    """Fragment @index: a board that selects k random candidates, k
    drawn in the size class @size, or, for 'defconfig', every =y of one
    of the tree's defconfigs that is a candidate."""
    frag = {'arch': arch, 'index': index, 'seed': seed, 'size': size}
    if size == 'defconfig':
        name = rng.choice(sorted(defconfigs))
        frag.update(defconfig=name, selects=list(defconfigs[name]))
    else:
        lo, hi = (int(x) for x in size.split('-'))
        k = rng.randint(lo, min(hi, len(syms)))
        frag['selects'] = rng.sample(syms, k)
    frag['kconfig_seed'] = rng.randrange(1, 1 << 31)
    return frag


def board(selects):
    """The Kconfig text of the harness's board symbol, which selects
    every symbol of @selects."""
    return ('config %s\n\tbool\n\tdefault y\n' % BOARD +
            ''.join('\tselect %s\n' % s for s in selects))


def form_text(root, selects, form, tag):
    """Form @form of a board that selects @selects, as @tag's conf runs it:
    (a) is the board then 'source "Kconfig"', and for stock the top-level
    Kconfig with the board after its mainmenu line; (b) is the top-level
    Kconfig with the board at its end."""
    text = board(selects)
    if form == 'b':
        return root + '\n' + text
    if tag == 'patched':
        return text + '\nsource "Kconfig"\n'
    m = re.search(r'^mainmenu .*\n', root, re.M)
    if not m:
        raise SetupError('the top-level Kconfig has no mainmenu line')
    return root[:m.end()] + '\n' + text + root[m.end():]


def write_form(d, name, root, selects, form, tag):
    """Write form_text() of the fragment @name to the folder @d;
    returns its path."""
    path = os.path.join(d, '%s-%s-%s.Kconfig' % (name, form, tag))
    with open(path, 'w') as f:
        f.write(form_text(root, selects, form, tag))
    return path


def warned(run):
    """The symbols that the conf run @run warned about as unmet, in
    the order of its warnings (repeats kept)."""
    return UNMET_RE.findall(run.stderr)


def compare(stock, patched):
    """What differs between a stock and a patched run of one input."""
    found = []
    if stock.rc != patched.rc or stock.config != patched.config:
        detail = 'exit %d, stock %d' % (patched.rc, stock.rc)
        if stock.config is not None and patched.config is not None:
            s, p = stock.config.splitlines(), patched.config.splitlines()
            i = next((i for i, (a, b) in enumerate(zip(s, p)) if a != b),
                     min(len(s), len(p)))
            detail = '.config line %d: stock %r, patched %r' % (
                i + 1, s[i].decode(errors='replace') if i < len(s) else None,
                p[i].decode(errors='replace') if i < len(p) else None)
        found.append({'kind': 'config', 'detail': detail})
    s, p = set(warned(stock)), set(warned(patched))
    if s != p:
        found.append({'kind': 'warned', 'only_stock': sorted(s - p),
                      'only_patched': sorted(p - s)})
    found += duplicates(patched)
    return found


def stale_in_stock(stock, kconfig, run, finding):
    """Stock warns as it calculates, so it can warn about a select that
    its final .config meets (randconfig).  A symbol warned only by stock
    is stale if stock, rereading that .config (olddefconfig), does not warn
    about it: then the difference is stock's, and not counted."""
    again = stock.run(kconfig, 'olddefconfig', run.dir + '-reread',
                      config=run.config)
    stale = [s for s in finding['only_stock'] if s not in warned(again)]
    if stale == finding['only_stock'] and not finding['only_patched']:
        return {'kind': 'stale_stock', 'symbols': stale}
    return dict(finding, stale_in_stock=stale)


def duplicates(run):
    """The symbols that the conf run @run warned about more than
    once, as findings of kind 'duplicate'."""
    return [{'kind': 'duplicate', 'symbol': sym, 'times': n}
            for sym, n in sorted(collections.Counter(warned(run)).items())
            if n > 1]


def no_ending(run):
    """The warned symbols whose warning ends in neither note."""
    blocks = re.split(r'^(?=WARNING: unmet direct)', run.stderr, flags=re.M)
    return [UNMET_RE.match(b).group(1) for b in blocks if UNMET_RE.match(b)
            and HINT_NOTE not in b and NO_FIX_NOTE not in b]


def pairs(report):
    """{(selector, target): unmet entry} of a JSON report."""
    return {(s['symbol'], u['symbol']): u
            for u in report['unmet'] for s in u['selected_by']}


def classify(report):
    """The class of a conf run from its JSON @report: 'clean' (no
    unmet select), 'unfixable' (one that no select can meet),
    'undiagnosed' (one without a hint) or 'fixable'."""
    unmet = report['unmet']
    if not unmet:
        return 'clean'
    if any(not u['can_fix'] for u in unmet):
        return 'unfixable'
    if any(not u['hint'] for u in unmet):
        return 'undiagnosed'
    return 'fixable'


def follow_hints(patched, frag, run0, root, d, rounds):
    """Select the union hint, rerun allnoconfig on form (a), up to @rounds
    times; return (rounds, runs, rounds until clean or None)."""
    selects, runs, out, cur = list(frag['selects']), [], [], run0
    for r in range(1, rounds + 1):
        rep = cur.report
        if not rep['unmet']:
            break
        add = [s for s in rep['hint'] if s not in selects]
        if not add:
            # stuck: warnings with a hint of their own, and the union
            # gives nothing more to do
            stuck = sorted({u['symbol'] for u in rep['unmet']
                            if u['can_fix'] and u['hint']})
            if stuck:
                out.append({'round': r, 'stuck': stuck})
            break
        selects += add
        path = write_form(d, 'round%d' % r, root, selects, 'a', 'patched')
        nxt = patched.run(path, 'allnoconfig', os.path.join(d, 'round%d' % r),
                          allconfig=frag.get('allconfig'))
        runs.append(nxt)
        if nxt.report is None:
            out.append({'round': r, 'added': add, 'error': nxt.dir})
            break
        before, after = pairs(rep), pairs(nxt.report)
        # a warning whose own hint is followed, and yet still there; one
        # whose hint the union left out is counted in union_missed
        left = [{'selector': sel, 'target': tgt, 'hint': u['hint'],
                 'blocking_after': [b['expr'] + ' [=%s]' % b['value']
                                    for b in after[sel, tgt]['blocking']]}
                for (sel, tgt), u in before.items()
                if u['can_fix'] and u['hint'] and (sel, tgt) in after and
                all(h in selects for h in u['hint'])]
        old = {u['symbol'] for u in rep['unmet']}
        new = [{'target': u['symbol'],
                'selected_by': [s['symbol'] for s in u['selected_by']],
                'blocking': [b['expr'] + ' [=%s]' % b['value']
                             for b in u['blocking']]}
               for u in nxt.report['unmet'] if u['symbol'] not in old]
        # the union should hold every warning's own hint
        missed = [{'target': u['symbol'],
                   'missing': [h for h in u['hint'] if h not in selects]}
                  for u in rep['unmet']
                  if u['can_fix'] and not all(h in selects for h in u['hint'])]
        # "no select can meet it", and yet selects met it; unless a new
        # unmet select forced a symbol of its dependency on
        wrong = [{'selector': sel, 'target': tgt}
                 for (sel, tgt), u in before.items()
                 if not u['can_fix'] and (sel, tgt) not in after and not new]
        out.append({'round': r, 'added': add, 'unmet': len(after),
                    'left': left, 'new': new, 'union_missed': missed,
                    'wrongly_unfixable': wrong})
        cur = nxt
    clean = next((r['round'] for r in out
                  if 'unmet' in r and r['unmet'] == 0), None)
    return out, runs, clean


def check_fragment(confs, roots, frag, args):
    """Every check on one fragment; return its result."""
    arch = frag['arch']
    where = os.path.join('fragments', arch, '%03d' % frag['index'])
    d = os.path.join(args.scratch, where)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    stock, patched = confs['stock', arch], confs['patched', arch]
    if frag['size'] in BOARD_CLASSES:
        frag = real_selects(stock, frag, os.path.join(args.scratch, 'real',
                                                      arch, frag['defconfig']))
    paths = {(tag, form): write_form(d, 'board', roots[tag, arch],
                                     frag['selects'], form, tag)
             for tag in ('stock', 'patched') for form in FORMS}
    res = dict(frag, dir=d, diffs=[], errors=[], no_ending=[], runs=0,
               compared=0)
    patched_runs, run0 = [], None
    for form in args.forms:
        for mode in args.modes:
            seed = frag['kconfig_seed'] if mode == 'randconfig' else None
            name = '%s-%s' % (form, mode)
            s = stock.run(paths['stock', form], mode,
                          os.path.join(d, 'stock-' + name), seed,
                          allconfig=frag.get('allconfig'))
            p = patched.run(paths['patched', form], mode,
                            os.path.join(d, 'patched-' + name), seed,
                            allconfig=frag.get('allconfig'))
            res['runs'] += 2
            res['compared'] += 1
            for r in (s, p):
                if r.rc:
                    res['errors'].append(r.dir)
            for f in compare(s, p):
                if f['kind'] == 'warned' and f['only_stock'] and s.config:
                    f = stale_in_stock(stock, paths['stock', form], s, f)
                    res['runs'] += 1
                res['diffs'].append(dict(f, form=form, mode=mode))
            patched_runs.append(p)
            if form == 'a' and mode == 'allnoconfig':
                run0 = p
    if run0 is None:
        run0 = patched.run(paths['patched', 'a'], 'allnoconfig',
                           os.path.join(d, 'patched-a-allnoconfig'),
                           allconfig=frag.get('allconfig'))
        res['runs'] += 1
        patched_runs.append(run0)
    if run0.report is None:
        res['errors'].append(run0.dir)
        res['class'], res['rounds'], res['clean_after'] = 'error', [], None
    else:
        res['class'] = classify(run0.report)
        res['unmet'] = len(pairs(run0.report))
        res['hint'] = run0.report['hint']
        res['never_hint'] = sorted({h for u in run0.report['unmet']
                                    for h in u['hint'] + res['hint']
                                    if h in NEVER_HINT})
        res['rounds'], runs, res['clean_after'] = follow_hints(
            patched, frag, run0, roots['patched', arch], d, args.rounds)
        res['runs'] += len(runs)
        res['errors'] += [r['error'] for r in res['rounds'] if 'error' in r]
        for r in runs:
            res['diffs'] += [dict(f, form='a', mode='allnoconfig, round')
                             for f in duplicates(r)]
        patched_runs += runs
        if frag['size'] in BOARD_CLASSES:
            judge(res, stock, frag, run0.report,
                  os.path.join(args.scratch, 'real', arch, frag['defconfig']))
    for r in patched_runs:
        res['no_ending'] += [{'symbol': s, 'run': r.dir} for s in no_ending(r)]
    findings = res['diffs'] or res['errors'] or res['no_ending'] or \
        any(r.get('left') or r.get('new') for r in res['rounds']) or \
        res['class'] == 'fixable' and res['clean_after'] != 1
    if not findings and not args.keep:
        shutil.rmtree(d)
        res['dir'] = None
    elif args.scratch != args.out:
        kept = os.path.join(args.out, where)
        shutil.rmtree(kept, ignore_errors=True)
        # include/config/ holds a stamp file per symbol: not worth keeping
        for top, dirs, _ in os.walk(d):
            if os.path.basename(top) == 'include' and 'config' in dirs:
                shutil.rmtree(os.path.join(top, 'config'))
                dirs.remove('config')
        shutil.move(d, kept)
        # the folders named in the result, from scratch to where they are
        res = json.loads(json.dumps(res).replace(json.dumps(d)[1:-1],
                                                 json.dumps(kept)[1:-1]))
    return res

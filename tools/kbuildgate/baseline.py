# SPDX-License-Identifier: GPL-2.0
"""kconfig-baseline - the baseline's items, stock kconfig against the series.

For each item of shared/BASELINE.md (and the typo of the 7.2 issue), run
the same input through the stock tree and the patched tree of
KERNEL_VERSION, and print one row: what stock does, what the series
does, and whether the series beats stock.  The table is what
docs/measurements.md quotes, with the date of the run.

Exit status: 0 the series beats stock on every item, 1 on some it does
not, 2 usage or infrastructure error (a tree missing).
"""

import argparse
import json
import os
import re
import sys
import tempfile
import time

from . import kmake, util

__version__ = '1.0'

UNMET_RE = re.compile(r'unmet direct dependencies detected for (\w+)')

# The tree's real unmet select on ARM (selftests/conftest.py's REAL_UNMET)
REAL_UNMET = {
    '6.1': ('CONFIG_ARCH_MULTI_V7=y\nCONFIG_ARCH_QCOM=y\n'
            'CONFIG_COMPILE_TEST=n\n', 'randconfig', {'KCONFIG_SEED': '105'},
            'DEBUG_MAPLE_TREE'),
    '6.12': ('CONFIG_MMU=y\nCONFIG_ARCH_MULTI_V7=y\nCONFIG_ARCH_BCM=y\n'
             'CONFIG_ARCH_BRCMSTB=y\n', 'allnoconfig', {},
             'HAVE_ARM_SMCCC_DISCOVERY'),
}
REAL_UNMET['7.2'] = REAL_UNMET['6.12']

BOARD = 'config MYCONFIG\n\tbool\n\tdefault y\n\tselect %s\n\n'


def kmake_run(tree, out, *targets, arch='x86', env=None):
    """make @targets in @tree (kmake.make()), the variables of @env
    added; returns (exit status, output)."""
    ps = kmake.make(tree, out, arch, *targets,
                    env=kmake.environment(extra=env))
    return ps.returncode, ps.stdout


def flat_fragment(tree, path, select):
    """A fragment that stock can parse: the board, then the root Kconfig's
    lines without its mainmenu (stock cannot source "Kconfig")."""
    with open(os.path.join(tree, 'Kconfig')) as f:
        root = [l for l in f if not l.startswith('mainmenu')]
    with open(path, 'w') as f:
        f.write(BOARD % select + ''.join(root))
    return path


def written(out):
    """'written' when conf wrote OUT/.config in @out, else 'nothing
    written'."""
    return 'written' if os.path.exists(os.path.join(out, '.config')) \
        else 'nothing written'


def item_werror(tree, tmp, select='USB'):
    """KCONFIG_WERROR=1 allnoconfig on a board that selects @select: USB,
    whose dependencies are off, or a typo that no Kconfig file defines."""
    frag = flat_fragment(tree, os.path.join(tmp, 'flat.Kconfig'), select)
    out = os.path.join(tmp, 'o')
    rc, text = kmake_run(tree, out, 'allnoconfig',
                     env={'KBUILD_KCONFIG': frag, 'KCONFIG_WERROR': '1'})
    return 'exit %d, .config %s' % (rc, written(out)), rc != 0 and \
        not os.path.exists(os.path.join(out, '.config')), text


def real_unmet(tree, tmp):
    """Configure @tree for ARM in @tmp/o with its real unmet select
    (REAL_UNMET of KERNEL_VERSION, its values as KCONFIG_ALLCONFIG).
    Returns (the output folder, the symbol left unmet)."""
    allconfig, target, env, sym = REAL_UNMET[util.KERNEL_VERSION]
    path = os.path.join(tmp, 'all.config')
    with open(path, 'w') as f:
        f.write(allconfig)
    out = os.path.join(tmp, 'o')
    kmake_run(tree, out, target, arch='arm', env=dict(env, KCONFIG_ALLCONFIG=path))
    return out, sym


def item_duplicates(tree, tmp):
    """The tree's real unmet select on ARM (REAL_UNMET), then
    olddefconfig and syncconfig: how often each warns about it.  Returns
    (the row's text, whether each warned once, conf's output)."""
    out, sym = real_unmet(tree, tmp)
    counts = []
    for mode in ('olddefconfig', 'syncconfig'):
        _, text = kmake_run(tree, out, mode, arch='arm')
        counts.append(UNMET_RE.findall(text).count(sym))
    return '%s: %d in olddefconfig, %d in syncconfig' % (sym, *counts), \
        counts == [1, 1], text


def item_diagnosis(tree, tmp, what):
    """allnoconfig on a board that selects USB: conf's @what
    ('location', 'cause' or 'fix') line.  Returns (the line or 'none',
    whether there is one, conf's output)."""
    frag = flat_fragment(tree, os.path.join(tmp, 'flat.Kconfig'), 'USB')
    rc, text = kmake_run(tree, os.path.join(tmp, 'o'), 'allnoconfig',
                     env={'KBUILD_KCONFIG': frag})
    pattern = {'location': r'^\S+:\d+: warning: MYCONFIG .*selects USB',
               'cause': r'^\S+:\d+: note: blocked by ',
               'fix': r'^\S+:\d+: note: to meet it, select '}[what]
    m = re.search(pattern, text, re.M)
    return (m.group(0).replace(tmp + '/', '').rstrip() + ' ...' if m
            else 'none'), bool(m), text


def item_torvalds(tree, tmp):
    """Torvalds's fragment: a board, then source "Kconfig", as
    KBUILD_KCONFIG.  Returns (the exit status and first diagnostic,
    whether it configured and warned about USB alone, conf's output)."""
    frag = os.path.join(tmp, 'Mykconfig')
    with open(frag, 'w') as f:
        f.write(BOARD % 'USB' + 'source "Kconfig"\n')
    out = os.path.join(tmp, 'o')
    rc, text = kmake_run(tree, out, 'allnoconfig', env={'KBUILD_KCONFIG': frag})
    first = next((l for l in text.splitlines()
                  if re.match(r'\S+:\d+:', l)), 'no diagnostic')
    return 'exit %d: %s' % (rc, first.replace(tmp + '/', '')), rc == 0 and \
        UNMET_RE.findall(text) == ['USB'], text


def item_dropped(tree, tmp):
    """CONFIG_USB=y as KCONFIG_ALLCONFIG of allnoconfig under
    KCONFIG_WERROR and KCONFIG_WARN_DROPPED: is the dropped request
    reported and fatal?  Returns (the row's text, whether it is, conf's
    output)."""
    path = os.path.join(tmp, 'all.config')
    with open(path, 'w') as f:
        f.write('CONFIG_USB=y\n')
    rc, text = kmake_run(tree, os.path.join(tmp, 'o'), 'allnoconfig',
                     env={'KCONFIG_ALLCONFIG': path, 'KCONFIG_WERROR': '1',
                          'KCONFIG_WARN_DROPPED': '1'})
    said = 'CONFIG_USB=y' in text
    return 'exit %d, %s' % (rc, 'reported' if said else 'silent'), \
        rc != 0 and said, text


def item_stale(tree, tmp):
    """A build folder configured with the real unmet select, then
    make prepare again under KCONFIG_WERROR=1: does it fail?  Returns (the
    row's text, whether it failed, make's output)."""
    out, _ = real_unmet(tree, tmp)
    kmake_run(tree, out, 'prepare', arch='arm')
    rc, text = kmake_run(tree, out, 'prepare', arch='arm',
                     env={'KCONFIG_WERROR': '1'})
    return 'KCONFIG_WERROR=1 make prepare: exit %d' % rc, rc != 0, text


ITEMS = [
    ('1. KCONFIG_WERROR=1 allnoconfig, unmet select', item_werror),
    ('2. duplicates (ARM, real unmet select)', item_duplicates),
    ('3. location of the select', lambda t, d: item_diagnosis(t, d,
                                                             'location')),
    ('4. the conjunct that blocks', lambda t, d: item_diagnosis(t, d,
                                                               'cause')),
    ('5. what to select', lambda t, d: item_diagnosis(t, d, 'fix')),
    ('6. Torvalds\'s fragment, source "Kconfig"', item_torvalds),
    ('7. dropped request, KCONFIG_WERROR=1', item_dropped),
    ('8. stale build, KCONFIG_WERROR=1 make', item_stale),
    ('9. select USBB (a typo), KCONFIG_WERROR=1',
     lambda t, d: item_werror(t, d, 'USBB')),
]


def main():
    """kconfig-baseline's command line: each item of ITEMS on the
    stock and the patched tree, one row each.  Returns the exit status:
    0 the series beats stock on every item, 1 not, 2 a tree missing."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    kmake.tree_pair_options(ap)
    ap.add_argument('--json', help='write the rows to this file')
    ap.add_argument('--version', action='version',
                    version='%(prog)s ' + __version__)
    args = ap.parse_args()
    for t in (args.stock, args.patched):
        if not os.path.isfile(os.path.join(t, 'scripts/kconfig/conf.c')):
            print('kconfig-baseline: %s is not a kernel tree' % t,
                  file=sys.stderr)
            return 2

    rows = []
    print('| item | stock %s | series |' % util.KERNEL_VERSION)
    print('|---|---|---|')
    for name, fn in ITEMS:
        print('kconfig-baseline: %s ...' % name, file=sys.stderr, flush=True)
        res = {}
        for tag, tree in (('stock', args.stock), ('series', args.patched)):
            with tempfile.TemporaryDirectory(prefix='kconfig-baseline.') as d:
                res[tag] = fn(os.path.abspath(tree), d)
        beats = res['series'][1] and not res['stock'][1]
        rows.append({'item': name, 'stock': res['stock'][0],
                     'series': res['series'][0], 'beats_stock': beats})
        print('| %s | %s | %s%s |' % (name, res['stock'][0], res['series'][0],
                                      '' if beats else ' (NOT BETTER)'),
              flush=True)
    worse = [r['item'] for r in rows if not r['beats_stock']]
    print('kconfig-baseline: %s, %s: the series beats stock on %d of %d '
          'items' % (util.KERNEL_VERSION, time.strftime('%Y-%m-%d'),
                     len(rows) - len(worse), len(rows)))
    if args.json:
        util.write_atomic(args.json, json.dumps(
            {'kernel_version': util.KERNEL_VERSION,
             'date': time.strftime('%Y-%m-%d'), 'rows': rows}, indent=2)
            + '\n')
    return 1 if worse else 0

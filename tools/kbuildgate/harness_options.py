# SPDX-License-Identifier: GPL-2.0
"""harness_options - the options of kconfig-diffharness (diffharness.py),
each with its help and default.

It runs nothing.
"""

import argparse
import os

from . import kmake, util
from .harness_check import FORMS, MODES, SIZES


def parser(doc):
    """kconfig-diffharness's argparse parser; @doc is the tool's
    docstring, whose first line describes it."""
    ap = argparse.ArgumentParser(
        description=doc.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--version', action='version',
                    version='%(prog)s ' + util.VERSION)
    ap.add_argument('--seed', type=int, default=1,
                    help='seed of the random draw of the fragments: the same '
                    'seed draws the same fragments (default 1)')
    ap.add_argument('--index', type=int, action='append',
                    help='check only fragment INDEX of each arch (repeatable;'
                    ' the fragments are drawn as without it)')
    ap.add_argument('--count', type=int, default=100,
                    help='fragments per architecture (default 100)')
    ap.add_argument('--arch', action='append', choices=('arm', 'x86', 'mips', 'powerpc', 'sh'),
                    help='architecture (repeatable; default arm and x86)')
    ap.add_argument('--modes', nargs='+', choices=MODES, default=list(MODES),
                    help='conf modes compared, stock against patched '
                    '(default: all three)')
    ap.add_argument('--forms', nargs='+', choices=FORMS, default=list(FORMS),
                    help='how the board is written: (a) a fragment that '
                    'sources "Kconfig", (b) the board at the end of the '
                    'top-level Kconfig (default: both)')
    ap.add_argument('--sizes', nargs='+', choices=SIZES, default=['1-8'],
                    help='size classes of the fragments, drawn in turn: '
                    'SIZES selects, or "defconfig", every =y of one of the '
                    'tree\'s defconfigs; "board" and "ablated" judge the '
                    'hints against the tree\'s defconfigs: every defconfig '
                    '(the first --count), as a board and less its platform '
                    'symbol (default: 1-8)')
    ap.add_argument('--rounds', type=int, default=3,
                    help='rounds of following the union hint (default 3)')
    kmake.tree_pair_options(ap)
    ap.add_argument('--out', default=os.path.join(util.TREES, 'out',
                                                  'diffharness'),
                    help='folder for conf builds, caches and the fragments '
                    'with findings (default: build/out/diffharness)')
    ap.add_argument('--jobs', type=int, default=1,
                    help='fragments checked at a time (default 1)')
    ap.add_argument('--minutes', type=float,
                    help='start no fragment after this many minutes; the '
                    'figures are of those checked (default: no limit)')
    ap.add_argument('--json', help='write the results to this file')
    ap.add_argument('--keep', action='store_true',
                    help='keep the folders of fragments without findings')
    ap.add_argument('--show', type=int, default=10,
                    help='examples printed per kind of finding (default 10)')
    ap.add_argument('--scratch',
                    help='folder for the conf runs of each fragment (default:'
                    ' a new folder in /dev/shm, removed at the end); those '
                    'with findings move to OUT/fragments')
    ap.add_argument('--no-shell-cache', action='store_true',
                    help='run conf without the popen cache (10x slower)')
    return ap

# SPDX-License-Identifier: GPL-2.0
"""kconfig-fragment - check, fix or import Kconfig board fragments.

  kconfig-fragment check [--srctree DIR] [--arch ARCH] [--json FILE] FRAGMENT
  kconfig-fragment fix   [--srctree DIR] [--arch ARCH] [--json FILE] FRAGMENT
  kconfig-fragment import --out DIR [--srctree DIR] [--arch ARCH|all]
                          [--check] [--json FILE] [DEFCONFIG...]

FRAGMENT is a Kconfig file in Torvalds's style: board entries that select
what the board needs, then 'source "Kconfig"'.  Its path is absolute, or
relative to the current folder or to the source tree.

check generates the configuration ("KBUILD_KCONFIG=FRAGMENT
KCONFIG_WERROR=1 make allnoconfig", through kconfig.configure_fragment(),
as kconfig-gate does) and prints conf's own diagnostic lines as they are
("FILE:LINE: warning:" for each unmet select and each select of a symbol
that no Kconfig file defines, "FILE:LINE: note:" for what blocks it and
what to select, a syntax error at its FILE:LINE), then one summary line:

  kconfig-fragment: N unmet select(s), N undefined symbol(s), N dropped request(s)

fix adds the hinted "select" lines of kconfig's JSON report
(KCONFIG_UNMET_REPORT) to the board symbol, after its last select, and
runs again until nothing is unmet.  It never removes or reorders a line.
It prints the diff it applied.  If a select cannot be met (a conflict),
or names a symbol that no Kconfig file defines (a typo: no select can
define it), it prints conf's lines and leaves the file unchanged.

import writes every defconfig (or those named) as a board fragment in a
hierarchy of Kconfig files that regenerates its .config exactly; with
--arch all, every architecture of the tree in OUT/ARCH/: see
"kconfig-fragment import --help" and docs/import.md.

The tree must carry this project's kconfig series.  --srctree defaults to
the patched tree of KERNEL_VERSION (build/patched for 6.1), as in every
tool; --arch to $ARCH, then to the host's architecture, as in kbuild.

Exit status: 0 clean, 1 findings: unmet selects, undefined symbols,
dropped requests or a syntax error (or, for fix, cannot be fixed), 2 usage
or infrastructure error (no tree, no fragment, conf failed without
saying where).
"""

import argparse
import difflib
import json
import os
import platform
import re
import sys
import tempfile

from . import kmake, util
from .errors import UsageError
from .kconfig import summary_counts

TOP = util.TOP
MAX_ROUNDS = 5


def host_arch():
    """The kernel's ARCH of this machine (x86 for x86_64)."""
    m = platform.machine()
    return {'x86_64': 'x86', 'i686': 'x86', 'i386': 'x86', 'aarch64': 'arm64',
            'armv7l': 'arm', 'armv6l': 'arm'}.get(m, m)


def find_fragment(path, srctree):
    """@path, absolute, or relative to the current folder or to
    @srctree; raises UsageError when it is in neither."""
    for p in (path, os.path.join(srctree, path)):
        if os.path.isfile(p):
            return os.path.abspath(p)
    raise UsageError('%s: no such fragment (nor in %s)' % (path, srctree))


def configure(srctree, arch, fragment, outdir):
    """Configure @fragment under KCONFIG_WERROR (kmake.configure());
    returns its kconfig.ConfResult.  A failure that conf does not place
    at a FILE:LINE is an infrastructure error (UsageError)."""
    res = kmake.configure(srctree, outdir, arch, werror=True,
                          kconfig=fragment,
                          log=os.path.join(outdir, 'configure.log'))
    if res['reason'] == 'configure' and not res['diagnostics']:
        raise UsageError('conf failed on %s: %s' % (fragment, res['detail']))
    if res['returncode'] == 0 and res['report'] is None:
        raise UsageError('kconfig wrote no JSON report for %s: does %s carry '
                    'the series?' % (fragment, srctree))
    return res


def summary(res):
    """The summary line of a check."""
    return 'kconfig-fragment: ' + (
        'syntax error at %s' % res['location']
        if res['reason'] == 'syntax error' else
        'conf failed: %s' % res['detail'] if res['reason'] == 'configure'
        else summary_counts(res))


def show(res):
    """conf's diagnostic lines, as they are."""
    for line in res['diagnostics']:
        print(line)


def board_symbol(report, fragment):
    """The symbol of @fragment whose selects are unmet."""
    for u in report['unmet']:
        for s in u['selected_by']:
            if os.path.abspath(s['file']) == fragment:
                return s['symbol']
    return None


def add_selects(lines, board, symbols):
    """Add "select SYM" lines after the last line of @board's entry that
    selects something.  Return the new lines; never change existing ones."""
    start = None
    for i, line in enumerate(lines):
        if re.match(r'\s*(menu)?config\s+%s\s*$' % re.escape(board), line):
            start = i
            break
    if start is None:
        raise UsageError('cannot find "config %s" in the fragment' % board)
    end = start + 1
    last_select = start
    while end < len(lines) and (lines[end].strip() == '' or
                                lines[end][0] in ' \t' or
                                lines[end].lstrip().startswith('#')):
        if re.match(r'\s+select\s', lines[end]):
            last_select = end
        end += 1
    indent = re.match(r'(\s*)', lines[last_select]).group(1) \
        if last_select != start else '\t'
    present = {m.group(1) for m in
               (re.match(r'\s+select\s+(\w+)', l) for l in lines[start:end]) if m}
    new = ['%sselect %s\n' % (indent, s) for s in symbols if s not in present]
    return lines[:last_select + 1] + new + lines[last_select + 1:], len(new)


def fix(srctree, arch, fragment, outdir):
    """Add the hinted selects to @fragment, round by round, until nothing
    is unmet; restore it when it cannot be fixed.  Returns (exit status,
    rounds, the last kconfig.ConfResult)."""
    with open(fragment) as f:
        original = f.read()
    lines = original.splitlines(keepends=True)
    rounds = 0
    try:
        while True:
            res = configure(srctree, arch, fragment, outdir)
            report = res['report']
            if res['undefined']:
                raise RuntimeError(res, '%d select(s) of undefined '
                                   'symbols (%s): no select can define '
                                   'them; correct the names' % (
                                       len(res['undefined']), ' '.join(
                                           u['symbol'] for u in
                                           res['undefined'])))
            if res['reason'] in ('syntax error', 'configure'):
                raise RuntimeError(res, res['detail'])
            unmet = report['unmet']
            if not unmet:
                break
            blocked = [u['symbol'] for u in unmet if not u['can_fix']]
            if blocked:
                raise RuntimeError(res, 'no select can meet %s' %
                                   ' '.join(blocked))
            if rounds == MAX_ROUNDS:
                raise RuntimeError(res, 'still unmet after %d rounds' %
                                   rounds)
            board = board_symbol(report, fragment)
            if not board:
                raise UsageError('no select of %s is unmet: nothing to fix here'
                            % fragment)
            lines, added = add_selects(lines, board, report['hint'])
            if not added:
                raise RuntimeError(res, 'the hint adds nothing new')
            rounds += 1
            print('kconfig-fragment: round %d: %d unmet select(s); '
                  'selecting %s from %s' %
                  (rounds, sum(len(u['selected_by']) for u in unmet),
                   ' '.join(report['hint']), board), flush=True)
            util.write_atomic(fragment, ''.join(lines))
    except RuntimeError as e:
        res, why = e.args
        if ''.join(lines) != original:
            util.write_atomic(fragment, original)
        show(res)
        print('kconfig-fragment: %s: cannot be fixed by adding selects (%s); '
              'left unchanged' % (fragment, why))
        return 1, rounds, res
    except BaseException:
        if ''.join(lines) != original:
            util.write_atomic(fragment, original)
        raise

    diff = ''.join(difflib.unified_diff(
        original.splitlines(keepends=True), lines, fragment, fragment))
    sys.stdout.write(diff)
    show(res)
    print('kconfig-fragment: %s: clean after %d round(s)%s' % (
        fragment, rounds, '; ' + summary_counts(res) if res['reason'] else ''))
    return (1 if res['reason'] else 0), rounds, res


def main():
    """kconfig-fragment's command line; returns the exit status."""
    if sys.argv[1:2] == ['import']:
        from . import importer
        ap = argparse.ArgumentParser(prog='kconfig-fragment')
        importer.add_parser(ap.add_subparsers(dest='command'))
        args = ap.parse_args()
        try:
            return importer.import_all(args)
        except UsageError as e:
            print('kconfig-fragment: %s' % e, file=sys.stderr)
            return 2
    ap = util.tool_parser('kconfig-fragment', __doc__)
    ap.add_argument('command', choices=['check', 'fix'],
                    help='check: configure and report; fix: add the '
                    'hinted selects to the fragment ("import" has its own '
                    'options: import --help)')
    ap.add_argument('--srctree', **kmake.srctree_option())
    ap.add_argument('--arch', default=os.environ.get('ARCH') or host_arch(),
                    help='architecture (default: $ARCH, else the host\'s: '
                    '%(default)s)')
    ap.add_argument('--json', metavar='FILE',
                    help='write the final kconfig report here, with '
                    '"reason", "undefined" and "diagnostics" added')
    ap.add_argument('--out', help='output folder (default: a temporary one)')
    ap.add_argument('fragment', metavar='FRAGMENT',
                    help='the Kconfig fragment (absolute, or relative to '
                    'the current folder or to the tree)')
    args = ap.parse_args()

    try:
        srctree = os.path.abspath(args.srctree)
        kmake.check_tree(srctree)
        kmake.check_arch(srctree, args.arch)
        fragment = find_fragment(args.fragment, srctree)
        with tempfile.TemporaryDirectory(prefix='kconfig-fragment.') as tmp:
            outdir = os.path.abspath(args.out) if args.out else tmp
            os.makedirs(outdir, exist_ok=True)
            if args.command == 'check':
                res = configure(srctree, args.arch, fragment, outdir)
                show(res)
                print(summary(res))
                ret = 1 if res['reason'] or res['returncode'] else 0
            else:
                ret, _, res = fix(srctree, args.arch, fragment, outdir)
    except UsageError as e:
        print('kconfig-fragment: %s' % e, file=sys.stderr)
        return 2
    if args.json:
        doc = dict(res['report'] or {}, reason=res['reason'],
                   detail=res['detail'], undefined=res['undefined'],
                   diagnostics=res['diagnostics'])
        if res['location']:
            doc['location'] = res['location']
        try:
            util.write_atomic(args.json, json.dumps(doc, indent=2) + '\n')
        except OSError as e:
            print('kconfig-fragment: cannot write %s: %s' % (args.json, e),
                  file=sys.stderr)
            return 2
    return ret


if __name__ == '__main__':
    sys.exit(main())

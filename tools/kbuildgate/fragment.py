# SPDX-License-Identifier: GPL-2.0
"""kconfig-fragment - check a Kconfig board fragment, fix it in place, or
import defconfigs as fragments.

  kconfig-fragment check [--srctree DIR] [--arch ARCH] [--json FILE] FRAGMENT
  kconfig-fragment fix   [--srctree DIR] [--arch ARCH] [--json FILE] FRAGMENT
  kconfig-fragment import --out DIR [--srctree DIR] [--arch ARCH] [--check]
                          [--json FILE] [DEFCONFIG...]

FRAGMENT is a Kconfig file in Torvalds's style: board entries that select
what the board needs, then 'source "Kconfig"'.  Its path is absolute, or
relative to the current folder or to the source tree.

check generates the configuration ("KBUILD_KCONFIG=FRAGMENT make
allnoconfig") and prints what kconfig's JSON report (KCONFIG_UNMET_REPORT)
says: each unmet select with what blocks it and what to select.

fix adds the hinted "select" lines to the board symbol, after its last
select, and runs again until nothing is unmet.  It never removes or
reorders a line.  It prints the diff it applied.  If a select cannot be
met (a conflict), it names what blocks it and leaves the file unchanged.

import writes every defconfig (or those named) as a board fragment in a
hierarchy of Kconfig files that regenerates its .config exactly: see
"kconfig-fragment import --help" and docs/import.md.

The tree must carry this project's kconfig series.  --srctree defaults to
$KERNEL_SRC, then to build/patched of this project; --arch to $ARCH, then
to the host's architecture, as in kbuild.

Exit status: 0 clean, 1 unmet selects or dropped requests remain (or, for
fix, cannot be fixed), 2 usage or tree error.
"""

import argparse
import difflib
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

from .boards import CROSS_COMPILE
from . import util

TOP = util.TOP
MAX_ROUNDS = 5


class Error(Exception):
    """A usage or infrastructure error: exit 2."""


def host_arch():
    m = platform.machine()
    return {'x86_64': 'x86', 'i686': 'x86', 'i386': 'x86', 'aarch64': 'arm64',
            'armv7l': 'arm', 'armv6l': 'arm'}.get(m, m)


def find_fragment(path, srctree):
    for p in (path, os.path.join(srctree, path)):
        if os.path.isfile(p):
            return os.path.abspath(p)
    raise Error('%s: no such fragment (nor in %s)' % (path, srctree))


def configure(srctree, arch, fragment, outdir):
    """Run allnoconfig on @fragment; return kconfig's JSON report."""
    report = os.path.join(outdir, 'report.json')
    if os.path.exists(report):
        os.unlink(report)
    cmd = ['make', '-s', '-C', srctree, 'O=' + outdir, 'ARCH=' + arch,
           'KBUILD_KCONFIG=' + fragment, 'allnoconfig']
    if arch in CROSS_COMPILE:
        cmd.append('CROSS_COMPILE=' + CROSS_COMPILE[arch])
    env = {k: v for k, v in os.environ.items()
           if k not in ('KCONFIG_WERROR', 'KCONFIG_ALLCONFIG', 'ARCH')}
    env['KCONFIG_UNMET_REPORT'] = report
    ps = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
    if not os.path.exists(report):
        tail = '\n'.join(ps.stdout.splitlines()[-10:])
        raise Error('kconfig failed on %s:\n%s' % (fragment, tail))
    with open(report) as f:
        return json.load(f)


def describe(report, out=sys.stdout):
    for u in report['unmet']:
        for s in u['selected_by']:
            out.write('%s:%d: %s selects %s%s, whose dependencies are unmet\n'
                      % (s['file'], s['line'], s['symbol'], u['symbol'],
                         ' if ' + s['if'] if s['if'] else ''))
        d = u['defined_at'][0] if u['defined_at'] else {'file': '?', 'line': 0}
        for b in u['blocking']:
            out.write('%s:%d:   blocked by %s [=%s]%s\n' %
                      (d['file'], d['line'], b['expr'], b['value'],
                       ' (conflict with %s)' % b['conflict']
                       if 'conflict' in b else ''))
        if u['can_fix']:
            out.write('%s:%d:   select %s\n' % (d['file'], d['line'],
                                                ' '.join(u['hint'])))
        else:
            out.write('%s:%d:   no select can meet it\n' % (d['file'], d['line']))
    for r in report['dropped']:
        out.write('%s:%d: CONFIG_%s=%s dropped (%s)%s\n' %
                  (r['file'], r['line'], r['symbol'], r['requested'],
                   r['kind'], ': select ' + ' '.join(r['hint'])
                   if r['hint'] else ''))
    out.write('%d unmet select(s), %d dropped request(s)\n' %
              (sum(len(u['selected_by']) for u in report['unmet']),
               len(report['dropped'])))


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
        raise Error('cannot find "config %s" in the fragment' % board)
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


def write_atomic(path, text):
    d = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=d, prefix='.' + os.path.basename(path))
    with os.fdopen(fd, 'w') as f:
        f.write(text)
    os.chmod(tmp, os.stat(path).st_mode & 0o7777)
    os.replace(tmp, path)


def fix(srctree, arch, fragment, outdir):
    with open(fragment) as f:
        original = f.read()
    lines = original.splitlines(keepends=True)
    rounds = 0
    try:
        while True:
            report = configure(srctree, arch, fragment, outdir)
            unmet = report['unmet']
            if not unmet:
                break
            blocked = [u for u in unmet if not u['can_fix']]
            if blocked or rounds == MAX_ROUNDS:
                raise RuntimeError(report)
            board = board_symbol(report, fragment)
            if not board:
                raise Error('no select of %s is unmet: nothing to fix here'
                            % fragment)
            lines, added = add_selects(lines, board, report['hint'])
            if not added:
                raise RuntimeError(report)
            rounds += 1
            print('round %d: %d unmet select(s); selecting %s from %s' %
                  (rounds, sum(len(u['selected_by']) for u in unmet),
                   ' '.join(report['hint']), board), flush=True)
            write_atomic(fragment, ''.join(lines))
    except RuntimeError as e:
        report = e.args[0]
        if ''.join(lines) != original:
            write_atomic(fragment, original)
        print('%s: cannot be fixed by adding selects; left unchanged' % fragment)
        describe(report)
        return 1, rounds, report
    except BaseException:
        if ''.join(lines) != original:
            write_atomic(fragment, original)
        raise

    diff = ''.join(difflib.unified_diff(
        original.splitlines(keepends=True), lines, fragment, fragment))
    sys.stdout.write(diff)
    print('%s: clean after %d round(s)' % (fragment, rounds))
    return (1 if report['dropped'] else 0), rounds, report


def main():
    if sys.argv[1:2] == ['import']:
        from . import importer
        ap = argparse.ArgumentParser(prog='kconfig-fragment')
        importer.add_parser(ap.add_subparsers(dest='command'))
        args = ap.parse_args()
        try:
            return importer.import_all(args)
        except importer.Error as e:
            print('kconfig-fragment: %s' % e, file=sys.stderr)
            return 2
    ap = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('command', choices=['check', 'fix'],
                    help='("import" has its own options: import --help)')
    ap.add_argument('--srctree', default=os.environ.get('KERNEL_SRC') or
                    os.path.join(util.TREES, 'patched'))
    ap.add_argument('--arch', default=os.environ.get('ARCH') or host_arch())
    ap.add_argument('--json', help='write the final kconfig report here')
    ap.add_argument('--out', help='output folder (default: a temporary one)')
    ap.add_argument('fragment', metavar='FRAGMENT')
    args = ap.parse_args()

    try:
        srctree = os.path.abspath(args.srctree)
        if not os.path.isfile(os.path.join(srctree, 'scripts/kconfig/conf.c')):
            raise Error('%s is not a kernel tree' % srctree)
        fragment = find_fragment(args.fragment, srctree)
        with tempfile.TemporaryDirectory(prefix='kconfig-fragment.') as tmp:
            outdir = os.path.abspath(args.out) if args.out else tmp
            os.makedirs(outdir, exist_ok=True)
            if args.command == 'check':
                report = configure(srctree, args.arch, fragment, outdir)
                describe(report)
                ret = 1 if report['unmet'] or report['dropped'] else 0
            else:
                ret, _, report = fix(srctree, args.arch, fragment, outdir)
    except Error as e:
        print('kconfig-fragment: %s' % e, file=sys.stderr)
        return 2
    if args.json:
        tmp = args.json + '.tmp'
        with open(tmp, 'w') as f:
            json.dump(report, f, indent=2)
        os.replace(tmp, args.json)
    return ret


if __name__ == '__main__':
    sys.exit(main())

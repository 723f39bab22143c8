# SPDX-License-Identifier: GPL-2.0
"""kconfig-gate - generate configurations from Kconfig fragments, and gate.

For each fragment, run

    make O=OUT/NAME ARCH=... KBUILD_KCONFIG=FRAGMENT KCONFIG_WERROR=1 allnoconfig

(alldefconfig for a fragment whose first lines say "# kconfig-base:
alldefconfig", kmake.fragment_base()), in a kernel tree that carries the series (kmake.configure(), the one
path that configures a fragment), and print conf's own diagnostic
lines for it as they are ("FILE:LINE: warning:" and "note:", the
"WARNING: unmet direct dependencies detected for SYM" line, a syntax
error at its FILE:LINE), then one line "kconfig-gate: NAME: PASS" or
"kconfig-gate: NAME: FAIL (REASON)", and at the end one summary line,
"kconfig-gate: N fragment(s), P passed, F failed".

A fragment passes when conf writes its .config.  It fails with a reason:
'syntax error' (with its FILE:LINE), 'unmet select', 'undefined symbol'
(a select of a symbol that no Kconfig file defines), 'dropped request',
or 'configure' (conf failed otherwise: its last line).  --json writes,
per fragment, the status, the reason, conf's diagnostic lines, the unmet
selects of kconfig's JSON report (KCONFIG_UNMET_REPORT) and the log.

The architecture comes from --arch, or from a "# arch: NAME" line in the
fragment, or is x86.  ARM uses the arm-linux-gnueabi- cross compiler.

Exit status: 0 every fragment passed, 1 some did not, 2 usage or
infrastructure error (no tree, no fragment, make missing).
"""

import json
import os
import re
import shutil
import sys
import time

from . import kmake, util
from .boards import fragment_arch
from .errors import UsageError
from .util import write_atomic


def unmet_selects(report):
    """One entry per unmet select of kconfig's JSON report."""
    return [{'selector': s['symbol'], 'target': u['symbol'],
             'location': '%s:%d' % (s['file'], s['line']),
             'condition': s['if'], 'blocking': u['blocking'],
             'hint': u['hint'], 'can_fix': u['can_fix']}
            for u in report['unmet'] for s in u['selected_by']]


def gate(srctree, outdir, fragment, arch):
    """Configure @fragment for @arch under KCONFIG_WERROR in OUTDIR/NAME;
    returns its entry of the JSON ("fragments")."""
    name = os.path.basename(fragment)
    name = re.sub(r'\.Kconfig$|^Kconfig\.', '', name) or name
    out = os.path.join(outdir, name)
    log = os.path.join(out, 'configure.log')
    start = time.monotonic()
    res = kmake.configure(srctree, out, arch, werror=True, kconfig=fragment,
                          log=log)
    seconds = time.monotonic() - start
    report = res['report']
    status = 'FAIL' if res['reason'] or res['returncode'] else 'PASS'
    r = {'name': name, 'fragment': fragment, 'arch': arch,
         'status': status, 'seconds': round(seconds, 1),
         'config': os.path.join(out, '.config') if status == 'PASS' else None,
         'log': log, 'report': res['report_file'],
         'diagnostics': res['diagnostics'],
         'unmet_selects': unmet_selects(report) if report else [],
         'undefined': res['undefined'],
         'dropped': report['dropped'] if report else []}
    if status == 'FAIL':
        r.update(reason=res['reason'] or 'configure',
                 reasons=res['reasons'], detail=res['detail'])
        if res['location']:
            r['location'] = res['location']
    return r


OPTIONS = [
    (['--srctree'], kmake.srctree_option()),
    (['--out'], dict(default='build/out/gate', help='output folder, one '
                     'subfolder per fragment (default: %(default)s)')),
    (['--arch'], dict(help='architecture for every fragment (default: the '
                      'fragment\'s "# arch:" line, else x86)')),
    (['--json'], dict(metavar='FILE', help='write the results to this '
                      'file')),
    (['fragments'], dict(nargs='+', metavar='FRAGMENT',
                         help='a Kconfig fragment that sources "Kconfig"')),
]


def check_args(args):
    """Raise UsageError unless the tree, make, every fragment and its
    architecture are there."""
    kmake.check_tree(args.srctree)
    if not shutil.which('make'):
        raise UsageError('make is not installed')
    for frag in args.fragments:
        if not os.path.isfile(frag):
            raise UsageError('%s: no such fragment' % frag)
        if args.arch:
            kmake.check_arch(args.srctree, args.arch)
        elif fragment_arch(frag):
            kmake.check_arch(args.srctree, fragment_arch(frag),
                             '%s: # arch:' % frag)


def main():
    """kconfig-gate's command line; returns the exit status."""
    ap = util.tool_parser('kconfig-gate', __doc__)
    util.add_options(ap, OPTIONS)
    args = ap.parse_args()

    try:
        check_args(args)
    except UsageError as e:
        print('kconfig-gate: %s' % e, file=sys.stderr)
        return 2

    results = []
    for frag in args.fragments:
        frag = os.path.abspath(frag)
        r = gate(os.path.abspath(args.srctree), os.path.abspath(args.out),
                 frag, args.arch or fragment_arch(frag) or 'x86')
        results.append(r)
        for line in r['diagnostics']:
            print(line)
        if r['status'] == 'PASS':
            print('kconfig-gate: %s: PASS' % r['name'], flush=True)
        else:
            print('kconfig-gate: %s: FAIL (%s): %s; log %s' % (
                r['name'], r['reason'], r['detail'], r['log']), flush=True)

    if args.json:
        try:
            write_atomic(args.json, json.dumps({'fragments': results},
                                               indent=2) + '\n')
        except OSError as e:
            print('kconfig-gate: cannot write %s: %s' % (args.json, e),
                  file=sys.stderr)
            return 2

    failed = sum(r['status'] != 'PASS' for r in results)
    print('kconfig-gate: %d fragment(s), %d passed, %d failed' %
          (len(results), len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

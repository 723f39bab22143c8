# SPDX-License-Identifier: GPL-2.0
"""kconfig-gate - generate configurations from Kconfig fragments, and gate.

For each fragment, run

    make O=OUT/NAME ARCH=... KBUILD_KCONFIG=FRAGMENT KCONFIG_WERROR=1 allnoconfig

in a kernel tree that carries the series, and collect the unmet selects
from kconfig's JSON report (KCONFIG_UNMET_REPORT), with what blocks each
and what to select.  A fragment passes when kconfig writes its .config.

The architecture comes from --arch, or from a "# arch: NAME" line in the
fragment, or is x86.  ARM uses the arm-linux-gnueabi- cross compiler.

Exit status: 0 every fragment passed, 1 some did not, 2 usage or
infrastructure error (no tree, no fragment, make missing).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

from .boards import CROSS_COMPILE, fragment_arch



def unmet_selects(report):
    """One entry per unmet select of kconfig's JSON report."""
    return [{'selector': s['symbol'], 'target': u['symbol'],
             'location': '%s:%d' % (s['file'], s['line']),
             'condition': s['if'], 'blocking': u['blocking'],
             'hint': u['hint'], 'can_fix': u['can_fix']}
            for u in report['unmet'] for s in u['selected_by']]


def gate(srctree, outdir, fragment, arch):
    name = os.path.basename(fragment)
    name = re.sub(r'\.Kconfig$|^Kconfig\.', '', name) or name
    out = os.path.join(outdir, name)
    os.makedirs(out, exist_ok=True)
    log = os.path.join(out, 'configure.log')
    cmd = ['make', '-C', srctree, 'O=' + out, 'ARCH=' + arch,
           'KBUILD_KCONFIG=' + fragment, 'allnoconfig']
    if arch in CROSS_COMPILE:
        cmd.append('CROSS_COMPILE=' + CROSS_COMPILE[arch])
    report = os.path.join(out, 'kconfig-report.json')
    if os.path.exists(report):
        os.unlink(report)
    env = dict(os.environ, KCONFIG_WERROR='1', KCONFIG_UNMET_REPORT=report)
    start = time.monotonic()
    ps = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
    seconds = time.monotonic() - start
    with open(log, 'w') as f:
        f.write(ps.stdout)
    unmet, dropped = [], []
    if os.path.exists(report):
        with open(report) as f:
            r = json.load(f)
        unmet, dropped = unmet_selects(r), r['dropped']
    status = 'PASS' if ps.returncode == 0 else 'FAIL'
    return {'name': name, 'fragment': fragment, 'arch': arch,
            'status': status, 'seconds': round(seconds, 1),
            'config': os.path.join(out, '.config') if status == 'PASS' else None,
            'log': log, 'report': report if os.path.exists(report) else None,
            'unmet_selects': unmet, 'dropped': dropped, 'output': ps.stdout}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--srctree', required=True,
                    help='kernel tree with the series applied')
    ap.add_argument('--out', default='build/out/gate',
                    help='output folder, one subfolder per fragment')
    ap.add_argument('--arch', help='architecture for every fragment')
    ap.add_argument('--json', help='write the results to this file')
    ap.add_argument('fragments', nargs='+', metavar='FRAGMENT')
    args = ap.parse_args()

    if not os.path.isfile(os.path.join(args.srctree, 'scripts/kconfig/conf.c')):
        print('kconfig-gate: %s is not a kernel tree' % args.srctree,
              file=sys.stderr)
        return 2
    for frag in args.fragments:
        if not os.path.isfile(frag):
            print('kconfig-gate: %s: no such fragment' % frag, file=sys.stderr)
            return 2

    results = []
    for frag in args.fragments:
        frag = os.path.abspath(frag)
        r = gate(os.path.abspath(args.srctree), os.path.abspath(args.out),
                 frag, args.arch or fragment_arch(frag) or 'x86')
        results.append(r)
        print('%-28s %-5s %-4s %5.1fs  %d unmet select(s)  %s' %
              (r['name'], r['arch'], r['status'], r['seconds'],
               len(r['unmet_selects']), r['log']), flush=True)
        for u in r['unmet_selects']:
            print('    %s: %s selects %s: blocked by %s; %s' %
                  (u['location'], u['selector'], u['target'],
                   ', '.join('%s [=%s]' % (b['expr'], b['value'])
                             for b in u['blocking']),
                   'select ' + ' '.join(u['hint']) if u['can_fix']
                   else 'no select can meet it'))
        if r['status'] == 'FAIL' and not r['unmet_selects']:
            print('\n'.join('    ' + l for l in r['output'].splitlines()[-5:]))

    if args.json:
        tmp = args.json + '.tmp'
        with open(tmp, 'w') as f:
            json.dump({'fragments': [{k: v for k, v in r.items()
                                      if k != 'output'} for r in results]},
                      f, indent=2)
            f.write('\n')
        os.replace(tmp, args.json)

    failed = sum(r['status'] != 'PASS' for r in results)
    print('kconfig-gate: %d fragment(s), %d passed, %d failed' %
          (len(results), len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

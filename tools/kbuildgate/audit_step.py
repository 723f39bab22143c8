# SPDX-License-Identifier: GPL-2.0
"""audit_step - kautobuild's audit step (--audit): kconfig-audit
--fragment --own on each board's own fragment files, its JSON read back
into the step's result.

The audit runs in kautobuild's process, through audit.py's API
(audit.run_logged(): the command's arguments, output and exit status,
without a second Python).  It writes only OUT/NAME/audit/,
OUT/NAME/audit.json and audit.log.
"""

import json
import os
import sys
import time

from . import audit, util


class AuditStep:
    """kautobuild's audit step (--audit): the selects of a board's own
    fragment files that some configuration derived from the board can
    leave unmet, confirmed by conf (kconfig-audit --fragment --own, run
    by audit.run_logged()).
    Input: t.fragment.  Output: the step's result, with the findings.  It
    writes only OUT/NAME/audit/, audit.json and audit.log."""

    name = 'audit'
    needs = ('fragment',)
    gives = ('findings',)

    def __init__(self, run):
        """@run: the run.Run whose tree, folders and environment it
        uses."""
        self.run = run

    def __call__(self, t):
        """Audit @t's own fragment files; returns the step's result (SKIP
        for a target without a fragment)."""
        start = time.monotonic()
        if not t.fragment:
            return {'status': 'SKIP', 'seconds': 0.0, 'log': None,
                    'reason': 'no Kconfig fragment of its own (make -f '
                    'Kbuild.mk audit audits the tree)'}
        d = self.run.dir(t)
        log, doc = os.path.join(d, 'audit.log'), os.path.join(d,
                                                              'audit.json')
        if os.path.exists(doc):
            os.unlink(doc)
        argv = ['--srctree', self.run.srctree, '--arch', t.arch,
                '--fragment', t.fragment, '--own', '--out',
                os.path.join(d, 'audit'), '--json', doc]
        with open(log, 'w') as f:
            # the command that does the same, for the reader of the log
            f.write('$ %s\n' % ' '.join([sys.executable, os.path.join(
                util.TOP, 'tools', 'kconfig-audit')] + argv))
            f.flush()
            rc = audit.run_logged(argv, f)
        res = {'status': 'PASS', 'log': log, 'json': doc,
               'seconds': round(time.monotonic() - start, 1)}
        if rc not in (0, 1) or not os.path.isfile(doc):
            res.update(status='FAIL', infrastructure=True,
                       reason='kconfig-audit exited %d: %s' % (
                           rc, util.log_tail(log, 1).strip()))
            return res
        with open(doc) as f:
            rep = json.load(f)
        res['selects'] = rep['summary']['selects']
        res['rejected'] = len(rep['rejected'])
        res['findings'] = [{k: x.get(k) for k in (
            'selector', 'target', 'file', 'line', 'level', 'depends_on',
            'blocking', 'hint', 'reproducer')} for x in rep['findings']]
        if res['findings']:
            res['status'] = 'FAIL'
            res['reason'] = '%d select(s) of the board can be unmet: %s' % (
                len(res['findings']), ', '.join(
                    '%s selects %s (%s:%d)' % (x['selector'], x['target'],
                                               x['file'], x['line'])
                    for x in res['findings']))
        return res

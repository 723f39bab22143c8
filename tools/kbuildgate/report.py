# SPDX-License-Identifier: GPL-2.0
"""report - the results: the summary table, JSON, JUnit, the merge of
several runs' JSON (the CI fan-out), and the exit status.

It reads results and writes only the files it is given.
"""

import json
import os
import sys
import xml.etree.ElementTree as ET

from .kconfig import DROPPED_KINDS, dropped_lines
from .errors import UsageError
from .util import write_atomic

STEPS = ('configure', 'audit', 'build', 'boot', 'lava')


def logs_of(r):
    """The logs of the target result @r, step by step in STEPS order
    (the log, sparse log, console, batch log, LAVA job and JSON of
    each), each once."""
    logs = []
    for s in STEPS:
        st = r['steps'].get(s, {})
        for k in ('log', 'sparse_log', 'console', 'batch_log', 'lava_job',
                  'json'):
            if st.get(k) and st[k] not in logs:
                logs.append(st[k])
    return logs



def dropped_kinds(r):
    """The count of each kind of DROPPED_KINDS among the dropped
    requests of the target result @r."""
    counts = dict.fromkeys(DROPPED_KINDS, 0)
    for d in r.get('dropped', []):
        counts[d['kind']] = counts.get(d['kind'], 0) + 1
    return counts


SHORT = {'unknown': 'unkn', 'unmet': 'unmt', 'no-prompt': 'nopr',
         'demoted': 'demo',
         'promoted': 'prom', 'overridden': 'ovrd', 'invalid': 'inval'}


def summary(results, out=sys.stdout):
    """Print kautobuild's summary of @results to @out: the table
    (a row per target, each step's status, unmet and dropped counts),
    the totals, LAVA's and the audit's verdicts, and every log."""
    w = max([len(r['name']) for r in results] + [6])
    head = '%-*s %-9s %-9s %-5s %-5s %-5s %5s %7s %s %7s' % (
        w, 'target', 'kind', 'configure', 'audit', 'build', 'boot', 'unmet',
        'dropped', ' '.join('%5s' % SHORT[k] for k in DROPPED_KINDS),
        'seconds')
    print('', file=out)
    print(head, file=out)
    print('-' * len(head), file=out)
    for r in results:
        k = dropped_kinds(r)
        st = [r['steps'].get(s, {}).get('status', '-')
              for s in ('configure', 'audit', 'build', 'boot')]
        print('%-*s %-9s %-9s %-5s %-5s %-5s %5d %7d %s %7.1f' % (
            w, r['name'], r['kind'], st[0], st[1], st[2], st[3],
            sum(len(u['selectors']) or 1 for u in r.get('unmet', [])),
            len(r.get('dropped', [])),
            ' '.join('%5d' % k[x] for x in DROPPED_KINDS),
            r.get('seconds', 0)), file=out)
    print('-' * len(head), file=out)
    failed = [r['name'] for r in results if r['status'] != 'PASS']
    with_dropped = [r for r in results if r.get('dropped')]
    total = {k: sum(dropped_kinds(r)[k] for r in results)
             for k in DROPPED_KINDS}
    print('kautobuild: %d target(s), %d passed, %d failed%s' % (
        len(results), len(results) - len(failed), len(failed),
        ': ' + ' '.join(failed) if failed else ''), file=out)
    print('kautobuild: %d target(s) with dropped requests, %d in all '
          '(%s)' % (len(with_dropped), sum(total.values()),
                    ', '.join('%d %s' % (total[k], k)
                              for k in DROPPED_KINDS)), file=out)
    lava = [(r['name'], r['steps']['lava']) for r in results
            if 'lava' in r['steps']]
    if lava:
        print('kautobuild: LAVA (lava-run): %s' % ', '.join(
            '%s %s' % (n, s.get('result') or s['status']) for n, s in lava),
            file=out)
    audit = [(r['name'], r['steps']['audit']) for r in results
             if r['steps'].get('audit', {}).get('status') in ('PASS', 'FAIL')]
    if audit:
        print('kautobuild: audit of the boards\' own selects: %s' % ', '.join(
            '%s %d finding(s)' % (n, len(s.get('findings', [])))
            for n, s in audit), file=out)
        for n, s in audit:
            for f in s.get('findings', []):
                print('  %s:%d: %s [=%s] can select %s, unmet; reproducer '
                      '%s' % (f['file'], f['line'], f['selector'],
                              f['level'], f['target'], f['reproducer']),
                      file=out)
    print('logs:', file=out)
    for r in results:
        for log in r.get('logs', []):
            print('  %s' % log, file=out)


def junit(results):
    """The JUnit XML of @results: a testsuite per kind of target, a
    testcase per step of each target (failed, skipped, its log and
    notes as system-out).  Returns the document as a string."""
    suites = ET.Element('testsuites', name='kautobuild')
    totals = {'tests': 0, 'failures': 0, 'skipped': 0, 'time': 0.0}
    for kind in ('board', 'fragment', 'defconfig'):
        rs = [r for r in results if r['kind'] == kind]
        if not rs:
            continue
        suite = ET.SubElement(suites, 'testsuite', name='kautobuild.' + kind)
        n = {'tests': 0, 'failures': 0, 'skipped': 0, 'time': 0.0}
        for r in rs:
            for step in STEPS:
                s = r['steps'].get(step)
                if s is None:
                    continue
                tc = ET.SubElement(suite, 'testcase', classname=r['name'],
                                   name=step, time='%.1f' % s['seconds'])
                n['tests'] += 1
                n['time'] += s['seconds']
                if s['status'] == 'FAIL':
                    n['failures'] += 1
                    reason = s.get('reason', '')
                    f = ET.SubElement(tc, 'failure',
                                      message=reason.splitlines()[0]
                                      if reason else 'failed',
                                      type=step)
                    f.text = reason + ('\nlog: %s\n' % s['log']
                                       if s.get('log') else '')
                elif s['status'] == 'SKIP':
                    n['skipped'] += 1
                    ET.SubElement(tc, 'skipped', message=s.get('reason', ''))
                out = []
                if s.get('log'):
                    out.append('log: %s' % s['log'])
                if step == 'configure':
                    out.append('%d dropped request(s)' %
                               len(r.get('dropped', [])))
                    out += dropped_lines(r.get('dropped', []))
                if step == 'audit':
                    out += ['%s:%d: %s selects %s: unmet in %s' % (
                        f['file'], f['line'], f['selector'], f['target'],
                        f['reproducer']) for f in s.get('findings', [])]
                if s.get('cached'):
                    out.append('cached: %s' % s['cached'])
                if out:
                    ET.SubElement(tc, 'system-out').text = '\n'.join(out)
        for k, v in n.items():
            suite.set(k, '%.1f' % v if k == 'time' else str(v))
            totals[k] += v
    for k, v in totals.items():
        suites.set(k, '%.1f' % v if k == 'time' else str(v))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + \
        ET.tostring(suites, encoding='unicode') + '\n'


def write_outputs(args, doc):
    """Write @doc to args.json and its JUnit XML to args.junit, where
    given; raises UsageError when a file cannot be written."""
    try:
        if args.json:
            write_atomic(args.json, json.dumps(doc, indent=2) + '\n')
        if args.junit:
            write_atomic(args.junit, junit(doc['targets']))
    except OSError as e:
        raise UsageError('cannot write the results: %s' % e)


def exit_status(results):
    """The exit status of @results: 2 on an infrastructure failure of a
    step, 1 when a target failed, else 0."""
    if any(s.get('infrastructure') for r in results
           for s in r['steps'].values()):
        return 2
    return 1 if any(r['status'] != 'PASS' for r in results) else 0


def merge_results(docs):
    """The targets of several runs' results, @docs [(path, targets)]:
    each target once, in the order first seen, the later result of a
    target kept.  Returns (targets, [(path, name) of each target seen
    again])."""
    results, seen, again = [], {}, []
    for path, targets in docs:
        for r in targets:
            if r['name'] in seen:
                again.append((path, r['name']))
                results[seen[r['name']]] = r
            else:
                seen[r['name']] = len(results)
                results.append(r)
    return results, again


def merge(args):
    """kautobuild --merge: read the JSON results of args.merge, merge
    them (merge_results()), print the summary and write the outputs.
    Returns the exit status; raises UsageError for a file that is not a
    kautobuild result."""
    docs = []
    for path in args.merge:
        try:
            with open(path) as f:
                doc = json.load(f)
            docs.append((path, list(doc['targets'])))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise UsageError('%s: not a kautobuild JSON result (%s)' %
                             (path, e))
    results, again = merge_results(docs)
    for path, name in again:
        print('kautobuild: %s: %s again, the later result is kept' %
              (path, name), file=sys.stderr)
    doc = {'version': 1, 'tool': 'kautobuild', 'merged_from':
           [os.path.abspath(p) for p in args.merge], 'targets': results}
    summary(results)
    write_outputs(args, doc)
    return exit_status(results)

# SPDX-License-Identifier: GPL-2.0
"""kconfig - conf's output and kconfig's JSON report (KCONFIG_UNMET_REPORT),
read into results, and the policy: an unmet select, a fragment's select
of an undefined symbol and a syntax error fail the target, dropped
requests are counted and fail only with --fail-on-dropped.

conf_result() reads conf's output and one report into a ConfResult:
conf's diagnostic lines, verbatim, and the reason of a failure;
verdict() merges the reports of one target (a defconfig with a config
fragment merged in has two) and gives its reasons.

Pure code: it runs nothing and reads no file (kmake.py runs conf,
configure.py is the configure step of a run).
"""

import re

DROPPED_KINDS = ('unknown', 'unmet', 'no-prompt', 'demoted', 'promoted',
                 'overridden', 'invalid')

# conf's diagnostics, which every tool passes through as they are: a
# "FILE:LINE: warning:", "note:" or "error:" line (or stock's
# "FILE:LINE:warning:" without the space), an error at FILE:LINE of the
# input ("FILE:LINE: syntax error: ..."), and the "WARNING: unmet direct
# dependencies detected for SYM" line that scrapers grep
DIAGNOSTIC = re.compile(r'^(?:\S+:\d+:(?: |warning: ).*|'
                        r'WARNING: unmet direct dependencies detected for .*)$')
UNDEFINED = re.compile(r"^(\S+):(\d+): ?warning: '(\w+)' is not defined by "
                       r"any Kconfig file")
INPUT_ERROR = re.compile(r'^(\S+:\d+): (?!warning: |note: )(.*)$')


def diagnostics(text):
    """conf's diagnostic lines of @text (make's output), verbatim."""
    return [l for l in text.splitlines() if DIAGNOSTIC.match(l)]


def conf_lines(text):
    """conf's lines of @text: make's own ("make[1]: ...") left out."""
    return [l for l in text.splitlines()
            if l.strip() and not re.match(r'make(\[\d+\])?: ', l)]


class ConfResult(dict):
    """What conf said about one configuration: 'returncode', 'diagnostics'
    (conf's lines, verbatim), 'report' (kconfig's JSON report, or None),
    'unmet' (unmet selects: one per selector), 'undefined' (the
    fragment's selects of undefined symbols), 'dropped', 'reason' (None,
    or why it failed: 'syntax error', 'unmet select', 'undefined symbol',
    'dropped request', 'configure'), 'reasons' (every one that applies),
    'detail' (one line for the reason: for a syntax error conf's error
    line with its FILE:LINE, in 'location' too; for 'configure' conf's
    last line) and 'output' (all of make's output)."""


def conf_result(returncode, output, report, fail_on_dropped=True):
    """Read conf's output and JSON report (a dict or None) into a
    ConfResult; the policy: an unmet select, a select of an undefined
    symbol, a dropped request (with @fail_on_dropped) or conf's failure
    fails."""
    diags = diagnostics(output)
    unmet = sum(len(u.get('selected_by', [])) or 1
                for u in report.get('unmet', [])) if report else 0
    dropped = len(report.get('dropped', [])) if report else 0
    undefined = [{'location': '%s:%s' % m.group(1, 2), 'symbol': m.group(3),
                  'message': l}
                 for l in diags for m in [UNDEFINED.match(l)] if m]
    res = ConfResult(returncode=returncode, diagnostics=diags, report=report,
                     unmet=unmet, undefined=undefined, dropped=dropped,
                     reasons=[], reason=None, detail=None, location=None,
                     output=output)
    errors = [m for m in map(INPUT_ERROR.match, diags)
              if m and 'syntax error' in m.group(2)]
    if returncode and errors:
        res['reasons'].append('syntax error')
        res['location'] = errors[0].group(1)
        res['detail'] = errors[0].group(0)
    if unmet:
        res['reasons'].append('unmet select')
    if undefined:
        res['reasons'].append('undefined symbol')
    if dropped and fail_on_dropped:
        res['reasons'].append('dropped request')
    if returncode and not res['reasons']:
        res['reasons'].append('configure')
        lines = conf_lines(output)
        res['detail'] = lines[-1] if lines else 'conf exited %d' % returncode
    if res['reasons']:
        res['reason'] = res['reasons'][0]
        if not res['detail']:
            res['detail'] = summary_counts(res)
    return res


def summary_counts(res):
    """The one-line counts of a ConfResult (or a dict with its 'unmet',
    'undefined' and 'dropped')."""
    return '%d unmet select(s), %d undefined symbol(s), %d dropped ' \
        'request(s)' % (res['unmet'], len(res['undefined']), res['dropped'])


def unmet_entries(report):
    """The unmet selects of kconfig's JSON @report, one entry per target
    with its selectors, blocking conjuncts and hint, as the run's JSON
    lists them."""
    return [{'symbol': u['symbol'],
             'selectors': [{'symbol': s['symbol'], 'file': s['file'],
                            'line': s['line'], 'if': s.get('if')}
                           for s in u.get('selected_by', [])],
             'blocking': u.get('blocking', []),
             'can_fix': u.get('can_fix'),
             'hint': u.get('hint', [])}
            for u in report.get('unmet', [])]


def dropped_entries(report):
    """The dropped requests of kconfig's JSON @report, as the run's JSON
    lists them."""
    return [{'symbol': d['symbol'], 'requested': d.get('requested'),
             'actual': d.get('actual'), 'kind': d.get('kind'),
             'file': d.get('file'), 'line': d.get('line'),
             'blocking': d.get('blocking', []), 'can_fix': d.get('can_fix'),
             'hint': d.get('hint', [])}
            for d in report.get('dropped', [])]


INPUT_WARNING = re.compile(r'^(\S+?):(\d+):warning: (.*)$', re.M)


def input_warnings(text):
    """conf's warnings about its input ("FILE:LINE:warning: ..."), as
    dropped requests: "overridden" (a symbol assigned twice: the first
    request is lost) or "invalid" (a value or line conf cannot use)."""
    out = []
    for m in INPUT_WARNING.finditer(text):
        msg = m.group(3)
        sym = re.search(r'(?:symbol|for) (\w+)$|override: (\w+) changes|'
                        r'^(\w+) creates', msg)
        out.append({'symbol': next((g for g in sym.groups() if g), None)
                    if sym else None,
                    'requested': None, 'actual': None,
                    'kind': 'overridden' if msg.startswith('override:')
                    else 'invalid',
                    'file': m.group(1), 'line': int(m.group(2)),
                    'blocking': [], 'can_fix': None, 'hint': [],
                    'message': msg})
    return out


def blocking_text(blocking):
    """The blocking conjuncts of a report entry as text: "EXPR [=VALUE]"
    each, with their conflict."""
    return ', '.join('%s [=%s]' % (b['expr'], b['value']) +
                     (' (conflict: %s)' % b['conflict'] if b.get('conflict')
                      else '') for b in blocking)


def dropped_lines(dropped):
    """One "FILE:LINE: ..." line per dropped request of @dropped
    (dropped_entries() and input_warnings() entries)."""
    out = []
    for d in dropped:
        if d.get('message'):
            out.append('%s:%s: %s (%s)' % (d['file'], d['line'],
                                           d['message'], d['kind']))
            continue
        line = '%s:%s: CONFIG_%s=%s was dropped (%s)' % (
            d['file'], d['line'], d['symbol'], d['requested'], d['kind'])
        if d['kind'] != 'unknown':
            line += ': %s is %s' % (d['symbol'], d['actual'])
        if d['blocking']:
            line += '; blocked by ' + blocking_text(d['blocking'])
        if d['hint'] and d['can_fix']:
            line += '; select ' + ' '.join(d['hint'])
        out.append(line)
    return out


def merge_reports(reports):
    """One report of several (the defconfig's, then the merged
    fragment's): their 'unmet' and 'dropped' lists, in order."""
    merged = {'unmet': [], 'dropped': []}
    for rep in reports:
        merged['unmet'] += rep.get('unmet', [])
        merged['dropped'] += rep.get('dropped', [])
    return merged


def verdict(rc, reports, missing, warnings, fail_on_dropped):
    """The configure verdict of one target: conf's exit status @rc, its
    JSON @reports (dicts), the names of the @missing ones, conf's output
    @warnings.  Returns a dict: 'unmet', 'dropped' (entries), 'undefined',
    'kinds' (what failed, first the reason; empty when it passed), 'rc'
    (a missing report fails a target that conf passed), 'reasons' (the
    lines of the JSON's "reason") and 'location'."""
    unmet = [e for rep in reports for e in unmet_entries(rep)]
    dropped = [e for rep in reports for e in dropped_entries(rep)]
    dropped += input_warnings(warnings)
    conf = conf_result(rc, warnings, merge_reports(reports),
                       fail_on_dropped=fail_on_dropped)
    kinds = [k for k in conf['reasons'] if k != 'dropped request']
    if dropped and fail_on_dropped:
        kinds.append('dropped request')
    if missing and rc == 0 and not unmet:
        rc = 1
    if rc and not kinds:
        kinds.append('configure')
    reasons = []
    if kinds:
        # what failed, then conf's own lines, as they are
        head = '%s: %s' % (kinds[0], summary_counts(dict(
            conf, dropped=len(dropped))))
        if kinds[0] == 'syntax error':
            # the line itself follows, with conf's others
            head = 'syntax error: %s' % conf['location']
        reasons.append(head)
        reasons += conf['diagnostics']
    if missing and rc and not unmet and not conf['diagnostics']:
        reasons.append('kconfig wrote no JSON report (%s): is the series '
                       'applied?' % ', '.join(missing))
    return {'unmet': unmet, 'dropped': dropped,
            'undefined': conf['undefined'], 'kinds': kinds, 'rc': rc,
            'reasons': reasons, 'location': conf['location']}

# SPDX-License-Identifier: GPL-2.0
"""audit_confirm - kconfig-audit's candidates read from the C program's
output (parse_output()), confirmed by the tree's conf in one batch
(confirm()), and the randconfig sweep (randconfig_sweep()).

It writes only the work folder it is given.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

from .errors import SetupError

START = time.monotonic()


def restart():
    """Start the clock of log() and of the audit's seconds again, for
    an audit run in a process that started earlier (kautobuild's audit
    step): its times count from its own start, as the command's do."""
    global START
    START = time.monotonic()


def child_stderr():
    """The stderr of a child process: that of this process, flushed,
    when it has a file descriptor (the audit step's log file, when
    kautobuild runs the audit), else None (inherited)."""
    try:
        sys.stderr.flush()
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return None


def log(msg):
    """A progress line on stderr, with the seconds since the start."""
    print('[%7.1fs] %s' % (time.monotonic() - START, msg), file=sys.stderr,
          flush=True)


def parse_output(text):
    """The candidates, the questions (one per select asked) and the
    summary that the C program printed."""
    cands, questions, summary = [], [], None
    for line in text.splitlines():
        f = line.split()
        if f[:1] == ['cand'] and len(f) == 9:
            cands.append({'n': int(f[1]), 'selector': f[2], 'target': f[3],
                          'file': f[4], 'line': int(f[5]), 'level': f[6],
                          'tristate_only': f[7] == '0',
                          'coarse': f[8] == '1'})
        elif f[:1] == ['q'] and len(f) >= 9:
            q = line.split(None, 8)
            questions.append({'hash': q[1], 'result': q[2],
                              'selector': q[3], 'target': q[4],
                              'file': q[5], 'line': int(q[6]),
                              'cone': int(q[7]), 'condition': q[8]})
        elif f[:1] == ['summary'] and len(f) >= 9:
            summary = dict(zip(('selects', 'candidates', 'unsat',
                                'variables', 'clauses', 'coarse'),
                               map(int, f[1:7])))
            summary['sat_seconds'] = float(f[7])
            summary['carried'] = int(f[8])
            if len(f) >= 12:
                summary['reused'] = int(f[9])
                summary['cone_max'] = int(f[10])
    return cands, questions, summary


def read_values(path):
    """{SYM: value} of the .config @path, "is not set" lines as n."""
    vals = {}
    for line in Path(path).read_text(errors='replace').splitlines():
        if line.startswith('CONFIG_') and '=' in line:
            k, v = line.split('=', 1)
            vals[k[7:]] = v
        elif line.startswith('# CONFIG_') and line.endswith(' is not set'):
            vals[line[9:-11]] = 'n'
    return vals


def differences(model, written, first=(), n=3):
    """Up to @n symbols that conf set otherwise than the model, those of
    @first (the selector, the target) before the others."""
    out = []
    order = [k for k in first if k in model] + \
        [k for k in model if k not in first]
    for k in order:
        v = model[k]
        w = written.get(k, 'n')
        if w != v:
            out.append('%s=%s (model %s)' % (k, w, v))
            if len(out) == n:
                break
    return out


def confirm(conf, env, srctree, kconfig, cands, work):
    """Run conf --batch over the candidates; split them into findings and
    rejected ones."""
    lst = work / 'candidates.list'
    lst.write_text(''.join('cand-%d defconfig %s\n' % (
        c['n'], work / ('cand-%d.config' % c['n'])) for c in cands))
    bdir = work / 'batch'
    # in the work folder, as kbuild runs conf in the object tree: conf
    # writes include/config/ where it runs, which would dirty the tree
    ps = subprocess.run([conf, '--batch=%s' % lst, kconfig], cwd=work,
                        env=dict(env, KCONFIG_BATCH_DIR=str(bdir)),
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True)
    (work / 'batch.log').write_text(ps.stdout)
    found, rejected = [], []
    for c in cands:
        name = 'cand-%d' % c['n']
        try:
            report = json.loads((bdir / name / 'report.json').read_text())
        except (OSError, ValueError) as e:
            raise SetupError('conf --batch wrote no report for %s (%s); '
                             'see %s' % (name, e, work / 'batch.log'))
        hit = None
        for u in report.get('unmet', []):
            if u['symbol'] != c['target']:
                continue
            for s in u.get('selected_by', []):
                if s['symbol'] == c['selector'] and \
                        s.get('line') == c['line']:
                    hit = u
        if hit:
            found.append(dict(c, depends_on=hit.get('depends_on'),
                              depends_value=hit.get('depends_value'),
                              blocking=hit.get('blocking', []),
                              hint=hit.get('hint', [])))
            continue
        model = read_values(work / ('cand-%d.config' % c['n']))
        written = bdir / name / '.config'
        diff = differences(model, read_values(written),
                           (c['selector'], c['target'])) \
            if written.is_file() else []
        if not written.is_file():
            reason = 'conf wrote no .config'
        elif c['coarse']:
            reason = ('a comparison that the encoding leaves free (string, '
                      'number) decides it, and conf computes it otherwise')
        elif diff:
            reason = 'conf does not reach the model: ' + ', '.join(diff)
        else:
            reason = ('conf reaches the model\'s bool and tristate values '
                      'but does not warn: a coarse comparison (string, '
                      'number) decides it')
        rejected.append(dict(c, reason=reason))
    return found, rejected


def randconfig_sweep(conf, env, kconfig, count, work):
    """The unmet selects of @count randconfigs (KCONFIG_SEED 1..count), as
    conf's JSON report names them: {(selector, target, file, line)}."""
    seen = {}
    d = work / 'randconfig'
    d.mkdir(exist_ok=True)
    for seed in range(1, count + 1):
        report = d / 'report.json'
        if report.exists():
            report.unlink()
        subprocess.run([conf, '--randconfig', kconfig], cwd=d,
                       env=dict(env, KCONFIG_SEED=str(seed),
                                KCONFIG_CONFIG=str(d / '.config'),
                                KCONFIG_UNMET_REPORT=str(report)),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            doc = json.loads(report.read_text())
        except (OSError, ValueError):
            continue
        for u in doc.get('unmet', []):
            for s in u.get('selected_by', []):
                key = (s['symbol'], u['symbol'], s.get('file'),
                       s.get('line'))
                seen.setdefault(key, seed)
        if seed % 50 == 0:
            log('randconfig %d/%d: %d distinct unmet selects' % (
                seed, count, len(seen)))
    return seen

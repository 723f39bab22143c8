# SPDX-License-Identifier: GPL-2.0
"""kconfig-audit - find every select that some configuration can leave
unmet, statically, and confirm each one with the tree's own conf.

  kconfig-audit [--srctree DIR] [--arch ARCH] [--fragment FILE [--own]]
                [--out DIR] [--json FILE] [--limit N] [--only SYMBOL]
                [--randconfigs N]

Steps, with a progress line each:

  1. build tools/audit/kconfig-audit against the kconfig sources of the
     tree (tools/audit/build), and conf for ARCH (make defconfig
     syncconfig, for the variables that kconfig reads), both kept in
     build/out/audit/cache/ARCH-HASH until the kconfig sources change;
  2. run it on the tree's Kconfig, or on a fragment (what can a
     configuration derived from this board hit?): PicoSAT asks, for each
     select, whether the selector and the select's condition can be above
     the target's direct dependencies (y above m, or m above n), and each
     model becomes a full .config, a candidate;
  3. confirm the candidates with the tree's conf in one run, conf
     --batch (patch 11: one parse for all of them), each read as a
     defconfig would be: a candidate is a finding only if conf's own JSON
     report has that select unmet.  The others are kept apart with the
     reason: the symbols that conf set otherwise than the model did.

With --own, it asks only about the selects of the fragment's own files
(those that its first file reaches without going through the tree's
Kconfig): the board's selects, which kautobuild --audit gates on.

With --randconfigs N, conf then runs N randconfigs (KCONFIG_SEED 1..N)
and every unmet select they hit must be among the findings; the ones
that are not are listed as missed.

A finding carries the select's file:line, the selector and the target,
the value of the select (y or m), whether only the tristate question finds
it (a built-in selector, a target whose dependencies allow only m: kismet
merges y and m and cannot ask it), conf's blocking conjuncts and hint,
and the confirming .config as a reproducer (OUT/findings/).

Exit status: 0 no finding, 1 findings, 2 usage or infrastructure error.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import util
from .sanitize import SetupError, build_conf, conf_env

TOP = Path(util.TOP)
START = time.monotonic()


def log(msg):
    print('[%7.1fs] %s' % (time.monotonic() - START, msg), file=sys.stderr,
          flush=True)


def newer(target, sources):
    """Is @target there, and newer than every file of @sources?"""
    try:
        t = os.stat(target).st_mtime_ns
    except OSError:
        return False
    return all(os.stat(f).st_mtime_ns < t for f in sources)


def kconfig_sources(srctree):
    kc = Path(srctree) / 'scripts' / 'kconfig'
    return [str(p) for p in sorted(kc.iterdir())
            if p.suffix in ('.c', '.h', '.y', '.l')]


def cache_dir(srctree, arch):
    """Where the program and conf of @srctree for @arch are kept, between
    runs: build/out/audit/cache/ARCH-HASH."""
    h = hashlib.sha256(str(srctree).encode()).hexdigest()[:12]
    return Path(util.TREES) / 'out' / 'audit' / 'cache' / ('%s-%s' % (arch, h))


def build_tool(srctree, out):
    prog = out / 'kconfig-audit'
    if newer(prog, kconfig_sources(srctree) +
             [str(TOP / 'tools' / 'audit' / 'kconfig-audit.c')]):
        return str(prog)
    ps = subprocess.run([str(TOP / 'tools' / 'audit' / 'build'),
                         '--srctree', str(srctree), '--out', str(out)],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
    if ps.returncode:
        raise SetupError(ps.stderr.strip() or 'tools/audit/build failed')
    return ps.stdout.strip().splitlines()[-1]


def parse_output(text):
    cands, summary = [], None
    for line in text.splitlines():
        f = line.split()
        if f[:1] == ['cand'] and len(f) == 9:
            cands.append({'n': int(f[1]), 'selector': f[2], 'target': f[3],
                          'file': f[4], 'line': int(f[5]), 'level': f[6],
                          'tristate_only': f[7] == '0',
                          'coarse': f[8] == '1'})
        elif f[:1] == ['summary'] and len(f) == 9:
            summary = dict(zip(('selects', 'candidates', 'unsat',
                                'variables', 'clauses', 'coarse'),
                               map(int, f[1:7])))
            summary['sat_seconds'] = float(f[7])
            summary['carried'] = int(f[8])
    return cands, summary


def read_config(path):
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
        model = read_config(work / ('cand-%d.config' % c['n']))
        written = bdir / name / '.config'
        diff = differences(model, read_config(written),
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--srctree', default=str(Path(util.TREES) / 'patched'))
    ap.add_argument('--arch', default='arm')
    ap.add_argument('--fragment', help='a Kconfig fragment (KBUILD_KCONFIG)'
                    ' instead of the tree\'s Kconfig')
    ap.add_argument('--out', help='default: build/out/audit/ARCH')
    ap.add_argument('--json', help='write the results as JSON')
    ap.add_argument('--limit', type=int, help='ask about the first N '
                    'selects only (for tests)')
    ap.add_argument('--own', action='store_true',
                    help='with --fragment: ask about the selects of the '
                    'fragment\'s own files only')
    ap.add_argument('--only', metavar='SYMBOL',
                    help='ask about the selects of SYMBOL only')
    ap.add_argument('--randconfigs', type=int, default=0, metavar='N',
                    help='then run N randconfigs with conf and check that '
                    'the audit found every unmet select they hit')
    args = ap.parse_args()

    srctree = Path(args.srctree).resolve()
    out = Path(args.out or Path(util.TREES) / 'out' / 'audit' /
               args.arch).resolve()
    kconfig = 'Kconfig'
    if args.own and not args.fragment:
        print('kconfig-audit: --own needs --fragment', file=sys.stderr)
        return 2
    if args.fragment:
        frag = Path(args.fragment)
        if not frag.is_absolute() and not frag.is_file():
            # a fragment of the tree (arch/arm/boards/Kconfig.NAME)
            frag = Path(args.srctree) / frag
        frag = frag.resolve()
        if not frag.is_file():
            print('kconfig-audit: %s: no such file' % args.fragment,
                  file=sys.stderr)
            return 2
        kconfig = str(frag)
    if not (srctree / 'scripts' / 'kconfig' / 'conf.c').is_file():
        print('kconfig-audit: %s is not a kernel tree' % srctree,
              file=sys.stderr)
        return 2
    try:
        log('building kconfig-audit and conf for %s (%s)' % (args.arch,
                                                             srctree))
        cache = cache_dir(srctree, args.arch)
        tool = build_tool(srctree, cache / 'bin')
        obj = cache / 'obj'
        conf = obj / 'scripts' / 'kconfig' / 'conf'
        if newer(conf, kconfig_sources(srctree)) and \
                (obj / 'include/config/auto.conf.cmd').is_file():
            env = conf_env(obj)
        else:
            env = build_conf(srctree, obj, args.arch, None, None)
        env = dict(os.environ, **env)
        for k in ('KCONFIG_CONFIG', 'KCONFIG_ALLCONFIG', 'KBUILD_KCONFIG',
                  'KCONFIG_WERROR', 'KCONFIG_UNMET_REPORT'):
            env.pop(k, None)
        conf = str(conf)
        work = out / 'candidates'
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
        log('asking PicoSAT about every select of %s' % kconfig)
        cmd = [tool, '--out', str(work)]
        if args.limit is not None:
            cmd += ['--limit', str(args.limit)]
        if args.only:
            cmd += ['--only', args.only]
        if args.own:
            cmd.append('--own')
        # its progress lines go to stderr as they come
        with open(out / 'audit.out', 'w') as fo:
            proc = subprocess.Popen(cmd + [kconfig], cwd=work, env=env,
                                    stdout=fo)
            # its own peak memory, not that of the builds before it
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
        peak_kb = usage.ru_maxrss
        text = (out / 'audit.out').read_text()
        if proc.returncode not in (0, 1):
            raise SetupError('kconfig-audit exited %d' % proc.returncode)
        cands, summary = parse_output(text)
        if summary is None:
            raise SetupError('%s: no answer (exit %d): see the messages '
                             'above' % (kconfig, proc.returncode))
        log('%d selects: %d unsatisfiable, %d candidates (%d variables, '
            '%d clauses, %d coarse comparisons, %.1f s)' % (
                summary['selects'], summary['unsat'], len(cands),
                summary['variables'], summary['clauses'],
                summary['coarse'], summary['sat_seconds']))
        log('confirming %d candidates with conf --batch' % len(cands))
        found, rejected = confirm(conf, env, str(srctree), kconfig, cands,
                                  work) if cands else ([], [])
        sweep = None
        if args.randconfigs:
            log('sweeping %d randconfigs' % args.randconfigs)
            hits = randconfig_sweep(conf, env, kconfig, args.randconfigs,
                                    work)
            known = {(f['selector'], f['target'], f['file'], f['line'])
                     for f in found}
            sweep = {'randconfigs': args.randconfigs,
                     'unmet': [dict(zip(('selector', 'target', 'file',
                                         'line'), k), seed=v)
                               for k, v in sorted(hits.items(),
                                                  key=lambda kv: kv[1])],
                     'missed': [dict(zip(('selector', 'target', 'file',
                                          'line'), k), seed=v)
                                for k, v in hits.items() if k not in known]}
    except SetupError as e:
        print('kconfig-audit: %s' % e, file=sys.stderr)
        return 2
    fdir = out / 'findings'
    if fdir.exists():
        shutil.rmtree(fdir)
    fdir.mkdir()
    for f in found:
        repro = fdir / ('%s-selects-%s.config' % (f['selector'],
                                                  f['target']))
        shutil.copy(work / ('cand-%d.config' % f['n']), repro)
        f['reproducer'] = str(repro)
    for f in found:
        print('%s:%d: warning: %s [=%s] can select %s, whose direct '
              'dependencies are unmet%s; reproducer %s' % (
                  f['file'], f['line'], f['selector'], f['level'],
                  f['target'], ' (tristate only)' if f['tristate_only']
                  else '', f['reproducer']))
    seconds = round(time.monotonic() - START, 1)
    print('kconfig-audit: %s %s: %d selects, %d candidates, %d confirmed '
          '(%d tristate only), %d rejected, %.1f s, peak %d MiB' % (
              args.arch, args.fragment or 'Kconfig', summary['selects'],
              len(cands), len(found),
              sum(f['tristate_only'] for f in found), len(rejected),
              seconds, peak_kb // 1024))
    if sweep is not None:
        print('kconfig-audit: %d randconfigs hit %d distinct unmet selects, '
              '%d of them not found by the audit%s' % (
                  sweep['randconfigs'], len(sweep['unmet']),
                  len(sweep['missed']), ''.join(
                      '\n  missed: %s selects %s (%s:%s), seed %d' % (
                          m['selector'], m['target'], m['file'], m['line'],
                          m['seed']) for m in sweep['missed'])))
    if args.json:
        doc = {'version': 1, 'tool': 'kconfig-audit', 'arch': args.arch,
               'own': args.own, 'randconfig_sweep': sweep,
               'srctree': str(srctree), 'kconfig': kconfig,
               'seconds': seconds, 'peak_rss_kib': peak_kb,
               'coarse_note': 'comparisons other than = and != between '
               'bool or tristate operands are free variables',
               'summary': summary, 'findings': found, 'rejected': rejected}
        util.write_atomic(args.json, json.dumps(doc, indent=2) + '\n')
    return 1 if found else 0


class AuditStep:
    """kautobuild's audit step (--audit), a part of run.Run: the selects
    of a board's own fragment files that some configuration derived from
    the board can leave unmet, confirmed by conf.  It writes only
    OUT/NAME/audit/, audit.json and audit.log."""

    def audit(self, t):
        start = time.monotonic()
        if not t.fragment:
            return {'status': 'SKIP', 'seconds': 0.0, 'log': None,
                    'reason': 'no Kconfig fragment of its own (make -f '
                    'Kbuild.mk audit audits the tree)'}
        d = self.dir(t)
        log, doc = os.path.join(d, 'audit.log'), os.path.join(d,
                                                              'audit.json')
        if os.path.exists(doc):
            os.unlink(doc)
        cmd = [sys.executable, str(TOP / 'tools' / 'kconfig-audit'),
               '--srctree', self.srctree, '--arch', t.arch, '--fragment',
               t.fragment, '--own', '--out', os.path.join(d, 'audit'),
               '--json', doc]
        with open(log, 'w') as f:
            f.write('$ %s\n' % ' '.join(cmd))
            f.flush()
            rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
                                env=self.env).returncode
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

# SPDX-License-Identifier: GPL-2.0
"""kconfig-audit - find every select that some configuration can leave
unmet, statically, and confirm each one with the tree's own conf.

  kconfig-audit [--srctree DIR] [--arch ARCH] [--fragment FILE [--own]]
                [--out DIR] [--json FILE] [--limit N] [--only SYMBOL]
                [--randconfigs N] [--no-cache]
                [--base OLDTREE | --base-rev REV | --patch PATCH]

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

Reviewing a change (docs/audit.md):

  --base OLDTREE   audit OLDTREE and the tree, and report only the
                   findings of the tree that OLDTREE does not have: the
                   same selector, target and select condition (not the
                   line), with a reproducer of the same kind (tristate
                   only or not).  The others are counted as known.  Each
                   new one is printed as
                     FILE:LINE: warning: S selects T, whose direct
                     dependencies can be unmet
                   with note: lines (T's dependencies, the blocking
                   conjuncts, the reproducing .config, the hint), then
                   one summary line "kconfig-audit: ..."; the JSON marks
                   each finding "new" or "known", with a reason.
  --base-rev REV   the same, the old tree being the Kconfig files of
                   commit REV of the git tree --srctree.
  --patch PATCH    apply a git-format patch to a copy of the Kconfig files
                   of --srctree (and scripts/, and the files it names), in
                   a temporary folder, and audit that against --srctree.

The cache ($BUILD/cache/audit, or $KCONFIG_AUDIT_CACHE) keeps each tree's
result by the hash of its Kconfig files and kconfig sources (a second
audit of a tree costs the hashing, a few seconds), and the answer of each
question by the hash of its cone of influence: the select and the
definitions of every symbol whose value can reach the selector, the
condition or the target's dependencies.  A changed tree asks the solver
only the questions whose cone the change touched; the others, and the
conf confirmation of their candidates, come from the cache.  --no-cache
asks everything and keeps nothing.

Exit status: 0 no finding (with --base, --base-rev or --patch: no new
one), 1 findings (new ones), 2 usage or infrastructure error.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import kmake, util
from .errors import SetupError, UsageError
from .kmake import conf_env, kconfig_sources, newer

TOP = Path(util.TOP)
START = time.monotonic()


def log(msg):
    print('[%7.1fs] %s' % (time.monotonic() - START, msg), file=sys.stderr,
          flush=True)


def cache_dir(srctree, arch):
    """Where the program and conf for @srctree's kconfig and @arch are
    kept, between runs: build/out/audit/cache/ARCH-HASH, HASH that of the
    kconfig sources, so that a copy of the tree (--patch, --base-rev)
    uses the program and conf of the tree it comes from."""
    return Path(util.TREES) / 'out' / 'audit' / 'cache' / (
        '%s-%s' % (arch, kconfig_hash(srctree)))


def kconfig_hash(srctree):
    """The hash of @srctree's kconfig sources: conf's code."""
    h = hashlib.sha256()
    for f in kconfig_sources(srctree):
        h.update(os.path.basename(f).encode() + b'\0')
        h.update(Path(f).read_bytes())
    return h.hexdigest()[:12]


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


# Bump when what is cached (answers, trees' results) changes meaning
CACHE_VERSION = 1


def cache_root():
    """$BUILD/cache/audit, or $KCONFIG_AUDIT_CACHE: the answers and the
    trees' results."""
    return Path(os.environ.get('KCONFIG_AUDIT_CACHE') or
                Path(util.BUILD) / 'cache' / 'audit')


def walk_kconfig(srctree):
    """The Kconfig files of @srctree (Kconfig, Kconfig.*), relative."""
    out = []
    for d, dirs, files in os.walk(srctree):
        dirs[:] = sorted(x for x in dirs if not x.startswith('.'))
        rel = os.path.relpath(d, srctree)
        for f in sorted(files):
            if f.startswith('Kconfig'):
                out.append(f if rel == '.' else os.path.join(rel, f))
    return out


def tool_hash():
    h = hashlib.sha256(b'%d' % CACHE_VERSION)
    h.update((TOP / 'tools' / 'audit' / 'kconfig-audit.c').read_bytes())
    return h.hexdigest()[:12]


def audit_key(srctree, arch, kconfig, options):
    """The hash of what the audit of @srctree reads: its Kconfig files, its
    kconfig sources, the fragment, @arch and the options that choose the
    selects asked."""
    h = hashlib.sha256(('%s %s %s %s\0' % (tool_hash(), arch, kconfig,
                                            options)).encode())
    for rel in walk_kconfig(srctree) + [
            os.path.relpath(f, srctree) for f in kconfig_sources(srctree)]:
        h.update(rel.encode() + b'\0')
        h.update((srctree / rel).read_bytes())
    if os.path.isabs(kconfig) and os.path.isfile(kconfig):
        h.update(Path(kconfig).read_bytes())
    return h.hexdigest()[:16]


class Answers:
    """The answers of every question asked so far, by cone hash (the
    select and the definitions of the symbols that its answer depends
    on, kconfig-audit.c's cone_hash()), for ARCH and one conf (its
    diagnosis is in the answers): unsat, carried, a finding (with conf's
    diagnosis and its .config) or a rejected candidate (with the
    reason)."""

    def __init__(self, arch, srctree):
        self.dir = cache_root() / ('%s-%s-%s' % (arch, tool_hash(),
                                                 kconfig_hash(srctree)))
        self.path = self.dir / 'answers.json'
        try:
            self.db = json.loads(self.path.read_text())
        except (OSError, ValueError):
            self.db = {}
        self.dirty = False

    def model(self, h):
        return self.dir / 'models' / (h + '.config')

    def put(self, h, rec, model=None):
        self.db[h] = rec
        self.dirty = True
        if model:
            (self.dir / 'models').mkdir(parents=True, exist_ok=True)
            util.write_atomic(str(self.model(h)),
                              Path(model).read_text(errors='replace'))

    def save(self):
        if self.dirty:
            self.dir.mkdir(parents=True, exist_ok=True)
            util.write_atomic(str(self.path), json.dumps(self.db) + '\n')
            self.dirty = False


FINDING_KEYS = ('level', 'tristate_only', 'coarse', 'depends_on',
                'depends_value', 'blocking', 'hint')


def setup(srctree, arch, build_from):
    """The C program, conf and conf's environment for @srctree, built
    from @build_from (a full tree with the same kconfig sources: @srctree
    may be a copy of its Kconfig files only)."""
    cache = cache_dir(build_from, arch)
    if cache != cache_dir(srctree, arch):
        raise SetupError('%s: its scripts/kconfig differs from that of %s: '
                         'audit two full trees with --base' % (srctree,
                                                                build_from))
    tool = kmake.build_helper(str(TOP), build_from, cache / 'bin', 'audit')
    obj = cache / 'obj'
    conf = obj / 'scripts' / 'kconfig' / 'conf'
    if newer(conf, kconfig_sources(build_from)) and \
            (obj / 'include/config/auto.conf.cmd').is_file():
        env = conf_env(obj)
    else:
        env = kmake.build_conf(build_from, obj, arch)
    env = kmake.environment(extra=dict(env, srctree=str(srctree)))
    return tool, str(conf), env


def audit_tree(srctree, arch, kconfig, out, opts, build_from=None,
               use_cache=True, label='tree'):
    """Audit @srctree, asking the C program only the questions whose cone
    has no answer yet; return the document (findings, rejected, summary)
    and the conf setup (None when the tree's result came from the
    cache).  Reproducers are copied into OUT/findings/."""
    start = time.monotonic()
    options = ' '.join('%s=%s' % kv for kv in sorted(opts.items()))
    key = audit_key(srctree, arch, kconfig, options)
    tdir = cache_root() / 'trees' / key
    fdir = out / 'findings'
    if fdir.exists():
        shutil.rmtree(fdir)
    fdir.mkdir(parents=True)
    answers = Answers(arch, srctree) if use_cache else None
    if use_cache and (tdir / 'audit.json').is_file():
        doc = json.loads((tdir / 'audit.json').read_text())
        # the reproducers are the answers' models, kept once
        models = [answers.model(f['hash']) for f in doc['findings']]
        if all(m.is_file() for m in models):
            for f, m in zip(doc['findings'], models):
                repro = fdir / os.path.basename(f['reproducer'])
                shutil.copy(m, repro)
                f['reproducer'] = str(repro)
            doc['cached'] = True
            doc['seconds'] = round(time.monotonic() - start, 1)
            log('%s: the result of %s, from the cache (%s)' % (
                label, srctree, key))
            return doc, None
    log('%s: building kconfig-audit and conf for %s (%s)' % (label, arch,
                                                            srctree))
    tool, conf, env = setup(srctree, arch, build_from or srctree)
    work = out / 'candidates'
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    cmd = [tool, '--out', str(work)]
    if opts.get('limit') is not None:
        cmd += ['--limit', str(opts['limit'])]
    if opts.get('only'):
        cmd += ['--only', opts['only']]
    if opts.get('own'):
        cmd.append('--own')
    if answers and answers.db:
        known = work / 'known.list'
        known.write_text(''.join(h + '\n' for h in answers.db))
        cmd += ['--known', str(known)]
    log('%s: asking PicoSAT about the selects of %s%s' % (
        label, kconfig, ' (%d answers known)' % len(answers.db)
        if answers and answers.db else ''))
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
    cands, questions, summary = parse_output(text)
    if summary is None:
        raise SetupError('%s: no answer (exit %d): see the messages '
                         'above' % (kconfig, proc.returncode))
    log('%s: %d selects: %d unsatisfiable, %d candidates, %d answered by '
        'the cache (%d variables, %d clauses, %d coarse comparisons, '
        '%.1f s)' % (label, summary['selects'], summary['unsat'],
                     len(cands), summary.get('reused', 0),
                     summary['variables'], summary['clauses'],
                     summary['coarse'], summary['sat_seconds']))
    if cands:
        log('%s: confirming %d candidates with conf --batch' % (label,
                                                               len(cands)))
    found, rejected = confirm(conf, env, str(srctree), kconfig, cands,
                              work) if cands else ([], [])
    byn = {'cand-%d' % c['n']: c for c in found + rejected}
    found, rejected = [], []
    for q in questions:
        ident = {k: q[k] for k in ('selector', 'target', 'file', 'line',
                                   'condition', 'hash')}
        if q['result'] in byn:
            c = byn[q['result']]
            model = work / ('cand-%d.config' % c['n'])
            if 'reason' in c:
                rec = {'result': 'rejected', 'reason': c['reason'],
                       'level': c['level'], 'coarse': c['coarse'],
                       'tristate_only': c['tristate_only']}
            else:
                rec = dict({k: c.get(k) for k in FINDING_KEYS},
                           result='finding')
            if answers:
                answers.put(q['hash'], rec, model if 'reason' not in c
                            else None)
        elif q['result'] == 'known':
            rec = answers.db[q['hash']]
            model = answers.model(q['hash'])
            if rec['result'] not in ('finding', 'rejected'):
                continue
        else:
            if answers and q['result'] == 'unsat':
                answers.put(q['hash'], {'result': 'unsat'})
            continue
        if rec['result'] == 'finding':
            repro = fdir / ('%s-selects-%s.config' % (q['selector'],
                                                      q['target']))
            shutil.copy(model, repro)
            found.append(dict(ident, reproducer=str(repro),
                              **{k: rec.get(k) for k in FINDING_KEYS}))
        else:
            rejected.append(dict(ident, reason=rec['reason'],
                                 **{k: rec.get(k) for k in
                                    ('level', 'coarse', 'tristate_only')}))
    if answers:
        answers.save()
    doc = {'version': 2, 'tool': 'kconfig-audit', 'arch': arch,
           'srctree': str(srctree), 'kconfig': kconfig, 'key': key,
           'peak_rss_kib': peak_kb,
           'coarse_note': 'comparisons other than = and != between '
           'bool or tristate operands are free variables',
           'summary': summary, 'findings': found, 'rejected': rejected,
           'cached': False,
           'seconds': round(time.monotonic() - start, 1)}
    if use_cache:
        tdir.mkdir(parents=True, exist_ok=True)
        util.write_atomic(str(tdir / 'audit.json'),
                          json.dumps(doc, indent=2) + '\n')
    return doc, (conf, env)


def identity(f):
    """A finding is the same across trees when its selector, its target
    and the select's condition are: not its line."""
    return (f['selector'], f['target'], f['condition'])


def mark(doc, base):
    """Mark each finding of @doc new or known against @base's findings;
    a finding of the base whose reproducer differs in kind (tristate
    only, or not) is new."""
    old = {identity(f): f for f in base['findings']}
    for f in doc['findings']:
        b = old.get(identity(f))
        f['status'] = 'known' if b and \
            b['tristate_only'] == f['tristate_only'] else 'new'
        if b and f['status'] == 'new':
            f['reason'] = 'the base has it, but not tristate only' \
                if f['tristate_only'] else \
                'the base has it only as tristate only'
        elif not b:
            f['reason'] = 'no configuration of the base leaves it unmet'


def copy_kconfig_tree(srctree, dest, extra=()):
    """A copy of what kconfig reads in @srctree: the Kconfig files,
    scripts/ (Kconfig.include and the scripts it runs) and @extra."""
    for rel in walk_kconfig(srctree):
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(srctree / rel, dest / rel)
    shutil.copytree(srctree / 'scripts', dest / 'scripts',
                    dirs_exist_ok=True, symlinks=True,
                    ignore=shutil.ignore_patterns('*.o', '.*.cmd'))
    # the scripts that Kconfig files of some architectures run
    for tools in srctree.glob('arch/*/tools'):
        shutil.copytree(tools, dest / tools.relative_to(srctree),
                        dirs_exist_ok=True, symlinks=True)
    for rel in extra:
        if (srctree / rel).is_file() and not (dest / rel).exists():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(srctree / rel, dest / rel)


def patch_files(patch):
    """The files that a git-format patch names (a/ and b/ sides)."""
    files = set()
    for line in Path(patch).read_text(errors='replace').splitlines():
        if line.startswith(('--- a/', '+++ b/')):
            files.add(line[6:].split('\t')[0])
        elif line.startswith('diff --git '):
            for p in line.split()[2:4]:
                if p.startswith(('a/', 'b/')):
                    files.add(p[2:])
    return sorted(files)


def apply_patch(srctree, patch, dest):
    """@srctree's Kconfig files, copied to @dest, with @patch applied."""
    files = patch_files(patch)
    if not files:
        raise UsageError('%s: not a patch (no "diff --git" or "+++ b/" '
                         'line)' % patch)
    if any(f.startswith('scripts/kconfig/') for f in files):
        raise UsageError('%s changes scripts/kconfig: audit two full trees '
                         'with --base' % patch)
    copy_kconfig_tree(srctree, dest, files)
    ps = subprocess.run(['git', 'apply', '--whitespace=nowarn',
                         str(Path(patch).resolve())], cwd=dest,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True)
    if ps.returncode:
        first = (ps.stdout.strip().splitlines() or ['git apply failed'])[0]
        raise UsageError('%s does not apply to %s: %s' % (patch, srctree,
                                                          first))


def export_rev(srctree, rev, dest):
    """The Kconfig files and scripts/ of @rev in the git tree @srctree."""
    ps = subprocess.run(['git', '-C', str(srctree), 'rev-parse', '--verify',
                         '--quiet', rev + '^{commit}'],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                        text=True)
    if ps.returncode:
        raise UsageError('%s: no commit %s in %s' % (rev, rev, srctree))
    arch = subprocess.Popen(['git', '-C', str(srctree), 'archive', rev, '--',
                             ':(glob)**/Kconfig*', 'scripts'],
                            stdout=subprocess.PIPE)
    tar = subprocess.run(['tar', '-x', '-C', str(dest)], stdin=arch.stdout)
    arch.stdout.close()
    if arch.wait() or tar.returncode:
        raise SetupError('git archive %s failed in %s' % (rev, srctree))


def print_review(doc):
    """Each new finding as a compiler warning with notes."""
    for f in doc['findings']:
        if f.get('status') != 'new':
            continue
        print('%s:%d: warning: %s selects %s, whose direct dependencies '
              'can be unmet%s' % (f['file'], f['line'], f['selector'],
                                  f['target'], ' (tristate only)'
                                  if f['tristate_only'] else ''))
        if f.get('depends_on'):
            print('%s:%d: note: %s depends on [%s]: %s' % (
                f['file'], f['line'], f['target'],
                f.get('depends_value') or 'n', f['depends_on']))
        if f.get('blocking'):
            print('%s:%d: note: blocked by %s' % (
                f['file'], f['line'], ', '.join(
                    '%s [=%s]' % (b['expr'], b['value'])
                    for b in f['blocking'])))
        print('%s:%d: note: %s [=%s] reproduces it: %s' % (
            f['file'], f['line'], f['selector'], f['level'],
            f['reproducer']))
        if f.get('hint'):
            print('%s:%d: note: to meet it, enable %s, or make %s depend '
                  'on %s' % (f['file'], f['line'], ', '.join(f['hint']),
                             f['selector'], 'it' if len(f['hint']) == 1
                             else 'them'))
        print('%s:%d: note: %s' % (f['file'], f['line'], f['reason']))


def main():
    ap = argparse.ArgumentParser(
        prog='kconfig-audit', description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog='Exit status: 0 no finding (with --base or --patch: no new '
        'one), 1 findings (new ones), 2 usage or infrastructure error.  '
        'See docs/audit.md.')
    ap.add_argument('--version', action='version',
                    version='kconfig-audit %d' % CACHE_VERSION)
    ap.add_argument('--srctree', default=str(Path(util.TREES) / 'patched'),
                    help='the kernel tree to audit (default: build/patched '
                    'of KERNEL_VERSION); with --patch, the tree the patch '
                    'applies to, and the base')
    ap.add_argument('--arch', default='arm',
                    help='ARCH of the Kconfig tree (default: arm)')
    ap.add_argument('--fragment', help='a Kconfig fragment (KBUILD_KCONFIG)'
                    ' instead of the tree\'s Kconfig')
    ap.add_argument('--out', help='where candidates, findings and '
                    'reproducers go (default: build/out/audit/ARCH, or '
                    'ARCH-review with --base, --base-rev or --patch)')
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
    ap.add_argument('--base', metavar='OLDTREE',
                    help='review a change: report only the findings that '
                    'OLDTREE does not have (by selector, target and the '
                    'select\'s condition); the others are counted as '
                    'known; exit 1 only on new ones')
    ap.add_argument('--base-rev', metavar='REV',
                    help='as --base, with the Kconfig files of commit REV '
                    'of the git tree --srctree as the old tree')
    ap.add_argument('--patch', metavar='PATCH',
                    help='review a git-format patch: apply it to a copy of '
                    'the Kconfig files of --srctree (in a temporary '
                    'folder), audit that against --srctree as the base')
    ap.add_argument('--no-cache', action='store_true',
                    help='ask every question again and keep nothing: the '
                    'cache ($BUILD/cache/audit) holds each tree\'s result, '
                    'by the hash of its Kconfig files, and the answer of '
                    'each question, by the hash of its cone of influence')
    args = ap.parse_args()

    srctree = Path(args.srctree).resolve()
    review = bool(args.base or args.base_rev or args.patch)
    out = Path(args.out or Path(util.TREES) / 'out' / 'audit' / (
        args.arch + ('-review' if review else ''))).resolve()
    kconfig = 'Kconfig'
    if sum(map(bool, (args.base, args.base_rev, args.patch))) > 1:
        print('kconfig-audit: --base, --base-rev and --patch exclude one '
              'another', file=sys.stderr)
        return 2
    if review and args.randconfigs:
        print('kconfig-audit: --randconfigs audits one tree: not with '
              '--base, --base-rev or --patch', file=sys.stderr)
        return 2
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
    for t, what in ((srctree, '--srctree'),
                    (Path(args.base).resolve() if args.base else None,
                     '--base')):
        if t is not None and not (t / 'scripts' / 'kconfig' /
                                  'conf.c').is_file():
            print('kconfig-audit: %s: %s is not a kernel tree' % (what, t),
                  file=sys.stderr)
            return 2
    try:
        kmake.check_arch(srctree, args.arch)
    except UsageError as e:
        print('kconfig-audit: %s' % e, file=sys.stderr)
        return 2
    if args.patch and not Path(args.patch).is_file():
        print('kconfig-audit: --patch: %s: no such file' % args.patch,
              file=sys.stderr)
        return 2
    opts = {'limit': args.limit, 'only': args.only, 'own': args.own}
    use_cache = not args.no_cache
    tmp = None
    base = None
    try:
        newtree, build_from = srctree, srctree
        if review:
            tmp = Path(tempfile.mkdtemp(prefix='kconfig-audit.'))
            if args.patch:
                log('applying %s to a copy of %s' % (args.patch, srctree))
                newtree = tmp / 'new'
                apply_patch(srctree, args.patch, newtree)
                basetree = srctree
            elif args.base_rev:
                log('exporting the Kconfig files of %s' % args.base_rev)
                basetree = tmp / 'base'
                basetree.mkdir()
                export_rev(srctree, args.base_rev, basetree)
            else:
                basetree = Path(args.base).resolve()
            base, _ = audit_tree(basetree, args.arch, kconfig,
                                 out / 'base', opts,
                                 build_from=srctree if args.base_rev
                                 else basetree,
                                 use_cache=use_cache, label='base')
        doc, setup_ = audit_tree(newtree, args.arch, kconfig, out, opts,
                                 build_from=build_from,
                                 use_cache=use_cache,
                                 label='new' if review else 'tree')
        sweep = None
        if args.randconfigs:
            if setup_ is None:
                _, conf, env = setup(srctree, args.arch, srctree)
            else:
                conf, env = setup_
            log('sweeping %d randconfigs' % args.randconfigs)
            work = out / 'candidates'
            work.mkdir(parents=True, exist_ok=True)
            hits = randconfig_sweep(conf, env, kconfig, args.randconfigs,
                                    work)
            known = {(f['selector'], f['target'], f['file'], f['line'])
                     for f in doc['findings']}
            sweep = {'randconfigs': args.randconfigs,
                     'unmet': [dict(zip(('selector', 'target', 'file',
                                         'line'), k), seed=v)
                               for k, v in sorted(hits.items(),
                                                  key=lambda kv: kv[1])],
                     'missed': [dict(zip(('selector', 'target', 'file',
                                          'line'), k), seed=v)
                                for k, v in hits.items() if k not in known]}
    except UsageError as e:
        print('kconfig-audit: %s' % e, file=sys.stderr)
        return 2
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    found, summary = doc['findings'], doc['summary']
    seconds = round(time.monotonic() - START, 1)
    if review:
        mark(doc, base)
        new = [f for f in found if f['status'] == 'new']
        print_review(doc)
        what = args.patch or 'new tree'
        print('kconfig-audit: %s %s: %d new unmet select(s), %d known '
              '(%d selects, %d solved again, the rest from the cache), '
              '%.1f s' % (args.arch, what, len(new), len(found) - len(new),
                          summary['selects'],
                          0 if doc['cached'] else
                          summary['selects'] - summary['carried'] -
                          summary.get('reused', 0), seconds))
    else:
        for f in found:
            print('%s:%d: warning: %s [=%s] can select %s, whose direct '
                  'dependencies are unmet%s; reproducer %s' % (
                      f['file'], f['line'], f['selector'], f['level'],
                      f['target'], ' (tristate only)' if f['tristate_only']
                      else '', f['reproducer']))
        print('kconfig-audit: %s %s: %d selects, %d candidates, %d '
              'confirmed (%d tristate only), %d rejected, %.1f s%s' % (
                  args.arch, args.fragment or 'Kconfig', summary['selects'],
                  summary['candidates'], len(found),
                  sum(f['tristate_only'] for f in found),
                  len(doc['rejected']), seconds,
                  ', from the cache' if doc['cached'] else
                  ', peak %d MiB' % (doc['peak_rss_kib'] // 1024)))
    if sweep is not None:
        print('kconfig-audit: %d randconfigs hit %d distinct unmet selects, '
              '%d of them not found by the audit%s' % (
                  sweep['randconfigs'], len(sweep['unmet']),
                  len(sweep['missed']), ''.join(
                      '\n  missed: %s selects %s (%s:%s), seed %d' % (
                          m['selector'], m['target'], m['file'], m['line'],
                          m['seed']) for m in sweep['missed'])))
    if args.json:
        out_doc = dict(doc, own=args.own, randconfig_sweep=sweep,
                       seconds=seconds, tree_seconds=doc['seconds'])
        if review:
            out_doc.update(
                base={'srctree': base['srctree'], 'key': base['key'],
                      'cached': base['cached'],
                      'findings': len(base['findings'])},
                patch=args.patch, base_rev=args.base_rev,
                new=sum(f['status'] == 'new' for f in found),
                known=sum(f['status'] == 'known' for f in found))
        util.write_atomic(args.json, json.dumps(out_doc, indent=2) + '\n')
    if review:
        return 1 if any(f['status'] == 'new' for f in found) else 0
    return 1 if found else 0

# SPDX-License-Identifier: GPL-2.0
"""audit_cache - what kconfig-audit keeps between runs: the program and
conf of each kconfig (cache_dir()), each tree's result by the hash of
what it reads (audit_key()), and the answer of each question by the hash
of its cone of influence (Answers).

It writes only under $BUILD/cache/audit (or $KCONFIG_AUDIT_CACHE), and
copies the reproducers of a result or of the
answers into the audit's OUT/findings/ (cached_tree(), sort_answers()).
"""

import fcntl
import hashlib
import json
import os
import shutil
from pathlib import Path

from . import util
from .audit_series import carries_series, series_conf, series_hash
from .kmake import kconfig_sources

# What a finding records of conf's confirmation
FINDING_KEYS = ('level', 'tristate_only', 'coarse', 'depends_on',
                'depends_value', 'blocking', 'hint')

TOP = Path(util.TOP)


def cache_dir(srctree, arch):
    """Where the program and conf's environment for @srctree's kconfig
    and @arch are kept, between runs: CACHE/build/ARCH-HASH (CACHE
    cache_root()), HASH that of the kconfig sources, so that a copy of
    the tree (--patch, --base-rev) uses the program and conf of the tree
    it comes from."""
    return cache_root() / 'build' / ('%s-%s' % (arch,
                                                kconfig_hash(srctree)))


def kconfig_hash(srctree):
    """The hash of @srctree's kconfig sources: conf's code."""
    h = hashlib.sha256()
    for f in kconfig_sources(srctree):
        h.update(os.path.basename(f).encode() + b'\0')
        h.update(Path(f).read_bytes())
    return h.hexdigest()[:12]


def confirm_hash(srctree):
    """The hash of the conf that confirms the candidates on @srctree:
    its kconfig sources, those of the tree for a tree that carries the
    series, else those of the copy with the series' kconfig patches that
    audit_series builds (the same as the tree with the series: a stock
    tree and its patched tree share their answers)."""
    if carries_series(srctree):
        return kconfig_hash(srctree)
    conf = series_conf(srctree, kconfig_hash(srctree), cache_root())
    return kconfig_hash(conf.parent.parent)


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
    """The hash of the C program's source and CACHE_VERSION, 12
    hex digits: a new program or cache layout gets new answers."""
    h = hashlib.sha256(b'%d' % CACHE_VERSION)
    h.update((TOP / 'tools' / 'audit' / 'kconfig-audit.c').read_bytes())
    return h.hexdigest()[:12]


def audit_key(srctree, arch, kconfig, options):
    """The hash of what the audit of @srctree reads: its Kconfig files, its
    kconfig sources, the fragment, @arch and the options that choose the
    selects asked."""
    h = hashlib.sha256(('%s %s %s %s\0' % (tool_hash(), arch, kconfig,
                                            options)).encode())
    h.update(series_hash(srctree).encode() + b'\0')
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
    on, kconfig-audit.c's cone_hash()), for one program and one conf
    (its diagnosis is in the answers): unsat, a finding (with conf's
    diagnosis and its .config) or a rejected candidate (with the
    reason).

    "unsat" depends on the cone alone, whatever the architecture: those
    answers are shared by every architecture (unsat.json; --arch all
    asks each cone once).  A candidate's confirmation is conf's for one
    architecture, its .config that architecture's: those are kept per
    architecture (ARCH.json, ARCH-models/)."""

    def __init__(self, arch, srctree):
        """Open the answers of @arch and the kconfig of @srctree, in
        cache_root()/answers-TOOL-CONF/ (none yet when they cannot be
        read)."""
        self.dir = cache_root() / ('answers-%s-%s' % (
            tool_hash(), confirm_hash(srctree)))
        self.arch = arch
        self.path = self.dir / (arch + '.json')
        self.shared_path = self.dir / 'unsat.json'
        self.own = self._load(self.path)
        self.db = dict(self._load(self.shared_path), **self.own)
        self.new_unsat = {}

    @staticmethod
    def _load(path):
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return {}

    def model(self, h):
        """The path of the .config (a finding's reproducer) kept for the
        question whose cone hash is @h."""
        return self.dir / (self.arch + '-models') / (h + '.config')

    def put(self, h, rec, model=None):
        """Record @rec as the answer of the question @h, and keep the
        file @model (a reproducer) with it when given."""
        self.db[h] = rec
        if rec['result'] == 'unsat':
            self.new_unsat[h] = rec
        else:
            self.own[h] = rec
            self.own_dirty = True
        if model:
            self.model(h).parent.mkdir(parents=True, exist_ok=True)
            util.write_atomic(str(self.model(h)),
                              Path(model).read_text(errors='replace'))

    def save(self):
        """Write the answers back atomically, if any changed since they
        were read: the shared ones merged with what other audits (other
        architectures, running beside it) wrote meanwhile, under a
        lock."""
        self.dir.mkdir(parents=True, exist_ok=True)
        if getattr(self, 'own_dirty', False):
            util.write_atomic(str(self.path), json.dumps(self.own) + '\n')
            self.own_dirty = False
        if self.new_unsat:
            with open(self.dir / '.lock', 'w') as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                shared = self._load(self.shared_path)
                shared.update(self.new_unsat)
                util.write_atomic(str(self.shared_path),
                                  json.dumps(shared) + '\n')
            self.new_unsat = {}


def cached_tree(tdir, answers, fdir):
    """The document of the tree's last audit, cached in @tdir, with its
    reproducers (the models of @answers) copied into @fdir; None when
    there is none or a model is missing."""
    if not (tdir / 'audit.json').is_file():
        return None
    doc = json.loads((tdir / 'audit.json').read_text())
    # the reproducers are the answers' models, kept once
    models = [answers.model(f['hash']) for f in doc['findings']]
    if not all(m.is_file() for m in models):
        return None
    for f, m in zip(doc['findings'], models):
        repro = fdir / os.path.basename(f['reproducer'])
        shutil.copy(m, repro)
        f['reproducer'] = str(repro)
    doc['cached'] = True
    return doc


def sort_answers(questions, confirmed, answers, work, fdir):
    """Each question's answer: conf's for the candidates it
    @confirmed (by name), the cache's for the known ones, recorded in
    @answers.  Returns (findings, their reproducers copied into @fdir;
    rejected candidates)."""
    found, rejected = [], []
    for q in questions:
        ident = {k: q[k] for k in ('selector', 'target', 'file', 'line',
                                   'condition', 'hash')}
        if q['result'] in confirmed:
            c = confirmed[q['result']]
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
    return found, rejected

# SPDX-License-Identifier: GPL-2.0
"""audit_cache - what kconfig-audit keeps between runs: the program and
conf of each kconfig (cache_dir()), each tree's result by the hash of
what it reads (audit_key()), and the answer of each question by the hash
of its cone of influence (Answers).

It writes only under $BUILD/cache/audit (or $KCONFIG_AUDIT_CACHE) and
build/out/audit/cache/.
"""

import hashlib
import json
import os
from pathlib import Path

from . import util
from .kmake import kconfig_sources

TOP = Path(util.TOP)


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

# SPDX-License-Identifier: GPL-2.0
"""audit_series - the conf that confirms kconfig-audit's candidates on any
tree: the tree's own when it carries the series (conf --batch and the
JSON report), else one built in the audit's cache from a copy of the
tree's scripts/kconfig with the series' kconfig patches applied.

The patches are those of kernel-patches/VERSION/series (VERSION the
tree's, or the newest the project has below it, for a mainline checkout)
that change scripts/kconfig, in series order, restricted to
scripts/kconfig/ and scripts/include/.  The tree is never changed: it
writes only under the cache (audit_cache.cache_root()/kconfig/HASH).
"""

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from . import kmake, util
from .errors import SetupError

TOP = Path(util.TOP)
PATCHES = TOP / 'kernel-patches'
# one build of a conf at a time in this process: the audit's setup
# builds it in a thread while the cache asks for its hash
_BUILDING = threading.Lock()


def carries_series(srctree):
    """Does @srctree's conf have the series' batch mode (and so the
    report, which the batch patch follows)?"""
    conf = Path(srctree) / 'scripts' / 'kconfig' / 'conf.c'
    return 'batchconfig' in conf.read_text(errors='replace')


def tree_version(srctree):
    """(VERSION, PATCHLEVEL) of @srctree's Makefile."""
    text = (Path(srctree) / 'Makefile').read_text(errors='replace')
    v = re.search(r'^VERSION = (\d+)$', text, re.M)
    p = re.search(r'^PATCHLEVEL = (\d+)$', text, re.M)
    if not (v and p):
        raise SetupError('%s/Makefile: no VERSION and PATCHLEVEL' % srctree)
    return int(v.group(1)), int(p.group(1))


def series_for(srctree):
    """kernel-patches/VERSION of @srctree's version, or of the newest
    version below it that the project has."""
    want = tree_version(srctree)
    have = sorted((tuple(map(int, d.name.split('.'))), d)
                  for d in PATCHES.iterdir()
                  if re.fullmatch(r'\d+\.\d+', d.name) and
                  (d / 'series').is_file())
    below = [d for v, d in have if v <= want]
    if not below:
        raise SetupError('%s is %d.%d: the series starts at %s' % (
            srctree, want[0], want[1], have[0][1].name if have else '?'))
    return below[-1]


def kconfig_patches(srctree):
    """The series' patches that change scripts/kconfig, in order, for
    @srctree."""
    d = series_for(srctree)
    out = []
    for line in (d / 'series').read_text().splitlines():
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        p = d / line
        if '\n+++ b/scripts/kconfig/' in p.read_text(errors='replace'):
            out.append(p)
    return out


def series_hash(srctree):
    """'' for a tree that carries the series, else the hash of the
    patches its confirming conf is built with."""
    if carries_series(srctree):
        return ''
    h = hashlib.sha256()
    for p in kconfig_patches(srctree):
        h.update(p.read_bytes())
    return h.hexdigest()[:12]


def series_conf(srctree, kc_hash, root):
    """The conf built from @srctree's scripts/kconfig (whose hash is
    @kc_hash), with the series' kconfig patches unless it carries them,
    under @root/kconfig/: built once, atomically.  Raises SetupError when
    a patch does not apply or conf does not build."""
    dest = Path(root) / 'kconfig' / ('%s-%s' % (
        kc_hash, series_hash(srctree) or 'own'))
    conf = dest / 'bin' / 'conf'
    with _BUILDING:
        if not conf.is_file():
            build_series_conf(srctree, dest)
    return conf


def build_series_conf(srctree, dest):
    """series_conf()'s build, into @dest."""
    conf = dest / 'bin' / 'conf'
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix='.new-', dir=str(dest.parent)))
    try:
        for sub in ('kconfig', 'include'):
            if not (Path(srctree) / 'scripts' / sub).is_dir():
                continue    # 6.1 has no scripts/include
            shutil.copytree(Path(srctree) / 'scripts' / sub,
                            tmp / 'scripts' / sub, symlinks=True,
                            ignore=shutil.ignore_patterns(
                                '*.o', '.*.cmd', 'conf', '*.tab.[ch]',
                                '*.lex.c'))
        patches = [] if carries_series(srctree) else \
            kconfig_patches(srctree)
        for p in patches:
            ps = subprocess.run(['git', 'apply', '--whitespace=nowarn',
                                 '--include=scripts/kconfig/*',
                                 '--include=scripts/include/*', str(p)],
                                cwd=tmp, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
            if ps.returncode:
                raise SetupError('%s does not apply to the scripts/kconfig '
                                 'of %s: %s' % (p, srctree,
                                                ps.stdout.strip()[:500]))
        ps = subprocess.run([str(TOP / 'tools' / 'audit' / 'build'),
                             '--tool', 'conf', '--srctree', str(tmp),
                             '--out', str(tmp / 'bin')],
                            env=kmake.environment(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
        if ps.returncode:
            raise SetupError(ps.stderr.strip() or 'building conf failed')
        try:
            os.rename(tmp, dest)
        except OSError:
            if not conf.is_file():   # not another audit's, built meanwhile
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

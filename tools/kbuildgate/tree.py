# SPDX-License-Identifier: GPL-2.0
"""tree - what a run knows of the kernel tree and the toolchain: keys
for the stamps (every file's path, size and mtime; the compiler's
identity) and whether the tree has "make batchconfig" (patch 11).

It only reads the tree; tools/kernel-tree makes it.
"""

import hashlib
import os
import shutil
import subprocess



def tree_key(srctree):
    """A key of every file of the tree: path, size and mtime (~0.3s for
    the 78,000 files of 6.1).  An out-of-tree build never writes there."""
    h = hashlib.sha256()
    stack = [srctree]
    n = 0
    while stack:
        d = stack.pop()
        with os.scandir(d) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            if e.name == '.git':
                continue
            if e.is_dir(follow_symlinks=False):
                stack.append(e.path)
                continue
            st = e.stat(follow_symlinks=False)
            h.update(('%s\0%d\0%d\n' % (e.path[len(srctree):], st.st_size,
                                        st.st_mtime_ns)).encode())
            n += 1
    return '%s:%d' % (h.hexdigest(), n)


def cc_identity(cc):
    """The identity of the compiler @cc: its real path, mtime and
    first --version line; None when it is not on PATH."""
    path = shutil.which(cc)
    if not path:
        return None
    ps = subprocess.run([path, '--version'], stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, text=True)
    st = os.stat(os.path.realpath(path))
    return '%s %d %s' % (os.path.realpath(path), st.st_mtime_ns,
                         ps.stdout.splitlines()[0] if ps.stdout else '')


def batch_available(srctree):
    """Does @srctree have "make batchconfig" (patch 11 of the
    series)?  False when its scripts/kconfig/Makefile cannot be read."""
    try:
        with open(os.path.join(srctree, 'scripts', 'kconfig',
                               'Makefile')) as f:
            return 'batchconfig' in f.read()
    except OSError:
        return False

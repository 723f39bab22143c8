# SPDX-License-Identifier: GPL-2.0
"""build - the build step: make C=1 on the paths a board names (sparse),
then the kernel image and the device trees, skipped when .config, the
tree and the toolchain are unchanged since the last good build (a stamp).

It writes only OUT/NAME/; the tree stays untouched (O=).
"""

import json
import os
import re
import time

from . import kmake
from .util import (SPARSE, STAMP_VERSION, key_of, log_tail, read_stamp,
                   sha256_file, write_atomic)

# What the kernel says when it turns C=1 off because the checker is too old
NO_SPARSE = re.compile(r'C=\d specified, but .* is not available or not up '
                       r'to date')

BUILD_TARGETS = {'arm': ['zImage', 'dtbs'], 'x86': ['bzImage']}
IMAGE = {'arm': 'arch/arm/boot/zImage', 'x86': 'arch/x86/boot/bzImage'}


class BuildStep:
    """The build step.  Input: t.result['config'] (the configure step's
    .config).  Outputs: the step's result, and in t.result 'image' and
    'sparse' (files checked, warnings).  Runs under KCONFIG_WERROR."""

    name = 'build'
    needs = ('config',)
    gives = ('image', 'sparse')

    def __init__(self, run):
        """@run: the run.Run whose options, tree and folders it uses."""
        self.run = run

    def key(self, t, d, targets):
        """The stamp's key of @t's build: its .config, the targets, the
        sparse paths, the toolchain and the tree; None with --force."""
        run = self.run
        if run.opts.force:
            return None
        return key_of(
            STAMP_VERSION, 'build', sha256_file(os.path.join(d, '.config')),
            targets, t.sparse, SPARSE, run.cc(t.arch), run.srctree,
            run.tree_key())

    def __call__(self, t):
        """Build @t in OUT/NAME/ (sparse first, on its paths); returns the
        step's result."""
        run = self.run
        d = run.dir(t)
        log = os.path.join(d, 'build.log')
        start = time.monotonic()
        targets = BUILD_TARGETS.get(t.arch, ['all'])
        image = os.path.join(d, IMAGE.get(t.arch, 'vmlinux'))
        stamp_path = os.path.join(d, 'build.stamp')
        key = self.key(t, d, targets)
        stamp = read_stamp(stamp_path)
        if key and stamp.get('key') == key and os.path.isfile(image):
            t.result['sparse'] = stamp.get('sparse')
            t.result['image'] = image
            res = {'status': 'PASS', 'log': log,
                   'seconds': round(time.monotonic() - start, 1),
                   'cached': '.config, sources and toolchain unchanged'}
            if t.sparse:
                res['sparse_log'] = os.path.join(d, 'sparse.log')
            return res
        if os.path.exists(stamp_path):
            os.unlink(stamp_path)
        env = kmake.environment(run.env, werror=True)
        jobs = run.opts.jobs
        res = {'log': log}
        rc = 0
        if t.sparse:
            # C=1: sparse checks the files of these paths as they are
            # compiled; a clean build folder checks them all
            slog = os.path.join(d, 'sparse.log')
            res['sparse_log'] = slog
            check = ['CHECK=' + SPARSE] if SPARSE else []
            with open(slog, 'w') as f:
                rc = kmake.logged(f, run.kmake(t, 'C=1', *check, *t.sparse,
                                               jobs=jobs), env)
            with open(slog, errors='replace') as f:
                text = f.read()
            # the kernel skips sparse when it is too old: not a clean check
            skipped = NO_SPARSE.search(text)
            if skipped and not rc:
                rc = 1
                res['reason'] = 'build: make C=1: %s' % skipped.group(0)
            t.result['sparse'] = {
                'checked': len(re.findall(r'^\s+CHECK\s', text, re.M)),
                'warnings': len(re.findall(
                    r'^\S+:\d+:\d+: (?:warning|error):', text, re.M))}
            if rc and 'reason' not in res:
                res['reason'] = 'build: make C=1 %s exited %d:\n%s' % (
                    ' '.join(t.sparse), rc, log_tail(slog))
        if rc == 0:
            with open(log, 'w') as f:
                rc = kmake.logged(f, run.kmake(t, *targets, jobs=jobs), env)
            if rc:
                res['reason'] = 'build: make %s exited %d:\n%s' % (
                    ' '.join(targets), rc, log_tail(log))
        res['status'] = 'FAIL' if rc else 'PASS'
        if rc:
            res['reasons'] = ['build']
        res['seconds'] = round(time.monotonic() - start, 1)
        if rc == 0:
            t.result['image'] = image
            if key:
                write_atomic(stamp_path, json.dumps(
                    {'key': key, 'sparse': t.result.get('sparse')}))
        return res

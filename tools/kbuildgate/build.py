# SPDX-License-Identifier: GPL-2.0
"""build - the build step: the kernel image and the device trees, then
make C=2 on the paths a board names (sparse), skipped when .config, the
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

# What the kernel says when it turns C=1 or C=2 off because the checker
# is too old
NO_SPARSE = re.compile(r'C=\d specified, but .* is not available or not up '
                       r'to date')
# The sparse setting of every build: C=2 checks every file of the paths
# a board names, compiled or not, so that the count is the same on every
# run; C=1 would check only the files that an incremental build
# recompiles
SPARSE_CHECK = 'C=2'

BUILD_TARGETS = {'arm': ['zImage', 'dtbs'], 'x86': ['bzImage']}
IMAGE = {'arm': 'arch/arm/boot/zImage', 'x86': 'arch/x86/boot/bzImage'}


def sparse_counts(text):
    """The files sparse checked and the warnings and errors it gave, in
    the output @text of make C=2: {'checked': N, 'warnings': N}."""
    return {'checked': len(re.findall(r'^\s+CHECK\s', text, re.M)),
            'warnings': len(re.findall(r'^\S+:\d+:\d+: (?:warning|error):',
                                       text, re.M))}


class BuildStep:
    """The build step.  Input: t.result['config'] (the configure step's
    .config).  Outputs: the step's result, and in t.result 'image' and
    'sparse' (files checked, warnings).  Runs under KCONFIG_WERROR.  Its
    two phases, build and sparse, are reported to the run's started()
    and ended()."""

    name = 'build'
    needs = ('config',)
    gives = ('image', 'sparse')

    def __init__(self, run):
        """@run: the run.Run whose options, tree and folders it uses."""
        self.run = run

    def key(self, t, d, targets):
        """The stamp's key of @t's build: its .config, the targets, the
        sparse paths and setting, the toolchain and the tree; None with
        --force."""
        run = self.run
        if run.opts.force:
            return None
        return key_of(
            STAMP_VERSION, 'build', sha256_file(os.path.join(d, '.config')),
            targets, t.sparse, SPARSE, SPARSE_CHECK, run.cc(t.arch),
            run.srctree, run.tree_key())

    def cached(self, t, d, key, image, log):
        """The step's result when the stamp of OUT/NAME/ stands for @key
        and @image is there (t.result's 'sparse' and 'image' filled from
        it), else None."""
        stamp = read_stamp(os.path.join(d, 'build.stamp'))
        if not (key and stamp.get('key') == key and os.path.isfile(image)):
            return None
        t.result['sparse'] = stamp.get('sparse')
        t.result['image'] = image
        res = {'status': 'PASS', 'log': log, 'seconds': 0.0,
               'cached': '.config, sources and toolchain unchanged'}
        if t.sparse:
            res['sparse_log'] = os.path.join(d, 'sparse.log')
        return res

    def make(self, t, phase, log, *targets):
        """make @targets for @t, its output in @log, reported to the run
        as @phase.  Returns the exit status."""
        run = self.run
        run.started(t, phase, log)
        start = time.monotonic()
        with open(log, 'w') as f:
            rc = kmake.logged(f, run.kmake(t, *targets, jobs=run.opts.jobs),
                              kmake.environment(run.env, werror=True))
        run.ended(t, phase, log, rc, time.monotonic() - start)
        return rc

    def sparse(self, t, d, res):
        """make C=2 on the paths that @t names, after its build: sparse
        checks every file of them.  Fills t.result['sparse'] and @res's
        'sparse_log' (and 'reason' on failure); returns the exit
        status, 1 when the kernel turned sparse off."""
        slog = os.path.join(d, 'sparse.log')
        res['sparse_log'] = slog
        check = ['CHECK=' + SPARSE] if SPARSE else []
        rc = self.make(t, 'sparse', slog, SPARSE_CHECK, *check, *t.sparse)
        with open(slog, errors='replace') as f:
            text = f.read()
        t.result['sparse'] = sparse_counts(text)
        # the kernel skips sparse when it is too old: not a clean check
        skipped = NO_SPARSE.search(text)
        if skipped and not rc:
            res['reason'] = 'build: make %s: %s' % (SPARSE_CHECK,
                                                   skipped.group(0))
            return 1
        if rc:
            res['reason'] = 'build: make %s %s exited %d:\n%s' % (
                SPARSE_CHECK, ' '.join(t.sparse), rc, log_tail(slog))
        return rc

    def __call__(self, t):
        """Build @t in OUT/NAME/, then sparse on its paths; returns the
        step's result."""
        d = self.run.dir(t)
        log = os.path.join(d, 'build.log')
        start = time.monotonic()
        targets = BUILD_TARGETS.get(t.arch, ['all'])
        image = os.path.join(d, IMAGE.get(t.arch, 'vmlinux'))
        stamp_path = os.path.join(d, 'build.stamp')
        key = self.key(t, d, targets)
        res = self.cached(t, d, key, image, log)
        if res:
            res['seconds'] = round(time.monotonic() - start, 1)
            return res
        if os.path.exists(stamp_path):
            os.unlink(stamp_path)
        res = {'log': log}
        rc = self.make(t, 'build', log, *targets)
        if rc:
            res['reason'] = 'build: make %s exited %d:\n%s' % (
                ' '.join(targets), rc, log_tail(log))
        elif t.sparse:
            rc = self.sparse(t, d, res)
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

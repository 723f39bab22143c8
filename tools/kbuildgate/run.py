# SPDX-License-Identifier: GPL-2.0
"""run - the driver: each target through configure (in parallel), audit,
build, boot and lava, with a progress line per step as it ends.

The steps are in kconfig.py, audit.py, build.py and boot.py; this module only
orders them, skips what cannot run, and gathers each target's result.
"""

import concurrent.futures
import os
import threading
import time

from .audit import AuditStep
from .boards import CROSS_COMPILE
from .boot import BootStep
from .build import BuildStep
from .kconfig import ConfigureStep
from .report import logs_of
from .tree import batch_available, cc_identity, tree_key

# Variables of the caller's environment that would change the result
SCRUB = ('ARCH', 'CROSS_COMPILE', 'O', 'MAKEFLAGS', 'MFLAGS', 'MAKELEVEL',
         'KBUILD_KCONFIG', 'KBUILD_DEFCONFIG', 'KBUILD_OUTPUT', 'C', 'W')



class Run(ConfigureStep, AuditStep, BuildStep, BootStep):
    """One kautobuild run over its targets, into OUT."""

    def __init__(self, args, srctree, out):
        self.args = args
        self.srctree = srctree
        self.out = out
        self.start = time.monotonic()
        self.lock = threading.Lock()
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith('KCONFIG_') and k not in SCRUB}
        self.batch = batch_available(srctree) and not args.no_batch
        self._tree_key = None
        self._cc = {}
        self._seeds = {}
        self._seed_lock = threading.Lock()

    def dir(self, t):
        d = os.path.join(self.out, t.name)
        os.makedirs(d, exist_ok=True)
        return d

    def tree_key(self):
        with self.lock:
            if self._tree_key is None:
                self._tree_key = tree_key(self.srctree)
            return self._tree_key

    def cc(self, arch):
        with self.lock:
            if arch not in self._cc:
                self._cc[arch] = cc_identity(
                    CROSS_COMPILE.get(arch, '') + 'gcc')
            return self._cc[arch]

    def kmake(self, t, *targets, jobs=None):
        cmd = ['make', '-C', self.srctree, 'O=' + os.path.join(self.out,
                                                               t.name),
               'ARCH=' + t.arch]
        if CROSS_COMPILE.get(t.arch):
            cmd.append('CROSS_COMPILE=' + CROSS_COMPILE[t.arch])
        if jobs:
            cmd.append('-j%d' % jobs)
        return cmd + list(targets)

    def progress(self, t, step, res):
        extra = ''
        if step == 'configure' and res['status'] != 'SKIP':
            extra = '  unmet %d  dropped %d' % (len(t.result['unmet']),
                                                len(t.result['dropped']))
        if step == 'audit' and res['status'] != 'SKIP' and \
                'findings' in res:
            extra = '  selects %d  findings %d' % (res['selects'],
                                                  len(res['findings']))
        if res.get('cached'):
            extra += '  (cached: %s)' % res['cached']
        if res.get('reason') and res['status'] != 'PASS':
            extra += '  ' + res['reason'].splitlines()[0]
        with self.lock:
            print('[%7.1fs] %-28s %-9s %-4s %7.1fs%s' % (
                time.monotonic() - self.start, t.name, step, res['status'],
                res['seconds'], extra), flush=True)

    def skip(self, t, step, reason):
        t.result['steps'][step] = {'status': 'SKIP', 'seconds': 0.0,
                                   'log': None, 'reason': reason}
        self.progress(t, step, t.result['steps'][step])

    def run(self, targets):
        for t in targets:
            t.result = {'name': t.name, 'kind': t.kind, 'arch': t.arch,
                        'steps': {}, 'config': None, 'unmet': [],
                        'dropped': []}
            for k in ('fragment', 'defconfig', 'config_fragment', 'machine'):
                if getattr(t, k):
                    t.result[k] = getattr(t, k)

        # configure: the defconfigs in one batch if the tree can, the
        # others (or all) one process each, --jobs at a time
        batch = [t for t in targets if t.kind == 'defconfig'] \
            if self.batch else []
        single = [t for t in targets if t not in batch]

        def done(t, res):
            t.result['steps']['configure'] = res
            self.progress(t, 'configure', res)

        with concurrent.futures.ThreadPoolExecutor(
                max_workers=max(1, self.args.jobs)) as pool:
            # the batch first: one process for many targets
            futures = {pool.submit(self.configure_batch, batch): None} \
                if batch else {}
            for t in single:
                futures[pool.submit(self.configure_one, t)] = t
            for fut in concurrent.futures.as_completed(futures):
                if futures[fut] is None:
                    for t, res in fut.result():
                        done(t, res)
                else:
                    done(futures[fut], fut.result())

        # audit, build and boot: one target at a time, make -jN
        for t in targets:
            steps = t.result['steps']
            if self.args.audit:
                steps['audit'] = self.audit(t)
                self.progress(t, 'audit', steps['audit'])
            if self.args.config_only:
                self.skip(t, 'build', '--config-only')
            elif steps['configure']['status'] != 'PASS':
                self.skip(t, 'build', 'configure failed')
            elif t.kind == 'defconfig' and not self.args.build_defconfigs:
                self.skip(t, 'build', 'defconfig (--build-defconfigs)')
            else:
                steps['build'] = self.build(t)
                self.progress(t, 'build', steps['build'])
            if self.args.config_only:
                self.skip(t, 'boot', '--config-only')
            elif steps.get('build', {}).get('status') != 'PASS':
                self.skip(t, 'boot', 'not built')
            elif not t.machine:
                self.skip(t, 'boot', 'no QEMU machine')
            else:
                steps['boot'] = self.boot(t)
                self.progress(t, 'boot', steps['boot'])
            if not self.args.lava_run:
                pass
            elif not steps.get('boot', {}).get('lava_job'):
                self.skip(t, 'lava', 'no LAVA job (not booted)')
            else:
                steps['lava'] = self.lava(t)
                self.progress(t, 'lava', steps['lava'])
            t.result['status'] = 'FAIL' if any(
                s['status'] == 'FAIL' for s in steps.values()) else 'PASS'
            t.result['seconds'] = round(sum(s['seconds']
                                            for s in steps.values()), 1)
            t.result['logs'] = logs_of(t.result)
        return [t.result for t in targets]

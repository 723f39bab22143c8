# SPDX-License-Identifier: GPL-2.0
"""run - the pipeline: each target through the steps configure (in
parallel), audit, build, boot and lava, with a progress line per step as
it ends.

The steps are objects (configure.ConfigureStep, audit_step.AuditStep,
build.BuildStep, boot.BootStep, boot.LavaStep), each with the inputs it
needs and the outputs it gives in the target's result; Run owns what
they share (the options, the tree, OUT, the environment, the keys of the
tree and the compilers) and only orders them, skips what cannot run, and
gathers each target's result.  Options is what a caller asks of a run:
kautobuild builds it from its command line, kconfig-fragment import from
its own needs.
"""

import concurrent.futures
import dataclasses
import os
import threading
import time

from . import kmake
from .audit_step import AuditStep
from .boot import BOOT_TIMEOUT, BootStep, LavaStep
from .build import BuildStep
from .configure import ConfigureStep
from .report import logs_of
from .tree import batch_available, cc_identity, tree_key


@dataclasses.dataclass
class Options:
    """What a run does: make -j and parallel configure steps (jobs),
    ignore the stamps (force), fail on dropped requests
    (fail_on_dropped), configure under KCONFIG_WERROR (werror), one make
    per defconfig (no_batch), the audit step (audit), stop after
    configure (config_only), build defconfigs too (build_defconfigs), the
    boot's timeout (boot_timeout), the LAVA jobs' base URL (lava_url),
    the lava step (lava_run), and a defconfig's configure under
    KCONFIG_WARN_DROPPED and KCONFIG_WARN_UNKNOWN_SYMBOLS as well
    (warn_all: board-boot's, with werror)."""
    jobs: int = os.cpu_count() or 1
    force: bool = False
    fail_on_dropped: bool = False
    werror: bool = False
    no_batch: bool = False
    audit: bool = False
    config_only: bool = False
    build_defconfigs: bool = False
    boot_timeout: float = BOOT_TIMEOUT
    lava_url: str = None
    lava_run: bool = False
    warn_all: bool = False

    @classmethod
    def of(cls, args):
        """The Options of an argparse namespace with the same names (the
        others are ignored)."""
        return cls(**{f.name: getattr(args, f.name)
                      for f in dataclasses.fields(cls)
                      if hasattr(args, f.name)})


class Run:
    """One run over its targets, into OUT: Run(Options, srctree,
    out).run(targets) returns each target's result."""

    def __init__(self, opts, srctree, out):
        """@opts: an Options; @srctree: the patched tree; @out: the
        output folder, one subfolder per target."""
        self.opts = opts
        self.srctree = srctree
        self.out = out
        self.start = time.monotonic()
        self.lock = threading.Lock()
        self.env = kmake.environment()
        self.batch = batch_available(srctree) and not opts.no_batch
        self._tree_key = None
        self._cc = {}
        self.configure = ConfigureStep(self)
        self.steps = {s.name: s for s in (AuditStep(self), BuildStep(self),
                                          BootStep(self), LavaStep(self))}

    def dir(self, t):
        """OUT/NAME/ of target @t, made if need be."""
        d = os.path.join(self.out, t.name)
        os.makedirs(d, exist_ok=True)
        return d

    def tree_key(self):
        """tree.tree_key() of the tree, computed once per run."""
        with self.lock:
            if self._tree_key is None:
                self._tree_key = tree_key(self.srctree)
            return self._tree_key

    def cc(self, arch):
        """The identity of @arch's compiler (tree.cc_identity()), once
        per run."""
        with self.lock:
            if arch not in self._cc:
                self._cc[arch] = cc_identity(
                    kmake.CROSS_COMPILE.get(arch, '') + 'gcc')
            return self._cc[arch]

    def kmake(self, t, *targets, jobs=None):
        """The make command line of target @t, in OUT/NAME/."""
        return kmake.command(self.srctree, os.path.join(self.out, t.name),
                             t.arch, *targets, jobs=jobs)

    def progress(self, t, step, res):
        """Print the progress line of @t's @step, whose result is @res."""
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

    def started(self, t, phase, log):
        """A hook: @phase of target @t (configure, build, sparse,
        initramfs or boot: the commands of the steps) starts, its output
        in @log.  Nothing here; board-boot prints a line."""

    def ended(self, t, phase, log, rc, seconds):
        """A hook: @phase of target @t ended with exit status @rc after
        @seconds, its output in @log.  Nothing here; board-boot prints
        and records it."""

    def skip(self, t, step, reason):
        """Record @step of @t as skipped, for @reason."""
        t.result['steps'][step] = {'status': 'SKIP', 'seconds': 0.0,
                                   'log': None, 'reason': reason}
        self.progress(t, step, t.result['steps'][step])

    def step(self, t, name):
        """Run the step @name on @t and record its result."""
        t.result['steps'][name] = self.steps[name](t)
        self.progress(t, name, t.result['steps'][name])

    def start_results(self, targets):
        """Give each target its empty result."""
        for t in targets:
            t.result = {'name': t.name, 'kind': t.kind, 'arch': t.arch,
                        'steps': {}, 'config': None, 'unmet': [],
                        'dropped': []}
            for k in ('fragment', 'defconfig', 'config_fragment', 'machine'):
                if getattr(t, k):
                    t.result[k] = getattr(t, k)

    def configure_all(self, targets):
        """The configure step of every target: the defconfigs in one batch
        if the tree can, the others (or all) one process each, --jobs at
        a time."""
        batch = [t for t in targets if t.kind == 'defconfig'] \
            if self.batch else []
        single = [t for t in targets if t not in batch]

        def done(t, res):
            t.result['steps']['configure'] = res
            self.progress(t, 'configure', res)

        with concurrent.futures.ThreadPoolExecutor(
                max_workers=max(1, self.opts.jobs)) as pool:
            # the batch first: one process for many targets
            futures = {pool.submit(self.configure.batch, batch): None} \
                if batch else {}
            for t in single:
                futures[pool.submit(self.configure.one, t)] = t
            for fut in concurrent.futures.as_completed(futures):
                if futures[fut] is None:
                    for t, res in fut.result():
                        done(t, res)
                else:
                    done(futures[fut], fut.result())

    def after_configure(self, t):
        """Audit, build, boot and lava for @t, each skipped with its
        reason when it cannot run; then @t's status."""
        opts, steps = self.opts, t.result['steps']
        if opts.audit:
            self.step(t, 'audit')
        if opts.config_only:
            self.skip(t, 'build', '--config-only')
        elif steps['configure']['status'] != 'PASS':
            self.skip(t, 'build', 'configure failed')
        elif t.kind == 'defconfig' and not opts.build_defconfigs:
            self.skip(t, 'build', 'defconfig (--build-defconfigs)')
        else:
            self.step(t, 'build')
        if opts.config_only:
            self.skip(t, 'boot', '--config-only')
        elif steps.get('build', {}).get('status') != 'PASS':
            self.skip(t, 'boot', 'not built')
        elif not t.machine:
            self.skip(t, 'boot', 'no QEMU machine')
        else:
            self.step(t, 'boot')
        if not opts.lava_run:
            pass
        elif not steps.get('boot', {}).get('lava_job'):
            self.skip(t, 'lava', 'no LAVA job (not booted)')
        else:
            self.step(t, 'lava')
        t.result['status'] = 'FAIL' if any(
            s['status'] == 'FAIL' for s in steps.values()) else 'PASS'
        t.result['seconds'] = round(sum(s['seconds']
                                        for s in steps.values()), 1)
        t.result['logs'] = logs_of(t.result)

    def run(self, targets):
        """Every step of every target (boards.Target); returns their
        results, in order."""
        self.start_results(targets)
        self.configure_all(targets)
        # audit, build and boot: one target at a time, make -jN
        for t in targets:
            self.after_configure(t)
        return [t.result for t in targets]

# SPDX-License-Identifier: GPL-2.0
"""boot - the boot step: the initramfs (qemu-images/build-initramfs),
the QEMU runner (qemu-images/boot) and the LAVA job of the same boot
(qemu-images/lava/lavajob.py), and with --lava-run the lava step, that
job run by lava-run.

It writes only OUT/NAME/ (initramfs, console log, LAVA job and log).
"""

import os
import re
import shutil
import sys
import time

from . import kmake
from .util import TOP, log_tail

LAVA = os.path.join(TOP, 'qemu-images', 'lava')
BOOT_TIMEOUT = 120


class BootStep:
    """The boot step.  Input: t.result['image'] (the build step's) and
    the board's QEMU machine.  Outputs: the step's result (with the LAVA
    job of the same boot) and t.result['drivers']."""

    name = 'boot'
    needs = ('image',)
    gives = ('drivers', 'lava_job')

    def __init__(self, run):
        """@run: the run.Run whose options, tree and folders it uses."""
        self.run = run

    def phase(self, t, name, f, log, cmd, env):
        """Run @cmd with @env as the phase @name of @t (initramfs or
        boot), its output appended to the open file @f of @log, and
        report it to the run's started() and ended().  Returns the exit
        status."""
        self.run.started(t, name, log)
        start = time.monotonic()
        rc = kmake.logged(f, cmd, env)
        self.run.ended(t, name, log, rc, time.monotonic() - start)
        return rc

    def __call__(self, t):
        """Boot @t in QEMU; returns the step's result."""
        run = self.run
        d = run.dir(t)
        log = os.path.join(d, 'boot.log')
        console = os.path.join(d, 'console.log')
        start = time.monotonic()
        initramfs = os.path.join(d, 'initramfs')
        image = t.result['image']
        cpio = os.path.join(initramfs, 'initramfs.cpio')
        res = {'log': log, 'console': console}
        with open(log, 'w') as f:
            rc = self.phase(t, 'initramfs', f, log, [
                os.path.join(TOP, 'qemu-images', 'build-initramfs'),
                run.srctree, initramfs], dict(
                    run.env, CROSS_COMPILE=kmake.CROSS_COMPILE.get(t.arch,
                                                                   '')))
            if rc == 0:
                res.update(lava_job(run, t, image, cpio))
                rc = self.phase(t, 'boot', f, log, [
                    sys.executable, os.path.join(TOP, 'qemu-images', 'boot'),
                    '--kernel', image, '--initrd', cpio, '--log', console,
                    '--machine', t.machine, '--cpu', t.cpu,
                    '--expect', t.expect,
                    '--timeout', str(run.opts.boot_timeout)], run.env)
        res['status'] = 'FAIL' if rc else 'PASS'
        res['seconds'] = round(time.monotonic() - start, 1)
        if rc:
            res['reason'] = 'boot: failed (exit %d):\n%s' % (rc, log_tail(log))
            res['reasons'] = ['boot']
            if rc == 2:
                res['infrastructure'] = True
        try:
            with open(console, errors='replace') as f:
                m = re.search(r'^init: platform drivers:(.*)$', f.read(),
                              re.M)
            t.result['drivers'] = m.group(1).split() if m else []
        except OSError:
            t.result['drivers'] = []
        return res


def lava_job(run, t, image, cpio):
    """Write the LAVA job of @t's boot (@image, @cpio) to
    OUT/NAME/lava-job.yaml and validate it; returns 'lava_job',
    'lava_valid' and 'lava_error'."""
    sys.path.insert(0, LAVA)
    import lavajob
    base = run.opts.lava_url
    if base:
        rel = lambda p: base.rstrip('/') + '/' + \
            os.path.relpath(p, run.out)
    else:
        rel = lambda p: 'file://' + p
    path = os.path.join(run.out, t.name, 'lava-job.yaml')
    lavajob.write(path, lavajob.job(t.name, rel(image), rel(cpio),
                                    t.expect, t.machine or 'virt',
                                    t.cpu, arch=t.arch))
    out = {'lava_job': path}
    try:
        err = lavajob.validate(path)
        out['lava_valid'] = err is None
        if err:
            out['lava_error'] = err
    except ImportError:
        out['lava_valid'] = None      # lava-common not installed
    return out


class LavaStep:
    """The lava step (--lava-run).  Input: the boot step's LAVA job and
    t.result['image'].  Output: the step's result, LAVA's own."""

    name = 'lava'
    needs = ('image', 'lava_job')
    gives = ()

    def __init__(self, run):
        """@run: the run.Run whose options and folders it uses."""
        self.run = run

    def __call__(self, t):
        """Run the boot of @t as a LAVA job with lava-run; returns the
        step's result."""
        sys.path.insert(0, LAVA)
        import lavajob
        opts = self.run.opts
        d = os.path.join(self.run.dir(t), 'lava')
        if os.path.isdir(d):
            shutil.rmtree(d)
        os.makedirs(d)
        start = time.monotonic()
        job = os.path.join(d, 'job.yaml')
        lavajob.write(job, lavajob.job(
            t.name, 'file://' + t.result['image'], 'file://' + os.path.join(
                self.run.dir(t), 'initramfs', 'initramfs.cpio'),
            t.expect, t.machine or 'virt', t.cpu, arch=t.arch,
            boot_seconds=opts.boot_timeout))
        try:
            r = lavajob.run(job, d, timeout=2 * opts.boot_timeout + 360)
        except OSError as e:
            return {'status': 'FAIL', 'log': None, 'infrastructure': True,
                    'seconds': round(time.monotonic() - start, 1),
                    'reason': 'boot: lava-run cannot start: %s' % e,
                    'reasons': ['boot']}
        res = {'log': r['log'], 'lava_job': job, 'device': r['device'],
               'seconds': r['seconds'], 'result': r['result'],
               'job_result': r['job'], 'results': r['results']}
        ok = r['result'] == 'pass' and r['job'] == 'pass'
        res['status'] = 'PASS' if ok else 'FAIL'
        if not ok:
            res['reasons'] = ['boot']
            res['reason'] = 'boot: LAVA: BOOT %s, job %s%s\n%s' % (
                r['result'], r['job'],
                ': %s' % r['error'] if r['error'] else '', log_tail(r['log']))
        return res

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""lavajob - LAVA job definitions for the QEMU boots of qemu-images/boot.

  lavajob.py write --name NAME --kernel URL --initrd URL [--expect D,...]
                   [--machine virt] [--cpu cortex-a15] [--memory 256] OUT.yaml
  lavajob.py validate JOB.yaml...
  lavajob.py device JOB.yaml OUT.yaml
  lavajob.py run [--timeout S] [--log FILE] JOB.yaml OUTDIR

A job boots the same kernel and initramfs as qemu-images/boot does, on a
LAVA lab's "qemu" device type: deploy to tmpfs (the kernel and the ramdisk,
each with its image_arg), boot method qemu, and a monitor test that turns
the init's verdict line "BOOT: PASS" or "BOOT: FAIL ..." into a LAVA test
result.  The QEMU machine (-M virt -cpu cortex-a15) comes from the job
context; console=ttyAMA0, panic=-1 and the expected drivers go on the
kernel command line, as with qemu-images/boot.

"validate" checks job files with LAVA's own schema, from Debian's
lava-common package (lava_common.schemas.validate), strictly: unknown keys
are errors.

"device" writes the configuration of the qemu device that runs a job: what
a LAVA server renders from its qemu device-type template and the job's
context (qemu-system-ARCH, -cpu, -machine, -m, the context's
extra_options), without networking, which the boot does not use.

"run" runs a job on this machine with Debian's lava-dispatcher, through its
standalone runner: lava-run --device OUTDIR/device.yaml --output-dir
OUTDIR/lava JOB.yaml (as root, which lava-run requires).  lava-run's log
(one YAML line per record) goes to OUTDIR/lava.log, or --log.  It prints
LAVA's results: the job's, and each test case's (BOOT: pass or fail).

Exit status: 0 valid/written/the job passed with BOOT pass, 1 a job is
invalid, failed, timed out or has no BOOT result, 2 usage error,
lava-common or lava-dispatcher missing.
"""

import argparse
import itertools
import os
import sys

# The init's verdict, as qemu-images/boot waits for it
START = 'Run /init as init process'
END = 'reboot: Power down'
PATTERN = r'(?P<test_case_id>BOOT): (?P<result>PASS|FAIL)'
MONITOR = 'kautobuild-boot'


def _timeout(seconds):
    """A LAVA timeout: whole minutes when they are, else seconds."""
    seconds = int(seconds)
    return {'minutes': seconds // 60} if seconds % 60 == 0 else \
        {'seconds': seconds}


def job(name, kernel_url, initrd_url, expect='', machine='virt',
        cpu='cortex-a15', memory=256, arch='arm', boot_minutes=3,
        append='', boot_seconds=None):
    """The job definition of one QEMU boot, as a dict (YAML-ready).
    @append goes at the end of the kernel command line; @boot_seconds, if
    given, replaces @boot_minutes as the time that the boot and its test
    may take."""
    boot = boot_seconds or boot_minutes * 60
    append = ('console=ttyAMA0 panic=-1 expect=%s %s' % (expect, append)) \
        .strip()
    return {
        'device_type': 'qemu',
        'job_name': 'kautobuild %s: boot in QEMU %s %s' % (name, machine, cpu),
        'timeouts': {'job': _timeout(boot * 2 + 300),
                     'action': _timeout(boot + 120),
                     'connection': {'minutes': 2}},
        'priority': 'medium',
        'visibility': 'public',
        'context': {'arch': arch, 'machine': machine, 'cpu': cpu,
                    'memory': memory,
                    'extra_options': ['-no-reboot', '-nic', 'none']},
        'metadata': {'source': 'kautobuild', 'board': name},
        'actions': [
            {'deploy': {
                'to': 'tmpfs',
                'timeout': {'minutes': 3},
                'images': {
                    'kernel': {'image_arg': '-kernel {kernel} -append "%s"'
                               % append,
                               'url': kernel_url},
                    'ramdisk': {'image_arg': '-initrd {ramdisk}',
                                'url': initrd_url}}}},
            {'boot': {
                'method': 'qemu',
                'media': 'tmpfs',
                'timeout': _timeout(boot)}},
            {'test': {
                'timeout': _timeout(boot),
                'monitors': [{
                    'name': MONITOR,
                    'start': START,
                    'end': END,
                    'pattern': PATTERN,
                    'fixupdict': {'PASS': 'pass', 'FAIL': 'fail'}}]}},
        ],
    }


def device(job_data):
    """The device configuration (dict) of the qemu device that runs
    @job_data, from the job's context, as lava-run takes it."""
    ctx = job_data.get('context', {})
    arch = ctx.get('arch', 'arm')
    qemu = {'arm': 'qemu-system-arm', 'arm64': 'qemu-system-aarch64',
            'aarch64': 'qemu-system-aarch64', 'i386': 'qemu-system-i386',
            'amd64': 'qemu-system-x86_64',
            'x86_64': 'qemu-system-x86_64'}.get(arch, 'qemu-system-' + arch)
    options = ['-cpu %s' % ctx['cpu']] if 'cpu' in ctx else []
    if 'machine' in ctx:
        options.append('-machine %s' % ctx['machine'])
    options += ['-nographic', '-m %s' % ctx.get('memory', 512),
                '-monitor none']
    method = {'parameters': {'command': qemu, 'boot_options': {},
                             'options': options,
                             'extra': list(ctx.get('extra_options', []))}}
    return {
        'device_type': 'qemu',
        'available_architectures': [arch],
        'constants': {
            'kernel-start-message': 'Linux version [0-9]',
            'shutdown-message': 'The system is going down for reboot NOW',
            'default-shell-prompt': 'lava-test: # ',
            'spawn_maxread': '4092',
            'failure_retry': 1,
            'boot_retry': None,
            'posix': {'lava_test_sh_cmd': '/bin/sh',
                      'lava_test_results_dir': '/lava-%s',
                      'lava_test_shell_file': '~/.bashrc'}},
        'parameters': {},
        'actions': {
            'deploy': {'connections': {'serial': None},
                       'methods': {'image': {'parameters': {
                           'guest': {'size': 512, 'interface': 'ide',
                                     'driveid': 'lavatest'}}}}},
            'boot': {'connections': {'serial': None},
                     'methods': {'qemu': method}}},
        'timeouts': {'actions': {}, 'connections': {}},
    }


DEVICE_HEADER = ('Generated by qemu-images/lava/lavajob.py: the qemu device '
                 'that runs %s.')


def read_log(path):
    """LAVA's results in a lava-run log: a list of dicts with definition,
    case and result (pass, fail), and the error of the job if any."""
    import yaml
    results = []
    try:
        f = open(path, errors='replace')
    except OSError:
        return results
    with f:
        for line in f:
            if '"results"' not in line:
                continue
            try:
                rec = yaml.safe_load(line)
            except yaml.YAMLError:
                continue
            if isinstance(rec, list) and rec:
                rec = rec[0]
            if not isinstance(rec, dict) or rec.get('lvl') != 'results':
                continue
            msg = rec.get('msg')
            if isinstance(msg, dict) and 'case' in msg:
                results.append({k: msg[k] for k in
                                ('definition', 'case', 'result',
                                 'error_msg', 'error_type') if k in msg})
    return results


_RUNS = itertools.count(1)


def run(job_path, outdir, timeout=None, log=None):
    """Run the job at @job_path with lava-run, in @outdir.  Returns a dict:
    result (LAVA's result of the BOOT test case, or of the job when there
    is none: pass, fail, or None), job (the job's own result), error (its
    error message), results (all of them), log and seconds.  Raises
    OSError when lava-run cannot start."""
    import subprocess
    import time
    import yaml
    with open(job_path) as f:
        data = yaml.safe_load(f)
    os.makedirs(outdir, exist_ok=True)
    dev = os.path.join(outdir, 'device.yaml')
    write(dev, device(data), DEVICE_HEADER % os.path.basename(job_path))
    log = log or os.path.join(outdir, 'lava.log')
    if timeout is None:
        t = data.get('timeouts', {}).get('job', {})
        timeout = 60 * t.get('minutes', 10) + t.get('seconds', 0) + 60
    start = time.monotonic()
    with open(log, 'w') as f:
        proc = subprocess.Popen(
            # the job id names lava-run's folder in /var/lib/lava: one per
            # run, since runs may overlap
            ['lava-run', '--job-id', '%d-%d' % (os.getpid(), next(_RUNS)),
             '--output-dir',
             os.path.join(outdir, 'lava'), '--device', dev, job_path],
            stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
            rc = None
    results = read_log(log)
    job_res = [r for r in results if r.get('definition') == 'lava'
               and r.get('case') == 'job']
    # the monitor's test case, named after the init's verdict line (LAVA
    # lowercases it)
    boot = [r for r in results if r.get('definition') == MONITOR and
            str(r.get('case')).upper() == 'BOOT']
    out = {'log': log, 'device': dev, 'exit': rc, 'results': results,
           'seconds': round(time.monotonic() - start, 1),
           'job': job_res[-1]['result'] if job_res else None,
           'error': job_res[-1].get('error_msg') if job_res else None}
    if rc is None:
        out['error'] = 'lava-run did not end within %d s' % timeout
    out['result'] = boot[-1]['result'] if boot else (
        'fail' if out['job'] in ('fail', None) else None)
    return out


def dump(data):
    import yaml
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False,
                          width=1000)


JOB_HEADER = ('Generated by tools/kautobuild: a LAVA job that boots this '
              'kernel on device_type qemu.')


def write(path, data, header=JOB_HEADER):
    """Write @data as YAML to @path atomically, after a comment line."""
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write('# %s\n' % header)
        f.write(dump(data))
    os.replace(tmp, path)


def validate(path):
    """None if the job file is valid for LAVA, else the error text.
    Raises ImportError when lava-common is not installed."""
    import yaml
    from lava_common.schemas import validate as lava_validate
    with open(path) as f:
        data = yaml.safe_load(f)
    try:
        lava_validate(data, strict=True)
    except Exception as e:      # voluptuous.Invalid and friends
        return '%s: %s' % (type(e).__name__, e)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    w = sub.add_parser('write')
    w.add_argument('--name', required=True)
    w.add_argument('--kernel', required=True, help='URL of the zImage')
    w.add_argument('--initrd', required=True, help='URL of the initramfs')
    w.add_argument('--expect', default='')
    w.add_argument('--machine', default='virt')
    w.add_argument('--cpu', default='cortex-a15')
    w.add_argument('--memory', type=int, default=256)
    w.add_argument('out')
    v = sub.add_parser('validate')
    v.add_argument('jobs', nargs='+')
    d = sub.add_parser('device')
    d.add_argument('job')
    d.add_argument('out')
    r = sub.add_parser('run')
    r.add_argument('--timeout', type=float,
                   help="seconds (default: the job's timeout plus a minute)")
    r.add_argument('--log', help='lava-run log (default OUTDIR/lava.log)')
    r.add_argument('job')
    r.add_argument('outdir')
    args = ap.parse_args()

    if args.cmd in ('device', 'run'):
        import yaml
        try:
            with open(args.job) as f:
                data = yaml.safe_load(f)
        except (OSError, yaml.YAMLError) as e:
            print('lavajob: %s: %s' % (args.job, e), file=sys.stderr)
            return 2
        if not isinstance(data, dict):
            print('lavajob: %s: not a LAVA job' % args.job, file=sys.stderr)
            return 2
    if args.cmd == 'device':
        write(args.out, device(data),
              DEVICE_HEADER % os.path.basename(args.job))
        return 0
    if args.cmd == 'run':
        try:
            res = run(args.job, args.outdir, args.timeout, args.log)
        except OSError as e:
            print('lavajob: cannot run lava-run (%s): apt-get install '
                  'lava-dispatcher' % e, file=sys.stderr)
            return 2
        for r in res['results']:
            print('lava: %s %s: %s%s' % (
                r.get('definition'), r.get('case'), r.get('result'),
                ' (%s)' % r['error_msg'] if r.get('error_msg') else ''))
        print('lavajob: %s: %s in %.1f s (log %s)' % (
            args.job, res['result'], res['seconds'], res['log']))
        return 0 if res['result'] == 'pass' and res['job'] == 'pass' else 1

    if args.cmd == 'write':
        write(args.out, job(args.name, args.kernel, args.initrd, args.expect,
                            args.machine, args.cpu, args.memory))
        return 0
    bad = 0
    for path in args.jobs:
        try:
            err = validate(path)
        except ImportError as e:
            print('lavajob: lava-common is not installed (%s): '
                  'apt-get install lava-common' % e, file=sys.stderr)
            return 2
        print('%s: %s' % (path, 'valid' if err is None else 'INVALID: ' + err))
        bad += err is not None
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

# SPDX-License-Identifier: GPL-2.0
"""The boot runner (qemu-images/boot) against the faults of its environment.

test_boards.py boots real kernels (panic, missing driver, garbage kernel,
missing QEMU).  These tests stand a fake QEMU in for the real one, so they
need no kernel and take seconds: a QEMU that never prints, or closes its
console and hangs, one that exits at once, one that cannot be executed,
one that prints its verdict but does not power off, one whose console
never stops, and a log folder on a 64 KiB tmpfs that fills up.  In each
case the runner must end within its timeout with a verdict and its exit
status (0 PASS, 1 failed boot, 2 QEMU cannot start), and leave no process
of the fake QEMU behind: each fake QEMU starts a child, and both carry the
test's unique folder in their command line, which /proc is searched for.
"""

import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import TOP

pytestmark = pytest.mark.usefixtures('trees')

BOOT = str(TOP / 'qemu-images' / 'boot')


def fake_qemu(tmp_path, body, name='qemu-fake'):
    """A fake qemu-system-arm: a Python script that first starts a child in
    its process group (a stand-in for QEMU's helpers), then runs @body."""
    prog = tmp_path / name
    prog.write_text(
        '#!/usr/bin/python3\n'
        'import os, subprocess, sys, time\n'
        'subprocess.Popen([sys.executable, "-c", "import time; '
        'time.sleep(600)", "child-of-" + sys.argv[0]])\n' + body)
    prog.chmod(0o755)
    return prog


def boot(tmp_path, qemu, *args, timeout=3, log=None):
    kernel = tmp_path / 'zImage'
    kernel.write_bytes(b'\0' * 64)
    initrd = tmp_path / 'initramfs.cpio'
    initrd.write_bytes(b'\0' * 64)
    cmd = [sys.executable, BOOT, '--kernel', str(kernel),
           '--initrd', str(initrd),
           '--log', str(log or tmp_path / 'console.log'),
           '--timeout', str(timeout), '--qemu', str(qemu)] + list(args)
    start = time.monotonic()
    ps = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True, timeout=timeout + 30)
    ps.seconds = time.monotonic() - start
    return ps


def processes_with(marker):
    """PIDs whose command line contains @marker"""
    pids = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open('/proc/%s/cmdline' % entry, 'rb') as f:
                cmdline = f.read().replace(b'\0', b' ').decode(errors='replace')
        except OSError:
            continue
        if marker in cmdline:
            pids.append(int(entry))
    return pids


@pytest.fixture
def no_orphans(tmp_path):
    """Fail if a process of the test's fake QEMU outlives the runner; end
    any that do, so that one failure does not leak into the next test."""
    yield
    # the runner has returned: give the kernel a moment to reap
    deadline = time.monotonic() + 2
    while processes_with(str(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = processes_with(str(tmp_path))
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert left == [], 'processes left behind: %s' % left


@pytest.mark.parametrize('script', [
    # QEMU runs but the kernel prints nothing
    'time.sleep(600)\n',
    # the console is closed (EOF on the pipe) while QEMU goes on
    'os.close(1); os.close(2)\ntime.sleep(600)\n',
], ids=['never-prints', 'console-closed'])
def test_silent_hang(tmp_path, no_orphans, script):
    """A QEMU that says nothing more is a hang, ended at the timeout."""
    qemu = fake_qemu(tmp_path, script)
    ps = boot(tmp_path, qemu, timeout=2)
    assert ps.returncode == 1, ps.stdout
    assert 'boot: FAIL (timeout after 2s (hang))' in ps.stdout
    assert ps.seconds < 2 + 5


def test_qemu_exits_at_once(tmp_path, no_orphans):
    """A QEMU that ends with an error before it prints anything."""
    qemu = tmp_path / 'qemu-fails'
    qemu.write_text('#!/bin/sh\nexit 1\n')
    qemu.chmod(0o755)
    ps = boot(tmp_path, qemu)
    assert ps.returncode == 2, ps.stdout
    assert 'boot: %s failed (exit 1)' % qemu in ps.stdout


def test_qemu_not_executable(tmp_path, no_orphans):
    qemu = tmp_path / 'qemu-not-a-program'
    qemu.write_text('not a program\n')
    qemu.chmod(0o644)
    ps = boot(tmp_path, qemu)
    assert ps.returncode == 2, ps.stdout
    assert 'boot: cannot start %s' % qemu in ps.stdout
    assert 'Traceback' not in ps.stdout


def test_qemu_start_error_message(tmp_path, no_orphans):
    """Real QEMU prints why it cannot start (bad -machine, unreadable
    -kernel) on stderr, which the runner merges into the console: still
    a QEMU that cannot start, exit 2."""
    qemu = tmp_path / 'qemu-bad-option'
    qemu.write_text('#!/bin/sh\necho "qemu-system-arm: -machine virt: '
                    'unsupported machine type" >&2\nexit 1\n')
    qemu.chmod(0o755)
    ps = boot(tmp_path, qemu)
    assert ps.returncode == 2, ps.stdout
    assert 'unsupported machine type' in ps.stdout


def test_verdict_without_poweroff(tmp_path, no_orphans):
    """init prints its verdict but QEMU does not power off: the runner
    ends it, and the verdict stands."""
    qemu = fake_qemu(tmp_path, 'print("BOOT: PASS", flush=True)\n'
                     'time.sleep(600)\n')
    ps = boot(tmp_path, qemu, timeout=20)
    assert ps.returncode == 0, ps.stdout
    assert 'boot: PASS' in ps.stdout
    assert ps.seconds < 10


def test_endless_console(tmp_path, no_orphans):
    """A console that never stops is cut at --max-log."""
    qemu = fake_qemu(tmp_path, 'while True:\n'
                     '    sys.stdout.write("x" * 199 + "\\n")\n')
    log = tmp_path / 'console.log'
    ps = boot(tmp_path, qemu, '--max-log', '100000', timeout=20, log=log)
    assert ps.returncode == 1, ps.stdout[-2000:]
    assert 'boot: FAIL (log larger than 100000 bytes)' in ps.stdout
    assert log.stat().st_size <= 100000
    assert ps.seconds < 20


@pytest.fixture
def tiny_tmpfs(tmp_path):
    """A 64 KiB tmpfs, for a log folder that fills up"""
    mnt = tmp_path / 'tiny'
    mnt.mkdir()
    ps = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=64k', 'tmpfs',
                         str(mnt)], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
    if ps.returncode:
        pytest.skip('cannot mount a tmpfs: %s' % ps.stdout.strip())
    # a mount that returns 0 but is not where the test writes (another
    # mount namespace, a chroot's view) would let the log grow unbounded
    st = os.statvfs(mnt)
    if not os.path.ismount(mnt) or st.f_blocks * st.f_frsize > 1 << 20:
        subprocess.run(['umount', '-l', str(mnt)])
        pytest.skip('the 64 KiB tmpfs is not in effect at %s' % mnt)
    try:
        yield mnt
    finally:
        subprocess.run(['umount', '-l', str(mnt)])


def endless_on_full_disk(tmp_path, tiny_tmpfs):
    qemu = fake_qemu(tmp_path, 'while True:\n'
                     '    sys.stdout.write("x" * 199 + "\\n")\n')
    return boot(tmp_path, qemu, timeout=20, log=tiny_tmpfs / 'console.log')


def test_log_fills_disk(tmp_path, tiny_tmpfs, no_orphans):
    """The log folder fills up (a quota or a small tmpfs) long before
    --max-log: the runner ends at once, as a failed boot, and ends QEMU."""
    ps = endless_on_full_disk(tmp_path, tiny_tmpfs)
    assert ps.returncode == 1, ps.stdout[-2000:]
    assert ps.seconds < 20


def test_log_fills_disk_verdict(tmp_path, tiny_tmpfs, no_orphans):
    ps = endless_on_full_disk(tmp_path, tiny_tmpfs)
    assert 'Traceback' not in ps.stdout
    assert 'boot: FAIL (cannot write the log: No space left on device)' \
        in ps.stdout

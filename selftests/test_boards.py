# SPDX-License-Identifier: GPL-2.0
"""Board fragments built and booted in QEMU, and the boot runner's faults.

Each board of qemu-images/boards/ is generated from its fragment under
KCONFIG_WERROR=1, built, sparse-checked and booted (tools/board-boot);
the booted kernel must register every expected platform driver.  Then the
boot runner is fed a kernel that panics, a missing driver, a kernel that
never prints, and a QEMU that cannot start.
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import PATCHED, TOP, TREES


# builds and boots both boards' kernels: "make -f Kbuild.mk check" only
pytestmark = [pytest.mark.usefixtures('trees'), pytest.mark.slow]

BOOT = str(TOP / 'qemu-images' / 'boot')
OUT = TREES / 'out' / 'boards'


@pytest.fixture(scope='module')
def boards():
    results = {}
    for board in ('qemu-virt', 'msm-virt'):
        ps = subprocess.run([sys.executable, str(TOP / 'tools' / 'board-boot'),
                             '--srctree', str(PATCHED), '--out', str(OUT),
                             '--jobs', str(os.cpu_count()), board],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
        print(ps.stdout)
        results[board] = (ps, json.loads((OUT / board / 'result.json')
                                         .read_text()))
    return results


@pytest.mark.parametrize('board', ['qemu-virt', 'msm-virt'])
def test_board_boots(boards, board):
    ps, result = boards[board]
    assert ps.returncode == 0, ps.stdout
    assert result['status'] == 'PASS'
    assert [s['step'] for s in result['steps']][:2] == ['configure', 'build']
    report = json.loads((OUT / board / 'kconfig-report.json').read_text())
    assert report['unmet'] == [] and report['dropped'] == []
    assert set(result['expected']) <= set(result['drivers'])


def test_msm_drivers(boards):
    _, result = boards['msm-virt']
    for driver in ('msm_serial', 'bam-dma-engine', 'adm-dma-engine', 'gsbi',
                   'qcom-smem', 'spi_qup', 'i2c_qup', 'sdhci_msm',
                   'msm8960-pinctrl', 'gcc-msm8960'):
        assert driver in result['drivers']
    # sparse (C=2) on the MSM code the board names: 19 reports in stock
    # 6.1, none with the series' fixes (patches 25-30)
    assert result['sparse'] == 0


def boot(tmp_path, *args, kernel=None, timeout=30):
    board = OUT / 'qemu-virt'
    cmd = [sys.executable, BOOT,
           '--kernel', str(kernel or board / 'arch/arm/boot/zImage'),
           '--initrd', str(board / 'initramfs/initramfs.cpio'),
           '--log', str(tmp_path / 'console.log'),
           '--timeout', str(timeout)] + list(args)
    return subprocess.run(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def no_qemu_left():
    ps = subprocess.run(['pgrep', '-f', 'qemu-system-arm.*%s' % OUT],
                        stdout=subprocess.PIPE, text=True)
    return ps.stdout == ''


def test_runner_panic(boards, tmp_path):
    ps = boot(tmp_path, '--append', 'rdinit=/nonexistent init=/nonexistent')
    assert ps.returncode == 1
    assert 'boot: FAIL (panic: Kernel panic - not syncing' in ps.stdout
    assert 'Kernel panic' in (tmp_path / 'console.log').read_text()
    assert no_qemu_left()


def test_runner_missing_driver(boards, tmp_path):
    ps = boot(tmp_path, '--expect', 'syscon,no-such-driver')
    assert ps.returncode == 1
    assert 'BOOT: FAIL missing drivers: no-such-driver' in ps.stdout
    assert no_qemu_left()


def test_runner_hang(boards, tmp_path):
    """A "kernel" that never prints: QEMU runs garbage until the timeout."""
    garbage = tmp_path / 'garbage'
    garbage.write_bytes(b'\0' * 4096)
    ps = boot(tmp_path, kernel=garbage, timeout=3)
    assert ps.returncode == 1
    assert 'timeout after 3s (hang)' in ps.stdout
    assert no_qemu_left()


def test_runner_qemu_missing(boards, tmp_path):
    ps = boot(tmp_path, '--qemu', '/nonexistent/qemu-system-arm')
    assert ps.returncode == 2
    assert 'cannot start' in ps.stdout

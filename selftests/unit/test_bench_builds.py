# SPDX-License-Identifier: GPL-2.0
"""kconfig-bench's part "builds": which board of an architecture is built
(the smallest that Debian's compiler can build), and which compiler."""

import os
import stat

from kbuildgate import bench_import, kmake


def config(work, arch, target, lines):
    d = work / arch / 'defconfigs' / target
    d.mkdir(parents=True)
    (d / '.config').write_text(''.join(line + '\n' for line in lines))


def test_sample_is_the_smallest_the_compiler_builds(tmp_path):
    """mips: Debian's mips-linux-gnu-gcc builds 32-bit kernels, so the
    smallest 64-bit board is passed over for the smallest 32-bit one."""
    config(tmp_path, 'mips', 'tiny64_defconfig',
           ['CONFIG_64BIT=y', 'CONFIG_A=y'])
    config(tmp_path, 'mips', 'small_defconfig',
           ['CONFIG_32BIT=y', 'CONFIG_A=y', 'CONFIG_B=y', 'CONFIG_M=m'])
    config(tmp_path, 'mips', 'big_defconfig',
           ['CONFIG_32BIT=y', 'CONFIG_A=y', 'CONFIG_B=y', 'CONFIG_C=y'])
    report = {'boards': {'tiny64': {}, 'small': {}, 'big': {},
                         'unconfigured': {}}}
    assert bench_import.sample_board('mips', report, str(tmp_path)) == \
        ('small', 3)
    # riscv: any board; configs/defconfig is the target "defconfig"
    config(tmp_path, 'riscv', 'defconfig', ['CONFIG_A=y'])
    assert bench_import.sample_board(
        'riscv', {'boards': {'defconfig': {}}}, str(tmp_path)) == \
        ('defconfig', 1)
    assert bench_import.sample_board(
        'sh', {'boards': {'x': {}}}, str(tmp_path)) == (None, 0)


def test_cross_compile_only_when_installed(tmp_path, monkeypatch):
    monkeypatch.setenv('PATH', str(tmp_path))
    assert kmake.cross_compile('riscv') is None
    assert kmake.cross_compile('nios2') is None     # Debian has none
    gcc = tmp_path / 'riscv64-linux-gnu-gcc'
    gcc.write_text('#!/bin/sh\n')
    gcc.chmod(gcc.stat().st_mode | stat.S_IEXEC)
    assert kmake.cross_compile('riscv') == 'riscv64-linux-gnu-'
    # x86 and um build with the machine's own gcc: no CROSS_COMPILE, but
    # a compiler all the same ('' is not None)
    assert kmake.cross_compile('x86') is None
    (tmp_path / 'gcc').write_text('#!/bin/sh\n')
    (tmp_path / 'gcc').chmod(0o755)
    assert kmake.cross_compile('x86') == ''
    assert kmake.cross_compile('um') == ''
    assert os.path.basename(str(gcc)).startswith(
        kmake.DEBIAN_CROSS['riscv'][0])

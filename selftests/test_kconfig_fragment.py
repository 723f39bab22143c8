# SPDX-License-Identifier: GPL-2.0
"""tools/kconfig-fragment check and fix, on real board fragments."""

import re
import shutil
import subprocess
import sys

import pytest

from conftest import (EXAMPLES, FRAGMENTS, KERNEL_VERSION, PATCHED, PRISTINE,
                      TOP, kmake)

pytestmark = pytest.mark.usefixtures('trees')

TOOL = str(TOP / 'tools' / 'kconfig-fragment')


def tool(*args):
    return subprocess.run([sys.executable, TOOL] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)


def selects(path):
    return re.findall(r'^\s+select\s+(\w+)', path.read_text(), re.M)


def config_of(fragment, out, arch):
    ps = kmake(PATCHED, out, 'allnoconfig', arch=arch,
               env={'KBUILD_KCONFIG': str(fragment), 'KCONFIG_WERROR': '1'})
    assert ps.returncode == 0, ps.stdout
    return (out / '.config').read_text()


def check_fixed(tmp_path, fragment, arch, gone=()):
    """fix in one round, keep every line, every original select is =y
    (but for those of symbols @gone from the tree)."""
    original = fragment.read_text()
    wanted = [s for s in selects(fragment) if s not in gone]
    ps = tool('fix', '--srctree', str(PATCHED), '--arch', arch, str(fragment))
    assert ps.returncode == 0, ps.stdout
    assert '%s: clean after 1 round(s)' % fragment in ps.stdout
    assert ps.stdout.count('\n+\tselect ') > 0
    fixed = fragment.read_text().splitlines()
    it = iter(fixed)
    assert all(line in it for line in original.splitlines()), \
        'a line of the author was removed or reordered'
    config = config_of(fragment, tmp_path / 'out', arch)
    assert [s for s in wanted if 'CONFIG_%s=y\n' % s not in config] == []
    assert tool('check', '--srctree', str(PATCHED), '--arch', arch,
                str(fragment)).returncode == 0


@pytest.mark.slow
def test_fix_msm_board(tmp_path):
    fragment = tmp_path / 'msm-board.Kconfig'
    shutil.copy(EXAMPLES / 'msm-board.Kconfig', fragment)
    ps = tool('check', '--srctree', str(PATCHED), '--arch', 'arm',
              str(fragment))
    assert ps.returncode == 1
    # 6.12 removed the 32-bit MSM SoC options that the example selects:
    # those selects do nothing, conf warns about them, and check counts them
    gone = [] if KERNEL_VERSION == '6.1' else ['ARCH_MSM8960', 'ARCH_MSM8974']
    assert ps.stdout.splitlines()[-1] == 'kconfig-fragment: 17 unmet ' \
        'select(s), %d undefined symbol(s), 0 dropped request(s)' % len(gone)
    before = kmake(PATCHED, tmp_path / 'before', 'allnoconfig', arch='arm',
                   env={'KBUILD_KCONFIG': str(fragment)})
    for sym in gone:
        assert "'%s' is not defined by any Kconfig file" % sym \
            in before.stdout
    if gone:
        # no select can define a symbol: fix refuses, and says why
        text = fragment.read_bytes()
        ps = tool('fix', '--srctree', str(PATCHED), '--arch', 'arm',
                  str(fragment))
        assert ps.returncode == 1
        assert 'no select can define them' in ps.stdout
        assert fragment.read_bytes() == text
        return
    check_fixed(tmp_path, fragment, 'arm', gone)


@pytest.mark.slow
def test_fix_torvalds_example(tmp_path):
    fragment = tmp_path / 'Mykconfig'
    shutil.copy(EXAMPLES / 'torvalds-usb.Kconfig', fragment)
    check_fixed(tmp_path, fragment, 'x86')
    assert 'select USB_SUPPORT' in fragment.read_text()


def selectable_symbols():
    """Symbols that a select can set: defined, and not inside a choice."""
    defined, in_choice = set(), set()
    for path in PRISTINE.rglob('Kconfig*'):
        depth = 0
        for line in path.read_text(errors='replace').splitlines():
            word = line.split()[:2]
            if word[:1] == ['choice']:
                depth += 1
            elif word[:1] == ['endchoice']:
                depth -= 1
            elif len(word) == 2 and word[0] in ('config', 'menuconfig'):
                (in_choice if depth else defined).add(word[1])
    return defined - in_choice


# On 6.12, ARM_SMMU depends on !GENERIC_ATOMIC64, which allnoconfig's
# Cortex-M CPU selects, and only the CPU_V7 that the hint's MMU brings in
# turns off: the hint cannot see that (a select that a followed hint
# turns off), says "no select can meet it", and the fixer leaves the
# fragment alone.
QCOM_SMMU = pytest.mark.xfail(KERNEL_VERSION != '6.1', strict=True,
                              reason='6.12 ARM_SMMU: "no select can meet '
                              'it" for !GENERIC_ATOMIC64')


@pytest.mark.slow
@pytest.mark.parametrize('defconfig', [
    'vexpress_defconfig', 'imx_v6_v7_defconfig',
    pytest.param('qcom_defconfig', marks=QCOM_SMMU), 'sunxi_defconfig'])
def test_fix_fragments_from_defconfigs(tmp_path, defconfig):
    """Board fragments the project does not ship: every CONFIG_X=y of an
    in-tree defconfig becomes a select of a board symbol, but for choice
    values and symbols that no longer exist."""
    selectable = selectable_symbols()
    syms = [s for s in re.findall(
        r'^CONFIG_(\w+)=y$',
        (PRISTINE / 'arch/arm/configs' / defconfig).read_text(), re.M)
        if s in selectable]
    fragment = tmp_path / ('%s.Kconfig' % defconfig)
    fragment.write_text('config BOARD\n\tbool\n\tdefault y\n' +
                        ''.join('\tselect %s\n' % s for s in syms) +
                        '\nsource "Kconfig"\n')
    check_fixed(tmp_path, fragment, 'arm')


# over 6 s on its own: "make -f Kbuild.mk check" only (docs/ci.md)
@pytest.mark.slow
def test_fix_refuses_v5_with_v7(tmp_path):
    """ARCH_MULTI_V5 depends on !ARCH_MULTI_V6_V7, which ARCH_MULTI_V7
    selects: a board cannot have both."""
    fragment = tmp_path / 'sunxi.Kconfig'
    fragment.write_text('config BOARD\n\tbool\n\tdefault y\n'
                        '\tselect ARCH_MULTI_V7\n\tselect ARCH_MULTI_V5\n'
                        '\nsource "Kconfig"\n')
    before = fragment.read_bytes()
    ps = tool('fix', '--srctree', str(PATCHED), '--arch', 'arm', str(fragment))
    assert ps.returncode == 1
    # conf's own note, as it is
    assert 'note: blocked by !ARCH_MULTI_V6_V7 [=y], a conflict: ' \
        'ARCH_MULTI_V6_V7 is selected by ' in ps.stdout
    assert ps.stdout.splitlines()[-1] == 'kconfig-fragment: %s: cannot be ' \
        'fixed by adding selects (no select can meet ARCH_MULTI_V5); left ' \
        'unchanged' % fragment
    assert fragment.read_bytes() == before


def test_fix_refuses_conflict(tmp_path):
    fragment = tmp_path / 'conflict.Kconfig'
    shutil.copy(FRAGMENTS / 'conflict.Kconfig', fragment)
    before = fragment.read_bytes()
    ps = tool('fix', '--srctree', str(PATCHED), '--arch', 'arm', str(fragment))
    assert ps.returncode == 1
    assert 'cannot be fixed by adding selects (no select can meet ' \
        'THUMB2_KERNEL); left unchanged' in ps.stdout
    assert 'note: blocked by !CPU_V6 [=y], a conflict: CPU_V6 is selected ' \
        'by CONFLICT_BOARD [=y]' in ps.stdout
    assert fragment.read_bytes() == before


def test_check_exit_codes(tmp_path):
    ok = tool('check', '--srctree', str(PATCHED), '--arch', 'x86',
              str(EXAMPLES / 'torvalds-usb-fixed.Kconfig'))
    assert ok.returncode == 0, ok.stdout
    assert tool('check', '--srctree', str(PATCHED), '--arch', 'x86',
                str(tmp_path / 'missing')).returncode == 2
    assert tool('check', '--srctree', str(tmp_path), '--arch', 'x86',
                str(EXAMPLES / 'torvalds-usb.Kconfig')).returncode == 2
    bad = tmp_path / 'bad.Kconfig'
    bad.write_text('config BOARD\n\tbool\n\tselec USB\n')
    ps = tool('check', '--srctree', str(PATCHED), '--arch', 'x86', str(bad))
    # an error in the fragment is a finding (1), with conf's own line
    assert ps.returncode == 1
    assert ps.stdout.startswith('%s:3: ' % bad)
    assert ps.stdout.splitlines()[-1] == \
        'kconfig-fragment: syntax error at %s:3' % bad

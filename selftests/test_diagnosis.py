# SPDX-License-Identifier: GPL-2.0
"""The diagnosis: blocking conjuncts, hints, dropped requests and the JSON
report (KCONFIG_UNMET_REPORT), on the real tree."""

import json

import pytest

from conftest import EXAMPLES, PATCHED, kmake, snapshot, unmet_reports

pytestmark = pytest.mark.usefixtures('trees')

MYKCONFIG = 'config MYCONFIG\n\tbool\n\tdefault y\n\tselect USB\n\n' \
            'source "Kconfig"\n'


def test_torvalds_example_report(tmp_path):
    (tmp_path / 'Mykconfig').write_text(MYKCONFIG)
    ps = kmake(PATCHED, tmp_path, 'allnoconfig',
               env={'KBUILD_KCONFIG': 'Mykconfig',
                    'KCONFIG_UNMET_REPORT': str(tmp_path / 'report.json')})
    assert ps.returncode == 0, ps.stdout
    assert 'drivers/usb/Kconfig:44: note: blocked by USB_SUPPORT [=n]' \
        in ps.stdout
    assert 'drivers/usb/Kconfig:44: note: to meet it, select USB_SUPPORT' \
        in ps.stdout
    r = json.loads((tmp_path / 'report.json').read_text())
    assert r['version'] == 1
    [usb] = r['unmet']
    assert usb['symbol'] == 'USB'
    assert usb['defined_at'] == [{'file': 'drivers/usb/Kconfig', 'line': 44}]
    assert usb['depends_on'] == 'USB_SUPPORT && USB_ARCH_HAS_HCD'
    assert usb['selected_by'] == [{'symbol': 'MYCONFIG', 'file': 'Mykconfig',
                                   'line': 4, 'if': None}]
    assert {'expr': 'USB_SUPPORT', 'value': 'n'} in usb['blocking']
    assert usb['hint'] == ['USB_SUPPORT'] and usb['can_fix']
    assert r['hint'] == ['USB_SUPPORT']
    assert r['dropped'] == []


def test_msm_board_diagnosis(tmp_path):
    """BASELINE.md's MSM board: 17 unmet selects of 15 symbols, MMU behind
    several of them, and PINCTRL_MSM's own need for GPIOLIB in the same round.
    HAVE_ARM_SMCCC_DISCOVERY's own hint is ARM_PSCI_FW, but the union leaves
    it out: with HAVE_ARM_SMCCC, ARM_PSCI, which the board selects, selects
    it."""
    ps = kmake(PATCHED, tmp_path, 'allnoconfig', arch='arm',
               env={'KBUILD_KCONFIG': str(EXAMPLES / 'msm-board.Kconfig'),
                    'KCONFIG_UNMET_REPORT': str(tmp_path / 'report.json')})
    assert ps.returncode == 0, ps.stdout
    assert len(unmet_reports(ps.stdout)) == 15
    assert ps.stdout.count(', whose direct dependencies are unmet') == 17
    assert 'kconfig: 17 selects with unmet direct dependencies' in ps.stdout
    assert 'kconfig: MMU [=n] blocks ARCH_MULTI_V7, BINFMT_ELF, ' \
        'KUSER_HELPERS' in ps.stdout
    r = json.loads((tmp_path / 'report.json').read_text())
    pinctrl = [u for u in r['unmet'] if u['symbol'] == 'PINCTRL_MSM8960'][0]
    assert pinctrl['blocking'] == [{'expr': 'PINCTRL_MSM', 'value': 'n'}]
    assert pinctrl['hint'] == ['GPIOLIB', 'PINCTRL_MSM']
    for sym in ('MMU', 'GPIOLIB', 'PINCTRL_MSM', 'I2C', 'SPI', 'MMC',
                'MMC_SDHCI', 'MMC_SDHCI_PLTFM', 'DMADEVICES', 'HWSPINLOCK',
                'RPMSG', 'HAVE_ARM_SMCCC'):
        assert sym in r['hint']
    disc = [u for u in r['unmet']
            if u['symbol'] == 'HAVE_ARM_SMCCC_DISCOVERY'][0]
    assert disc['hint'] == ['ARM_PSCI_FW']
    assert 'ARM_PSCI_FW' not in r['hint']
    # SPI_MASTER defaults to SPI: it is not hinted itself
    assert 'SPI_MASTER' not in r['hint']


def test_conflict(tmp_path):
    ps = kmake(PATCHED, tmp_path, 'allnoconfig', arch='arm',
               env={'KBUILD_KCONFIG': str(FRAGMENT_CONFLICT),
                    'KCONFIG_UNMET_REPORT': str(tmp_path / 'report.json')})
    assert ps.returncode == 0, ps.stdout
    assert 'blocked by !CPU_V6 [=y], a conflict: CPU_V6 is selected by ' \
        'CONFLICT_BOARD [=y]' in ps.stdout
    r = json.loads((tmp_path / 'report.json').read_text())
    thumb2 = [u for u in r['unmet'] if u['symbol'] == 'THUMB2_KERNEL'][0]
    assert {'expr': '!CPU_V6', 'value': 'n', 'conflict': 'CPU_V6'} \
        in thumb2['blocking']
    assert thumb2['can_fix'] is False and thumb2['hint'] == []


def dropped_usb(tmp_path, env):
    allconfig = tmp_path / 'usb.config'
    allconfig.write_text('CONFIG_USB=y\n')
    return kmake(PATCHED, tmp_path / 'out', 'allnoconfig',
                 env=dict(env, KCONFIG_ALLCONFIG=str(allconfig)))


def test_dropped_request(tmp_path):
    report = tmp_path / 'report.json'
    ps = dropped_usb(tmp_path, {'KCONFIG_UNMET_REPORT': str(report)})
    assert ps.returncode == 0
    assert 'dropped' not in ps.stdout        # silent without the opt-in
    [usb] = json.loads(report.read_text())['dropped']
    assert usb['symbol'] == 'USB' and usb['kind'] == 'unmet'
    assert (usb['requested'], usb['actual']) == ('y', 'n')
    assert (usb['file'], usb['line']) == (str(tmp_path / 'usb.config'), 1)
    assert {'expr': 'USB_SUPPORT', 'value': 'n'} in usb['blocking']
    assert usb['hint'] == ['USB_SUPPORT']


def test_dropped_request_gate(tmp_path):
    # KCONFIG_WERROR alone lets it through, as before
    assert dropped_usb(tmp_path, {'KCONFIG_WERROR': '1'}).returncode == 0
    before = snapshot(tmp_path / 'out')
    ps = dropped_usb(tmp_path, {'KCONFIG_WERROR': '1',
                                'KCONFIG_WARN_DROPPED': '1'})
    assert ps.returncode != 0
    assert '%s:1: warning: CONFIG_USB=y was dropped (unmet): USB is n' % (
        tmp_path / 'usb.config') in ps.stdout
    assert snapshot(tmp_path / 'out') == before


@pytest.mark.parametrize('path', [
    pytest.param('missing/report.json', marks=pytest.mark.slow), '/dev/full'])
def test_unwritable_report(tmp_path, path):
    out = tmp_path / 'out'
    (out).mkdir()
    (out / 'Mykconfig').write_text(MYKCONFIG)
    env = {'KBUILD_KCONFIG': 'Mykconfig'}
    assert kmake(PATCHED, out, 'allnoconfig', env=env).returncode == 0
    (out / '.config').write_text((out / '.config').read_text() + '# mine\n')
    before = snapshot(out)
    ps = kmake(PATCHED, out, 'allyesconfig',
               env=dict(env, KCONFIG_UNMET_REPORT=path))
    assert ps.returncode != 0
    assert '%s: cannot write the report: ' % path in ps.stdout
    assert snapshot(out) == before


def test_report_through_symlink(tmp_path):
    """A report path that is a symbolic link stays one: the report is
    written, atomically, to what it points to."""
    (tmp_path / 'Mykconfig').write_text(MYKCONFIG)
    (tmp_path / 'reports').mkdir()
    link = tmp_path / 'report.json'
    link.symlink_to(tmp_path / 'reports' / 'last.json')
    ps = kmake(PATCHED, tmp_path, 'allnoconfig',
               env={'KBUILD_KCONFIG': 'Mykconfig',
                    'KCONFIG_UNMET_REPORT': str(link)})
    assert ps.returncode == 0, ps.stdout
    assert link.is_symlink()
    r = json.loads((tmp_path / 'reports' / 'last.json').read_text())
    assert [u['symbol'] for u in r['unmet']] == ['USB']
    assert list((tmp_path / 'reports').iterdir()) == [
        tmp_path / 'reports' / 'last.json']


FRAGMENT_CONFLICT = __import__('conftest').FRAGMENTS / 'conflict.Kconfig'


def board(tmp_path, name, selects):
    """Configure, on ARM allnoconfig, a board that selects @selects before
    source "Kconfig"; return (output, JSON report)."""
    kconfig = tmp_path / ('%s.Kconfig' % name)
    kconfig.write_text('config MYBOARD\n\tbool\n\tdefault y\n' +
                       ''.join('\tselect %s\n' % s for s in selects) +
                       '\nsource "Kconfig"\n')
    report = tmp_path / ('%s.json' % name)
    ps = kmake(PATCHED, tmp_path / name, 'allnoconfig', arch='arm',
               env={'KBUILD_KCONFIG': str(kconfig),
                    'KCONFIG_UNMET_REPORT': str(report)})
    assert ps.returncode == 0, ps.stdout
    return ps.stdout, json.loads(report.read_text())


# over 6 s on its own: "make -f Kbuild.mk check" only (docs/ci.md)
@pytest.mark.slow
def test_hint_through_or_that_holds(tmp_path):
    """VIDEO_OV13858 needs VIDEO_DEV, which needs I2C || I2C=n, and the
    camera sensors, which need I2C: I2C=n holds while I2C is off, but so
    does I2C once it is on.  The hint used to keep I2C off and say that
    no select can meet it; it names what meets it, and following it
    leaves nothing unmet."""
    out, r = board(tmp_path, 'ov', ['VIDEO_OV13858'])
    assert 'no select can meet it' not in out
    [ov] = r['unmet']
    assert ov['symbol'] == 'VIDEO_OV13858'
    assert ov['can_fix'] is True
    assert {'MEDIA_SUPPORT', 'VIDEO_DEV', 'I2C'} <= set(ov['hint'])
    out, r = board(tmp_path, 'ov-fixed', ['VIDEO_OV13858'] + r['hint'])
    assert r['unmet'] == [], out


# over 6 s on its own: "make -f Kbuild.mk check" only (docs/ci.md)
@pytest.mark.slow
def test_union_weighs_left_out_first(tmp_path):
    """With TMPFS's hint (MMU SHMEM) in the union, MXC_TZIC's next hint
    took ARCH_MULTI_V4T for ARCH_MXC, and MACH_MT6589, which needs
    ARCH_MULTI_V7, was left out, though ARCH_MULTI_V7 meets both.  The
    union weighs the target that it left out first: it meets all three,
    and following it leaves nothing unmet."""
    selects = ['TMPFS', 'MXC_TZIC', 'MACH_MT6589']
    out, r = board(tmp_path, 'v4v7', selects)
    assert 'kconfig: to meet them all, select' in out, out
    assert 'ARCH_MULTI_V7' in r['hint'] and 'ARCH_MULTI_V4T' not in r['hint']
    assert all(c['next_hint'] for c in r['conflicts']), r['conflicts']
    out, r = board(tmp_path, 'v4v7-fixed', selects + r['hint'])
    assert r['unmet'] == [], out


# over 6 s on its own: "make -f Kbuild.mk check" only (docs/ci.md)
@pytest.mark.slow
def test_union_weighs_left_out_again(tmp_path):
    """SOC_IMX7D's own hint, ARCH_MXC, is met through ARM_SINGLE_ARMV7M
    (!MMU) and conflicts with ARM_PTDUMP_DEBUGFS's MMU; MACH_MVEBU_ANY's
    hint, weighed later, brings ARCH_MULTI_V7, with which ARCH_MXC meets
    it.  The union used to leave SOC_IMX7D out for good; it weighs it
    again once it is whole, meets all three, and following it leaves
    nothing unmet."""
    selects = ['ARM_PTDUMP_DEBUGFS', 'SOC_IMX7D', 'MACH_MVEBU_ANY']
    out, r = board(tmp_path, 'again', selects)
    assert 'kconfig: to meet them all, select' in out, out
    assert r['conflicts'], out
    assert not any(c['left_out'] for c in r['conflicts']), r['conflicts']
    out, r = board(tmp_path, 'again-fixed', selects + r['hint'])
    assert r['unmet'] == [], out


# over 6 s on its own: "make -f Kbuild.mk check" only (docs/ci.md)
@pytest.mark.slow
def test_hint_turns_a_symbol_off(tmp_path):
    """FPE_NWFPE depends on !THUMB2_KERNEL, which allnoconfig turns on
    (no MMU: ARM_SINGLE_ARMV7M, CPU_V7M, CPU_THUMBONLY).  A select of MMU
    turns it off: the hint says so instead of "no select can meet it",
    and following it meets the select."""
    out, r = board(tmp_path, 'fpe', ['FPE_NWFPE'])
    [fpe] = r['unmet']
    assert fpe['symbol'] == 'FPE_NWFPE' and fpe['can_fix'] is True, out
    assert 'MMU' in fpe['hint']
    out, r = board(tmp_path, 'fpe-fixed', ['FPE_NWFPE'] + fpe['hint'])
    assert r['unmet'] == [], out


# over 6 s on its own: "make -f Kbuild.mk check" only (docs/ci.md)
@pytest.mark.slow
def test_union_conflict_note(tmp_path):
    """ARCH_MXC is met while ARM_SINGLE_ARMV7M (!MMU) is on; TMPFS's own
    hint, MMU and SHMEM, turns it off.  The union used to give nothing, a
    fragment stuck with a hint that it cannot follow.  A note at TMPFS
    names the conflict and what the union selects instead, the JSON
    report says the same, and following the union meets both.  SHMEM
    defaults to y once MMU is on: the union leaves it out."""
    out, r = board(tmp_path, 'mxc', ['ARCH_MXC', 'TMPFS'])
    [tmpfs] = r['unmet']
    assert tmpfs['symbol'] == 'TMPFS' and tmpfs['hint'] == ['MMU', 'SHMEM']
    [c] = r['conflicts']
    assert c['symbol'] == 'TMPFS' and c['hint'] == ['MMU', 'SHMEM']
    assert c['conflicts_with'] == ['ARCH_MXC']
    assert c['next_hint'] == r['hint']
    assert 'MMU' in r['hint'] and 'SHMEM' not in r['hint']
    assert 'note: the hint of TMPFS, MMU SHMEM, conflicts with ARCH_MXC; ' \
        'the union selects %s instead' % ' '.join(r['hint']) in out
    out, r = board(tmp_path, 'mxc-fixed', ['ARCH_MXC', 'TMPFS'] + r['hint'])
    assert r['unmet'] == [], out

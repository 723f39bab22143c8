# SPDX-License-Identifier: GPL-2.0
"""Kconfig fragments that source the tree: Torvalds's example, and ARM.

Torvalds's 2010 example, verbatim: a Mykconfig that selects USB and then
sources "Kconfig", run as "KBUILD_KCONFIG=Mykconfig make allnoconfig".
"""

import pytest

from conftest import (EXAMPLES, KERNEL_VERSION, PATCHED, PRISTINE, kmake,
                      unmet_reports)

pytestmark = pytest.mark.usefixtures('trees')

MYKCONFIG = 'config MYCONFIG\n\tbool\n\tdefault y\n\tselect USB\n\n' \
            'source "Kconfig"\n'


def run_mykconfig(tree, tmp_path, env=None):
    out = tmp_path / 'out'
    out.mkdir()
    # conf runs in the output folder, so "Mykconfig" is found there,
    # and "Kconfig" in the source tree.
    (out / 'Mykconfig').write_text(MYKCONFIG)
    env = dict(env or {}, KBUILD_KCONFIG='Mykconfig')
    return out, kmake(tree, out, 'allnoconfig', env=env)


@pytest.mark.stock
def test_torvalds_example_stock_fails(tmp_path):
    """The baseline: stock cannot parse the example at all (the mainmenu
    of the sourced Kconfig: bison's error is at line 7 on 6.1, 6 on
    6.12)."""
    _, ps = run_mykconfig(PRISTINE, tmp_path)
    assert ps.returncode != 0
    line = 7 if KERNEL_VERSION == '6.1' else 6
    assert 'Kconfig:%d: syntax error' % line in ps.stdout


def test_torvalds_example(tmp_path):
    out, ps = run_mykconfig(PATCHED, tmp_path)
    assert ps.returncode == 0, ps.stdout
    assert unmet_reports(ps.stdout) == ['USB']
    assert ('Mykconfig:4: warning: MYCONFIG [=y] selects USB, '
            'whose direct dependencies are unmet') in ps.stdout
    assert 'drivers/usb/Kconfig:44: note: USB depends on [n]: ' \
           'USB_SUPPORT [=n]' in ps.stdout
    assert 'kconfig: 1 select with unmet direct dependencies' in ps.stdout
    config = (out / '.config').read_text()
    # the title of the sourced top-level Kconfig
    assert '# Linux/x86 %s.' % KERNEL_VERSION in config.splitlines()[2]
    assert 'CONFIG_USB=y\n' in config
    assert '# CONFIG_USB_SUPPORT is not set\n' in config


def test_torvalds_example_werror(tmp_path):
    out, ps = run_mykconfig(PATCHED, tmp_path, {'KCONFIG_WERROR': '1'})
    assert ps.returncode != 0
    assert unmet_reports(ps.stdout) == ['USB']
    assert not (out / '.config').exists()


def test_fixed_fragment_passes(tmp_path):
    """Adding what the warning names clears it."""
    ps = kmake(PATCHED, tmp_path, 'allnoconfig',
               env={'KCONFIG_WERROR': '1',
                    'KBUILD_KCONFIG': str(EXAMPLES / 'torvalds-usb-fixed.Kconfig')})
    assert ps.returncode == 0, ps.stdout
    assert unmet_reports(ps.stdout) == []
    assert 'CONFIG_USB=y\n' in (tmp_path / '.config').read_text()


def test_arm_fragment(tmp_path):
    frag = EXAMPLES / 'arm-qcom-unmet.Kconfig'
    ps = kmake(PATCHED, tmp_path, 'allnoconfig', arch='arm',
               env={'KBUILD_KCONFIG': str(frag)})
    assert ps.returncode == 0, ps.stdout
    # 6.12's ARCH_QCOM selects HAVE_ARM_ARCH_TIMER if ARCH_MULTI_V7, which
    # the fragment forces on without its CPU_V7
    assert unmet_reports(ps.stdout) == ['ARCH_MULTI_V7'] + \
        (['HAVE_ARM_ARCH_TIMER'] if KERNEL_VERSION != '6.1' else []) + \
        ['PINCTRL_MSM8960']
    assert ('%s:7: warning: MY_QCOM_BOARD [=y] selects ARCH_MULTI_V7, whose '
            'direct dependencies are unmet' % frag) in ps.stdout
    where = {'6.1': 'arch/arm/Kconfig:374',
             '6.12': 'arch/arm/Kconfig.platforms:42',
             '7.2': 'arch/arm/Kconfig.platforms:38'}[KERNEL_VERSION]
    assert '%s: note: ARCH_MULTI_V7 depends on [n]: MMU [=n]' % where \
        in ps.stdout
    assert ('%s:9: warning: MY_QCOM_BOARD [=y] selects PINCTRL_MSM8960' % frag) \
        in ps.stdout
    # the same once more, with the gate
    ps = kmake(PATCHED, tmp_path / 'w', 'allnoconfig', arch='arm',
               env={'KBUILD_KCONFIG': str(frag), 'KCONFIG_WERROR': '1'})
    assert ps.returncode != 0
    assert not (tmp_path / 'w' / '.config').exists()


def test_kconfig_gate_tool(tmp_path):
    """tools/kconfig-gate: one verdict per fragment, JSON results, exit 1
    when a fragment has unmet selects, 2 on a missing fragment."""
    import json
    import subprocess
    import sys
    from conftest import TOP
    gate = [sys.executable, str(TOP / 'tools' / 'kconfig-gate'),
            '--srctree', str(PATCHED), '--out', str(tmp_path / 'out')]
    ps = subprocess.run(gate + ['--json', str(tmp_path / 'r.json'),
                                str(EXAMPLES / 'torvalds-usb.Kconfig'),
                                str(EXAMPLES / 'torvalds-usb-fixed.Kconfig')],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True)
    assert ps.returncode == 1, ps.stdout
    r = {f['name']: f for f in json.loads(
        (tmp_path / 'r.json').read_text())['fragments']}
    assert r['torvalds-usb']['status'] == 'FAIL'
    [u] = r['torvalds-usb']['unmet_selects']
    assert (u['selector'], u['target'], u['hint']) == \
        ('MYCONFIG', 'USB', ['USB_SUPPORT'])
    assert r['torvalds-usb-fixed']['status'] == 'PASS'
    assert 'kconfig-gate: 2 fragment(s), 1 passed, 1 failed' in ps.stdout
    assert subprocess.run(gate + [str(tmp_path / 'missing')],
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 2

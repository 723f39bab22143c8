# SPDX-License-Identifier: GPL-2.0
"""The MSM defconfigs, before and after the series' fixes: qcom_defconfig
asked for 11 symbols that no longer exist (16 on 6.12, which removed the
32-bit MSM SoC options too, 13 on 7.2), multi_v7_defconfig asked for QCOM_RPMH=y and
QCOM_RPMHPD=y and got m (6.12 asks for m)."""

import re

import pytest

from conftest import KERNEL_VERSION, PATCHED, PRISTINE, kmake

pytestmark = pytest.mark.usefixtures('trees')

STRICT = {'KCONFIG_WARN_UNKNOWN_SYMBOLS': '1', 'KCONFIG_WARN_DROPPED': '1'}


@pytest.mark.stock
def test_stock_qcom_defconfig(tmp_path):
    ps = kmake(PRISTINE, tmp_path, 'qcom_defconfig', arch='arm', env=STRICT)
    assert ps.returncode == 0
    assert ps.stdout.count('warning: unknown symbol: ') == \
        {'6.1': 11, '6.12': 16, '7.2': 13}[KERNEL_VERSION]
    # 7.2's qcom_defconfig no longer asks for USB_EHCI_MSM
    for sym in ('MTD_M25P80', 'INPUT_MSM_VIBRATOR', 'USB_EHCI_MSM',
                'USB_CHIPIDEA_ULPI', 'USB_MSM_OTG', 'QCOM_ADSP_PIL',
                'QCOM_Q6V5_PIL', 'QCOM_PM'):
        if sym != 'USB_EHCI_MSM' or KERNEL_VERSION != '7.2':
            assert 'unknown symbol: %s\n' % sym in ps.stdout


def test_qcom_defconfig_clean(tmp_path):
    ps = kmake(PATCHED, tmp_path, 'qcom_defconfig', arch='arm',
               env=dict(STRICT, KCONFIG_WERROR='1'))
    assert ps.returncode == 0, ps.stdout
    assert 'warning' not in ps.stdout
    config = (tmp_path / '.config').read_text()
    for sym in ('QCOM_Q6V5_MSS', 'QCOM_Q6V5_PAS', 'ARM_QCOM_SPM_CPUIDLE',
                'QCOM_SPM', 'MTD_SPI_NOR', 'USB_CHIPIDEA_MSM',
                'PHY_QCOM_USB_HS'):
        assert 'CONFIG_%s=y\n' % sym in config


# over 6 s on its own: "make -f Kbuild.mk check" only (docs/ci.md)
@pytest.mark.slow
@pytest.mark.skipif(KERNEL_VERSION != '6.1',
                    reason='6.12 asks for m: test_multi_v7_rpmh_upstream')
def test_multi_v7_rpmh(tmp_path):
    ps = kmake(PRISTINE, tmp_path / 'stock', 'multi_v7_defconfig', arch='arm',
               env=STRICT)
    assert 'CONFIG_QCOM_RPMH=y was dropped' not in ps.stdout  # stock: silent
    # NTFS_FS, an unknown symbol, is not an MSM matter: no
    # KCONFIG_WARN_UNKNOWN_SYMBOLS here
    ps = kmake(PATCHED, tmp_path / 'patched', 'multi_v7_defconfig',
               arch='arm', env={'KCONFIG_WARN_DROPPED': '1',
                                'KCONFIG_WERROR': '1'})
    assert ps.returncode == 0, ps.stdout
    config = (tmp_path / 'patched' / '.config').read_text()
    assert 'CONFIG_QCOM_RPMH=y\n' in config
    assert 'CONFIG_QCOM_RPMHPD=y\n' in config


@pytest.mark.skipif(KERNEL_VERSION == '6.1',
                    reason='6.1 asks for y: test_multi_v7_rpmh')
def test_multi_v7_rpmh_upstream(tmp_path):
    """6.12 asks for QCOM_RPMH=m and QCOM_RPMHPD=m, and gets them: no MSM
    request is dropped.  Three others are, which are not MSM matters and
    which the series leaves alone."""
    ps = kmake(PATCHED, tmp_path / 'patched', 'multi_v7_defconfig',
               arch='arm', env={'KCONFIG_WARN_DROPPED': '1'})
    assert ps.returncode == 0, ps.stdout
    config = (tmp_path / 'patched' / '.config').read_text()
    assert 'CONFIG_QCOM_RPMH=m\n' in config
    assert 'CONFIG_QCOM_RPMHPD=m\n' in config
    dropped = re.findall(r'warning: CONFIG_(\w+)=\w+ was dropped', ps.stdout)
    assert sorted(dropped) == {
        '6.12': ['CRYPTO_CHACHA20_NEON', 'FB_SH_MOBILE_LCDC',
                 'USB_GPIO_VBUS'],
        '7.2': ['CRYPTO_AES', 'FB_SH_MOBILE_LCDC']}[KERNEL_VERSION], \
        ps.stdout

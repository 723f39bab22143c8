# SPDX-License-Identifier: GPL-2.0
"""tools/kautobuild, the CI gate: configure every ARM defconfig and board,
build and boot the boards, report as JSON, JUnit and LAVA jobs.

The configure run over the 100 ARM defconfigs and the boards goes to a
fresh folder; the full run (configure, build, boot) of both boards goes to
build/out/kautobuild, so that a rerun of the suite is incremental (the
build is skipped when .config, the sources and the toolchain are
unchanged).
"""

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from conftest import (EXAMPLES, FRAGMENTS, KERNEL_VERSION, PATCHED, PRISTINE,
                      TOP, TREES, tool_env)

pytestmark = pytest.mark.usefixtures('trees')

KAUTOBUILD = str(TOP / 'tools' / 'kautobuild')
sys.path.insert(0, str(TOP / 'qemu-images' / 'lava'))
BOARDS = ['msm-virt', 'msm-virt-lpae', 'qcom-defconfig', 'qemu-virt']
DEFCONFIGS = sorted(p.name for p in (PATCHED / 'arch/arm/configs')
                    .glob('*_defconfig'))


def kautobuild(*args, env=None):
    ps = subprocess.run([sys.executable, KAUTOBUILD] + [str(a) for a in args],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True, env=tool_env(env))
    print(ps.stdout)
    return ps


def junit_cases(path):
    root = ET.parse(path).getroot()
    assert root.tag == 'testsuites'
    return {(tc.get('classname'), tc.get('name')): tc
            for tc in root.iter('testcase')}


@pytest.fixture(scope='module')
def all_configs(tmp_path_factory):
    """--config-only over every board and ARM defconfig, in a fresh
    folder, then again (every step cached)."""
    tmp = tmp_path_factory.mktemp('kautobuild')
    runs = []
    for n in (1, 2):
        ps = kautobuild('--config-only', '--out', tmp / 'out',
                        '--json', tmp / ('all%d.json' % n),
                        '--junit', tmp / ('all%d.xml' % n))
        runs.append((ps, json.loads((tmp / ('all%d.json' % n)).read_text()),
                     tmp / ('all%d.xml' % n)))
    return runs


# The defconfig rot after the series' fixes, as --config-only reports it
# (docs/measurements.md, "Before and after"): ARM defconfigs, files with dropped
# requests, requests in all, and a defconfig whose request a later line of
# the same file overrides.
ROT = {
    '6.1': (100, 74, 447, ('corgi_defconfig', 'NFS_V4')),
    '6.12': (70, 48, 308, ('spitz_defconfig', 'NFS_V4')),
}[KERNEL_VERSION]


@pytest.mark.slow
def test_all_configure(all_configs):
    ps, doc, xml = all_configs[0]
    ndefconfigs, nfiles, nrequests, (overrider, overridden) = ROT
    assert len(DEFCONFIGS) == ndefconfigs
    names = [t['name'] for t in doc['targets']]
    assert sorted(names) == sorted(BOARDS + DEFCONFIGS)
    assert ps.returncode == 0, ps.stdout
    for t in doc['targets']:
        assert t['status'] == 'PASS'
        assert t['steps']['configure']['status'] == 'PASS'
        assert t['steps']['build']['status'] == 'SKIP'
        assert t['steps']['boot']['status'] == 'SKIP'
        assert t['unmet'] == []
        assert Path(t['config']).is_file()
        assert Path(t['steps']['configure']['log']).is_file()
    kinds = {t['name']: t['kind'] for t in doc['targets']}
    assert kinds['qemu-virt'] == 'board'
    assert kinds['vexpress_defconfig'] == 'defconfig'
    dropped = [t for t in doc['targets'] if t['dropped']]
    assert len(dropped) == nfiles
    assert sum(len(t['dropped']) for t in dropped) == nrequests
    omap = next(t for t in doc['targets']
                if t['name'] == 'omap2plus_defconfig')
    d = next(d for d in omap['dropped'] if d['symbol'] == 'OMAP_RESET_CLOCKS')
    assert d['kind'] == 'unmet' and d['requested'] == 'y'
    assert d['file'] == 'arch/arm/configs/omap2plus_defconfig'
    t = next(t for t in doc['targets'] if t['name'] == overrider)
    assert [d['symbol'] for d in t['dropped']
            if d['kind'] == 'overridden'] == [overridden]
    # the summary table shows the dropped counts, and every log
    assert 'omap2plus_defconfig' in ps.stdout
    assert 'kautobuild: %d target(s) with dropped requests, %d in all' % \
        (nfiles, nrequests) in ps.stdout
    assert str(Path(omap['steps']['configure']['log'])) in ps.stdout
    # the JUnit: one testcase per target and step
    cases = junit_cases(xml)
    assert len(cases) == 3 * (len(BOARDS) + ndefconfigs)
    assert all(tc.find('failure') is None for tc in cases.values())
    assert cases[('vexpress_defconfig', 'build')].find('skipped') is not None


@pytest.mark.slow
def test_all_configure_batch(all_configs, single_runs):
    """The defconfigs go through make batchconfig, and each .config is the
    one that make <x>_defconfig alone writes."""
    ps, doc, _ = all_configs[0]
    assert ps.stdout.splitlines()[0].endswith(', batchconfig')
    patched = single_runs[2]
    differ = [t['name'] for t in doc['targets'] if t['kind'] == 'defconfig'
              and Path(t['config']).read_bytes() !=
              patched['arm-' + t['name']][1]]
    assert differ == []


@pytest.mark.slow
def test_all_rerun_cached(all_configs):
    (_, first, _), (ps, second, _) = all_configs
    assert ps.returncode == 0, ps.stdout
    assert [t['dropped'] for t in first['targets']] == \
        [t['dropped'] for t in second['targets']]
    assert all(t['steps']['configure'].get('cached')
               for t in second['targets'])


@pytest.mark.slow
def test_fail_on_dropped(all_configs, tmp_path):
    out = Path(all_configs[0][1]['out'])
    ps = kautobuild('--config-only', '--fail-on-dropped', '--out', out,
                    '--json', tmp_path / 'r.json', 'omap2plus',
                    'vexpress_defconfig')
    assert ps.returncode == 1, ps.stdout
    doc = json.loads((tmp_path / 'r.json').read_text())
    st = {t['name']: t['status'] for t in doc['targets']}
    assert st == {'omap2plus_defconfig': 'FAIL', 'vexpress_defconfig': 'PASS'}


@pytest.mark.slow
def test_unmet_select_fails(tmp_path):
    """A fragment with unmet selects among clean targets: exit 1, the
    symbols named in the JSON and in the JUnit failure; the others pass."""
    ps = kautobuild('--config-only', '--out', tmp_path / 'out',
                    '--json', tmp_path / 'r.json',
                    '--junit', tmp_path / 'r.xml',
                    EXAMPLES / 'arm-qcom-unmet.Kconfig',
                    FRAGMENTS / 'always-unmet.Kconfig', 'vexpress')
    assert ps.returncode == 1, ps.stdout
    doc = json.loads((tmp_path / 'r.json').read_text())
    t = {t['name']: t for t in doc['targets']}
    assert t['vexpress_defconfig']['status'] == 'PASS'
    qcom = t['arm-qcom-unmet']
    assert qcom['kind'] == 'fragment' and qcom['arch'] == 'arm'
    assert qcom['status'] == 'FAIL' and qcom['config'] is None
    assert not (tmp_path / 'out' / 'arm-qcom-unmet' / '.config').exists()
    unmet = {u['symbol']: u for u in qcom['unmet']}
    # 6.12's ARCH_QCOM selects HAVE_ARM_ARCH_TIMER if ARCH_MULTI_V7 as well
    assert set(unmet) == {'ARCH_MULTI_V7', 'PINCTRL_MSM8960'} | \
        ({'HAVE_ARM_ARCH_TIMER'} if KERNEL_VERSION != '6.1' else set())
    assert unmet['PINCTRL_MSM8960']['hint'] == ['GPIOLIB', 'PINCTRL_MSM']
    assert unmet['ARCH_MULTI_V7']['selectors'][0]['symbol'] == 'MY_QCOM_BOARD'
    assert unmet['ARCH_MULTI_V7']['selectors'][0]['line'] == 7
    x86 = t['always-unmet']
    assert x86['arch'] == 'x86' and x86['status'] == 'FAIL'
    assert 'USB' in {u['symbol'] for u in x86['unmet']}
    cases = junit_cases(tmp_path / 'r.xml')
    fail = cases[('arm-qcom-unmet', 'configure')].find('failure')
    assert fail is not None
    # what failed, then conf's own lines, as they are
    assert fail.text.startswith('unmet select: ')
    assert '%s:9: warning: MY_QCOM_BOARD [=y] selects PINCTRL_MSM8960, ' \
        'whose direct dependencies are unmet' % \
        (EXAMPLES / 'arm-qcom-unmet.Kconfig') in fail.text.splitlines()
    assert 'note: to meet it, select GPIOLIB PINCTRL_MSM' in fail.text
    assert qcom['steps']['configure']['reasons'] == ['unmet select']
    assert cases[('arm-qcom-unmet', 'build')].find('skipped') is not None
    assert cases[('vexpress_defconfig', 'configure')].find('failure') is None
    assert '3 target(s), 1 passed, 2 failed: arm-qcom-unmet always-unmet' \
        in ps.stdout


def test_missing_tree(tmp_path):
    ps = kautobuild('--config-only', '--srctree', tmp_path / 'nothing',
                    '--out', tmp_path / 'out', 'vexpress')
    assert ps.returncode == 2
    assert 'no such kernel tree' in ps.stdout


def test_stock_tree(tmp_path):
    ps = kautobuild('--config-only', '--srctree', PRISTINE,
                    '--out', tmp_path / 'out', 'vexpress')
    assert ps.returncode == 2
    assert 'does not carry the series' in ps.stdout


def test_missing_cross_compiler(tmp_path):
    """PATH with make and the host tools, but no arm-linux-gnueabi-gcc."""
    bin = tmp_path / 'bin'
    bin.mkdir()
    for tool in ('make', 'sh', 'gcc', 'cat', 'sed'):
        (bin / tool).symlink_to('/usr/bin/' + tool)
    ps = kautobuild('--config-only', '--out', tmp_path / 'out', 'vexpress',
                    env={'PATH': str(bin)})
    assert ps.returncode == 2
    assert 'arm-linux-gnueabi-gcc not in PATH' in ps.stdout


def test_unknown_target(tmp_path):
    ps = kautobuild('--config-only', '--out', tmp_path, 'no-such-board')
    assert ps.returncode == 2
    assert 'no-such-board: not a board' in ps.stdout


def test_list():
    ps = kautobuild('--list')
    assert ps.returncode == 0
    targets = json.loads(ps.stdout)
    assert [t['name'] for t in targets] == BOARDS + DEFCONFIGS
    board = {t['name']: t for t in targets}['msm-virt']
    assert board == {'name': 'msm-virt', 'kind': 'board', 'arch': 'arm',
                     'fragment': 'arch/arm/boards/Kconfig.msm-virt',
                     'machine': 'virt'}
    ps = kautobuild('--list', 'qemu-virt', 'multi_v7_defconfig', 'imx_v6_v7',
                    EXAMPLES / 'torvalds-usb.Kconfig')
    assert [(t['name'], t['kind'], t['arch']) for t in json.loads(ps.stdout)] \
        == [('qemu-virt', 'board', 'arm'),
            ('multi_v7_defconfig', 'defconfig', 'arm'),
            ('imx_v6_v7_defconfig', 'defconfig', 'arm'),
            ('torvalds-usb', 'fragment', 'x86')]


@pytest.mark.slow
def test_merge(tmp_path):
    """One CI job per target, then --merge: one JSON, one JUnit."""
    names = ['vexpress', EXAMPLES / 'arm-qcom-unmet.Kconfig']
    for i, name in enumerate(names):
        kautobuild('--config-only', '--out', tmp_path / 'out',
                   '--json', tmp_path / ('job%d.json' % i), name)
    ps = kautobuild('--merge', tmp_path / 'job0.json', tmp_path / 'job1.json',
                    '--json', tmp_path / 'all.json',
                    '--junit', tmp_path / 'all.xml')
    assert ps.returncode == 1, ps.stdout
    doc = json.loads((tmp_path / 'all.json').read_text())
    assert [(t['name'], t['status']) for t in doc['targets']] == \
        [('vexpress_defconfig', 'PASS'), ('arm-qcom-unmet', 'FAIL')]
    cases = junit_cases(tmp_path / 'all.xml')
    assert len(cases) == 6
    assert cases[('arm-qcom-unmet', 'configure')].find('failure') is not None
    ps = kautobuild('--merge', tmp_path / 'job0.json',
                    '--json', tmp_path / 'one.json')
    assert ps.returncode == 0
    (tmp_path / 'bad.json').write_text('{"no": "targets"}')
    ps = kautobuild('--merge', tmp_path / 'bad.json')
    assert ps.returncode == 2
    # the JSON's folder is made; one that cannot be is one clear error
    ps = kautobuild('--merge', tmp_path / 'job0.json',
                    '--json', tmp_path / 'new' / 'dir' / 'one.json')
    assert ps.returncode == 0 and (tmp_path / 'new/dir/one.json').is_file()
    ps = kautobuild('--merge', tmp_path / 'job0.json',
                    '--json', '/proc/no/such/one.json')
    assert ps.returncode == 2
    assert 'kautobuild: cannot write the results' in ps.stdout
    assert 'Traceback' not in ps.stdout


# -- the full run: configure, build, boot the MSM board ------------------------
#
# One board: the gate's steps do not depend on the board, and qemu-virt's
# kernel, the bigger build, is built and booted by test_boards.py.

OUT = TREES / 'out' / 'kautobuild'


# lava-run (lava-dispatcher) runs only as root, as CI does
LAVA_RUN = os.geteuid() == 0


@pytest.fixture(scope='module')
def full_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('full')
    ps = kautobuild('--out', OUT, '--json', tmp / 'full.json',
                    '--junit', tmp / 'full.xml',
                    *(['--lava-run'] if LAVA_RUN else []), 'msm-virt')
    return ps, json.loads((tmp / 'full.json').read_text()), tmp / 'full.xml'


@pytest.mark.slow
@pytest.mark.parametrize('board', ['msm-virt'])
def test_full_run(full_run, board):
    ps, doc, xml = full_run
    assert ps.returncode == 0, ps.stdout
    t = {t['name']: t for t in doc['targets']}[board]
    assert t['kind'] == 'board' and t['status'] == 'PASS'
    assert [t['steps'][s]['status'] for s in ('configure', 'build', 'boot')] \
        == ['PASS'] * 3
    assert (OUT / board / 'arch/arm/boot/zImage').is_file()
    assert list((OUT / board / 'arch/arm/boot/dts').glob('*.dtb'))
    console = (OUT / board / 'console.log').read_text(errors='replace')
    assert 'BOOT: PASS' in console
    expect = [l.split('=', 1)[1] for l in
              (TOP / 'qemu-images/boards' / board).read_text().splitlines()
              if l.startswith('EXPECT=')][0].split(',')
    assert set(expect) <= set(t['drivers'])
    for s in ('configure', 'build', 'boot'):
        assert Path(t['steps'][s]['log']).is_file()
        assert t['steps'][s]['log'] in ps.stdout
    cases = junit_cases(xml)
    assert all(cases[(board, s)].find('failure') is None and
               cases[(board, s)].find('skipped') is None
               for s in ('configure', 'build', 'boot'))


@pytest.mark.slow
def test_full_run_sparse(full_run):
    t = {t['name']: t for t in full_run[1]['targets']}['msm-virt']
    assert t['sparse'] is not None
    assert t['sparse']['checked'] > 0
    assert Path(t['steps']['build']['sparse_log']).is_file()


@pytest.mark.slow
def test_rerun_skips_build(full_run, tmp_path):
    """Nothing changed since the full run: the build is skipped, the
    kernel boots again."""
    ps = kautobuild('--out', OUT, '--json', tmp_path / 'r.json', 'msm-virt')
    assert ps.returncode == 0, ps.stdout
    t = json.loads((tmp_path / 'r.json').read_text())['targets'][0]
    assert t['steps']['build'].get('cached')
    assert t['steps']['build']['seconds'] < 30
    assert t['steps']['boot']['status'] == 'PASS'


@pytest.mark.slow
def test_lava_jobs_validate(full_run):
    """The LAVA job of each boot passes LAVA's own schema (lava-common)."""
    schemas = pytest.importorskip('lava_common.schemas')
    import yaml
    import lavajob
    for t in full_run[1]['targets']:
        path = t['steps']['boot']['lava_job']
        assert t['steps']['boot']['lava_valid'] is True
        data = yaml.safe_load(Path(path).read_text())
        schemas.validate(data, strict=True)
        assert lavajob.validate(path) is None
        assert data['device_type'] == 'qemu'
        assert data['context']['machine'] == 'virt'
        assert data['context']['cpu'] == 'cortex-a15'
        deploy = data['actions'][0]['deploy']
        assert deploy['to'] == 'tmpfs'
        assert Path(deploy['images']['kernel']['url'][len('file://'):]) == \
            OUT / t['name'] / 'arch/arm/boot/zImage'
        assert 'console=ttyAMA0' in deploy['images']['kernel']['image_arg']
        assert data['actions'][1]['boot']['method'] == 'qemu'
        monitor = data['actions'][2]['test']['monitors'][0]
        assert 'BOOT' in monitor['pattern']


def test_lava_schema_rejects(tmp_path):
    """The validator is real: a broken job fails it."""
    pytest.importorskip('lava_common.schemas')
    import lavajob
    good = tmp_path / 'good.yaml'
    lavajob.write(str(good), lavajob.job('x', 'file:///k', 'file:///r'))
    assert lavajob.validate(str(good)) is None
    for broken in (('to: tmpfs', 'to: nowhere'),
                   ('method: qemu', 'method: nosuchmethod'),
                   ('device_type: qemu\n', ''),
                   ('machine: virt', 'machne: virt')):
        bad = tmp_path / 'bad.yaml'
        text = good.read_text()
        assert broken[0] in text
        bad.write_text(text.replace(broken[0], broken[1]))
        assert lavajob.validate(str(bad)) is not None, broken


# -- the same boots on a real LAVA dispatcher (lava-run) ----------------------

needs_lava_run = pytest.mark.skipif(not LAVA_RUN,
                                    reason='lava-run runs only as root')


@pytest.mark.slow
@needs_lava_run
@pytest.mark.parametrize('board', ['msm-virt'])
def test_full_run_lava(full_run, board):
    """kautobuild --lava-run: LAVA's own result of the BOOT test case is
    pass, in the JSON, the JUnit and the summary."""
    ps, doc, xml = full_run
    t = {t['name']: t for t in doc['targets']}[board]
    lava = t['steps']['lava']
    assert lava['status'] == 'PASS', lava.get('reason')
    assert lava['result'] == 'pass' and lava['job_result'] == 'pass'
    cases = {(r['definition'], r['case']): r['result']
             for r in lava['results']}
    assert cases[('kautobuild-boot', 'boot')] == 'pass'
    assert cases[('lava', 'job')] == 'pass'
    log = Path(lava['log']).read_text(errors='replace')
    assert '"msg": "BOOT: PASS"' in log
    assert 'Job finished correctly' in log
    device = yaml.safe_load(Path(lava['device']).read_text())
    assert device['actions']['boot']['methods']['qemu']['parameters'][
        'command'] == 'qemu-system-arm'
    tc = junit_cases(xml)[(board, 'lava')]
    assert tc.find('failure') is None and tc.find('skipped') is None
    assert 'kautobuild: LAVA (lava-run): msm-virt pass' in ps.stdout


@pytest.mark.slow
@needs_lava_run
def test_lava_run_failures(full_run, tmp_path):
    """A broken init (a driver that does not register: BOOT: FAIL) is a
    fail of LAVA's BOOT test case, in a job that passes; a hung kernel (no
    init, panic=0) is a job that LAVA fails when its monitor times out."""
    import lavajob
    kernel = 'file://%s' % (OUT / 'msm-virt' / 'arch/arm/boot/zImage')
    initrd = 'file://%s' % (OUT / 'msm-virt' / 'initramfs/initramfs.cpio')
    job = tmp_path / 'fail.yaml'
    lavajob.write(str(job), lavajob.job('msm-virt', kernel, initrd,
                                        'msm_serial,no-such-driver',
                                        boot_seconds=60))
    res = lavajob.run(str(job), str(tmp_path / 'fail'))
    assert res['result'] == 'fail', res
    assert res['job'] == 'pass'
    assert 'BOOT: FAIL' in Path(res['log']).read_text(errors='replace')

    job = tmp_path / 'hang.yaml'
    lavajob.write(str(job), lavajob.job('msm-virt', kernel, initrd,
                                        'msm_serial', boot_seconds=20,
                                        append='rdinit=/nonexistent panic=0'))
    res = lavajob.run(str(job), str(tmp_path / 'hang'))
    assert res['result'] == 'fail', res
    assert res['job'] == 'fail'
    assert 'lava-test-monitor timed out after 20 seconds' in res['error']
    assert 'BOOT: ' not in Path(res['log']).read_text(errors='replace')
    # the command line tool says the same, with its exit status
    ps = subprocess.run([sys.executable, str(TOP / 'qemu-images' / 'lava' /
                                             'lavajob.py'), 'run', str(job),
                         str(tmp_path / 'hang2')], stdout=subprocess.PIPE,
                        text=True)
    assert ps.returncode == 1
    assert 'lava: lava job: fail (lava-test-monitor timed out' in ps.stdout


@pytest.mark.slow
def test_audit_step(tmp_path):
    """--audit: the selects of each board's own files that a configuration
    derived from it can leave unmet.  msm-virt before the series' fix
    (select QCOM_ADM, unconditional) configures cleanly, since allnoconfig
    never turns LPAE on, but its audit fails with the reproducer; the
    fixed board passes, also with LPAE on (msm-virt-lpae); a defconfig
    has no selects of its own."""
    old = tmp_path / 'msm-virt-old.Kconfig'
    text = (PATCHED / 'arch/arm/boards/Kconfig.msm-virt').read_text()
    assert '\tselect QCOM_ADM if !PHYS_ADDR_T_64BIT\n' in text
    old.write_text('# arch: arm\n' + text.replace(
        'select QCOM_ADM if !PHYS_ADDR_T_64BIT', 'select QCOM_ADM'))
    ps = kautobuild('--config-only', '--audit', '--out', tmp_path / 'out',
                    '--json', tmp_path / 'r.json',
                    '--junit', tmp_path / 'r.xml',
                    old, 'msm-virt', 'msm-virt-lpae', 'vexpress')
    assert ps.returncode == 1, ps.stdout
    t = {t['name']: t for t in
         json.loads((tmp_path / 'r.json').read_text())['targets']}
    assert t['msm-virt-old']['steps']['configure']['status'] == 'PASS'
    audit = t['msm-virt-old']['steps']['audit']
    assert audit['status'] == 'FAIL'
    assert [(f['selector'], f['target'], f['file'], f['line'])
            for f in audit['findings']] == \
        [('BOARD_MSM_VIRT', 'QCOM_ADM', str(old), 14)]
    f = audit['findings'][0]
    assert f['blocking'][0]['expr'] == '!PHYS_ADDR_T_64BIT'
    assert 'CONFIG_ARM_LPAE=y' in Path(f['reproducer']).read_text()
    for name in ('msm-virt', 'msm-virt-lpae'):
        assert t[name]['status'] == 'PASS'
        assert t[name]['steps']['audit']['status'] == 'PASS'
        assert t[name]['steps']['audit']['findings'] == []
        # 6.12's Kconfig.msm has no ARCH_MSM8960 and ARCH_MSM8974 to
        # select; its QCOM_SMD_RPM select (kernel-patches/6.12 patch 31) is
        # conditional, or this audit fails
        assert t[name]['steps']['audit']['selects'] == \
            (32 if KERNEL_VERSION == '6.1' else 30)
    assert t['msm-virt-lpae']['unmet'] == []
    lpae = Path(t['msm-virt-lpae']['config']).read_text()
    assert 'CONFIG_ARM_LPAE=y' in lpae and 'CONFIG_QCOM_ADM' not in lpae
    assert t['vexpress_defconfig']['steps']['audit']['status'] == 'SKIP'
    cases = junit_cases(tmp_path / 'r.xml')
    fail = cases[('msm-virt-old', 'audit')].find('failure')
    assert 'BOARD_MSM_VIRT selects QCOM_ADM' in fail.get('message')
    assert cases[('msm-virt', 'audit')].find('failure') is None
    assert "audit of the boards' own selects: msm-virt-old 1 finding(s)" \
        in ps.stdout

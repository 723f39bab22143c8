# SPDX-License-Identifier: GPL-2.0
"""conf --batch ("make batchconfig") configures many targets from one parse.

Every .config and JSON report it writes must equal those of a separate
"make <target>" run (conftest's single_runs) for all ARM defconfigs and
allno/allyes/allmodconfig, whatever the order of the targets: the values
of one target must not leak into the next.  KCONFIG_WERROR holds back
exactly the targets that a single run would fail.  Board fragments change
the Kconfig tree, so each gets a batch of its own.
"""

import json
import random
import re

import pytest

from conftest import ARM_DEFCONFIGS, KERNEL_VERSION, PATCHED, kmake

pytestmark = pytest.mark.usefixtures('trees')

ALL_MODES = ('allnoconfig', 'allyesconfig', 'allmodconfig')


def batch_lines(names):
    """The list lines of single_runs' ARM targets @names."""
    lines = []
    for name in names:
        target = name[len('arm-'):]
        if target in ALL_MODES:
            lines.append('%s %s' % (name, target))
        else:
            lines.append('%s defconfig arch/arm/configs/%s' % (name, target))
    return lines


def run_batch(tmp_path, lines=None, env=None, kconfig=None):
    """make batchconfig; return (CompletedProcess, {name: .config bytes},
    {name: report})."""
    out = tmp_path / 'batch'
    e = dict(env or {}, KCONFIG_BATCH_DIR=str(out))
    if lines is not None:
        (tmp_path / 'batch.list').write_text('\n'.join(lines) + '\n')
        e['KCONFIG_BATCH'] = str(tmp_path / 'batch.list')
    if kconfig:
        e['KBUILD_KCONFIG'] = kconfig
    ps = kmake(PATCHED, tmp_path / 'o', 'batchconfig', arch='arm', env=e)
    configs, reports = {}, {}
    for d in out.iterdir() if out.is_dir() else []:
        if (d / '.config').exists():
            configs[d.name] = (d / '.config').read_bytes()
        if (d / 'report.json').exists():
            reports[d.name] = json.loads((d / 'report.json').read_text())
    return ps, configs, reports


def arm_targets(single_runs):
    todo = single_runs[0]
    return [name for name, arch, target, env in todo
            if arch == 'arm' and not env and target != 'randconfig']


def reassigns(defconfig):
    """Does @defconfig assign a symbol more than once?"""
    text = (PATCHED / 'arch/arm/configs' / defconfig).read_text()
    names = re.findall(r'^(?:# )?CONFIG_(\w+)[= ]', text, re.M)
    return len(names) != len(set(names))


def shuffled(names):
    names = list(names)
    random.Random(20101).shuffle(names)
    return names


@pytest.mark.slow
@pytest.mark.parametrize('order', ['sorted', 'reversed', 'shuffled'])
def test_batch_equals_single_runs(tmp_path, single_runs, order):
    _, _, patched, reports = single_runs
    names = sorted(arm_targets(single_runs))
    assert len(names) == len(ARM_DEFCONFIGS) + 3
    assert len(ARM_DEFCONFIGS) >= (100 if KERNEL_VERSION == '6.1' else 70)
    names = {'sorted': names, 'reversed': names[::-1],
             'shuffled': shuffled(names)}[order]

    ps, configs, batch_reports = run_batch(tmp_path, batch_lines(names))
    assert ps.returncode == 0, ps.stdout[-2000:]
    assert 'batch: %d targets: %d written, 0 held back by KCONFIG_WERROR, ' \
        '0 failed' % (len(names), len(names)) in ps.stdout
    differ = [n for n in names if configs.get(n) != patched[n][1]]
    assert differ == [], 'batch .config differs from a single run: %s' % differ
    differ = [n for n in names if batch_reports.get(n) != reports[n]]
    assert differ == [], 'batch report differs from a single run: %s' % differ


@pytest.mark.slow
def test_batch_all_defconfigs_werror(tmp_path, single_runs):
    """Without KCONFIG_BATCH, every defconfig of the architecture is a
    target.  Under KCONFIG_WERROR and KCONFIG_WARN_DROPPED a single run
    fails on an unmet select or a dropped request of a known symbol; the
    batch holds back those targets and writes the others."""
    _, _, patched, reports = single_runs
    ps, configs, batch_reports = run_batch(
        tmp_path, env={'KCONFIG_WERROR': '1', 'KCONFIG_WARN_DROPPED': '1'})
    assert ps.returncode == 2  # make fails when conf does
    # A defconfig that assigns a symbol twice gets an "override" warning,
    # an error under KCONFIG_WERROR before anything is reported or written.
    overrides = sorted(d for d in ARM_DEFCONFIGS if reassigns(d))
    assert overrides == {
        '6.1': ['corgi_defconfig', 'pxa_defconfig', 'spitz_defconfig'],
        '6.12': ['pxa_defconfig', 'spitz_defconfig'],
        '7.2': ['orion5x_defconfig', 'spitz_defconfig']}[KERNEL_VERSION]
    # So does a value invalid for its type: 6.12's u8500_defconfig has
    # CONFIG_NFC_SHDLC=m, a bool (7.2's asks for y).
    early = overrides + (['u8500_defconfig'] if KERNEL_VERSION == '6.12'
                         else [])
    assert sorted(batch_reports) == sorted(set(ARM_DEFCONFIGS) - set(early))

    def fails(d):
        r = reports['arm-' + d]
        return d in early or r['unmet'] or \
            any(x['kind'] != 'unknown' for x in r['dropped'])
    held = sorted(d for d in ARM_DEFCONFIGS if fails(d))
    assert 10 < len(held) < len(ARM_DEFCONFIGS)
    assert sorted(set(ARM_DEFCONFIGS) - set(configs)) == held
    assert all(configs[d] == patched['arm-' + d][1] for d in configs)
    assert 'batch: %d targets: %d written, %d held back by KCONFIG_WERROR' % (
        len(ARM_DEFCONFIGS), len(ARM_DEFCONFIGS) - len(held),
        len(held)) in ps.stdout
    assert 'arch/arm/configs/%s:' % held[0] in ps.stdout


@pytest.mark.parametrize('board', [
    'msm-virt',
    # the same path again, for the other board: "check" only
    pytest.param('qemu-virt', marks=pytest.mark.slow)])
def test_batch_board(tmp_path, board):
    """A board fragment is a Kconfig tree of its own: its batch equals
    KBUILD_KCONFIG=<fragment> make allnoconfig."""
    kconfig = 'arch/arm/boards/Kconfig.' + board
    report = tmp_path / 'single.json'
    single = kmake(PATCHED, tmp_path / 'single', 'allnoconfig', arch='arm',
                   env={'KBUILD_KCONFIG': kconfig,
                        'KCONFIG_UNMET_REPORT': str(report)})
    assert single.returncode == 0, single.stdout
    ps, configs, reports = run_batch(tmp_path, [board + ' allnoconfig'],
                                     kconfig=kconfig)
    assert ps.returncode == 0, ps.stdout
    assert configs[board] == (tmp_path / 'single/.config').read_bytes()
    assert reports[board] == json.loads(report.read_text())


def test_batch_bad_list(tmp_path):
    """A bad list is refused with its file:line before anything is
    parsed or written."""
    ps, configs, reports = run_batch(
        tmp_path, ['ok allnoconfig', 'bad defconfig'])
    assert ps.returncode != 0
    assert '%s:2: error: expected "NAME MODE [FILE]"' % (
        tmp_path / 'batch.list') in ps.stdout
    assert configs == {} and reports == {}

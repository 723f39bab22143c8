# SPDX-License-Identifier: GPL-2.0
"""conf of the patched tree under AddressSanitizer, LeakSanitizer,
UndefinedBehaviorSanitizer and valgrind memcheck.

tools/kconfig-sanitize --set ci: conf built with -fsanitize=address,undefined
through HOSTCFLAGS/HOSTLDFLAGS runs 10 ARM defconfigs, allno/allyes on ARM
and x86, 5 randconfigs, the boards, the example fragments under
KCONFIG_WERROR=1 KCONFIG_WARN_DROPPED=1 KCONFIG_UNMET_REPORT, dropped
requests, olddefconfig/savedefconfig and "make testconfig"; then valgrind
on a few of them, stock conf against patched.  The full set is
"make -f Kbuild.mk sanitize".
"""

import json
import subprocess
import sys

import pytest

from conftest import PATCHED, PRISTINE, TOP, TREES


# builds conf with the sanitizers and runs its scenarios under them and
# valgrind: "make -f Kbuild.mk check" only
pytestmark = [pytest.mark.usefixtures('trees'), pytest.mark.slow]

OUT = TREES / 'out' / 'sanitize-ci'
RESULT = OUT / 'result.json'


@pytest.fixture(scope='module')
def result():
    ps = subprocess.run([sys.executable, str(TOP / 'tools' / 'kconfig-sanitize'),
                         '--set', 'ci', '--jobs', '2', '--valgrind',
                         '--srctree', str(PATCHED), '--stock', str(PRISTINE),
                         '--out', str(OUT), '--json', str(RESULT)],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True)
    print(ps.stdout)
    assert ps.returncode in (0, 1), ps.stdout
    return ps, json.loads(RESULT.read_text())


def test_conf_is_instrumented(result):
    """HOSTCFLAGS reached conf: it has ASan and UBSan in it"""
    syms = subprocess.run(['nm', str(OUT / 'arm/scripts/kconfig/conf')],
                          stdout=subprocess.PIPE, text=True).stdout
    assert '__asan_report' in syms
    assert '__ubsan_handle' in syms


def test_no_sanitizer_reports(result):
    ps, r = result
    assert r['sanitize']['reports'] == 0, ps.stdout
    assert ps.returncode == 0, ps.stdout


@pytest.mark.parametrize('kind', ['defconfig:', 'allnoconfig:',
                                  'allyesconfig:', 'randconfig:', 'board:',
                                  'example:', 'allconfig-dropped:',
                                  'olddefconfig:', 'savedefconfig:',
                                  'testconfig'])
def test_scenarios(result, kind):
    _, r = result
    runs = [s for s in r['sanitize']['scenarios'] if s['name'].startswith(kind)]
    assert runs, 'no %s scenario ran' % kind
    for s in runs:
        assert s['problems'] == [], s


def test_new_code_paths_ran(result):
    """The examples reach the unmet-select and dropped-request code: the
    reports that conf wrote under the sanitizers name them."""
    _, r = result
    runs = {s['name']: s for s in r['sanitize']['scenarios']}
    usb = json.loads(open(runs['example:torvalds-usb']['dir'] +
                          '/report.json').read())
    assert [u['symbol'] for u in usb['unmet']] == ['USB']
    assert runs['example:torvalds-usb']['exit'] == 1
    dropped = json.loads(open(runs['allconfig-dropped:arm']['dir'] +
                              '/report.json').read())
    assert dropped['dropped'], dropped
    out = open(runs['allconfig-dropped:arm']['dir'] + '/output.log').read()
    assert 'was dropped' in out


def test_valgrind_no_new_leaks(result):
    ps, r = result
    rows = r['valgrind']['scenarios']
    assert len(rows) >= 3
    for row in rows:
        assert row['patched']['lost'] <= row['stock']['lost'], row
        assert row['patched']['errors'] == 0, row
        assert row['problems'] == [], row


def test_failure_shows_its_log(result, tmp_path, capsys):
    """A run that fails prints the end of its log, so that a CI log says
    why: here a syntax error, which exits 1 where 0 was expected."""
    from kbuildgate import kmake, sanitize as tool
    from kbuildgate.sanitize_scenarios import Scenario
    sc = Scenario('bad', 'arm', ['--allnoconfig'],
                  {'KBUILD_KCONFIG': 'bad.Kconfig'},
                  files={'bad.Kconfig': 'config A\n\tbool "a"\n\tselect\n'})
    envs = {'arm': kmake.conf_env(OUT / 'arm')}
    r = tool.run_sanitized(None, sc, OUT / 'arm' / 'scripts/kconfig/conf',
                           envs, tmp_path)
    assert r['problems'] == ['exit 1, expected 0']
    capsys.readouterr()
    tool.show_failures([r])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith('  FAIL bad: exit 1, expected 0 (')
    assert any(l.startswith('    | bad.Kconfig:3: syntax error') for l in out), out

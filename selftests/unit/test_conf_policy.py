# SPDX-License-Identifier: GPL-2.0
"""conf's report policy (kconfig.conf_result(), kconfig.verdict()): what
fails a configuration and why, from conf's output and its JSON report."""

from kbuildgate import kconfig

UNMET = {'unmet': [{'symbol': 'U', 'selected_by': [
    {'symbol': 'A', 'file': 'K', 'line': 3},
    {'symbol': 'B', 'file': 'K', 'line': 9}],
    'blocking': [{'expr': 'D', 'value': 'n'}], 'can_fix': True,
    'hint': ['D']}], 'dropped': []}
DROPPED = {'unmet': [], 'dropped': [
    {'symbol': 'S', 'requested': 'y', 'actual': 'n', 'kind': 'unmet',
     'file': 'f.config', 'line': 2, 'blocking': [], 'hint': []}]}
CLEAN = {'unmet': [], 'dropped': []}


def test_clean():
    res = kconfig.conf_result(0, 'make[1]: Entering\n', CLEAN)
    assert res['reason'] is None and res['reasons'] == []
    assert res['diagnostics'] == []


def test_unmet_counts_each_selector():
    out = 'K:3: warning: A [=y] selects U, whose direct dependencies ' \
        'are unmet\n'
    res = kconfig.conf_result(0, out, UNMET)
    assert res['unmet'] == 2 and res['reason'] == 'unmet select'
    assert res['diagnostics'] == [out.strip()]
    assert res['detail'] == '2 unmet select(s), 0 undefined symbol(s), ' \
        '0 dropped request(s)'


def test_syntax_error_has_its_location():
    out = 'b.Kconfig:4: syntax error\nb.Kconfig:4: invalid statement\n' \
        'make[2]: *** [allnoconfig] Error 1\n'
    res = kconfig.conf_result(2, out, None)
    assert res['reasons'] == ['syntax error']
    assert res['location'] == 'b.Kconfig:4'
    assert res['detail'] == 'b.Kconfig:4: syntax error'


def test_undefined_symbol():
    out = "b.Kconfig:5: warning: 'NOPE' is not defined by any Kconfig file\n"
    res = kconfig.conf_result(0, out, CLEAN)
    assert res['reason'] == 'undefined symbol'
    assert res['undefined'] == [{'location': 'b.Kconfig:5', 'symbol': 'NOPE',
                                 'message': out.strip()}]


def test_dropped_fails_only_when_asked():
    assert kconfig.conf_result(0, '', DROPPED)['reason'] == 'dropped request'
    res = kconfig.conf_result(0, '', DROPPED, fail_on_dropped=False)
    assert res['reason'] is None and res['dropped'] == 1


def test_conf_failure_without_a_line_is_configure():
    res = kconfig.conf_result(2, 'make[1]: x\n*** out of memory\n', None)
    assert res['reason'] == 'configure'
    assert res['detail'] == '*** out of memory'


def test_verdict_merges_reports_in_order():
    v = kconfig.verdict(0, [UNMET, DROPPED], [], '', fail_on_dropped=False)
    assert [u['symbol'] for u in v['unmet']] == ['U']
    assert [d['symbol'] for d in v['dropped']] == ['S']
    assert v['kinds'] == ['unmet select']
    assert v['reasons'][0] == 'unmet select: 2 unmet select(s), 0 ' \
        'undefined symbol(s), 1 dropped request(s)'
    v = kconfig.verdict(0, [CLEAN, DROPPED], [], '', fail_on_dropped=True)
    assert v['kinds'] == ['dropped request']


def test_verdict_input_warnings_are_dropped_requests():
    out = 'arch/arm/configs/x_defconfig:7:warning: override: FOO changes ' \
        'choice state\n'
    v = kconfig.verdict(0, [CLEAN], [], out, fail_on_dropped=False)
    assert v['kinds'] == [] and len(v['dropped']) == 1
    assert v['dropped'][0]['kind'] == 'overridden'
    assert v['dropped'][0]['symbol'] == 'FOO'
    assert kconfig.dropped_lines(v['dropped']) == [
        'arch/arm/configs/x_defconfig:7: override: FOO changes choice state '
        '(overridden)']


def test_verdict_missing_report_fails():
    v = kconfig.verdict(0, [], ['/o/report.json'], '', False)
    assert v['rc'] == 1 and v['kinds'] == ['configure']
    assert v['reasons'][-1] == 'kconfig wrote no JSON report ' \
        '(/o/report.json): is the series applied?'


def test_merge_reports():
    assert kconfig.merge_reports([UNMET, DROPPED]) == {
        'unmet': UNMET['unmet'], 'dropped': DROPPED['dropped']}

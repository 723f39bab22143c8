# SPDX-License-Identifier: GPL-2.0
"""One format: conf (through make), kconfig-gate and kconfig-fragment
check on the same fragments print the same diagnostic lines, conf's own,
and each tool one summary line that starts with its name; and every FAIL
in a JSON (kconfig-gate's, kconfig-fragment's, kautobuild's) has a reason.

The fragments: Torvalds's example (an unmet select), the same with the
typo "select USBB" (a symbol that no Kconfig file defines), a syntax
error (bad-input/syntax-error.Kconfig) and an ARM board with unmet
selects (examples/arm-qcom-unmet.Kconfig).
"""

import json
import re
import subprocess
import sys

import pytest

from conftest import EXAMPLES, PATCHED, TOP, kmake, tool_env

pytestmark = pytest.mark.usefixtures('trees')

BAD = TOP / 'selftests' / 'bad-input'
TOOLS = TOP / 'tools'

# conf's diagnostics, as the issue names them, written out here
# independently of kconfig.DIAGNOSTIC
CONF_LINE = re.compile(r'^\S+:\d+: (warning|note|error): |^\S+:\d+:warning: |'
                       r'^\S+:\d+: syntax error|'
                       r'^WARNING: unmet direct dependencies detected for ')

# name: (how to make it, its architecture, the reason of its FAIL)
CASES = {
    'torvalds-usb': ('unmet select', 'x86'),
    'torvalds-usbb': ('undefined symbol', 'x86'),
    'syntax-error': ('syntax error', 'x86'),
    'arm-qcom-unmet': ('unmet select', 'arm'),
}


@pytest.fixture(scope='module')
def fragments(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('one-format')
    usbb = tmp / 'torvalds-usbb.Kconfig'
    text = (EXAMPLES / 'torvalds-usb.Kconfig').read_text()
    assert '\tselect USB\n' in text
    usbb.write_text(text.replace('\tselect USB\n', '\tselect USBB\n'))
    return {'torvalds-usb': EXAMPLES / 'torvalds-usb.Kconfig',
            'torvalds-usbb': usbb,
            'syntax-error': BAD / 'syntax-error.Kconfig',
            'arm-qcom-unmet': EXAMPLES / 'arm-qcom-unmet.Kconfig'}


def run(*cmd):
    ps = subprocess.run([sys.executable] + [str(c) for c in cmd],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True, env=tool_env())
    print(ps.stdout)
    return ps


def conf_lines(fragment, arch, out):
    """conf's diagnostic lines, from make under KCONFIG_WERROR."""
    ps = kmake(PATCHED, out, 'allnoconfig', arch=arch,
               env={'KBUILD_KCONFIG': str(fragment), 'KCONFIG_WERROR': '1'})
    assert ps.returncode != 0, ps.stdout
    lines = [l for l in ps.stdout.splitlines() if CONF_LINE.match(l)]
    assert lines, ps.stdout
    return lines


def split(stdout, tool):
    """A tool's lines: those that are not its own, and its own."""
    lines = stdout.splitlines()
    return ([l for l in lines if not l.startswith(tool + ': ')],
            [l for l in lines if l.startswith(tool + ': ')])


# slow: three tools, each configuring in a fresh folder (over 10 s of CPU)
@pytest.mark.slow
@pytest.mark.parametrize('name', sorted(CASES))
def test_same_lines(fragments, tmp_path, name):
    reason, arch = CASES[name]
    frag = fragments[name]
    conf = conf_lines(frag, arch, tmp_path / 'conf')
    if reason == 'undefined symbol':
        assert conf == ["%s:9: warning: 'USBB' is not defined by any "
                        "Kconfig file: the select does nothing" % frag]
    if reason == 'syntax error':
        assert conf == ['%s:9: syntax error: invalid statement' % frag]
    if reason == 'unmet select':
        assert any(l.startswith('WARNING: unmet direct dependencies '
                                'detected for ') for l in conf)

    # kconfig-fragment check: conf's lines, then its summary
    ps = run(TOOLS / 'kconfig-fragment', 'check', '--srctree', PATCHED,
             '--arch', arch, '--json', tmp_path / 'fragment.json', frag)
    assert ps.returncode == 1, ps.stdout
    other, own = split(ps.stdout, 'kconfig-fragment')
    assert other == conf
    assert len(own) == 1 and ps.stdout.splitlines()[-1] == own[0]
    doc = json.loads((tmp_path / 'fragment.json').read_text())
    assert doc['reason'] == reason
    if reason == 'syntax error':
        assert own == ['kconfig-fragment: syntax error at %s:9' % frag]
        assert doc['location'] == '%s:9' % frag
    else:
        assert re.fullmatch(r'kconfig-fragment: \d+ unmet select\(s\), '
                            r'\d+ undefined symbol\(s\), \d+ dropped '
                            r'request\(s\)', own[0])

    # kconfig-gate: conf's lines, its verdict, its summary
    ps = run(TOOLS / 'kconfig-gate', '--srctree', PATCHED, '--arch', arch,
             '--out', tmp_path / 'gate', '--json', tmp_path / 'gate.json',
             frag)
    assert ps.returncode == 1, ps.stdout
    other, own = split(ps.stdout, 'kconfig-gate')
    assert other == conf
    assert own[-1] == 'kconfig-gate: 1 fragment(s), 0 passed, 1 failed'
    assert own[0].startswith('kconfig-gate: %s: FAIL (%s)' %
                             (frag.name.replace('.Kconfig', ''), reason))
    [r] = json.loads((tmp_path / 'gate.json').read_text())['fragments']
    assert r['status'] == 'FAIL' and r['reason'] == reason
    assert r['diagnostics'] == conf
    if reason == 'syntax error':
        assert r['location'] == '%s:9' % frag
        assert r['detail'] == conf[0]


def test_usbb_counts(fragments):
    """The typo is named, and counted, by check; fix refuses it."""
    frag = fragments['torvalds-usbb']
    ps = run(TOOLS / 'kconfig-fragment', 'check', '--srctree', PATCHED,
             '--arch', 'x86', frag)
    assert ps.returncode == 1
    assert ps.stdout.splitlines()[-1] == 'kconfig-fragment: 0 unmet ' \
        'select(s), 1 undefined symbol(s), 0 dropped request(s)'


def test_fix_refuses_undefined(fragments, tmp_path):
    frag = tmp_path / 'Mykconfig'
    frag.write_bytes(fragments['torvalds-usbb'].read_bytes())
    before = frag.read_bytes()
    ps = run(TOOLS / 'kconfig-fragment', 'fix', '--srctree', PATCHED,
             '--arch', 'x86', frag)
    assert ps.returncode == 1, ps.stdout
    assert "%s:9: warning: 'USBB' is not defined by any Kconfig file" % frag \
        in ps.stdout
    assert 'no select can define them' in ps.stdout
    assert 'left unchanged' in ps.stdout
    assert frag.read_bytes() == before


@pytest.mark.slow
def test_kautobuild_reasons(fragments, tmp_path):
    """kautobuild on the same fragments: each FAIL with its reason first,
    then conf's lines as they are."""
    ps = run(TOOLS / 'kautobuild', '--config-only', '--arch', 'x86',
             '--out', tmp_path / 'out', '--json', tmp_path / 'r.json',
             *fragments.values())
    assert ps.returncode == 1, ps.stdout
    doc = json.loads((tmp_path / 'r.json').read_text())
    got = {t['name']: t['steps']['configure'] for t in doc['targets']}
    for name, (reason, arch) in CASES.items():
        step = got[name]
        assert step['status'] == 'FAIL'
        assert step['reasons'][0] == reason
        assert step['reason'].startswith(reason + ': ')
        conf = conf_lines(fragments[name], arch, tmp_path / 'conf' / name)
        assert [l for l in step['reason'].splitlines()
                if CONF_LINE.match(l)] == conf
    assert got['syntax-error']['reason'].splitlines()[:2] == [
        'syntax error: %s:9' % fragments['syntax-error'],
        '%s:9: syntax error: invalid statement' % fragments['syntax-error']]
    assert got['syntax-error']['location'] == \
        '%s:9' % fragments['syntax-error']
    # every FAIL of every step has a reason
    for t in doc['targets']:
        for step in t['steps'].values():
            if step['status'] == 'FAIL':
                assert step.get('reason'), t

# SPDX-License-Identifier: GPL-2.0
"""tools/kconfig-audit: every select that some configuration can leave
unmet, found by PicoSAT and confirmed by conf.

selftests/audit/Kconfig has one construct per select, with the answer
known: true alarms (bool, a choice member, a comparison, a module, and a
tristate-only one that kismet's merged y/m cannot ask), selects that can
never be unmet (the selector's dependencies, the select's condition,
a bool target whose dependency is m), an imply, and a would-be alarm that only the encoding's free string
comparison allows, which conf must reject.  On the real ARM tree, it must
find the tree's real unmet select (REAL, one for each KERNEL_VERSION).
"""

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import KERNEL_VERSION, PATCHED, TOP
from kbuildgate import audit

pytestmark = pytest.mark.usefixtures('trees')

TOOL = str(TOP / 'tools' / 'kconfig-audit')
TREE = TOP / 'selftests' / 'audit' / 'Kconfig'


def run(tmp_path, *args):
    ps = subprocess.run([sys.executable, TOOL, '--srctree', str(PATCHED),
                         '--out', str(tmp_path / 'out'),
                         '--json', str(tmp_path / 'audit.json')] +
                        [str(a) for a in args],
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        text=True)
    print(ps.stdout, ps.stderr)
    doc = json.loads((tmp_path / 'audit.json').read_text()) \
        if (tmp_path / 'audit.json').is_file() else None
    return ps, doc


def line_of(text, sym):
    """The line of "select SYM" in selftests/audit/Kconfig."""
    for n, line in enumerate(TREE.read_text().splitlines(), 1):
        if line.strip() == 'select ' + sym or \
                line.strip().startswith('select %s ' % sym):
            return n
    raise KeyError(sym)


@pytest.fixture(scope='module')
def small(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('audit')
    return run(tmp, '--fragment', TREE, '--randconfigs', 60)


def test_small_tree_findings(small):
    ps, doc = small
    assert ps.returncode == 1
    found = {(f['selector'], f['target']): f for f in doc['findings']}
    assert sorted(found) == [('A', 'T'), ('CB', 'T8'), ('E', 'V'),
                             ('E2', 'T4'), ('W', 'T7')]
    for (sel, target), f in found.items():
        assert f['file'] == str(TREE)
        assert f['line'] == line_of(None, target)
        assert '%s:%d: warning: %s [=' % (TREE, f['line'], sel) in ps.stdout
    # conf's own diagnosis comes with each finding
    assert found[('A', 'T')]['blocking'] == [{'expr': 'B', 'value': 'n'}]
    assert found[('A', 'T')]['hint'] == ['B']
    # only E -> V needs m as a value of its own
    assert [k for k, f in found.items() if f['tristate_only']] == \
        [('E', 'V')]
    assert found[('E', 'V')]['depends_value'] == 'm'
    assert found[('E', 'V')]['level'] == 'y'


def test_small_tree_no_alarm(small):
    """C and G can never leave their target unmet, nor QA (conf makes
    m y in a bool's dependencies); an imply is not a select; the string comparison is rejected by conf, with its reason."""
    ps, doc = small
    assert doc['summary']['selects'] == 9
    assert doc['summary']['unsat'] == 3
    asked = {(c['selector'], c['target']) for c in
             doc['findings'] + doc['rejected']}
    assert ('C', 'T2') not in asked and ('G', 'T3') not in asked
    assert ('QA', 'QT') not in asked
    assert not any(c['target'] == 'T5' for c in doc['findings'])
    assert [(r['selector'], r['target']) for r in doc['rejected']] == \
        [('F', 'T6')]
    assert 'comparison that the encoding leaves free' in \
        doc['rejected'][0]['reason']
    assert doc['summary']['coarse'] == 1


def test_randconfig_sweep(small):
    """What 60 randconfigs hit, the audit found: nothing missed."""
    _, doc = small
    sweep = doc['randconfig_sweep']
    assert sweep['randconfigs'] == 60
    assert sweep['missed'] == []
    assert {(u['selector'], u['target']) for u in sweep['unmet']} <= \
        {(f['selector'], f['target']) for f in doc['findings']}
    assert len(sweep['unmet']) >= 3


def test_reproducers(small):
    """Each finding's .config makes the tree's conf warn, alone."""
    _, doc = small
    obj = audit.cache_dir(PATCHED.resolve(), 'arm') / 'obj'
    env = dict(os.environ, **audit.conf_env(obj))
    for f in doc['findings']:
        repro = Path(f['reproducer'])
        assert repro.is_file()
        cfg = repro.with_suffix('.out')
        cfg.write_bytes(repro.read_bytes())
        ps = subprocess.run([str(obj / 'scripts/kconfig/conf'),
                             '--olddefconfig', str(TREE)], cwd=repro.parent,
                            env=dict(env, KCONFIG_CONFIG=str(cfg)),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
        assert 'unmet direct dependencies detected for %s' % f['target'] \
            in ps.stdout, ps.stdout
        assert '%s [=%s] selects %s' % (f['selector'], f['level'],
                                         f['target']) in ps.stdout


def test_tree_stays_clean(small):
    """conf writes include/config/ where it runs: never in the tree."""
    assert not (PATCHED / 'include' / 'config').exists()
    assert not (PATCHED / '.config').exists()


def test_clean_tree(tmp_path):
    frag = tmp_path / 'clean.Kconfig'
    frag.write_text('config A\n\tbool "a"\n\tdepends on B\n\tselect T\n'
                    'config B\n\tbool "b"\n'
                    'config T\n\tbool\n\tdepends on B\n')
    ps, doc = run(tmp_path, '--fragment', frag)
    assert ps.returncode == 0
    assert doc['findings'] == [] and doc['summary']['unsat'] == 1


@pytest.mark.parametrize('text,message', [
    (None, 'no such file'),
    ('config A\n\tbool "a"\n\tselect\n', 'no answer'),
])
def test_bad_input(tmp_path, text, message):
    frag = tmp_path / 'bad.Kconfig'
    if text is not None:
        frag.write_text(text)
    ps, _ = run(tmp_path, '--fragment', frag)
    assert ps.returncode == 2
    assert message in ps.stderr
    assert 'Traceback' not in ps.stderr
    if text is not None:
        assert '%s:3: syntax error' % frag in ps.stderr


# A real unmet select of each tree, on ARM: (selector, target, file, line,
# blocking conjunct).  6.1's TEST_MAPLE_TREE selects DEBUG_MAPLE_TREE
# without its DEBUG_KERNEL (fixed upstream before 6.12); 6.12's ARM_GIC_V3
# selects HAVE_ARM_SMCCC_DISCOVERY, which depends on ARM_PSCI_FW.
REAL = {
    '6.1': ('TEST_MAPLE_TREE', 'DEBUG_MAPLE_TREE', 'lib/Kconfig.debug', 2270,
            'DEBUG_KERNEL'),
    '6.12': ('ARM_GIC_V3', 'HAVE_ARM_SMCCC_DISCOVERY',
             'drivers/irqchip/Kconfig', 40, 'ARM_PSCI_FW'),
}[KERNEL_VERSION]


def test_real_tree_finding(tmp_path):
    """The real unmet select of the tree under test, found and confirmed
    on the whole ARM tree."""
    selector, target, file, line, blocking = REAL
    ps, doc = run(tmp_path, '--only', selector)
    assert ps.returncode == 1
    [f] = doc['findings']
    assert (f['selector'], f['target']) == (selector, target)
    assert (f['file'], f['line']) == (file, line)
    assert f['blocking'] == [{'expr': blocking, 'value': 'n'}]
    assert doc['summary']['variables'] > 100000


def test_sibling_selects_both_found(tmp_path):
    """S selects X1 and X2, both under a menu that depends on M, which S
    does not: both selects are unmet with M off.  Neither is carried by
    assuming the other met (what S selects is not followed into its own
    dependencies), so both are found, as 6.1's two VIDEO_TM6000 tuners."""
    ps, doc = run(tmp_path, '--fragment', TREE.parent / 'Kconfig.siblings')
    assert ps.returncode == 1, ps.stderr
    assert sorted((f['selector'], f['target']) for f in doc['findings']) \
        == [('S', 'X1'), ('S', 'X2')]
    assert doc['summary']['carried'] == 0


def test_chains_that_do_not_carry(tmp_path):
    """A bool symbol of the condition over dependencies at m, and a
    symbol defined twice: neither carries the target's dependencies, and
    conf confirms both unmet selects."""
    ps, doc = run(tmp_path, '--fragment', TREE.parent / 'Kconfig.chains')
    assert ps.returncode == 1, ps.stderr
    assert sorted((f['selector'], f['target']) for f in doc['findings']) \
        == [('S1', 'T1'), ('S2', 'T2')]


def search_tree(path, choices=1000, glue=1500, selects=60, per=20, seed=7):
    """A Kconfig whose selects need PicoSAT's search (its random
    decisions), not propagation alone: choices, symbols that depend on
    their members, and selectors that depend on 20 of those."""
    rnd = random.Random(seed)

    def member():
        return ('!' if rnd.random() < 0.3 else '') + 'C%d_%d' % (
            rnd.randrange(choices), rnd.randrange(3))
    out = ['config MODULES\n\tbool "modules"\n\tmodules\n']
    for c in range(choices):
        out.append('choice\n\tprompt "c%d"\n' % c)
        out += ['config C%d_%d\n\tbool "m"\n' % (c, m) for m in range(3)]
        out.append('endchoice\n')
    for e in range(glue):
        out.append('config E%d\n\tbool "e"\n\tdepends on (%s || %s) && '
                   '(%s || %s)\n' % ((e,) + tuple(member() for _ in range(4))))
    for s in range(selects):
        deps = ' && '.join('E%d' % rnd.randrange(glue) for _ in range(per))
        out.append('config D%d\n\tbool "d"\n\nconfig T%d\n\tbool\n\t'
                   'depends on D%d\n\nconfig S%d\n\tbool "s"\n\t'
                   'depends on %s\n\tselect T%d\n' % (s, s, s, s, deps, s))
    path.write_text('\n'.join(out))


def test_jobs_give_the_same_output(tmp_path):
    """The C program's first pass in two processes (--jobs 2) prints the
    same lines, and writes the same models, as in one, on a tree where
    the models come from PicoSAT's search."""
    tool, _, env = audit.setup(PATCHED, 'arm', PATCHED)
    tree = tmp_path / 'Kconfig'
    search_tree(tree)
    outs = {}
    for jobs in (1, 2):
        work = tmp_path / str(jobs)
        work.mkdir()
        ps = subprocess.run([tool, '--out', str(work), '--jobs', str(jobs),
                             str(tree)], cwd=work, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
        assert ps.returncode == 1, ps.stderr
        lines = ps.stdout.splitlines()
        # the summary's seconds aside
        summary = lines[-1].split()
        outs[jobs] = (lines[:-1], summary[:7] + summary[8:],
                      {p.name: p.read_text() for p in work.glob('cand-*')})
    assert outs[1] == outs[2]
    assert len(outs[1][2]) == 60 and any(l.startswith('q ') for l in outs[1][0])

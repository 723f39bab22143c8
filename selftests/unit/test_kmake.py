# SPDX-License-Identifier: GPL-2.0
"""kmake, the one layer that runs the kernel's make and conf: its command
line, its environment policy, werror, and the checks of the tree and the
architecture.  No kernel tree: a fake one, and a fake make on PATH that
records what it was given."""

import json
import os
import stat

import pytest

from kbuildgate import kmake
from kbuildgate.errors import SetupError, UsageError


def test_command_line():
    assert kmake.command('/t', '/o', 'arm', 'allnoconfig', jobs=4,
                         quiet=True) == [
        'make', '-s', '-C', '/t', 'O=/o', 'ARCH=arm',
        'CROSS_COMPILE=arm-linux-gnueabi-', '-j4', 'allnoconfig']
    assert kmake.command('/t', '/o', 'x86', 'C=1', 'bzImage') == [
        'make', '-C', '/t', 'O=/o', 'ARCH=x86', 'C=1', 'bzImage']


def test_environment_policy():
    base = {'PATH': '/bin', 'HOME': '/h', 'KCONFIG_WERROR': '1',
            'KCONFIG_ALLCONFIG': 'x', 'KCONFIG_SEED': '3', 'ARCH': 'mips',
            'CROSS_COMPILE': 'x-', 'LLVM': '1', 'MAKEFLAGS': '-j9',
            'KBUILD_KCONFIG': 'K', 'O': '/elsewhere', 'srctree': '/s'}
    assert kmake.environment(base) == {'PATH': '/bin', 'HOME': '/h'}
    env = kmake.environment(base, {'KCONFIG_SEED': '7'}, werror=True,
                            report='/r.json', kconfig='/f', allconfig='/a')
    assert env == {'PATH': '/bin', 'HOME': '/h', 'KCONFIG_WERROR': '1',
                   'KCONFIG_UNMET_REPORT': '/r.json', 'KBUILD_KCONFIG': '/f',
                   'KCONFIG_ALLCONFIG': '/a', 'KCONFIG_SEED': '7'}
    assert base['KCONFIG_WERROR'] == '1'        # not changed


def fake_tree(tmp_path):
    tree = tmp_path / 'tree'
    (tree / 'scripts' / 'kconfig').mkdir(parents=True)
    (tree / 'scripts' / 'kconfig' / 'conf.c').write_text(
        'getenv("KCONFIG_UNMET_REPORT");\n')
    (tree / 'arch' / 'x86').mkdir(parents=True)
    (tree / 'arch' / 'x86' / 'Kconfig').write_text('config X86\n')
    return tree


def test_check_tree_and_arch(tmp_path):
    tree = fake_tree(tmp_path)
    kmake.check_tree(tree, series=True)
    kmake.check_arch(tree, 'x86')
    kmake.check_arch(tree, 'x86_64')            # the kernel's SRCARCH
    with pytest.raises(UsageError) as e:
        kmake.check_arch(tree, 'nosuch')
    assert str(e.value) == '--arch nosuch: arch/nosuch/Kconfig is not in ' \
        'the tree %s' % tree
    for bad in ('', '../x86', '..'):
        with pytest.raises(UsageError):
            kmake.check_arch(tree, bad)
    with pytest.raises(UsageError, match='is not a kernel tree'):
        kmake.check_tree(tmp_path)
    (tree / 'scripts' / 'kconfig' / 'conf.c').write_text('int main;\n')
    with pytest.raises(UsageError, match='does not carry the series'):
        kmake.check_tree(tree, series=True)


def test_conf_env(tmp_path):
    d = tmp_path / 'include' / 'config'
    d.mkdir(parents=True)
    (d / 'auto.conf.cmd').write_text(
        'deps_config := \\\n\tKconfig\n'
        'ifneq "$(srctree)" "/t"\ninclude/config/auto.conf: FORCE\nendif\n'
        'ifneq "$(ARCH)" "arm"\nendif\nifneq "$(SRCARCH)" "arm"\nendif\n'
        'ifneq "$(CC)" "arm-linux-gnueabi-gcc"\nendif\n')
    assert kmake.conf_env(tmp_path) == {
        'srctree': '/t', 'ARCH': 'arm', 'SRCARCH': 'arm',
        'CC': 'arm-linux-gnueabi-gcc'}
    (d / 'auto.conf.cmd').write_text('ifneq "$(ARCH)" "arm"\nendif\n')
    with pytest.raises(SetupError, match='did not record srctree'):
        kmake.conf_env(tmp_path)


# A make that records its arguments and the KCONFIG_* of its environment,
# and writes a report, as conf does; it fails like the series' conf under
# KCONFIG_WERROR when the report has an unmet select
FAKE_MAKE = r'''#!/bin/sh
env | grep '^KCONFIG_\|^KBUILD_KCONFIG' | sort > "$FAKE_OUT/env"
echo "$@" > "$FAKE_OUT/args"
cat "$FAKE_OUT/report" > "$KCONFIG_UNMET_REPORT"
echo "Kconfig.board:3: warning: B [=y] selects U, whose direct dependencies are unmet"
if [ -n "$KCONFIG_WERROR" ]; then
	echo "*** KCONFIG_WERROR is set: the configuration was not written."
	exit 1
fi
'''


@pytest.fixture
def fake_make(tmp_path, monkeypatch):
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    make = bindir / 'make'
    make.write_text(FAKE_MAKE)
    make.chmod(make.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv('PATH', '%s:%s' % (bindir, os.environ['PATH']))
    monkeypatch.setenv('FAKE_OUT', str(tmp_path))
    # what a caller's shell may have: none of it reaches make
    monkeypatch.setenv('KCONFIG_WERROR', '1')
    monkeypatch.setenv('KCONFIG_ALLCONFIG', '/stale')
    (tmp_path / 'report').write_text(json.dumps({'unmet': [
        {'symbol': 'U', 'selected_by': [{'symbol': 'B', 'file':
                                         'Kconfig.board', 'line': 3}]}],
        'dropped': []}))
    return tmp_path


@pytest.mark.parametrize('werror', [True, False])
def test_configure_werror_is_a_parameter(fake_make, werror):
    """werror decides KCONFIG_WERROR, whatever the caller's environment
    holds: the bug of issue 36 (import --check without it) cannot come
    back through the environment."""
    out = fake_make / 'out'
    res = kmake.configure('/t', str(out), 'x86', werror=werror,
                          kconfig='/frag')
    env = (fake_make / 'env').read_text().splitlines()
    assert env == sorted(
        ['KBUILD_KCONFIG=/frag',
         'KCONFIG_UNMET_REPORT=%s' % (out / 'kconfig-report.json')] +
        (['KCONFIG_WERROR=1'] if werror else []))
    assert (fake_make / 'args').read_text().split() == [
        '-s', '-C', '/t', 'O=%s' % out, 'ARCH=x86', 'allnoconfig']
    assert res['returncode'] == (1 if werror else 0)
    assert res['reason'] == 'unmet select' and res['unmet'] == 1
    assert res['report_file'] == str(out / 'kconfig-report.json')


def test_fragment_base(fake_make, tmp_path):
    """A fragment's "# kconfig-base:" comment, among its first comment
    lines, is the target that configures it; allnoconfig without one;
    a misspelled base is a FILE:LINE error."""
    frag = tmp_path / 'Kconfig.b'
    frag.write_text('# b: by "kconfig-fragment import"; do not edit\n'
                    '# kconfig-base: alldefconfig (the tree\'s defaults '
                    'stand)\nsource "Kconfig"\n')
    assert kmake.fragment_base(str(frag)) == 'alldefconfig'
    kmake.configure('/t', str(fake_make / 'out'), 'x86', werror=False,
                    kconfig=str(frag))
    assert (fake_make / 'args').read_text().split()[-1] == 'alldefconfig'
    # an explicit target wins
    kmake.configure('/t', str(fake_make / 'out'), 'x86', 'allnoconfig',
                    werror=False, kconfig=str(frag))
    assert (fake_make / 'args').read_text().split()[-1] == 'allnoconfig'
    # only the comment lines before the first line of Kconfig count
    frag.write_text('source "Kconfig"\n# kconfig-base: alldefconfig\n')
    assert kmake.fragment_base(str(frag)) == 'allnoconfig'
    assert kmake.fragment_base(str(tmp_path / 'missing')) == 'allnoconfig'
    frag.write_text('# x\n# kconfig-base: alldefconfg\n')
    with pytest.raises(UsageError) as e:
        kmake.fragment_base(str(frag))
    assert str(e.value).startswith('%s:2: kconfig-base alldefconfg is not '
                                   'one of allnoconfig, alldefconfig' % frag)


def test_configure_without_report(fake_make):
    (fake_make / 'report').write_text('{"unmet": [')       # half written
    res = kmake.configure('/t', str(fake_make / 'out'), 'x86', werror=False)
    assert res['report'] is None and res['report_file'] is None


def test_configure_needs_werror():
    with pytest.raises(TypeError):
        kmake.configure('/t', '/o', 'x86')          # pylint: disable=E1125

# SPDX-License-Identifier: GPL-2.0
"""Every tool answers --version and --help, and its --help describes every
option: a user who runs a tool without reading the docs first finds out
what it does from the tool itself."""

import os
import re
import subprocess

import pytest

from conftest import TOP

pytestmark = pytest.mark.usefixtures('trees')

TOOLS = sorted(p.name for p in (TOP / 'tools').iterdir()
               if p.is_file() and os.access(p, os.X_OK))


def run(*args):
    return subprocess.run([str(TOP / 'tools' / args[0])] + list(args[1:]),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=60)


def test_tools_found():
    assert {'kconfig-gate', 'kconfig-fragment', 'kautobuild',
            'kconfig-diffharness', 'kernel-tree'} <= set(TOOLS)


@pytest.mark.parametrize('tool', TOOLS)
def test_version(tool):
    ps = run(tool, '--version')
    assert ps.returncode == 0, ps.stdout
    assert re.fullmatch(r'%s \S+\n' % re.escape(tool), ps.stdout), ps.stdout


@pytest.mark.parametrize('tool', TOOLS)
def test_help_describes_every_option(tool):
    ps = run(tool, '--help')
    assert ps.returncode == 0, ps.stdout
    lines = ps.stdout.splitlines()
    # argparse: in the options section, an option has its text beside it
    # or on the next, more deeply indented, line
    section = None
    for i, line in enumerate(lines):
        if re.match(r'^\S.*:$', line):
            section = line
            continue
        m = re.match(r'^(  )(-\S.*?)(?:  +(\S.*))?$', line)
        if section not in ('options:', 'optional arguments:') or not m or \
                m.group(3):
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ''
        indent = len(nxt) - len(nxt.lstrip())
        assert nxt.strip() and indent > len(m.group(1)), \
            '%s: %s has no help text' % (tool, m.group(2))


# Each tool that takes --arch checks it against the tree (kmake.check_arch())
# before it runs anything: one line naming it, exit 2; no traceback, no
# make errors, no "configure failed".
ARCH_COMMANDS = {
    'kconfig-fragment check': ['kconfig-fragment', 'check', '--arch',
                               'nosuch', '--srctree', '{tree}',
                               '{fragment}'],
    'kconfig-fragment fix': ['kconfig-fragment', 'fix', '--arch', 'nosuch',
                             '--srctree', '{tree}', '{fragment}'],
    'kconfig-fragment import': ['kconfig-fragment', 'import', '--arch',
                                'nosuch', '--srctree', '{tree}', '--out',
                                '{tmp}/import', '--check'],
    'kconfig-audit': ['kconfig-audit', '--arch', 'nosuch', '--srctree',
                      '{tree}', '--out', '{tmp}/audit'],
    'kconfig-gate': ['kconfig-gate', '--arch', 'nosuch', '--srctree',
                     '{tree}', '--out', '{tmp}/gate', '{fragment}'],
    'kautobuild': ['kautobuild', '--arch', 'nosuch', '--srctree', '{tree}',
                   '--out', '{tmp}/kautobuild', '--config-only'],
}


@pytest.mark.parametrize('name', sorted(ARCH_COMMANDS))
def test_unknown_arch_is_one_line(name, tmp_path):
    from conftest import EXAMPLES, PATCHED, tool_env
    args = [a.format(tree=PATCHED, tmp=tmp_path,
                     fragment=EXAMPLES / 'torvalds-usb.Kconfig')
            for a in ARCH_COMMANDS[name]]
    ps = subprocess.run([str(TOP / 'tools' / args[0])] + args[1:],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True, timeout=120, env=tool_env())
    assert ps.returncode == 2, ps.stdout
    assert ps.stdout.splitlines() == [
        '%s: --arch nosuch: arch/nosuch/Kconfig is not in the tree %s' % (
            args[0], PATCHED)], ps.stdout

# SPDX-License-Identifier: GPL-2.0
"""docs/design.md's table of the modules of tools/kbuildgate/ is the
code's: one row per module, in order, with the first sentence of its
docstring.  When it fails, paste the table it prints into the
document."""

import ast
import re
from pathlib import Path

TOP = Path(__file__).resolve().parents[2]
PACKAGE = TOP / 'tools' / 'kbuildgate'
DESIGN = TOP / 'docs' / 'design.md'
HEAD = '| module | what it owns (its docstring) |'


def first_sentence(path):
    """The first sentence of the docstring of @path, its name left out."""
    doc = ast.get_docstring(ast.parse(path.read_text()))
    para = ' '.join(doc.split('\n\n')[0].split())
    para = re.sub(r'^[\w-]+ - ', '', para)
    m = re.match(r'(.*?\.)(?:\s|$)', para)
    return (m.group(1) if m else para).replace('|', '\\|')


def table():
    """The table, from the code."""
    rows = [HEAD, '|---|---|']
    for p in sorted(PACKAGE.glob('*.py')):
        if p.name != '__init__.py':
            rows.append('| `%s` | %s |' % (p.name, first_sentence(p)))
    return '\n'.join(rows) + '\n'


def test_module_table_is_the_code():
    text = DESIGN.read_text()
    assert HEAD in text, 'docs/design.md has no module table'
    start = text.index(HEAD)
    end = text.index('\n\n', start) + 1
    assert text[start:end] == table(), 'docs/design.md should have:\n' + \
        table()


def test_every_module_has_a_docstring():
    for p in sorted(PACKAGE.glob('*.py')):
        assert ast.get_docstring(ast.parse(p.read_text())), p.name

# SPDX-License-Identifier: GPL-2.0
"""Every public function, class and method of tools/kbuildgate/ has a
docstring that says what it does, with what arguments, and what it
returns or raises (Kconfiglib's API documentation is the model): the
package is read with ast, nothing of it is imported or run.

Public: a name that does not start with an underscore, at the top of
a module or in a public class; __init__ and __call__ count too (they
say what the arguments are and what a call does).  Functions nested in
a function are its own business."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / 'tools' / 'kbuildgate'
DUNDERS = ('__init__', '__call__')


def public(body, prefix=''):
    """The public functions, classes and methods among the statements
    @body: [(qualified name, node)], a class's methods after it."""
    found = []
    for node in body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                 ast.ClassDef)):
            continue
        if node.name.startswith('_') and node.name not in DUNDERS:
            continue
        found.append((prefix + node.name, node))
        if isinstance(node, ast.ClassDef):
            found += public(node.body, prefix + node.name + '.')
    return found


def undocumented():
    """'MODULE:LINE NAME' of each public definition without a
    docstring, over every module of the package."""
    missing = []
    for path in sorted(PACKAGE.glob('*.py')):
        for name, node in public(ast.parse(path.read_text()).body):
            if not ast.get_docstring(node):
                missing.append('%s:%d %s' % (path.name, node.lineno, name))
    return missing


def test_public_finds_methods():
    tree = ast.parse('class A:\n    def f(self):\n        pass\n'
                     '    def _g(self):\n        pass\n'
                     'def _h():\n    pass\n')
    assert [n for n, _ in public(tree.body)] == ['A', 'A.f']


def test_every_public_definition_has_a_docstring():
    assert len(list(PACKAGE.glob('*.py'))) > 20
    missing = undocumented()
    assert not missing, 'no docstring:\n' + '\n'.join(missing)

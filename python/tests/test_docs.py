"""The examples in the docstrings of irinorm and its type stubs run."""

import ast
import doctest
from pathlib import Path

import pytest

import irinorm

STUBS = Path(irinorm.__file__).with_name("_irinorm.pyi")


def _stub_docstrings():
    tree = ast.parse(STUBS.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)):
            doc = ast.get_docstring(node, clean=True)
            if doc and ">>>" in doc:
                yield getattr(node, "name", "<module>"), doc, node


DOCS = list(_stub_docstrings())


def _run(name, doc, lineno):
    globs = dict(vars(irinorm))
    test = doctest.DocTestParser().get_doctest(doc, globs, name, str(STUBS), lineno)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, f"{runner.failures} failing example(s) in {name}"
    return runner.tries


@pytest.mark.parametrize("name,doc,node", DOCS, ids=[d[0] for d in DOCS])
def test_stub_examples(name, doc, node):
    assert _run(name, doc, getattr(node, "lineno", 0)) > 0


def test_module_examples():
    failures, tries = doctest.testmod(irinorm, optionflags=doctest.ELLIPSIS)
    assert tries > 0 and failures == 0


def test_stubs_cover_the_native_module():
    tree = ast.parse(STUBS.read_text(encoding="utf-8"))
    names = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    exported = set(irinorm.__all__) - {"FORMS", "LEVELS", "MODES"}
    assert exported <= names

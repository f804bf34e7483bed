"""The examples in the docstrings of rlmlib.checkers, rlmlib.pnorm and RLMClassifier run and
print what they show, and every public function of those modules has the numpydoc sections
(Parameters, Returns, Examples)."""
import doctest
import inspect

import pytest

import rlmlib.checkers
import rlmlib.estimators
import rlmlib.pnorm


@pytest.mark.parametrize("module", [rlmlib.checkers, rlmlib.pnorm, rlmlib.estimators])
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result


@pytest.mark.parametrize("module", [rlmlib.checkers, rlmlib.pnorm])
def test_public_functions_have_numpydoc_sections(module):
    for name, f in inspect.getmembers(module, inspect.isfunction):
        if name.startswith("_") or f.__module__ != module.__name__:
            continue
        doc = inspect.getdoc(f) or ""
        for section in ("Parameters", "Returns", "Examples"):
            assert f"{section}\n----" in doc, (name, section)

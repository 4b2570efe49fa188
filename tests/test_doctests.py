"""The Examples of the re-exported names of theorylab.psa, graded, plga, nn and sweep, and docs/from-python.md,
run as doctests (ELLIPSIS, NORMALIZE_WHITESPACE; the examples print rounded values, never
machine-dependent digits). An example that needs an optional extra (pandas, xarray) is skipped without it."""
from __future__ import annotations

import doctest
import importlib
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("theorylab.psa", "theorylab.graded", "theorylab.plga", "theorylab.nn", "theorylab.sweep")
# packages every re-exported function of which carries examples
COMPLETE = PACKAGES
# an example calling one of these needs the optional extra named
OPTIONAL = {".to_frame(": "pandas", ".to_dataset(": "xarray"}
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
# the entry points each package's docstring names: these must carry examples
ENTRY_POINTS = {
    "theorylab.psa": ("gamma_c", "annealed_gamma_c", "exact_gamma_c", "exact_mass", "mc_gamma_c", "simulate_mass",
                      "measure", "score_model", "crossover_dk", "t4_band", "condensed_gamma_c", "compare_grid"),
    "theorylab.graded": ("Lambda", "optimal_grades", "table3_row", "window"),
    "theorylab.plga": ("init_params", "g_lm", "notears_h", "perron_frobenius"),
}


def _tests() -> dict[str, doctest.DocTest]:
    finder, out = doctest.DocTestFinder(exclude_empty=True), {}
    for package in PACKAGES:
        pkg = importlib.import_module(package)
        for name in pkg.__all__:
            obj = getattr(pkg, name)
            if not callable(obj) or getattr(obj, "__module__", "").split(".")[0] != "theorylab":
                continue
            for test in finder.find(obj, f"{package}.{name}", globs={}):
                if test.examples:
                    out.setdefault(test.name, test)
    return out


TESTS = _tests()


@pytest.mark.parametrize("name", sorted(TESTS))
def test_docstring_examples(name):
    test = TESTS[name]
    for call, module in OPTIONAL.items():
        if any(call in example.source for example in test.examples):
            pytest.importorskip(module, reason=f"{name}'s example needs the optional extra theorylab[{module}]")
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    with np.printoptions(legacy=False):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed (output above)"


@pytest.mark.parametrize("package", sorted(ENTRY_POINTS))
def test_entry_points_have_examples(package):
    missing = [n for n in ENTRY_POINTS[package] if f"{package}.{n}" not in TESTS]
    assert not missing, f"{package}: no Examples in {missing}"


@pytest.mark.parametrize("package", COMPLETE)
def test_every_function_has_examples(package):
    pkg = importlib.import_module(package)
    functions = [n for n in pkg.__all__ if inspect.isfunction(getattr(pkg, n))]
    missing = [n for n in functions if f"{package}.{n}" not in TESTS]
    assert len(functions) > 20 and not missing, f"{package}: no Examples in {missing}"


def test_entry_point_examples_cite_a_paper_section():
    """The papers' entry points say which section their example reproduces (helpers and the sweep engine
    need not: they compute no claim of their own)."""
    cited = re.compile(r"§|Prop\. |Table \d|Theorem \d|Lemma \d|Cor\. \d|eqs?\. \d")
    entries = [f"{package}.{n}" for package, names in ENTRY_POINTS.items() for n in names]
    uncited = [name for name in entries if not cited.search(TESTS[name].docstring)]
    assert not uncited, f"examples citing no paper section: {uncited}"


def test_from_python_walkthrough():
    pytest.importorskip("pandas", reason="docs/from-python.md reads tables with pandas (the extra theorylab[pandas])")
    result = doctest.testfile(str(ROOT / "docs" / "from-python.md"), module_relative=False, optionflags=FLAGS,
                              verbose=False, report=True)
    assert result.attempted > 10 and result.failed == 0

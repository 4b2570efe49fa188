"""The ``planted`` marker: tests that run certificates on a copy of the library with a bug planted in it.

Each such run is a certify run on a copy (a fresh interpreter of 2-3 s, or a fork of a warm worker
for the tables of tests/planted/), so the default run leaves them out (``addopts`` in pyproject.toml:
``-m 'not slow and not planted'``) and CI runs them once, as their own step
(``python -m pytest -q -p no:cacheprovider -m 'planted and not slow'``). tests/test_planted_bugs.py, which
runs the tables, carries the marker itself; any other test is marked by what it calls -- a function of
the planting harness (:mod:`theorylab.mutation.planting`, re-exported with ``assert_caught`` and
``run_bug`` by tests/planted/), directly, through a function of its own module or through a fixture --
not by the name of its file. A test that plants through the command line (``theorylab mutate``) carries
the marker itself.
"""
from __future__ import annotations

import types

import planted
import pytest

from theorylab.mutation import planting

HARNESS = (planted, planting, planted.assert_caught, planted.run_bug, planting.certify_with_bug, planting.plant,
           planting.run_certify, planting.copy_library)
"""What a planted-bug test reaches: the two modules (``planted.certify_with_bug``) and their entry points."""


def _codes(code: types.CodeType):
    """A code object and the ones nested in it (lambdas, comprehensions, inner functions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def reaches_harness(fn, seen: set | None = None) -> bool:
    """Whether ``fn`` names a harness function or module, itself or through functions of its own module."""
    code, namespace = getattr(fn, "__code__", None), getattr(fn, "__globals__", None)
    seen = set() if seen is None else seen
    if code is None or namespace is None or code in seen:
        return False
    seen.add(code)
    for inner in _codes(code):
        for name in inner.co_names:
            obj = namespace.get(name)
            if any(obj is h for h in HARNESS):
                return True
            if isinstance(obj, types.FunctionType) and obj.__module__ == fn.__module__ and reaches_harness(obj, seen):
                return True
    return False


def _fixture_functions(item):
    info = getattr(item, "_fixtureinfo", None)
    for defs in (info.name2fixturedefs.values() if info is not None else ()):
        for fixturedef in defs:
            yield fixturedef.func


def pytest_collection_modifyitems(config, items):
    for item in items:
        fn = getattr(item, "function", None)
        if fn is not None and (reaches_harness(fn) or any(reaches_harness(f) for f in _fixture_functions(item))):
            item.add_marker(pytest.mark.planted)

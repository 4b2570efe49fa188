"""Per-certificate line coverage of the library (coverage.py dynamic contexts; used by ``theorylab mutate``).

Every certificate is run once under coverage.py (``coverage>=7``, the ``mutation`` extra), with the
certificate's id as the dynamic context, and for the files below one root (the library copy:
``theorylab/`` and ``certificates/``) the run yields:

* ``lines[cert][file]``: the lines of function bodies executed while the certificate ran;
* ``touched[cert]``: every file with a line executed while it ran (also module bodies: lazy imports);
* ``import_lines[file]``: lines of function bodies executed while a module of the root was being
  imported (a table built at import time serves every later certificate, so a mutant there is
  attributed by file, not by line).

Imports are told apart by the context too: the loader of the root's modules switches to
``CERT|import`` for the time the module body runs (``<setup>`` before the first certificate).
Module-level lines, which only run on import, are kept out of ``lines`` and ``import_lines`` by
the source: a line counts as a function line when it lies in the body of a ``def`` and not on its
header (:func:`function_lines`).

Numba-compiled code runs no Python frames, so coverage.py cannot see it:

* ``kernels[cert]``: the entry kernels (Numba functions called from Python, found by
  :mod:`theorylab.mutation.callgraph`) the certificate called -- each is wrapped, for this run
  only, in a recorder wherever a module or a module-level dict holds it. An entry kernel that
  compiled code also calls cannot be wrapped (Numba would see the wrapper): it is listed in
  ``unwrapped`` and attributed by file.

Run as ``python -m theorylab.mutation.linecov ROOT OUT.json`` in a fresh interpreter
whose ``theorylab`` is the copy under ROOT.
"""
from __future__ import annotations

import ast
import json
import os
import sys
from collections import defaultdict

SETUP = "<setup>"
"""Context of what runs before the first certificate (discovery, the imports it makes)."""
IMPORT = "|import"
"""Suffix of the context in which the body of a module of the root runs."""
INSTALL_HINT = "theorylab mutate needs coverage.py (coverage>=7): pip install -e '.[mutation]'"


class Recorder:
    """The running certificate and the entry kernels each certificate called, for files below ``root``."""

    def __init__(self, root: str):
        self.root = os.path.realpath(root) + os.sep
        self.current: str | None = None
        self.kernels: dict = defaultdict(set)
        self._names: dict[str, str | None] = {}

    def _rel(self, filename: str) -> str | None:
        rel = self._names.get(filename, 0)
        if rel == 0:
            real = os.path.realpath(filename) if filename and not filename.startswith("<") else ""
            rel = real[len(self.root):].replace(os.sep, "/") if real.startswith(self.root) else None
            self._names[filename] = rel
        return rel


class _Kernel:
    """Stands in for an entry kernel: notes the running certificate, then calls the kernel."""

    def __init__(self, kernel, key: str, recorder: Recorder):
        self._kernel, self._key, self._recorder = kernel, key, recorder

    def __call__(self, *args, **kwargs):
        if self._recorder.current is not None:
            self._recorder.kernels[self._recorder.current].add(self._key)
        return self._kernel(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._kernel, name)


def wrap_entry_kernels(root: str, recorder: Recorder) -> list[str]:
    """Wrap every wrappable entry kernel of the library under ``root``; return the unwrappable ones."""
    import importlib

    from theorylab.mutation.callgraph import analyse, module_name

    analysis = analyse(root)
    unwrapped = []
    for file, name in sorted(analysis.entries()):
        key = f"{file}:{name}"
        if "." in name or any(u.numba for u in analysis.uses.get((file, name), ())):
            unwrapped.append(key)
            continue
        kernel = getattr(importlib.import_module(module_name(file)), name)
        stand_in = _Kernel(kernel, key, recorder)
        for module in list(sys.modules.values()):
            if recorder._rel(getattr(module, "__file__", None) or "") is None:
                continue
            for attr, value in list(vars(module).items()):
                if value is kernel:
                    setattr(module, attr, stand_in)
                elif isinstance(value, dict):
                    for k, v in list(value.items()):
                        if v is kernel:
                            value[k] = stand_in
    return unwrapped


def function_lines(source: str) -> set[int]:
    """Lines of ``source`` in a function body that no module or class body runs: the body lines of every
    ``def``, less the line a module- or class-level ``def`` shares with its signature (``def f(): return 1``,
    whose header runs on import)."""
    tree = ast.parse(source)
    defs = (ast.FunctionDef, ast.AsyncFunctionDef)
    inside = {ln for f in ast.walk(tree) if isinstance(f, defs) for ln in range(f.body[0].lineno, f.end_lineno + 1)}
    todo, shared = list(tree.body), set()
    while todo:                      # module and class bodies (not the insides of functions)
        stmt = todo.pop()
        if isinstance(stmt, defs):
            signature = [n.end_lineno for n in ast.walk(stmt.args) if hasattr(n, "end_lineno")]
            if stmt.body[0].lineno <= max(signature + [stmt.returns.end_lineno if stmt.returns else stmt.lineno]):
                shared.add(stmt.body[0].lineno)
        else:
            todo += [s for s in ast.iter_child_nodes(stmt) if isinstance(s, ast.stmt)]
    return inside - shared


class _ImportContexts:
    """Switches coverage.py to the context ``CERT|import`` while a module of the root is executed."""

    def __init__(self, cov, recorder: Recorder):
        from importlib.machinery import SourceFileLoader

        self.cov, self.recorder, self.depth = cov, recorder, 0
        self.cls, self.original = SourceFileLoader, SourceFileLoader.exec_module
        contexts = self

        def exec_module(loader, module):
            if contexts.depth or recorder._rel(getattr(loader, "path", "") or "") is None:
                return contexts.original(loader, module)
            contexts.depth += 1
            cov.switch_context((recorder.current or SETUP) + IMPORT)
            try:
                return contexts.original(loader, module)
            finally:
                contexts.depth -= 1
                cov.switch_context(recorder.current or SETUP)

        self.cls.exec_module = exec_module

    def close(self) -> None:
        self.cls.exec_module = self.original


def _maps(data, recorder: Recorder) -> dict:
    """``lines``, ``touched``, ``import_lines`` (module docstring) from coverage.py's data."""
    lines: dict = defaultdict(lambda: defaultdict(set))
    touched: dict = defaultdict(set)
    import_lines: dict = defaultdict(set)
    for path in data.measured_files():
        rel = recorder._rel(path)
        if rel is None:
            continue
        with open(path, encoding="utf-8") as fh:
            in_functions = function_lines(fh.read())
        for line, contexts in data.contexts_by_lineno(path).items():
            for context in contexts:
                cert, importing = context.removesuffix(IMPORT), context.endswith(IMPORT)
                if importing and line in in_functions:
                    import_lines[rel].add(line)
                if cert in (SETUP, ""):
                    continue
                touched[cert].add(rel)
                if line in in_functions:
                    lines[cert][rel].add(line)
    return {"lines": {c: {f: sorted(ls) for f, ls in files.items()} for c, files in lines.items()},
            "touched": {c: sorted(fs) for c, fs in touched.items()},
            "import_lines": {f: sorted(ls) for f, ls in import_lines.items()}}


def measure(root: str, only: list[str] | None = None) -> dict:
    """Run the registered certificates (or ``only``) under coverage.py; also their status."""
    try:
        import coverage
    except ModuleNotFoundError:
        raise SystemExit(INSTALL_HINT) from None
    recorder = Recorder(root)
    cov = coverage.Coverage(data_file=None, config_file=False, branch=False, source=[recorder.root],
                            omit=[recorder.root + "theorylab/mutation/*"])      # the harness itself
    cov.start()
    cov.switch_context(SETUP)
    imports = _ImportContexts(cov, recorder)
    try:
        from theorylab.certify import run_one, select

        status = {}
        specs = select(only, exact=True)
        unwrapped = wrap_entry_kernels(root, recorder)
        for spec in specs:
            recorder.current = spec.id
            cov.switch_context(spec.id)
            status[spec.id] = run_one(spec).status
            recorder.current = None
            cov.switch_context(SETUP)
    finally:
        imports.close()
        cov.stop()
    return {**_maps(cov.get_data(), recorder), "kernels": {c: sorted(ks) for c, ks in recorder.kernels.items()},
            "status": status, "unwrapped": unwrapped}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    root, out, only = argv[0], argv[1], argv[2:] or None
    result = measure(root, only)
    with open(out, "w") as fh:
        json.dump(result, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())

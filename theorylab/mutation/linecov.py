"""Per-certificate line coverage of the library (stdlib ``sys.settrace``; used by ``theorylab mutate``).

Every certificate is run once under a tracer that records, for the files below one root
(the library copy: ``theorylab/`` and ``certificates/``):

* ``lines[cert][file]``: the lines executed in function frames while the certificate ran;
* ``touched[cert]``: every file with a frame of any kind (also module bodies: lazy imports);
* ``import_lines[file]``: lines executed in function frames while a module of the root was
  being imported (a table built at import time serves every later certificate, so a mutant
  there is attributed by file, not by line).

and, because Numba-compiled code runs no Python frames,

* ``kernels[cert]``: the entry kernels (Numba functions called from Python, found by
  :mod:`theorylab.mutation.callgraph`) the certificate called -- each is wrapped, for this run
  only, in a recorder wherever a module or a module-level dict holds it. An entry kernel that
  compiled code also calls cannot be wrapped (Numba would see the wrapper): it is listed in
  ``unwrapped`` and attributed by file.

Run as ``python -m theorylab.mutation.linecov ROOT OUT.json`` in a fresh interpreter
whose ``theorylab`` is the copy under ROOT.
"""
from __future__ import annotations

import inspect
import json
import os
import sys
import threading
from collections import defaultdict


class Tracer:
    """Collects the three maps of the module docstring for files below ``root``."""

    def __init__(self, root: str):
        self.root = os.path.realpath(root) + os.sep
        self.current: str | None = None
        self.lines: dict = defaultdict(lambda: defaultdict(set))
        self.touched: dict = defaultdict(set)
        self.import_lines: dict = defaultdict(set)
        self.kernels: dict = defaultdict(set)
        self._names: dict[str, str | None] = {}

    def _rel(self, filename: str) -> str | None:
        rel = self._names.get(filename, 0)
        if rel == 0:
            real = os.path.realpath(filename) if filename and not filename.startswith("<") else ""
            rel = real[len(self.root):].replace(os.sep, "/") if real.startswith(self.root) else None
            self._names[filename] = rel
        return rel

    def _importing(self, frame) -> bool:
        frame = frame.f_back
        while frame is not None:
            if frame.f_code.co_name == "<module>" and self._rel(frame.f_code.co_filename):
                return True
            frame = frame.f_back
        return False

    def __call__(self, frame, event, arg):
        rel = self._rel(frame.f_code.co_filename)
        if rel is None:
            return None
        if self.current is not None:
            self.touched[self.current].add(rel)
        if not frame.f_code.co_flags & inspect.CO_NEWLOCALS:   # module or class body
            return None
        sink = self.import_lines[rel] if self._importing(frame) else None
        lines = self.lines[self.current][rel] if self.current is not None else None

        def local(frame, event, arg):
            if event == "line":
                if lines is not None:
                    lines.add(frame.f_lineno)
                if sink is not None:
                    sink.add(frame.f_lineno)
            return local

        return local

    def as_dict(self) -> dict:
        return {"lines": {c: {f: sorted(ls) for f, ls in files.items()} for c, files in self.lines.items()},
                "touched": {c: sorted(fs) for c, fs in self.touched.items()},
                "import_lines": {f: sorted(ls) for f, ls in self.import_lines.items()},
                "kernels": {c: sorted(ks) for c, ks in self.kernels.items()}}


class _Recorder:
    """Stands in for an entry kernel: notes the running certificate, then calls the kernel."""

    def __init__(self, kernel, key: str, tracer: Tracer):
        self._kernel, self._key, self._tracer = kernel, key, tracer

    def __call__(self, *args, **kwargs):
        if self._tracer.current is not None:
            self._tracer.kernels[self._tracer.current].add(self._key)
        return self._kernel(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._kernel, name)


def wrap_entry_kernels(root: str, tracer: Tracer) -> list[str]:
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
        recorder = _Recorder(kernel, key, tracer)
        for module in list(sys.modules.values()):
            if tracer._rel(getattr(module, "__file__", None) or "") is None:
                continue
            for attr, value in list(vars(module).items()):
                if value is kernel:
                    setattr(module, attr, recorder)
                elif isinstance(value, dict):
                    for k, v in list(value.items()):
                        if v is kernel:
                            value[k] = recorder
    return unwrapped


def measure(root: str, only: list[str] | None = None) -> dict:
    """Run the registered certificates (or ``only``) under the tracer; also their status."""
    tracer = Tracer(root)
    sys.settrace(tracer)
    threading.settrace(tracer)
    try:
        from theorylab.certify import run_one, select

        status = {}
        specs = select(only, exact=True)
        unwrapped = wrap_entry_kernels(root, tracer)
        for spec in specs:
            tracer.current = spec.id
            cert = run_one(spec)
            status[spec.id] = cert.status
            tracer.current = None
    finally:
        sys.settrace(None)
        threading.settrace(None)
    return {**tracer.as_dict(), "status": status, "unwrapped": unwrapped}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    root, out, only = argv[0], argv[1], argv[2:] or None
    result = measure(root, only)
    with open(out, "w") as fh:
        json.dump(result, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())

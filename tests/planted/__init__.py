"""Planted bugs as data, and the harness that plants them.

The harness lives in :mod:`theorylab.mutation.planting` (``theorylab mutate`` plants its mutants
with it too); this package re-exports it for the tests, with the assertion they share
(:func:`assert_caught`, one fresh copy and interpreter per call), and holds the planted bugs
themselves: one table per library package (``planted.psa``, ``planted.graded``, ``planted.plga``,
``planted.nn``, ``planted.symbolic``, ``planted.rng``, ``planted.stats``), each a list ``BUGS`` of
:class:`Bug`. tests/test_planted_bugs.py runs every table in one warm :class:`Worker` copy of the
library (:func:`run_bug`: plant, run a fork of the worker's zygote, restore).
"""
from __future__ import annotations

import importlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from theorylab.mutation.planting import PlantedRun, Worker, certify_with_bug, plant, replace_once

FAIL_OR_ERROR = ("FAIL", "ERROR")
"""Accepted statuses of a bug whose first symptom is an exception (certify reports ERROR, a non-PASS too)."""
TABLES = ("psa", "graded", "plga", "nn", "symbolic", "rng", "stats")
"""The modules of this package holding a table ``BUGS``, one per library package (or shared module)."""


@dataclass(frozen=True)
class Bug:
    """One planted bug: replace ``old`` (occurring exactly once) by ``new`` in library file ``path``.

    ``catchers``: the certificates run on the copy; certify must exit 1 with each of them ending in
    a status of ``accept``. ``also``: further ``(path, old, new)`` replacements of the same bug.
    ``slow``: the bug runs only with ``-m planted`` (not in CI's ``planted and not slow`` step).
    """

    what: str
    path: str
    old: str
    new: str
    catchers: tuple[str, ...]
    accept: tuple[str, ...] = ("FAIL",)
    slow: bool = False
    also: tuple[tuple[str, str, str], ...] = ()

    @property
    def replacements(self) -> tuple[tuple[str, str, str], ...]:
        """Every ``(path, old, new)`` of the bug, its main one first."""
        return ((self.path, self.old, self.new), *self.also)

    @property
    def files(self) -> set[str]:
        """The library files the bug edits."""
        return {path for path, _, _ in self.replacements}


def tables() -> dict[str, list[Bug]]:
    """Every table: module name -> its bugs."""
    return {name: importlib.import_module(f"planted.{name}").BUGS for name in TABLES}


def check_caught(run: PlantedRun, catchers, accept=("FAIL",)) -> None:
    """Assert certify exited 1 and every catcher ended in ``accept``."""
    statuses = {cid: run.status(cid) for cid in catchers}
    assert run.returncode == 1 and all(s in accept for s in statuses.values()), (statuses, run.output[-2000:])


def assert_caught(path: str, old: str, new: str, catchers, *, also=(), accept=("FAIL",)) -> PlantedRun:
    """Plant the bug, run ``catchers`` on the copy and assert certify exits 1 with every catcher in ``accept``."""
    catchers = [catchers] if isinstance(catchers, str) else list(catchers)
    run = certify_with_bug(path, old, new, catchers, also=also)
    check_caught(run, catchers, accept)
    return run


def run_bug(worker: Worker, bug: Bug, numba_files: set[str], timeout: float = 600) -> PlantedRun:
    """Plant ``bug`` in ``worker``'s copy, run ``certify --only CATCHERS`` in a fork, restore the files.

    Each edited file gets a later file time (stale byte-code of it is never used) and gets its
    original text and time back afterwards. A bug in a file of ``numba_files`` (files defining
    Numba-compiled functions) runs with an empty Numba cache of its own, so no kernel compiled
    from the unmutated source is reused; any other bug reuses the worker's warm cache, which
    holds compilations of unmutated source only (as :meth:`Worker.run` does for a mutant).
    Certify runs as in :func:`assert_caught` (``--only`` without ``--exact``, no ``--fail-fast``:
    every catcher runs).
    """
    saved = {}
    cache = None
    try:
        for path, old, new in bug.replacements:
            target = worker.dest / path
            if path not in saved:
                saved[path] = (target.read_text(), target.stat())
            replace_once(target, old, new, path)
            stat = saved[path][1]
            os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10 * 10**9))
        if bug.files & numba_files:
            cache = worker.scratch
            shutil.rmtree(cache, ignore_errors=True)
        return worker.certify(["--only", *bug.catchers], timeout, cache=cache)
    finally:
        for path, (text, stat) in saved.items():
            target = worker.dest / path
            target.write_text(text)
            os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        if cache is not None:
            shutil.rmtree(cache, ignore_errors=True)


def numba_files_of(root: Path, files) -> set[str]:
    """Files among ``files`` (relative to ``root``) that define a Numba-compiled function."""
    from theorylab.mutation.run import numba_files

    return numba_files(root, files)


__all__ = ["FAIL_OR_ERROR", "TABLES", "Bug", "PlantedRun", "assert_caught", "certify_with_bug", "check_caught",
           "numba_files_of", "plant", "run_bug", "tables"]

"""Sweep specs: the TOML file (see :mod:`theorylab.sweep`) validated by its task into a spec.

The engine reads the file (through :func:`theorylab._io.read_text`), finds the task it names
(``sweep.task``, default :data:`~theorylab.sweep.registry.DEFAULT_TASK`) and hands the tables to
that task's validator (:mod:`theorylab.sweep.registry`). It also provides what every task's
validator shares: the readers of the ``[sweep]`` keys every spec has (name, seed, samples,
chunk_size), of grid axes, and of the tables' keys. Every problem is one
:class:`~theorylab.errors.ParameterError` line naming the table and key. A spec's
:attr:`SweepSpec.hash` is what a result store is bound to; chunking is not part of it (it
never changes results).
"""
from __future__ import annotations

import hashlib
import json
from typing import Mapping

import numpy as np

from theorylab.errors import ParameterError, choice, positive_int, real_array
from theorylab.sweep.registry import DEFAULT_TASK, task

MAX_POINTS = 200_000
"""Most points one sweep may have (a store and its export hold every row; split larger scans)."""
MAX_SPEC_BYTES = 1 << 20
"""Largest spec file read (a spec is a short TOML file)."""
COUNT_MAX = 2**63 - 1
"""Largest ``sweep.samples``: a signed 64-bit count, the bound of every count option of the CLI
(``theorylab.cli._args.COUNT_HIGH``); the memory check bounds it further when samples are drawn."""
SEED_LIMIT = 2**64
"""Sweep seeds lie in ``[0, 2**64)``."""
SWEEP_KEYS = frozenset({"name", "seed", "samples", "chunk_size"})
"""Keys of ``[sweep]`` every spec may have (a task adds its own; ``task`` is read by the engine)."""


class SweepSpec:
    """What the engine needs of a validated spec (a task's spec class derives from this).

    A subclass sets the class attribute ``task`` (its registered name) and has the attributes
    ``name``, ``seed``, ``samples`` and ``chunk_size`` (points per task, or ``None`` for the
    task's choice; never hashed), and the methods :meth:`canonical` and :meth:`n_points`.
    """

    task: str = DEFAULT_TASK

    def canonical(self) -> dict:
        """Everything that determines the results, as a plain JSON-able dict (without the task)."""
        raise NotImplementedError

    def n_points(self) -> int:
        """Number of points of the sweep."""
        raise NotImplementedError

    def record(self) -> dict:
        """:meth:`canonical` plus the task name, unless it is the default task (so a spec of the
        default task records, and hashes, as it did before tasks were named)."""
        d = self.canonical()
        return d if self.task == DEFAULT_TASK else {**d, "task": self.task}

    def canonical_json(self) -> str:
        """:meth:`record` as canonical JSON (the spec record a store keeps)."""
        return json.dumps(self.record(), sort_keys=True, separators=(",", ":"))

    @property
    def hash(self) -> str:
        """SHA-256 of :meth:`canonical_json` (what a store is bound to)."""
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()


def load_spec(path: str) -> SweepSpec:
    """Read and validate a TOML sweep spec (one-line :class:`ParameterError` on any problem:
    not a regular file -- a pipe is refused, never waited on --, unreadable, larger than
    :data:`MAX_SPEC_BYTES`, binary, not UTF-8, not TOML, or not a valid spec). The file is read by
    :func:`theorylab._io.read_text`, the one reader of user-named files.

    Examples
    --------
    A TOML spec file (docs/sweeps.md):

    >>> import theorylab.sweep as sweep
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, 'tiny.toml')
    >>> with open(path, 'w') as f:
    ...     _ = f.write('[sweep]\\nname = "tiny"\\ncompute = ["annealed"]\\n[grid]\\ndk = [16, 64]\\nT = [64]\\n')
    >>> spec = sweep.load_spec(path)
    >>> spec.name, spec.n_points()
    ('tiny', 2)
    >>> tmp.cleanup()
    """
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    from theorylab._io import read_text

    text = read_text("spec", path, MAX_SPEC_BYTES)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ParameterError(f"spec {path}: invalid TOML: {one_line(exc)}") from None
    return spec_from_dict(data, source=f"spec {path}")


def spec_from_dict(data: Mapping, *, source: str = "spec") -> SweepSpec:
    """Validate a parsed spec (the TOML tables as nested dicts) into a spec of the task it names
    (``sweep.task``, default :data:`~theorylab.sweep.registry.DEFAULT_TASK`).

    Examples
    --------
    The TOML tables as dicts:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> spec.name, spec.dk, spec.T, spec.n_points()
    ('tiny', (16.0, 64.0), (64.0,), 2)
    """
    name, data = _split_task(data, lambda d: d.get("sweep"), source)
    return task(name).spec_from_dict(data, source=source)


def spec_from_canonical(canonical: Mapping, *, source: str = "spec") -> SweepSpec:
    """The spec whose :meth:`SweepSpec.record` dict is ``canonical`` (as a store keeps it),
    validated again by its task.

    Examples
    --------
    A spec round-trips through the record a store keeps:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> import json
    >>> record = json.loads(spec.canonical_json())      # as a store keeps it
    >>> again = sweep.spec_from_canonical(record)
    >>> again.hash == spec.hash
    True
    """
    name, canonical = _split_task(canonical, lambda d: d, source)
    return task(name).spec_from_canonical(canonical, source=source)


def _split_task(data, table, source: str) -> tuple[str, Mapping]:
    """The task ``table(data)`` names under ``task`` (checked), and ``data`` without that key."""
    where = table(data) if isinstance(data, Mapping) else None
    if not isinstance(where, Mapping) or "task" not in where:
        return DEFAULT_TASK, data
    try:
        task(where["task"])
    except ParameterError as exc:
        raise ParameterError(f"{source}: {exc}") from None
    rest = {k: v for k, v in where.items() if k != "task"}
    return where["task"], (rest if where is data else {**data, "sweep": rest})


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (for one-line :class:`ParameterError` messages)."""
    return " ".join(str(exc).split())


def number(name: str, value, **bounds) -> float:
    """One real number (not a list, string or boolean) within ``bounds`` (see :func:`real_array`)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParameterError(f"{name} must be a number (got {value!r})")
    return float(real_array(name, value, **bounds))


def sweep_name(value) -> str:
    """``sweep.name``: one line of printable text, at most 200 characters."""
    if not isinstance(value, str) or not value.isprintable() or len(value) > 200:
        raise ParameterError(f"sweep.name must be one line of printable text, at most 200 characters "
                             f"(got {str(value)[:60]!r})")
    return value


def sweep_seed(value) -> int:
    """``sweep.seed``: an integer in ``[0, 2**64)``."""
    seed = positive_int("sweep.seed", value, low=0)
    if seed >= SEED_LIMIT:
        got = seed if seed < 10**20 else f"{float(seed):g}"
        raise ParameterError(f"sweep.seed must be an integer in [0, 2**64) (got {got})")
    return seed


def sweep_samples(value) -> int:
    """``sweep.samples``: a count in ``[1, COUNT_MAX]``."""
    return positive_int("sweep.samples", value, high=COUNT_MAX)


def sweep_chunk_size(value) -> int | None:
    """``sweep.chunk_size``: points per task in ``[1, MAX_POINTS]``, or ``None`` (the task's choice)."""
    return None if value is None else positive_int("sweep.chunk_size", value, high=MAX_POINTS)


def check_points(n_points: int) -> None:
    """Refuse a grid of more than :data:`MAX_POINTS` points."""
    if n_points > MAX_POINTS:
        raise ParameterError(f"the grid has {n_points} points; a sweep has at most {MAX_POINTS} "
                             f"(split it into several sweeps)")


def names(key: str, value) -> list[str]:
    """A name or a list of names."""
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ParameterError(f"{key} must be a name or a list of names (got {value!r})")
    return values


def check_tables(data: Mapping, sections: Mapping) -> None:
    """Every table of ``data`` is a key of ``sections`` and holds only the keys it allows
    (``None``: any key, checked by the task)."""
    if not isinstance(data, Mapping):
        raise ParameterError("a spec is a TOML document with [sweep] and [grid] tables")
    for section, value in data.items():
        if section not in sections:
            raise ParameterError(f"unknown table [{section}] (expected one of "
                                 f"{', '.join(f'[{s}]' for s in sections)})")
        if not isinstance(value, Mapping):
            raise ParameterError(f"{section} must be a table ([{section}])")
        allowed = sections[section]
        extra = sorted(set(value) - allowed) if allowed is not None else []
        if extra:
            raise ParameterError(f"unknown key {section}.{extra[0]} (expected one of {', '.join(sorted(allowed))})")


def axis(name: str, value, **bounds) -> tuple[float, ...]:
    """A grid axis: a number, a list, or ``{start, stop, num, spacing}`` (linear|log), each value
    within ``bounds`` (see :func:`real_array`); rounded to 12 significant digits, duplicates dropped."""
    if isinstance(value, Mapping):
        extra = sorted(set(value) - {"start", "stop", "num", "spacing"})
        if extra or not {"start", "stop", "num"} <= set(value):
            raise ParameterError(f"{name} range needs start, stop, num (and optional spacing = 'linear'|'log')")
        start, stop = (number(f"{name}.{k}", value[k], **bounds) for k in ("start", "stop"))
        num = positive_int(f"{name}.num", value["num"])
        if num > MAX_POINTS:
            raise ParameterError(f"{name}.num must be an integer in [1, {MAX_POINTS}] (got {num})")
        spacing = choice(f"{name}.spacing", value.get("spacing", "linear"), ("linear", "log"))
        if spacing == "log" and min(start, stop) <= 0:
            raise ParameterError(f"{name}: a log range needs start, stop > 0")
        values = np.geomspace(start, stop, num) if spacing == "log" else np.linspace(start, stop, num)
    else:
        if isinstance(value, (str, bool)) or (isinstance(value, list) and any(isinstance(v, (str, bool))
                                                                           for v in value)):
            raise ParameterError(f"{name} must be numbers (got {value!r})")
        values = real_array(name, value, **bounds).ravel()
    return tuple(dict.fromkeys(float(f"{v:.12g}") for v in values))

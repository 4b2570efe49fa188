"""The training sweep task: one point = one training run (registered with the engine as ``train``).

The engine (:mod:`theorylab.sweep`) reads the spec, runs, stores and resumes; this module says
what a training sweep is (see docs/sweeps.md, "Training sweeps"): a ``[train]`` table of fixed
:class:`~theorylab.nn.train.TrainConfig` fields, one ``[grid]`` table (or several ``[[grid]]``
tables, whose points are joined) of fields to vary, and ``sweep.seeds`` runs per configuration.
The fields are read from the dataclass, so a field added to ``TrainConfig`` can be set or varied
without changing this module.

Seeds: a run's seed is its own training seed, ``sweep.seed + run`` for ``run = 0 .. seeds - 1``
(``sweep.seed`` defaults to 0), exactly as ``theorylab train --seed S --seeds N`` numbers its runs,
so a stored point equals ``train(config, seed)`` -- never the engine's hashed point seed. The
store's ``seed`` column holds that training seed.

Columns: every ``TrainConfig`` field is a parameter column (NULL where no grid table varies it;
its value is then the spec's ``[train]`` value or the field's default), plus ``run``. Results:
the final training loss, the evaluation loss, prediction and attention accuracy, CPU seconds,
the learned taps of a two-tap head, and -- when :class:`~theorylab.nn.train.TrainResult` has
them -- ``pointer_accuracy``, ``step0_score_std`` and ``step0_max_weight`` (NULL otherwise).
"""
from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from theorylab.errors import ParameterError, positive_int
from theorylab.nn.train import TrainConfig, memory_estimate, train
from theorylab.sweep.spec import (SweepSpec, check_points, one_line, sweep_chunk_size, sweep_name, sweep_seed)

TASK = "train"
SEED_MAX = 2**63 - 1
"""Largest training seed a store holds (its ``seed`` column is a signed 64-bit SQLite integer)."""
SEEDS_MAX = 10_000
"""Most runs per configuration (``sweep.seeds``)."""
FIELDS = tuple(f for f in dataclasses.fields(TrainConfig))
"""The ``TrainConfig`` fields, read from the dataclass (in its order)."""
FIELD_NAMES = tuple(f.name for f in FIELDS)
_KINDS = {"str": str, "int": int, "float": float, "bool": bool}


def _kind(f: dataclasses.Field) -> type:
    """The Python type of a ``TrainConfig`` field (annotations are text under postponed evaluation)."""
    name = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "str")
    return _KINDS.get(name, str)


def _column(f: dataclasses.Field) -> tuple[str, str]:
    kind = _kind(f)
    return f.name, "TEXT" if kind is str else "INTEGER" if kind is bool else "REAL"


PARAMETER_COLUMNS = tuple(_column(f) for f in FIELDS) + (("run", "REAL NOT NULL"),)
TAP_COLUMNS = ("q_b0", "q_b1", "k_b0", "k_b1")
"""The learned taps of layer 0 head 0 (two-tap heads only)."""
OPTIONAL_RESULTS = ("pointer_accuracy", "step0_score_std", "step0_max_weight")
"""Result columns read from a :class:`~theorylab.nn.train.TrainResult` attribute when it has one (else NULL)."""
RESULT_COLUMNS = (("final_loss", "REAL"), ("eval_loss", "REAL"), ("accuracy", "REAL"),
                  ("attention_accuracy", "REAL"), ("cpu_seconds", "REAL"),
                  *((name, "REAL") for name in OPTIONAL_RESULTS), *((name, "REAL") for name in TAP_COLUMNS))
WHOLE_NUMBER_COLUMNS = tuple(f.name for f in FIELDS if _kind(f) is int) + ("run",)
"""Parameter columns the store readers give as ints where whole."""
_SECTIONS = {"sweep": {"name", "seed", "seeds", "chunk_size"}, "train": set(FIELD_NAMES), "grid": set(FIELD_NAMES)}
__all__ = ["TASK", "FIELD_NAMES", "TrainSweepSpec", "Point", "spec_from_dict", "spec_from_canonical", "points",
           "fits", "default_chunk_size", "compute_group", "result_columns", "task_memory", "describe_request",
           "status_fields"]


@dataclass(frozen=True)
class TrainSweepSpec(SweepSpec):
    """A validated training sweep.

    Attributes
    ----------
    name : free text.
    train : every ``TrainConfig`` field with its fixed value (the ``[train]`` table, the field's
        default where the table is silent), as sorted (field, value) pairs: a later change of a
        default cannot mix two configurations in one store.
    grids : the grid tables, each a tuple of (field, values) pairs in ``TrainConfig`` order.
    seed : the first training seed; runs use ``seed, seed + 1, ..., seed + seeds - 1``.
    seeds : runs per configuration.
    chunk_size : points per task, or ``None`` (one run per task; never hashed).
    """

    task = TASK

    name: str
    train: tuple[tuple[str, object], ...]
    grids: tuple[tuple[tuple[str, tuple], ...], ...]
    seed: int
    seeds: int
    chunk_size: int | None = field(default=None, compare=False)

    @property
    def varied(self) -> tuple[str, ...]:
        """The fields some grid table sets (the parameter columns a point fills), in ``TrainConfig`` order."""
        names = {k for grid in self.grids for k, _ in grid}
        return tuple(n for n in FIELD_NAMES if n in names)

    def configs(self) -> list[TrainConfig]:
        """Every distinct configuration, in canonical order (grid tables in turn, last field fastest)."""
        base = dict(self.train)
        out: dict = {}
        for grid in self.grids:
            names = [k for k, _ in grid]
            for values in itertools.product(*(v for _, v in grid)):
                config = TrainConfig(**{**base, **dict(zip(names, values))})
                out.setdefault(config, None)
        return list(out)

    def canonical(self) -> dict:
        """Everything that determines the results, as a plain JSON-able dict."""
        return {"name": self.name, "train": dict(self.train), "grid": [{k: list(v) for k, v in g} for g in self.grids],
                "seed": self.seed, "seeds": self.seeds}

    def n_points(self) -> int:
        return len(self.configs()) * self.seeds


@dataclass(frozen=True)
class Point:
    """One training run of a sweep: its configuration, run index and training seed."""

    index: int
    config: TrainConfig
    run: int
    seed: int
    varied: tuple[str, ...]

    @property
    def key(self) -> str:
        """Unique text key of the point: the varied fields and the run index."""
        return "|".join([f"{k}={getattr(self.config, k)!r}" for k in self.varied] + [f"run={self.run}"])

    @property
    def group(self) -> tuple:
        """Every run is computed alone."""
        return (self.index,)

    def parameters(self) -> dict:
        """The point's parameter columns: the varied fields and ``run``."""
        return {**{k: getattr(self.config, k) for k in self.varied}, "run": self.run}


def spec_from_dict(data: Mapping, *, source: str = "spec") -> TrainSweepSpec:
    """Validate a parsed spec (the TOML tables as nested dicts, without ``sweep.task``) into a
    :class:`TrainSweepSpec`.

    Parameters
    ----------
    data : mapping
        ``sweep`` (``name``, ``seed``, ``seeds``, ``chunk_size``), ``train`` (fixed
        ``TrainConfig`` fields) and ``grid``: one table, or a list of tables (TOML ``[[grid]]``),
        each mapping a field to a value or a list of values.
    source : str
        How the spec is named in messages.

    Returns
    -------
    TrainSweepSpec

    Raises
    ------
    ParameterError
        One line naming the table and key: an unknown table, key or field, a value of the wrong
        type, a configuration ``TrainConfig`` refuses, too many points or seeds.
    """
    try:
        if not isinstance(data, Mapping):
            raise ParameterError("a spec is a TOML document with [sweep], [train] and [grid] tables")
        grids = data.get("grid", {})
        grids = [grids] if isinstance(grids, Mapping) else grids
        if not isinstance(grids, list) or not grids or not all(isinstance(g, Mapping) for g in grids):
            raise ParameterError("grid must be a table ([grid]) or a list of tables ([[grid]])")
        for section, value in data.items():
            if section not in _SECTIONS:
                raise ParameterError(f"unknown table [{section}] (expected one of [sweep], [train], [grid])")
            for table in (grids if section == "grid" else [value]):
                if not isinstance(table, Mapping):
                    raise ParameterError(f"{section} must be a table ([{section}])")
                extra = sorted(set(table) - _SECTIONS[section])
                if extra:
                    raise ParameterError(f"unknown key {section}.{extra[0]} (expected one of "
                                         f"{', '.join(sorted(_SECTIONS[section]))})")
        sweep = data.get("sweep", {})
        seeds = positive_int("sweep.seeds", sweep.get("seeds", 1), high=SEEDS_MAX)
        seed = sweep_seed(sweep.get("seed", 0))
        if seed + seeds - 1 > SEED_MAX:
            raise ParameterError(f"sweep.seed must be at most 2^63 - {seeds} for sweep.seeds = {seeds} (the runs use "
                                 f"seed + run; got {seed})")
        train = {f.name: _value(f"train.{f.name}", f, data.get("train", {}).get(f.name, _default(f)))
                 for f in FIELDS}
        tables = tuple(_grid_table(i, g, len(grids)) for i, g in enumerate(grids))
        spec = TrainSweepSpec(name=sweep_name(sweep.get("name", "train sweep")), train=tuple(sorted(train.items())),
                              grids=tables, seed=seed, seeds=seeds,
                              chunk_size=sweep_chunk_size(sweep.get("chunk_size")))
        check_points(math.prod(len(v) for g in tables for _, v in g) * seeds)   # before building the configs
        try:
            spec.configs()
        except ParameterError as exc:
            raise ParameterError(f"a grid point is not a valid TrainConfig ({one_line(exc)}); split the grid into "
                                 f"[[grid]] tables of compatible values") from None
    except ParameterError as exc:
        raise ParameterError(f"{source}: {exc}") from None
    return spec


def _default(f: dataclasses.Field):
    return f.default_factory() if f.default is dataclasses.MISSING else f.default


def _value(name: str, f: dataclasses.Field, value):
    """One value of a field, in the field's type (an integer field takes a whole number only)."""
    kind = _kind(f)
    if kind is str:
        if not isinstance(value, str):
            raise ParameterError(f"{name} must be text (got {value!r})")
        return value
    if kind is bool:
        if not isinstance(value, bool):
            raise ParameterError(f"{name} must be true or false (got {value!r})")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParameterError(f"{name} must be a number (got {value!r})")
    if kind is int:
        if not float(value).is_integer():
            raise ParameterError(f"{name} must be an integer (got {value!r})")
        return int(value)
    return float(value)


def _grid_table(i: int, table: Mapping, n: int) -> tuple:
    where = "grid" if n == 1 else f"grid[{i}]"
    if not table:
        raise ParameterError(f"{where} must set at least one field")
    out = []
    for f in FIELDS:
        if f.name in table:
            values = table[f.name] if isinstance(table[f.name], list) else [table[f.name]]
            if not values:
                raise ParameterError(f"{where}.{f.name} must not be empty")
            out.append((f.name, tuple(dict.fromkeys(_value(f"{where}.{f.name}", f, v) for v in values))))
    return tuple(out)


def spec_from_canonical(canonical: Mapping, *, source: str = "spec") -> TrainSweepSpec:
    """The spec whose :meth:`TrainSweepSpec.canonical` dict is ``canonical`` (as a store keeps it),
    validated again by :func:`spec_from_dict`."""
    needed = ("name", "train", "grid", "seed", "seeds")
    if not isinstance(canonical, Mapping) or not set(needed) <= set(canonical):
        raise ParameterError(f"{source}: not a spec record (it needs the keys {', '.join(needed)})")
    train = canonical["train"]
    if isinstance(train, Mapping):          # a field this TrainConfig no longer has: refused as unknown below
        train = dict(train)
    data = {"sweep": {k: canonical[k] for k in ("name", "seed", "seeds")}, "train": train, "grid": canonical["grid"]}
    return spec_from_dict(data, source=source)


def points(spec: TrainSweepSpec) -> list[Point]:
    """Every point of ``spec`` in canonical order: configurations (:meth:`TrainSweepSpec.configs`), run fastest."""
    varied = spec.varied
    return [Point(i * spec.seeds + r, config, r, spec.seed + r, varied)
            for i, config in enumerate(spec.configs()) for r in range(spec.seeds)]


def default_chunk_size(spec: TrainSweepSpec) -> int:
    """One run per task: a run takes seconds to minutes, far above a task's overhead."""
    return 1


def fits(spec: TrainSweepSpec, chunk: Sequence[Point], p: Point) -> bool:
    """Any run may join any chunk (runs are independent)."""
    return True


def result_columns(result) -> dict:
    """The result columns (:data:`RESULT_COLUMNS`) of one :class:`~theorylab.nn.train.TrainResult`.

    Parameters
    ----------
    result : TrainResult

    Returns
    -------
    dict
        ``final_loss`` (the last training batch's loss), ``eval_loss``, ``accuracy``,
        ``attention_accuracy`` (None for two layers), ``cpu_seconds``, the
        :data:`OPTIONAL_RESULTS` the result has (None otherwise) and the learned taps (None
        unless the head is a two-tap filter).
    """
    last = result.history[-1] if result.history else {}
    row = {"final_loss": last.get("loss"), "eval_loss": result.evaluation.loss, "accuracy": result.accuracy,
           "attention_accuracy": result.attention_accuracy, "cpu_seconds": result.cpu_seconds}
    for name in OPTIONAL_RESULTS:
        value = getattr(result, name, None)
        row[name] = None if value is None else float(value)
    row.update({k: last.get(k) for k in TAP_COLUMNS})
    return row


def compute_group(spec: TrainSweepSpec, group: Sequence[Point]) -> list[dict]:
    """Train every run of ``group`` (``train(point.config, point.seed)``); their result columns."""
    return [result_columns(train(p.config, p.seed)) for p in group]


def task_memory(spec: TrainSweepSpec, threads: int) -> int:
    """Upper estimate in bytes of one task: the largest run's peak (:func:`~theorylab.nn.train.memory_estimate`;
    a worker trains a chunk's runs one after another, and ``threads`` does not matter: BLAS runs one thread)."""
    return max(memory_estimate(c) for c in spec.configs())


def describe_request(spec: TrainSweepSpec) -> str:
    """What one task of ``spec`` trains (for the memory check's message)."""
    configs = spec.configs()
    big = max(configs, key=memory_estimate)
    return (f"one training run of batch {big.batch}, T {big.seq_len}, d_model {big.d_model}, dk {big.dk}, "
            f"eval_size {big.eval_size} ({len(configs)} configs x {spec.seeds} seeds)")


def status_fields(spec: TrainSweepSpec) -> dict:
    """The training task's fields of ``theorylab sweep status``: varied fields, configurations, seeds."""
    return {"varied": ",".join(spec.varied), "configs": len(spec.configs()), "seeds": spec.seeds,
            "first_seed": spec.seed}

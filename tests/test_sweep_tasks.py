"""The sweep engine runs any registered task and imports no paper (theorylab.sweep.registry).

A toy task (this module: one parameter axis ``x``, the result ``x**2``) is registered in
``TASKS`` for the test; the engine validates its spec, stores its own columns, runs, resumes and
reads it exactly as it does PSA's.
"""
from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import closing
from dataclasses import dataclass, field

import pytest

from theorylab.errors import ParameterError
from theorylab import sweep
from theorylab.sweep import spec as shared

PARAMETER_COLUMNS = (("x", "REAL NOT NULL"),)
RESULT_COLUMNS = (("square", "REAL"),)
WHOLE_NUMBER_COLUMNS = ("x",)


@dataclass(frozen=True)
class ToySpec(sweep.SweepSpec):
    task = "toy"
    name: str
    x: tuple
    samples: int
    seed: int
    chunk_size: int | None = field(default=None, compare=False)

    def canonical(self) -> dict:
        return {"name": self.name, "x": list(self.x), "samples": self.samples, "seed": self.seed}

    def n_points(self) -> int:
        return len(self.x)


@dataclass(frozen=True)
class ToyPoint:
    index: int
    x: float
    seed: int

    @property
    def key(self) -> str:
        return f"x={self.x!r}"

    @property
    def group(self) -> tuple:
        return (self.index,)

    def parameters(self) -> dict:
        return {"x": self.x}


def spec_from_dict(data, *, source="spec"):
    try:
        shared.check_tables(data, {"sweep": shared.SWEEP_KEYS, "grid": {"x"}})
        s = data.get("sweep", {})
        x = shared.axis("grid.x", data.get("grid", {}).get("x", [1.0]))
        return ToySpec(name=shared.sweep_name(s.get("name", "toy")), x=x, samples=shared.sweep_samples(
            s.get("samples", 1)), seed=shared.sweep_seed(s.get("seed", 0)),
            chunk_size=shared.sweep_chunk_size(s.get("chunk_size")))
    except ParameterError as exc:
        raise ParameterError(f"{source}: {exc}") from None


def spec_from_canonical(record, *, source="spec"):
    return spec_from_dict({"sweep": {k: record[k] for k in ("name", "samples", "seed")}, "grid": {"x": record["x"]}},
                          source=source)


def points(spec):
    return [ToyPoint(i, x, sweep.point_seed(spec.seed, x)) for i, x in enumerate(spec.x)]


def fits(spec, chunk, p):
    return True


def default_chunk_size(spec):
    return 2


def compute_group(spec, group):
    return [{"square": p.x ** 2} for p in group]


def task_memory(spec, threads):
    return 1 << 20


def describe_request(spec):
    return f"{len(spec.x)} squares"


def status_fields(spec):
    return {"seed": spec.seed}


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(sweep.TASKS, "toy", __name__)
    yield
    sweep.schema.layout.cache_clear()


def test_engine_runs_a_registered_task(toy, tmp_path):
    spec = sweep.spec_from_dict({"sweep": {"task": "toy", "seed": 4}, "grid": {"x": [1, 2.5, 3]}})
    assert isinstance(spec, ToySpec) and spec.x == (1.0, 2.5, 3.0)
    assert '"task":"toy"' in spec.canonical_json()   # a task other than the default is recorded (and hashed)
    store = str(tmp_path / "toy.db")
    report = sweep.run_sweep(spec, store, executor=sweep.SerialExecutor(), progress=False)
    assert (report.total, report.computed, report.chunks) == (3, 3, 2)
    got, rows, _ = sweep.read_store(store, spec_hash=spec.hash)
    assert got == spec
    assert [(r["x"], r["square"]) for r in rows] == [(1, 1.0), (2.5, 6.25), (3, 9.0)]
    assert [r["seed"] for r in rows] == [sweep.point_seed(4, x) for x in (1, 2.5, 3)]
    assert sweep.store_columns(spec) == ("key", "idx", "x", "seed", "square", "code_version", "worker",
                                         "started_at", "finished_at", "elapsed_s")
    status = sweep.store_status(store)
    assert (status["points_done"], status["complete"], status["seed"]) == (3, True, 4)
    with closing(sqlite3.connect(store)) as conn:
        cols = [r[1] for r in conn.execute("PRAGMA table_info(points)")]
        conn.execute("DELETE FROM points WHERE idx = 1")
        conn.commit()
    assert cols == list(sweep.store_columns(spec)) + ["checksum"]
    again = sweep.run_sweep(spec, store, executor=sweep.SerialExecutor(), progress=False)
    assert (again.already_done, again.computed) == (2, 1)
    assert [r["square"] for r in sweep.export_rows(store)] == [1.0, 6.25, 9.0]


def test_unknown_tasks_are_refused(toy, tmp_path, monkeypatch):
    with pytest.raises(ParameterError, match=r"^spec: sweep.task must be one of psa, toy, train \(got 'nope'\)$"):
        sweep.spec_from_dict({"sweep": {"task": "nope"}, "grid": {"x": [1]}})
    spec = sweep.spec_from_dict({"sweep": {"task": "toy"}, "grid": {"x": [1]}})
    store = str(tmp_path / "toy.db")
    sweep.run_sweep(spec, store, executor=sweep.SerialExecutor(), progress=False)
    monkeypatch.delitem(sweep.TASKS, "toy")          # a theorylab that does not know the store's task
    sweep.schema.layout.cache_clear()
    with pytest.raises(ParameterError, match="holds a sweep of the task 'toy', which this theorylab does not know"):
        sweep.store_status(store)


def test_default_task_records_as_before():
    """An explicit ``task = "psa"`` is the default: same spec, same record, same hash."""
    grid = {"dk": [64], "T": [15]}
    plain = sweep.spec_from_dict({"sweep": {"seed": 1}, "grid": grid})
    named = sweep.spec_from_dict({"sweep": {"seed": 1, "task": "psa"}, "grid": grid})
    assert named == plain and named.canonical_json() == plain.canonical_json() and "task" not in plain.record()


def test_the_engine_imports_no_paper():
    code = ("import sys, theorylab.sweep; bad = sorted(m for m in sys.modules if m.split('.')[1:2] and "
            "m.split('.')[1] in ('psa', 'plga', 'graded', 'nn', 'symbolic')); print(bad); sys.exit(bool(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr

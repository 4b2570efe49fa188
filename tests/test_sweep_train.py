"""The training sweep task (theorylab.nn.sweep): a point is one training run, equal to ``train(config, seed)``."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from types import SimpleNamespace

import pytest

from theorylab import sweep
from theorylab.cli import main
from theorylab.errors import ParameterError
from theorylab.nn import sweep as train_sweep
from theorylab.nn.train import TrainConfig, train
from theorylab.sweep.schema import RECORD_COLUMNS

TINY = {"steps": 5, "batch": 8, "eval_size": 40, "pairs": 4, "alphabet": 16, "d_model": 16, "dk": 8}
RESULTS = ("final_loss", "eval_loss", "accuracy", "attention_accuracy")
SPEC_TEXT = """
[sweep]
task = "train"
name = "tiny"
seeds = 2
seed = 3
chunk_size = 1

[train]
steps = 5
batch = 8
eval_size = 40
pairs = 4
alphabet = 16
d_model = 16
dk = 8
variant = "symmetric"

[grid]
gamma = 2.0
"""


def tiny_spec(**sweep_keys) -> train_sweep.TrainSweepSpec:
    return sweep.spec_from_dict({"sweep": {"task": "train", "name": "tiny", **sweep_keys}, "train": TINY,
                                 "grid": {"variant": ["symmetric", "key-only"], "gamma": 2.0}})


def test_a_point_is_the_training_run_of_its_config_and_seed(tmp_path):
    spec = tiny_spec()
    assert spec.n_points() == 2 and spec.varied == ("variant", "gamma")
    store = str(tmp_path / "tiny.db")
    report = sweep.run_sweep(spec, store, executor=sweep.SerialExecutor(), progress=False)
    assert (report.total, report.computed) == (2, 2)
    rows = sweep.export_rows(store)
    for row, variant in zip(rows, ("symmetric", "key-only")):
        assert (row["variant"], row["gamma"], row["run"], row["seed"], row["steps"]) == (variant, 2.0, 0, 0, None)
        ref = train(TrainConfig(variant=variant, gamma=2.0, **TINY), 0)
        # the same code run twice (once in the sweep, once here): equal, not merely close
        assert [row[k] for k in RESULTS] == [ref.history[-1]["loss"], ref.evaluation.loss, ref.accuracy,
                                             ref.attention_accuracy]
        assert row["pointer_accuracy"] == getattr(ref, "pointer_accuracy", None)


def test_runs_use_the_first_seed_plus_the_run_index_and_grid_tables_join(tmp_path):
    spec = sweep.spec_from_dict({"sweep": {"task": "train", "seeds": 3, "seed": 10}, "train": TINY,
                                 "grid": [{"variant": "standard", "gamma": 0}, {"variant": "key-only", "gamma": [1, 2]},
                                          {"variant": "standard", "gamma": 0.0}]})   # a repeated config counts once
    pts = sweep.points(spec)
    assert [(p.config.variant, p.config.gamma, p.run, p.seed) for p in pts] == [
        (v, g, r, 10 + r) for v, g in (("standard", 0.0), ("key-only", 1.0), ("key-only", 2.0)) for r in range(3)]
    assert [p.index for p in pts] == list(range(9)) and len({p.key for p in pts}) == 9
    again = sweep.spec_from_canonical(json.loads(spec.canonical_json()))
    assert again == spec and again.hash == spec.hash


def test_fixed_fields_are_resolved_into_the_record(tmp_path):
    """Every TrainConfig field is in the record, so a later change of a default changes the hash."""
    spec = tiny_spec()
    record = spec.record()
    assert record["task"] == "train" and set(record["train"]) == set(train_sweep.FIELD_NAMES)
    assert record["train"]["lr"] == TrainConfig().lr and record["train"]["steps"] == 5


@pytest.mark.parametrize("data, message", [
    ({"grid": {"variant": "standard", "gamma": [0, 1]}}, "not a valid TrainConfig"),
    ({"grid": {"colour": [1]}}, "unknown key grid.colour"),
    ({"train": {"steps": 2.5}, "grid": {"gamma": 1}}, "train.steps must be an integer"),
    ({"train": {"variant": 3}, "grid": {"gamma": 1}}, "train.variant must be text"),
    ({"grid": {"gamma": []}}, "grid.gamma must not be empty"),
    ({"grid": {}}, "grid must set at least one field"),
    ({"grid": {"gamma": 1}, "mc": {}}, "unknown table [mc]"),
    ({"sweep": {"seeds": 0}, "grid": {"gamma": 1}}, "sweep.seeds"),
    ({"sweep": {"seed": 2**63}, "grid": {"gamma": 1}}, "sweep.seed must be at most 2^63"),
    ({"sweep": {"samples": 5}, "grid": {"gamma": 1}}, "unknown key sweep.samples"),
])
def test_bad_specs_are_refused_in_one_line(data, message):
    data = {**data, "sweep": {"task": "train", **data.get("sweep", {})}}
    with pytest.raises(ParameterError) as err:
        sweep.spec_from_dict(data, source="spec s.toml")
    assert message in str(err.value) and str(err.value).startswith("spec s.toml: ") and "\n" not in str(err.value)


def test_columns_do_not_collide_and_follow_the_dataclass():
    params = [n for n, _ in train_sweep.PARAMETER_COLUMNS]
    results = [n for n, _ in train_sweep.RESULT_COLUMNS]
    engine = ["key", "idx", "seed"] + [n for n, _ in RECORD_COLUMNS]
    assert len(set(params + results + engine)) == len(params) + len(results) + len(engine)
    assert params == list(train_sweep.FIELD_NAMES) + ["run"]
    assert dict(train_sweep.PARAMETER_COLUMNS)["variant"] == "TEXT" and dict(train_sweep.PARAMETER_COLUMNS)["lr"] == "REAL"
    assert "steps" in train_sweep.WHOLE_NUMBER_COLUMNS and "lr" not in train_sweep.WHOLE_NUMBER_COLUMNS


def test_optional_results_are_read_when_the_result_has_them():
    base = dict(history=[{"loss": 1.5, "q_b0": 1.0, "q_b1": 0.0, "k_b0": 1.0, "k_b1": -0.9}],
                evaluation=SimpleNamespace(loss=1.25), accuracy=0.5, attention_accuracy=None, cpu_seconds=2.0)
    without = train_sweep.result_columns(SimpleNamespace(**base))
    assert without["pointer_accuracy"] is None and without["k_b1"] == -0.9 and without["final_loss"] == 1.5
    with_it = train_sweep.result_columns(SimpleNamespace(**base, pointer_accuracy=0.75, step0_score_std=0.1,
                                                         step0_max_weight=0.2))
    assert (with_it["pointer_accuracy"], with_it["step0_score_std"], with_it["step0_max_weight"]) == (0.75, 0.1, 0.2)


def test_memory_request_names_the_largest_run():
    spec = tiny_spec()
    assert sweep.task_memory(spec, 1) > 0
    assert "batch 8" in sweep.task_of(spec).describe_request(spec)


# The child runs the real CLI with the serial executor; each task is slowed down so that the
# parent can kill it after the first of its two points is stored.
CHILD = """
import sys, time
import theorylab.sweep.run as sw
real = sw.compute_chunk
def slow(spec, chunk):
    out = real(spec, chunk)
    time.sleep(1.0)
    return out
sw.compute_chunk = slow
from theorylab.cli import main
sys.exit(main(["sweep", "run", sys.argv[1], "--store", sys.argv[2], "--workers", "0", "--no-progress"]))
"""


def _count(store: str) -> int:
    if not os.path.exists(store):
        return 0
    with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)) as conn, conn:
        try:
            return conn.execute("SELECT COUNT(*) FROM points").fetchone()[0]
        except sqlite3.OperationalError:    # published but not yet readable
            return 0


def test_a_killed_training_sweep_resumes_from_the_cli(tmp_path, capsys):
    spec_path = tmp_path / "spec.toml"
    spec_path.write_text(SPEC_TEXT)
    spec = sweep.load_spec(str(spec_path))
    assert spec.n_points() == 2
    store = str(tmp_path / "killed.db")
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(spec_path), store], start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while _count(store) < 1 and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    before = _count(store)
    assert child.returncode == -signal.SIGKILL, child.stderr.read().decode()[-500:]
    assert before == 1, f"kill landed outside the run ({before}/2 points stored)"

    assert main(["sweep", "run", str(spec_path), "--store", store, "--workers", "0", "--no-progress",
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)[0]
    assert (report["already_done"], report["computed"]) == (1, 1)
    rows = sweep.export_rows(store)
    assert [(r["run"], r["seed"]) for r in rows] == [(0, 3), (1, 4)]
    for r in rows:   # the same code run twice: equal
        ref = train(TrainConfig(variant="symmetric", gamma=2.0, **TINY), r["seed"])
        assert (r["accuracy"], r["eval_loss"]) == (ref.accuracy, ref.evaluation.loss)

"""Training: configuration, determinism (seed, thread count, workers), optimiser, statistics, CLI.

Training runs that take more than a few seconds are marked ``slow`` (run with -m slow).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from theorylab import ParameterError
from theorylab.cli import main
from theorylab.nn import specs as S
from theorylab.nn import optim, runner, tasks, trainstats
from theorylab.nn.evaluation import answers, batch_of
from theorylab.nn.train import TrainConfig, head_spec, init_model, memory_estimate, train

TINY = dict(task="canonical", T=8, vocab=12, d_model=8, dk=8, steps=6, batch=4, eval_size=20, log_every=2)


def test_recall_task_layout():
    b = tasks.associative_recall(50, pairs=5, alphabet=16, padding=2, seed=3)
    assert b.tokens.shape == (50, 13)
    rows = np.arange(50)
    assert np.all(b.tokens[rows, b.target - 1] == b.tokens[:, -1])          # the query repeats its key
    assert np.all(b.tokens[:, 10:12] == 16)                                   # padding
    assert np.all(b.target % 2 == 1) and np.all(b.target <= 9)               # targets are value positions
    keys = b.tokens[:, 0:10:2]
    assert all(len(set(k)) == 5 for k in keys)                                # keys distinct
    assert np.array_equal(answers(b), b.tokens[rows, b.target])


def test_config_validation():
    with pytest.raises(ParameterError, match="gamma must be 0 for the standard"):
        TrainConfig(variant="standard", gamma=1.0)
    with pytest.raises(ParameterError, match="variant"):
        TrainConfig(variant="quadratic")
    with pytest.raises(ParameterError, match="dk"):
        TrainConfig(dk=7)
    with pytest.raises(ParameterError, match="alphabet"):
        TrainConfig(pairs=30, alphabet=20)
    with pytest.raises(ParameterError, match="vocab"):
        TrainConfig(task="canonical", T=15, vocab=10)


def test_variants_build_the_right_heads():
    assert isinstance(head_spec(TrainConfig(variant="standard", gamma=0)), S.SDPA)
    ko = head_spec(TrainConfig(variant="key-only", gamma=2))
    assert (ko.g_q, ko.g_k) == (0.0, 2.0)
    lp = head_spec(TrainConfig(variant="low-pass", gamma=0.5))
    assert np.array_equal(lp.q_taps, [1.5, 0.5]) and np.array_equal(lp.k_taps, [1.5, 0.5])
    free = head_spec(TrainConfig(variant="free-two-tap", gamma=0))
    assert np.array_equal(free.k_taps, [1.0, 0.0])
    assert init_model(TrainConfig(variant="two-layer", gamma=0), 0).layers.__len__() == 2


def test_same_seed_same_numbers_and_variants_share_data():
    a, b = train(TrainConfig(**TINY), 5), train(TrainConfig(**TINY), 5)
    # same code run twice: bitwise
    assert a.history == b.history and np.array_equal(a.evaluation.prediction, b.evaluation.prediction)
    c = train(TrainConfig(**TINY), 6)
    assert c.history != a.history
    std = init_model(TrainConfig(**{**TINY, "variant": "standard", "gamma": 0}), 5)
    ko = init_model(TrainConfig(**TINY), 5)
    # same code run twice: bitwise (the same initialisation draws)
    assert np.array_equal(std.wte, ko.wte) and np.array_equal(std.layers[0].w_q, ko.layers[0].w_q)
    cfg = TrainConfig(**TINY)
    assert np.array_equal(batch_of(cfg, 4, [5, 1, 3]).tokens, batch_of(cfg, 4, [5, 1, 3]).tokens)


def test_low_pass_taps_stay_fixed_and_free_taps_move():
    lp = train(TrainConfig(**{**TINY, "variant": "low-pass", "gamma": 0.5}), 0, keep_model=True)
    assert np.array_equal(lp.model.layers[0].heads[0].k_taps, [1.5, 0.5])
    free = train(TrainConfig(**{**TINY, "variant": "free-two-tap", "gamma": 0}), 0, keep_model=True)
    assert not np.array_equal(free.model.layers[0].heads[0].k_taps, [1.0, 0.0])
    assert {"q_b0", "k_b1"} <= set(free.history[-1])


_RUN = ("import json, sys; from theorylab.nn.train import TrainConfig, train; "
        "r = train(TrainConfig(task='canonical', T=10, vocab=16, d_model=16, dk=16, steps=8, batch=16, "
        "eval_size=64), 3); print(json.dumps([h['loss'] for h in r.history] + [r.accuracy]))")


def test_results_do_not_depend_on_the_blas_thread_count():
    """The same run in fresh interpreters with 1 and 2 BLAS threads: bitwise the same losses."""
    out = []
    for threads in ("1", "2"):
        env = {**os.environ, **{k: threads for k in runner.BLAS_THREAD_VARIABLES}}
        proc = subprocess.run([sys.executable, "-c", _RUN], env=env, capture_output=True, text=True, check=True)
        out.append(json.loads(proc.stdout))
    # same code run twice: bitwise (OpenBLAS splits GEMM over output blocks, not the summed axis)
    assert out[0] == out[1]


def test_run_many_is_independent_of_workers_and_order():
    jobs = [(TrainConfig(**TINY), 1), (TrainConfig(**{**TINY, "variant": "symmetric"}), 2)]
    one = runner.run_many(jobs, workers=1)
    ticks = []
    two = runner.run_many(jobs[::-1], workers=2, progress=ticks.append)
    assert sum(ticks) == 12
    # same code run twice: bitwise (in worker processes)
    assert [r.history for r in one] == [r.history for r in two[::-1]]
    # same code run twice: bitwise
    assert np.array_equal(one[0].evaluation.prediction, train(*jobs[0]).evaluation.prediction)


def test_adamw_step_matches_the_formula():
    p, g = {"w": np.array([1.0, -2.0])}, {"w": np.array([0.5, 0.25])}
    opt = optim.AdamW(lr=0.1, weight_decay=0.2)
    new, state = optim.adamw_step(p, g, optim.init_state(p), opt, decay={"w"})
    m, v = 0.1 * g["w"], 0.001 * g["w"] ** 2
    expected = p["w"] * (1 - 0.1 * 0.2) - 0.1 * (m / 0.1) / (np.sqrt(v / 0.001) + 1e-8)
    np.testing.assert_allclose(new["w"], expected, rtol=1e-15)
    assert state.t == 1 and np.array_equal(p["w"], [1.0, -2.0])          # pure: inputs untouched
    clipped, norm = optim.clip_by_norm({"a": np.array([3.0, 4.0])}, 1.0)
    assert norm == 5.0 and np.allclose(clipped["a"], [0.6, 0.8])
    assert optim.learning_rate(0, 100, 1.0, 10) == pytest.approx(0.1)
    assert optim.learning_rate(99 + 1, 100, 1.0, 10) == pytest.approx(0.1)


def test_gamma_c_and_slope():
    g = [0, 0.5, 1, 2]
    assert trainstats.gamma_c(g, [0.0, 0.2, 0.6, 0.8]) == pytest.approx(0.5 + 0.2 / 0.4 * 0.5)
    assert trainstats.gamma_c(g, [0.5, 0.4, 0.3, 0.2]) is None
    with pytest.raises(ParameterError):
        trainstats.gamma_c([0.5, 1], [0.1, 0.2])
    assert trainstats.loglog_slope([8, 16, 32], [4, 2, 1]) == pytest.approx(-1.0)
    s = trainstats.seed_summary([0.5, 0.7, 0.6], 1200, 2000)
    assert s["mean"] == pytest.approx(0.6) and s["t_low"] < 0.6 < s["t_high"] and s["wilson_low"] < 0.6


def test_memory_estimate_grows_with_the_request():
    small, big = memory_estimate(TrainConfig()), memory_estimate(TrainConfig(batch=4096, pairs=60, alphabet=128))
    assert 1e5 < small < 1e9 < big


def test_cli_refuses_bad_input_in_one_line(capsys):
    for argv, word in ((["--variant", "standard", "--gamma", "1"], "gamma"), (["--seeds", "0"], "--seeds"),
                       (["--dk", "7"], "dk"), (["--batch", "100000", "--pairs", "60", "--alphabet", "128"], "GiB"),
                       (["--plot", "x.txt"], "--plot")):
        assert main(["train", "induction", *argv]) == 2
        err = capsys.readouterr().err
        assert word in err and len(err.strip().splitlines()) == 1


def test_cli_runs_and_prints_json(capsys):
    argv = ["train", "induction", "--task", "canonical", "--T", "8", "--vocab", "12", "--d-model", "8", "--dk", "8",
            "--steps", "4", "--batch", "4", "--eval-size", "20", "--seeds", "2", "--gamma", "0.5", "1",
            "--no-progress", "--workers", "1", "--format", "json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    # default --init: both initialisations of every coupled config, gamma-aware first
    assert [(r["gamma"], r["init"]) for r in out["rows"]] == [(0.5, "gamma-aware"), (0.5, "plain"),
                                                              (1.0, "gamma-aware"), (1.0, "plain")]
    assert len(out["runs"]) == 8
    assert all(r["seeds"] == 2 and 0 <= r["mean"] <= 1 and 0 <= r["pointer"] <= 1 for r in out["rows"])


@pytest.mark.slow
def test_trained_key_only_beats_standard_and_query_only_stays_at_the_ceiling():
    base = dict(task="canonical", T=10, vocab=32, d_model=32, dk=32, steps=400, batch=32, lr=1e-2, eval_size=1000)
    runs = runner.run_many([(TrainConfig(variant=v, gamma=g, **base), 0)
                            for v, g in (("key-only", 2.0), ("standard", 0.0), ("query-only", 2.0))])
    ko, std, qo = runs
    ceiling = 1 / (10 - 2)
    assert ko.accuracy > 3 * ceiling
    assert std.attention_accuracy < ceiling + 0.03 and qo.attention_accuracy < ceiling + 0.03


def test_bench_train_reports_a_ratio_and_equal_gradients(capsys):
    assert main(["bench", "train", "--steps", "1", "--repeat", "1", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["speedup_vs_baseline"] > 0 and out["max_rel_gradient_difference"] < 1e-12
    lib = {r["dtype"]: r for r in out["rows"] if r["implementation"].startswith("library")}
    assert set(lib) == {"float64", "float32"} and all(r["gemm_flops"] == 253255680 for r in lib.values())
    for r in lib.values():                                   # floor = FLOPs / rate, ratio = step / floor
        assert r["floor_ms"] > 0 and np.isclose(r["gemm_flops"] / (r["gemm_gflops"] * 1e9) * 1e3, r["floor_ms"])
        assert np.isclose(r["ratio_to_floor"], r["step_ms"] / r["floor_ms"])
    assert out["blas_threads"].startswith(("threadpoolctl", "environment"))

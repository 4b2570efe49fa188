"""The training route's parts that P21/P22 rest on: AdamW, global-norm clipping, the warm-up/cosine schedule, the
Wilson interval, the tasks and the worker pool (P21.training; PSA §7.4, §7.5).

Second route: ``theorylab.certificates.reference.optim`` (from the equations) and ``scipy.stats.binomtest``.
"""

import numpy as np

from theorylab.certificates import _reference_views as view
from theorylab.certificates.reference import transformer as ref
from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.errors import ParameterError
from theorylab.nn import decoder, grad, optim, tasks
from theorylab.nn.evaluation import batch_of
from theorylab.nn.train import TrainConfig, init_model, train
from theorylab.nn.params import parameters, with_parameters

PAPER_PAIRS, PAPER_CEILING = 14, 0.077
"""TrainConfig's documented defaults are the paper's tasks: associative recall with 14 pairs over an alphabet of 64,
3 PAD tokens, then the query (PSA A5, §7.4: 83.4 % vs 1.2 % at 14 pairs; T = 32, chance 1/64), and the §7.5 battery's
canonical induction model at T = 15, vocabulary 64, whose quoted ceiling is 0.077 (docs/results.md study f)."""
PROTOCOL = dict(variant="key-only", gamma=2.0, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.01, lr=5e-3, warmup=100, clip=1.0, batch=64,
                eval_size=2000, steps=800, d_model=64, mlp=0, base=10000.0, placement="post-rope")
"""The documented training protocol (docs/results.md, trained models: AdamW betas 0.9, 0.999, weight decay 0.01
on matrices, peak lr 5e-3, 100 warm-up steps, clipping at norm 1, 64 sequences per step, 2,000 held-out
sequences, 800 steps on recall, d_model 64, no MLP, RoPE base 10000 post-RoPE; its acceptance command runs
key-only at gamma 2 with the CLI's defaults, TrainConfig's); eps 1e-8 is AdamW's usual value.
The optimiser constants are read by the replay of the training loop, the others against TrainConfig()."""


def _workers_with_cpus(runner, n: int) -> int:
    """``runner.default_workers()`` on a machine where this process may use ``n`` CPUs (both OS queries patched)."""
    from unittest import mock

    with mock.patch("os.sched_getaffinity", lambda pid: set(range(n)), create=True), \
            mock.patch("os.cpu_count", lambda: n):
        return runner.default_workers()



def _worker_body(runner, config, seed, events):
    """A worker's body (``runner._job``) run in this process, its progress reports sent to ``events``
    as a pool's worker sends them to the parent (``theorylab._workers``: ``("report", steps)``)."""
    from theorylab import _workers

    saved, _workers._EVENTS = _workers._EVENTS, events
    try:
        return runner._job(config, seed, True, False)
    finally:
        _workers._EVENTS = saved


@certificate("P21.training", title="AdamW, global-norm clipping, warm-up/cosine schedule, Wilson interval and the "
                                   "associative-recall layout equal their definitions",
             paper="PSA §7.4, A5, A8.1", method="numeric",
             claim="The optimiser that trains the P21/P22 models is AdamW (Loshchilov & Hutter) with decoupled "
                   "weight decay, global-norm clipping and a linear warm-up then cosine decay to a tenth of the "
                   "peak; the accuracy intervals are Wilson score intervals; associative-recall sequences have "
                   "the stated layout (pairs, padding, query = a key, target = its value).")
def training_parts() -> Outcome:
    """Six AdamW steps on three arrays (two decayed) against ``theorylab.certificates.reference.optim``; clipping active
    and inactive; the schedule at every step of a 40-step run (warm-up 10) and past it; Wilson intervals
    against the reference quadratic's roots and scipy's ``binomtest(...).proportion_ci(method="wilson")``;
    500 associative-recall sequences (3 pairs, padding 2) read position by position, with fixed and with random
    padding placement."""
    opt_ok, opt_ev, arrays = _optimiser_parts()
    task_ok, task_ev, limits_ev, tokens = _task_and_init()
    runs_ok, runs_ev, loop_ev = _training_runs()
    return Outcome(bool(opt_ok and task_ok and runs_ok), (*opt_ev, *task_ev, *runs_ev, *limits_ev, *loop_ev),
        arrays={**arrays, "recall_tokens": tokens},
        note="second route: theorylab.certificates.reference.optim (from the equations) and scipy.stats.binomtest")


def _optimiser_parts() -> tuple[bool, tuple, dict]:
    """Six AdamW steps on three arrays (two decayed) against ``reference.optim``; clipping active and inactive; the
    schedule at every step of a 40-step run (warm-up 10) and past it; Wilson intervals against the reference
    quadratic's roots and scipy's ``binomtest(...).proportion_ci(method="wilson")``."""
    from scipy.stats import binomtest, norm

    from theorylab.certificates.reference import optim as ref_optim

    rng = np.random.default_rng(22)
    params = {"a": rng.normal(size=(3, 4)), "b": rng.normal(size=5), "c": rng.normal(size=(2, 2))}
    grads = [{k: rng.normal(size=p.shape) * 10.0 ** rng.integers(-2, 2) for k, p in params.items()} for _ in range(6)]
    hyper = dict(b1=0.8, b2=0.95, eps=1e-3, weight_decay=0.3)
    lrs = [ref_optim.schedule(s, 6, 0.05, 2) for s in range(6)]
    opt, state, new = optim.AdamW(0.05, **hyper), optim.init_state(params), params
    for g, lr in zip(grads, lrs):
        new, state = optim.adamw_step(new, g, state, opt, lr, {"a", "c"})
    want = ref_optim.adamw(params, grads, lrs, hyper["b1"], hyper["b2"], hyper["eps"], hyper["weight_decay"],
                           {"a", "c"})
    err_adam = max(float(np.max(np.abs(new[k] - want[k]))) for k in params)
    moved = min(float(np.max(np.abs(want[k] - params[k]))) for k in params)
    norm_all = float(np.sqrt(sum(np.sum(g * g) for g in grads[0].values())))
    err_clip, clipped_norms = 0.0, []
    for cap in (0.5 * norm_all, 2.0 * norm_all):
        (got, got_norm), (exp, exp_norm) = optim.clip_by_norm(grads[0], cap), ref_optim.clip(grads[0], cap)
        err_clip = max(err_clip, abs(got_norm - exp_norm) / exp_norm,
                       *(float(np.max(np.abs(got[k] - exp[k]))) / exp_norm for k in exp))
        clipped_norms.append(float(np.sqrt(sum(np.sum(g * g) for g in got.values()))) / cap)
    steps = range(0, 46)
    lib_lr = np.array([optim.learning_rate(s, 40, 0.02, 10) for s in steps])
    ref_lr = np.array([ref_optim.schedule(s, 40, 0.02, 10) for s in steps])
    err_lr = float(np.max(np.abs(lib_lr - ref_lr)) / 0.02)
    edge = [(s, 11, 0.02, 10) for s in range(8, 14)] + [(s, 1, 0.02, 0) for s in range(3)]   # one decay step: S - W = 1
    err_lr = max(err_lr, max(abs(optim.learning_rate(*c) - ref_optim.schedule(*c)) for c in edge) / 0.02)
    cases = [(0, 20, 1.959964), (3, 20, 2.5758), (20, 20, 3.89), (1234, 2000, 1.0), (7, 9, 0.5), (1, 3, 3.0)]
    err_wilson = err_scipy = 0.0
    for hits, n, z in cases:
        lib = np.array(tasks.wilson_interval(hits, n, z=z))
        err_wilson = max(err_wilson, float(np.max(np.abs(lib - ref_optim.wilson(hits, n, z)))))
        ci = binomtest(hits, n).proportion_ci(confidence_level=1 - 2 * norm.sf(z), method="wilson")
        err_scipy = max(err_scipy, float(np.max(np.abs(lib - [ci.low, ci.high]))))
    ok = bool(err_adam <= 1e-13 and moved > 1e-3 and err_clip <= 1e-14 and abs(clipped_norms[0] - 1) <= 1e-14
              and clipped_norms[1] == 0.5 and err_lr <= 1e-14 and abs(lib_lr[9] / 0.02 - 1) <= 1e-15
              and abs(lib_lr[40] / 0.02 - 0.1) <= 1e-15 and err_wilson <= 1e-12 and err_scipy <= 1e-12)
    return ok, (
        computed("AdamW, 6 steps (scheduled lr, decay on 2 of 3 arrays): max |library - reference|", err_adam,
                 tolerance=1e-13),
        computed("smallest change of an array over the 6 steps (the updates are exercised)", moved),
        computed("clipping (active, inactive): max relative |library - reference| incl. the norm", err_clip,
                 tolerance=1e-14),
        bound("clipped norm / cap: active (attained), inactive (untouched, = 1/2)", clipped_norms,
              formula="norm after clipping = cap when ||g|| > cap"),
        computed("schedule, steps 0..45 of a 40-step run, warm-up 10, and runs with S - W = 1: max |library - "
                 "reference| / peak", err_lr,
                 tolerance=1e-14),
        bound("schedule at the end of warm-up and at the last step, / peak", [float(lib_lr[9] / 0.02),
                                                                              float(lib_lr[40] / 0.02)],
              formula="1 (peak attained), 0.1 (floor attained)"),
        computed(f"Wilson interval, {len(cases)} cases: max |library - reference quadratic roots|", err_wilson,
                 tolerance=1e-12),
        computed("Wilson interval: max |library - scipy binomtest proportion_ci(wilson)|", err_scipy,
                 tolerance=1e-12)), {"adamw_library": np.concatenate([np.ravel(new[k]) for k in params]), "schedule_library": lib_lr}


def _random_padding_layout(pairs: int, alphabet: int, padding: int) -> tuple[bool, int]:
    """Associative recall with ``padding_placement="random"`` (500 sequences), read position by position: before
    the query, exactly ``padding`` PAD tokens and the pairs in the other positions, each key directly followed by
    its value, the keys distinct; the query is a key and the target the position right after it (its value).
    Every one of the C(pairs + padding, padding) arrangements of the PAD slots among the pair slots occurs.
    Returns the verdict and the number of arrangements seen (False, 0 where the library refuses)."""
    from math import comb

    try:
        batch = tasks.associative_recall(500, pairs, alphabet, padding, seed=6, padding_placement="random")
    except (ParameterError, ValueError, IndexError):
        return False, 0
    t, ok, seen = batch.tokens, True, set()
    ok &= t.shape == (500, 2 * pairs + padding + 1) and int(t.max()) <= alphabet
    for row, target in zip(t, batch.target):
        body = row[:-1]
        filled = np.flatnonzero(body != alphabet)                    # positions of keys and values
        keys_at = filled[0::2]
        ok &= (int(np.sum(body == alphabet)) == padding and len(filled) == 2 * pairs
               and bool(np.all(filled[1::2] == keys_at + 1)) and len(set(body[keys_at])) == pairs
               and int(target) - 1 in set(keys_at) and body[target - 1] == row[-1])
        slots = []                                                   # the slot sequence: PAD or pair, in order
        i = 0
        while i < len(body):
            slots.append(body[i] == alphabet)
            i += 1 if body[i] == alphabet else 2
        seen.add(tuple(slots))
    return bool(ok and len(seen) == comb(pairs + padding, padding)), len(seen)


def _task_and_init() -> tuple[bool, tuple, tuple, np.ndarray]:
    """Associative recall's documented layout (500 sequences, 3 pairs, padding 2), the initial weights' documented
    laws and TrainConfig's lower limits; returns the verdict, the recall/init evidence, the limits evidence and the
    recall tokens."""
    pairs, padding, alphabet = 3, 2, 7
    batch = tasks.associative_recall(500, pairs, alphabet, padding, seed=4)
    config = TrainConfig(task="recall", pairs=pairs, alphabet=alphabet, padding=padding)
    t, rows = batch.tokens, np.arange(len(batch.tokens))
    keys, values = t[:, 0:2 * pairs:2], t[:, 1:2 * pairs:2]
    layout = (t.shape == (500, 2 * pairs + padding + 1) == (500, config.seq_len)
              and config.vocab_size == alphabet + 1 == int(t.max()) + 1 and config.chance == 1 / alphabet)
    # documented initial projections N(0, 1/fan_in) (train.init_model; decoder.random_decoder, d = 64): the
    # second moment of each matrix times its fan-in (rows), ~1 +- 0.03 over >= 1024 entries; far outside for any
    # other scale (a factor 2 in std gives 4)
    # (init="plain"); the default init="gamma-aware" divides W_K of key-only at gamma 2 by the documented stream
    # gain sqrt((1 + g)^2 + g^2) = sqrt(13) and leaves W_Q, W_V, W_O (docs/training.md): those ratios x gain^2
    init_ratios = []
    for model in (init_model(TrainConfig(init="plain"), 0), decoder.random_decoder(d=64, n_head=2, n_layer=1, seed=0)):
        for layer in model.layers:
            init_ratios += [float(np.mean(W * W) * W.shape[0]) for W in (layer.w_q, layer.w_k, layer.w_v, layer.w_o)]
    g = TrainConfig().gamma
    (aware,) = init_model(TrainConfig(), 0).layers
    init_ratios += [float(np.mean(W * W) * W.shape[0]) * gain for W, gain in
                    ((aware.w_q, 1.0), (aware.w_k, (1 + g) ** 2 + g ** 2), (aware.w_v, 1.0), (aware.w_o, 1.0))]
    # the token embedding: documented N(0, 0.02^2) (train.init_model): sum w^2 / 0.02^2 over its n = 65 x 64 entries
    # is chi-square(n); its [1e-7, 1 - 1e-7] quantiles / n (false failure 2e-7) hold it (0.01 or 0.04 give 1/4, 4)
    from scipy.stats import chi2
    emb = init_model(TrainConfig(init="plain"), 0).wte
    emb_ratio, emb_band = float(np.sum(emb * emb)) / 0.02 ** 2 / emb.size, chi2.ppf([1e-7, 1 - 1e-7], emb.size) / emb.size
    init_ok = all(0.8 <= r <= 1.25 for r in init_ratios) and emb.shape == (65, 64) and \
        emb_band[0] <= emb_ratio <= emb_band[1]
    # random_decoder's documented law of the other arrays (d = 64, 4 layers, the default vocabulary 32): LayerNorm
    # gains 1 + 0.1 z, LayerNorm biases and MLP biases 0.1 z, embedding z (z standard normal). Per kind: the mean
    # (within 4 standard errors of the documented centre) and the second moment about the centre / scale^2 (in
    # [0.75, 1.33]; a factor 2 in the scale gives 4 or 1/4)
    rd = decoder.random_decoder(d=64, n_layer=4, seed=1)
    lns = [rd.ln_f] + [ln for layer in rd.layers for ln in (layer.ln1, layer.ln2)]
    kinds = {"LayerNorm gain": (np.concatenate([g for g, _ in lns]), 1.0, 0.1),
             "LayerNorm bias": (np.concatenate([b for _, b in lns]), 0.0, 0.1),
             "MLP input bias": (np.concatenate([layer.b_fc for layer in rd.layers]), 0.0, 0.1),
             "MLP output bias": (np.concatenate([layer.b_proj for layer in rd.layers]), 0.0, 0.1),
             "embedding": (rd.wte.ravel(), 0.0, 1.0)}
    init_law = {k: (float((x.mean() - c) / (s / np.sqrt(x.size))), float(np.mean((x - c) ** 2) / s ** 2))
                for k, (x, c, s) in kinds.items()}
    small = decoder.random_decoder()                     # the documented default shape: vocab 32, d 16, 2 x 2 heads
    init_law_ok = (all(abs(m) <= 4 and 0.75 <= r <= 1.33 for m, r in init_law.values())
                   and small.wte.shape == (32, 16) and (small.n_head, len(small.layers)) == (2, 2)
                   and rd.wte.shape == (32, 64) and (rd.n_head, len(rd.layers)) == (2, 4))
    edges = {}                                            # documented lower limits, each attained and crossed
    for name, low in (("d_model", 1), ("mlp", 0), ("steps", 1), ("batch", 1), ("warmup", 0), ("eval_size", 1),
                      ("log_every", 1)):
        for value in (low, low - 1):
            try:
                TrainConfig(**{name: value})
                edges[(name, value)] = value == low
            except ParameterError:
                edges[(name, value)] = value < low
    layout = (layout
              and batch_of(config, 3, [0]).tokens.shape == (3, 2 * pairs + padding + 1) and bool(np.all(t[:, 2 * pairs:-1] == alphabet))
              and bool(np.all(keys < alphabet)) and bool(np.all(values < alphabet))
              and all(len(set(r)) == pairs for r in keys) and bool(np.all(t[rows, batch.target - 1] == t[:, -1]))
              and bool(np.all((batch.target % 2 == 1) & (batch.target < 2 * pairs)))
              and set(np.unique(batch.target)) == {2 * i + 1 for i in range(pairs)})
    random_ok, arrangements = _random_padding_layout(pairs, alphabet, padding)
    ok = bool(layout and random_ok and init_ok and init_law_ok and all(edges.values()))
    return ok, (
        computed("associative recall (500 sequences, 3 pairs, padding 2): layout as documented, T = 2 pairs + "
                 "padding + 1 (task and training config), vocabulary alphabet + PAD, chance 1/alphabet", bool(layout)),
        computed("associative recall, padding_placement 'random' (500 sequences, 3 pairs, padding 2): 2 PAD, each key "
                 "followed by its value, distinct keys, query = a key, target = its value; PAD arrangements seen",
                 [bool(random_ok), arrangements], formula="all C(5, 2) = 10 arrangements"),
        computed("initial projections N(0, 1/fan_in): mean W^2 x fan-in per matrix (init_model, random_decoder)",
                 [round(r, 3) for r in init_ratios], formula="in [0.8, 1.25]"),
        computed("token embedding N(0, 0.02^2) (init_model, 65 x 64): sum w^2 / (0.02^2 n) in the chi-square(n) / n "
                 "band [q(1e-7), q(1 - 1e-7)]", [round(emb_ratio, 4), [round(float(b), 4) for b in emb_band]],
                 formula="false failure 2e-7"),
        computed("random_decoder law (d = 64, 4 layers): per kind (mean - centre) / SE and E(x - centre)^2 / "
                 "scale^2; default shape (32 tokens, d 16, 2 heads, 2 layers)", init_law,
                 formula="|z| <= 4 and ratio in [0.75, 1.33]; gains 1 + 0.1 N, biases 0.1 N, embedding N(0, 1)")), (
        computed("TrainConfig lower limits d_model, steps, batch, eval_size, log_every >= 1 and mlp, warmup >= 0: "
                 "accepted at the limit, refused below it", all(edges.values())),), t


def _training_runs() -> tuple[bool, tuple, tuple]:
    """A tiny two-layer training run (d_model != dk) in worker processes and in this process: progress, results and
    timing (:func:`_worker_runs`), the summary rows (:func:`_run_rows`) and the loop replayed against the reference
    optimiser (:func:`_loop_replay`); returns the verdict, the evidence before TrainConfig's limits and after."""
    tiny = TrainConfig(variant="two-layer", gamma=0, task="canonical", T=6, vocab=7, d_model=8, dk=4, steps=6,
                       batch=4, lr=1e-2, warmup=2, eval_size=8, log_every=2)
    run, worker_ok, timing_ok, worker_ev = _worker_runs(tiny)
    rows_ok = _run_rows(run, tiny)
    replay_ok, replay_ev, loop_ev = _loop_replay(run, tiny)
    ok = bool(worker_ok and timing_ok and rows_ok and replay_ok)
    return ok, (*worker_ev,
        computed("TrainResult.row (two-layer and free two-tap runs, and a one-step free two-tap run): every field = its definition (last logged loss and "
                 "taps = the trained taps, mean credits, reference Wilson interval at z = 1.96)", bool(rows_ok)), *replay_ev), loop_ev


def _worker_runs(tiny):
    """``runner.run_many`` (2 workers, BLAS pinned, the environment restored after) against the same runs in this
    process (the worker body with a queue; train() without progress): job order, identical runs, progress ticks,
    default workers, recorded seconds within the measured ones."""
    import dataclasses
    import os
    import queue
    import time

    from theorylab.nn import runner

    # the training loop itself, on a tiny two-layer run with d_model != dk: the logged steps (every log_every-th and
    # the last), the logged schedule, and the step-0 loss against the reference cross-entropy of the initial model
    # in worker processes (runner.run_many, 2 workers, BLAS pinned, the environment restored after) and in this
    # process (the worker body with a queue; train() without progress): results in the order of the jobs, identical
    # runs; progress in ticks of TICK steps, the rest at the end (6 and 12 steps: TICK = 10 of the docstring,
    # checked for any TICK in 7..11); no jobs, no runs
    longer = dataclasses.replace(tiny, steps=12)
    reported, blas, ticks = [], {k: os.environ.get(k) for k in runner.BLAS_THREAD_VARIABLES}, queue.Queue()
    wall_many = time.perf_counter()
    run, other = runner.run_many([(tiny, 3), (longer, 4)], workers=2, progress=reported.append, keep_model=True)
    wall_many = time.perf_counter() - wall_many
    wall, cpu = time.perf_counter(), time.process_time()
    quiet = train(tiny, seed=3)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    here = _worker_body(runner, longer, 4, ticks)
    # the recorded wall-clock and CPU seconds of a run: positive and at most the durations measured around the call
    # (in the workers: at most the run_many wall time, and the CPU time at most that times the CPUs)
    cpus = os.cpu_count() or 1
    timing_ok = (0 < quiet.seconds <= wall and 0 < quiet.cpu_seconds <= cpu
                 and all(0 < r.seconds <= wall_many and 0 < r.cpu_seconds <= wall_many * cpus for r in (run, other)))
    here_ticks = [value for kind, value in (ticks.get_nowait() for _ in range(ticks.qsize())) if kind == "report"]
    split = [runner.TICK, longer.steps - runner.TICK]
    # quiet vs run, here vs other: the same code run twice (no progress / progress, this process / a worker): bitwise
    worker_ok = (sorted(reported) == sorted([tiny.steps] + split) and here_ticks == split
                 and runner.run_many([], workers=2) == [] and (run.seed, other.seed) == (3, 4)
                 and quiet.history == run.history and here.history == other.history
                 and np.array_equal(quiet.evaluation.prediction, run.evaluation.prediction)
                 and np.array_equal(here.evaluation.prediction, other.evaluation.prediction)
                 and other.model is not None and here.model is None and runner.default_workers() == min(
                     2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
                 and _workers_with_cpus(runner, 1) == 1 and _workers_with_cpus(runner, 3) == 2
                 and blas == {k: os.environ.get(k) for k in runner.BLAS_THREAD_VARIABLES})
    return run, worker_ok, timing_ok, (
        computed("runner.run_many (2 workers; 6 and 12 steps): progress ticks; results in job order = the runs in "
                 "this process; BLAS variables restored; no jobs -> no runs; default workers = min(2, CPUs) (here, and with 1 and 3 CPUs)",
                 [sorted(reported), here_ticks, bool(worker_ok)]),
        computed("recorded seconds and CPU seconds of runs: in (0, wall-clock / CPU time measured around train()] "
                 "(in workers: <= run_many wall time, CPU <= that x CPUs)",
                 [quiet.seconds, wall, quiet.cpu_seconds, cpu, bool(timing_ok)]))


def _run_rows(run, tiny) -> bool:
    """TrainResult.row of the two-layer run, a free two-tap run and a one-step free two-tap run against the
    definitions of its fields (last logged loss and taps, mean credits, the reference Wilson interval at 1.96)."""
    import dataclasses

    from theorylab.certificates.reference import optim as ref_optim

    # the summary row of a run (free two-tap, 1 layer: attention credit and taps) against its parts: the last logged
    # loss and taps (= the trained model's taps), the mean credits, the reference Wilson interval at z = 1.96
    free = train(dataclasses.replace(tiny, variant="free-two-tap"), seed=5, keep_model=True)
    rows_ok = True
    for r in (run, free):
        row, last, pred = r.row(), r.history[-1], r.evaluation.prediction
        want_row = {"variant": r.config.variant, "gamma": 0.0, "task": "canonical", "dk": 4, "seed": r.seed, "steps": 6,
                    "accuracy": float(np.mean(pred)), "eval_loss": r.evaluation.loss, "final_train_loss": last["loss"],
                    "seconds": r.seconds, "cpu_seconds": r.cpu_seconds,
                    "attention_accuracy": None if r.evaluation.attention is None else float(np.mean(r.evaluation.attention)),
                    "pointer_accuracy": float(np.mean(r.evaluation.pointer)), "init": r.config.init,
                    "lr_scale": r.config.lr_scale, "loss": r.config.loss,
                    "padding_placement": r.config.padding_placement, "step0_score_std": r.step0_score_std,
                    "step0_max_weight": r.step0_max_weight}
        if r is free:
            spec = r.model.layers[0].heads[0]
            want_row.update(q_b0=float(spec.q_taps[0]), q_b1=float(spec.q_taps[1]), k_b0=float(spec.k_taps[0]),
                            k_b1=float(spec.k_taps[1]))
        lo, hi = ref_optim.wilson(float(np.sum(pred)), len(pred), 1.96)
        rows_ok &= (set(row) == set(want_row) | {"ci_low", "ci_high"} and all(row[k] == v for k, v in want_row.items())
                    and max(abs(row["ci_low"] - lo), abs(row["ci_high"] - hi)) <= 1e-12
                    and len(r.history) == 4 and r.history[1]["loss"] != last["loss"])
    once = train(dataclasses.replace(tiny, variant="free-two-tap", steps=1, warmup=0), seed=5)   # one logged row
    rows_ok = (rows_ok and free.evaluation.attention is not None and free.history[1]["q_b1"] != free.history[-1]["q_b1"]
                and len(once.history) == 1 and {k: once.row()[k] for k in ("final_train_loss", "q_b0", "k_b1")}
                == {"final_train_loss": once.history[0]["loss"], "q_b0": once.history[0]["q_b0"],
                    "k_b1": once.history[0]["k_b1"]})
    return bool(rows_ok)


def _query_rows(run, tiny, init, first, held):
    """The last layer's first-head query row from the reference forward pass (reference.trainstats.query_row, RoPE
    streams of SDPA): the recorded step-0 statistics (score std over every (sequence, key), mean largest weight of
    the initial model on the first batch) and the held-out pointer credits (argmax over the T - 1 keys before the
    query = target) of the two-layer run."""
    from theorylab.certificates.reference import trainstats as ref_stats

    def stream(x):
        return ref.rope(x, tiny.base)
    s0, w0 = ref_stats.query_row(view.model(init), first.tokens, stream)
    _, w = ref_stats.query_row(view.model(run.model), held.tokens, stream)
    pointer = (w[:, :-1].argmax(axis=1) == held.target).astype(float)
    err0 = max(abs(run.step0_score_std - float(np.std(s0))) / float(np.std(s0)),
               abs(run.step0_max_weight - float(np.mean(w0.max(axis=1)))))
    ok = bool(err0 <= 1e-12 and np.array_equal(run.evaluation.pointer, pointer))
    return ok, (computed("two-layer run, last layer's query row vs reference forward: recorded step-0 (score std, "
                         "max weight) relative/abs error; held-out pointer credits equal",
                         [err0, bool(np.array_equal(run.evaluation.pointer, pointer))], tolerance=1e-12),)


def _loop_replay(run, tiny):
    """The training loop replayed: the library gradient fed to the reference optimiser with the documented protocol
    must give the trained parameters; the logged steps and schedule, the step-0 and held-out losses against the
    reference; TrainConfig's documented defaults."""
    from theorylab.certificates.reference import optim as ref_optim

    canonical = TrainConfig(task="canonical", variant="standard", gamma=0)
    init = init_model(tiny, 3)
    # the loop replayed: the library gradient (certified by P21.grad) fed to the reference optimiser with the
    # documented protocol (AdamW betas 0.9, 0.999, eps 1e-8, decay on the matrices, clipping, schedule, one
    # fresh batch per step): the trained parameters must be the replay's
    # mlp = 0 is no MLP block (docs/training.md): its bias and LayerNorm are not trained and must stay as drawn
    mlp_block = ("w_fc", "b_fc", "w_proj", "b_proj", "ln2.0", "ln2.1")
    every = parameters(init)
    start = {k: a for k, a in every.items() if not (k.startswith("layers.") and k.split(".", 2)[2] in mlp_block)}

    def gradient(w, t):
        b = batch_of(tiny, tiny.batch, [3, 1, t])
        full = grad.loss_and_grad(with_parameters(init, w), b.tokens, b.tokens[np.arange(tiny.batch),
                                                                                        b.target])[1]
        return {k: full[k] for k in start}
    replay = ref_optim.adamw_run(start, gradient, [ref_optim.schedule(t, 6, 1e-2, 2) for t in range(6)],
                                 PROTOCOL["b1"], PROTOCOL["b2"], PROTOCOL["eps"], tiny.weight_decay,
                                 {k for k, a in start.items() if np.ndim(a) == 2}, max_norm=tiny.clip)
    trained = parameters(run.model)
    err_replay = max(float(np.max(np.abs(trained[k] - replay[k])) / max(1.0, np.max(np.abs(replay[k]))))
                     for k in replay if np.size(replay[k]))
    err_replay = max([err_replay] + [float(np.max(np.abs(trained[k] - every[k]), initial=0.0))
                                     for k in every if k not in start])          # the MLP block: untouched
    protocol_ok = all(getattr(TrainConfig(), k) == v for k, v in PROTOCOL.items() if hasattr(TrainConfig, k))
    first, held = batch_of(tiny, tiny.batch, [3, 1, 0]), batch_of(tiny, tiny.eval_size, [3, 2])
    ref_loss0 = ref.last_token_loss(view.model(init), first.tokens, first.tokens[np.arange(4), first.target])
    held_answers = held.tokens[np.arange(tiny.eval_size), held.target]
    held_logits = np.stack([ref.forward(view.model(run.model), r)[-1] for r in held.tokens])
    ref_eval_loss = ref.last_token_loss(view.model(run.model), held.tokens, held_answers)
    loop_ok = ([r["step"] for r in run.history] == [0, 2, 4, 5]
               and all(abs(r["lr"] - ref_optim.schedule(r["step"], 6, 1e-2, 2)) <= 1e-17 for r in run.history)
               and abs(run.history[0]["loss"] - ref_loss0) <= 1e-13 * ref_loss0
               and abs(run.evaluation.loss - ref_eval_loss) <= 1e-13 * ref_eval_loss and run.evaluation.attention is None
               and np.array_equal(run.evaluation.prediction, (held_logits.argmax(axis=1) == held_answers).astype(float))
               and [len(init_model(TrainConfig(variant=v, gamma=0, d_model=8, dk=4), 0).layers)
                    for v in ("standard", "two-layer")] == [1, 2] == [TrainConfig(variant=v, gamma=0).n_layer
                                                                     for v in ("standard", "two-layer")]
               and (TrainConfig().task, TrainConfig().pairs, TrainConfig().seq_len, TrainConfig().chance)
               == ("recall", PAPER_PAIRS, 2 * PAPER_PAIRS + 3 + 1, 1 / 64)
               and (canonical.T, canonical.vocab_size, round(canonical.ceiling, 3)) == (15, 64, PAPER_CEILING))
    rows_ok, rows_ev = _query_rows(run, tiny, init, first, held)
    ok = bool(err_replay <= 1e-12 and protocol_ok and loop_ok and rows_ok)
    return ok, (*rows_ev,
        computed("training loop replayed (library gradient, reference AdamW at betas 0.9, 0.999, eps 1e-8, decay "
                 "on matrices, clipping, schedule): max relative |trained - replay| over the parameters",
                 err_replay, tolerance=1e-12),
        computed(f"TrainConfig defaults = the documented protocol (docs/results.md): {PROTOCOL}", bool(protocol_ok))), (
        computed("training loop (two-layer, d_model 8, dk 4, 6 steps, log_every 2): logged steps 0, 2, 4, 5; logged lr "
                 "= reference schedule; step-0 loss and held-out loss and credits of the trained model = reference (rel. 1e-13); 1 layer (standard) and 2 "
                 f"(two-layer); defaults = the paper's tasks (recall: {PAPER_PAIRS} pairs, alphabet 64, padding 3, T = 32; "
                 f"canonical: T = 15, vocabulary 64, ceiling {PAPER_CEILING})", bool(loop_ok),
                 formula=f"history steps {[r['step'] for r in run.history]}, step-0 loss {run.history[0]['loss']!r} "
                         f"vs {ref_loss0!r}"),)

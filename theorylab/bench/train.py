"""``theorylab bench train``: the training step against its GEMM floor and a naive step, same run.

Problem: the default training configuration (``TrainConfig()``: associative recall, 14 pairs,
T = 32, one key-only PSA head, d_model = dk = 64, no MLP, batch 64). Library step: one step of
``theorylab.nn.train``'s loop (``grad._loss_and_grad``: batched forward with a trace and the
hand-derived backward; gradient clipping; the in-place AdamW update), in float64 and in float32
(``TrainConfig(dtype="float32")``).

Reported, all measured in this run with BLAS pinned to one thread (threadpoolctl when installed;
otherwise the benchmark re-executes itself with ``OPENBLAS_NUM_THREADS = OMP_NUM_THREADS =
MKL_NUM_THREADS = 1``, as ``theorylab.nn.runner``'s workers do):

* ``gemm_flops``: the floating-point operations of the step's matrix products, forward and
  backward, counted from their shapes (:func:`step_gemms`, :func:`step_flops`; 2 M K N per
  ``(M, K) @ (K, N)``);
* ``gemm_gflops``: the machine's GEMM rate on those products: each product of the list timed
  alone on random operands of its own shape and float type (contiguous, best of ``--repeat``),
  rate = FLOPs / the summed times;
* ``floor_ms``: FLOPs / rate, i.e. the time of the step's products alone;
* ``step_ms`` and ``ratio_to_floor`` = step / floor (what the rest of the step costs on top of its
  products);

Times are CPU seconds of this process (``time.process_time``; one BLAS thread), so that the other
jobs of a busy machine are not counted; cache contention from them still is: run it on a quiet
machine (the summary prints the load average).
* the naive baseline (float64): the same gradient one sequence at a time (a Python loop over the
  batch calling ``loss_and_grad`` on batches of one and averaging), its ratio
  ``speedup_vs_baseline`` and the largest relative gradient difference between the two.
"""
from __future__ import annotations

import math
import os
import time


def timed(fn) -> float:
    """CPU seconds of this process during one call ``fn()`` (``time.process_time``: with BLAS on one thread, the
    step's own time, not the other jobs' of a busy machine)."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def register(sub) -> None:
    from theorylab.cli._output import add_format_option

    p = sub.add_parser("train", help="training step vs its GEMM floor and vs a per-sequence loop (float64, float32)")
    p.add_argument("--steps", type=int, default=20, help="timed steps of each (default 20)")
    p.add_argument("--repeat", type=int, default=3, help="timed repetitions; the best is reported (default 3)")
    add_format_option(p)
    p.set_defaults(handler=run)


def step_gemms(config) -> list[tuple[str, tuple[int, ...], tuple[int, ...], int]]:
    """The matrix products of one training step of ``config``: ``(what, a_shape, b_shape, count)``.

    Shapes are ``(..., M, K)`` and ``(..., K, N)`` (leading batch axes shared); ``count`` products of
    that shape per step. One head of width ``dk`` per layer (``theorylab.nn.train``'s models); the loss
    reads the last position only, so the output layer works on ``batch`` rows. The MLP's backward
    pass recomputes its first product (``grad.mlp_vjp``), which is counted.

    Parameters
    ----------
    config : theorylab.nn.train.TrainConfig
        The run's configuration.

    Returns
    -------
    list of (str, tuple, tuple, int)
        One entry per product shape: what it is, the two operand shapes, how many per step.
    """
    B, T, d, dk, m, V = config.batch, config.seq_len, config.d_model, config.dk, config.mlp, config.vocab_size
    N = B * T                                                   # rows of the residual stream
    layer = [("forward: x W_q, x W_k, x W_v", (N, d), (d, dk), 3),
             ("forward: scores q k^T", (B, T, dk), (B, dk, T), 1),
             ("forward: weights p v", (B, T, T), (B, T, dk), 1),
             ("forward: a W_O", (N, dk), (dk, d), 1)]
    if m:
        layer += [("forward: u W_fc (and again in the backward pass)", (N, d), (d, m), 2),
                  ("forward: gelu W_proj", (N, m), (m, d), 1),
                  ("backward: dy W_proj^T", (N, d), (d, m), 1),
                  ("backward: dh W_fc^T", (N, m), (m, d), 1),
                  ("backward: grad W_proj = gelu^T dy", (m, N), (N, d), 1),
                  ("backward: grad W_fc = u^T dh", (d, N), (N, m), 1)]
    layer += [("backward: grad W_O = a^T dmid", (dk, N), (N, d), 1),
              ("backward: da = dmid W_O^T", (N, d), (d, dk), 1),
              ("backward: p^T dout, ds ks, ds^T qs", (B, T, T), (B, T, dk), 3),
              ("backward: dout v^T", (B, T, dk), (B, dk, T), 1),
              ("backward: grads W_q, W_k, W_v = u^T d(q, k, v)", (d, N), (N, dk), 3),
              ("backward: du = d(q, k, v) W^T", (N, dk), (dk, d), 3)]
    out = [("forward: logits LN_f(h) wte^T", (B, d), (d, V), 1),
           ("backward: dlogits wte", (B, V), (V, d), 1),
           ("backward: grad wte = dlogits^T LN_f(h)", (V, B), (B, d), 1)]
    return [(w, a, b, c * config.n_layer) for w, a, b, c in layer] + out


def gemm_flops(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> int:
    """``2 M K N`` times the batch size of one product ``(..., M, K) @ (..., K, N)``."""
    return 2 * math.prod(a_shape) * b_shape[-1]


def step_flops(config) -> int:
    """GEMM floating-point operations of one training step of ``config`` (forward and backward).

    Parameters
    ----------
    config : theorylab.nn.train.TrainConfig
        The run's configuration (batch, sequence length, widths, MLP, vocabulary, layers).

    Returns
    -------
    int
        The sum over :func:`step_gemms` of ``count x 2 M K N x batch``; for one layer without MLP,
        ``24 N d dk + 12 B T^2 dk + 6 B d V`` (N = B T rows).
    """
    return sum(c * gemm_flops(a, b) for _, a, b, c in step_gemms(config))


def gemm_floor(config, dtype: str, repeat: int) -> float:
    """Seconds of the step's products (:func:`step_gemms`) alone: each timed on random ``dtype`` operands of its
    shape, best of ``repeat`` (a few calls each), times its count, summed."""
    import numpy as np

    rng = np.random.default_rng(0)
    total = 0.0
    for _, a_shape, b_shape, count in step_gemms(config):
        a = rng.standard_normal(a_shape).astype(dtype)
        b = rng.standard_normal(a_shape[:-2] + b_shape[-2:]).astype(dtype)
        calls = 5
        a @ b                                                   # warm
        best = min(timed(lambda: [a @ b for _ in range(calls)]) for _ in range(repeat)) / calls
        total += count * best
    return total


def naive_grad(model, tokens, answers):
    """Loss and gradient of a batch, one sequence at a time (the baseline)."""
    from theorylab.nn import grad

    total, loss = {}, 0.0
    for t, a in zip(tokens, answers):
        lo, g, _ = grad.loss_and_grad(model, t[None], a[None])
        loss += lo / len(tokens)
        for k, v in g.items():
            total[k] = total.get(k, 0.0) + v / len(tokens)
    return loss, total


def library_step_seconds(config, steps: int, repeat: int) -> float:
    """Seconds per step of ``theorylab.nn.train``'s loop body on ``config`` (best of ``repeat`` runs of ``steps``)."""
    import numpy as np

    from theorylab.nn import evaluation, grad, optim, train
    from theorylab.nn.params import parameters, with_parameters

    model = train.init_model(config, 0)
    names = train.trainable(config, model)
    decay = {k for k in names if k == "wte" or k.split(".")[-1].startswith("w_")}
    opt = optim.AdamW(config.lr, weight_decay=config.weight_decay)
    params = {k: v.copy() for k, v in parameters(model).items()}
    state = optim.init_state({k: params[k] for k in names})
    batches = [evaluation._batch(config, config.batch, [0, 1, s]) for s in range(steps)]

    def run_steps():
        nonlocal model, state
        for s, batch in enumerate(batches):
            with np.errstate(over="ignore", invalid="ignore"):
                _, g, _ = grad._loss_and_grad(model, batch.tokens, evaluation.answers(batch))
                g, _ = optim._clip_by_norm({k: g[k] for k in names}, config.clip)
            state = optim._adamw_update(params, g, state, opt, optim._learning_rate(s, config.steps, config.lr,
                                                                                    config.warmup), decay)
            model = with_parameters(model, params)

    run_steps()                                                 # warm (tables, allocator)
    return min(timed(run_steps) for _ in range(repeat)) / steps


def run(args) -> int:
    from theorylab.errors import positive_int

    positive_int("--steps", args.steps), positive_int("--repeat", args.repeat)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    if threadpool_limits is not None:
        with threadpool_limits(limits=1):
            return _measure(args, "threadpoolctl (1 thread)")
    from theorylab.nn.runner import BLAS_THREAD_VARIABLES

    if all(os.environ.get(v) == "1" for v in BLAS_THREAD_VARIABLES):
        return _measure(args, "environment (" + ", ".join(f"{v}=1" for v in BLAS_THREAD_VARIABLES) + ")")
    return _reexecute(args, BLAS_THREAD_VARIABLES)


def _reexecute(args, variables) -> int:
    """Run this benchmark again in a fresh interpreter whose BLAS reads one thread from the environment."""
    import subprocess
    import sys

    argv = [sys.executable, "-m", "theorylab", "bench", "train", "--steps", str(args.steps), "--repeat",
            str(args.repeat), "--format", args.format]
    done = subprocess.run(argv, env={**os.environ, **{v: "1" for v in variables}}, capture_output=True, text=True)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return done.returncode


def _measure(args, pinning: str) -> int:
    import numpy as np

    from theorylab.cli._output import emit
    from theorylab.nn import _heap, evaluation, grad, train

    _heap.retain_freed_memory()                                 # as train.train does

    steps, repeat = args.steps, args.repeat
    config = train.TrainConfig()
    flops = step_flops(config)
    rows = []
    for dtype in train.DTYPES:
        cfg = train.TrainConfig(dtype=dtype)
        step = library_step_seconds(cfg, steps, repeat)
        floor = gemm_floor(cfg, dtype, repeat)
        rows.append({"implementation": f"library step ({dtype})", "dtype": dtype, "steps": steps,
                     "step_ms": 1e3 * step, "steps_per_second": 1.0 / step, "gemm_flops": flops,
                     "gemm_gflops": flops / floor / 1e9, "floor_ms": 1e3 * floor, "ratio_to_floor": step / floor})

    model = train.init_model(config, 0)
    batch = evaluation.batch_of(config, config.batch, [0, 1, 0])
    tokens, answers = batch.tokens, evaluation.answers(batch)
    _, g_lib, _ = grad.loss_and_grad(model, tokens, answers)
    _, g_naive = naive_grad(model, tokens, answers)
    diff = max(float(np.max(np.abs(g_lib[k] - g_naive[k])) / max(1e-300, np.max(np.abs(g_lib[k]))))
               for k in g_lib if g_lib[k].size)
    naive = min(timed(lambda: [naive_grad(model, tokens, answers) for _ in range(steps)])
                for _ in range(repeat)) / steps
    rows.append({"implementation": "per-sequence loop (baseline, gradient only)", "dtype": "float64", "steps": steps,
                 "step_ms": 1e3 * naive, "steps_per_second": 1.0 / naive, "gemm_flops": flops,
                 "gemm_gflops": None, "floor_ms": rows[0]["floor_ms"],
                 "ratio_to_floor": naive / (rows[0]["floor_ms"] / 1e3)})
    summary = {"problem": f"recall, {config.pairs} pairs, T = {config.seq_len}, key-only PSA, d_model = "
                          f"{config.d_model}, dk = {config.dk}, batch {config.batch}",
               "gemm_rate": "the step's own matrix products (step_gemms), each timed alone on random operands, "
                            "best of --repeat",
               "blas_threads": pinning,
               "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
               "ratio_to_floor_float64": rows[0]["ratio_to_floor"],
               "ratio_to_floor_float32": rows[1]["ratio_to_floor"],
               "speedup_vs_baseline": naive / (rows[0]["step_ms"] / 1e3),
               "max_rel_gradient_difference": diff}
    emit(rows, args.format, summary=summary)
    return 0

"""``theorylab bench train``: training steps per second against a naive step, same run.

Problem: the default training configuration (associative recall, 14 pairs, T = 32, one
key-only PSA head, d_model = dk = 64, batch 32). Library step: ``grad.loss_and_grad``
(batched forward with a trace, hand-derived backward) plus the AdamW update. Baseline:
the same step written naively, one sequence at a time (a Python loop over the batch
calling ``loss_and_grad`` on batches of one and averaging the gradients). Both give the
same gradient (checked in the run; the largest relative difference is printed).
Reported: steps per second of each and their ratio.
BLAS runs with whatever threads this process has (run with OPENBLAS_NUM_THREADS=1 to
match the training workers).
"""
from __future__ import annotations

from theorylab.bench import timed


def register(sub) -> None:
    from theorylab.cli._output import add_format_option

    p = sub.add_parser("train", help="training steps/s: batched backward pass vs a per-sequence loop")
    p.add_argument("--steps", type=int, default=20, help="timed steps of each (default 20)")
    p.add_argument("--repeat", type=int, default=3, help="timed repetitions; the best is reported (default 3)")
    add_format_option(p)
    p.set_defaults(handler=run)


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


def run(args) -> int:
    import numpy as np

    from theorylab.cli._output import emit
    from theorylab.errors import positive_int
    from theorylab.nn import grad, optim, train

    steps, repeat = positive_int("--steps", args.steps), positive_int("--repeat", args.repeat)
    config = train.TrainConfig()
    model = train.init_model(config, 0)
    batch = train.batch_of(config, config.batch, [0, 1, 0])
    tokens, answers = batch.tokens, train.answers(batch)
    params = grad.parameters(model)
    opt = optim.AdamW(config.lr)

    def step(fn):
        state = optim.init_state(params)
        for _ in range(steps):
            _, g = fn(model, tokens, answers)[:2]
            optim.adamw_step(params, g, state, opt)

    def batched(m, t, a):
        return grad.loss_and_grad(m, t, a)[:2]

    _, g_lib, _ = grad.loss_and_grad(model, tokens, answers)
    _, g_naive = naive_grad(model, tokens, answers)
    diff = max(float(np.max(np.abs(g_lib[k] - g_naive[k])) / max(1e-300, np.max(np.abs(g_lib[k]))))
               for k in g_lib if g_lib[k].size)
    rows = []
    for name, fn in (("batched backward (library)", batched), ("per-sequence loop (baseline)", naive_grad)):
        best = min(timed(lambda: step(fn)) for _ in range(repeat))
        rows.append({"implementation": name, "steps": steps, "seconds": best, "steps_per_second": steps / best})
    summary = {"problem": f"recall, {config.pairs} pairs, T = {config.seq_len}, key-only PSA, d_model = "
                          f"{config.d_model}, batch {config.batch}",
               "speedup_vs_baseline": rows[0]["steps_per_second"] / rows[1]["steps_per_second"],
               "max_rel_gradient_difference": diff}
    emit(rows, args.format, summary=summary)
    return 0


"""``theorylab train induction``: train small NumPy transformers on induction tasks (PSA §7.4, §7.5, A5)."""
from __future__ import annotations

import argparse

from theorylab.cli._args import (SEED_HELP, SEED_HIGH, add_plot_option, add_progress_option, add_resource_options,
                                 check_cost, deprecated, integer, seed, show_progress)
from theorylab.cli._output import add_format_option, emit

HELP = """\
Train one-layer (or, --variant two-layer, two-layer) NumPy transformers on an induction
task and report the held-out accuracy of the prediction at the query position, one row per
(variant, gamma, init) over --seeds N seeds (--seed, --seed + 1, ..., --seed + N - 1): mean, sd, 95 % Student-t interval over seeds and the
pooled 95 % Wilson interval over the evaluated sequences; 'attention' is the share of
sequences whose query attends most to the target (one-layer models; the quantity of the
1/(T-2) ceiling), 'pointer' the same over the T-1 keys before the query (chance 1/(T-1));
'score_std0' and 'max_weight0' are the query row's score spread and largest attention weight
at step 0 (saturated when near 1). --init gamma-aware plain (the default: both) trains each
coupled config under both initialisations (gamma-aware: W_Q, W_K scaled so that each
filtered stream starts at unit variance; plain: N(0, 1/fan_in)); for a gamma-free config the
two are the same run, made once (init 'both'). Tasks: 'recall' (associative recall, PSA A5: --pairs key-value pairs
over a shared --alphabet, --padding PAD tokens, then the query key; chance 1/alphabet) and
'canonical' (the canonical induction model, T distinct tokens from --vocab; ceiling
1/(T-2) for a key-side order-zero score). Variants: standard (gamma 0), symmetric,
key-only, query-only (PSA shear, fixed gamma), low-pass (taps (1+g, g) on both streams),
free-two-tap (learnable taps from the identity), two-layer (standard attention). Runs go
to --workers spawned processes with BLAS pinned to one thread; same seed, same numbers.
JSON adds every run ('runs') with its learned taps."""

PAPER = {("recall", 14): "83.4 % at gamma 4 vs 1.2 % at gamma 0 (A5)",
         ("recall", 30): "69.1 +/- 8.2 % at gamma 2 vs 1.6 +/- 0.4 % (5 seeds, A8.1)"}
COLUMNS = ["variant", "gamma", "init", "seeds", "mean", "sd", "t_low", "t_high", "wilson_low", "wilson_high",
           "attention", "pointer", "score_std0", "max_weight0", "chance", "ceiling"]
SAME_INIT = "both"
"""The init column of a gamma-free config: gamma-aware and plain are the same initialisation, run once."""


def register(sub) -> None:
    from theorylab.nn.train import DTYPES, INITS, LOSSES, LR_SCALES, PADDING_PLACEMENTS, TASKS, VARIANTS, TrainConfig

    d = TrainConfig()
    p = sub.add_parser("train", help="train small NumPy transformers (PSA trained-model claims)",
                       description="Training experiments of the PSA paper on the minimal NumPy transformer.")
    inner = p.add_subparsers(dest="experiment", metavar="EXPERIMENT", parser_class=type(p))
    q = inner.add_parser("induction", help="induction / associative recall: accuracy per variant and gamma",
                         description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    q.add_argument("--variant", choices=VARIANTS, default="key-only", help="model variant (default key-only)")
    q.add_argument("--gamma", type=float, nargs="+", default=None, metavar="G",
                   help="couplings g >= 0 (default 2 for symmetric/key-only/query-only/low-pass, 0 otherwise)")
    q.add_argument("--seeds", type=integer(1), default=3, metavar="N",
                   help="number of seeds per gamma, an integer >= 1 (default 3)")
    deprecated(q, "--seed0", q.add_argument("--seed", type=seed, default=0,
                                            help=f"base seed: the runs use seed, seed + 1, ... {SEED_HELP} "
                                                 f"(default 0)"))
    q.add_argument("--task", choices=TASKS, default=d.task, help=f"task (default {d.task})")
    q.add_argument("--pairs", type=int, default=d.pairs, help=f"recall: key-value pairs (default {d.pairs})")
    q.add_argument("--alphabet", type=int, default=d.alphabet, help=f"recall: shared alphabet (default {d.alphabet})")
    q.add_argument("--padding", type=int, default=d.padding, help=f"recall: PAD tokens (default {d.padding})")
    q.add_argument("--T", type=int, default=d.T, help=f"canonical: context length (default {d.T})")
    q.add_argument("--vocab", type=int, default=d.vocab, help=f"canonical: vocabulary >= T-1 (default {d.vocab})")
    q.add_argument("--d-model", type=int, default=d.d_model, help=f"residual width (default {d.d_model})")
    q.add_argument("--dk", type=int, default=d.dk, help=f"head width, even (default {d.dk})")
    q.add_argument("--mlp", type=int, default=d.mlp, help=f"MLP width, 0 = none (default {d.mlp})")
    q.add_argument("--steps", type=int, default=d.steps, help=f"AdamW steps (default {d.steps})")
    q.add_argument("--batch", type=int, default=d.batch, help=f"sequences per step (default {d.batch})")
    q.add_argument("--lr", type=float, default=d.lr, help=f"peak learning rate (default {d.lr:g})")
    q.add_argument("--eval-size", type=int, default=d.eval_size, help=f"held-out sequences (default {d.eval_size})")
    q.add_argument("--dtype", choices=DTYPES, default=d.dtype,
                   help=f"float type of parameters, activations and AdamW moments (default {d.dtype})")
    q.add_argument("--init", choices=INITS, nargs="+", default=list(INITS), metavar="INIT",
                   help="initialisations of W_Q, W_K: gamma-aware (each filtered stream at unit variance), plain "
                        "(N(0, 1/fan_in)); one or more (default: both)")
    q.add_argument("--lr-scale", choices=LR_SCALES, default=d.lr_scale,
                   help=f"peak lr: none, or paper = times (1 + 2 gamma)^-2 (PSA A35.1) (default {d.lr_scale})")
    q.add_argument("--loss", choices=LOSSES, default=d.loss,
                   help=f"training loss: query (the query position) or sequence (next token at every position) "
                        f"(default {d.loss})")
    q.add_argument("--padding-placement", choices=PADDING_PLACEMENTS, default=d.padding_placement,
                   help=f"recall: PAD tokens before the query (fixed) or in random gaps between the pairs "
                        f"(default {d.padding_placement})")
    q.add_argument("--workers", type=int, default=None, help="worker processes (default: min(2, CPUs))")
    add_plot_option(q, "a figure (accuracy vs gamma; taps over training for free-two-tap)")
    add_progress_option(q)
    add_format_option(q)
    add_resource_options(q)
    q.set_defaults(handler=run)
    p.set_defaults(handler=lambda args: (p.print_help(), 2)[1])


def configs(args) -> list:
    """One TrainConfig per requested (gamma, init) (validated here, before any work); a gamma-free config once."""
    from theorylab.errors import positive_int
    from theorylab.nn.train import COUPLED, TrainConfig

    gammas = args.gamma if args.gamma is not None else ([2.0] if args.variant in COUPLED else [0.0])
    from theorylab.errors import ParameterError

    if args.seed + args.seeds - 1 > SEED_HIGH:
        raise ParameterError(f"--seed must be at most 2^64 - {args.seeds} for --seeds {args.seeds} (the runs use "
                             f"seed + i; got {args.seed})")
    if args.workers is not None:
        positive_int("--workers", args.workers, high=256)
    inits = list(dict.fromkeys(args.init))                              # once each, in the order given
    out = []
    for g in gammas:
        for init in inits:
            c = TrainConfig(variant=args.variant, gamma=g, task=args.task, pairs=args.pairs, alphabet=args.alphabet,
                            padding=args.padding, T=args.T, vocab=args.vocab, d_model=args.d_model, dk=args.dk,
                            mlp=args.mlp, steps=args.steps, batch=args.batch, lr=args.lr, eval_size=args.eval_size,
                            init=init, lr_scale=args.lr_scale, loss=args.loss,
                            padding_placement=args.padding_placement, dtype=args.dtype)
            if init == inits[0] or not gamma_free(c):
                out.append(c)
    return out


def gamma_free(config) -> bool:
    """True when the two initialisations coincide: no filtered stream (gamma = 0, or a gamma-free variant)."""
    from theorylab.nn.train import head_spec, stream_gains

    return stream_gains(head_spec(config)) == (1.0, 1.0)


def run(args) -> int:
    from theorylab.plots import check_figure_path
    from theorylab.nn.runner import default_workers, run_many
    from theorylab.nn.train import train_cost
    from theorylab.resources import Cost

    if args.plot is not None:
        check_figure_path("--plot", args.plot)
    cfgs = configs(args)
    workers = args.workers or default_workers()
    cost = Cost()
    for c in cfgs:
        cost = cost.then(train_cost(c, args.seeds, workers))
    check_cost(args, cost)
    jobs = [(c, args.seed + s) for c in cfgs for s in range(args.seeds)]
    bar = _bar(sum(c.steps for c, _ in jobs)) if show_progress(args) else None
    try:
        results = run_many(jobs, args.workers, progress=None if bar is None else bar.update)
    finally:
        if bar is not None:
            bar.close()
    rows, runs = summary_rows(cfgs, results), [r.row() for r in results]
    cfg = cfgs[0]
    summary = {"task": cfg.task, "T": cfg.seq_len, "steps": cfg.steps, "batch": cfg.batch, "d_model": cfg.d_model,
               "dk": cfg.dk, "eval_size": cfg.eval_size, "dtype": cfg.dtype, "lr_scale": cfg.lr_scale, "loss": cfg.loss,
               "padding_placement": cfg.padding_placement,
               "paper": PAPER.get((cfg.task, cfg.pairs)) if cfg.task == "recall" else
               ("query-only 0.033, key-only 0.949, symmetric 0.811, low-pass 0.428, free two-tap 1.000, "
                "two-layer 0.036 (T = 15, §7.5)")}
    if any(r["init"] == SAME_INIT for r in rows):
        summary["init"] = ("gamma-free config (no filtered stream): gamma-aware and plain are the same "
                           "initialisation, run once (init 'both')")
    if args.plot:
        from theorylab.plots import write_figure
        from theorylab.plots.trained import accuracy_figure

        curves = [{**r, "variant": f"{r['variant']} ({r['init']} init)"} for r in rows]   # one curve per init
        write_figure(args.plot, accuracy_figure, curves, results, name="--plot")
    if args.format == "json":
        emit(rows, "json", summary={**summary, "runs": runs})
    else:
        emit(rows, args.format, columns=COLUMNS, summary=summary if args.format == "table" else None)
    return 0


def summary_rows(cfgs, results) -> list[dict]:
    """One row per config: seed summary of its runs (in ``results``, grouped by config)."""
    import numpy as np

    from theorylab.nn.trainstats import seed_summary

    def mean(values):
        values = [v for v in values if v is not None]
        return float(np.mean(values)) if values else None

    rows = []
    both = len({c.init for c in cfgs}) > 1 or any(gamma_free(c) for c in cfgs)
    for c in cfgs:
        mine = [r for r in results if r.config == c]
        hits = sum(float(r.evaluation.prediction.sum()) for r in mine)
        n = sum(len(r.evaluation.prediction) for r in mine)
        rows.append({"variant": c.variant, "gamma": float(c.gamma),
                     "init": SAME_INIT if gamma_free(c) and both else c.init,
                     **seed_summary([r.accuracy for r in mine], hits, n),
                     "attention": mean(r.attention_accuracy for r in mine),
                     "pointer": mean(r.pointer_accuracy for r in mine),
                     "score_std0": mean(r.step0_score_std for r in mine),
                     "max_weight0": mean(r.step0_max_weight for r in mine), "chance": c.chance,
                     "ceiling": c.ceiling})
    return rows


def _bar(total: int):
    import sys

    from tqdm import tqdm
    return tqdm(total=total, unit="step", file=sys.stderr, leave=False, desc="train")

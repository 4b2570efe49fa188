"""Study (g): freely trained two-tap filters on the query and key streams, and a two-layer baseline (PSA §7.5).

The lattice task of study (f) (canonical induction, T = 15). ``free-two-tap``: each head
filters its post-RoPE query and key streams with learnable taps ``b0 x_t + b1 x_{t-1}``,
initialised at the identity ``(1, 0)`` (standard attention), trained with everything else.
Does the optimiser find a key-side first difference (``k_b1 / k_b0 < 0``) and an identity
query (``q_b1 ~ 0``)? Paper: accuracy 1.000, key-side first difference, identity query.
``two-layer``: two standard-attention layers (paper: 0.036 at 3,000 steps).

    python simulations/i_trained_two_tap.py [--steps N] [--seeds N] [--workers N] [--figure-only]

Writes results/i_trained_two_tap.{csv,json,png}.
"""
from __future__ import annotations

import _trained
from f_trained_induction import LATTICE, SEEDS, STEPS
from theorylab.nn.train import TrainConfig
from theorylab.plots.trained import tap_histories

STUDY = "i_trained_two_tap"
PAPER = {"free-two-tap": 1.000, "two-layer": 0.036}


def figure(summary: dict):
    """The free two-tap runs' learned taps over training (from the stored ``taps_history``)."""
    histories = list(summary["taps_history"].values())
    return tap_histories(histories, title=f"(i) free two-tap filters, canonical T = 15, {summary['steps']} steps, "
                                          f"{summary['seeds']} seeds")


def main() -> None:
    args = _trained.parser(__doc__.splitlines()[0]).parse_args()
    if args.figure_only:
        return _trained.redraw(STUDY, args, figure)
    steps, seeds = args.steps or STEPS, args.seeds or SEEDS
    cfgs = [TrainConfig(variant=v, gamma=0.0, steps=steps, **LATTICE) for v in ("free-two-tap", "two-layer")]
    results, timing = _trained.run(STUDY, [(c, s) for c in cfgs for s in range(seeds)], args)
    rows = [{**r, "paper": PAPER[r["variant"]]} for r in _trained.grouped(cfgs, results)]
    free = [r for r in results if r.config.variant == "free-two-tap"]
    taps = []
    for r in free:
        last = r.history[-1]
        taps.append({"seed": r.seed, "accuracy": r.accuracy, **{k: last[k] for k in ("q_b0", "q_b1", "k_b0", "k_b1")},
                     "q_ratio": last["q_b1"] / last["q_b0"], "k_ratio": last["k_b1"] / last["k_b0"]})
    runs = [r.row() for r in results]
    columns = ["variant", "seed", "steps", "accuracy", "ci_low", "ci_high", "attention_accuracy", "q_b0", "q_b1",
               "k_b0", "k_b1", "eval_loss", "seconds", "cpu_seconds"]
    summary = {"study": STUDY, "steps": steps, "seeds": seeds, "timing": timing, "task": LATTICE, "table": rows,
               "learned_taps": taps,
               "taps_history": {str(r.seed): r.history for r in free}}
    _trained.write(STUDY, args, runs, columns, summary, figure)
    _trained.report_table(rows)
    print()
    from theorylab.cli._output import emit
    emit(taps, "table")


if __name__ == "__main__":
    _trained.main(main)

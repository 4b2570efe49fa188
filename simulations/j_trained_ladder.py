"""Study (h): the trained dk ladder -- gamma_c from the accuracy curve against dk (PSA §7.11, Figure 9).

Symmetric PSA, one head of width dk in {8, 16, 32, 64} on a d_model = 64 residual stream,
canonical induction (T = 15, m = T - 2 = 13 distractors), trained at each gamma of GAMMAS
over SEEDS seeds. Observable (ours; the paper says only "from the accuracy curve"):
gamma_c = the smallest gamma at which the seed-mean held-out accuracy reaches the midpoint
between its gamma = 0 value and its plateau (the largest accuracy on the grid), linear
interpolation (``theorylab.nn.trainstats.gamma_c``); 95 % intervals by resampling seeds.
The log-log slope of gamma_c on dk (bootstrap 95 % interval) is set against the paper's
trained -1.13 [-1.18, -1.07] and the T4-only law's -1/4; the plateaus against the argmax
limit Phi(sqrt(dk)/2)^m (``theorylab.psa.transition.argmax_plateau``; paper: r = 0.945).

    python simulations/j_trained_ladder.py [--steps N] [--seeds N] [--workers N] [--figure-only]

Writes results/j_trained_ladder.{csv,json,png}.
"""
from __future__ import annotations

import numpy as np

import _trained
from f_trained_induction import LATTICE
from theorylab.nn import trainstats
from theorylab.nn.train import TrainConfig
from theorylab.plots import plain_ticks, panels
from theorylab.plots.trained import accuracy_curves
from theorylab.psa.transition import argmax_plateau

STUDY = "j_trained_ladder"
DKS = [8, 16, 32, 64]
GAMMAS = [0.0, 0.25, 0.5, 1.0, 2.0]
SEEDS = 2
STEPS = 400
PAPER = {"gamma_c": {8: 1.290, 64: 0.120}, "slope": -1.13, "slope_ci": [-1.18, -1.07], "law_slope": -0.25,
         "plateau_r": 0.945}


def curves(runs: list[dict]) -> list[dict]:
    """Seed summaries (mean, 95 % t interval) per (dk, gamma) of the stored run rows, variant ``dk = ..``."""
    n = TrainConfig(**LATTICE).eval_size
    out = []
    for dk in sorted({r["dk"] for r in runs}):
        for g in sorted({r["gamma"] for r in runs if r["dk"] == dk}):
            acc = [r["accuracy"] for r in runs if r["dk"] == dk and r["gamma"] == g]
            out.append({"variant": f"dk = {dk}", "dk": dk, "gamma": g,
                        **trainstats.seed_summary(acc, round(sum(acc) * n), n * len(acc))})
    return out


def figure(summary: dict):
    """Left: accuracy against gamma per dk; right: gamma_c against dk (log-log, dk labelled as integers)
    beside the paper's Fig. 9 ends and the law's slope -1/4."""
    fig, (left, right) = panels(2, 11, 4.2)
    config = TrainConfig(**LATTICE)
    accuracy_curves(curves(summary["runs"]), chance=config.chance, ceiling=config.ceiling, ax=left,
                    title=f"(j) symmetric PSA, canonical T = {config.seq_len}, {summary['steps']} steps, "
                          f"{summary['seeds']} seeds")
    left.set_xscale("symlog", linthresh=0.1)
    plain_ticks(left.xaxis, GAMMAS)
    usable = [r for r in summary["table"] if r["gamma_c"] is not None and r["gamma_c"] > 0]
    slope = summary["slope"]
    if usable:
        dks = np.array([r["dk"] for r in usable], float)
        gc = np.array([r["gamma_c"] for r in usable])
        lo = np.array([np.nan if r["gamma_c_low"] is None else r["gamma_c_low"] for r in usable])
        hi = np.array([np.nan if r["gamma_c_high"] is None else r["gamma_c_high"] for r in usable])
        right.errorbar(dks, gc, yerr=[gc - lo, hi - gc], marker="o", capsize=3,
                       label=f"trained (ours), slope {slope:.2f}" if slope is not None else "trained (ours)")
        right.plot([8, 64], [PAPER["gamma_c"][8], PAPER["gamma_c"][64]], "kx--",
                   label=f"paper Fig. 9 ends, slope {PAPER['slope']}")
        right.plot(dks, gc[0] * (dks / dks[0]) ** PAPER["law_slope"], "k:", label="law slope -1/4 (through our dk = 8)")
    right.set_xscale("log", base=2)
    right.set_yscale("log")
    plain_ticks(right.xaxis, DKS)
    plain_ticks(right.yaxis, [0.1, 0.2, 0.3, 0.5, 1.0, 2.0])
    right.set_xlabel("dk")
    right.set_ylabel("gamma_c (midpoint of the accuracy curve)")
    right.set_title("(j) gamma_c against dk", fontsize=9)
    right.legend(fontsize=7)
    return fig


def main() -> None:
    args = _trained.parser(__doc__.splitlines()[0]).parse_args()
    if args.figure_only:
        return _trained.redraw(STUDY, args, figure)
    steps, seeds = args.steps or STEPS, args.seeds or SEEDS
    cfgs = {(dk, g): TrainConfig(variant="symmetric" if g else "standard", gamma=g, dk=dk, steps=steps, **LATTICE)
            for dk in DKS for g in GAMMAS}
    results, timing = _trained.run(STUDY, [(c, s) for c in cfgs.values() for s in range(seeds)], args)
    acc = {(r.config.dk, r.config.gamma, r.seed): r.accuracy for r in results}
    table, boots = [], {}
    T = LATTICE["T"]
    for dk in DKS:
        per_seed = np.array([[acc[dk, g, s] for g in GAMMAS] for s in range(seeds)])     # [seeds, gammas]
        mean = per_seed.mean(axis=0)
        boots[dk] = trainstats.bootstrap_gamma_c(GAMMAS, per_seed, seed=dk)
        ok = boots[dk][np.isfinite(boots[dk])]
        table.append({"dk": dk, "gamma_c": trainstats.gamma_c(GAMMAS, mean),
                      "gamma_c_low": float(np.percentile(ok, 2.5)) if ok.size else None,
                      "gamma_c_high": float(np.percentile(ok, 97.5)) if ok.size else None,
                      "acc_gamma0": float(mean[0]), "plateau": float(mean.max()),
                      "argmax_limit": float(argmax_plateau(dk, T)), "paper_gamma_c": PAPER["gamma_c"].get(dk)})
    usable = [r for r in table if r["gamma_c"] is not None and r["gamma_c"] > 0]
    slope = trainstats.loglog_slope([r["dk"] for r in usable], [r["gamma_c"] for r in usable]) \
        if len(usable) >= 2 else None
    draws = np.array([boots[r["dk"]] for r in usable])                  # [dks, draws]
    good = np.all(np.isfinite(draws) & (draws > 0), axis=0) if usable else np.array([], bool)
    slopes = [trainstats.loglog_slope([r["dk"] for r in usable], draws[:, b]) for b in np.flatnonzero(good)]
    plateaus, limits = [r["plateau"] for r in table], [r["argmax_limit"] for r in table]
    summary = {"study": STUDY, "steps": steps, "seeds": seeds, "gammas": GAMMAS, "task": LATTICE, "timing": timing,
               "table": table, "slope": slope,
               "slope_ci": [float(np.percentile(slopes, 2.5)), float(np.percentile(slopes, 97.5))] if slopes else None,
               "slope_bootstrap_draws": len(slopes),
               "plateau_vs_argmax_r": float(np.corrcoef(plateaus, limits)[0, 1]),
               "plateau_minus_argmax": [p - q for p, q in zip(plateaus, limits)], "paper": PAPER}
    runs = [r.row() for r in results]
    columns = ["dk", "variant", "gamma", "seed", "steps", "accuracy", "ci_low", "ci_high", "attention_accuracy",
               "eval_loss", "seconds", "cpu_seconds"]
    _trained.write(STUDY, args, runs, columns, summary, figure)
    _trained.report_table(table, list(table[0]))
    print(f"\nslope {slope} CI {summary['slope_ci']} (paper -1.13 [-1.18, -1.07]; law -1/4); "
          f"plateau vs argmax limit r = {summary['plateau_vs_argmax_r']:.3f} (paper 0.945)")


if __name__ == "__main__":
    _trained.main(main)

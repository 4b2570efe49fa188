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

    python simulations/j_trained_ladder.py [--steps N] [--seeds N] [--workers N]

Writes results/j_trained_ladder.{csv,json,png}.
"""
from __future__ import annotations

import numpy as np

import _trained
from f_trained_induction import LATTICE
from theorylab.nn import trainstats
from theorylab.nn.train import TrainConfig
from theorylab.plots import new_figure
from theorylab.plots.trained import accuracy_axes
from theorylab.psa.transition import argmax_plateau

STUDY = "j_trained_ladder"
DKS = [8, 16, 32, 64]
GAMMAS = [0.0, 0.25, 0.5, 1.0, 2.0]
SEEDS = 2
STEPS = 400
PAPER = {"gamma_c": {8: 1.290, 64: 0.120}, "slope": -1.13, "slope_ci": [-1.18, -1.07], "law_slope": -0.25,
         "plateau_r": 0.945}


def main() -> None:
    args = _trained.parser(__doc__.splitlines()[0]).parse_args()
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
    fig, ax = new_figure(11, 4.2)
    fig.clear()
    left, right = fig.subplots(1, 2)
    rows = []
    for dk in DKS:
        mine = [c for (d, _), c in cfgs.items() if d == dk]
        for r in _trained.grouped(mine, results):
            rows.append({**r, "dk": dk, "variant": f"dk = {dk}"})
    accuracy_axes(left, rows, chance=results[0].config.chance, ceiling=results[0].config.ceiling)
    left.set_xscale("symlog", linthresh=0.1)
    left.set_title(f"(h) symmetric PSA, canonical T = {T}, {steps} steps, {seeds} seeds", fontsize=9)
    dks = np.array([r["dk"] for r in usable], float)
    if usable:
        gc = np.array([r["gamma_c"] for r in usable])
        lo = np.array([r["gamma_c_low"] or np.nan for r in usable])
        hi = np.array([r["gamma_c_high"] or np.nan for r in usable])
        right.errorbar(dks, gc, yerr=[gc - lo, hi - gc], marker="o", capsize=3,
                       label=f"trained (ours), slope {slope:.2f}" if slope is not None else "trained (ours)")
        right.plot([8, 64], [1.290, 0.120], "kx--", label="paper Fig. 9 ends, slope -1.13")
        right.plot(dks, gc[0] * (dks / dks[0]) ** -0.25, "k:", label="law slope -1/4 (through our dk = 8)")
    right.set_xscale("log", base=2)
    right.set_yscale("log")
    right.set_xlabel("dk")
    right.set_ylabel("gamma_c (midpoint of the accuracy curve)")
    right.legend(fontsize=7)
    columns = ["dk", "variant", "gamma", "seed", "steps", "accuracy", "ci_low", "ci_high", "attention_accuracy",
               "eval_loss", "seconds", "cpu_seconds"]
    _trained.write(STUDY, args, runs, columns, summary, fig)
    _trained.report_table(table, list(table[0]))
    print(f"\nslope {slope} CI {summary['slope_ci']} (paper -1.13 [-1.18, -1.07]; law -1/4); "
          f"plateau vs argmax limit r = {summary['plateau_vs_argmax_r']:.3f} (paper 0.945)")


if __name__ == "__main__":
    _trained.main(main)

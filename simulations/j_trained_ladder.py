"""Study (j): the trained dk ladder -- gamma_c from the accuracy curve against dk (PSA §7.11, Figure 9).

Symmetric and key-only PSA, one head of width dk in {8, 16, 32, 64} on a d_model = 64 residual
stream, canonical induction (T = 15, m = 13 distractors), trained at each g of GAMMAS over 3 seeds,
1500 steps, init "gamma-aware". gamma_c is read off each seed-mean accuracy curve by three named
observables (``theorylab.nn.ladder``: plateau midpoint, steepest segment, 50 % threshold), and the
log-log slope of gamma_c on dk gets a 95 % percentile-bootstrap interval over seeds (each dk's seeds
resampled with replacement, independently per dk). Paper (Fig. 9, symmetric): gamma_c 1.290 at dk = 8
to 0.120 at dk = 64, slope -1.13 [-1.18, -1.07], against the T4-only law's -1/4; trained plateaus
track the argmax limit Phi(sqrt(dk)/2)^m in shape (r = 0.945; ``theorylab.psa.transition.argmax_plateau``).

    python simulations/j_trained_ladder.py [--steps N] [--seeds N] [--workers N | --scheduler ADDR]
                                           [--store PATH] [--figure-only]

Writes results/j_trained_ladder.{csv,json,png}; the runs live in results/stores/.
"""
from __future__ import annotations

import numpy as np

import _trained
from theorylab.nn import ladder
from theorylab.plots import panels, plain_ticks
from theorylab.plots.trained import accuracy_curves
from theorylab.psa.transition import argmax_plateau

STUDY = "j_trained_ladder"
DKS = [8, 16, 32, 64]
GAMMAS = [0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0]
VARIANTS = ["symmetric", "key-only"]
SEEDS = 3
STEPS = 1500
TASK = dict(task="canonical", T=15, vocab=64, d_model=64, batch=64, lr=5e-3)
PAPER = {"variant": "symmetric", "gamma_c": {8: 1.290, 64: 0.120}, "slope": -1.13, "slope_ci": [-1.18, -1.07],
         "law_slope": -0.25, "plateau_r": 0.945, "plateau_excess_dk16": 0.199}
BOOTSTRAP = 2000
TABLE_COLUMNS = ["variant", "dk", "observable", "gamma_c", "paper", "acc_gamma0", "plateau", "argmax_limit"]


def spec(args) -> dict:
    grids = [{"variant": VARIANTS, "dk": DKS, "gamma": GAMMAS}]
    return _trained.spec_dict("trained dk ladder", {**TASK, "steps": STEPS}, grids, SEEDS, args)


def _per_seed(rows, variant, dk, gammas):
    """(seeds, gammas) accuracies of one curve; seeds missing at some g are left out."""
    acc = {}
    for r in rows:
        if r["variant"] == variant and r["dk"] == dk:
            acc.setdefault(r["seed"], {})[r["gamma"]] = r["accuracy"]
    return np.array([[a[g] for g in gammas] for a in acc.values() if set(gammas) <= set(a)])


def summarise(spec, rows, timing, skipped) -> dict:
    gammas = sorted({r["gamma"] for r in rows})
    dks = sorted({r["dk"] for r in rows})
    T = TASK["T"]
    table, slopes = [], []
    for variant in sorted({r["variant"] for r in rows}, key=VARIANTS.index):
        curves = [_per_seed(rows, variant, dk, gammas) for dk in dks]
        for observable in ladder.OBSERVABLES:
            fit = ladder.ladder_slope(dks, gammas, curves, observable, draws=BOOTSTRAP, seed=0) \
                if len(dks) >= 2 else {"gamma_c": [ladder.curve_gamma_c(gammas, c.mean(axis=0), observable)
                                                   for c in curves], "slope": None}
            slopes.append({"variant": variant, "observable": observable,
                           **{k: fit.get(k) for k in ("slope", "ci_low", "ci_high", "usable_draws", "method")},
                           "paper_slope": PAPER["slope"] if variant == PAPER["variant"] else None,
                           "law_slope": PAPER["law_slope"]})
            for dk, gc in zip(dks, fit["gamma_c"]):
                table.append({"variant": variant, "dk": dk, "observable": observable, "gamma_c": gc,
                              "paper": PAPER["gamma_c"].get(dk) if variant == PAPER["variant"] else None})
        for dk, c in zip(dks, curves):
            mean = c.mean(axis=0)
            table.append({"variant": variant, "dk": dk, "observable": "plateau", "gamma_c": None,
                          "acc_gamma0": float(mean[0]), "plateau": float(mean.max()),
                          "argmax_limit": float(argmax_plateau(dk, T))})
    plateaus = [r for r in table if r["observable"] == "plateau" and r["variant"] == PAPER["variant"]]
    r_plateau = float(np.corrcoef([r["plateau"] for r in plateaus], [r["argmax_limit"] for r in plateaus])[0, 1]) \
        if len(plateaus) >= 2 and np.ptp([r["plateau"] for r in plateaus]) > 0 else None
    curves = _trained.table(spec, rows)
    return {"steps": dict(spec.train)["steps"], "seeds": spec.seeds, "gammas": gammas, "dks": dks, "task": TASK,
            "table": table, "slopes": slopes, "curves": curves, "plateau_vs_argmax_r": r_plateau, "paper": PAPER}


def figure(summary: dict):
    """Left: accuracy against g per dk (symmetric); right: gamma_c against dk (log-log) by each observable and
    variant, beside the paper's Fig. 9 ends and the law's slope -1/4."""
    fig, (left, right) = panels(2, 12, 4.4)
    sym = [{**r, "variant": f"dk = {r['dk']}"} for r in summary["curves"] if r["variant"] == PAPER["variant"]]
    if sym:
        accuracy_curves(sym, chance=sym[0]["chance"], ceiling=sym[0]["ceiling"], ax=left,
                        title=f"(j) symmetric PSA, canonical T = 15, {summary['steps']} steps, {summary['seeds']} seeds")
        left.set_xscale("symlog", linthresh=0.1)
        plain_ticks(left.xaxis, summary["gammas"])
    marker = {"plateau-midpoint": "o", "steepest-segment": "s", "half-accuracy": "^"}
    style = {"symmetric": "-", "key-only": "--"}
    for s in summary["slopes"]:
        pts = [(r["dk"], r["gamma_c"]) for r in summary["table"] if r["variant"] == s["variant"]
               and r["observable"] == s["observable"] and r["gamma_c"] is not None and r["gamma_c"] > 0]
        if pts:
            slope = "" if s["slope"] is None else f", slope {s['slope']:.2f}"
            right.plot(*zip(*pts), marker=marker[s["observable"]], ls=style.get(s["variant"], "-"),
                       label=f"{s['variant']}, {s['observable']}{slope}")
    ends = PAPER["gamma_c"]
    right.plot(list(ends), list(ends.values()), "kx", ms=9, mew=2, label=f"paper Fig. 9 (symmetric), slope {PAPER['slope']}")
    dks = np.array(summary["dks"], float)
    right.plot(dks, ends[8] * (dks / 8) ** PAPER["law_slope"], "k:", label="law slope -1/4 (through the paper's dk = 8)")
    right.set_xscale("log", base=2)
    right.set_yscale("log")
    plain_ticks(right.xaxis, summary["dks"])
    right.set_xlabel("dk")
    right.set_ylabel("gamma_c")
    right.set_title("(j) gamma_c against dk, three observables", fontsize=9)
    right.legend(fontsize=6)
    return fig


def main() -> None:
    import sys
    _trained.study_main(sys.modules[__name__])


if __name__ == "__main__":
    _trained.main(main)

"""Study (o): is the symmetric shear's failure at large g a step-size effect? (PSA A5, A8.1, A31, A35.1).

Studies (f), (l), (i) and (j) train every member at one peak learning rate for every g. With the
gamma-aware initialisation the softmax is not saturated at step 0 (score std ~0.9 at every g), yet
symmetric recall collapses above g = 3 (14 pairs) and at g = 2 with 30 pairs, and on the lattice
the symmetric member (0.617) and the low-pass (0.133) stay below the paper's 0.811 and 0.428 at
g = 2. The shear multiplies each filtered stream by a gain of order 1 + 2g, so one Adam step on
W_Q or W_K moves the scores by a factor ~(1 + 2g)^2 more than at g = 0; the paper's remedy for
the same symptom at scale is the learning-rate scaling (1 + 2g)^-2 (A31, A35.1),
``TrainConfig(lr_scale="paper")``. This study reruns those configurations of (f), (l) and (i), and
nine points of the dk ladder (j) at its 1,500 steps, with that scaling and everything else
unchanged (same seeds, initialisation, budget and evaluation sets), so a difference from the
unscaled run is the step size's.

    python simulations/o_step_size.py [--steps N] [--seeds N] [--workers N | --scheduler ADDR] [--store PATH]
                                      [--figure-only]

Writes results/o_step_size.{csv,json,png}; the runs live in results/stores/.
"""
from __future__ import annotations

import numpy as np

import _trained
import f_trained_induction
import i_trained_two_tap
import j_trained_ladder
import l_recall_30
from theorylab.errors import ParameterError
from theorylab.plots import panels

STUDY = "o_step_size"
SEEDS = 3
STEPS = 3000
COMMON = dict(d_model=64, dk=64, batch=64, lr=5e-3)
RECALL = {k: v for k, v in f_trained_induction.RECALL.items() if k not in COMMON}
LATTICE = {k: v for k, v in i_trained_two_tap.LATTICE.items() if k not in COMMON}
GAMMAS = [2.0, 3.0, 4.0, 5.5]
PAIRS_30 = l_recall_30.RECALL["pairs"]
LADDER_DKS = [8, 16, 64]
LADDER_GAMMAS = [0.3, 0.75, 1.5]
"""Points of the dk ladder (j), rerun at its 1,500 steps: is the symmetric plateau's shortfall the step size's?"""
TABLE_COLUMNS = ["part", "dk", "variant", "gamma", "lr_scale", "seeds", "mean", "sd", "t_low", "t_high",
                 "pointer", "unscaled", "paper", "argmax_limit"]


def spec(args) -> dict:
    scaled = {"lr_scale": "paper"}
    grids = [{**RECALL, **scaled, "variant": "symmetric", "gamma": GAMMAS},
             {**RECALL, **scaled, "variant": "symmetric", "gamma": 2.0, "pairs": PAIRS_30},
             {**LATTICE, **scaled, "variant": ["symmetric", "low-pass"], "gamma": 2.0},
             {**LATTICE, **scaled, "variant": "symmetric", "dk": LADDER_DKS, "gamma": LADDER_GAMMAS,
              **({} if args is not None and args.steps else {"steps": j_trained_ladder.STEPS})}]
    return _trained.spec_dict("step size of the sheared members", {**COMMON, "steps": STEPS}, grids, SEEDS, args)


def _part(config) -> str:
    if config.task == "recall":
        return f"recall, {config.pairs} pairs"
    return "dk ladder (j)" if config.gamma in LADDER_GAMMAS else "lattice (i)"      # the lattice runs g = 2


def _unscaled(config, out: str) -> float | None:
    """The seed-mean accuracy of ``config`` at the unscaled learning rate, from the JSON of the study that ran it."""
    import _study
    part = _part(config)
    study = {"dk ladder (j)": j_trained_ladder.STUDY, "lattice (i)": i_trained_two_tap.STUDY,
             f"recall, {PAIRS_30} pairs": l_recall_30.STUDY}.get(part, f_trained_induction.STUDY)
    try:
        _, stored = _study.stored(study, out)
    except ParameterError:
        return None
    rows = stored["curves"] if part == "dk ladder (j)" else stored["table"]
    for r in rows:
        if r["variant"] == config.variant and r["gamma"] == config.gamma and r.get("dk", config.dk) == config.dk \
                and r.get("init", "gamma-aware") == "gamma-aware":
            return r["mean"]
    return None


def _paper(config) -> float | None:
    part = _part(config)
    if part == "lattice (i)":
        return f_trained_induction.paper_value("lattice", config.variant, config.gamma)
    if part == f"recall, {PAIRS_30} pairs":
        return l_recall_30.PAPER.get((config.variant, config.gamma), {}).get("mean")
    if part == "dk ladder (j)":
        return None
    return f_trained_induction.paper_value("recall", config.variant, config.gamma)


def summarise(spec, rows, timing, skipped, out: str = _trained.RESULTS) -> dict:
    from theorylab.psa.transition import argmax_plateau

    table = _trained.table(spec, rows, _paper)
    for r in table:
        config = _trained.config_of(spec, r)
        r.update(part=_part(config), unscaled=_unscaled(config, out), dk=config.dk,
                 argmax_limit=float(argmax_plateau(config.dk, config.T)) if config.task == "canonical" else None)
    return {"steps": dict(spec.train)["steps"], "seeds": spec.seeds, "table": table}


def _label(row: dict, part: str) -> str:
    return f"dk {row['dk']}\ng {row['gamma']:g}" if part == "dk ladder (j)" else f"g={row['gamma']:g}"


def figure(summary: dict):
    """Accuracy at the scaled learning rate beside the unscaled runs of (f)/(l)/(i) and the paper, per task."""
    names = list(dict.fromkeys(r["part"] for r in summary["table"]))
    fig, axes = panels(len(names), 4.2 * len(names), 3.8)
    for ax, name in zip(np.atleast_1d(axes), names):
        rows = sorted((r for r in summary["table"] if r["part"] == name),
                      key=lambda r: (r["variant"], r["dk"], r["gamma"]))
        x = np.arange(len(rows))
        sd = [0.0 if r["sd"] is None else np.nan_to_num(r["sd"]) for r in rows]
        ax.errorbar(x - 0.1, [r["mean"] for r in rows], yerr=sd, fmt="o", capsize=4,
                    label="lr x (1+2g)^-2 (mean +- sd)")
        ax.plot(x + 0.1, [np.nan if r["unscaled"] is None else r["unscaled"] for r in rows], "s", color="C1",
                label="unscaled lr, study (f)/(l)/(i)")
        paper = [(i, r["paper"]) for i, r in enumerate(rows) if r["paper"] is not None]
        if paper:
            ax.plot(*zip(*paper), "kx", ms=9, mew=2, label="paper")
        members = {r["variant"] for r in rows}
        ax.set_xticks(x, [(f"{r['variant']}\n" if len(members) > 1 else "") + _label(r, name) for r in rows],
                      fontsize=7)
        if len(members) == 1:
            ax.set_xlabel(next(iter(members)), fontsize=8)
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"(o) {name}", fontsize=9)
        ax.set_ylabel("held-out accuracy")
        ax.legend(fontsize=6)
    return fig


def main() -> None:
    import sys
    _trained.study_main(sys.modules[__name__])


if __name__ == "__main__":
    _trained.main(main)

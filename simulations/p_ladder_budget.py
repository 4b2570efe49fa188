"""Study (p): do the trained dk ladder's plateaus still rise after 1,500 steps? (PSA §7.11).

Study (j) trains 1,500 steps. Its symmetric plateaus stay well below the argmax limit at dk = 8,
16 and 64 (0.30, 0.49, 0.83 against 0.34, 0.74, 1.00), and key-only's dk = 8 plateau sits at 0.5,
where the 50 % threshold observable is decided. This study reruns (j)'s configurations at three
couplings around the plateau (g = 0.3, 0.75, 1.5) for dk = 8, 16, 64, both variants, at 3,000
steps (the paper's A8 budget), same seeds and everything else unchanged: where the accuracy at
3,000 steps exceeds (j)'s, the ladder's 1,500 steps were too few there.

    python simulations/p_ladder_budget.py [--steps N] [--seeds N] [--workers N | --scheduler ADDR]
                                          [--store PATH] [--figure-only]

Writes results/p_ladder_budget.{csv,json,png}; the runs live in results/stores/.
"""
from __future__ import annotations

import numpy as np

import _trained
import j_trained_ladder as j
from theorylab.errors import ParameterError
from theorylab.plots import panels

STUDY = "p_ladder_budget"
STEPS = 3000
DKS = [8, 16, 64]
GAMMAS = [0.3, 0.75, 1.5]
TABLE_COLUMNS = ["variant", "dk", "gamma", "seeds", "mean", "sd", "t_low", "t_high", "at_1500", "argmax_limit"]


def spec(args) -> dict:
    grids = [{"variant": j.VARIANTS, "dk": DKS, "gamma": GAMMAS}]
    return _trained.spec_dict("trained dk ladder at 3000 steps", {**j.TASK, "steps": STEPS}, grids, j.SEEDS, args)


def _at_1500(out: str) -> dict:
    """{(variant, dk, gamma): seed-mean accuracy} of study (j)'s stored curves (empty when (j) has not run)."""
    import _study
    try:
        _, stored = _study.stored(j.STUDY, out)
    except ParameterError:
        return {}
    return {(r["variant"], r["dk"], r["gamma"]): r["mean"] for r in stored["curves"]}


def summarise(spec, rows, timing, skipped, out: str = _trained.RESULTS) -> dict:
    from theorylab.psa.transition import argmax_plateau

    table = _trained.table(spec, rows)
    before = _at_1500(out)
    for r in table:
        r["at_1500"] = before.get((r["variant"], r["dk"], r["gamma"]))
        r["argmax_limit"] = float(argmax_plateau(r["dk"], j.TASK["T"]))
    return {"steps": dict(spec.train)["steps"], "seeds": spec.seeds, "task": j.TASK, "table": table}


def figure(summary: dict):
    """Accuracy at 3,000 steps against (j)'s 1,500, per variant, dk and g, with the argmax limit."""
    variants = [v for v in j.VARIANTS if any(r["variant"] == v for r in summary["table"])]
    fig, axes = panels(len(variants), 6 * len(variants), 3.8)
    for ax, variant in zip(np.atleast_1d(axes), variants):
        for i, dk in enumerate(sorted({r["dk"] for r in summary["table"]})):
            rows = sorted((r for r in summary["table"] if r["variant"] == variant and r["dk"] == dk),
                          key=lambda r: r["gamma"])
            g = [r["gamma"] for r in rows]
            ax.plot(g, [r["mean"] for r in rows], "o-", color=f"C{i}", label=f"dk = {dk}, {summary['steps']} steps")
            ax.plot(g, [np.nan if r["at_1500"] is None else r["at_1500"] for r in rows], "s--", color=f"C{i}",
                    alpha=0.6, label=f"dk = {dk}, 1500 steps (j)")
            ax.axhline(rows[0]["argmax_limit"], color=f"C{i}", ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("gamma")
        ax.set_ylabel("held-out accuracy")
        ax.set_title(f"(p) {variant}: 3000 vs 1500 steps (dotted: argmax limit)", fontsize=9)
        ax.legend(fontsize=6)
    return fig


def main() -> None:
    import sys
    _trained.study_main(sys.modules[__name__])


if __name__ == "__main__":
    _trained.main(main)

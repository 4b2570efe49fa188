"""Study (l): single-layer induction at L = 30 pairs, five seeds (PSA §7.4, A8.1).

Associative recall with 30 key-value pairs over a shared alphabet of 64, 3 PAD tokens, then the
query (T = 64), d_model = 64, one head; 3000 steps (A8's budget), five seeds, init "gamma-aware":
symmetric PSA at g = 2 (A8.1's gamma*) and standard attention. Paper: 69.1 +- 8.2 % at g = 2 against
1.6 +- 0.4 % for standard attention over five seeds (§7.4, A8.1); A8.1's separate three-seed sweep
peaks at 74.2 % at g = 2 against 1.27 % at g = 0.

    python simulations/l_recall_30.py [--steps N] [--seeds N] [--workers N | --scheduler ADDR] [--store PATH]
                                      [--figure-only]

Writes results/l_recall_30.{csv,json,png}; the runs live in results/stores/.
"""
from __future__ import annotations

import numpy as np

import _trained
from theorylab.plots import panels

STUDY = "l_recall_30"
SEEDS = 5
STEPS = 3000
RECALL = dict(task="recall", pairs=30, alphabet=64, padding=3, d_model=64, dk=64, batch=64, lr=5e-3)
PAPER = {("symmetric", 2.0): {"mean": 0.691, "sd": 0.082, "seeds": 5},
         ("standard", 0.0): {"mean": 0.016, "sd": 0.004, "seeds": 5}}
"""§7.4 / A8.1's five-seed numbers by (variant, gamma) (mean and the +- the paper quotes, read as its sd)."""


def spec(args) -> dict:
    grids = [{"variant": "symmetric", "gamma": 2.0}, {"variant": "standard", "gamma": 0.0}]
    return _trained.spec_dict("A8.1 recall (30 pairs)", {**RECALL, "steps": STEPS}, grids, SEEDS, args)


def summarise(spec, rows, timing, skipped) -> dict:
    table = _trained.table(spec, rows, lambda c: PAPER.get((c.variant, c.gamma), {}).get("mean"))
    for r in table:
        r["paper_sd"] = PAPER.get((r["variant"], r["gamma"]), {}).get("sd")
    return {"steps": dict(spec.train)["steps"], "seeds": spec.seeds, "task": RECALL, "table": table,
            "paper_sweep_peak": {"symmetric g=2": 0.742, "g=0": 0.0127}}


def figure(summary: dict):
    """Per-seed accuracies and their mean +- sd beside the paper's mean +- sd, per variant."""
    fig, (ax,) = panels(1, 6, 4.2)
    for i, r in enumerate(summary["table"]):
        runs = [x["accuracy"] for x in summary["runs"] if x["variant"] == r["variant"]]
        ax.plot(np.full(len(runs), i - 0.1), runs, "o", color="C0", alpha=0.6)
        ax.errorbar(i - 0.1, r["mean"], yerr=0 if r["sd"] is None or np.isnan(r["sd"]) else r["sd"], fmt="s",
                    color="C0", capsize=4, label="ours: mean +- sd" if i == 0 else None)
        if r["paper"] is not None:
            ax.errorbar(i + 0.1, r["paper"], yerr=r["paper_sd"], fmt="x", color="k", capsize=4, ms=9, mew=2,
                        label="paper: mean +- sd (5 seeds)" if i == 0 else None)
    ax.axhline(summary["table"][0]["chance"], color="grey", ls=":", label="chance 1/64")
    ax.set_xticks(range(len(summary["table"])), [f"{r['variant']} g={r['gamma']:g}" for r in summary["table"]])
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("held-out accuracy")
    ax.set_title(f"(l) recall, 30 pairs (T = 64), {summary['steps']} steps, {summary['seeds']} seeds", fontsize=9)
    ax.legend(fontsize=7)
    return fig


def main() -> None:
    import sys
    _trained.study_main(sys.modules[__name__])


if __name__ == "__main__":
    _trained.main(main)

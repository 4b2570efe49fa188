"""Study (m): the standard baseline under two losses and two padding placements (A5's task).

Standard attention (g = 0) on the A5 recall task (14 pairs over 64 tokens, 3 PAD, T = 32), 3000 steps,
3 seeds, init "gamma-aware", trained with loss = "query" (cross-entropy at the query position only,
our convention so far) and loss = "sequence", each with padding_placement "fixed" and "random". Does
the baseline's chance-level accuracy depend on these conventions the paper leaves open? Paper: 1.2 %
at g = 0 on A5's task (chance 1/64 = 1.56 %), for its own (unstated) loss and padding.

    python simulations/m_loss_padding.py [--steps N] [--seeds N] [--workers N | --scheduler ADDR] [--store PATH]
                                         [--figure-only]

Writes results/m_loss_padding.{csv,json,png}; the runs live in results/stores/.
"""
from __future__ import annotations

import numpy as np

import _trained
from f_trained_induction import RECALL
from theorylab.plots import panels

STUDY = "m_loss_padding"
SEEDS = 3
STEPS = 3000
PAPER = 0.012
"""A5's accuracy at g = 0 (standard attention), for the paper's own conventions."""


def spec(args) -> dict:
    grids = [{"variant": "standard", "gamma": 0.0, "loss": ["query", "sequence"],
              "padding_placement": ["fixed", "random"]}]
    return _trained.spec_dict("standard baseline: loss x padding", {**RECALL, "steps": STEPS}, grids, SEEDS, args)


def summarise(spec, rows, timing, skipped) -> dict:
    table = _trained.table(spec, rows, lambda c: PAPER)
    for r in table:
        r["label"] = "/".join(str(r[k]) for k in ("loss", "padding_placement") if k in r) or "standard"
    return {"steps": dict(spec.train)["steps"], "seeds": spec.seeds, "task": RECALL, "table": table}


def figure(summary: dict):
    """Accuracy per (loss, padding placement) beside the paper's A5 baseline and chance."""
    fig, (ax,) = panels(1, 6, 4.2)
    t = summary["table"]
    mean = np.array([r["mean"] for r in t])
    lo = np.array([r["t_low"] if r["t_low"] is not None else r["wilson_low"] for r in t])
    hi = np.array([r["t_high"] if r["t_high"] is not None else r["wilson_high"] for r in t])
    ax.bar(range(len(t)), mean, yerr=[mean - lo, hi - mean], capsize=3, label="ours: standard, g = 0")
    ax.axhline(PAPER, color="k", ls="--", label="paper A5 g = 0: 1.2 %")
    ax.axhline(t[0]["chance"], color="grey", ls=":", label="chance 1/64")
    ax.set_xticks(range(len(t)), [r["label"] for r in t])
    ax.set_ylabel("held-out accuracy")
    ax.set_title(f"(m) standard baseline, A5 recall, {summary['steps']} steps, {summary['seeds']} seeds", fontsize=9)
    ax.legend(fontsize=7)
    return fig


def main() -> None:
    import sys
    _trained.study_main(sys.modules[__name__])


if __name__ == "__main__":
    _trained.main(main)

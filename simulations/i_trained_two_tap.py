"""Study (i): the order lattice, measured -- every member trained on the canonical task (PSA §7.5, §4.8).

Canonical induction, T = 15 (the key-side ceiling 1/(T-2) = 0.077; a uniform pointer over the T - 1
earlier keys, the paper's chance, is 1/14 = 0.071), 3000 steps, 3 seeds, init "gamma-aware":
standard attention, query-only at g = 0.5, 1, 2, 3, key-only, symmetric and the two-tap low-pass at
g = 2, the freely trained two-tap filter (taps initialised at the identity), two standard layers, and
the asymmetric member (variant "asymmetric", g = 2). Accuracy is read two ways: the prediction (logit
argmax = answer) and the pointer (attention argmax over the T - 1 keys = target; ``pointer_accuracy``,
NULL until TrainResult has it). Paper: query-only 0.033 / 0.030 / 0.033 / 0.030, key-only 0.949,
symmetric 0.811, low-pass 0.428, free two-tap 1.000 (a key-side first difference, identity query),
two-layer 0.036 at 3000 steps, asymmetric 0.875; no standard number on this task.

    python simulations/i_trained_two_tap.py [--steps N] [--seeds N] [--workers N | --scheduler ADDR]
                                            [--store PATH] [--figure-only]

Writes results/i_trained_two_tap.{csv,json,png}; the runs live in results/stores/.
"""
from __future__ import annotations

import numpy as np

import _trained
from f_trained_induction import paper_value
from theorylab.plots import panels

STUDY = "i_trained_two_tap"
SEEDS = 3
STEPS = 3000
LATTICE = dict(task="canonical", T=15, vocab=64, d_model=64, dk=64, batch=64, lr=5e-3)
GRIDS = [{"variant": ["standard", "free-two-tap", "two-layer"], "gamma": 0.0},
         {"variant": "query-only", "gamma": [0.5, 1.0, 2.0, 3.0]},
         {"variant": ["key-only", "symmetric", "low-pass"], "gamma": 2.0},
         {"variant": "asymmetric", "gamma": 2.0}]


def spec(args) -> dict:
    return _trained.spec_dict("order lattice (canonical T = 15)", {**LATTICE, "steps": STEPS}, GRIDS, SEEDS, args)


def summarise(spec, rows, timing, skipped) -> dict:
    table = _trained.table(spec, rows, lambda c: paper_value("lattice", c.variant, c.gamma))
    for r in table:
        r["label"] = r["variant"] + (f" g={r['gamma']:g}" if r["gamma"] else "")
    taps = [{"seed": r["seed"], "accuracy": r["accuracy"], **{k: r[k] for k in ("q_b0", "q_b1", "k_b0", "k_b1")},
             "q_ratio": r["q_b1"] / r["q_b0"], "k_ratio": r["k_b1"] / r["k_b0"]}
            for r in rows if r["variant"] == "free-two-tap" and r["q_b0"] is not None]
    T = LATTICE["T"]
    return {"steps": dict(spec.train)["steps"], "seeds": spec.seeds, "task": LATTICE, "table": table,
            "learned_taps": taps, "ceiling": 1.0 / (T - 2), "pointer_chance": 1.0 / (T - 1)}


def figure(summary: dict):
    """Left: prediction and pointer accuracy per lattice member beside the paper's number; right: the free
    two-tap filters' learned tap ratios b1/b0 on the query and key streams."""
    fig, (left, right) = panels(2, 12, 4.4)
    table = summary["table"]
    x = np.arange(len(table))
    mean = np.array([r["mean"] for r in table])
    lo = np.array([r["t_low"] if r["t_low"] is not None else r["wilson_low"] for r in table])
    hi = np.array([r["t_high"] if r["t_high"] is not None else r["wilson_high"] for r in table])
    left.bar(x - 0.2, mean, 0.4, yerr=[mean - lo, hi - mean], capsize=2, label="ours: prediction")
    pointer = [np.nan if r["pointer"] is None else r["pointer"] for r in table]
    left.bar(x + 0.2, pointer, 0.4, color="C2", label="ours: pointer (attention argmax)")
    paper = [(i, r["paper"]) for i, r in enumerate(table) if r["paper"] is not None]
    if paper:
        left.plot(*zip(*paper), "kx", ms=9, mew=2, label="paper (same variant, g)")
    left.axhline(summary["ceiling"], color="k", ls="--", lw=1, label=f"1/(T-2) = {summary['ceiling']:.3f}")
    left.axhline(summary["pointer_chance"], color="grey", ls=":", lw=1,
                 label=f"1/(T-1) = {summary['pointer_chance']:.3f}")
    left.set_xticks(x, [r["label"] for r in table], rotation=45, ha="right", fontsize=7)
    left.set_ylim(0, 1.05)
    left.set_ylabel("held-out accuracy")
    left.set_title(f"(i) order lattice, canonical T = 15, {summary['steps']} steps, {summary['seeds']} seeds",
                   fontsize=9)
    left.legend(fontsize=7)
    taps = summary["learned_taps"]
    if taps:
        right.plot([t["q_ratio"] for t in taps], [t["k_ratio"] for t in taps], "o")
    right.axhline(-1, color="k", ls=":", lw=1, label="key first difference (b1/b0 = -1)")
    right.axvline(0, color="grey", ls=":", lw=1, label="identity query (b1 = 0)")
    right.set_xlabel("query taps b1/b0")
    right.set_ylabel("key taps b1/b0")
    right.set_title("(i) free two-tap filters after training (paper: key difference, identity query)", fontsize=9)
    right.legend(fontsize=7)
    return fig


def main() -> None:
    import sys
    _trained.study_main(sys.modules[__name__])


if __name__ == "__main__":
    _trained.main(main)

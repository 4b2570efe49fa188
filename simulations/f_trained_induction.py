"""Study (f): trained single-layer induction on the paper's A5 recall task, at the paper's budget (PSA A5).

Associative recall: 14 key-value pairs over a shared alphabet of 64, 3 PAD tokens, then the query
(T = 32), d_model = 64, one head; 3000 steps, 3 seeds. Symmetric PSA and key-only PSA at every
g of GAMMAS (init "gamma-aware", every study's), and symmetric PSA again with init "plain" (the
comparison of the two initialisations). Paper (A5, Table 22): the symmetric shear reaches 83.4 % at
g = 4 against 1.2 % at g = 0 (chance 1/64), above 70 % on g in [1.4, 5.5]; it gives no key-only
number. Each paper number is drawn beside the run of the same variant and g.

    python simulations/f_trained_induction.py [--steps N] [--seeds N] [--workers N | --scheduler ADDR]
                                              [--store PATH] [--figure-only]

Writes results/f_trained_induction.{csv,json,png}; the runs live in results/stores/.
"""
from __future__ import annotations

import _trained
from theorylab.plots import panels
from theorylab.plots.trained import accuracy_curves

STUDY = "f_trained_induction"
SEEDS = 3
STEPS = 3000
GAMMAS = [0.0, 0.2, 0.3, 0.5, 1.0, 1.4, 2.0, 3.0, 4.0, 5.5]
RECALL = dict(task="recall", pairs=14, alphabet=64, padding=3, d_model=64, dk=64, batch=64, lr=5e-3)
PAPER_RECALL = {("symmetric", 0.0): 0.012, ("symmetric", 4.0): 0.834}
"""The paper's A5 accuracies by (variant, gamma): the symmetric shear's 83.4 % at gamma = 4 (A5's gamma* ~ 4) and
its 1.2 % at gamma = 0 (standard attention); none for key-only, and none at other g (only > 70 % on [1.4, 5.5])."""
PAPER_BAND = {"variant": "symmetric", "low": 1.4, "high": 5.5, "above": 0.70}
"""A5's range claim: accuracy above 70 % for every g in [1.4, 5.5]."""
PAPER_LATTICE = {("query-only", 0.5): 0.033, ("query-only", 1.0): 0.030, ("query-only", 2.0): 0.033,
                 ("query-only", 3.0): 0.030, ("key-only", 2.0): 0.949, ("symmetric", 2.0): 0.811,
                 ("low-pass", 2.0): 0.428, ("free-two-tap", 0.0): 1.000, ("two-layer", 0.0): 0.036,
                 ("asymmetric", 2.0): 0.875}
"""The paper's §7.5 / §4.8 battery on the canonical task (T = 15), by (variant, gamma) as our lattice runs them
(study i)."""


def paper_value(part: str, variant: str, gamma: float) -> float | None:
    """The paper's accuracy for this run (``part`` = "recall" or "lattice"), or None when it has none."""
    return (PAPER_LATTICE if part == "lattice" else PAPER_RECALL).get((variant, float(gamma)))


def paper_marks(part: str) -> dict:
    """{variant: [(gamma, accuracy)]} of the paper's numbers of ``part``, for the figure."""
    marks: dict = {}
    for (variant, gamma), acc in (PAPER_LATTICE if part == "lattice" else PAPER_RECALL).items():
        marks.setdefault(variant, []).append((gamma, acc))
    return marks


def spec(args) -> dict:
    grids = [{"variant": ["symmetric", "key-only"], "gamma": GAMMAS},
             {"variant": "symmetric", "gamma": GAMMAS, "init": "plain"}]
    return _trained.spec_dict("A5 recall (14 pairs)", {**RECALL, "steps": STEPS}, grids, SEEDS, args)


def summarise(spec, rows, timing, skipped) -> dict:
    table = _trained.table(spec, rows, lambda c: paper_value("recall", c.variant, c.gamma))
    for r in table:
        r["curve"] = r["variant"] + (f" ({r['init']})" if "init" in r else "")
    band = [r for r in table if r["variant"] == PAPER_BAND["variant"] and r.get("init", "gamma-aware") != "plain"
            and PAPER_BAND["low"] <= r["gamma"] <= PAPER_BAND["high"]]
    return {"steps": dict(spec.train)["steps"], "seeds": spec.seeds, "task": RECALL, "table": table,
            "paper": {"points": {f"{v} g={g:g}": a for (v, g), a in PAPER_RECALL.items()}, "band": PAPER_BAND},
            "band_check": {"min_mean_on_band": min((r["mean"] for r in band), default=None),
                           "paper_above": PAPER_BAND["above"]}}


def figure(summary: dict):
    """Accuracy against g per variant (and init), the paper's A5 numbers as crosses in their variant's colour."""
    fig, (ax,) = panels(1, 7, 4.4)
    rows = [{**r, "variant": r.get("curve", r["variant"])} for r in summary["table"]]
    marks = {("symmetric (gamma-aware)" if any(r["variant"] == "symmetric (gamma-aware)" for r in rows) else v): p
             for v, p in paper_marks("recall").items()}
    accuracy_curves(rows, chance=rows[0]["chance"], paper=marks, ax=ax,
                    title=f"(f) A5 recall: 14 pairs, T = 32, {summary['steps']} steps, {summary['seeds']} seeds")
    band = summary["paper"]["band"]
    ax.hlines(band["above"], band["low"], band["high"], color="k", lw=1, ls="-.", label="paper: > 70 % on [1.4, 5.5]")
    ax.legend(fontsize=7)
    return fig


def main() -> None:
    import sys
    _trained.study_main(sys.modules[__name__])


if __name__ == "__main__":
    _trained.main(main)

"""Study (f): trained single-layer induction -- accuracy per variant and gamma (PSA §7.4, §7.5, A5).

Two parts, each over SEEDS seeds, held-out accuracy with 95 % intervals:

* recall -- the paper's A5 task at our budget: associative recall, 14 key-value pairs over a
  shared alphabet of 64, 3 PAD tokens, query (T = 32); standard attention, key-only PSA at
  gamma = 2 and symmetric PSA at gamma = 2 and 4 (paper A5: 83.4 % for the symmetric shear at
  gamma = 4 vs 1.2 % for standard attention at gamma = 0; above 70 % on gamma in [1.4, 5.5]).
* lattice -- the order-lattice battery (§7.5) on the canonical induction model, T = 15
  (ceiling 1/(T-2) = 0.077): standard, query-only, key-only, symmetric and the two-tap
  low-pass at gamma = 2 (paper: -, 0.033, 0.949, 0.811, 0.428).

    python simulations/f_trained_induction.py [--steps N] [--seeds N] [--workers N] [--figure-only]

Writes results/f_trained_induction.{csv,json,png}.
"""
from __future__ import annotations

import _trained
from theorylab.nn.train import TrainConfig
from theorylab.plots import panels
from theorylab.plots.trained import accuracy_curves

STUDY = "f_trained_induction"
SEEDS = 3
STEPS = 600
RECALL_STEPS = 800
RECALL = dict(task="recall", pairs=14, alphabet=64, padding=3, batch=64, lr=5e-3)
LATTICE = dict(task="canonical", T=15, vocab=64, batch=64, lr=5e-3)
RECALL_RUNS = [("standard", 0.0), ("key-only", 2.0), ("symmetric", 2.0), ("symmetric", 4.0)]
PAPER_RECALL = {("standard", 0.0): 0.012, ("symmetric", 4.0): 0.834}
"""The paper's A5 accuracies by (variant, gamma): its 83.4 % is the symmetric shear's at gamma = 4 (A5's
gamma* ~ 4), its 1.2 % standard attention's; no number at key-only or symmetric gamma = 2 (only > 70 % on
[1.4, 5.5], not a point value)."""
PAPER_LATTICE = {("query-only", 2.0): 0.033, ("key-only", 2.0): 0.949, ("symmetric", 2.0): 0.811,
                 ("low-pass", 2.0): 0.428}
"""The paper's §7.5 battery at gamma = 2, by (variant, gamma)."""


def paper_value(part: str, variant: str, gamma: float) -> float | None:
    """The paper's accuracy for this run, or None when the paper has no number for exactly this run."""
    return (PAPER_LATTICE if part == "lattice" else PAPER_RECALL).get((variant, float(gamma)))


def paper_marks(part: str) -> dict:
    """{variant: [(gamma, accuracy)]} of the paper's numbers of ``part``, for the figure."""
    marks: dict = {}
    for (variant, gamma), acc in (PAPER_LATTICE if part == "lattice" else PAPER_RECALL).items():
        marks.setdefault(variant, []).append((gamma, acc))
    return marks


def figure(summary: dict):
    """Left: recall accuracy per variant and gamma; right: the order lattice; the paper's numbers as crosses
    in the colour of the variant they belong to."""
    fig, (left, right) = panels(2, 11, 4.2)
    seeds, steps, table = summary["seeds"], summary["steps"], summary["table"]
    recall = [r for r in table if r["part"] == "recall"]
    lattice = [r for r in table if r["part"] == "lattice"]
    accuracy_curves(recall, chance=recall[0]["chance"], paper=paper_marks("recall"), ax=left,
                    title=f"(f) recall: {RECALL['pairs']} pairs, T = {TrainConfig(**RECALL).seq_len}, {steps['recall']} steps, "
                          f"{seeds} seeds")
    accuracy_curves(lattice, chance=lattice[0]["chance"], ceiling=lattice[0]["ceiling"], paper=paper_marks("lattice"),
                    ax=right, title=f"(f) order lattice: canonical T = 15, {steps['lattice']} steps, {seeds} seeds")
    return fig


def configs(steps: int | None) -> tuple[list, list]:
    """Recall and lattice configs; ``steps`` overrides both parts' budgets (RECALL_STEPS, STEPS)."""
    recall = [TrainConfig(variant=v, gamma=g, steps=steps or RECALL_STEPS, **RECALL) for v, g in RECALL_RUNS]
    lattice = [TrainConfig(variant="standard", gamma=0.0, steps=steps or STEPS, **LATTICE)]
    lattice += [TrainConfig(variant=v, gamma=2.0, steps=steps or STEPS, **LATTICE)
                for v in ("query-only", "key-only", "symmetric", "low-pass")]
    return recall, lattice


def main() -> None:
    args = _trained.parser(__doc__.splitlines()[0]).parse_args()
    if args.figure_only:
        return _trained.redraw(STUDY, args, figure)
    seeds = args.seeds or SEEDS
    recall, lattice = configs(args.steps)
    jobs = [(c, s) for c in recall + lattice for s in range(seeds)]
    results, timing = _trained.run(STUDY, jobs, args)
    rows = []
    for part, cfgs in (("recall", recall), ("lattice", lattice)):
        for r in _trained.grouped(cfgs, results):
            rows.append({"part": part, **r, "paper": paper_value(part, r["variant"], r["gamma"])})
    runs = [{"part": "recall" if r.config.task == "recall" else "lattice", **r.row()} for r in results]
    columns = ["part", "variant", "gamma", "seed", "steps", "accuracy", "ci_low", "ci_high", "attention_accuracy",
               "eval_loss", "final_train_loss", "seconds", "cpu_seconds"]
    summary = {"study": STUDY, "steps": {"recall": recall[0].steps, "lattice": lattice[0].steps}, "seeds": seeds,
               "timing": timing, "recall": RECALL,
               "lattice": LATTICE, "table": rows}
    _trained.write(STUDY, args, runs, columns, summary, figure)
    _trained.report_table(rows)


if __name__ == "__main__":
    _trained.main(main)

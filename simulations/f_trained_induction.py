"""Study (f): trained single-layer induction -- accuracy per variant and gamma (PSA §7.4, §7.5, A5).

Two parts, each over SEEDS seeds, held-out accuracy with 95 % intervals:

* recall -- the paper's A5 task at our budget: associative recall, 14 key-value pairs over a
  shared alphabet of 64, 3 PAD tokens, query (T = 32); standard attention, key-only PSA at
  gamma = 2 and symmetric PSA at gamma = 2 and 4 (paper: 83.4 % at gamma = 4 vs 1.2 % at 0).
* lattice -- the order-lattice battery (§7.5) on the canonical induction model, T = 15
  (ceiling 1/(T-2) = 0.077): standard, query-only, key-only, symmetric and the two-tap
  low-pass at gamma = 2 (paper: -, 0.033, 0.949, 0.811, 0.428).

    python simulations/f_trained_induction.py [--steps N] [--seeds N] [--workers N]

Writes results/f_trained_induction.{csv,json,png}.
"""
from __future__ import annotations

import _trained
from theorylab.nn.train import TrainConfig
from theorylab.plots import new_figure
from theorylab.plots.trained import accuracy_axes

STUDY = "f_trained_induction"
SEEDS = 3
STEPS = 600
RECALL_STEPS = 800
RECALL = dict(task="recall", pairs=14, alphabet=64, padding=3, batch=64, lr=5e-3)
LATTICE = dict(task="canonical", T=15, vocab=64, batch=64, lr=5e-3)
RECALL_RUNS = [("standard", 0.0), ("key-only", 2.0), ("symmetric", 2.0), ("symmetric", 4.0)]
PAPER_RECALL = {"paper A5 (gamma 0 / 4)": ([0.0, 4.0], [0.012, 0.834])}
PAPER_RECALL_TABLE = {"standard": 0.012, "symmetric": 0.834}
PAPER_LATTICE = {"standard": None, "query-only": 0.033, "key-only": 0.949, "symmetric": 0.811, "low-pass": 0.428}


def configs(steps: int | None) -> tuple[list, list]:
    """Recall and lattice configs; ``steps`` overrides both parts' budgets (RECALL_STEPS, STEPS)."""
    recall = [TrainConfig(variant=v, gamma=g, steps=steps or RECALL_STEPS, **RECALL) for v, g in RECALL_RUNS]
    lattice = [TrainConfig(variant="standard", gamma=0.0, steps=steps or STEPS, **LATTICE)]
    lattice += [TrainConfig(variant=v, gamma=2.0, steps=steps or STEPS, **LATTICE)
                for v in ("query-only", "key-only", "symmetric", "low-pass")]
    return recall, lattice


def main() -> None:
    args = _trained.parser(__doc__.splitlines()[0]).parse_args()
    seeds = args.seeds or SEEDS
    recall, lattice = configs(args.steps)
    jobs = [(c, s) for c in recall + lattice for s in range(seeds)]
    results, timing = _trained.run(STUDY, jobs, args)
    rows = []
    for part, cfgs in (("recall", recall), ("lattice", lattice)):
        for r in _trained.grouped(cfgs, results):
            paper = PAPER_LATTICE.get(r["variant"]) if part == "lattice" else PAPER_RECALL_TABLE.get(r["variant"])
            rows.append({"part": part, **r, "paper": paper})
    runs = [{"part": "recall" if r.config.task == "recall" else "lattice", **r.row()} for r in results]
    fig, ax = new_figure(11, 4.2)
    fig.clear()
    left, right = fig.subplots(1, 2)
    accuracy_axes(left, [r for r in rows if r["part"] == "recall"], chance=recall[0].chance, paper=PAPER_RECALL)
    left.set_title(f"(f) recall: 14 pairs, T = {recall[0].seq_len}, {recall[0].steps} steps, {seeds} seeds",
                   fontsize=9)
    accuracy_axes(right, [r for r in rows if r["part"] == "lattice"], chance=lattice[0].chance,
                  ceiling=lattice[0].ceiling,
                  paper={"paper §7.5 (gamma 2 shown)": ([2.0] * 4, [0.033, 0.949, 0.811, 0.428])})
    right.set_title(f"(f) order lattice: canonical T = 15, {lattice[0].steps} steps, {seeds} seeds", fontsize=9)
    columns = ["part", "variant", "gamma", "seed", "steps", "accuracy", "ci_low", "ci_high", "attention_accuracy",
               "eval_loss", "final_train_loss", "seconds", "cpu_seconds"]
    summary = {"study": STUDY, "steps": {"recall": recall[0].steps, "lattice": lattice[0].steps}, "seeds": seeds,
               "timing": timing, "recall": RECALL,
               "lattice": LATTICE, "table": rows}
    _trained.write(STUDY, args, runs, columns, summary, fig)
    _trained.report_table(rows)


if __name__ == "__main__":
    _trained.main(main)

"""Study (c): the t3-inclusive monotone width sweep the paper predicts but never measured.

PSA §10: restoring the T3 channel removes the t4-only crossover at d*_k = 8L; gamma_c
then falls monotonically with dk (first annealed root near dk = 31.5 at T = 512,
asymptote L/sqrt(dk)), and "the extended model's predicted monotone sweep has not been
measured". Here, at T = 512, a log-spaced dk ladder from 16 to 1024: the annealed
t3-inclusive root, the exact reduced-model root and the Monte Carlo root, next to the
t4-only two-branch law and its own simulation for contrast.

    python simulations/c_t3_width.py [--samples N | --paper-scale] [--workers N | --local-cluster N]

Writes results/c_t3_width.{csv,png,json}.
"""
from __future__ import annotations

import math
import os

import numpy as np

import _study
from theorylab.plots.sweep import gamma_c_along
from theorylab.psa.sweep import compare_rows

STUDY = "c_t3_width"
T = 512
DK = [16, 20, 24, 28, 32, 40, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024]


def _monotone(rows, col) -> dict:
    """Steps of ``col`` along increasing dk (points where it exists): how many go up."""
    v = np.array([r[col] for r in rows if r[col] is not None])
    steps = np.diff(v)
    return {"points": int(v.size), "increases": int((steps > 0).sum()),
            "largest_increase": float(steps.max()) if steps.size and steps.max() > 0 else 0.0}


def figure(rows: list[dict]):
    """gamma_c along dk (plain integer ticks at the grid's dk), t3-inclusive against t4-only."""
    return gamma_c_along(rows, axis="dk", title=f"(c) gamma_c along dk at T = {T}: t3-inclusive vs t4-only")


def main() -> None:
    args = _study.parser(__doc__.splitlines()[0], samples=20000, paper_samples=200000).parse_args()
    if args.figure_only:
        rows, _ = _study.stored(STUDY, args.out)
        print(_study.write_png(args.out, STUDY, figure, rows))
        return
    spec = {"sweep": {"name": "(c) t3-inclusive width sweep, T = 512", "seed": args.seed,
                      "samples": _study.samples_of(args), "compute": ["annealed", "exact", "mc"]},
            "grid": {"variant": ["t3-inclusive", "t4-only"], "dk": DK, "T": [T]}}
    _, rows = _study.run(STUDY, spec, args)
    L = math.log(T - 1)
    for r in rows:
        r["asymptote"] = L / math.sqrt(r["dk"]) if r["variant"] == "t3-inclusive" else (L**2 / r["dk"]) ** 0.25
        r["err_law_mc"] = _study.rel_err(r["law_gamma_c"], r["mc_gamma_c"])
        r["err_exact_mc"] = _study.rel_err(r["exact_gamma_c"], r["mc_gamma_c"])
    t3 = sorted((r for r in rows if r["variant"] == "t3-inclusive"), key=lambda r: r["dk"])
    t4 = sorted((r for r in rows if r["variant"] == "t4-only"), key=lambda r: r["dk"])
    first_root = next((r["dk"] for r in t3 if r["law_gamma_c"] is not None), None)
    summary = {
        "study": STUDY, "T": T, "points": len(rows), "samples": rows[0]["mc_samples"], "seed": args.seed,
        "t3_annealed_first_dk_with_root": first_root,
        "t3_exact_first_dk_with_root": next((r["dk"] for r in t3 if r["exact_gamma_c"] is not None), None),
        "t3_mc_monotone": _monotone(t3, "mc_gamma_c"), "t3_exact_monotone": _monotone(t3, "exact_gamma_c"),
        "t4_mc_monotone": _monotone(t4, "mc_gamma_c"), "t4_law_monotone": _monotone(t4, "law_gamma_c"),
        "t3_law_vs_mc": compare_rows(t3, "law", "mc"), "t4_law_vs_mc": compare_rows(t4, "law", "mc"),
        "t3_mc_vs_exact": compare_rows(t3, "mc", "exact"),
    }
    flat = {"t3_annealed_first_dk_with_root (grid)": first_root,
            "t3_mc_increases_along_dk": f"{summary['t3_mc_monotone']['increases']} of "
                                        f"{summary['t3_mc_monotone']['points'] - 1} steps",
            "t4_law_increases_along_dk": f"{summary['t4_law_monotone']['increases']} of "
                                         f"{summary['t4_law_monotone']['points'] - 1} steps",
            "t4_mc_increases_along_dk": f"{summary['t4_mc_monotone']['increases']} of "
                                        f"{summary['t4_mc_monotone']['points'] - 1} steps",
            "t3_law_vs_mc_pearson_r": summary["t3_law_vs_mc"]["pearson_r"],
            "t3_law_vs_mc_median_rel_err": summary["t3_law_vs_mc"]["median_rel_err"],
            "t3_law_vs_mc_max_rel_err": summary["t3_law_vs_mc"]["max_rel_err"],
            "t3_mc_vs_exact_max_rel_err": summary["t3_mc_vs_exact"]["max_rel_err"]}
    summary.update(flat)
    columns = ["variant", "dk", "T", "law_branch", "law_gamma_c", "exact_gamma_c", "mc_gamma_c", "mc_ci_low",
               "mc_ci_high", "asymptote", "err_law_mc", "err_exact_mc", "seed", "mc_samples"]
    _study.write_csv(os.path.join(args.out, f"{STUDY}.csv"), rows, columns)
    _study.write_png(args.out, STUDY, figure, rows)
    _study.write_summary(os.path.join(args.out, f"{STUDY}.json"), summary)
    _study.report("(c) width sweep at T = 512", rows, columns[:12], flat)


if __name__ == "__main__":
    _study.main(main)

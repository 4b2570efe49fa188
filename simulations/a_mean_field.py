"""Study (a): the two-branch law against Monte Carlo and exact quadrature on a mean-field grid.

PSA §7.9 reports, on nine mean-field points (dk >= 8L), Pearson r = 0.9876 and a median
relative error of 2.6 % between the two-branch law and Monte Carlo. Here: the library's
nine-point grid theorylab.psa.compare.PAPER_GRID, dk in {64, 128, 256} x T in {64, 512, 2048}
(all with dk >= 8L = 8 ln(T - 1); the paper's own grid is not in its summary), the t4-only
law (theorylab.psa.transition.gamma_c), the exact reduced-model gamma_c (root of the
quadrature mass M(g) = 1/2) and the Monte Carlo root with its batch-means 95 % CI.

    python simulations/a_mean_field.py [--samples N | --paper-scale] [--workers N | --local-cluster N]

Writes results/a_mean_field.{csv,png,json}.
"""
from __future__ import annotations

import math
import os

import _study
from theorylab.psa.compare import PAPER_GRID, PAPER_STATISTICS
from theorylab.plots.sweep import predicted_vs_simulated
from theorylab.psa.sweep import compare_rows

STUDY = "a_mean_field"
DK = sorted({dk for dk, _ in PAPER_GRID})
T = sorted({T for _, T in PAPER_GRID})
assert sorted(PAPER_GRID) == sorted((dk, t) for dk in DK for t in T), "PAPER_GRID is no longer a product grid"
PAPER = PAPER_STATISTICS._asdict()


def figure(rows: list[dict], flat: dict):
    """The t4-only law against Monte Carlo with the agreement statistics beside the paper's."""
    stats = {"Pearson r": flat["law_vs_mc_pearson_r"], "median rel. err": flat["law_vs_mc_median_rel_err"],
             "paper r": PAPER["pearson_r"], "paper median": PAPER["median_rel_err"]}
    return predicted_vs_simulated(rows, "law_gamma_c", "mc_gamma_c", stats=stats,
                                  title="(a) t4-only two-branch law vs Monte Carlo (mean-field grid)")


def main() -> None:
    args = _study.parser(__doc__.splitlines()[0], samples=20000, paper_samples=200000).parse_args()
    if args.figure_only:
        rows, summary = _study.stored(STUDY, args.out)
        print(_study.write_png(args.out, STUDY, figure, rows, summary))
        return
    spec = {"sweep": {"name": "(a) two-branch law vs MC, mean-field grid", "seed": args.seed,
                      "samples": _study.samples_of(args), "compute": ["annealed", "exact", "mc"]},
            "grid": {"variant": ["t4-only"], "dk": DK, "T": T}}
    _, rows = _study.run(STUDY, spec, args)
    for r in rows:
        r["L"] = math.log(r["T"] - 1)
        r["dk_star"] = 8 * r["L"]
        r["err_law_mc"] = _study.rel_err(r["law_gamma_c"], r["mc_gamma_c"])
        r["err_law_exact"] = _study.rel_err(r["law_gamma_c"], r["exact_gamma_c"])
        half = None if r["mc_ci_high"] is None else (r["mc_ci_high"] - r["mc_ci_low"]) / 2
        r["exact_in_mc_ci"] = None if half is None else abs(r["mc_gamma_c"] - r["exact_gamma_c"]) <= half
    summary = {"study": STUDY, "points": len(rows), "samples": rows[0]["mc_samples"], "seed": args.seed,
               "law_vs_mc": compare_rows(rows, "law", "mc"), "law_vs_exact": compare_rows(rows, "law", "exact"),
               "mc_vs_exact": compare_rows(rows, "mc", "exact"),
               "exact_inside_mc_ci": sum(bool(r["exact_in_mc_ci"]) for r in rows),
               "branches": sorted({r["law_branch"] for r in rows}), "paper": PAPER}
    flat = {"law_vs_mc_pearson_r": summary["law_vs_mc"]["pearson_r"],
            "law_vs_mc_median_rel_err": summary["law_vs_mc"]["median_rel_err"],
            "law_vs_mc_max_rel_err": summary["law_vs_mc"]["max_rel_err"],
            "law_vs_exact_median_rel_err": summary["law_vs_exact"]["median_rel_err"],
            "mc_vs_exact_max_rel_err": summary["mc_vs_exact"]["max_rel_err"],
            "exact_inside_mc_95ci": f"{summary['exact_inside_mc_ci']}/{len(rows)}",
            "paper_pearson_r": PAPER["pearson_r"], "paper_median_rel_err": PAPER["median_rel_err"]}
    summary.update(flat)
    columns = ["variant", "dk", "T", "dk_star", "law_branch", "law_gamma_c", "exact_gamma_c", "mc_gamma_c",
               "mc_ci_low", "mc_ci_high", "err_law_mc", "err_law_exact", "exact_in_mc_ci", "seed", "mc_samples"]
    _study.write_csv(os.path.join(args.out, f"{STUDY}.csv"), rows, columns)
    _study.write_png(args.out, STUDY, figure, rows, flat)
    _study.write_summary(os.path.join(args.out, f"{STUDY}.json"), summary)
    _study.report("(a) mean-field grid: law vs exact vs Monte Carlo", rows, columns[:12], flat)


if __name__ == "__main__":
    _study.main(main)

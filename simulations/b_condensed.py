"""Study (b): the condensed branch at dk = 16 over T, per transition observable, and the argmax limit.

PSA §7.10: on eight condensed-branch points at fixed dk = 16 (dk < 8L), the T scan gives
Pearson r = 0.9995, median relative error 3.1 %, max 5.2 % between the law c (L/2)^(1/4)
and simulation, c drifting systematically with context length; the argmax limit
Phi(sqrt(dk)/2)^m differs from direct simulation by at most 9e-4. Here, at dk = 16 and eight
T in {16, 32, ..., 2048} (the paper's T values are not in its summary):

1. the t4-only law c (L/2)^(1/4) with theorylab's c = CONDENSATION_C (calibrated on the
   entropy-peak observable over theorylab.psa.compare.CONDENSED_GRID, which shares T = 64, 512,
   2048 with this scan: a consistency check, as in the paper) against the exact and Monte
   Carlo **entropy-peak** coupling (argmax over g of -dE[H]/d(g^2), H the row entropy);
2. the same law beside the other observables of theorylab.psa.observables (inflection,
   half-plateau, mass-half), exact and Monte Carlo, where they exist;
3. the exact curves M(g), E[H](g) and -dE[H]/d(g^2) at dk = 16 for T in {16, 64, 256, 1024,
   4096}, with the transition points marked (the figure);
4. a mass sweep at g = 4 and g = 10: exact and Monte Carlo M(g) against the argmax limit.

    python simulations/b_condensed.py [--samples N | --paper-scale] [--workers N | --local-cluster N]

Writes results/b_condensed.{csv,png,json} (the CSV holds every observable, column ``observable``).
"""
from __future__ import annotations

import math
import os

import numpy as np

import _study
from theorylab.psa.compare import CONDENSED_SCAN
from theorylab.plots.observables import transition_curves
from theorylab.psa.transition import (CONDENSATION_C, CONDENSATION_C_PAPER, CONDENSATION_OBSERVABLE,
                                      condensed_gamma_c, freezing_coupling)
from theorylab.psa.quadrature import argmax_limit
from theorylab.psa.observables import measure
from theorylab.psa.row_stats import exact_row_stats
from theorylab.psa.sweep import agreement, compare_rows

STUDY = "b_condensed"
DK = 16
T = [t for _, t in CONDENSED_SCAN]            # 16, 32, ..., 2048: dk = 16 < 8L at each (8L >= 21.7)
assert all(d == DK for d, _ in CONDENSED_SCAN)
OBSERVABLES = [CONDENSATION_OBSERVABLE, "inflection", "half-plateau", "mass-half"]
CURVE_T = [16, 64, 256, 1024, 4096]
CURVE_G = np.linspace(0.3, 2.0, 86)
G_PLATEAU = [4.0, 10.0]
PAPER = {"pearson_r": 0.9995, "median_rel_err": 0.031, "max_rel_err": 0.052, "argmax_max_abs_diff": 9e-4}


def figure():
    """Exact curves M, E[H], -dE[H]/d(g^2) at dk = 16 with the transition points (exact numerics only,
    no Monte Carlo: ``--figure-only`` recomputes them in seconds)."""
    curves = []
    for t in CURVE_T:
        rs = exact_row_stats("t4-only", DK, t, CURVE_G, distractor=False)
        marks = {o: measure(o, "t4-only", DK, t).gamma_c for o in OBSERVABLES[:3]}
        marks["law"] = float(condensed_gamma_c(t))
        curves.append({"label": f"T = {t}", "gamma": CURVE_G, "mass": rs.mass, "entropy": rs.entropy,
                       "marks": marks})
    return transition_curves(curves, title=f"(b) dk = 16: M, E[H], -dE[H]/d(g^2) (exact); markers: "
                                           f"{', '.join(OBSERVABLES[:3])}; dotted: law c = {CONDENSATION_C}")


def main() -> None:
    args = _study.parser(__doc__.splitlines()[0], samples=20000, paper_samples=200000).parse_args()
    if args.figure_only:
        print(_study.write_png(_study.output_folder(args.out), STUDY, figure))
        return
    samples = _study.samples_of(args)
    rows, stats = [], {}
    for obs in OBSERVABLES:
        _, got = _study.run(f"{STUDY}_{obs}", {
            "sweep": {"name": f"(b) condensed branch, dk = 16, {obs}", "seed": args.seed, "samples": samples,
                      "compute": ["annealed", "exact", "mc"], "observable": obs},
            "grid": {"variant": ["t4-only"], "dk": [DK], "T": T}}, args)
        for r in got:
            r["observable"] = obs
            r["g_freeze"] = float(freezing_coupling(r["T"]))
            r["law_paper_c"] = float(condensed_gamma_c(r["T"], c=CONDENSATION_C_PAPER))
            r["err_law_mc"] = _study.rel_err(r["law_gamma_c"], r["mc_gamma_c"])
            r["err_law_exact"] = _study.rel_err(r["law_gamma_c"], r["exact_gamma_c"])
            r["ratio_exact"] = None if r["exact_gamma_c"] is None else r["exact_gamma_c"] / r["g_freeze"]
            half = None if r["mc_ci_high"] is None else (r["mc_ci_high"] - r["mc_ci_low"]) / 2
            r["exact_in_mc_ci"] = (None if half is None or r["exact_gamma_c"] is None
                                   else abs(r["mc_gamma_c"] - r["exact_gamma_c"]) <= half)
        stats[obs] = {"law_vs_mc": compare_rows(got, "law", "mc"), "law_vs_exact": compare_rows(got, "law", "exact"),
                      "mc_vs_exact": compare_rows(got, "mc", "exact"),
                      "paper_c_law_vs_mc": agreement([r["law_paper_c"] for r in got], [r["mc_gamma_c"] for r in got]),
                      "exact_inside_mc_95ci": f"{sum(bool(r['exact_in_mc_ci']) for r in got)}/"
                                              f"{sum(r['exact_in_mc_ci'] is not None for r in got)}",
                      "ratio_exact": [r["ratio_exact"] for r in got]}
        rows += got
    _, mass = _study.run(f"{STUDY}_plateau", {
        "sweep": {"name": "(b) argmax plateau, dk = 16", "seed": args.seed, "samples": samples,
                  "compute": ["exact", "mc"]},
        "grid": {"variant": ["t4-only"], "dk": [DK], "T": T, "gamma": G_PLATEAU}}, args)
    top = max(G_PLATEAU)
    plateau = [{"T": r["T"], "argmax_limit": float(argmax_limit("t4-only", DK, r["T"])), "mc_mass": r["mc_mass"],
                "mc_se": r["mc_se"], "exact_mass": r["exact_mass"]} for r in mass if r["gamma"] == top]
    diffs = [abs(p["mc_mass"] - p["argmax_limit"]) for p in plateau]
    exact_diffs = [abs(p["exact_mass"] - p["argmax_limit"]) for p in plateau]
    main_stats = stats[CONDENSATION_OBSERVABLE]
    summary = {"study": STUDY, "dk": DK, "T": T, "points": len(rows), "samples": samples, "seed": args.seed,
               "condensation_c": CONDENSATION_C, "condensation_observable": CONDENSATION_OBSERVABLE,
               "condensation_c_paper": CONDENSATION_C_PAPER, "observables": stats,
               "argmax_max_abs_diff_mc": max(diffs), "argmax_max_abs_diff_exact": max(exact_diffs),
               "argmax_max_mc_se": max(p["mc_se"] for p in plateau), "paper": PAPER}
    flat = {f"{CONDENSATION_OBSERVABLE}: law (c = {CONDENSATION_C}) vs MC pearson_r": main_stats["law_vs_mc"]["pearson_r"],
            f"{CONDENSATION_OBSERVABLE}: law vs MC median_rel_err": main_stats["law_vs_mc"]["median_rel_err"],
            f"{CONDENSATION_OBSERVABLE}: law vs MC max_rel_err": main_stats["law_vs_mc"]["max_rel_err"],
            f"{CONDENSATION_OBSERVABLE}: law (paper c = {CONDENSATION_C_PAPER}) vs MC median_rel_err":
                main_stats["paper_c_law_vs_mc"]["median_rel_err"],
            f"{CONDENSATION_OBSERVABLE}: exact inside MC 95 % CI": main_stats["exact_inside_mc_95ci"],
            f"{CONDENSATION_OBSERVABLE}: g / (L/2)^(1/4) (exact), T = {T[0]} .. {T[-1]}":
                f"{main_stats['ratio_exact'][0]:.4f} .. {main_stats['ratio_exact'][-1]:.4f}"}
    for obs in OBSERVABLES[1:]:
        s = stats[obs]["law_vs_mc"]
        flat[f"{obs}: points with an MC coupling"] = f"{s['n']}/{len(T)}"
        flat[f"{obs}: law vs MC r / median / max"] = (f"{s['pearson_r']:.4f} / {s['median_rel_err']:.4f} / "
                                                      f"{s['max_rel_err']:.4f}" if s["n"] >= 3 else "n/a")
        flat[f"{obs}: exact inside MC 95 % CI"] = stats[obs]["exact_inside_mc_95ci"]
    flat[f"max |MC M(g={top:g}) - argmax limit|"] = max(diffs)
    flat[f"max |exact M(g={top:g}) - argmax limit|"] = max(exact_diffs)
    flat[f"max |MC M(g={top:g}) - argmax limit| / sqrt(P(1-P)/n)"] = max(
        d / math.sqrt(p["argmax_limit"] * (1 - p["argmax_limit"]) / samples) for d, p in zip(diffs, plateau)
        if 0 < p["argmax_limit"] < 1)
    flat["paper: r / median / max"] = "0.9995 / 3.1 % / 5.2 %"
    summary.update(flat)
    columns = ["observable", "variant", "dk", "T", "level", "law_branch", "g_freeze", "law_gamma_c", "law_paper_c",
               "exact_gamma_c", "mc_gamma_c", "mc_ci_low", "mc_ci_high", "err_law_mc", "err_law_exact",
               "ratio_exact", "exact_in_mc_ci", "seed", "mc_samples"]
    _study.write_csv(os.path.join(args.out, f"{STUDY}.csv"), rows, columns)
    _study.write_png(args.out, STUDY, figure)
    _study.write_summary(os.path.join(args.out, f"{STUDY}.json"), summary)
    _study.report("(b) condensed branch at dk = 16", rows,
                  ["observable", "T", "law_gamma_c", "exact_gamma_c", "mc_gamma_c", "mc_ci_low", "mc_ci_high",
                   "err_law_mc", "ratio_exact"], flat)


if __name__ == "__main__":
    _study.main(main)

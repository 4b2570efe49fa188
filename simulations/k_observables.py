"""Study (k): which transition observable reproduces the paper's condensed branch and its statistics.

PSA §6.7 and §7.9-7.10 quote, without naming the observable: a condensation constant
c = 0.741 +/- 0.015 on nine condensed grid points; on eight dk = 16 points along T, Pearson
r = 0.9995, median relative error 3.1 %, max 5.2 % (c "drifting systematically with context
length"); on nine mean-field points r = 0.9876, median 2.6 %; and a "measured 0.613" at
(dk, T) = (64, 15). Here every observable of theorylab.psa.observables (mass-half,
half-plateau, inflection, entropy-peak, distractor-entropy-peak), by exact quadrature:

1. c = mean of g_obs / (L/2)^(1/4), with its spread, on theorylab.psa.compare.CONDENSED_GRID
   (dk in {8, 16, 32} x T in {64, 512, 2048}) and on the older CALIBRATION_GRID;
2. the law c (L/2)^(1/4) (c from the 3 x 3 grid) against the observable on five dk = 16
   T scans of eight points (9-64, 16-2048, 64-8192, 256-32768, geometric 9-32768):
   r, median and max relative error, and the drift of g_obs / (L/2)^(1/4) along T;
3. the mean-field law (annealed root) against the observable on theorylab.psa.compare.PAPER_GRID;
4. the observable at (64, 15) for t4-only, the key-only convention and key-only.

The Monte Carlo (common random numbers, batch-means 95 % CI) confirms the exact entropy-peak
and inflection couplings on the condensed and mean-field grids and at (64, 15).

    python simulations/k_observables.py [--samples N | --paper-scale] [--workers N | --local-cluster N]

Writes results/k_observables.{csv,png,json}.
"""
from __future__ import annotations

import os

import numpy as np

import _study
from theorylab.psa.compare import CALIBRATION_GRID, CONDENSED_GRID, PAPER_GRID, PAPER_STATISTICS
from theorylab.plots.observables import condensation_ratio_along_T
from theorylab.psa.transition import (CONDENSATION_C, CONDENSATION_C_PAPER, CONDENSATION_OBSERVABLE,
                                      annealed_gamma_c, freezing_coupling)
from theorylab.psa.observables import OBSERVABLE_NAMES
from theorylab.psa.sweep import agreement

STUDY = "k_observables"
SCANS = {"9-64": [9, 12, 16, 24, 32, 40, 48, 64], "16-2048": [2**k for k in range(4, 12)],
         "64-8192": [2**k for k in range(6, 14)], "256-32768": [2**k for k in range(8, 16)],
         "geometric 9-32768": sorted({int(round(x)) for x in np.geomspace(9, 32768, 8)})}
CONFIRMED = ("entropy-peak", "inflection")
REFERENCE_VARIANTS = ["t4-only", "symmetric-key-convention", "key-only"]
PAPER = {"c": CONDENSATION_C_PAPER, "c_spread": 0.015, "scan_pearson_r": 0.9995, "scan_median_rel_err": 0.031,
         "scan_max_rel_err": 0.052, "mean_field_pearson_r": PAPER_STATISTICS.pearson_r,
         "mean_field_median_rel_err": PAPER_STATISTICS.median_rel_err, "measured_64_15": 0.613}


def _grid(points):
    dk = sorted({d for d, _ in points})
    T = sorted({t for _, t in points})
    assert sorted(points) == sorted((d, t) for d in dk for t in T), "not a product grid"
    return dk, T


def _exact(args, observable, name, dk, T, variants=("t4-only",)):
    """Exact couplings of ``observable`` on a product grid (a sweep store; samples unused)."""
    spec = {"sweep": {"name": f"(k) {name}, {observable}, exact", "seed": args.seed, "samples": 1,
                      "compute": ["exact"], "observable": observable},
            "grid": {"variant": list(variants), "dk": dk, "T": T}}
    _, rows = _study.run(f"{STUDY}_{name}_{observable}", spec, args)
    return {(r["variant"], float(r["dk"]), int(r["T"])): r["exact_gamma_c"] for r in rows}


def _mc(args, observable, name, dk, T, variants=("t4-only",)):
    spec = {"sweep": {"name": f"(k) {name}, {observable}, Monte Carlo", "seed": args.seed,
                      "samples": _study.samples_of(args), "compute": ["exact", "mc"], "observable": observable},
            "grid": {"variant": list(variants), "dk": dk, "T": T}}
    _, rows = _study.run(f"{STUDY}_{name}_{observable}_mc", spec, args)
    return rows


def _ratio(g, T):
    return None if g is None else g / float(freezing_coupling(T))


def _calibration(values, points):
    c = np.array([np.nan if values[("t4-only", float(d), t)] is None else _ratio(values[("t4-only", float(d), t)], t)
                  for d, t in points])
    ok = np.isfinite(c)
    return {"c": float(np.mean(c[ok])) if ok.any() else None,
            "spread": float(np.std(c[ok], ddof=1)) if ok.sum() > 1 else None, "n": int(ok.sum()),
            "c_min": float(np.min(c[ok])) if ok.any() else None, "c_max": float(np.max(c[ok])) if ok.any() else None}


def figure(rows: list[dict]):
    """g_obs / (L/2)^(1/4) along T per observable, from the rows of the T scans (dk = 16)."""
    ratios = {}
    for obs in dict.fromkeys(r["observable"] for r in rows):
        scan = {r["T"]: r["ratio"] for r in rows if r["observable"] == obs and str(r["set"]).startswith("scan ")}
        Ts = sorted(scan)
        ratios[obs] = (Ts, [np.nan if scan[t] is None else scan[t] for t in Ts])
    return condensation_ratio_along_T(ratios, paper=(CONDENSATION_C_PAPER, 0.015),
                                      title="(k) g_obs / (L/2)^(1/4) at dk = 16 along T, per observable (exact)")


def main() -> None:
    args = _study.parser(__doc__.splitlines()[0], samples=20000, paper_samples=200000).parse_args()
    if args.figure_only:
        rows, _ = _study.stored(STUDY, args.out)
        print(_study.write_png(args.out, STUDY, figure, rows))
        return
    scan_T = sorted({t for ts in SCANS.values() for t in ts})
    cal16 = [t for d, t in CALIBRATION_GRID if d == 16.0]
    cal32 = [t for d, t in CALIBRATION_GRID if d == 32.0]
    assert sorted(CALIBRATION_GRID) == sorted([(16.0, t) for t in cal16] + [(32.0, t) for t in cal32])
    rows, summary = [], {"study": STUDY, "samples": _study.samples_of(args), "seed": args.seed, "paper": PAPER,
                         "library": {"condensation_observable": CONDENSATION_OBSERVABLE,
                                     "condensation_c": CONDENSATION_C}, "observables": {}}
    for obs in OBSERVABLE_NAMES:
        values = {}
        values.update(_exact(args, obs, "condensed", *_grid(list(CONDENSED_GRID))))
        values.update(_exact(args, obs, "calibration16", [16.0], cal16))
        values.update(_exact(args, obs, "calibration32", [32.0], cal32))
        values.update(_exact(args, obs, "scan16", [16.0], scan_T))
        values.update(_exact(args, obs, "mean_field", *_grid(list(PAPER_GRID))))
        values.update(_exact(args, obs, "reference", [64.0], [15], REFERENCE_VARIANTS))
        s = {"condensed_grid": _calibration(values, CONDENSED_GRID),
             "calibration_grid": _calibration(values, CALIBRATION_GRID)}
        c = s["condensed_grid"]["c"]
        for name, Ts in SCANS.items():
            g = [values[("t4-only", 16.0, t)] for t in Ts]
            law = [None if c is None else c * float(freezing_coupling(t)) for t in Ts]
            stats = agreement(law, g)
            rr = np.array([np.nan if x is None else _ratio(x, t) for x, t in zip(g, Ts)])
            ok = np.isfinite(rr)
            slope = float(np.polyfit(np.log10(np.array(Ts)[ok]), rr[ok], 1)[0]) if ok.sum() >= 3 else None
            s[f"scan {name}"] = {**stats, "ratio_first": float(rr[ok][0]) if ok.any() else None,
                                 "ratio_last": float(rr[ok][-1]) if ok.any() else None,
                                 "ratio_slope_per_decade_of_T": slope}
            for t, x, lw in zip(Ts, g, law):
                rows.append({"observable": obs, "set": f"scan {name}", "variant": "t4-only", "dk": 16, "T": t,
                             "exact_gamma_c": x, "g_freeze": float(freezing_coupling(t)), "ratio": _ratio(x, t),
                             "law_gamma_c": lw, "rel_err_law": _study.rel_err(lw, x)})
        mf_g = [values[("t4-only", float(d), t)] for d, t in PAPER_GRID]
        mf_law = [float(annealed_gamma_c("t4-only", d, t)) for d, t in PAPER_GRID]
        s["mean_field_grid"] = agreement(mf_law, mf_g)
        for (d, t), x, lw in zip(PAPER_GRID, mf_g, mf_law):
            rows.append({"observable": obs, "set": "mean-field grid", "variant": "t4-only", "dk": d, "T": t,
                         "exact_gamma_c": x, "law_gamma_c": lw, "rel_err_law": _study.rel_err(lw, x)})
        for grid_name, pts in (("condensed grid", CONDENSED_GRID), ("calibration grid", CALIBRATION_GRID)):
            for d, t in pts:
                x = values[("t4-only", float(d), t)]
                rows.append({"observable": obs, "set": grid_name, "variant": "t4-only", "dk": d, "T": t,
                             "exact_gamma_c": x, "g_freeze": float(freezing_coupling(t)), "ratio": _ratio(x, t)})
        s["at_64_15"] = {v: values[(v, 64.0, 15)] for v in REFERENCE_VARIANTS}
        for v in REFERENCE_VARIANTS:
            rows.append({"observable": obs, "set": "(64, 15)", "variant": v, "dk": 64, "T": 15,
                         "exact_gamma_c": values[(v, 64.0, 15)],
                         "rel_err_law": _study.rel_err(values[(v, 64.0, 15)], PAPER["measured_64_15"])})
        summary["observables"][obs] = s
    # Monte Carlo confirmation of the exact couplings
    confirm = {}
    for obs in CONFIRMED:
        mc_rows = (_mc(args, obs, "condensed", *_grid(list(CONDENSED_GRID)))
                   + _mc(args, obs, "mean_field", *_grid(list(PAPER_GRID)))
                   + _mc(args, obs, "reference", [64.0], [15], REFERENCE_VARIANTS))
        both = [r for r in mc_rows if r["mc_gamma_c"] is not None and r["exact_gamma_c"] is not None
                and r["mc_ci_low"] is not None]
        inside = [r["mc_ci_low"] <= r["exact_gamma_c"] <= r["mc_ci_high"] for r in both]
        cond = [r for r in mc_rows if (float(r["dk"]), int(r["T"])) in CONDENSED_GRID and r["variant"] == "t4-only"]
        c_mc = np.array([_ratio(r["mc_gamma_c"], r["T"]) for r in cond])
        half = np.array([(r["mc_ci_high"] - r["mc_ci_low"]) / 2 / float(freezing_coupling(r["T"])) for r in cond])
        hw = float(np.sqrt(np.sum(half**2)) / len(cond))
        confirm[obs] = {"points": len(mc_rows), "exact_inside_mc_95ci": f"{sum(inside)}/{len(inside)}",
                        "c_condensed_mc": float(np.mean(c_mc)), "c_condensed_mc_ci": [float(np.mean(c_mc)) - hw,
                                                                                      float(np.mean(c_mc)) + hw],
                        "max_abs_z": float(max(abs(r["mc_gamma_c"] - r["exact_gamma_c"])
                                               / ((r["mc_ci_high"] - r["mc_ci_low"]) / 3.92) for r in both))}
        for r in mc_rows:
            rows.append({"observable": obs, "set": "Monte Carlo", "variant": r["variant"], "dk": r["dk"], "T": r["T"],
                         "exact_gamma_c": r["exact_gamma_c"], "mc_gamma_c": r["mc_gamma_c"],
                         "mc_ci_low": r["mc_ci_low"], "mc_ci_high": r["mc_ci_high"], "seed": r["seed"],
                         "mc_samples": r["mc_samples"]})
    summary["monte_carlo"] = confirm
    summary["points"] = len(rows)
    columns = ["observable", "set", "variant", "dk", "T", "exact_gamma_c", "g_freeze", "ratio", "law_gamma_c",
               "rel_err_law", "mc_gamma_c", "mc_ci_low", "mc_ci_high", "seed", "mc_samples"]
    _study.write_csv(os.path.join(args.out, f"{STUDY}.csv"), rows, columns)
    _study.write_png(args.out, STUDY, figure, rows)
    _study.write_summary(os.path.join(args.out, f"{STUDY}.json"), summary)
    table = []
    for obs, s in summary["observables"].items():
        cg, cal, mf = s["condensed_grid"], s["calibration_grid"], s["mean_field_grid"]
        sc = s["scan 16-2048"]
        table.append({"observable": obs, "c (3x3)": cg["c"], "spread": cg["spread"], "n": cg["n"],
                      "c (cal)": cal["c"], "spread (cal)": cal["spread"],
                      "scan16-2048 r": sc["pearson_r"], "median": sc["median_rel_err"], "max": sc["max_rel_err"],
                      "mf r": mf["pearson_r"], "mf median": mf["median_rel_err"],
                      "(64,15) t4": s["at_64_15"]["t4-only"],
                      "(64,15) key-conv": s["at_64_15"]["symmetric-key-convention"]})
    flat = {f"{obs}: MC c (condensed) [95 % CI]": f"{v['c_condensed_mc']:.4f} [{v['c_condensed_mc_ci'][0]:.4f}, "
                                                   f"{v['c_condensed_mc_ci'][1]:.4f}]; exact inside MC CI "
                                                   f"{v['exact_inside_mc_95ci']}"
            for obs, v in confirm.items()}
    flat["paper"] = "c 0.741 +/- 0.015; scan r 0.9995 / 3.1 % / 5.2 %; mean-field r 0.9876 / 2.6 %; (64, 15) 0.613"
    _study.report("(k) transition observables vs the paper's statistics (exact quadrature)", table,
                  list(table[0]), flat)


if __name__ == "__main__":
    _study.main(main)

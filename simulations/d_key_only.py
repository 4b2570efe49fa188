"""Study (d): the key-only transition law against simulation (untested in the paper).

PSA §6.8 (Eq. 55, marked conditional): for the key-only half-lift the crossing is
g^2 - sqrt(dk) g + (L + 1/2) = 0, real iff dk >= 4L + 2, and the paper says the law "is
untested against simulation". Here: key-only on dk in {32, 64, 128, 256, 512} x T in
{16, 64, 512} (all with dk >= 4L + 2): the annealed law, the exact reduced-model root
and the Monte Carlo root. A side table revisits the paper's (dk, T) = (64, 15) remark:
t4-only law 0.602, symmetric in the key-only convention 0.664, "measured 0.613".

    python simulations/d_key_only.py [--samples N | --paper-scale] [--workers N | --local-cluster N]

Writes results/d_key_only.{csv,png,json}.
"""
from __future__ import annotations

import math
import os

import _study
from theorylab.plots.sweep import predicted_vs_simulated
from theorylab.psa.sweep import compare_rows

STUDY = "d_key_only"
DK = [32, 64, 128, 256, 512]
T = [16, 64, 512]
SIDE = {"variant": ["t4-only", "symmetric-key-convention", "key-only"], "dk": [64], "T": [15]}


def figure(rows: list[dict], stats: dict):
    """The key-only law against Monte Carlo on the main grid (``rows`` of variant key-only)."""
    return predicted_vs_simulated([r for r in rows if r["variant"] == "key-only"], "law_gamma_c", "mc_gamma_c",
                                  stats={"Pearson r": stats["pearson_r"], "median rel. err": stats["median_rel_err"],
                                         "max rel. err": stats["max_rel_err"]},
                                  title="(d) key-only law (Eq. 55) vs Monte Carlo")


def main() -> None:
    args = _study.parser(__doc__.splitlines()[0], samples=20000, paper_samples=200000).parse_args()
    if args.figure_only:
        rows, summary = _study.stored(STUDY, args.out)
        print(_study.write_png(args.out, STUDY, figure, rows, summary["law_vs_mc"]))
        return
    samples = _study.samples_of(args)
    base = {"seed": args.seed, "samples": samples, "compute": ["annealed", "exact", "mc"]}
    _, rows = _study.run(STUDY, {"sweep": {"name": "(d) key-only law vs simulation", **base},
                                 "grid": {"variant": ["key-only"], "dk": DK, "T": T}}, args)
    _, side = _study.run(f"{STUDY}_64_15", {"sweep": {"name": "(d) conventions at (64, 15)", **base},
                                           "grid": SIDE}, args)
    for r in rows + side:
        r["threshold_4L_plus_2"] = 4 * math.log(r["T"] - 1) + 2
        r["err_law_mc"] = _study.rel_err(r["law_gamma_c"], r["mc_gamma_c"])
        r["err_law_exact"] = _study.rel_err(r["law_gamma_c"], r["exact_gamma_c"])
    stats = compare_rows(rows, "law", "mc")
    summary = {"study": STUDY, "points": len(rows), "samples": samples, "seed": args.seed,
               "law_vs_mc": stats, "law_vs_exact": compare_rows(rows, "law", "exact"),
               "mc_vs_exact": compare_rows(rows, "mc", "exact"),
               "at_64_15": {r["variant"]: {"law": r["law_gamma_c"], "exact": r["exact_gamma_c"],
                                           "mc": r["mc_gamma_c"]} for r in side},
               "paper_at_64_15": {"t4-only law": 0.602, "symmetric-key-convention law": 0.664, "measured": 0.613}}
    flat = {"key_only_law_vs_mc_pearson_r": stats["pearson_r"],
            "key_only_law_vs_mc_median_rel_err": stats["median_rel_err"],
            "key_only_law_vs_mc_max_rel_err": stats["max_rel_err"],
            "key_only_mc_vs_exact_max_rel_err": summary["mc_vs_exact"]["max_rel_err"]}
    for r in side:
        flat[f"(64,15) {r['variant']}: law / exact / mc"] = " / ".join(
            "-" if v is None else f"{v:.4f}" for v in (r["law_gamma_c"], r["exact_gamma_c"], r["mc_gamma_c"]))
    summary.update(flat)
    columns = ["variant", "dk", "T", "threshold_4L_plus_2", "law_branch", "law_gamma_c", "exact_gamma_c",
               "mc_gamma_c", "mc_ci_low", "mc_ci_high", "err_law_mc", "err_law_exact", "seed", "mc_samples"]
    _study.write_csv(os.path.join(args.out, f"{STUDY}.csv"), rows + side, columns)
    _study.write_png(args.out, STUDY, figure, rows, stats)
    _study.write_summary(os.path.join(args.out, f"{STUDY}.json"), summary)
    _study.report("(d) key-only law vs simulation (+ conventions at (64, 15))", rows + side, columns[:12], flat)


if __name__ == "__main__":
    _study.main(main)

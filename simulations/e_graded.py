"""Study (e): graded minimax envelopes and risk ratios (GLLM §4.3: Lem. 3-4, Thm. 4.1, Table 3).

For each (nu, mu) row of the paper's Table 3 (L = 4 levels, clip C = 2, width d = 64,
sigma_xi = 1, grades g*_C): Monte Carlo risk of level-selective least squares over the
uniform and graded classes (theorylab.graded.risk_sim.simulate, worst of two boundary
targets) across sample sizes inside and outside the window W, against the envelope M
(upper bound 3M where Lem. 3(ii) applies, a computed two-point lower bound), and the
risk ratio graded/uniform against the cap ratio and Lambda(g) with Thm. 4.1's band
[(1 - r) Lambda, Lambda / (1 - mu)].

    python simulations/e_graded.py [--reps N | --paper-scale]

Writes results/e_graded.{csv,png,json} and results/e_graded_ratios.png.
"""
from __future__ import annotations

import argparse
import os

import numpy as np

import _study
from theorylab.graded.envelope import stratified_model
from theorylab.graded.grades import TABLE3_PARAMETERS
from theorylab.plots import new_figure
from theorylab.plots.graded import risk_figure
from theorylab.graded.risk_sim import default_m_grid, simulate

STUDY = "e_graded"
LEVELS, D, CLIP, SIGMA_XI = 4, 64, 2.0, 1.0
HEADLINE = (0.6, 0.3)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=None, help="Monte Carlo repetitions per m (default 200; "
                                                          "--paper-scale: 2000)")
    p.add_argument("--paper-scale", action="store_true")
    p.add_argument("--points", type=int, default=10, help="sample sizes per model (default 10)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=_study.RESULTS)
    args = p.parse_args()
    _study.output_folder(args.out)  # create (or refuse) the output folder before the Monte Carlo
    reps = args.reps or (2000 if args.paper_scale else 200)
    rows, per_model, figs = [], {}, {}
    for nu, mu in TABLE3_PARAMETERS:
        model = stratified_model(nu, mu, LEVELS, D, SIGMA_XI, None, CLIP)
        result = simulate(model, default_m_grid(model, args.points), reps=reps, seed=args.seed)
        lo_f, hi_f = result.summary["thm41_factor_low"], result.summary["thm41_factor_high"]
        band = (lo_f * model.Lambda, hi_f * model.Lambda)
        for ratio in result.ratio_rows:
            worst = {c: max((r for r in result.rows if r["m"] == ratio["m"] and r["class"] == c),
                            key=lambda r: r["risk_exact"]) for c in ("uniform", "graded")}
            rows.append({"nu": nu, "mu": mu, "m": ratio["m"], "in_window": ratio["in_window"],
                         "ratio_mc": ratio["ratio_mc"], "ratio_se": ratio["ratio_se"],
                         "ratio_exact": ratio["ratio_exact"], "cap_ratio": model.cap_ratio, "Lambda": model.Lambda,
                         "in_thm41_band": band[0] <= ratio["ratio_mc"] <= band[1],
                         "uniform_risk_over_M": worst["uniform"]["risk_over_envelope"],
                         "graded_risk_over_M": worst["graded"]["risk_over_envelope"],
                         "upper_ok": _all(r["upper_ok"] for r in result.rows if r["m"] == ratio["m"]),
                         "lower_ok": _all(r["lower_ok"] for r in result.rows if r["m"] == ratio["m"])})
        inside = [r for r in rows if (r["nu"], r["mu"]) == (nu, mu) and r["in_window"]]
        mine = [r for r in rows if (r["nu"], r["mu"]) == (nu, mu)]
        per_model[f"nu={nu}, mu={mu}"] = {
            "Lambda": model.Lambda, "cap_ratio": model.cap_ratio, "window": result.summary["window"],
            "m_sat": model.m_sat, "thm41_band": list(band),
            "ratio_mc_in_window": [min(r["ratio_mc"] for r in inside), max(r["ratio_mc"] for r in inside)]
            if inside else None,
            "in_window_points_in_band": f"{sum(r['in_thm41_band'] for r in inside)}/{len(inside)}",
            "upper_bound_holds": f"{sum(r['upper_ok'] is True for r in mine)}/"
                                 f"{sum(r['upper_ok'] is not None for r in mine)} sample sizes where it applies",
            "lower_bound_holds": f"{sum(r['lower_ok'] is True for r in mine)}/{len(mine)}"}
        if (nu, mu) == HEADLINE:
            _study.write_png(args.out, STUDY, risk_figure, result, model)
        figs[(nu, mu)] = (model, result, band)
    _study.write_png(args.out, f"{STUDY}_ratios", ratio_figure, figs)
    columns = list(rows[0])
    _study.write_csv(os.path.join(args.out, f"{STUDY}.csv"), rows, columns)
    summary = {"study": STUDY, "reps": reps, "seed": args.seed, "levels": LEVELS, "d": D, "clip": CLIP,
               "sigma_xi": SIGMA_XI, "models": per_model}
    _study.write_summary(os.path.join(args.out, f"{STUDY}.json"), summary)
    _study.report("(e) graded vs uniform: risk ratio and envelope checks", rows, columns, {})
    for name, s in per_model.items():
        print(f"{name}: Lambda {s['Lambda']:.4f}, cap ratio {s['cap_ratio']:.4f}, MC ratio in W "
              f"{s['ratio_mc_in_window'][0]:.4f}..{s['ratio_mc_in_window'][1]:.4f}, in Thm 4.1 band "
              f"{s['in_window_points_in_band']}, upper bound {s['upper_bound_holds']}, "
              f"lower bound {s['lower_bound_holds']}")


def _all(values):
    vals = [v for v in values if v is not None]
    return None if not vals else all(vals)


def ratio_figure(figs):
    """Risk ratio graded / uniform against m per model, with Lambda(g) and the cap ratio."""
    fig, ax = new_figure(6.0, 4.4)
    for i, ((nu, mu), (model, result, band)) in enumerate(figs.items()):
        c = f"C{i}"
        ms = [r["m"] for r in result.ratio_rows]
        ax.errorbar(ms, [r["ratio_mc"] for r in result.ratio_rows],
                    yerr=2 * np.array([r["ratio_se"] for r in result.ratio_rows]), fmt="o-", ms=3, lw=0.8, color=c,
                    label=f"nu={nu}, mu={mu}: MC ratio")
        ax.axhline(model.Lambda, color=c, ls="--", lw=0.8)
        ax.axhline(model.cap_ratio, color=c, ls=":", lw=0.8)
        if result.summary["window"]:
            ax.axvline(result.summary["window"][1], color=c, lw=0.5, alpha=0.5)
    ax.set_xscale("log")
    ax.set_xlabel("sample size m (thin vertical: end of window W)")
    ax.set_ylabel("worst-of-family risk ratio graded / uniform")
    ax.set_title("(e) risk ratio vs Lambda(g) (dashed) and cap ratio (dotted)", fontsize=10)
    ax.legend(fontsize=7)
    return fig


if __name__ == "__main__":
    _study.main(main)

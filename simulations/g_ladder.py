"""Study (g): the GLLM selection ladder (Table 2, §6.5, §8.3.3), pre-registered and measured.

For each design -- the four (nu, mu) rows of Table 3 (L = 4, C = 2) and the non-geometric pair
theorylab.graded.ladder.PEAKED -- on d = 32 coordinates with sigma_xi = 1:

1. the offline step: a 65,536-row pilot, the six arms, their inner products <q, a_hat - s_hat>,
   Lambda_hat and §7.2 bootstrap, written to results/g_ladder_prereg/<design>.json BEFORE any
   training sample is drawn, then read back (the measurement takes the arms from the file);
2. the measurement (theorylab.graded.ladder_sim): one set of learning curves (1000 repetitions), token
   efficiency at target risks 2, 1, 0.5 and 0.25 x the null risk and the risk ratio at m_ref
   (end of Lem. 4's window), with bootstrap CIs, Spearman correlations and the out-of-order pairs;
3. the same ladder for four more pilot seeds (the spread of the correlations over pilots and
   random-arm draws, at target 0.5);
4. Lem. 2: the educated arm as the pilot shrinks (n = 256 ... 262,144, 8 pilots each) at
   (0.6, 0.3) and PEAKED.

    nice -n 10 python simulations/g_ladder.py [--reps N] [--seeds K] [--out DIR]

Writes results/g_ladder.{csv,json,png}, g_ladder_sweep.png, g_ladder_degradation{,_peaked}.png.
"""
from __future__ import annotations

import argparse
import os
import time
from types import SimpleNamespace

import numpy as np

import _study
from theorylab.graded import ladder as lad
from theorylab.graded import prereg as pr
from theorylab.graded.grades import TABLE3_PARAMETERS
from theorylab.plots.ladder import degradation_figure, ladder_figure, target_sweep_figure
from theorylab.graded import ladder_sim as sl

STUDY = "g_ladder"
D, SIGMA_XI, CLIP, N_PILOT = 32, 1.0, 2.0, 65536
TARGETS = (2.0, 1.0, 0.5, 0.25)
HEADLINE_TARGET = 0.5
HEADLINE = "geometric nu=0.6, mu=0.3"
PILOT_SIZES = (256, 1024, 4096, 16384, 65536, 262144)
COLUMNS = ["design", "arm", "g", "ip_hat", "sign_kept", "Lambda_hat", "Lambda_true", "predicted_rank", "m_needed",
           "efficiency", "eff_lo", "eff_hi", "measured_rank", "risk_ratio_ref", "rr_lo", "rr_hi"]


def designs():
    out = [lad.geometric_design(nu, mu, 4, D, SIGMA_XI, CLIP) for nu, mu in TABLE3_PARAMETERS]
    return out + [lad.profile_design(*lad.PEAKED, d=D, sigma_xi=SIGMA_XI, C=CLIP, name="peaked")]


def tag(design) -> str:
    return design.name.replace("geometric nu=", "").replace(", mu=", "-")


def ladder(design, seed, reps, targets, folder):
    """Pre-register (file first), read back, one set of learning curves, one summary per target."""
    path = os.path.join(folder, f"{tag(design)}.json" if seed == 0 else f"{tag(design)}-seed{seed}.json")
    pr.write(pr.preregister(design, N_PILOT, seed), path)
    prereg, sha = pr.read(path)
    top = max(sl.default_grid(design, min(targets)).max(), sl.default_grid(design, max(targets)).max())
    ms = np.union1d(np.unique(np.round(np.geomspace(1, top, 48)).astype(np.int64)), [sl.reference_size(design)])
    risks = sl.learning_curves(design, [a.g for a in prereg.arms], ms, reps, seed)
    results = {f: sl.summarize(prereg, ms, risks, f, seed) for f in targets}
    assert pr.read(path)[1] == sha, "the measurement changed the pre-registration"
    return prereg, results, path


def largest_inverted_gap(prereg, pairs) -> float:
    """The largest pre-registered inner-product gap among the pairs measured out of order (0 if none)."""
    ip = {a.name: a.ip_hat for a in prereg.arms}
    return max((ip[x] - ip[y] for x, y in (p.split(">") for p in pairs)), default=0.0)


def headline_figure(rows: list[dict], summary: dict):
    """The headline design's ladder at the headline target, from the stored CSV rows and JSON summary."""
    s = summary["designs"][HEADLINE]
    mine = [{**r, "inv_Lambda_true": 1.0 / r["Lambda_true"]} for r in rows if r["design"] == HEADLINE]
    return ladder_figure(SimpleNamespace(rows=mine, summary={
        "design": HEADLINE, "target_fraction": summary["headline_target"], "m_ref": s["m_ref"],
        "spearman_efficiency": s["spearman_efficiency"], "spearman_risk_ratio": s["spearman_risk_ratio"]}))


def redraw(out: str, draws: int) -> None:
    """``--figure-only``: the ladder and target-sweep figures from the stored CSV/JSON; the Lem. 2 figures
    from the stored pilot draws, or (a JSON written before the draws were stored) by re-running the
    deterministic degradation sweep (seed 0, the study's sizes; about a minute)."""
    rows, summary = _study.stored(STUDY, out)
    print(_study.write_png(out, STUDY, headline_figure, rows, summary))
    print(_study.write_png(out, f"{STUDY}_sweep", target_sweep_figure, summary["target_sweep"]))
    for design, suffix in ((designs()[1], ""), (designs()[4], "_peaked")):
        stored = summary["degradation"][design.name]
        if "pilot_draws" in stored:
            rest = {k: v for k, v in stored.items() if k not in ("rows", "pilot_draws")}
            deg = SimpleNamespace(rows=stored["rows"], draws=stored["pilot_draws"], summary=rest)
        else:
            deg = sl.degradation(design, PILOT_SIZES, draws, 0, 400)
        print(_study.write_png(out, f"{STUDY}_degradation{suffix}", degradation_figure, deg))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=1000, help="Monte Carlo repetitions (default 1000)")
    p.add_argument("--seeds", type=int, default=5, help="pilot seeds per design (default 5; seed 0 is the headline)")
    p.add_argument("--draws", type=int, default=8, help="pilots per size in the Lem. 2 sweep (default 8)")
    p.add_argument("--out", default=_study.RESULTS)
    _study.add_figure_only(p)
    args = p.parse_args()
    out = _study.output_folder(args.out)
    if args.figure_only:
        return redraw(out, args.draws)
    folder = _study.output_folder(os.path.join(out, f"{STUDY}_prereg"))
    start = time.time()
    rows, sweep, per_design = [], [], {}
    for design in designs():
        prereg, results, path = ladder(design, 0, args.reps, TARGETS, folder)
        head = results[HEADLINE_TARGET]
        for r in head.rows:
            rows.append({"design": design.name, **r, "g": " ".join(f"{x:.4f}" for x in prereg.arm(r["arm"]).g)})
        for f, res in results.items():
            s = res.summary
            sweep.append({"design": design.name, "target_fraction": f, **{k: s[k] for k in (
                "spearman_efficiency", "spearman_efficiency_ci", "spearman_risk_ratio", "spearman_risk_ratio_ci",
                "ordering_holds", "inverted_pairs", "measured_order")},
                          "efficiency": {r["arm"]: r["efficiency"] for r in res.rows}})
        spread = {"spearman_efficiency": [], "spearman_risk_ratio": [], "inverted_pairs_risk_ratio": [],
                  "largest_ip_gap_inverted_risk_ratio": [], "largest_ip_gap_inverted_efficiency": []}
        gaps = [largest_inverted_gap(prereg, head.summary["inverted_pairs_risk_ratio"]),
                largest_inverted_gap(prereg, head.summary["inverted_pairs"])]
        for seed in range(1, args.seeds):
            other, extra, _ = ladder(design, seed, args.reps, (HEADLINE_TARGET,), folder)
            s = extra[HEADLINE_TARGET].summary
            spread["spearman_efficiency"].append(s["spearman_efficiency"])
            spread["spearman_risk_ratio"].append(s["spearman_risk_ratio"])
            spread["inverted_pairs_risk_ratio"].append(s["inverted_pairs_risk_ratio"])
            spread["largest_ip_gap_inverted_risk_ratio"].append(largest_inverted_gap(other, s["inverted_pairs_risk_ratio"]))
            spread["largest_ip_gap_inverted_efficiency"].append(largest_inverted_gap(other, s["inverted_pairs"]))
        s = head.summary
        per_design[design.name] = {
            "prereg_file": os.path.relpath(path, out), "predicted_order": s["predicted_order"],
            "measured_order_efficiency": s["measured_order"], "inverted_pairs_efficiency": s["inverted_pairs"],
            "inverted_pairs_risk_ratio": s["inverted_pairs_risk_ratio"],
            "spearman_efficiency": s["spearman_efficiency"], "spearman_efficiency_ci": s["spearman_efficiency_ci"],
            "spearman_risk_ratio": s["spearman_risk_ratio"], "spearman_risk_ratio_ci": s["spearman_risk_ratio_ci"],
            "largest_ip_gap_inverted_risk_ratio": gaps[0], "largest_ip_gap_inverted_efficiency": gaps[1],
            "other_pilot_seeds": spread, "m_ref": s["m_ref"], "window": s["window"], "target_risk": s["target_risk"],
            "inv_Lambda_star_C": s["inv_Lambda_star_C_true"], "inv_Lambda_star_C_hat": s["inv_Lambda_star_C_hat"],
            "educated_gain": s["educated_gain"], "educated_gain_ci": s["educated_gain_ci"],
            "oracle_gain": s["oracle_gain"], "oracle_gain_ci": s["oracle_gain_ci"],
            "educated_inv_risk_ratio": s["educated_inv_risk_ratio"], "oracle_inv_risk_ratio": s["oracle_inv_risk_ratio"],
            "BC_hat": prereg.BC_hat, "BC_hat_ci": list(prereg.BC_hat_ci), "BC_true": prereg.BC_true}
        print(f"{design.name}: predicted {s['predicted_order']}; efficiency at {HEADLINE_TARGET} x null: "
              f"Spearman {s['spearman_efficiency']:.2f}, out of order {s['inverted_pairs']}; risk ratio at m_ref "
              f"{s['m_ref']}: Spearman {s['spearman_risk_ratio']:.2f}, out of order {s['inverted_pairs_risk_ratio']} "
              f"({time.time() - start:.0f} s)")
    _study.write_png(out, f"{STUDY}_sweep", target_sweep_figure, sweep)
    degradation = {}
    for design, suffix in ((designs()[1], ""), (designs()[4], "_peaked")):
        deg = sl.degradation(design, PILOT_SIZES, args.draws, 0, 400)
        _study.write_png(out, f"{STUDY}_degradation{suffix}", degradation_figure, deg)
        degradation[design.name] = {"rows": deg.rows, "pilot_draws": deg.draws, **deg.summary}
        print(f"{design.name}: Lem. 2 slope of the excess against the error {deg.summary['slope_excess_vs_error']:.2f} "
              f"{np.round(deg.summary['slope_excess_vs_error_ci'], 2).tolist()}, against n (tail) "
              f"{deg.summary['slope_excess_vs_n_tail']:.2f} ({time.time() - start:.0f} s)")
    _study.write_csv(os.path.join(out, f"{STUDY}.csv"), rows, COLUMNS)
    summary = {"study": STUDY, "reps": args.reps, "seeds": args.seeds, "d": D, "sigma_xi": SIGMA_XI, "clip": CLIP,
               "n_pilot": N_PILOT, "headline_target": HEADLINE_TARGET, "estimator": sl.ESTIMATOR,
               "sim_design": sl.DESIGN, "designs": per_design, "target_sweep": sweep, "degradation": degradation,
               "seconds": round(time.time() - start, 1)}
    _study.write_summary(os.path.join(out, f"{STUDY}.json"), summary)
    _study.write_png(out, STUDY, headline_figure, *_study.stored(STUDY, out))     # what the files hold
    _study.report(f"(g) selection ladder at target {HEADLINE_TARGET} x null risk", rows,
                  ["design", "arm", "ip_hat", "Lambda_true", "predicted_rank", "efficiency", "measured_rank",
                   "risk_ratio_ref"], {"seconds": summary["seconds"]})


if __name__ == "__main__":
    _study.main(main)

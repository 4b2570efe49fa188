"""G10's checks of the sweep helpers of ``theorylab.graded.ladder_sim`` and ``prereg``: the summary on synthetic
risks against ``theorylab.certificates.reference.ladder_streams``, Lem. 2's degradation study, the default m grid,
Spearman and average ranks against SciPy, the pilot fit far from 1, the design labels and defaults, the
crossing interpolation and the gauge of the learning curves (steps 4b, 5 of
``theorylab.certificates.graded.ladder``)."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np

from theorylab.certificates.graded.ladder_routes import RTOL, _risks_by_bisection
from theorylab.certificates.reference import ladder_streams as ref_streams
from theorylab.certify import computed
from theorylab.errors import ParameterError
from theorylab.graded import ladder as lad
from theorylab.graded import ladder_sim as sl
from theorylab.graded import pilot_cost as pc
from theorylab.graded import prereg as pr

READER_C = 4.0
"""Clip of the small pre-registration of G10's reader-range check (C^2 != 2C, unlike CONFIG's C = 2)."""
SCALED_GRADES = (-1000, 600, 1000, 1020)
"""Powers of two multiplying level grades in G10's gauge check."""


SYNTHETIC = {"c": ((20.0, 12.0, 8.0, 6.0, 5.5, 125.0), (20.0, 12.0, 8.0, 6.0, 0.2, 125.0)),
             "sizes": (1, 2, 4, 8, 16, 32, 64, 128, 256), "reps": 40, "spread": 0.3, "seed": 7, "target": 0.5,
             "bootstrap": 60}
"""Synthetic risks ``null x min(1, c/m) x exp(spread Z)`` per arm (in the pre-registration's order), two sets of c:
crossings near 2c; the last arm crosses near the grid's end, so some bootstrap resamples miss it (NaN efficiency);
in the second set the fifth arm is below the level at the first size (no efficiency: ranked last, no Spearman), and
the arms are rotated one place ('uniform' last: efficiencies and risk ratios are relative to it wherever it stands)."""


def _summary_on_synthetic_risks(p) -> tuple[float, bool]:
    """graded.ladder_sim.summarize on SYNTHETIC risks against reference.ladder_streams.ladder_summary (max relative error,
    NaNs in the same places) and the ranks, order, ordering flag and inverted pairs recomputed here; the second set on
    the pre-registration with its arms rotated ('uniform' last), the reference told where 'uniform' is."""
    cfg = SYNTHETIC
    m_ref = sl.reference_size(p.design)
    ms = np.union1d(cfg["sizes"], [m_ref])
    null = float(np.sum(p.design.tau * p.design.alpha))
    err, ok, partial = 0.0, True, False
    rotated = replace(p, arms=p.arms[1:] + p.arms[:1])             # 'uniform' last, not first
    for cs, q in zip(cfg["c"], (p, rotated)):
        names = [x.name for x in q.arms]
        pred = np.array([x.predicted_rank for x in q.arms])
        rng = np.random.default_rng(cfg["seed"])
        risks = np.array([null * np.minimum(1.0, c / ms)[:, None] * np.exp(cfg["spread"] * rng.standard_normal(
            (ms.size, cfg["reps"]))) for c in cs])
        res = sl.summarize(q, ms, risks, cfg["target"], cfg["seed"], cfg["bootstrap"])
        want = ref_streams.ladder_summary([x.ip_hat for x in q.arms], list(ms), risks, cfg["target"] * null, m_ref,
                                          names.index("uniform"), cfg["seed"], cfg["bootstrap"])
        pairs = [(np.array([r[k] for r in res.rows]), np.asarray(want[k], float))
                 for k in ("m_needed", "efficiency", "risk_ratio_ref", "nan_fraction")]
        pairs += [(np.array([[r[lo], r[hi]] for r in res.rows]), np.asarray(want[k], float))
                  for lo, hi, k in (("eff_lo", "eff_hi", "eff_ci"), ("rr_lo", "rr_hi", "rr_ci"))]
        pairs += [(np.array([res.summary[k]], float).ravel(), np.array([want[k]], float).ravel()) for k in
                  ("spearman_efficiency", "spearman_efficiency_ci", "spearman_risk_ratio", "spearman_risk_ratio_ci")]
        for got, ref in pairs:
            ok &= bool(got.shape == ref.shape and np.array_equal(np.isnan(got), np.isnan(ref)))
            if got.shape == ref.shape and np.any(~np.isnan(ref)):
                fin = ~np.isnan(ref)
                err = max(err, float(np.max(np.abs(got[fin] - ref[fin]) / np.maximum(np.abs(ref[fin]), 1e-300))))
        meas = np.asarray(want["measured_rank"])
        eff, inv_rr = np.asarray(want["efficiency"]), 1 / np.asarray(want["risk_ratio_ref"])

        def inverted(v):
            return sorted(f"{names[i]}>{names[j]}" for i in range(len(names)) for j in range(len(names))
                          if pred[i] < pred[j] and v[i] < v[j])
        order = [names[i] for i in sorted(range(len(names)), key=lambda i: (meas[i], names[i]))]
        ok &= bool(np.array_equal([r["measured_rank"] for r in res.rows], meas)
                   and res.summary["measured_order"] == order
                   and res.summary["ordering_holds"] == bool(np.array_equal(pred, meas))
                   and sorted(res.summary["inverted_pairs"]) == inverted(eff)
                   and sorted(res.summary["inverted_pairs_risk_ratio"]) == inverted(inv_rr))
        for k, name in ((names.index("educated"), "educated"), (names.index("oracle"), "oracle")):
            lo_, hi_ = want["eff_ci"][k]
            extra = [(res.summary[f"{name}_gain"], want["efficiency"][k]), (res.summary[f"{name}_gain_ci"][0], lo_),
                     (res.summary[f"{name}_gain_ci"][1], hi_),
                     (res.summary[f"{name}_inv_risk_ratio"], 1 / want["risk_ratio_ref"][k])]
            for got, ref in extra:
                ok &= bool(np.isnan(got) == np.isnan(ref))
                if not np.isnan(ref):
                    err = max(err, abs(got / ref - 1))
        partial |= bool(np.any((want["nan_fraction"] > 0) & (want["nan_fraction"] < 1)))
        # the pre-registered columns copied to the rows, and every other summary field, recomputed
        for r, x in zip(res.rows, q.arms):
            ok &= all(r[k] == getattr(x, k) for k in ("ip_hat", "sign_kept", "Lambda_hat", "predicted_rank", "ip_true",
                                                       "Lambda_true")) and r["arm"] == x.name
            err = max(err, abs(r["inv_Lambda_true"] * x.Lambda_true - 1))
        err = max(err, abs(res.summary["inv_Lambda_star_C_true"] * p.Lambda_star_C_true - 1),
                  abs(res.summary["inv_Lambda_star_C_hat"] * p.Lambda_star_C_hat - 1),
                  abs(res.summary["null_risk"] / null - 1), abs(res.summary["target_risk"] / (cfg["target"] * null) - 1))
        d = p.design
        msat = float(np.min(d.dims ** 2 * d.sigma_xi ** 2 / d.s))          # min_l d_l sigma^2 / cap_l, cap_l = s_l / d_l
        W = [4, int(np.floor(msat / 2))] if np.floor(msat / 2) >= 4 else None
        err = max(err, abs(res.summary["m_sat"] / msat - 1))
        ok &= bool(res.summary["window"] == W and res.summary["m_ref"] == (W[1] if W else 4) == m_ref
                   and res.summary["grid"] == [int(ms[0]), int(ms[-1]), int(ms.size)]
                   and res.summary["predicted_order"] == [names[i] for i in sorted(range(len(names)),
                                                                                   key=lambda i: (pred[i], names[i]))]
                   and (res.summary["design"], res.summary["reps"], res.summary["seed"], res.summary["bootstrap"],
                        res.summary["ci_level"], res.summary["target_fraction"])
                   == (d.name, cfg["reps"], cfg["seed"], cfg["bootstrap"], 0.95, cfg["target"]))
    return err, bool(ok and partial)


DEG_GRID = (1, 9, 74, 637, 5486, 47215)
"""Sample sizes of the certified degradation run (m_ref = 39 is added): every arm's mean curve crosses half the null
risk inside the grid, so the efficiency losses are resolved."""


def _degradation_losses(small, deg, G_deg) -> tuple[float, float]:
    """A degradation run's per-draw losses against the Monte Carlo rebuilt by bisection (step 5's route) on its grid
    (DEG_GRID and m_ref): ``R_edu(m_ref)/R_oracle(m_ref) - 1`` and ``m_oracle/m_edu``'s ``m_edu/m_oracle - 1``, the
    sizes where the mean curves first reach half the null risk (reference.ladder_streams.first_crossing); the exact
    excess ``max(Lambda(g)/Lambda*_C - 1, 0)`` (Lambda*_C: reference.graded.clipped_optimum); every row's means and
    maximum over its draws. Returns (max abs error of the losses and excesses, max relative error of the rows)."""
    from theorylab.certificates.reference import graded as ref_graded

    m_ref = sl.reference_size(small)
    ms = np.union1d(DEG_GRID, [m_ref])
    curves = np.array([_risks_by_bisection(small.a, small.s, small.dims, small.sigma_xi, G_deg, ms, m, deg.summary[
        "reps"], deg.summary["seed"]).mean(axis=1) for m in ms]).T                      # (arms, M)
    lv = float(np.log(0.5 * np.sum(small.a * small.s / small.dims)))
    m_need = np.array([ref_streams.first_crossing(np.log(ms.astype(float)), c, lv) for c in curves])
    iref = int(np.flatnonzero(ms == m_ref)[0])
    lam_c = ref_graded.clipped_optimum(small.a, small.s, small.C)["Lambda"]
    lam = [float(np.sum(small.a / g ** 2) * np.sum(small.s * g ** 2)) for g in G_deg[1:]]
    want = {"rr_loss": curves[1:, iref] / curves[0, iref] - 1, "eff_loss": m_need[1:] / m_need[0] - 1,
            "excess": np.maximum(np.array(lam) / lam_c - 1, 0.0)}
    err = max(float(np.max(np.abs(np.array([q[k] for q in deg.draws]) - v))) if np.all(np.isfinite(v)) else np.inf
              for k, v in want.items())
    rows_err = 0.0
    for r in deg.rows:
        sel = [q for q in deg.draws if q["n_pilot"] == r["n_pilot"]]
        for key, k, f in (("excess_mean", "excess", np.mean), ("excess_max", "excess", np.max),
                          ("error_mean", "error", np.mean), ("rr_loss_mean", "rr_loss", np.mean),
                          ("eff_loss_mean", "eff_loss", np.mean)):
            v = float(f([q[k] for q in sel]))
            rows_err = max(rows_err, abs(r[key] - v) / abs(v) if v else abs(r[key]))
    return err, rows_err


def sweep_checks(design, cfg, res, a, s, a_hat, s_hat) -> tuple[bool, list]:
    """Step 4b and Lem. 2's degradation study: the sweep helpers against SciPy and their documented rules. Returns the
    verdict and the evidence (degradation slopes, losses and rows; crossing; grids, Spearman, profile error; ranks and
    far fits; labels and defaults; the documented size limit 2^53; the gauge of the learning curves)."""
    deg_err, deg_ok, rr_loss_err, deg_rows_err = _degradation_checks(cfg)
    got_x, want_x, cross_ok = _crossing_check()
    grid_ok = _default_grids(design, cfg)
    rho_err, rank_ok = _spearman_and_ranks()
    far_ok = _far_fits()
    labels, labels_ok = _labels_and_defaults(design, cfg, res)
    scale_err = _scaled_grades_error(design)
    reader_ok, reader_ev = _reader_ranges()
    size_ok, size_ev = _size_limit()
    delta = np.log(a_hat / a) - np.log(s_hat / s)
    perr_err = abs(pc.profile_error(a_hat, s_hat, a, s) / float(np.var(delta)) - 1)
    ok = bool(grid_ok and rho_err <= 1e-12 and perr_err <= 1e-12 and deg_ok and deg_err <= 1e-12 and rank_ok and far_ok
              and labels_ok and rr_loss_err <= RTOL and deg_rows_err <= 1e-15 and cross_ok and scale_err <= 1e-13
              and reader_ok and size_ok)
    return ok, [reader_ev, size_ev,
        computed("degradation (C = 1.7, 6 pilot sizes; C = 1.05, 2 draws with excess > 0: NaN fits): summary slopes "
                 "and 95 % CIs vs linregress of its rows, max abs", deg_err,
                 formula="<= 1e-12; at C = 1.7 every draw has excess > 0, tail = upper half of the pilot sizes; at "
                         "C = 1.05 NaN where < 3 points or a mean of 0"),
        computed("degradation: per-draw risk-ratio losses at m_ref, efficiency losses (crossings of half the null "
                 "risk) and exact excesses vs mean curves rebuilt by bisection and Lambda*_C (mpmath), max abs; its rows' "
                 "means and maxima over their draws, max rel", [rr_loss_err, deg_rows_err],
                 formula=f"<= {RTOL:g}; <= 1e-15"),
        computed("crossing of power-law curves c/m at level 0.7 (c = 3, 10, 0.5, 100, 1) vs c/level (NaN outside "
                 "(m_1, m_max])", [got_x.tolist(), want_x.tolist()], formula="relative error <= 1e-12, same NaNs"),
        computed("default m grid as documented (also sigma_xi = 1/2, target 0.3, 12 points; sigma_xi = 0.01, 6 points: "
                 "top below 16); Spearman vs scipy (ties, 3 rows); profile error vs var(delta)",
                 [grid_ok, rho_err, perr_err], formula="grid equal; errors <= 1e-12"),
        computed("average ranks of (3, 12) and (2, 3, 5) batches with ties == scipy rankdata along the last axis; "
                 "pilot fit == exact at coefficients (-1, -2^-520), at X^T y = (-2^1000, 2^-30) with X^T X = diag(1, "
                 "2^-1000), and at X^T X = diag(1, 2^-520), X^T y = (1, 1)", [rank_ok, far_ok]),
        computed("design labels (geometric 0.5, 0.2; unnamed profiles (1/2, 1/2), (1/4, 3/4)); defaults d = 32, C = 2, "
                 "sigma_xi = 1, target 1/2; pilot fit at X^T X = diag(2^1023, 2^1023)", [labels, bool(labels_ok),
                                                                                          bool(far_ok)]),
        computed(f"learning curves at grades (1, 1.3, 1.7, 2) x 2^k, k = {SCALED_GRADES}, vs bisection at the unscaled "
                 "grades (m_ref, 20 reps): max relative error", scale_err, tolerance=1e-13)]


def _default_grids(design, cfg) -> bool:
    """The default m grid as documented: distinct round(geomspace(1, max(top, 16), points)) with top = GRID_FACTOR
    sigma^2 d / eps (eps the target risk), plus m_ref; at CONFIG, at sigma_xi = 0.5 (target 0.3, 12 points; m_ref
    changes with sigma too) and at sigma_xi = 0.01 (6 points: top < 16, so the grid runs to 16; W empty, m_ref = 4)."""
    top = sl.GRID_FACTOR * design.sigma_xi ** 2 * design.d / sl.target_risk(design, 0.5)   # half the null risk
    want_grid = np.union1d(np.unique(np.round(np.geomspace(1, max(top, 16.0), 40))), [sl.reference_size(design)])
    grid_ok = bool(np.array_equal(sl.default_grid(design), want_grid.astype(np.int64)))
    quiet = lad.geometric_design(cfg["nu"], cfg["mu"], cfg["levels"], cfg["d"], 0.5, cfg["C"])
    top_q = 8.0 * 0.25 * quiet.d / (0.3 * float(np.sum(quiet.tau * quiet.alpha)))
    m_ref_q = int(np.floor(quiet.d ** 2 * 0.25 / (quiet.levels ** 2 * quiet.s[0]) / 2))
    want_q = np.union1d(np.unique(np.round(np.geomspace(1, max(top_q, 16.0), 12))), [m_ref_q])
    grid_ok &= bool(np.array_equal(sl.default_grid(quiet, 0.3, 12), want_q.astype(np.int64)))
    hush = lad.geometric_design(cfg["nu"], cfg["mu"], cfg["levels"], cfg["d"], 0.01, cfg["C"])
    top_h = 8.0 * 1e-4 * hush.d / (0.5 * float(np.sum(hush.tau * hush.alpha)))
    want_h = np.union1d(np.unique(np.round(np.geomspace(1, 16.0, 6))), [4])
    grid_ok &= bool(top_h < 16 and np.array_equal(sl.default_grid(hush, 0.5, 6), want_h.astype(np.int64)))
    return grid_ok


SIZE_LIMIT = 2.0 ** 53
"""The largest sample size of Lem. 4's window end and of a default grid (docs/graded.md: "a sample size of at most
2^53"; sizes are exact integers in float64 up to there)."""


def _size_limit() -> tuple[bool, object]:
    """The documented size limit SIZE_LIMIT = 2^53 (ladder_sim.MAX_SIZE): on the geometric (0.5, 0.2) design, d = 32,
    sigma_xi set so that m_sat/2 = min_l d_l^2 sigma^2 / s_l / 2 is 2^53 (1 -/+ 1e-3): m_ref = floor(m_sat/2) (rel
    1e-12) below, ParameterError above; the default grid at sigma_xi = 1 with the target putting its top GRID_FACTOR
    sigma^2 d / eps at 2^53 (1 -/+ 1e-3): accepted (last size == round(top), rel 1e-12) below, refused above.
    Returns (ok, evidence)."""
    base = lad.geometric_design(0.5, 0.2, 4, 32, 1.0, 2.0)
    per_sigma2 = float(np.min(base.dims ** 2 / base.s)) / 2             # m_sat/2 at sigma_xi = 1
    null = float(np.sum(base.tau * base.alpha))

    def attempt(f, x):
        try:
            return float(f(x))
        except ParameterError:
            return None
    got, want = [], []
    for fac in (1 - 1e-3, 1 + 1e-3):
        sigma = float(np.sqrt(SIZE_LIMIT * fac / per_sigma2))
        got.append(attempt(sl.reference_size, lad.geometric_design(0.5, 0.2, 4, 32, sigma, 2.0)))
        want.append(float(np.floor(per_sigma2 * sigma ** 2)) if fac < 1 else None)
        got.append(attempt(lambda t: sl.default_grid(base, t)[-1], 8.0 * base.d / (null * SIZE_LIMIT * fac)))
        want.append(float(np.round(SIZE_LIMIT * fac)) if fac < 1 else None)
    ok = all((g is None) == (w is None) and (w is None or abs(g / w - 1) <= 1e-12) for g, w in zip(got, want))
    return ok, computed("size limit 2^53: m_ref and the default grid's last size at 2^53 (1 - 1e-3) (m_sat/2, top), "
                        "and at 2^53 (1 + 1e-3) (None: refused)", [got, want], formula="rel <= 1e-12; None, None")


def _spearman_and_ranks() -> tuple[float, bool]:
    """Spearman against scipy (ties, 3 rows), and average ranks of a (3, 12) and a (2, 3, 5) batch with ties against
    scipy's rankdata along the last axis (the comparison runs over that axis only)."""
    from scipy.stats import rankdata, spearmanr

    rng_h = np.random.default_rng(10)
    xs, Ys = rng_h.integers(0, 4, 12).astype(float), rng_h.integers(0, 5, (3, 12)).astype(float)
    rho_err = float(np.max(np.abs(sl.spearman(xs, Ys) - [spearmanr(xs, y)[0] for y in Ys])))
    rank_ok = bool(np.array_equal(pr.average_ranks(Ys), rankdata(Ys, method="average", axis=-1)))  # (3, 12), ties
    batch = rng_h.integers(0, 3, (2, 3, 5)).astype(float)
    rank_ok &= bool(np.array_equal(pr.average_ranks(batch), rankdata(batch, method="average", axis=-1)))
    return rho_err, rank_ok


FAR_FITS = (((1.0, 2.0 ** -1000), (-2.0 ** 1000, 2.0 ** -30), (1.0, 2.0 ** -60), (1.0, 2.0 ** -1000)),
            ((1.0, 2.0 ** -520), (1.0, 1.0), (2.0 ** -1040, 1.0), (1.0, 2.0 ** -520)))
"""(diag X^T X, X^T y, exact alpha_hat, exact tau_hat) in floats: at X^T y = (-2^1000, 2^-30) each rescaling is by the
largest magnitude, not the largest signed value, or the fit overflows (w_hat = (-2^1000, 2^970)); at X^T X = diag(1,
2^-520), X^T y = (1, 1) w_hat = (1, 2^520), whose squares overflow unless w_hat is rescaled first."""


def _far_fits() -> bool:
    """The pilot fit's power-of-two rescaling, exact: coefficients 2^520 apart, both negative (alpha_hat = (1, 2^-1040)
    / (1 + 2^-1040) = (1, 2^-1040) in floats, tau_hat = (1/2, 1/2)); the FAR_FITS cases; and X^T X = diag(2^1023,
    2^1023) (its trace overflows unless rescaled first), X^T y = (2^1023, 2^1022): alpha_hat = (4/5, 1/5)."""
    far_a, far_s = lad.estimate_levels(np.eye(2), np.array([-1.0, -2.0 ** -520]), [1, 1])
    far_ok = bool(np.array_equal(far_a, [1.0, 2.0 ** -1040]) and np.array_equal(far_s, [0.5, 0.5]))
    for diag_x, xty, want_a, want_s in FAR_FITS:
        try:
            got_a, got_s = lad.estimate_levels(np.diag(diag_x), np.array(xty), [1, 1])
            far_ok &= bool(np.array_equal(got_a, want_a) and np.array_equal(got_s, want_s))
        except Exception:                                   # noqa: BLE001 -- an overflow raised: the check fails
            far_ok = False
    try:
        big_a, big_s = lad.estimate_levels(np.diag([2.0 ** 1023] * 2), np.array([2.0 ** 1023, 2.0 ** 1022]), [1, 1])
        far_ok &= bool(np.max(np.abs(big_a - [0.8, 0.2])) <= 1e-16 and np.array_equal(big_s, [0.5, 0.5]))
    except Exception:                                       # noqa: BLE001 -- an overflow raised: the check fails
        far_ok = False
    return far_ok


def _labels_and_defaults(design, cfg, res) -> tuple[list, bool]:
    """Design labels (the name the pre-registration file and the CLI tables print: a geometric design by (nu, mu), a
    design from profiles without a name by its level masses) and the documented defaults (Table 3's design d = 32,
    C = 2, sigma_xi = 1, L = 4; target = half the null risk)."""
    labels = [lad.geometric_design(0.5, 0.2, 4, 32, 1.0, 2.0).name, lad.profile_design([0.5, 0.5], [0.25, 0.75], d=2).name]
    labels_ok = labels == ["geometric nu=0.5, mu=0.2", "a=(0.5, 0.5), s=(0.25, 0.75)"]
    try:
        labels_ok &= all(int(x.dims.sum()) == 32 and x.C == 2.0 and x.sigma_xi == 1.0 and x.levels == 4
                         for x in (lad.geometric_design(0.5, 0.2), lad.profile_design(design.a, design.s)))
    except ParameterError:                                  # a default refused: the check fails
        labels_ok = False
    labels_ok &= res.summary["target_fraction"] == 0.5
    return labels, labels_ok


def _scaled_grades_error(design) -> float:
    """The class {||G^-1 w|| <= B(g)} is invariant under g -> c g: learning curves of grades times 2^k (SCALED_GRADES:
    g^2, its inverse or the fit's Newton terms leave the float range unless the grades are brought to ~1 first) against
    the bisection route at the unscaled grades; max relative error (inf when refused)."""
    base = np.array([1.0, 1.3, 1.7, 2.0])
    m_u = sl.reference_size(design)
    ms_u = np.array([m_u, 4 * m_u])
    r_base = _risks_by_bisection(design.a, design.s, design.dims, design.sigma_xi, [base], ms_u, m_u, 20, 3)[0]
    try:
        scaled = sl.learning_curves(design, [np.ldexp(base, k) for k in SCALED_GRADES], ms_u, reps=20, seed=3)[:, 0]
        return float(np.max(np.abs(scaled / r_base - 1)))
    except ParameterError:
        return float("inf")


def _slope_fit(x, y) -> list:
    """Slope of log y on log x and its 95 % t interval (scipy linregress); NaNs when fewer than 3 points."""
    from scipy.stats import linregress, t as student

    if len(x) < 3:                      # no line with a t interval (e.g. no draw with excess > 0): no reference
        return [np.nan] * 3
    f = linregress(np.log(x), np.log(y))
    half = student.ppf(0.975, len(x) - 2) * f.stderr
    return [f.slope, f.slope - half, f.slope + half]


def _slope_diff(a, b) -> float:
    """Max abs difference of two [slope, lo, hi]; a NaN on either side is a failure (every draw here has excess > 0)."""
    ok_ = len(a) == len(b) == 3 and bool(np.isfinite(a).all() and np.isfinite(b).all())
    return float(np.max(np.abs(np.subtract(a, b)))) if ok_ else np.inf


def _degradation_checks(cfg) -> tuple[float, bool, float, float]:
    """Lem. 2's degradation study on a small design (C = 1.7: every draw has excess > 0): its summary slopes and 95 %
    intervals recomputed from its own rows / draws (:func:`_slope_fit`); with five pilot sizes the tail is every row;
    its per-draw losses and rows against :func:`_degradation_losses`; the NaN fits of :func:`_no_power_law` (in
    deg_err). Returns (deg_err, deg_ok, rr_loss_err, deg_rows_err)."""
    small = lad.geometric_design(cfg["nu"], cfg["mu"], cfg["levels"], cfg["d"], cfg["sigma_xi"], 1.7)
    deg = pc.degradation(small, [64, 128, 256, 512, 1024, 2048], draws=3, reps=4, seed=5, m_values=DEG_GRID)
    pos = [q for q in deg.draws if q["excess"] > 0 and q["error"] > 0]
    tail = deg.rows[len(deg.rows) // 2:]
    want = {"excess_vs_error": _slope_fit([q["error"] for q in pos], [q["excess"] for q in pos]),
            "excess_vs_n": _slope_fit([r["n_pilot"] for r in deg.rows], [r["excess_mean"] for r in deg.rows]),
            "excess_vs_n_tail": _slope_fit([r["n_pilot"] for r in tail], [r["excess_mean"] for r in tail]),
            "error_vs_n": _slope_fit([r["n_pilot"] for r in deg.rows], [r["error_mean"] for r in deg.rows])}
    got = {k: [deg.summary[f"slope_{k}"]] + list(deg.summary[f"slope_{k}_ci"]) for k in want}
    deg_err = max(_slope_diff(got[k], w) for k, w in want.items())
    deg_ok = bool(len(pos) == len(deg.draws) == 6 * 3
                  and [(q["n_pilot"], q["draw"]) for q in deg.draws] == [(n, k) for n in (64, 128, 256, 512, 1024, 2048)
                                                                       for k in range(3)]
                  and deg.summary["tail_n"] == [tail[0]["n_pilot"], tail[-1]["n_pilot"]])
    deg5 = pc.degradation(small, [64, 128, 256, 512, 1024], draws=2, reps=2, seed=6,
                          m_values=[sl.reference_size(small)])
    want5 = _slope_fit([r["n_pilot"] for r in deg5.rows], [r["excess_mean"] for r in deg5.rows])
    got5 = [deg5.summary["slope_excess_vs_n_tail"]] + list(deg5.summary["slope_excess_vs_n_tail_ci"])
    deg_err = max(deg_err, _slope_diff(got5, want5))
    deg_ok &= deg5.summary["tail_n"] == [64, 1024]
    deg_err = max(deg_err, _no_power_law(cfg))
    G_deg = [lad.oracle_arm(small).g] + [np.array(q["g"]) for q in deg.draws]
    rr_loss_err, deg_rows_err = _degradation_losses(small, deg, G_deg)
    return deg_err, deg_ok, rr_loss_err, deg_rows_err


def _no_power_law(cfg) -> float:
    """Degradation at C = 1.05 (d = 8, seed 11): the clip binds, most educated grades are the oracle's (excess 0), two
    draws have excess > 0 and the smallest pilot's excess mean is 0, so the excess fits are NaN as documented (< 3
    points; a mean of 0) -- a 2-point line has a slope but no t interval. Returns the max abs difference of the summary
    slopes and intervals from :func:`_slope_fit` of the draws / rows (NaN there), inf if the NaNs differ."""
    near = lad.geometric_design(cfg["nu"], cfg["mu"], cfg["levels"], 8, cfg["sigma_xi"], 1.05)
    deg = pc.degradation(near, [16, 256, 4096], draws=2, reps=2, seed=11, m_values=[sl.reference_size(near)])
    pos = [q for q in deg.draws if q["excess"] > 0 and q["error"] > 0]
    zero = min(r["excess_mean"] for r in deg.rows) <= 0
    want = {"excess_vs_error": _slope_fit([q["error"] for q in pos], [q["excess"] for q in pos]),
            "excess_vs_n": [np.nan] * 3 if zero else _slope_fit([r["n_pilot"] for r in deg.rows],
                                                               [r["excess_mean"] for r in deg.rows])}
    err = 0.0
    for k, w in want.items():
        got = np.array([deg.summary[f"slope_{k}"]] + list(deg.summary[f"slope_{k}_ci"]), float)
        fin = ~np.isnan(np.asarray(w, float))
        err = max(err, float(np.max(np.abs(got[fin] - np.asarray(w)[fin]), initial=0.0))
                  if np.array_equal(np.isnan(got), ~fin) else np.inf)
    return err


def _reader_ranges() -> tuple[bool, object]:
    """The pre-registration reader's documented ranges of the file's intervals (prereg: g in [1, C] gives
    C^-2 <= Lambda <= C^2, and C^-2 <= Lambda*_C <= 1, widened by the recomputation tolerance for rounding), on a small
    pre-registration at C = READER_C edited as JSON: an arm's Lambda_hat_ci at [C^-2 (1 - 4 eps), C^2 (1 + 4 eps)]
    and Lambda_star_C_hat_ci = [C^-2 (1 - 4 eps), 1 + 4 eps] (roundings beyond both bounds) are read back exactly as
    written; an arm's Lambda_hat_ci
    from C^-2 / 2 or up to 2 C^2 is refused. Returns (ok, evidence)."""
    design = lad.geometric_design(0.5, 0.2, 4, 8, 1.0, READER_C)
    text = pr.to_json(pr.preregister(design, 256, 7, bootstrap=2))
    c2 = READER_C * READER_C
    eps = float(np.finfo(float).eps)
    ends, lsc = [(1 - 4 * eps) / c2, c2 * (1 + 4 * eps)], [(1 - 4 * eps) / c2, 1 + 4 * eps]

    def read(lam, lsc_ci):
        body = json.loads(text)
        body["arms"][-1]["Lambda_hat_ci"], body["Lambda_star_C_hat_ci"] = lam, lsc_ci
        try:
            got = pr.from_json(json.dumps(body))
        except ParameterError:
            return None
        return [list(got.arms[-1].Lambda_hat_ci), list(got.Lambda_star_C_hat_ci)]

    got = [read(ends, lsc), read([0.5 / c2, 1.0], lsc), read([1.0, 2 * c2], lsc)]
    ok = got == [[ends, lsc], None, None]
    return ok, computed(f"pre-registration reader at C = {READER_C:g}: Lambda_hat_ci = [C^-2 (1 - 4 eps), C^2 (1 + 4 "
                        "eps)] and Lambda*_C_hat_ci = [C^-2 (1 - 4 eps), 1 + 4 eps] read as written; "
                        "Lambda_hat_ci = [C^-2 / 2, 1], [1, 2 C^2] refused (None)", got,
                        formula="as written; None, None")


def _crossing_check() -> tuple[np.ndarray, np.ndarray, bool]:
    """Crossing: power-law curves c/m reach the level at c/level exactly (log-log interpolation is exact there); NaN
    when reached at the first size (c = 0.5) or not within the grid (c = 100), reached between the first two sizes
    (c = 1); a missing point (NaN) just before the first crossing leaves nothing to interpolate from, so the crossing is
    that size."""
    ms_x, c_x, lev_x = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0]), np.array([3.0, 10.0, 0.5, 100.0, 1.0]), 0.7
    want_x = np.where((c_x / lev_x > ms_x[0]) & (c_x / lev_x <= ms_x[-1]), c_x / lev_x, np.nan)
    got_x = sl.crossing(ms_x, c_x[:, None] / ms_x, lev_x)
    cross_ok = bool(np.array_equal(np.isnan(got_x), np.isnan(want_x))
                    and np.nanmax(np.abs(got_x / want_x - 1)) <= 1e-12)
    cross_ok &= bool(abs(sl.crossing(ms_x, [[3.0, 2.0, np.nan, 0.5, 0.2, 0.1]], 0.7)[0] / 8.0 - 1) <= 1e-15)
    return got_x, want_x, cross_ok

"""Monte Carlo certificate of the two-branch law (P17; PSA §7.9), with the routes and thresholds every Monte Carlo
certificate of the PSA score model follows (P17-P19: :mod:`.mc_variants`, :mod:`.mc_rng`, :mod:`.mc_plateau`,
:mod:`.mc_crossover`).

Routes. The Numba simulation (:mod:`theorylab.psa.montecarlo`) and the library's quadrature
(:mod:`theorylab.psa.quadrature`) both read the library's ScoreModel polynomials and ``distractors``;
the certificate route is :mod:`theorylab.certificates.reference.score_model`, written from the paper's
equations (its own gap, variance, ``m = T - 2`` and an adaptive one-dimensional integral for
the mean mass). Library quadrature vs library Monte Carlo is reported as consistency evidence.

Thresholds. Each certificate declares its false-failure probability (``FALSE_FAILURE``, the
chance that it FAILs a correct library) and splits it over its statistical tests
(:mod:`theorylab.certify.montecarlo`): a simulated mean mass is held to the reference by the
empirical Bernstein bound (samples in [0, 1]; no normal approximation); a simulated root by a
normal z-test (delta-method standard error from the per-sample spread); a batch-means standard
error by a chi-square test against that independent standard error. Deterministic comparisons
(reference vs library, 1e-9) take no share. Default seeds: 100 x the claim number
(1700, 1750, 1800, 1810, 1900, 1910); ``theorylab certify --seed N`` replaces them.
"""

from __future__ import annotations

import math

import numpy as np

from theorylab.certificates.reference import score_model as ref
from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.certify import interval as I
from theorylab.certify import montecarlo as mcs
from theorylab.psa.compare import PAPER_GRID, PAPER_STATISTICS, pearson_r, relative_error
from theorylab.psa import transition
from theorylab.psa.scoremodel import ScoreModel, score_model
from theorylab.psa.mc_crossing import mc_gamma_c
from theorylab.psa.montecarlo import simulate_mass
from theorylab.psa.quadrature import exact_gamma_c
from theorylab.certificates.psa._common import REF_TOL, SLACK, _base, _worse


# ------------------------------------------------------------------------------ P17
P17_FALSE_FAILURE = 1e-4


BRACKET_POINT = ("t4-only", 64.0, 1024, 200, 1717)
"""(variant, dk, T, samples, seed) of the bracket check of mc_gamma_c (a mass curve rising on all of [0, 10])."""
CI_LEVEL = 0.95
"""The documented confidence of mc_gamma_c's interval (its default)."""


def _bracket_check() -> dict:
    """The documented two-pass search of ``mc_gamma_c`` at levels equal to coarse-scan masses.

    The coarse grid is rebuilt from its documentation (step 0.1 on [0, 4], 0.25 on [4, 10]) and
    its masses read from one ``simulate_mass`` run on the same stream (``min(samples, 2000)``
    samples). With ``level = M(g_k)`` exactly, M reaches the level first in the cell (g_{i}, g_{i+1}]
    found here (``>=``: the level is reached AT g_k); the fine grid must be
    ``linspace(g_{i-1}, g_{i+2}, 32)`` clipped to [0, 10], and its root g_k up to PCHIP error (the
    same draws give the same M(g_k)). Levels at the second point, past 4, at the last point
    (both clips and both grid pieces) and above the curve (NaN, NaN CI, NaN batch roots).
    """
    variant, dk, T, n, seed = BRACKET_POINT
    grid = np.concatenate([np.arange(41) / 10.0, 4.0 + np.arange(1, 25) / 4.0])
    scan = simulate_mass(variant, dk, T, grid, samples=n, seed=seed)          # the documented defaults: sigma0 = 0
    coarse, record_ok = scan.mass, (scan.T, scan.samples, scan.seed, scan.sigma0) == (T, n, seed, 0.0)
    grid_err, root_err = 0.0, 0.0
    for k in (1, 50, grid.size - 1):
        level = float(coarse[k])
        above = coarse >= level
        i = int(np.flatnonzero(~above[:-1] & above[1:])[0])
        mc = mc_gamma_c(variant, dk, T, samples=n, seed=seed, level=level)
        want = np.linspace(grid[max(i - 1, 0)], grid[min(i + 2, grid.size - 1)], 32)
        got = mc.curve.gamma
        grid_err = max(grid_err, float(np.max(np.abs(got - want))) if got.shape == want.shape else math.inf)
        root_err = max(root_err, abs(mc.gamma_c - grid[k]) if np.isfinite(mc.gamma_c) else math.inf)
    none = mc_gamma_c(variant, dk, T, samples=n, seed=seed, level=min(float(np.max(coarse)) + 0.01, 0.999))
    nan_ok = bool(np.isnan([none.gamma_c, none.ci_low, none.ci_high]).all() and np.isnan(none.batch_gamma_c).all()
                  and np.max(coarse) < 0.99 and none.confidence == CI_LEVEL)
    # the coarse pass draws at most 2000 samples: 2001 requested, a level above the curve returns the coarse curve
    cap = mc_gamma_c("t4-only", 4.0, 5, samples=2001, seed=seed, level=0.9)           # plateau Phi(1)^3 = 0.59
    cap_ok = bool(cap.samples == 2001 and cap.curve.samples == 2000 and np.isnan(cap.gamma_c))
    return {"grid_err": grid_err, "root_err": root_err, "nan_ok": nan_ok, "record_ok": record_ok, "cap_ok": cap_ok}


def _first_crossing_check() -> float:
    """The public ``first_crossing`` at its documented default level 1/2 on ``0.3 + 0.4 sin g`` sampled on 25 points
    of [0, 2 pi] (up through 1/2 near 0.52, down near 2.62): its root against scipy's monotone cubic (PCHIP)
    interpolant solved by brentq in the first upward cell found here, also with the curve and level scaled by
    2^1000 (same root); NaN (infinite error) expected when the curve starts at or above the level (0.2), never reaches
    it (0.75), or holds a NaN; two points give the linear root; a repeated g, one point, a missing mass value or a 2-D
    grid raise ParameterError. Returns the worst abs root error (inf when a NaN or refusal case fails)."""
    from scipy.interpolate import PchipInterpolator
    from scipy.optimize import brentq

    from theorylab import ParameterError
    from theorylab.psa.mc_crossing import first_crossing

    g = np.linspace(0.0, 2 * np.pi, 25)
    m = 0.3 + 0.4 * np.sin(g)
    i = int(np.flatnonzero((m[:-1] < 0.5) & (m[1:] >= 0.5))[0])
    want = brentq(PchipInterpolator(g, m - 0.5), g[i], g[i + 1], xtol=1e-15)
    err = max(abs(first_crossing(g, m) - want), abs(first_crossing(g, m * 2.0**1000, 2.0**999) - want))
    holed = m.copy()
    holed[-1] = np.nan
    nan_ok = all(np.isnan(first_crossing(g, c, lv)) for c, lv in ((m, 0.2), (m, 0.75), (holed, 0.5)))
    err = max(err, abs(first_crossing([0.0, 1.0], [0.25, 0.75]) - 0.5))        # two points: the linear root
    refused = 0
    bad = (([0.0, 1.0, 1.0, 2.0], [0.1, 0.2, 0.6, 0.7]), ([0.0], [0.1]), (g, m[:-1]), ([[0.0, 1.0]], [[0.1, 0.9]]))
    for gg, mm in bad:
        try:
            first_crossing(gg, mm)
        except ParameterError:
            refused += 1
    return float(err) if nan_ok and refused == 4 and np.isfinite(err) else math.inf


SCAN_END = ("t4-only", 9.9, 64.0, 1024, 11.0)
"""(variant, g in the last scan cell, dk, T, g beyond the scan) of the scan-end check of exact_gamma_c (M rises on
[0, 11]: plateau 0.968)."""


HUMP = ScoreModel("t4-only", (0.0, 200.0, -1000.0), (0.0, 0.0), "probe: noiseless gap hump on [0, 0.2]")
"""Probe model of the first-cell check: ``Delta = 200 g - 1000 g^2`` (dk = 1), no distractor noise, so
``M = 1/(1 + m e^-Delta)`` in closed form: M crosses 1/2 upwards at ``g* = (1 - sqrt(1 - ln(m)/10))/10`` (0.0234 for
T = 64), inside the scan's first cell (0, 0.1], and falls back below 1/2 before the scan's third point 0.2 (Delta(0.2)
= 0), never to return (Delta < 0 beyond)."""


MID_HUMP = ScoreModel("t4-only", (math.log(62.0) - 89.375, 60.0, -10.0), (0.0, 0.0),
                     "probe: noiseless gap hump on [2.75, 3.25]")
"""Probe model of the scan's step 0.1 up to g = 4: ``Delta = ln 62 + 10 (1/16 - (g - 3)^2)`` (dk = 1, no distractor
noise) at T = 64 (m = 62), so ``M = 1/(1 + m e^-Delta)`` is above 1/2 exactly on (2.75, 3.25), below it elsewhere
on [0, 10]: the first crossing 2.75 lies between scan points 0.1 apart, the hump narrower than a 0.25 step."""


def _scan_end_check() -> tuple[float, bool, float]:
    """``exact_gamma_c`` at both ends of its documented scan [0, 10]: a root in the last cell (9.75, 10] is found
    (abs error against the reference's g), a level first reached at g = 11 gives NaN (the reference mass
    rises on the scan: M(10) below that level), and the smallest up-crossing of the :data:`HUMP` probe, in the
    first cell (0, 0.1] of a mass that is back below the level at g = 0.2, and of the :data:`MID_HUMP` probe (2.75,
    above 1/2 only on (2.75, 3.25): the scan's 0.1 steps up to 4), is found (max abs error against the closed-form
    roots)."""
    variant, g_in, dk, T, g_out = SCAN_END
    level_in, level_out = ref.mass(variant, g_in, dk, T), ref.mass(variant, g_out, dk, T)
    err = abs(float(exact_gamma_c(variant, dk, T, level=level_in)) - g_in)
    beyond = bool(ref.mass(variant, 10.0, dk, T) < level_out and np.isnan(exact_gamma_c(variant, dk, T, level=level_out)))
    m = ref.distractors(64)
    first = abs(float(exact_gamma_c(HUMP, 1.0, 64)) - (1.0 - math.sqrt(1.0 - math.log(m) / 10.0)) / 10.0)
    first = _worse(first, np.array([abs(float(exact_gamma_c(MID_HUMP, 1.0, 64)) - 2.75)]))       # NaN: inf
    return err, beyond, first


def _pearson(x, y) -> float:
    """Pearson's r from its definition: sum dx dy / sqrt(sum dx^2 sum dy^2), deviations from the means."""
    dx, dy = np.asarray(x, float) - np.mean(x), np.asarray(y, float) - np.mean(y)
    return float(np.sum(dx * dy) / math.sqrt(float(np.sum(dx * dx)) * float(np.sum(dy * dy))))


def _paper_statistics(law, mc, exact, dev) -> dict:
    """The paper's r and median relative error of the law: on the MC roots by the library's helpers
    (``compare.pearson_r``, ``compare.relative_error``), on the exact roots from their definitions (never the
    helpers), with tolerances propagated from the MC deviations ``dev`` (dr/dy of the closed form by central
    differences); ``helper_err``: the helpers against the closed forms on both pairs, per point and in the median."""
    h = 1e-7
    grad_r = np.array([(_pearson(law, exact + h * e) - _pearson(law, exact - h * e)) / (2 * h)
                       for e in np.eye(len(law))])
    rel = {k: np.abs(law - y) / np.abs(y) for k, y in (("mc", mc), ("exact", exact))}
    helper_err = 0.0
    for k, y in (("mc", mc), ("exact", exact)):
        got = relative_error(law, y)
        helper_err = _worse(helper_err, np.array([abs(pearson_r(law, y) - _pearson(law, y)),
                                                  abs(pearson_r(law[:3], y[:3]) - _pearson(law[:3], y[:3])),
                                                  float(np.max(np.abs(got - rel[k]))),
                                                  abs(float(np.median(got)) - float(np.median(rel[k])))]))
    return {"r_mc": pearson_r(law, mc), "r_ex": _pearson(law, exact),
            "med_mc": float(np.median(relative_error(law, mc))), "med_ex": float(np.median(rel["exact"])),
            "tol_r": float(np.sum(np.abs(grad_r) * dev)), "tol_med": float(np.max(law / exact ** 2 * dev)),
            "helper_err": helper_err}


@certificate("P17", title="Two-branch law vs Monte Carlo on nine mean-field points", paper="PSA §7.9",
             claim="On nine mean-field points the t4-only law predicts the simulated gamma_c with Pearson r >= 0.9876 "
                   "and median relative error <= 2.6 % (zero fitted parameters).", method="monte-carlo",
             false_failure=P17_FALSE_FAILURE)
def two_branch_law_vs_mc(seed=None) -> Outcome:
    """Law vs MC root of M(g) = 1/2 (4000 samples per point, seeds base + i).

    Per point: the law lies in the certified enclosure of the annealed root; the reference mass at
    the library's exact root is 1/2 (1e-9); the MC root is within z of that root, with the
    delta-method standard error ``se_M(g) / M'(g)`` (per-sample spread, not the batch means); the
    library's CI is the t-interval of its raw batch roots (1e-9). Across points: the batch-means CI
    is checked for coverage -- the batch roots' standard error against the delta-method one
    (chi-square, two-sided: a CI too wide or too narrow FAILs) and the number of CIs holding the
    exact root (binomial). The paper's r and median are compared through tolerances propagated from
    the per-point CIs (first order; implied by the z-tests, no extra share); the library's copy of them
    (``PAPER_STATISTICS``) equals the claims catalogue's quote of the paper.
    Shares of the false-failure probability: z-tests 1/2 (Bonferroni over 9), chi-square 1/4, binomial 1/4.
    """
    alpha, n_pts = P17_FALSE_FAILURE, len(PAPER_GRID)
    base = _base(seed, 1700)
    z_max = mcs.z_threshold(alpha / 2, n_pts)
    rows, col = _law_points(base)
    inside = [r["enc"] is not None and bool(np.isfinite(r["law"]))
              and r["enc"].contains(r["law"], SLACK * max(1.0, abs(r["law"]))) for r in rows]
    scan_ok, scan_ev = _scan_edges_check()
    cover_ok, cover_ev = _coverage_check(col, alpha, z_max)
    stats_ok, stats_ev = _statistics_check(col, z_max)
    passed = bool(all(inside) and scan_ok and cover_ok and stats_ok)
    return Outcome(passed, (
        computed("points where the law lies in the certified root enclosure", f"{sum(inside)}/{len(inside)}",
                 formula=f"interval root of Delta - L - sigma^2/2, relative slack {SLACK:g}"),
        *scan_ev, *cover_ev, *stats_ev),
        arrays={"law_gamma_c": col["law"], "mc_gamma_c": col["mc"], "mc_ci_low": col["lo"], "mc_ci_high": col["hi"],
                "exact_gamma_c": col["exact"], "delta_method_se": col["se_delta"],
                "batch_gamma_c": np.array([r["batch_roots"] for r in rows]),
                "reference_residual": col["ref_residual"],
                "root_enclosure": np.array([r["enc"].as_floats() if r["enc"] is not None else [np.nan, np.nan]
                                            for r in rows])},
        seeds={f"point{i}": base + i for i in range(n_pts)})


def _law_points(base: int) -> tuple[list, dict]:
    """Per point of PAPER_GRID: the library law, its MC root (4000 samples, seed base + i) with the delta-method and
    batch-means standard errors, the library's exact root, the reference residual there and the interval enclosure."""
    from scipy.interpolate import PchipInterpolator
    from scipy.stats import t as student_t

    model = score_model("t4-only")
    rows = []
    for i, (dk, T) in enumerate(PAPER_GRID):
        mc = mc_gamma_c("t4-only", dk, T, samples=4000, seed=base + i)
        ex = float(exact_gamma_c("t4-only", dk, T))
        curve = mc.curve
        slope = float(PchipInterpolator(curve.gamma, curve.mass).derivative()(mc.gamma_c))
        se_mass = float(np.interp(mc.gamma_c, curve.gamma, curve.se))
        roots = mc.batch_gamma_c[np.isfinite(mc.batch_gamma_c)]
        se_batch = float(np.std(roots, ddof=1) / math.sqrt(roots.size))
        half = float(student_t.ppf(0.5 + CI_LEVEL / 2.0, roots.size - 1)) * se_batch      # the documented 95 %
        enc = I.smallest_positive_root(model, dk, T)
        rows.append({"law": float(np.asarray(transition.gamma_c("t4-only", dk, T).gamma_c)), "mc": mc.gamma_c,
                     "lo": mc.ci_low, "hi": mc.ci_high, "exact": ex, "se_delta": se_mass / slope,
                     "batches": roots.size, "se_batch": se_batch,
                     "ci_err": max(abs(mc.ci_low - (mc.gamma_c - half)), abs(mc.ci_high - (mc.gamma_c + half))) / half,
                     "ref_residual": ref.mass("t4-only", ex, dk, T) - 0.5, "enc": enc,
                     "batch_roots": mc.batch_gamma_c})
    col = {k: np.array([r[k] for r in rows], float) for k in
           ("law", "mc", "lo", "hi", "exact", "se_delta", "se_batch", "batches", "ref_residual", "ci_err")}
    return rows, col


def _scan_edges_check() -> tuple[bool, tuple]:
    """The library's root searches at the edges of their scans: ``exact_gamma_c`` in its first and last cell and
    beyond it (:func:`_scan_end_check`), ``mc_gamma_c``'s two-pass search (:func:`_bracket_check`) and
    ``first_crossing`` (:func:`_first_crossing_check`)."""
    from scipy.optimize import brentq

    # a root in the scan's first cell (0, 0.1]: T = 3, level just above M(0) = 1/2, against the reference's brentq
    low_level = ref.mass("t3-inclusive", 0.0, 16.0, 3) + 0.02
    low_want = brentq(lambda g: ref.mass("t3-inclusive", g, 16.0, 3) - low_level, 0.0, 0.1, xtol=1e-14)
    low_err = abs(float(exact_gamma_c("t3-inclusive", 16.0, 3, level=low_level)) - low_want)
    end_err, beyond, first_err = _scan_end_check()
    brk = _bracket_check()
    cross_err = _first_crossing_check()
    ok = bool(low_err <= 1e-9 and end_err <= 1e-9 and beyond and first_err <= 1e-9
              and brk["grid_err"] <= 1e-12 and brk["root_err"] <= 1e-5 and brk["nan_ok"] and brk["record_ok"]
              and brk["cap_ok"] and cross_err <= 1e-12)
    return ok, (
        computed("exact gamma_c with its root in the first scan cell (t3-inclusive, dk 16, T 3, level M(0) + 0.02) "
                 "vs the reference's root, abs error", low_err, tolerance=1e-9, formula="<= 1e-9"),
        computed("exact gamma_c of the HUMP probe (noiseless gap 200 g - 1000 g^2, dk 1, T 64): the smallest "
                 "up-crossing, in the first scan cell, of a mass back below 1/2 at g = 0.2, vs the closed-form root, "
                 "abs error; and of MID_HUMP (gap ln 62 + 10 (1/16 - (g - 3)^2), root 2.75, back below 1/2 at 3.25)",
                 first_err, tolerance=1e-9, formula="<= 1e-9 (inf if a cell is skipped: step 0.1 up to g = 4)"),
        computed(f"exact gamma_c at level = reference M({SCAN_END[1]:g}) (last scan cell) vs {SCAN_END[1]:g}, abs error "
                 f"({SCAN_END[0]}, dk {SCAN_END[2]:g}, T {SCAN_END[3]})", end_err, tolerance=1e-9, formula="<= 1e-9"),
        computed(f"... at level = reference M({SCAN_END[4]:g}) > max M on [0, 10]: NaN (documented scan [0, 10])", beyond),
        computed("mc_gamma_c two-pass search at level = coarse M(g_k), k = 1, 50, 64: max |fine grid - "
                 "linspace(g_(i-1), g_(i+2), 32)| (documented coarse grid, first cell reaching the level)",
                 brk["grid_err"], tolerance=1e-12, formula="<= 1e-12"),
        computed("... and max |MC root - g_k| (same draws: M(g_k) is the level)", brk["root_err"], tolerance=1e-5,
                 formula="<= 1e-5 (PCHIP interpolation error)"),
        computed("level above the coarse curve: gamma_c, CI and batch roots NaN (at the default 95 % confidence)",
                 brk["nan_ok"]),
        computed("the coarse curve records T, samples, seed and the default sigma0 = 0", brk["record_ok"]),
        computed("first_crossing (default level 1/2, and scaled by 2^1000) of 0.3 + 0.4 sin g vs scipy PCHIP + "
                 "brentq, abs error (inf if a start-above / never-reached / NaN curve is not NaN or a bad grid not "
                 "refused)", cross_err,
                 tolerance=1e-12, formula="<= 1e-12"),
        computed("2001 samples requested, level 0.9 above the curve (t4-only, dk 4, T 5): the returned coarse curve "
                 "holds 2000 samples (the documented coarse cap), the result records 2001", brk["cap_ok"]))


def _coverage_check(col: dict, alpha: float, z_max: float) -> tuple[bool, tuple]:
    """The exact roots against the reference (REF_TOL), the MC roots against them (z-tests), the library CI against
    the t-interval of its batch roots, the batch-means SE against the delta-method one (chi-square) and the CIs'
    coverage of the exact roots (binomial)."""
    n_pts = len(col["mc"])
    ref_err = float(np.max(np.abs(col["ref_residual"])))
    z = (col["mc"] - col["exact"]) / col["se_delta"]
    dof = int(np.sum(col["batches"] - 1))
    ratio = float(np.sum((col["batches"] - 1) * (col["se_batch"] / col["se_delta"]) ** 2) / dof)
    ratio_lo, ratio_hi = mcs.chi2_ratio_bounds(alpha / 4, dof)
    covered = int(np.sum((col["lo"] <= col["exact"]) & (col["exact"] <= col["hi"])))
    min_covered = mcs.binomial_min_hits(n_pts, CI_LEVEL, alpha / 4)
    ci_err = float(np.max(col["ci_err"]))
    ok = bool(ref_err <= REF_TOL and np.all(np.isfinite(z)) and np.max(np.abs(z)) <= z_max and ci_err <= 1e-9
              and ratio_lo <= ratio <= ratio_hi and covered >= min_covered)
    return ok, (
        computed("max |reference M(exact gamma_c) - 1/2|", ref_err, tolerance=1e-10,
                 formula=f"<= {REF_TOL:g}: library quadrature root vs the reference integral"),
        computed("max |MC - exact| / delta-method SE", float(np.max(np.abs(z))), tolerance=0.5,
                 formula=f"<= {z_max:.3f} (two-sided normal, Bonferroni over {n_pts}, share {alpha / 2:g})"),
        computed("CI check: max rel |library CI - t-interval of the raw batch roots|", ci_err, tolerance=1e-9,
                 formula="gamma_c -/+ t_{B-1, (1+conf)/2} sd(batch roots) / sqrt(B), <= 1e-9"),
        computed("CI check: pooled (batch-means SE / delta-method SE)^2", ratio, tolerance=0.3,
                 formula=f"in [{ratio_lo:.3f}, {ratio_hi:.3f}] (chi2_{dof}/{dof}, share {alpha / 4:g})"),
        computed("CI check: 95 % CIs holding the exact root", f"{covered}/{n_pts}",
                 formula=f">= {min_covered} (binomial({n_pts}, {CI_LEVEL}) lower tail, share {alpha / 4:g})"))


def _catalogue_statistics() -> tuple[float, float]:
    """The paper's (Pearson r, median relative error) as the claims catalogue quotes them for P17
    ("paper: r = 0.9876, median 2.6 %"), parsed from its text; (nan, nan) when not found."""
    import re

    from theorylab.certify.catalogue import CATALOGUE

    hit = re.search(r"paper: r = ([0-9.]+), median ([0-9.]+) %", CATALOGUE["P17"][0])
    return (float(hit.group(1)), round(float(hit.group(2)) / 100.0, 12)) if hit else (math.nan, math.nan)


def _statistics_check(col: dict, z_max: float) -> tuple[bool, tuple]:
    """The paper's statistics, on the MC roots (library helpers) and on the exact roots (first principles), within
    the tolerances propagated from the per-point CIs; the paper's own values reported."""
    stats = _paper_statistics(col["law"], col["mc"], col["exact"], z_max * col["se_delta"])
    r_mc, r_ex, med_mc, med_ex, tol_r, tol_med = (stats[k] for k in ("r_mc", "r_ex", "med_mc", "med_ex", "tol_r",
                                                                     "tol_med"))
    paper, quoted = PAPER_STATISTICS, _catalogue_statistics()
    ok = bool(abs(r_mc - r_ex) <= tol_r and abs(med_mc - med_ex) <= tol_med and stats["helper_err"] <= 1e-12
              and tuple(paper) == quoted)
    return ok, (
        computed("pearson_r (law vs MC; library compare.pearson_r)", r_mc, tolerance=5e-3),
        computed("Pearson r (law vs exact; closed form sum dx dy / sqrt(sum dx^2 sum dy^2))", r_ex, tolerance=1e-9,
                 formula=f"|r_MC - r_exact| <= {tol_r:.2e} (CI-propagated: sum_i |dr/dy_i| z SE_i, closed-form dr/dy)"),
        computed("median_rel_err (law vs MC; library compare.relative_error)", med_mc, tolerance=2e-3),
        computed("median relative error (law vs exact; median of |law - exact| / exact)", med_ex, tolerance=1e-9,
                 formula=f"|median_MC - median_exact| <= {tol_med:.2e} (CI-propagated: max_i law_i z SE_i / g_i^2)"),
        computed("library pearson_r and relative_error (per point, and its median) on (law, exact) and (law, MC) vs "
                 "the closed forms, max abs", stats["helper_err"], tolerance=1e-12, formula="<= 1e-12"),
        bound("paper", paper._asdict(), formula=f"r >= {paper.pearson_r}, median <= {paper.median_rel_err} "
              f"(the paper's statistics: reported, not the verdict)"),
        computed("library PAPER_STATISTICS vs the claims catalogue's P17 (paper: r, median %)", list(quoted),
                 formula="equal (r = 0.9876, median 2.6 % = 0.026)"),
        computed("points (dk, T)", [list(p) for p in PAPER_GRID]))

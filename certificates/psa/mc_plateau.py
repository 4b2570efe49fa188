"""Monte Carlo certificates of the frozen phase: the argmax plateau and the condensation constant (P18; PSA §6.7, §7.10).

Routes and thresholds as in :mod:`.mc_law`. Default seeds 1800 (plateau) and 1810 (condensation).
"""
from __future__ import annotations

import math

import numpy as np

from theorylab.certificates.reference import score_model as ref
from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.certify import montecarlo as mcs
from theorylab.psa.compare import CONDENSED_GRID, calibrate_condensation_c, plateau_check
from theorylab.psa import transition
from theorylab.psa.scoremodel import ScoreModel
from theorylab.certificates.psa._common import REF_TOL, _base, _bernstein, _worse


# ------------------------------------------------------------------------------ P18
PLATEAU_FALSE_FAILURE = 1e-4


@certificate("P18.plateau", title="Argmax plateau Phi(sqrt(dk)/2)^m vs direct simulation", paper="PSA §7.10",
             claim="At large g the t4-only mean target mass equals the zero-parameter argmax limit "
                   "Phi(sqrt(dk)/2)^(T-2) (paper: within 9e-4 of simulation).", method="monte-carlo",
             false_failure=PLATEAU_FALSE_FAILURE)
def argmax_plateau_vs_mc(seed=None) -> Outcome:
    """At g = 10, (dk, T) = (16, 64) and (16, 24) (``compare.plateau_check``, 100,000 samples per point):
    the library plateau equals the reference's ``Phi(sqrt(dk)/2)^(T-2)`` (1e-13); the reference mass
    M(10) is within the paper's 9e-4 of it; the library quadrature equals the reference (1e-9); the
    simulated means are within their empirical Bernstein half-width of the reference M(10)
    (Bonferroni over 2, the whole share)."""
    alpha = PLATEAU_FALSE_FAILURE
    base = _base(seed, 1800)
    points, g, samples = ((16.0, 64), (16.0, 24)), 10.0, 100_000
    rows = plateau_check(points, g=g, samples=samples, seed=base)
    col = {k: np.array([r[k] for r in rows]) for k in ("plateau", "exact_mass", "mc_mass", "se")}
    col["reference_plateau"] = np.array([ref.argmax_plateau(dk, T) for dk, T in points])
    col["reference_mass"] = np.array([ref.mass("t4-only", g, dk, T) for dk, T in points])
    half = _bernstein(col["se"], samples, alpha, len(points))
    plateau_err = float(np.max(np.abs(col["plateau"] - col["reference_plateau"]) / col["reference_plateau"]))
    gap = float(np.max(np.abs(col["reference_mass"] - col["reference_plateau"])))
    quad_err = float(np.max(np.abs(col["exact_mass"] - col["reference_mass"])))
    dev = float(np.max(np.abs(col["mc_mass"] - col["reference_mass"]) / half))
    argmax_err = _argmax_probability_error()
    half_level_err, half_root_err = _half_plateau_check()
    row_err, default_err = _plateau_row_error(rows, points, g, base), _plateau_defaults_error()
    passed = bool(plateau_err <= 1e-13 and gap <= 9e-4 and quad_err <= REF_TOL and dev <= 1.0 and argmax_err <= 1e-12
                  and half_level_err <= 1e-13 and half_root_err <= 1e-9 and row_err <= 1e-15 and default_err <= 5e-7)
    return Outcome(passed, (
        computed("max rel |library plateau - reference Phi(sqrt(dk)/2)^(T-2)|", plateau_err, formula="<= 1e-13"),
        computed("max rel |library P(argmax) - Phi(Delta/sigma)^m (mpmath, reference gap/variance)| over every "
                 "variant, g in 1e-200..1e200 and the large-g limit, and 6 probe models (subleading gap term at "
                 "g = 2^102, zero gap, gap -> -inf from either sign at g = 0, Delta/sigma -> 0, constant)", argmax_err,
                 formula="<= 1e-12"),
        computed(f"half-plateau observable at (t4-only, {HALF_POINT[0]:g}, {HALF_POINT[1]}), exact, default options: "
                 "rel |level - reference plateau / 2|", half_level_err, formula="<= 1e-13"),
        computed("... and mass-half: |reference M(gamma_c) - level| (and M below the level 0.01 before: the first "
                 "crossing); half-plateau at (1, 4096) (plateau underflows to 0): NaN at level 0, exact and MC",
                 half_root_err, formula="<= 1e-9 (inf: a crossing or a NaN case wrong)"),
        computed("max |reference M(g=10) - plateau|", gap, tolerance=1e-10, formula="<= 9e-4 (the paper's agreement)"),
        computed("max |library quadrature - reference| at g = 10", quad_err, tolerance=1e-10, formula=f"<= {REF_TOL:g}"),
        computed("max |MC - reference M(g=10)| / empirical Bernstein half-width", dev, tolerance=0.5,
                 formula=f"<= 1 (Bonferroni over {len(points)}, share {alpha:g})"),
        computed("plateau_check rows: dk, T, gamma, seed as asked (point i: (base + i) mod 2^64); mc_minus_plateau, "
                 "exact_minus_plateau and z = (MC - plateau) / SE from the row's own values, max abs", row_err,
                 formula="<= 1e-15 (inf: a field missing or a label wrong)"),
        computed("plateau_check defaults: the points and g of the documented table (docs/simulation.md (c)); max |its "
                 "6-digit plateaus - reference Phi(sqrt(dk)/2)^(T-2)|", default_err,
                 formula="<= 5e-7 (inf: a default point or g not the documented one)"),
        computed("max |MC - plateau| / SE", float(np.max(np.abs(col["mc_mass"] - col["plateau"]) / col["se"])),
                 tolerance=1.0),
        bound("paper", 9e-4, formula="|argmax limit - simulation| <= 9e-4 (paper §7.10)")),
        arrays=col, seeds={f"point{i}": r["seed"] for i, r in enumerate(rows)},
        note=f"points (dk, T) = {points}, g = {g}, {samples} samples each")


DOC_PLATEAU_TABLE = ((16.0, 64, 0.240076), (32.0, 512, 0.302940), (40.0, 512, 0.670767), (64.0, 512, 0.983977))
"""docs/simulation.md (c), run with plateau_check's defaults at g = 10: (dk, T, plateau Phi(sqrt(dk)/2)^m to 6 digits)."""


def _plateau_defaults_error() -> float:
    """``plateau_check``'s default points and g against the documented table :data:`DOC_PLATEAU_TABLE` (g = 10),
    and the table's plateaus against the reference; max abs plateau error, inf when a default differs."""
    import inspect

    params = inspect.signature(plateau_check).parameters
    if tuple(params["points"].default) != tuple((dk, T) for dk, T, _ in DOC_PLATEAU_TABLE) \
            or params["g"].default != 10.0:
        return math.inf
    return float(max(abs(ref.argmax_plateau(dk, T) - p) for dk, T, p in DOC_PLATEAU_TABLE))


def _plateau_row_error(rows, points, g: float, base: int) -> float:
    """Every field of ``plateau_check``'s rows against its definition (docstring): the point, coupling and seed
    asked for, ``mc_minus_plateau = MC - plateau``, ``exact_minus_plateau = exact - plateau`` and
    ``z = (MC - plateau) / SE``, from the row's own plateau, masses and SE; inf when a field is missing or wrong."""
    err = 0.0 if len(rows) == len(points) else math.inf
    for i, (r, (dk, T)) in enumerate(zip(rows, points)):
        try:
            labels = (r["dk"], r["T"], r["gamma"], r["seed"]) == (dk, T, g, (base + i) % 2 ** 64)
            p, mc, ex, se = r["plateau"], r["mc_mass"], r["exact_mass"], r["se"]
            if not (labels and se > 0):
                return math.inf
            diffs = (r["mc_minus_plateau"] - (mc - p), r["exact_minus_plateau"] - (ex - p), r["z"] - (mc - p) / se)
            err = _worse(err, np.abs(np.array(diffs, float)))
        except KeyError:
            err = math.inf
    return float(err)


HALF_POINT = (16.0, 24)
"""(dk, T) of the half-plateau check: plateau Phi(2)^22 = 0.60, M(0) = 1/23, crossing near g = 1."""


def _half_plateau_check() -> tuple[float, float]:
    """``half_plateau`` (exact, every option at its default) against the reference: its level is half
    ``Phi(sqrt(dk)/2)^m`` and the reference mass reaches that level at its coupling, not 0.01 before. Where the
    plateau is negligible (dk = 1, T = 4096: level 0) the observable is undefined: NaN by exact and Monte Carlo."""
    from theorylab import ParameterError
    from theorylab.psa.observables import half_plateau, mass_half

    dk, T = HALF_POINT
    got = half_plateau("t4-only", dk, T)
    want = ref.argmax_plateau(dk, T) / 2.0
    first = ref.mass("t4-only", got.gamma_c - 0.01, dk, T) < want
    root_err = abs(ref.mass("t4-only", got.gamma_c, dk, T) - want) if first else math.inf
    half = mass_half("t4-only", dk, T)                                   # level 1/2: the same search
    first = half.level == 0.5 and ref.mass("t4-only", half.gamma_c - 0.01, dk, T) < 0.5
    root_err = max(root_err, abs(ref.mass("t4-only", half.gamma_c, dk, T) - 0.5) if first else math.inf)
    # a negligible plateau (the reference's Phi(1/2)^4094 underflows to 0): undefined, NaN, by either method
    try:
        gone = [half_plateau("t4-only", 1.0, 4096, method=m) for m in ("exact", "mc")]
    except ParameterError:                                              # a level 0 handed on: refused
        gone = []
    if ref.argmax_plateau(1.0, 4096) != 0.0 or len(gone) != 2 \
            or not all(r.level == 0.0 and math.isnan(r.gamma_c) for r in gone):
        root_err = math.inf
    return abs(got.level / want - 1), root_err


def _argmax_probability_error(dk: float = 16.0, T: int = 64) -> float:
    """Library ``argmax_probability`` against ``Phi(Delta/sigma)^m`` evaluated by mpmath (50 digits) from the
    reference's gap and variance, at couplings across the whole float range (overflow-safe route) and in the
    large-g limit (the reference ratio at g = 1e100)."""
    import mpmath as mp

    errors = []                                                   # np.max propagates a NaN (max() would drop it)
    with mp.workdps(50):
        for variant in ref.VARIANTS:
            for g in (1e-200, 1e-50, 0.3, 1.7, 1e50, 1e200, None):
                gm = mp.mpf(1e100 if g is None else g)
                r = ref.gap(variant, gm, dk) / mp.sqrt(ref.variance(variant, gm))
                exact = mp.exp(ref.distractors(T) * mp.log(mp.ncdf(r)))
                got = float(transition.argmax_probability(variant, dk, T, g))
                errors.append(float(abs(got - exact) / exact))
        for model in _PROBE_MODELS:                   # the factored route's every term, the limit's every branch
            for g in (2.0 ** 102, 1e200, 1e-200, None):
                gm = mp.mpf(10) ** 100 if g is None else mp.mpf(g)      # limit: terms below 1e-70 relative
                gap = mp.sqrt(dk) * sum(mp.mpf(c) * gm ** k for k, c in enumerate(model.gap_poly))
                r = gap / mp.sqrt(sum(mp.mpf(c) * gm ** k for k, c in enumerate(model.var_poly)))
                r = min(max(r, -40), 40)              # Phi(-40)^m and 1 - Phi(40) are below the float range
                exact = float(mp.exp(ref.distractors(T) * mp.log(mp.ncdf(r))))
                got = float(transition.argmax_probability(model, dk, T, g))
                errors.append(abs(got - exact) / max(exact, 1e-300))
    return float(np.max(errors))


_PROBE_MODELS = (    # score models that are not the paper's, built to expose every term of the overflow-safe route:
    # at g = 2^102 the gap's subleading term is half its leading one (Delta/(sigma sqrt(dk)) = 0.375, not 0.25);
    ScoreModel("t4-only", (0.0, 2.0 ** 99, 0.25), (1.0, 0.0, 0.0, 0.0, 1.0), "probe: subleading gap term"),
    # Delta = 0 (P = 2^-m at every g and in the limit);
    ScoreModel("t4-only", (0.0,), (1.0, 0.0, 1.0), "probe: zero gap"),
    # 2 deg(gap) > deg(var), negative leading gap coefficient beside a positive one: P -> 0 in the limit.
    ScoreModel("t4-only", (0.0, 1.0, -1.0), (1.0, 0.0, 1.0), "probe: gap -> -inf"),
    # ... and with a constant gap term of the other sign (the limit's sign is the leading coefficient's): P -> 0;
    ScoreModel("t4-only", (2.0, 0.0, -1.0), (1.0, 0.0, 1.0), "probe: gap -> -inf, positive at g = 0"),
    # 2 deg(gap) < deg(var): Delta/sigma -> 0, P -> 2^-m in the limit.
    ScoreModel("t4-only", (0.0, 1.0), (1.0, 0.0, 0.0, 1.0), "probe: Delta/sigma -> 0"),
    # constant gap and variance: Delta/sigma = sqrt(dk)/2 at every g and in the limit.
    ScoreModel("t4-only", (1.0,), (4.0,), "probe: constant gap and variance"),
)


def _calibration_grid_ok() -> bool:
    """``compare.CALIBRATION_GRID`` against its documentation: the nine points in order, each condensed
    (``dk < 8 L``, the reference's ``L = ln(T - 1)``) with the reference argmax plateau >= 0.20 (so the half-plateau
    observable is defined there)."""
    from theorylab.psa.compare import CALIBRATION_GRID

    want = tuple((16.0, T) for T in (12, 16, 24, 32, 48, 64)) + tuple((32.0, T) for T in (128, 256, 512))
    return bool(tuple(CALIBRATION_GRID) == want
                and all(dk < 8.0 * ref.log_count(T) and ref.argmax_plateau(dk, T) >= 0.20 for dk, T in want))


def _calibration_error(cal, mc_cal, base: int) -> float:
    """``calibrate_condensation_c``'s readout against its definitions (compare.Calibration): ``cal`` without,
    ``mc_cal`` with the Monte Carlo (seed ``base``); max relative error, inf when a field is missing, a NaN is
    misplaced or a count or seed differs."""
    def rel(got, want) -> float:
        if np.isnan(want) or np.isnan(got):
            return 0.0 if np.isnan(want) and np.isnan(got) else math.inf
        return abs(got - want) / max(abs(want), 1e-300)

    err = 0.0
    for res, mc_on in ((cal, False), (mc_cal, True)):
        try:
            rows = res.rows
            gf = np.array([(ref.log_count(r["T"]) / 2.0) ** 0.25 for r in rows])
            c_i = np.array([r["exact_gamma_c"] for r in rows]) / gf
            nan = np.full(len(rows), np.nan)
            c_mc = np.array([r["mc_gamma_c"] for r in rows]) / gf if mc_on else nan
            half = np.array([(r["mc_ci_high"] - r["mc_ci_low"]) / 2.0 for r in rows]) / gf if mc_on else nan
            ok = np.isfinite(c_i)
            mc_c = float(np.mean(c_mc[ok])) if mc_on else math.nan
            hw = float(np.sqrt(np.sum(half[ok] ** 2)) / ok.sum()) if mc_on else math.nan
            pairs = [pair for i, r in enumerate(rows)
                     for pair in ((r["g_freeze"], gf[i]), (r["c_exact"], c_i[i]), (r["c_mc"], c_mc[i]))]
            pairs += [(res.c, float(np.mean(c_i[ok]))), (res.spread, float(np.std(c_i[ok], ddof=1))),
                      (res.mc_c, mc_c), (res.ci_low, mc_c - hw), (res.ci_high, mc_c + hw)]
            start = base if mc_on else 0
            counts = (res.n == int(ok.sum()) and type(res.n) is int and res.samples == (8000 if mc_on else 0)
                      and res.seed == start and [r["seed"] for r in rows] == [(start + i) % 2 ** 64 for i in range(len(rows))])
            err = max([err] + [rel(float(a), float(b)) for a, b in pairs]) if counts else math.inf
        except (KeyError, TypeError):
            err = math.inf
    return float(err)


CONDENSATION_FALSE_FAILURE = 1e-4


@certificate("P18.condensation", title="Condensation constant c: exact quadrature, confirmed by simulation",
             paper="PSA §6.7, §7.10",
             claim="The library's condensation constant is the exact entropy-peak calibration on nine condensed "
                   "points (each peak verified by an independent integral), and the Monte Carlo entropy peak agrees "
                   "with the quadrature (reported beside the paper's 0.741 +/- 0.015).", method="monte-carlo",
             false_failure=CONDENSATION_FALSE_FAILURE)
def condensation_constant(seed=None) -> Outcome:
    """c = mean of g_peak / (L/2)^(1/4) over CONDENSED_GRID (the library's quadrature peaks of ``-dE[H]/d(g^2)``).

    Deterministic: at every point the reference fall (``certificates/reference/row_entropy``, its own
    integral) is lower at ``g^2 (1 -/+ 2e-3)`` than at the library's peak; the library constant equals c
    computed with the reference log-count L = ln(T - 1) to its three digits (5e-4), and c equals the
    library calibration's (1e-12); every field of the calibration (without and with its Monte Carlo) equals its
    definition; the older ``CALIBRATION_GRID`` is its documented nine condensed points. Statistical: at the three
    T = 64 points the calibration's Monte Carlo peak (8000 samples, seeds base + i) is within ``t`` batch-means standard errors of the exact peak, Student t with 19
    degrees of freedom, Bonferroni over the 3 points, the whole share.
    """
    from theorylab.certificates.psa.observables import verified_peak

    c = transition.CONDENSATION_C

    alpha = CONDENSATION_FALSE_FAILURE
    base = _base(seed, 1810)
    cal = calibrate_condensation_c(CONDENSED_GRID, monte_carlo=False)
    verified = [verified_peak(r["exact_gamma_c"], r["dk"], r["T"])[0] for r in cal.rows]
    c_ref = float(np.mean([r["exact_gamma_c"] / (ref.log_count(r["T"]) / 2.0) ** 0.25 for r in cal.rows]))
    points = [(r["dk"], r["T"], r["exact_gamma_c"]) for r in cal.rows if r["T"] == 64]
    mc_cal = calibrate_condensation_c([(dk, T) for dk, T, _ in points], samples=8000, seed=base)  # MC, seeds base + i
    exact = np.array([g for *_, g in points])
    sim = np.array([r["mc_gamma_c"] for r in mc_cal.rows])
    se = np.array([(r["mc_ci_high"] - r["mc_ci_low"]) / 2.0 for r in mc_cal.rows]) / float(mcs.t_threshold(0.05, 19))
    cal_err = _calibration_error(cal, mc_cal, base)
    t_max = mcs.t_threshold(alpha, 19, tests=len(points))
    t_stat = np.abs(sim - exact) / se
    # the row-statistics quadrature at a very long context (m = 10^7 distractors: its t nodes must grow like ln m)
    from theorylab.psa.row_stats import exact_row_stats

    long_T, long_g = 10**7, (0.5, 1.0)
    long_err = float(np.max(np.abs(exact_row_stats("t4-only", 16.0, long_T, list(long_g)).mass
                                   / np.array([ref.mass("t4-only", x, 16.0, long_T) for x in long_g]) - 1)))
    old_grid_ok = _calibration_grid_ok()
    passed = bool(all(verified) and abs(c - c_ref) <= 5e-4 and abs(c_ref - cal.c) <= 1e-12 and cal_err <= 1e-14
                  and old_grid_ok
                  and np.all(np.isfinite(t_stat)) and np.all(t_stat <= t_max) and long_err <= 1e-9)
    return Outcome(passed, (
        computed("peaks verified by the reference fall", f"{sum(verified)}/{len(verified)}",
                 formula="D_ref(x) > D_ref(x (1 -/+ 2e-3)) at x = g_peak^2"),
        computed("exact_row_stats mass at T = 10^7 (t4-only, dk 16, g = 0.5, 1) vs the reference mass, max rel",
                 long_err, tolerance=1e-9, formula="<= 1e-9"),
        computed("c (quadrature peaks, reference freezing coupling)", c_ref, tolerance=1e-6),
        computed("spread of c across points", cal.spread, tolerance=1e-6),
        computed("Calibration fields from their definitions (exact, and with Monte Carlo at the T = 64 points): per "
                 "row g_freeze = (L/2)^(1/4) (reference L), c_exact, c_mc = gamma_c / g_freeze, seed base + i; "
                 "spread = sample sd (n - 1) of the c_i, n, mc_c = mean c_mc, CI mc_c -/+ sqrt(sum h_i^2) / n "
                 "(h_i the rows' CI half-widths / g_freeze; NaN without Monte Carlo), samples, seed: max rel",
                 cal_err, formula="<= 1e-14 (inf: a field missing or of the wrong kind)"),
        computed("library CONDENSATION_C", c, formula="|c - c_quadrature| <= 5e-4 (three digits)"),
        computed("CALIBRATION_GRID (the older half-plateau grid, kept for comparison) is its documented nine points "
                 "dk = 16 x T in {12, 16, 24, 32, 48, 64}, dk = 32 x T in {128, 256, 512}, each condensed "
                 "(dk < 8 ln(T - 1)) with reference plateau Phi(sqrt(dk)/2)^(T-2) >= 0.20", old_grid_ok),
        computed("max |MC - exact| / SE (T = 64)", float(np.max(t_stat)), tolerance=0.5,
                 formula=f"<= {t_max:.3f} (Student t_19, Bonferroni over {len(points)}, share {alpha:g})"),
        bound("paper", transition.CONDENSATION_C_PAPER, formula="0.741 +/- 0.015 (observable not in the summary)")),
        arrays={"c_exact": np.array([r["c_exact"] for r in cal.rows]), "mc_gamma_c": sim, "exact_gamma_c": exact},
        seeds={f"point{i}": base + i for i in range(len(points))})



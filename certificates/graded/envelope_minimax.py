"""GLLM minimax envelope: G8.numeric (Lem. 3-4, Thm. 4.1), the envelope, its set S, m_sat, the window W, the cap
ratio and Thm. 4.1's factors, exactly.

Exact rationals (``fractions``) enumerate the bias-variance choice of levels; mpmath and the reference routes of
``theorylab.certificates.reference.graded`` give the extremal grades and the clipped optimum. Wrong library functions
are planted in the library source (``tests/planted/graded.py``).
"""
from __future__ import annotations

import numpy as np

from theorylab.certificates.graded._shared import TABLE3_PRINTED
from theorylab.certificates.reference import graded as ref
from theorylab.certify import Outcome, certificate, computed
from theorylab.errors import ParameterError
from theorylab.graded import envelope, grades, optimal
from theorylab.graded import risk_sim as graded_risk


G8_MODELS = ((0.6, 0.3, 4, 32, 1.0, None), (0.7, 0.3, 4, 64, 0.7, None), (0.8, 0.4, 3, 24, 1.3, (1.3, 1.7, 2.4)))
"""(nu, mu, L, d, sigma_xi, level grades; None = the clipped optimum g*_C, gauge g_0 = 1)."""
G8_RTOL = 1e-14
"""Float library values against exact rationals: a sum of <= 6 positive terms, a few roundings each."""
G8_GRADE_CONDITION = {(1.0, 2.0, 4.0): True, (1.0, 1.0, 1.0): True, (0.5, 1.0, 2.0): False,
                      (1.0, 0.5, 1.0): False, (1.0, 1.5, 1.25): False, (1.0, 2.0, 4.5): False,
                      (1 - 2 ** -40, 1 - 2 ** -40, 1 - 2 ** -40): True, (1 - 2 ** -39, 1.0, 1.0): False,
                      (1.0, 1 - 2 ** -41, 1 - 2 ** -40): True, (1.0, 1 - 2 ** -39, 1 - 2 ** -39): False,
                      (1.0, 2 + 2 ** -41, 4 + 2 ** -40): True, (1.0, 1.0, 2 + 2 ** -39): False,
                      (1 - 1e-12, 1 - 1e-12, 1 - 1e-12): True, (1.0, 1 - 1e-12, 2 - 2e-12): True,
                      (1.0, 1.0, 2 + 1e-12): True}
"""Level grades at (nu, mu) = (1/2, 1/8) and whether Lem. 4's condition holds: g_0 = 1 and ratios 1 and 2 attain
the bounds; g_0 = 1/2, a ratio 1/2 or 5/6 below 1 and a ratio 2.25 above 2 cross them.  The rounding slack 1e-12 of
each bound is attained and crossed: g_0 and ratios 2^-40 (9.1e-13) or 2^-41 below 1 and a ratio 2^-41 above 2
pass; 2^-39 (1.8e-12) past any of the three bounds fails; each bound moved by exactly the float slack (g_0 = 1 - 1e-12,
a ratio 1 - 1e-12, a ratio 2 + 1e-12) still passes: the slack is inclusive."""


def _best_subsets(caps, dims, var):
    """Exact (Fraction) bias-variance choice of the levels to estimate: the minimum over subsets S of
    sum_{l not in S} cap_l + sum_{l in S} d_l var (var = sigma_xi^2/m), and the set of minimising S."""
    from itertools import product

    costs = {S: sum(d * var if s else c for s, c, d in zip(S, caps, dims))
             for S in product((0, 1), repeat=len(caps))}
    best = min(costs.values())
    return best, {S for S, v in costs.items() if v == best}


def _enumerated_window(msat: float) -> list[int]:
    """The sample sizes m = 1, 2, ... with 4 <= m and 2 m <= m_sat, by enumeration in exact arithmetic."""
    from fractions import Fraction

    return [m for m in range(1, int(msat) + 2) if m >= 4 and 2 * m <= Fraction(msat)]


G8_FACTOR_LEVELS = (2, 4, 8, 32)
"""Numbers of levels L at which the Thm. 4.1 factors are held against the extremal grades."""


def _theorem41_extremes(theorem41_factors, cap_ratio) -> tuple[bool, list, dict]:
    """Thm. 4.1's deterministic factors against the extremes of cap_ratio/Lambda = g_0^2 / sum_l s_l g_l^2 over
    Lem. 4's grade condition (reference: theorylab.certificates.reference.graded). The minimum, at the steepest grades
    g_l = (nu mu)^(-l/4), is (1-r) kappa_lo with kappa_lo = (1-mu^L)/((1-mu)(1-r^L)); the maximum, at constant
    grades, is 1 = (1/(1-mu)) (1-mu). So the library's factors must equal min/kappa_lo and max/(1-mu): an
    inflated factor breaks the equality. 200 random admissible grade vectors per case stay in [min, max]."""
    rng = np.random.default_rng(41)
    ok, rows, arrays = True, [], {}
    for nu, mu in optimal.TABLE3_PARAMETERS:
        low, high = theorem41_factors(nu, mu)
        for L in G8_FACTOR_LEVELS:
            a, s = ref.geometric_profiles(nu, mu, L)
            ext = ref.extremal_grades(nu, mu, L)
            lo, hi = (ref.cap_ratio_over_Lambda(ext[k], a, s) for k in ("steepest", "constant"))
            sharp_lo, sharp_hi = ref.sharp_factors(nu, mu, L)
            r = np.sqrt(mu / nu)
            kappa_lo, kappa_hi = (1 - mu ** L) / ((1 - mu) * (1 - r ** L)), 1 / (1 - mu)
            steps = rng.uniform(0, 1, (200, L - 1)) * -0.25 * np.log(nu * mu)        # admissible log-ratios
            g = np.exp(np.concatenate([np.zeros((200, 1)), np.cumsum(steps, axis=1)], axis=1))
            inside = np.array([ref.cap_ratio_over_Lambda(x, a, s) for x in g])
            lib_ratio = cap_ratio(ext["steepest"], a) / float(grades.Lambda(ext["steepest"], a, s))
            case = (abs(lo / sharp_lo - 1) <= 1e-12 and abs(hi - sharp_hi) <= 1e-15
                    and abs(lo / (low * kappa_lo) - 1) <= 1e-12 and abs(high / (hi * kappa_hi) - 1) <= 1e-12
                    and inside.min() >= lo * (1 - 1e-12) and inside.max() <= hi * (1 + 1e-12)
                    and abs(lib_ratio / lo - 1) <= 1e-12 and envelope.grade_condition(ext["steepest"], nu, mu))
            ok &= bool(case)
            rows.append([nu, mu, L] + [float(x) for x in (lo / low, kappa_lo, high / hi, kappa_hi)])
            arrays[f"({nu},{mu}) L={L}"] = inside
    return ok, rows, arrays


def _exact_risk_error() -> float:
    """graded_risk.exact_risk against the least-squares risk under a Gaussian design (Lem. 3): on the levels S the
    estimator's excess risk is (sigma^2 + b) D_S / (m - D_S - 1) (inverse Wishart mean), b the bias outside S; in
    Fractions, on unequal levels (1, 2) of a LinearClass so every D_S in 0..3 occurs, m = 1..8 (both sides of
    m = D_S + 1)."""
    from fractions import Fraction
    from itertools import product

    cls = envelope.LinearClass("small", np.array([1, 2]), np.array([0.5, 0.25]), np.array([1.0, 1.0]), 2.0)
    w = np.array([0.75, -0.5, 1.25])
    sig2 = [Fraction(0.5), Fraction(0.25), Fraction(0.25)]
    worst = 0.0
    for S in product((False, True), repeat=2):
        mask = [S[0], S[1], S[1]]
        D = sum(mask)
        b = sum(s * Fraction(float(x)) ** 2 for s, x, k in zip(sig2, w, mask) if not k)
        for m in range(1, 9):
            got = graded_risk.exact_risk(cls, w, 0.75, m, np.array(S))
            if D and m <= D + 1:
                worst = max(worst, 0.0 if got == float("inf") else float("inf"))
                continue
            want = b + (Fraction(9, 16) + b) * Fraction(D, m - D - 1) if D else b
            if not np.isfinite(got):
                return float("inf")
            worst = max(worst, abs(Fraction(got) - want) / want if want else abs(got))
    return float(worst)


G8_FAR_GRADES = ((2.0 ** -600, 1.0, 3.0), (1.0, 2.0 ** -30, 2.0 ** 500), (2.0 ** 1000, 2.0 ** 1001, 3.0 * 2.0 ** 999),
                 (3e-300, 5e-300, 1e-299))
"""Level grades whose squares leave the float range unless cap_ratio rescales by g_0 first."""


def _profiles_support_and_far_ratios(cap_ratio) -> tuple[bool, float]:
    """Cor. 3's profiles need full support: with nu (or mu) = 1/2 the smallest level mass 2^-(L-1) / Z (Z -> 2) is
    the smallest subnormal 2^-1074 at L = 1074 and rounds to 0 at L = 1075 (refused); the (0.6, 0.3, 4) profiles
    against the reference. Then the cap ratio
    g_0^2 sum a g^-2 at G8_FAR_GRADES against mpmath."""
    import mpmath as mp

    ok = True
    for nu, mu in ((0.5, 0.9), (0.9, 0.5)):
        try:
            a, s = grades.geometric_profiles(nu, mu, 1074)
            ok &= bool(min(a.min(), s.min()) > 0)
        except ParameterError:
            ok = False
        try:
            grades.geometric_profiles(nu, mu, 1075)
            ok = False
        except ParameterError:
            pass
    got, want = grades.geometric_profiles(0.6, 0.3, 4), ref.geometric_profiles(0.6, 0.3, 4)
    ok &= all(float(np.max(np.abs(x / y - 1))) <= 1e-15 for x, y in zip(got, want))
    a = np.array([0.5, 0.3, 0.2])
    worst = 0.0
    for g in G8_FAR_GRADES:
        with mp.workdps(30):
            g_mp = [mp.mpf(x) for x in g]
            exact = g_mp[0] ** 2 * mp.fsum(mp.mpf(float(x)) / y ** 2 for x, y in zip(a, g_mp))
        try:
            value = cap_ratio(np.array(g), a)
        except ParameterError:
            return ok, float("inf")
        worst = max(worst, abs(value / float(exact) - 1)) if np.isfinite(value) and value > 0 else float("inf")
    return ok, worst


@certificate("G8.numeric", title="Envelope, S, m_sat, window W, cap ratio exact; Thm 4.1 factors vs extremal grades",
             paper="GLLM §4.3, Lem. 3-4, Thm. 4.1", method="numeric",
             claim="On three stratified designs the library's envelope sum_l min(cap_l, d_l eps^2) equals, to 1e-14, "
                   "the exact best bias-variance choice of levels to estimate (which is its set S); m_sat is the "
                   "sample size where the uniform class starts estimating level 0 (pinned to 1e-12); W is the "
                   "enumerated {m : 4 <= m <= m_sat/2}, on which the uniform envelope is saturated; the cap ratio "
                   "g_0^2 sum a_k g_k^-2 is the ratio of the two classes' level-0 caps; Thm. 4.1's factors (1-r) and "
                   "1/(1-mu) bound cap ratio/Lambda over the grade condition and sit within the stated factors "
                   "(1-mu^L)/((1-mu)(1-r^L)) and 1/(1-mu) of its attained minimum and maximum; at exact ties "
                   "d_l eps^2 = cap_l the level is in S, and Lem. 3(ii)'s regime m >= 2 sum_S d_l + 4 is exact at "
                   "its edge.")
def g8_numeric() -> Outcome:
    envelope_fn, worth_estimating, m_sat, window, cap_ratio = (envelope.envelope, envelope.worth_estimating,
                                                                envelope.m_sat, envelope.window, envelope.cap_ratio)
    theorem41_factors, upper_regime, grade_condition = (envelope.theorem41_factors, envelope.upper_regime,
                                                        envelope.grade_condition)
    d = _envelope_on_designs(envelope_fn, worth_estimating, m_sat, window, cap_ratio)
    env_err, s_ok, msat_ok, w_ok, sat_ok, ratio_err, n_m, tgt_err = (d[k] for k in (
        "env_err", "s_ok", "msat_ok", "w_ok", "sat_ok", "ratio_err", "n_m", "tgt_err"))
    edge = {x: window(x) for x in (0.5, 7.999, 8.0, 9.999, 10.0, 10.5)}          # empty / one-point / boundaries
    edge_ok = all(w == ((e[0], e[-1]) if (e := _enumerated_window(x)) else None) for x, w in edge.items())
    factors_ok, factor_rows, arrays = _theorem41_extremes(theorem41_factors, cap_ratio)
    ties_ok, ties, regime_ok = _ties_and_regime(worth_estimating, upper_regime)
    table3_ok = tuple(optimal.TABLE3_PARAMETERS) == tuple((float(n), float(m)) for n, m in TABLE3_PRINTED)
    # Lem. 4's grade condition at (nu, mu) = (1/2, 1/8): (nu mu)^(-1/4) = 2 exactly; each bound attained and crossed
    cond = {g: bool(grade_condition(np.array(g), 0.5, 0.125)) for g in G8_GRADE_CONDITION}
    cond_ok = all(cond[g] == want for g, want in G8_GRADE_CONDITION.items())
    risk_err = _exact_risk_error()
    support_ok, far_ratio_err = _profiles_support_and_far_ratios(cap_ratio)
    passed = bool(env_err <= G8_RTOL and s_ok and msat_ok and w_ok and edge_ok and sat_ok and ratio_err <= G8_RTOL
                  and risk_err <= 1e-14 and support_ok and far_ratio_err <= 1e-14
                  and factors_ok and ties_ok and regime_ok and table3_ok and cond_ok and tgt_err <= 1e-15)
    return Outcome(passed, (
        computed(f"max |envelope - exact best subset| / exact, {n_m} sample sizes x 2 classes", env_err,
                 tolerance=G8_RTOL),
        computed("worth_estimating S is an exact minimising subset", bool(s_ok)),
        computed("level 0 estimated exactly from m_sat on (m_sat (1 -+ 1e-12))", bool(msat_ok)),
        computed("window == enumerated {4 <= m <= m_sat/2}; uniform class saturated on W", [bool(w_ok), bool(sat_ok)]),
        computed("window at m_sat = 0.5, 7.999, 8, 9.999, 10, 10.5", [str(v) for v in edge.values()]),
        computed("max |cap ratio - cap_0^gr/cap_0^unif| / ratio", ratio_err, tolerance=G8_RTOL),
        computed("Thm. 4.1 factors: [nu, mu, L, attained min / (1-r), kappa_lo, (1/(1-mu)) / attained max, kappa_hi]",
                 factor_rows, tolerance=1e-12),
        computed("attained extremes equal library factors times the stated factors; random admissible grades inside",
                 bool(factors_ok)),
        computed("S at exact ties d_l eps^2 = cap_l (caps 1/4, 1/2, 1; d_l 1, 2, 4; m = 2, 4, 8) == exact "
                 "{l : d_l eps^2 <= cap_l}", [ties_ok, {m: v for m, v in ties.items()}]),
        computed("Lem. 3(ii) regime m >= 2 sum_S d_l + 4 (caps 1/8, 8; d_l 2, 3) == exact for m = 1..40 (first True "
                 "at the edge m = 10; S grows at the tie m = 16)", bool(regime_ok)),
        computed("optimal.TABLE3_PARAMETERS are the (nu, mu) printed in Table 3", bool(table3_ok)),
        computed("max |target() - sqrt(a_l / d_l)| (reference profiles) and |default g - clipped optimum at C = 2 "
                 "(reference active sets)| over the designs", tgt_err, tolerance=1e-15),
        computed("geometric profiles (1/2, 9/10), (9/10, 1/2): L = 1074 accepted with every mass > 0, L = 1075 refused "
                 "(the smallest mass 2^-1075 rounds to 0); the (0.6, 0.3, 4) profiles vs the reference",
                 bool(support_ok)),
        computed("cap ratio at grades spanning 2^-1000 .. 2^1000 vs mpmath g_0^2 sum a g^-2: max rel", far_ratio_err,
                 tolerance=1e-14),
        computed("exact_risk vs b + (sigma^2 + b) D_S / (m - D_S - 1) (b = sum_(j not in S) sigma_j^2 w_j^2; inf for "
                 "m <= D_S + 1; b for S empty), every S of a d = 3 design with D_S = 0..3, m = 1..8: max rel", risk_err,
                 tolerance=1e-14),
        computed("grade condition 1 <= g_0 <= .. <= g_(L-1), g_(l+1)/g_l <= (nu mu)^(-1/4) = 2 at (1/2, 1/8): "
                 "library == exact on bounds attained and crossed", [bool(cond_ok), {str(g): v for g, v in cond.items()}])),
        arrays=arrays,
        note="designs (nu, mu, L, d, sigma_xi, g): " + "; ".join(str(m) for m in G8_MODELS))


def _envelope_on_designs(envelope_fn, worth_estimating, m_sat, window, cap_ratio) -> dict:
    """On each of G8_MODELS: the envelope and its set S against the exact best subset (Fractions) on a grid
    through every threshold d_l sigma^2 / cap_l; m_sat (level 0 of the uniform class estimated exactly from m_sat
    on); W against the enumerated window, the uniform class saturated on it; the cap ratio against the ratio of the
    classes' level-0 caps; the target and the default grades against the reference. Errors and flags by name."""
    from fractions import Fraction

    env_err, s_ok, msat_ok, w_ok, sat_ok, ratio_err, n_m, tgt_err = 0.0, True, True, True, True, 0.0, 0, 0.0
    for nu, mu, L, d, sigma_xi, g in G8_MODELS:
        model = envelope.stratified_model(nu, mu, L, d, sigma_xi, g=g)
        if g is None:                      # the default grades: the clipped optimum at the default clip C = 2
            want_g = ref.clipped_optimum(*ref.geometric_profiles(nu, mu, L), 2.0)["g"]
            tgt_err = max(tgt_err, float(np.max(np.abs(model.g - want_g))))
        # the unit-norm target w*_j = sqrt(a_l / d_l) on level l (reference profiles of Cor. 3, equal level sizes)
        w_ref = np.repeat(np.sqrt(ref.geometric_profiles(nu, mu, L)[0] / (d // L)), d // L)
        w_lib = model.target()
        tgt_err = max(tgt_err, float(np.max(np.abs(w_lib - w_ref))) if w_lib.shape == w_ref.shape else float("inf"))
        sig2 = Fraction(sigma_xi) ** 2
        msat = m_sat(model.dims[0], sigma_xi, model.uniform.caps[0])
        exact_caps = {cls.name: [Fraction(float(c)) for c in cls.caps] for cls in (model.uniform, model.graded)}
        dims = [int(x) for x in model.dims]
        thresholds = [int(dl * sig2 / c) + k for cs in exact_caps.values() for dl, c in zip(dims, cs) for k in (0, 1)]
        grid = sorted({int(round(x)) for x in np.geomspace(1, 8 * msat, 60)} | set(thresholds) - {0})
        n_m += len(grid)
        for cls in (model.uniform, model.graded):
            lib = envelope_fn(cls.caps, cls.dims, sigma_xi, np.array(grid, float))
            mask = worth_estimating(cls.caps, cls.dims, sigma_xi, np.array(grid, float))
            for m, value, S in zip(grid, lib, mask):
                best, argmins = _best_subsets(exact_caps[cls.name], dims, sig2 / m)
                env_err = float(np.maximum(env_err, float(abs(Fraction(float(value)) - best) / best)))
                s_ok &= tuple(int(x) for x in S) in argmins
        # m_sat: level 0 of the uniform class is estimated exactly from m_sat on (checked just below and above)
        level0 = lambda m: all(S[0] for S in _best_subsets(exact_caps["uniform"], dims, sig2 / m)[1])
        below, above = (Fraction(msat) * (1 + Fraction(k, 10 ** 12)) for k in (-1, 1))
        msat_ok &= not level0(below) and level0(above)
        # W: enumerate sample sizes; on W the uniform class estimates nothing (its envelope is the sum of caps)
        members = _enumerated_window(msat)
        w_ok &= window(msat) == ((members[0], members[-1]) if members else None)
        sat_ok &= all(_best_subsets(exact_caps["uniform"], dims, sig2 / m)[1] == {(0,) * L} for m in members)
        ratio = model.graded.caps[0] / model.uniform.caps[0]
        ratio_err = float(np.maximum(ratio_err, abs(cap_ratio(model.g, model.a) - ratio) / ratio))
    return {"env_err": env_err, "s_ok": s_ok, "msat_ok": msat_ok, "w_ok": w_ok, "sat_ok": sat_ok,
            "ratio_err": ratio_err, "n_m": n_m, "tgt_err": tgt_err}


def _ties_and_regime(worth_estimating, upper_regime) -> tuple[bool, dict, bool]:
    """S at exact ties d_l eps^2 = cap_l (exact in floats: dyadic caps, integer d_l, sigma_xi = 1, m a power of
    two) includes the level (Lem. 3: S = {l : d_l eps^2 <= cap_l}); Lem. 3(ii)'s regime m >= 2 sum_S d_l + 4
    around its edge, exact. Returns (ties_ok, S per m, regime_ok)."""
    from fractions import Fraction

    tie_caps, tie_dims = [0.25, 0.5, 1.0], [1, 2, 4]
    ties = {m: [bool(x) for x in worth_estimating(tie_caps, tie_dims, 1.0, float(m))] for m in (2, 4, 8)}
    ties_ok = all(S == [Fraction(dl, m) <= Fraction(c) for c, dl in zip(tie_caps, tie_dims)] for m, S in ties.items())
    reg_caps, reg_dims, reg_m = [0.125, 8.0], [2, 3], np.arange(1, 41)
    regime = [bool(x) for x in upper_regime(reg_caps, reg_dims, 1.0, reg_m.astype(float))]
    regime_exact = [m >= 2 * sum(dl for c, dl in zip(reg_caps, reg_dims) if Fraction(dl, int(m)) <= Fraction(c)) + 4
                    for m in reg_m]
    regime_ok = regime == regime_exact and int(reg_m[regime_exact.index(True)]) == 10   # edge m = 2 * 3 + 4
    return ties_ok, ties, regime_ok

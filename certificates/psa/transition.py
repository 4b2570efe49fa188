"""Interval certificates of the PSA critical couplings (PSA §6.7-6.8, §10): P14, P15, P16.

Each check holds the LIBRARY's floats (``theorylab.psa.transition``) against a rigorous
enclosure computed independently by ``theorylab.certify.interval`` from the crossing
equation ``Delta = ln(T - 1) + sigma^2/2`` of the score model, and proves that the
paper's quoted digits are what the enclosure rounds to. Quoted numbers appear here
only as the claims under test (labelled "paper quotes").
"""
from __future__ import annotations

import numpy as np
from mpmath import fmul

from theorylab.certificates.reference import score_model as sref
from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.certify import interval as I
from theorylab.psa import transition
from theorylab.psa import crossing as crossings
from theorylab.psa.scoremodel import ScoreModel, log_count, score_model

SLACK = 1e-13  # relative: a library float may differ from the enclosure by this much (a few ulp of 1)


def _check_root(label, enc, lib_value, quote, evidence) -> bool:
    """Library float inside the enclosure (up to SLACK) and, if quoted, the enclosure rounds to the quote."""
    if enc is None:
        evidence.append(computed(f"{label}: root exists (interval)", False))
        return False
    lib = float(np.asarray(lib_value))
    inside = bool(np.isfinite(lib)) and enc.contains(lib, SLACK * max(1.0, abs(lib)))
    rounds = enc.rounds_to(quote) if quote else True
    name = f"{label}: enclosure" + (f" (paper quotes {quote})" if quote else "")
    evidence.append(bound(name, enc.as_floats(), "certified simple root of Delta - L - sigma^2/2, mpmath iv"))
    evidence.append(computed(f"{label}: library value", lib, tolerance=SLACK * max(1.0, abs(lib))))
    return inside and rounds


def _threshold_check(label, variant, model, T, lib_threshold, quote, law, evidence, rel=1e-6) -> bool:
    """No root just below the library's threshold and a root just above (interval), NaN/finite in the library."""
    lo, hi = lib_threshold * (1 - rel), lib_threshold * (1 + rel)
    below, above = I.has_positive_root(model, lo, T), I.has_positive_root(model, hi, T)
    lib_below, lib_above = float(np.asarray(law(variant, lo, T))), float(np.asarray(law(variant, hi, T)))
    ok = (not below) and above and np.isnan(lib_below) and np.isfinite(lib_above)
    if quote:
        ok &= I.Enclosure(I.mpf(lo), I.mpf(hi)).rounds_to(quote)
    evidence.append(bound(f"{label}: threshold in [dk(1-{rel}), dk(1+{rel})]" + (f" (paper quotes {quote})" if quote else ""),
                          [lo, hi], "no root at the lower end, a root at the upper end (interval)"))
    evidence.append(computed(f"{label}: library threshold", float(lib_threshold), tolerance=1e-12 * lib_threshold))
    return bool(ok)


def _converging(scaled: list[float], L: float) -> bool:
    """Scaled errors bounded by 2L with shrinking successive steps (they settle to a constant)."""
    steps = np.abs(np.diff(scaled))
    return bool(all(v < 2 * L for v in scaled) and np.all(steps[1:] < steps[:-1]))


@certificate("P14", title="T4-only two-branch law: band [0.7867, 2.245], 1.030, 0.602, d*_k = 8L = 49.9, asymptote",
             paper="PSA §6.7",
             claim="The T4-only annealed crossing has band [0.7867, 2.245] at (128, 512), gamma_c = 1.030 at (64, 512) "
                   "and 0.602 at (64, 15), a root iff dk >= d*_k = 8L (49.9 at T = 512), and gamma_c ~ (L^2/dk)^(1/4); "
                   "below d*_k the two-branch law is c (L/2)^(1/4), c times the REM freezing coupling (sigma^2 = 2L).",
             method="interval")
def t4_two_branch() -> Outcome:
    law, band, crossover, asymptote = (transition.annealed_gamma_c, transition.t4_band, transition.crossover_dk,
                                       transition.t4_asymptote)
    two_branch, freezing, model = transition.gamma_c, transition.freezing_coupling, score_model("t4-only")
    ev: list = []
    roots = I.positive_roots(I.Crossing.of(model, 128, 512))
    lower, upper = band(128, 512)
    ok = len(roots) == 2
    ev.append(computed("number of positive roots at (128, 512)", len(roots)))
    if ok:
        ok &= _check_root("band lower (128, 512)", roots[0], lower, "0.7867", ev)
        ok &= _check_root("band upper (128, 512)", roots[1], upper, "2.245", ev)
        ok &= _check_root("annealed gamma_c (128, 512)", roots[0], law("t4-only", 128, 512), "", ev)
    for dk, T, quote in ((64, 512, "1.030"), (64, 15, "0.602")):
        ok &= _check_root(f"gamma_c ({dk}, {T})", I.smallest_positive_root(model, dk, T),
                          law("t4-only", dk, T), quote, ev)
    ok &= _threshold_check("d*_k at T = 512", "t4-only", model, 512, float(crossover(512)), "49.9", law, ev)
    # two-branch law: mean-field root above d*_k; below it the condensed branch sits at REM freezing,
    # sigma^2(g_f) = 2L, enclosed independently as the positive root of var(g) - 2L
    law64, law32 = two_branch("t4-only", 64, 512), two_branch("t4-only", 32, 512)
    branches = law64.branch == "mean-field" and law32.branch == "condensed"
    ok &= branches and _check_root("two-branch gamma_c (64, 512)", I.smallest_positive_root(model, 64, 512),
                                   law64.gamma_c, "", ev)
    L = I.log_count(512)
    with I._prec():
        var_minus_2L = I.Crossing((model.var_poly[0] - 2 * L,) + tuple(I.iv.mpf(v) for v in model.var_poly[1:]))
    frz = I.leftmost_root(var_minus_2L, 0, var_minus_2L.root_bound())
    ok &= _check_root("freezing coupling (L/2)^(1/4) at T = 512", frz, freezing(512), "", ev)
    # condensed branch below d*_k = c times that enclosed freezing coupling, for theorylab's c and the paper's
    for c in (transition.CONDENSATION_C, transition.CONDENSATION_C_PAPER):
        if frz is None:
            break
        cond = I.Enclosure(fmul(frz.lo, c, prec=I.PREC, rounding="d"), fmul(frz.hi, c, prec=I.PREC, rounding="u"))
        ok &= _check_root(f"condensed branch at (32, 512), c = {c}: c x freezing enclosure", cond,
                          two_branch("t4-only", 32, 512, c=c).gamma_c, "", ev)
    ev.append(computed("branches at dk = 64 and 32 (T = 512)", f"{law64.branch}, {law32.branch}"))
    # asymptote: dk * |gamma_c / (L^2/dk)^(1/4) - 1| stays bounded (the ratio tends to 1 like 1/dk)
    scaled = []
    for dk in (1e4, 1e6, 1e8):
        enc = I.smallest_positive_root(model, dk, 512)
        scaled.append(float(dk * abs((enc.hi + enc.lo) / 2 / float(asymptote(dk, 512)) - 1)))
    asym_ok = _converging(scaled, float(log_count(512)))
    ev.append(bound("dk |gamma_c / (L^2/dk)^(1/4) - 1| at dk = 1e4, 1e6, 1e8", scaled,
                    "bounded by 2L and converging (shrinking steps) => ratio -> 1 like 1/dk", tolerance=1e-6))
    return Outcome(bool(ok and asym_ok), tuple(ev))


@certificate("P15", title="T3-inclusive law: 0.4132, 0.569, first root at dk = 31.5, asymptote L/sqrt(dk); T3 vs T4",
             paper="PSA §10",
             claim="With T3 restored gamma_c = 0.4132 at (128, 512) and 0.569 at (64, 512), roots first appear at "
                   "dk = 31.5 (T = 512), gamma_c ~ L/sqrt(dk); T3's gap exceeds T4's exactly for g < 1; and the T4-only "
                   "gamma_c exceeds 1 exactly on 8L <= dk < (L+2)^2 for L >= 2, and never for L < 2.",
             method="interval")
def t3_inclusive() -> Outcome:
    law, asymptote, above_one = transition.annealed_gamma_c, transition.t3_asymptote, transition.t4_above_one_interval
    model, t4_model = score_model("t3-inclusive"), score_model("t4-only")
    ev: list = []
    ok = _t3_roots(model, law, ev)
    first_ok, hi = _t3_first_root(model, law, ev)
    ok &= first_ok
    ok &= _t3_newton_polish(model, hi, ev)
    L = float(log_count(512))
    ok &= _t3_asymptote(model, asymptote, L, ev)
    ok &= _near_real_roots(L, ev)
    ok &= _t3_exceeds_t4(model, t4_model, ev)
    ok &= _t4_above_one(t4_model, above_one, ev)
    return Outcome(bool(ok), tuple(ev))


def _t3_roots(model, law, ev: list) -> bool:
    """P15's quoted roots at (128, 512) and (64, 512): the law inside the enclosure, the companion-matrix stage,
    the crossing residual against the reference, and one broadcast call against two scalar ones."""
    ok = True
    for dk, quote in ((128, "0.4132"), (64, "0.569")):
        enc = I.smallest_positive_root(model, dk, 512)
        ok &= _check_root(f"gamma_c ({dk}, 512)", enc, law("t3-inclusive", dk, 512), quote, ev)
        # the eigenvalue stage alone (no Newton polish) is already within 1e-9 of the certified root
        raw = float(np.asarray(crossings.crossing_root(model, dk, 512, newton_steps=0)))
        ok &= enc is not None and bool(enc.contains(raw, 1e-9 * raw))
        ev.append(computed(f"gamma_c ({dk}, 512): companion-matrix root before Newton", raw, tolerance=1e-9 * raw))
        # the crossing residual and its scale at that root against the reference gap, variance and log-count
        res, scale = (float(np.asarray(v)) for v in crossings.crossing_residual(model, raw, dk, 512))
        gap, var, L_ref = sref.gap("t3-inclusive", raw, dk), sref.variance("t3-inclusive", raw), sref.log_count(512)
        scale_ref = gap + L_ref + var / 2
        res_err = max(abs(res - (gap - L_ref - var / 2)), abs(scale - scale_ref)) / scale_ref
        ok &= res_err <= 1e-14
        ev.append(computed(f"gamma_c ({dk}, 512): max |library (residual, scale) - reference "
                           "(Delta - L - sigma^2/2, Delta + L + sigma^2/2)| / scale", res_err, tolerance=1e-14))
    # broadcast: one call over both head widths returns each scalar root (rows of the companion stage)
    both = np.asarray(crossings.crossing_root(model, np.array([128.0, 64.0]), 512))
    singles = [float(np.asarray(crossings.crossing_root(model, v, 512))) for v in (128.0, 64.0)]
    # two computations (one batched call, two scalar calls: elementwise kernels over arrays of different length
    # may round a coefficient an ulp apart); Newton polishes each root to rounding, so they agree to 1e-13
    broadcast_ok = both.shape == (2,) and bool(np.allclose(both, singles, rtol=1e-13, atol=0))
    ok &= broadcast_ok
    ev.append(computed("crossing_root over dk = [128, 64] matches the two scalar calls (rel 1e-13)", broadcast_ok))
    return bool(ok)


def _t3_first_root(model, law, ev: list) -> tuple[bool, float]:
    """The first head width with a root at T = 512 (paper 31.5): bisection in interval arithmetic, the library NaN
    below and finite above; returns the verdict and the upper end of the bracket."""
    if I.has_positive_root(model, 8.0, 512) or not I.has_positive_root(model, 128.0, 512):
        lo = hi = float("nan")  # the first root is not in (8, 128): the claim fails
        first_ok = False
    else:
        lo, hi = I.threshold(model, 512, 8.0, 128.0, rel=1e-6)
        first = I.Enclosure(I.mpf(lo), I.mpf(hi))
        lib_lo, lib_hi = (float(np.asarray(law("t3-inclusive", v, 512))) for v in (lo, hi))
        first_ok = first.rounds_to("31.5") and np.isnan(lib_lo) and np.isfinite(lib_hi)
    ev.append(bound("first dk with a root at T = 512 (paper quotes 31.5)", [lo, hi],
                    "bisection in dk; no root at lo, root at hi (interval); library NaN at lo, finite at hi",
                    tolerance=1e-4))
    return bool(first_ok), hi


def _t3_newton_polish(model, hi: float, ev: list) -> bool:
    """The Newton polish attained where the companion eigenvalue is off, and one library step against f/f' at 40
    digits."""
    ok = True
    # the Newton polish attained: where the companion eigenvalue is off by > 2e-13 relative (a far-asymptotic head
    # width dk = 1e8; a near-double root just above the first-root threshold), the polished root lies in the
    # certified enclosure up to 2e-13 relative
    polish = {}
    for name, dk in (("dk = 1e8", 1e8), ("dk = first-root threshold (1 + 1e-7)", (hi if np.isfinite(hi) else 31.5) * (1 + 1e-7))):
        enc = I.smallest_positive_root(model, dk, 512)
        raw, lib = (float(np.asarray(crossings.crossing_root(model, dk, 512, newton_steps=k))) for k in (0, 4))
        mid = float((enc.lo + enc.hi) / 2) if enc is not None else float("nan")
        polish[name] = [abs(raw / mid - 1), abs(lib / mid - 1)]
        ok &= enc is not None and bool(enc.contains(lib, 2e-13 * lib))
    ev.append(computed("[raw eigenvalue, polished (4 Newton steps)] |root / enclosure midpoint - 1|; polished inside "
                       "the enclosure up to 2e-13 relative", polish, tolerance=2e-13))
    # one Newton step at dk = 1e8 (raw root off by 1.4e-12 relative) against f/f' at 40 digits from the reference
    # gap and variance (f = Delta - L - sigma^2/2, f' by mpmath.diff): the library's step, not only its end point
    import mpmath as mp

    g0, g1 = (float(np.asarray(crossings.crossing_root(model, 1e8, 512, newton_steps=k))) for k in (0, 1))
    with mp.workdps(40):
        def crossing(t):
            return sref.gap("t3-inclusive", t, mp.mpf(1e8)) - mp.log(511) - sref.variance("t3-inclusive", t) / 2
        step_ref = float(crossing(mp.mpf(g0)) / mp.diff(crossing, mp.mpf(g0)))
    step_err = abs((g0 - g1) / step_ref - 1)
    ok &= step_err <= 1e-3 and abs(step_ref / g0) >= 1e-12
    ev.append(computed("dk = 1e8: one Newton step g0 - g1 of the library vs f(g0)/f'(g0) at 40 digits (step ~1.4e-12 g0): "
                       "|ratio - 1|", step_err, tolerance=1e-3))
    return bool(ok)


def _t3_asymptote(model, asymptote, L: float, ev: list) -> bool:
    """sqrt(dk) |gamma_c / (L/sqrt(dk)) - 1| bounded and converging at dk = 1e4, 1e6, 1e8."""
    scaled = []
    for dk in (1e4, 1e6, 1e8):
        enc = I.smallest_positive_root(model, dk, 512)
        scaled.append(float(np.sqrt(dk) * abs((enc.hi + enc.lo) / 2 / float(asymptote(dk, 512)) - 1)))
    asym_ok = _converging(scaled, L)
    ev.append(bound("sqrt(dk) |gamma_c / (L/sqrt(dk)) - 1| at dk = 1e4, 1e6, 1e8", scaled,
                    "bounded by 2L and converging (shrinking steps) => ratio -> 1 like 1/sqrt(dk)", tolerance=1e-6))
    return bool(asym_ok)


def _near_real_roots(L: float, ev: list) -> bool:
    """``crossing_root``'s near-real test on probe polynomials +-((g - a)^2 + delta^2), and the smallest positive
    root of g^2 - g."""
    ok = True
    # the near-real test: a pair a +- i delta with delta <= 1e-6 max(1, a) is taken as the (tangent) real root a, a
    # wider one is no root (NaN); crossing polynomial (g - a)^2 + delta^2 built with dk = 1, sigma^2 = 0, before and
    # after the (default 4) Newton steps, which must not move a tangent root (delta = 0: f' = 0 there)
    # (and its negative, whose Newton trials have f < 0)
    pairs = ((0.5, 0.0, 1), (0.5, 0.0, -1), (0.5, 0.9e-6, 1), (0.5, 1.1e-6, 1), (4.0, 0.0, 1), (4.0, 3.6e-6, -1),
             (4.0, 4.4e-6, 1))
    near, near_ok = {}, []
    for a_, d_, s_ in pairs:
        pair = ScoreModel("t4-only", (L + s_ * (a_ * a_ + d_ * d_), -2 * s_ * a_, s_ * 1.0), (0.0,), "a +- i delta")
        for k in (0, 4):
            v = float(np.asarray(crossings.crossing_root(pair, 1.0, 512, newton_steps=k)))
            near[f"{'-' if s_ < 0 else ''}(g - {a_})^2 + {d_:g}^2, {k} Newton steps"] = v
            near_ok.append(abs(v / a_ - 1) <= 1e-12 if d_ < 1e-6 * max(1.0, a_) else bool(np.isnan(v)))
    ev.append(computed("crossing_root of +-((g - a)^2 + delta^2): a if delta <= 1e-6 max(1, a) (to 1e-12 relative), else "
                       "NaN", near, tolerance=1e-12))
    ok &= all(near_ok)
    at_zero = float(np.asarray(crossings.crossing_root(ScoreModel("t4-only", (L, -1.0, 1.0), (0.0,), "g (g - 1)"),
                                                        1.0, 512)))
    ev.append(computed("crossing_root of g^2 - g (roots 0 and 1): the smallest POSITIVE root, 1", at_zero))
    ok &= at_zero == 1.0
    return bool(ok)


def _t3_exceeds_t4(model, t4_model, ev: list) -> bool:
    """T3's gap exceeds T4's exactly on 0 < g < 1 (exact real roots of the difference)."""
    import sympy as sp

    # T3 gap (t3-inclusive minus t4-only) exceeds the T4 gap exactly on 0 < g < 1: exact real roots
    x = sp.Symbol("x", real=True)
    t3 = [a - b for a, b in zip(model.gap_poly, list(t4_model.gap_poly) + [0] * 9)]
    diff = sp.Poly([sp.Rational(c) for c in reversed(t3)], x) - sp.Poly([sp.Rational(c) for c in reversed(t4_model.gap_poly)], x)
    roots = sp.real_roots(diff)
    sign_ok = sorted(set(roots)) == [0, 1] and diff.eval(sp.Rational(1, 2)) > 0 and diff.eval(2) < 0
    ev.append(computed("real roots of gap_T3(g) - gap_T4(g)", [str(r) for r in sorted(set(roots))]))
    return bool(sign_ok)


def _t4_above_one(t4_model, above_one, ev: list) -> bool:
    """The T4-only gamma_c > 1 exactly on the library interval [8L, (L+2)^2) at T = 15, 64, 512, 4096, and the
    interval empty at T = 5 (L < 2)."""
    ok = True
    # T4-only gamma_c > 1 exactly on [8L, (L+2)^2): probe both ends of the library's interval
    t4_ok = True
    for T in (15, 64, 512, 4096):
        a, b = (float(v) for v in above_one(T))
        probes = {"below 8L": (a * (1 - 1e-6), None), "just above 8L": (a * (1 + 1e-6), True),
                  "middle": ((a + b) / 2, True), "just below (L+2)^2": (b * (1 - 1e-6), True),
                  "just above (L+2)^2": (b * (1 + 1e-6), False)}
        for name, (dk, expect) in probes.items():
            enc = I.smallest_positive_root(t4_model, dk, T)
            got = None if enc is None else bool(enc.lo > 1) if (enc.lo > 1 or enc.hi < 1) else "undecided"
            t4_ok &= got == expect
    ev.append(computed("T4-only gamma_c > 1 exactly on the library interval at T = 15, 64, 512, 4096", t4_ok))
    ok &= t4_ok
    # T = 5 (L < 2): the library interval must be empty, and gamma_c < 1 just above 8L there
    a, b = (float(v) for v in above_one(5))
    enc = I.smallest_positive_root(t4_model, float(transition.crossover_dk(5)) * (1 + 1e-3), 5)
    small_ok = a >= b and enc is not None and enc.hi < 1
    ev.append(bound("T = 5 (L < 2): library interval and gamma_c just above 8L",
                    [a, b, *(enc.as_floats() if enc else [])],
                    "interval empty (lower >= upper) and interval root < 1: the paper's form needs L >= 2"))
    ok &= small_ok
    return bool(ok)


@certificate("P16", title="Key-only law real iff dk >= 4L + 2; symmetric in the key-only convention 0.664 at (64, 15)",
             paper="PSA §6.8",
             claim="The key-only crossing has a root iff dk >= 4L + 2, and the symmetric shear in the key-only "
                   "convention gives gamma_c = 0.664 at (dk, T) = (64, 15).", method="interval")
def key_only() -> Outcome:
    law, threshold = transition.annealed_gamma_c, transition.key_only_threshold
    model, sym_model = score_model("key-only"), score_model("symmetric-key-convention")
    ev: list = []
    ok = True
    for T in (15, 512, 4096):
        ok &= _threshold_check(f"key-only threshold 4L+2 at T = {T}", "key-only", model, T, float(threshold(T)), "",
                               law, ev)
    ok &= _check_root("key-only gamma_c (64, 512)", I.smallest_positive_root(model, 64, 512),
                      law("key-only", 64, 512), "", ev)
    ok &= _check_root("symmetric, key-only convention (64, 15)", I.smallest_positive_root(sym_model, 64, 15),
                      law("symmetric-key-convention", 64, 15), "0.664", ev)
    return Outcome(bool(ok), tuple(ev))

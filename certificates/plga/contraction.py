"""Certificates of diameter contraction and the derivative envelopes (claims A18, A20; PLGA Prop. 5.12).

A18: the diameter of a composition is at most the product of contraction factors, iterates contract
geometrically, attained, and the metric learner's row-map bound (Lean: Contraction); A20: the envelopes
2U sigma(U) + U^2/4 and sigma(U) + U/4 dominate sup|iSwiGLU'| and sup|SiLU'| on [-U, U] in interval arithmetic,
and the float derivatives agree with 30-digit differentiation (the authors' audit).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from theorylab import plga
from theorylab.certificates.reference import plga as ref
from theorylab.certificates.reference import plga_lean as lref
from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.errors import ParameterError
from theorylab.plga import contraction as con
from theorylab.plga import envelopes as env


# ----------------------------------------------------------------------------------------- A18
def _contraction_diameters(rng) -> tuple[np.ndarray, float, float, float, list]:
    """A18's diameters against SciPy ``pdist`` (also at scales 2^(+-900)), the composition bound on a random cloud and
    attained on aligned points, and the iterates of f = x/2 (equality)."""
    S = np.vstack([rng.normal(size=(60, 4)), np.zeros((1, 4)), np.eye(4)[:1]])
    A, B = np.diag([3.0, 1.0, 0.5, 0.25]), np.diag([2.0, 0.5, 1.0, 1.0])
    Kf, Kg = ref.spectral_norm(A), ref.spectral_norm(B)
    far = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0], [2.0, 0.0]])   # farthest pair (0, 2): not first-last
    diam_err = max(abs(con.diameter(X) - lref.diameter(X)) / lref.diameter(X) for X in (S, S @ A @ B, far))
    for scale in (2.0 ** 900, -2.0 ** 900, 2.0 ** -900):   # squares overflow / underflow unless rescaled first
        try:
            scaled = con.diameter(far * scale) / abs(scale)
        except ParameterError:                     # a refused (overflowing) diameter of representable points
            scaled = math.inf
        diam_err = max(diam_err, abs(scaled - lref.diameter(far)) / lref.diameter(far))
    comp = lref.diameter(S @ A @ B) / con.composition_bound([Kg, Kf], con.diameter(S))
    pair = np.vstack([np.zeros(4), np.eye(4)[0]])
    attained = lref.diameter(pair @ A @ B) / con.composition_bound([Kg, Kf], con.diameter(pair))
    X, iterates = S.copy(), []
    for N in range(1, 11):
        X = 0.5 * X                                                      # exact in binary; diameters are translation
        iterates.append(lref.diameter(X)                                 # invariant, so no offset is needed
                        / con.composition_bound([0.5] * N, con.diameter(S)))
    return S, diam_err, comp, attained, iterates


def _contraction_row_map(rng, sup) -> dict:
    """A18's additive residual units: the library's constants against 1 + sup|SiLU'| ||W1|| ||W2|| (``eigvalsh``),
    its pairwise ratios against ones computed here, each unit's ratios below its constant, and the composite's image
    diameter below the product bound (``reference.plga.residual_unit``)."""
    params = plga.init_params(8, 3, n_res=3, residual="additive")
    ks = con.row_map_lipschitz(params)
    k_err = max(abs(k / (1 + sup * ref.spectral_norm(u.W1) * ref.spectral_norm(u.W2)) - 1)
                for k, u in zip(ks, params.units))
    pts = rng.normal(size=(200, 8))
    ratios, pair_err = [], 0.0
    for k, u in zip(ks, params.units):
        unit = (u.W1, u.b1, u.W2, u.b2)
        here = (np.linalg.norm(ref.residual_unit(pts[:100], unit, 0.0) - ref.residual_unit(pts[100:], unit, 0.0), axis=1)
                / np.linalg.norm(pts[:100] - pts[100:], axis=1))
        lib_pairs = con.pairwise_ratios(lambda Z, unit=unit: ref.residual_unit(Z, unit, 0.0), pts[:100], pts[100:])
        pair_err = float(np.maximum(pair_err, np.max(np.abs(lib_pairs - here) / here)))     # NaN propagates
        ratios.append(float(np.max(here)) / k)
    image = pts
    for u in params.units:
        image = ref.residual_unit(image, (u.W1, u.b1, u.W2, u.b2), 0.0)
    composite = lref.diameter(image) / con.composition_bound(ks, con.diameter(pts))
    return {"k_err": k_err, "pts": pts, "ratios": ratios, "pair_err": pair_err, "image": image,
            "composite": composite}


def _contraction_unit_constant(sup_u) -> tuple[float, bool]:
    """A18's unit constant attained by an aligned rank-one unit at r W1 = u*, and refused for the gated unit."""
    w1, w2 = 1.5, 0.8
    e = np.zeros((4, 4))
    e[0, 0] = 1.0
    aligned = plga.ResidualUnit(w1 * e, np.zeros(4), w2 * e, np.zeros(4))
    r0 = np.zeros((2, 4))
    r0[:, 0] = sup_u / w1 + np.array([-1e-5, 1e-5])
    out = ref.residual_unit(r0, (aligned.W1, aligned.b1, aligned.W2, aligned.b2), 0.0)
    sharp = float(np.linalg.norm(out[0] - out[1]) / np.linalg.norm(r0[0] - r0[1]) / con.unit_lipschitz(aligned))
    try:
        con.unit_lipschitz(plga.init_params(8, 0, n_res=1).units[0])
        gated_refused = False
    except ParameterError:
        gated_refused = True
    return sharp, gated_refused


@certificate("A18", title="Diameter contraction under composition and iteration, attained; the row-map bound",
             paper="PLGA Prop. 5.12(i); Lean Contraction.lean (diam_comp_le, diam_iterate_le)",
             claim="diam g(f(S)) <= K_g K_f diam S (equality for aligned linear maps), diam f^N(S) = K^N diam S for "
                   "f = K x + c; the additive unit is (1 + sup|SiLU'| ||W1|| ||W2||)-Lipschitz, attained by aligned "
                   "rank-one weights at r W1 = u*, and the row map's image diameter obeys the product bound; the "
                   "gated unit has no global constant.",
             method="numeric")
def contraction() -> Outcome:
    """Diameters against SciPy ``pdist`` (``reference.plga_lean.diameter``); unit images through
    ``reference.plga.residual_unit``; spectral norms from ``eigvalsh``; u* and sup|SiLU'| by mpmath ``findroot``."""
    rng = np.random.default_rng(18)
    _, diam_err, comp, attained, iterates = _contraction_diameters(rng)
    sup_u, sup = lref.silu_prime_sup_mp()
    units = _contraction_row_map(rng, sup)
    k_err, pts, ratios, pair_err, image, composite = (
        units[k] for k in ("k_err", "pts", "ratios", "pair_err", "image", "composite"))
    sharp, gated_refused = _contraction_unit_constant(sup_u)
    ok = (diam_err <= 1e-14 and comp <= 1 and abs(attained - 1) <= 1e-15 and max(abs(r - 1) for r in iterates) <= 1e-15
          and k_err <= 1e-12 and max(ratios) <= 1 and composite <= 1 and abs(sharp - 1) <= 1e-9 and gated_refused
          and pair_err <= 1e-14)
    return Outcome(ok, (computed("max rel |library diameter - pdist diameter| (cloud, its image, 4 points with farthest "
                                 "pair (0, 2))", diam_err, tolerance=1e-14),
                        bound("diam g(f(S)) / (K_g K_f diam S), random cloud", comp, formula="diam_comp_le: <= 1"),
                        computed("the same on S = {0, e_1} (aligned: attained)", attained, tolerance=1e-15),
                        computed("diam f^N(S) / (0.5^N diam S), N = 1..10 (f = x/2: equality)", iterates,
                                 tolerance=1e-15),
                        computed("max rel |library unit constant - (1 + sup|SiLU'| ||W1|| ||W2||)_ref|", k_err,
                                 tolerance=1e-12),
                        computed("max rel |library pairwise_ratios - ||u(x) - u(y)|| / ||x - y|| computed here| "
                                 "(3 units, 100 pairs)", pair_err, tolerance=1e-14),
                        bound("max pairwise ratio / K per additive unit (100 pairs)", ratios, formula="<= 1"),
                        bound("diam phi(S) / (prod K_j diam S), 3 additive units", composite,
                              formula="diam_comp_le composed; loose, as Prop. 5.12 warns"),
                        computed("aligned rank-one unit at r W1 = u*: pair ratio / K (attained: 1)", sharp,
                                 tolerance=1e-9),
                        computed("gated unit LN(GLU(r) + r): no global constant (refused)", gated_refused)),
                   arrays={"points": pts, "image": image}, seeds={"points": 18, "head": 3})



# ----------------------------------------------------------------------------------------- A20
@certificate("A20", title="Derivative envelopes dominate sup|iSwiGLU'| and sup|SiLU'| on [-U, U] (interval); "
                          "sup|SiLU'| = 1.0998 at u* = 2.40; greedy margin 2B < margin exact",
             paper="PLGA Prop. 5.12 (C_G); the authors' audit (iswiglu_dprime_env, silu_dprime_env, margin_ok)",
             claim="For U = 0.018, 0.5, 2, 10 rigorous enclosures of sup_{|u|<=U} |f'| lie below the library's envelopes "
                   "2U sigma(U) + U^2/4 and sigma(U) + U/4, which are tight at small U (ratio < 1.001 at U = 0.018); "
                   "u* in [2.39935728, 2.39935729] and sup|SiLU'| = 1.09983932...; an l_inf logit perturbation B keeps "
                   "the greedy argmax iff 2B < margin (exact on dyadic cases).",
             method="interval")
def envelopes_interval() -> Outcome:
    """``reference.plga_lean.sup_abs_below`` (mpmath iv, branch and bound on cells of [-U, U]) and
    ``silu_prime_sup_enclosure`` (interval bisection of u tanh(u/2) = 2); ``argmax_survives_box`` (Fractions,
    vertices of the l_inf box)."""
    from theorylab.certify.interval import rounds_to

    (u_lo, u_hi), (v_lo, v_hi) = lref.silu_prime_sup_enclosure()
    table, dominated, tight = {}, True, []
    for U in (0.018, 0.5, 2.0, 10.0):
        es, ei = float(env.silu_prime_envelope(U)), float(env.iswiglu_prime_envelope(U))
        s_ok, s_hi, s_lo = lref.sup_abs_below(lref.silu_prime_iv, U, es, points=(u_lo,))
        i_ok, i_hi, i_lo = lref.sup_abs_below(lref.iswiglu_prime_iv, U, ei)
        dominated &= s_ok and i_ok
        table[f"U = {U}"] = {"SiLU' sup in": [s_lo, s_hi], "envelope": es, "iSwiGLU' sup in": [i_lo, i_hi],
                             "envelope ": ei}
        if U == 0.018:
            tight = [es / s_lo, ei / i_lo]
    u_lib, v_lib = env.silu_prime_sup()
    # Newton's last step in float64 lands within ~0.85 ulp of u* (rounding of g(u) / g'(u), g' = 1.2 there): the
    # library's u* within 1.25 ulp of its 30-digit value (a slowed iteration stops 1.6-2.6 ulp short)
    import mpmath as mp

    with mp.workdps(30):                                   # u* and sup|SiLU'| = s (1 + u (1 - s)), s = sigmoid(u*)
        u_mp = mp.findroot(lambda t: t * mp.tanh(t / 2) - 2, mp.mpf("2.4"))
        s_mp = 1 / (1 + mp.exp(-u_mp))
        ulps = [float(abs(u_lib - u_mp)) / np.spacing(u_hi), float(abs(v_lib - s_mp * (1 + u_mp * (1 - s_mp))))
                / np.spacing(v_hi)]
    located = ulps[0] <= 1.25 and ulps[1] <= 4.0           # sup: a float formula at a flat maximum (few ulp)
    quoted = rounds_to((v_lo, v_hi), "1.0998") and rounds_to((u_lo, u_hi), "2.40")
    cases, agree = [], True
    frac_rng = np.random.default_rng(20)
    logit_sets = [[8, 0]] + [list(frac_rng.integers(-40, 40, 4)) for _ in range(12)]
    for logits in logit_sets:
        exact = sorted(Fraction(v, 8) for v in logits)
        m = exact[-1] - exact[-2]
        lib_margin = float(env.logit_margin(np.array(logits) / 8.0))
        agree &= lib_margin == float(m)
        for B in {m / 2 - Fraction(1, 64), m / 2, m / 2 + Fraction(1, 64), m / 4, Fraction(6, 10) * m}:
            if B < 0:
                continue
            lib = bool(env.greedy_margin_ok(float(B), float(m)))
            truth = lref.argmax_survives_box([Fraction(v, 8) for v in logits], B) if m > 0 else False
            agree &= lib == truth
            cases.append([str(m), str(B), lib, truth])
    stack = np.array(logit_sets[1:]) / 8.0                              # (12, 4): one margin per row, last axis
    exact_rows = [float(r[-1] - r[-2]) for r in (sorted(Fraction(v, 8) for v in row) for row in logit_sets[1:])]
    agree &= env.logit_margin(stack).tolist() == exact_rows and env.logit_margin(stack[None])[0].tolist() == exact_rows
    ok = dominated and max(tight) < 1.001 and located and quoted and agree
    return Outcome(ok, (bound("[certified lower, upper] ends of the sups vs the library envelopes", table,
                              formula="mpmath iv natural extension, cells bisected until below the envelope"),
                        computed("envelope / lower end of the sup at U = 0.018 (SiLU', iSwiGLU')", tight),
                        bound("u* enclosure (root of u tanh(u/2) = 2) and sup|SiLU'| enclosure",
                              [[u_lo, u_hi], [v_lo, v_hi]], formula="interval bisection, 80 bits"),
                        computed("library silu_prime_sup() (u*, sup)", [u_lib, v_lib]),
                        computed("|library - 30-digit value (mpmath findroot)| in ulps (u*, sup); at most 1.25, 4", ulps),
                        computed("library values within 1.25 / 4 ulp; sup rounds to 1.0998, u* to 2.40",
                                 located and quoted),
                        computed("[margin, B, library 2B < margin, argmax survives every l_inf perturbation]", cases),
                        computed("library margin criterion and logit margin agree with the exact check", agree)))



@certificate("A20.numeric", title="SiLU' and iSwiGLU' in float64 against 30-digit differentiation; envelopes dominate "
                                  "the authors' grid maxima",
             paper="PLGA §5.4; the authors' audit (iswiglu_dmax, silu_dmax)",
             claim="The library's derivatives equal mpmath's numerical derivatives of u sigma(u) and u^2 sigma(u); its "
                   "envelopes equal their formulas and dominate the 20001-point grid maxima for U from 0.01 to 80; the "
                   "grid maximum of |SiLU'| on [-50, 50] is 1.0998.",
             method="numeric")
def derivatives_numeric() -> Outcome:
    """61 points in [-30, 30] plus small ones against ``mpmath.diff`` at 30 digits; grids as in the authors' tests."""
    import mpmath as mp

    u = np.concatenate([np.linspace(-30, 30, 61), [1e-8, -1e-3, 2.3993572805154675]])
    with mp.workdps(30):
        ds = np.array([float(mp.diff(lambda t: t / (1 + mp.exp(-t)), mp.mpf(x))) for x in u])
        di = np.array([float(mp.diff(lambda t: t * t / (1 + mp.exp(-t)), mp.mpf(x))) for x in u])
        Us = (0.01, 0.1, 0.5, 2.0, 10.0, 80.0)
        env_s = [float(1 / (1 + mp.exp(-U)) + mp.mpf(U) / 4) for U in Us]
        env_i = [float(2 * U / (1 + mp.exp(-U)) + mp.mpf(U) ** 2 / 4) for U in Us]
    # absolute below 1e-20 (u = 0: 0 vs mpmath's 2e-69)
    err_s = float(np.max(np.abs(env.silu_prime(u) - ds) / np.maximum(np.abs(ds), 1e-20)))
    err_i = float(np.max(np.abs(env.iswiglu_prime(u) - di) / np.maximum(np.abs(di), 1e-20)))
    err_env = max(max(abs(env.silu_prime_envelope(U) / e - 1) for U, e in zip(Us, env_s)),
                  max(abs(env.iswiglu_prime_envelope(U) / e - 1) for U, e in zip(Us, env_i)))
    grid_s = [float(np.max(np.abs(env.silu_prime(np.linspace(-U, U, 20001))))) for U in Us]
    grid_i = [float(np.max(np.abs(env.iswiglu_prime(np.linspace(-U, U, 20001))))) for U in Us]
    dominate = (all(env.silu_prime_envelope(U) >= g for U, g in zip(Us, grid_s))
                and all(env.iswiglu_prime_envelope(U) >= g for U, g in zip(Us, grid_i)))
    at50 = float(np.max(np.abs(env.silu_prime(np.linspace(-50, 50, 20001)))))
    ok = err_s <= 1e-13 and err_i <= 1e-13 and err_env <= 1e-15 and dominate and round(at50, 4) == 1.0998
    return Outcome(ok, (computed("max rel |SiLU' - d/du (u sigma(u))_30|", err_s, tolerance=1e-13),
                        computed("max rel |iSwiGLU' - d/du (u^2 sigma(u))_30|", err_i, tolerance=1e-13),
                        computed("max rel |library envelope - 30-digit formula|", err_env, tolerance=1e-15),
                        computed("grid max |SiLU'| per U (0.01 .. 80)", grid_s),
                        computed("grid max |iSwiGLU'| per U", grid_i),
                        bound("envelopes >= grid maxima at every U", dominate, formula="authors' test_envelopes_*"),
                        computed("grid max |SiLU'| on [-50, 50] (authors: 1.0998 +- 2e-3)", at50)),
                   arrays={"u": u, "silu_prime": env.silu_prime(u), "iswiglu_prime": env.iswiglu_prime(u)})


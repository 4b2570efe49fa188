"""Certificates of the PLGA operator's structure (PLGA §3-5; claims A2-A7, A10-A13).

Symbolic parts feed SymPy symbols through the library (``theorylab.plga.operator`` has
an exact route for object arrays) and decide identities with
``theorylab.symbolic.exact``; numeric parts compare the float library with an
independent route (``theorylab.certificates.reference.plga``, written from the paper's equations and
sharing no library code; SciPy, mpmath at 40 digits, the golden C_Theta) at the tolerances
stated in each evidence line, and show each bound attained on an extremal example. Keyword
defaults are the library functions under test; ``tests/test_plga_certificates.py`` replaces
them with deliberately wrong ones, ``tests/test_planted_certificates.py`` plants bugs in the
library source, and both see FAIL.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import scipy.linalg

from theorylab.certificates import _reference_views as view
from theorylab.certificates.reference import plga as ref
from theorylab.certify import Outcome, bound, certificate, computed, proxy
from theorylab.certify.registry import LazyFunction
from theorylab.errors import ParameterError
from theorylab.plga import operator as op
from theorylab.psa.shear import rope_frequencies

# SymPy and the exact routes are imported inside the checks (and named lazily as keyword defaults),
# so `theorylab certify --list` does not load SymPy.


def _exact_route(name: str) -> LazyFunction:
    """``theorylab.symbolic.plga.<name>``, imported when the check calls it."""
    return LazyFunction(f"theorylab.symbolic.plga.{name}")

DK, S = 16, 32
EPS_LN_REFERENCE_CODE = 1e-6
"""The LayerNorm ``eps`` of the authors' public model code (Lemma 5.11's eps_LN), the library's documented default."""


def _queries(seed: int, S: int = S, dk: int = DK, scale: float = 1.0) -> np.ndarray:
    return scale * np.random.default_rng(seed).standard_normal((S, dk))


def _obj(a) -> np.ndarray:
    out = np.empty(np.shape(a), dtype=object)
    out[...] = a
    return out


# ----------------------------------------------------------------------------------------- A2
@certificate("A2.symbolic", title="iSwiGLU(u) = silu(u) u = u^2 sigmoid(u) >= 0; powers of positives are positive",
             paper="PLGA §3.1 eq. 3.1, 3.4-3.5",
             claim="iSwiGLU(u) = u^2 sigmoid(u) >= 0 for real u, so A_LM = iSwiGLU + eps > 0 and A_P = A_LM^P > 0.",
             method="exact")
def iswiglu_exact(iswiglu=op.iswiglu, silu=op.silu) -> Outcome:
    """Library iSwiGLU on a symbol, with ``exp(-u) -> y > 0``: a rational function of (u, y)."""
    import sympy as sp

    from theorylab.symbolic import exact as ex

    u = sp.Symbol("u", real=True)
    y, eps, p = sp.Symbol("y", positive=True), sp.Symbol("epsilon", positive=True), sp.Symbol("p", real=True)
    to_y = {sp.exp(-u): y}
    f = ex.exact(iswiglu(_obj([u]))[0]).subs(to_y)
    g = ex.exact((silu(_obj([u])) * u)[0]).subs(to_y)
    is_u2_sigmoid = ex.is_zero(f - u**2 / (1 + y), (u, y))
    is_silu_u = ex.is_zero(f - g, (u, y))
    nonneg = f.is_nonnegative is True
    a_lm_pos = (f + eps).is_positive is True
    a_p_pos = ((f + eps) ** p).is_positive is True
    return Outcome(is_u2_sigmoid and is_silu_u and nonneg and a_lm_pos and a_p_pos,
                   (computed("iSwiGLU(u) - u^2/(1 + e^-u) == 0", is_u2_sigmoid),
                    computed("iSwiGLU(u) - silu(u) u == 0", is_silu_u),
                    computed("iSwiGLU(u) >= 0 (u real)", nonneg),
                    computed("iSwiGLU(u) + eps > 0 (eps > 0)", a_lm_pos),
                    computed("(iSwiGLU(u) + eps)^p > 0 (p real)", a_p_pos)))


STAGE_RTOL = 1e-11
"""Library vs reference PLGA tensors, relative per entry (A_LM, A_P) or to max|G|: two float64 routes; entries of A_LM
near 1e-6 come out of iSwiGLU deep in its left tail, where the routes differ by up to 7e-14 (measured)."""


def _stage_errors(lib, reference) -> dict[str, float]:
    """Relative differences of the library's A_LM, A_P (entrywise) and G_LM (to max |G|) from the reference's."""
    return {"A_LM": float(np.max(np.abs(lib.A_LM / reference["A_LM"] - 1))),
            "A_P": float(np.max(np.abs(lib.A_P / reference["A_P"] - 1))),
            "G": float(np.max(np.abs(lib.G - reference["G"])) / np.max(np.abs(reference["G"])))}


@certificate("A2.numeric", title="A_LM >= eps and A_P = A_LM^P > 0 entrywise, against the reference chain",
             paper="PLGA §3.1-3.2, §2.2",
             claim="iSwiGLU >= 0 in float64 over |u| <= 800; A_LM, A_P = A_LM^(.P) and G_LM equal the reference chain "
                   "of eqs. 3.3-3.6 entrywise; every A_LM entry >= eps (attained by the zero head) and every A_P > 0.",
             method="numeric")
def positivity_numeric(iswiglu=op.iswiglu, stages=op.stages_from_density, init=op.init_params) -> Outcome:
    """iSwiGLU vs u^2 expit(u) (SciPy); 5 random heads, the zero head (U = 0) and b_W = -50 against the reference
    chain (theorylab.certificates.reference.plga: A_P as exp(P o log A_LM), PLGA §2.2), and A_P against exp(P o log A_LM)
    of the library's own A_LM (eq. 3.5 alone)."""
    from scipy.special import expit

    u = np.concatenate([np.linspace(-800, 800, 16001), [0.0, 1e-200, -1e-200]])
    f = iswiglu(u)
    ref_f = u * u * expit(u)
    normal = ref_f >= np.finfo(float).tiny * 1e10          # relative accuracy is only defined off the subnormals
    rel = float(np.max(np.abs(f - ref_f)[normal] / ref_f[normal]))
    sub = float(np.max(np.abs(f - ref_f)[~normal]))
    nonneg = bool(np.all(f >= 0) and np.all(np.isfinite(f)))
    top = 1e154                                                   # the documented domain u <= 1e154, attained:
    edge = float(abs(iswiglu(np.array([top]))[0] / (top * top) - 1))     # u^2 sigmoid(u) = u^2 there (1e308)
    try:                                                          # and the next float above is refused
        iswiglu(np.array([np.nextafter(top, np.inf)]))
        edge_refused = False
    except ParameterError:
        edge_refused = True
    base = init(DK, 7)
    heads = {f"head{seed}": (init(DK, seed), _queries(100 + seed)) for seed in range(5)}
    heads["zero head (U = 0)"] = (dataclasses.replace(base, W=np.zeros((DK, DK))), _queries(7))
    heads["b_W = -50"] = (dataclasses.replace(base, W=np.zeros((DK, DK)), b_W=np.full((DK, DK), -50.0)), _queries(7))
    errors, power, mins, arrays = {}, 0.0, {}, {}
    for name, (params, q) in heads.items():
        D = q.T @ q
        lib, reference = stages(D, params), ref.stages(D, view.psi(params))
        errors[name] = _stage_errors(lib, reference)
        power = float(np.maximum(power, np.max(np.abs(lib.A_P / np.exp(params.P * np.log(lib.A_LM)) - 1))))
        mins[name] = (float(lib.A_LM.min()) - params.eps, float(lib.A_P.min()))
        arrays[f"{name}: A_P"] = lib.A_P
    worst = {k: float(np.max([e[k] for e in errors.values()])) for k in ("A_LM", "A_P", "G")}     # NaN propagates
    zero = stages(op.density_operator(_queries(7)), heads["zero head (U = 0)"][0])
    floor_attained = bool(np.all(zero.A_LM == base.eps))
    paper_floor = bool(base.eps == 1e-9)                           # the paper's eps = 10^-9 floor (PLGA §3, §6.1)
    margins = op.positivity_margins(zero, base.eps)                # min iSwiGLU = 0 attained: still positive
    zero_margins = bool(margins.min_iswiglu == 0 and margins.min_A_LM == base.eps and margins.positive)
    positive = all(a >= 0 and p > 0 for a, p in mins.values())
    table = {(0.0, 0.5, 5e-324, 0.5): True, (-5e-324, 0.5, 1.0, 0.5): False,    # (min iSwiGLU, min A_LM, min A_P, eps):
             (0.0, np.nextafter(0.5, 0), 1.0, 0.5): False, (0.0, 0.5, 0.0, 0.5): False,    # each condition fails alone
             (0.0, 0.0, 1.0, 0.0): False, (0.0, 5e-324, 1.0, 0.0): True}   # eps = 0: A_LM > 0 still required
    truth_table = all(bool(op.PositivityMargins(*row).positive) is want for row, want in table.items())
    ok = (rel <= 1e-13 and sub <= 1e-290 and nonneg and np.max(list(worst.values())) <= STAGE_RTOL and power <= STAGE_RTOL
          and positive and floor_attained and paper_floor and zero_margins and edge <= 1e-15 and edge_refused
          and truth_table)
    return Outcome(ok, (computed("max rel |iSwiGLU - u^2 expit(u)| on [-800, 800] (values >= 2.2e-298)", rel,
                                 tolerance=1e-13),
                        computed("domain edge u = 1e154 (documented, attained): |iSwiGLU(u) / u^2 - 1|", edge,
                                 tolerance=1e-15),
                        computed("the next float above 1e154 is refused (ParameterError)", edge_refused),
                        computed("max abs difference below 2.2e-298 (subnormal tail)", sub, tolerance=1e-290),
                        computed("iSwiGLU >= 0 and finite on the grid", nonneg),
                        computed("max rel |library - reference| of A_LM, A_P, G_LM over 7 heads", worst,
                                 tolerance=STAGE_RTOL),
                        computed("max rel |A_P / exp(P o log A_LM) - 1| (eq. 3.5 on the library's A_LM)", power,
                                 tolerance=STAGE_RTOL),
                        computed("min (A_LM - eps), min A_P over 5 random heads",
                                 [min(mins[f"head{i}"][0] for i in range(5)), min(mins[f"head{i}"][1] for i in range(5))]),
                        computed("zero head: A_LM == eps exactly (floor attained)", floor_attained),
                        computed("default eps of init_params == the paper's 10^-9 floor", paper_floor),
                        computed("zero head: positivity margins min iSwiGLU == 0, min A_LM == eps, and positive",
                                 zero_margins),
                        computed("PositivityMargins.positive == [iSwiGLU >= 0, A_LM >= eps, A_LM > 0, A_P > 0] on 6 "
                                 "boundary rows (each condition failing alone; eps = 0)", truth_table),
                        computed("b_W = -50 head: min (A_LM - eps), min A_P", list(mins["b_W = -50"])),
                        computed("min A_P of the zero head (eps^P)", mins["zero head (U = 0)"][1])),
                   arrays=arrays, seeds={"heads": 0, "queries": 100})


# ----------------------------------------------------------------------------------------- A3
@certificate("A3", title="Perron-Frobenius on A_LM; rank-one A = 1 alpha^T has spectral radius sum(alpha)",
             paper="PLGA Prop. 3.9, 3.12",
             claim="A_LM > 0 has a simple positive spectral radius with a positive eigenvector; a rank-one matrix "
                   "with identical rows alpha^T has spectral radius equal to the common row sum.", method="numeric")
def perron(perron=op.perron_frobenius, stages=op.stages_from_density, init=op.init_params,
           bounds=op.collatz_wielandt_bounds) -> Outcome:
    """Eigen route against the reference power iteration (theorylab.certificates.reference.plga.perron_root) on 5 random
    heads' A_LM: root, vector, residual computed here; Collatz-Wielandt brackets at v = 1 and at the Perron vector."""
    worst_root, worst_vec, worst_resid, worst_gap, worst_cw, positive, bracket = 0.0, 0.0, 0.0, np.inf, 0.0, True, True
    worst_second, worst_field, field_exact = 0.0, 0.0, True
    arrays = {}
    for seed in range(5):
        A = stages(op.density_operator(_queries(200 + seed)), init(DK, seed)).A_LM
        pf = perron(A)
        rho, v = ref.perron_root(A)
        worst_root = float(np.maximum(worst_root, abs(pf.rho - rho) / rho))        # np.maximum: NaN propagates
        worst_vec = float(np.maximum(worst_vec, np.max(np.abs(pf.vector - v)) / np.max(v)))
        here_resid = float(np.max(np.abs(A @ pf.vector - pf.rho * pf.vector)))
        worst_resid = float(np.maximum(worst_resid, here_resid / pf.rho))
        worst_field = float(np.maximum(worst_field, abs(pf.residual - here_resid) / pf.rho))   # NaN propagates
        field_exact &= pf.residual == here_resid                        # the same float operations: bitwise
        ratios = A.sum(axis=1)                                           # (A 1)_i / 1_i
        lo, hi = bounds(A)
        bracket &= bool(np.allclose((lo, hi), (ratios.min(), ratios.max()), rtol=1e-14, atol=0)
                        and lo <= rho * (1 + 1e-12) and rho <= hi * (1 + 1e-12))
        positive &= bool(np.all(pf.vector > 0))
        at_v = (A @ v) / v
        worst_cw = float(np.maximum(worst_cw, (at_v.max() - at_v.min()) / rho))
        worst_gap = float(np.minimum(worst_gap, (pf.rho - pf.second) / pf.rho))
        second_ref = float(np.sort(np.abs(np.linalg.eigvals(A)))[-2])           # |lambda_2|, NumPy's eigvals
        worst_second = float(np.maximum(worst_second, abs(pf.second - second_ref) / rho))
        arrays[f"vector{seed}"] = pf.vector
    alpha = np.random.default_rng(9).uniform(0.1, 2.0, DK)
    R1 = np.outer(np.ones(DK), alpha)
    pf1 = perron(R1)
    rank_one = abs(pf1.rho - alpha.sum()) / alpha.sum()
    flat = float(np.max(np.abs(pf1.vector - 1.0 / DK)))
    clone_rng, clone_resid, clone_worst = np.random.default_rng(10), True, 0.0    # mixed signs, d = 2..7: rounding
    for d in [2, 3, 4, 5, 6, 7] * 4:                                   # residuals of either sign before the |.|
        Rc = np.outer(np.ones(d), clone_rng.uniform(-1.0, 2.0, d))
        try:
            pc = perron(Rc)
        except ParameterError:                                          # refused: the closed-form route is missing
            clone_resid = False
            continue
        here = float(np.max(np.abs(Rc @ pc.vector - pc.eigenvalue * pc.vector)))
        clone_resid &= bool(pc.residual == here)
        clone_worst = max(clone_worst, here)
    periodic = []                      # weighted p-cycles (irreducible, period p): p eigenvalues of modulus rho
    for w in ([1.0, 1.0, 1.0], [2.0, 1.0, 1.0], [0.5, 3.0, 1.0, 0.25], [1.0, 4.0]):
        p = len(w)
        C = np.roll(np.diag(w), 1, axis=1)                              # C[i, i+1] = w_i
        rho_c = float(np.prod(w)) ** (1.0 / p)                          # C^p = prod(w) I
        null = scipy.linalg.null_space(C - rho_c * np.eye(p), rcond=1e-10)[:, 0]
        pc = perron(C)
        periodic.append(max(abs(pc.rho / rho_c - 1), abs(pc.eigenvalue / rho_c - 1), abs(pc.second / rho_c - 1),
                            float(np.max(np.abs(pc.vector - null / null.sum()))),
                            0.0 if np.isrealobj(pc.vector) and np.all(pc.vector > 0) else 1.0))
    huge = np.diag([1.7e308, 1e308])                                    # row sums near the float limit: the default
    bracket &= bounds(huge) == (1e308, 1.7e308)                         # v = 1 leaves them representable
    ok = positive and bracket and worst_root <= 1e-12 and worst_vec <= 1e-10 and worst_gap > 1e-6 \
        and worst_resid <= 1e-10 and worst_field <= 1e-15 and worst_cw <= 1e-9 and rank_one <= 1e-12 \
        and flat <= 1e-12 and clone_resid \
        and worst_second <= 1e-12 \
        and clone_worst <= 1e-15 and max(periodic) <= 1e-12 and field_exact
    return Outcome(ok, (computed("max |rho - rho_ref| / rho_ref (reference: power iteration)", worst_root, tolerance=1e-12),
                        computed("max |v - v_ref| / max v_ref (vectors summing to 1)", worst_vec, tolerance=1e-10),
                        computed("Perron vector > 0 (5 heads)", positive),
                        computed("library brackets == (min, max) row sum (to 1e-14), and they bracket rho_ref; "
                                 "diag(1.7e308, 1e308): (1e308, 1.7e308)", bracket),
                        computed("min relative spectral gap (rho - |lambda_2|)/rho", worst_gap),
                        computed("max |library |lambda_2| - NumPy eigvals |lambda_2|| / rho_ref", worst_second,
                                 tolerance=1e-12),
                        computed("max ||A v - rho v||_inf / rho (computed here)", worst_resid, tolerance=1e-10),
                        computed("max |library residual - ||A v - rho v||_inf computed here| / rho (5 heads)",
                                 worst_field, tolerance=1e-15),
                        computed("library residual == max |A v - rho v| computed here, bitwise (5 heads)", field_exact),
                        computed("max Collatz-Wielandt width at v_ref / rho (tight bracket)", worst_cw, tolerance=1e-9),
                        computed("rank one: |rho - sum(alpha)|/sum(alpha)", rank_one, tolerance=1e-12),
                        computed("rank one: max |v - 1/dk| (eigenvector is the constant vector)", flat,
                                 tolerance=1e-12),
                        computed("24 rank-one inputs with mixed signs (d = 2..7): library residual == "
                                 "||M v - lambda v||_inf computed here", clone_resid),
                        computed("their largest ||M v - lambda v||_inf (rounding)", clone_worst, tolerance=1e-15),
                        computed("weighted 3-, 4-, 2-cycles (periodic: |lambda_2| = rho): max relative error of rho, "
                                 "eigenvalue and second vs (prod w)^(1/p), of the vector vs the null space of "
                                 "C - rho I, and 1 if the vector is not real and positive", periodic, tolerance=1e-12)),
                   arrays=arrays, seeds={"heads": 200, "alpha": 9, "clones": 10})


# ----------------------------------------------------------------------------------------- A4
@certificate("A4", title="Entrywise positive is not positive semidefinite: [[1,10],[1,1]]",
             paper="PLGA §3.1", claim="[[1,10],[1,1]] > 0 entrywise, yet its symmetric part has eigenvalues 6.5 "
                                      "and -4.5.", method="exact")
def positive_not_psd(spectrum=_exact_route("symmetric_part_eigenvalues")) -> Outcome:
    """Exact eigenvalues of the symmetric part (rational arithmetic)."""
    import sympy as sp

    M = sp.Matrix([[1, 10], [1, 1]])
    ev = spectrum(M)
    expected = {sp.Rational(13, 2): 1, sp.Rational(-9, 2): 1}
    positive = all(v > 0 for v in M)
    ok = positive and ev == expected and min(ev) < 0
    return Outcome(ok, (computed("entrywise positive", positive),
                        computed("eigenvalues of (M + M^T)/2", {str(k): v for k, v in ev.items()}),
                        computed("smallest eigenvalue < 0 (not PSD)", bool(min(ev) < 0))))


# ----------------------------------------------------------------------------------------- A5
@certificate("A5.symbolic", title="NOTEARS: tr((W o W)^k) counts weighted closed walks; DAG => h = 0",
             paper="PLGA §4.3 (NOTEARS)",
             claim="h(W) = sum_k tr((W o W)^k)/k! with tr((W o W)^k) the weighted closed k-walk sum (nonnegative "
                   "coefficients); a DAG has h = 0; a positive W has h > 0.", method="exact")
def notears_symbolic(trace_power=_exact_route("trace_power"), walks=_exact_route("closed_walk_sum")) -> Outcome:
    """d = 3 symbolic weights, k = 1..4: trace power == walk enumeration; upper-triangular W is nilpotent."""
    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic import plga as sy

    w = sy.symbol_matrix("w", 3, 3, real=True)
    gens = tuple(w.flat)
    M = sp.Matrix(w * w)                                   # W o W (Hadamard square)
    counts = all(ex.is_zero(trace_power(M, k) - walks(M, k), gens) for k in range(1, 5))
    import mpmath as mp

    R = sp.Matrix([[sp.Rational(1, 3), sp.Rational(-1, 2), 0], [sp.Rational(1, 4), 0, 1], [-1, sp.Rational(1, 5), 0]])
    series = sp.Rational(sy.walk_series_value(R, 40))     # exact; against tr exp(R) - 3 in mpmath (50 digits)
    with mp.workdps(50):
        expm = mp.expm(mp.matrix([[mp.mpf(x.p) / x.q for x in row] for row in R.tolist()]))
        series_err = abs(mp.mpf(series.p) / series.q - (sum(expm[i, i] for i in range(3)) - 3))
    # short truncations exactly (the 40-term tail is below 1e-40): sum_{k=1}^{K} tr(R^k)/k! by SymPy matrix powers
    partial = all(sy.walk_series_value(R, K) == sum((R ** k).trace() / sp.factorial(k) for k in range(1, K + 1))
                  for K in (1, 2, 5))
    nonneg = all(c > 0 for k in range(1, 5) for c in sp.Poly(trace_power(M, k), *gens).coeffs())
    U = sp.Matrix(3, 3, lambda i, j: w[i, j] ** 2 if j > i else 0)
    dag = all(ex.is_zero(trace_power(U, k), gens) for k in range(1, 5))
    return Outcome(counts and nonneg and dag and series_err < 1e-40 and partial,
                   (computed("tr((W o W)^k) == closed-walk sum, k = 1..4, d = 3", counts),
                    computed("|sum_{k<=40} tr(M^k)/k! - (tr exp(M) - 3)| (mpmath, 50 digits), rational 3x3 M",
                             float(series_err), formula="< 1e-40"),
                    computed("sum_{k<=K} tr(M^k)/k! == exact SymPy sum, K = 1, 2, 5", partial),
                    computed("every coefficient of tr((W o W)^k) is positive", nonneg),
                    computed("strictly upper-triangular (DAG) W: tr((W o W)^k) == 0, k = 1..4", dag)))


@certificate("A5.numeric", title="NOTEARS h(W) evaluated overflow-safely matches direct and 40-digit routes",
             paper="PLGA §4.3 (NOTEARS)",
             claim="The library's h(W) equals tr expm(W o W) - d (SciPy) where that is representable, equals the "
                   "40-digit mpmath value where it overflows, is 0 for a DAG and > 0 for positive W.",
             method="numeric")
def notears_numeric(notears=op.notears_h, walk_terms=op.walk_terms) -> Outcome:
    """rho(W o W) in {0.5, 3, 7, 20}: vs SciPy expm; rho ~ 800: log h vs mpmath expm at 40 digits."""
    import mpmath as mp
    from scipy.linalg import expm

    rng = np.random.default_rng(11)
    d = 6
    base = rng.uniform(0.1, 1.0, (d, d))
    rho0 = float(np.max(np.abs(np.linalg.eigvals(base * base))))
    rels = []
    for target in (0.5, 3.0, 7.0, 20.0):
        W = base * np.sqrt(target / rho0)
        direct = float(np.trace(expm(W * W))) - d
        rels.append(abs(notears(W).h - direct) / direct)
    routes, edge = [], True                       # the documented switch at rho = 8, attained from both sides
    for target, route in ((8.0 * (1 - 1e-6), "walk-series"), (8.0 * (1 + 1e-6), "shifted-expm")):
        W = base * np.sqrt(target / rho0)
        value = notears(W)
        rels.append(abs(value.h - (float(np.trace(expm(W * W))) - d)) / (float(np.trace(expm(W * W))) - d))
        routes.append(value.method)
        edge &= value.method == route
    Wm = base * np.sqrt(3.0 / rho0)
    series = float(np.sum(np.exp(walk_terms(Wm, 60))))
    series_rel = abs(series - notears(Wm).h) / notears(Wm).h
    # a triangular W o W = [[a, c, 0], [0, b, 0], [0, 0, 0]]: tr((W o W)^k) = a^k + b^k exactly, while the large
    # off-diagonal entry dominates the power (the renormalised trace is < 1); strictly triangular: every term -inf
    a_, b_, c_ = 1.5, 0.75, 400.0
    tri = np.sqrt(np.array([[a_, c_, 0.0], [0.0, b_, 0.0], [0.0, 0.0, 0.0]]))
    ks = np.arange(1, 41)
    tri_exact = np.array([float(mp.log((mp.mpf(a_) ** k + mp.mpf(b_) ** k) / mp.factorial(k))) for k in ks])
    tri_err = float(np.max(np.abs(walk_terms(tri, 40) - tri_exact)))
    dag = np.triu(rng.uniform(0.5, 3.0, (d, d)), 1)
    nilpotent_terms = walk_terms(dag, 8)
    h_dag = notears(dag).h
    big = base * np.sqrt(800.0 / rho0)
    with mp.workdps(40):
        Mm = mp.matrix([[mp.mpf(float(v)) ** 2 for v in row] for row in big])
        log_ref = float(mp.log(sum(mp.expm(Mm)[i, i] for i in range(d)) - d))
    hv = notears(big)
    log_err = abs(hv.log_h - log_ref)
    # far from normal: W o W = [[100, 2^k, 0], [0, 100, 0], [0, 0, 0]], h = 2 e^100 - 2 (mpmath). The documented
    # bound 2^s d eps (s = exponent of max(M) + ceil(log2 d) = k + 3) first exceeds 1e-8 log h at k = 28: k = 27 is
    # answered within 1e-8 relative (its actual error ~1e-9 relative, the bound 7e-9: nearly attained), k = 28 refused
    with mp.workdps(40):
        far_ref = float(mp.log(2 * mp.exp(100) - 2))
    far = {}
    for k in (27, 28):
        try:
            W_far = np.sqrt(np.array([[100.0, 2.0 ** k, 0], [0, 100.0, 0], [0, 0, 0]]))
            far[k] = abs(notears(W_far).log_h / far_ref - 1)
        except ParameterError:
            far[k] = "refused"
    far_ok = isinstance(far[27], float) and 1e-10 <= far[27] <= 1e-8 and far[28] == "refused"
    # a directed 64-cycle (dk = 64, the authors' head size): tr((W o W)^k) = 0 for k < 64, so all of
    # h = 64 sum_m 1/(64 m)! (mpmath) comes from closed walks longer than 60 steps
    cycle = np.roll(np.eye(64), 1, axis=1)
    with mp.workdps(40):
        cycle_ref = float(64 * mp.nsum(lambda m: 1 / mp.factorial(64 * m), [1, mp.inf]))
    cycle_rel = abs(notears(cycle).h / cycle_ref - 1)
    # rho = 8 exactly (W o W = 4 ones(2, 2), eigenvalues 8 and 0, exact in dyadic arithmetic): still the series,
    # h = e^8 - 1 (mpmath); W = 0: every walk term -inf (M^1 = 0), h = 0
    at8 = notears(np.full((2, 2), 2.0))
    at8_rel = abs(at8.h / float(mp.expm1(8)) - 1)
    zero_ok = bool(np.all(walk_terms(np.zeros((3, 3)), 4) == -np.inf)) and notears(np.zeros((3, 3))).h == 0
    ok = cycle_rel <= 1e-13 and at8.method == "walk-series" and at8_rel <= 1e-13 and zero_ok and edge and np.max(rels) <= 1e-10 and series_rel <= 1e-12 and h_dag == 0 and notears(base).h > 0 \
        and log_err <= 1e-9 and tri_err <= 1e-13 and bool(np.all(nilpotent_terms == -np.inf)) and far_ok
    return Outcome(ok, (computed("max rel |h - (tr expm - d)| at rho = 0.5, 3, 7, 20, 8 (1 -/+ 1e-6)", float(np.max(rels)),
                                 tolerance=1e-10),
                        computed("route at rho = 8 (1 - 1e-6), 8 (1 + 1e-6) (documented switch: series up to 8)", routes,
                                 formula="walk-series, shifted-expm"),
                        computed("rel |sum exp(walk_terms) - h|", series_rel, tolerance=1e-12),
                        computed("W o W = [[1.5, 400, 0], [0, 0.75, 0], [0, 0, 0]]: max |walk_terms - log((1.5^k + "
                                 "0.75^k)/k!)| (mpmath), k = 1..40", tri_err, tolerance=1e-13),
                        computed("strictly triangular W: walk_terms k = 1..8 all -inf", bool(np.all(nilpotent_terms == -np.inf))),
                        computed("h(DAG)", h_dag), computed("h(positive W) > 0", bool(notears(base).h > 0)),
                        computed("rho ~ 800: |log h - log h (mpmath 40 digits)|", log_err, tolerance=1e-9),
                        computed("rho ~ 800: log h", hv.log_h), computed("rho ~ 800: h (float)", hv.h),
                        computed("W o W = [[100, 2^k, 0], [0, 100, 0], [0, 0, 0]]: |log h / mpmath - 1| at k = 27 "
                                 "(answered, in [1e-10, 1e-8]); k = 28 refused (bound 2^(k+3) 3 eps > 1e-8 log h)",
                                 {str(k): v for k, v in far.items()}),
                        computed("directed 64-cycle W (unit weights): rel |h - 64 sum_m 1/(64 m)!| (mpmath)", cycle_rel,
                                 tolerance=1e-13),
                        computed("rho = 8 exactly (W o W = 4 ones(2, 2)): route, rel |h - (e^8 - 1)|", [at8.method, at8_rel]),
                        computed("W = 0: walk_terms all -inf and h = 0", zero_ok)),
                   arrays={"W": base, "relative_errors": np.array(rels)}, seeds={"W": 11})


# ----------------------------------------------------------------------------------------- A6
@certificate("A6", title="Commutant criterion: offset-only scores iff G is block-diagonal in span{I, J}",
             paper="PLGA Prop. 4.1",
             claim="For nonresonant frequencies, q^T R_t^T G R_s k depends only on s - t for all q, k iff G commutes "
                   "with the rotations iff G is block-diagonal with 2x2 blocks c I + s J.", method="exact")
def commutant(projection=op.commutant_projection, solutions=_exact_route("commuting_solutions")) -> Outcome:
    """dk = 4, planes with u_a = tan(theta_a/2) symbolic: solve G R = R G over QQ(u1, u2)."""
    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic import plga as sy

    generic = solutions((sy.u1, sy.u2))
    basis = sy.commutant_basis(2)
    same = len(generic) == 4 and sy.span_equal(generic, basis)
    resonant = len(solutions((sy.u1, sy.u1)))                  # theta_1 = theta_2: a resonance
    # theta_2 = -theta_1 (u_2 = -u_1, R_2 = R_1^T): a second resonance, the reflections intertwine the planes. Second
    # route: the null space of G -> G R - R G in NumPy (kron form) at u_1 = 1/2 with R from cos/sin of theta.
    opposite = solutions((sy.u1, -sy.u1))
    th = 2 * math.atan(0.5)
    R_np = np.zeros((4, 4))
    for k, angle in enumerate((th, -th)):
        R_np[2 * k:2 * k + 2, 2 * k:2 * k + 2] = [[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]]
    null_dim = 16 - np.linalg.matrix_rank(np.kron(R_np.T, np.eye(4)) - np.kron(np.eye(4), R_np), tol=1e-9)
    at_half = [np.array(M.subs(sy.u1, sp.Rational(1, 2)).tolist(), dtype=float) for M in opposite]
    opp_res = max((float(np.max(np.abs(M @ R_np - R_np @ M))) for M in at_half), default=float("inf"))
    opp_rank = int(np.linalg.matrix_rank(np.array([M.ravel() for M in at_half]), tol=1e-9)) if at_half else 0
    # dk = 6, u = (1/2, 1/3, 1/2): planes 0 and 2 resonant, so 3 diagonal blocks + 2 off-diagonal ones = 10 solutions;
    # second route as above: NumPy null space of G -> G R - R G with R from cos/sin of theta = 2 atan(u)
    us3 = (0.5, 1 / 3, 0.5)
    three = solutions(tuple(sp.Rational(1, 2) if u == 0.5 else sp.Rational(1, 3) for u in us3))
    R3 = np.zeros((6, 6))
    for k, u in enumerate(us3):
        t = 2 * math.atan(u)
        R3[2 * k:2 * k + 2, 2 * k:2 * k + 2] = [[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]]
    null3 = 36 - np.linalg.matrix_rank(np.kron(R3.T, np.eye(6)) - np.kron(np.eye(6), R3), tol=1e-9)
    three_np = [np.array(M.tolist(), dtype=float) for M in three]
    three_res = max((float(np.max(np.abs(M @ R3 - R3 @ M))) for M in three_np), default=float("inf"))
    three_rank = int(np.linalg.matrix_rank(np.array([M.ravel() for M in three_np]), tol=1e-9)) if three_np else 0
    # theta_2 = pi - theta_1 (u = 1/2, 2): cos theta_2 = -cos theta_1 but no resonance: only the 2 diagonal blocks
    supplementary = len(solutions((sp.Rational(1, 2), sp.Integer(2))))
    G = sy.symbol_matrix("g", 4, 4, real=True)
    gens = tuple(G.flat) + (sy.u1, sy.u2)
    PG = ex.matrix(projection(G))
    R = sy.torus_rotation([sy.rational_plane(sy.u1), sy.rational_plane(sy.u2)])
    commutes = ex.matrix_is_zero(PG * R - R * PG, gens)
    fixes = all(ex.equal(ex.matrix(projection(_obj(np.array(B.tolist(), dtype=object)))), B, ()) for B in basis)
    c, s_ = sy.rational_plane(sy.u1)                       # (cos, sin) of theta = 2 atan(u)
    unit = ex.is_zero(c**2 + s_**2 - 1, (sy.u1,))
    plane_err = max(abs(float(c.subs(sy.u1, math.tan(t / 2))) - math.cos(t))
                    + abs(float(s_.subs(sy.u1, math.tan(t / 2))) - math.sin(t)) for t in (0.3, 1.1, 2.9, -2.0))
    ok = same and commutes and fixes and resonant > 4 and unit and plane_err <= 1e-15 \
        and len(opposite) == opp_rank == null_dim and opp_res <= 1e-14 \
        and len(three) == three_rank == null3 == 10 and three_res <= 1e-14 and supplementary == 4
    return Outcome(ok, (computed("dim {G : G R = R G} (nonresonant) and equals span{E_aa (x) I, E_aa (x) J}",
                                 [len(generic), same]),
                        computed("dim of the solution space when theta_1 = theta_2 (resonant)", resonant),
                        computed("theta_2 = -theta_1: dim of the exact solutions, their rank at u_1 = 1/2, NumPy null "
                                 "space dim of G -> GR - RG", [len(opposite), opp_rank, int(null_dim)]),
                        computed("theta_2 = -theta_1, u_1 = 1/2: max |M R - R M| over the exact solutions", opp_res,
                                 tolerance=1e-14),
                        computed("dk = 6, u = (1/2, 1/3, 1/2): dim of the exact solutions, their rank, NumPy null space "
                                 "dim (10), max |M R - R M|", [len(three), three_rank, int(null3), three_res]),
                        computed("u = (1/2, 2) (theta_2 = pi - theta_1, not resonant): dim of the solutions (4)",
                                 supplementary),
                        computed("Pi(G) commutes with R for symbolic G", commutes),
                        computed("Pi fixes every commutant basis element", fixes),
                        computed("rational plane: cos^2 + sin^2 == 1 exactly", unit),
                        computed("rational plane at u = tan(theta/2) vs (cos, sin)(theta), max error", plane_err,
                                 tolerance=1e-15)))


# ----------------------------------------------------------------------------------------- A7
@certificate("A7", title="Softmax rows: same distribution iff scores differ by a common constant",
             paper="PLGA Prop. 5.2(iii)",
             claim="Two finite score rows give the same softmax distribution iff they differ by a common additive "
                   "constant.", method="exact")
def softmax_rows(probabilities=None, softmax=None) -> Outcome:
    """u_i = e^{z_i}: shift = common factor w; equal distributions => u' in the kernel of a linear map.

    Defaults (resolved here): ``theorylab.symbolic.softmax.probabilities``, ``theorylab.psa.softmax.softmax``.
    """
    import sympy as sp
    from sympy.polys.matrices import DomainMatrix

    from theorylab.psa import softmax as psoftmax
    from theorylab.symbolic import exact as ex
    from theorylab.symbolic import softmax as ssoftmax

    probabilities = probabilities or ssoftmax.probabilities
    softmax = softmax or psoftmax.softmax
    n = 3
    u, _ = ssoftmax.symbols(n)
    w = sp.Symbol("w", positive=True)
    gens = tuple(u) + (w,)
    sufficient = all(ex.is_zero(a - b, gens) for a, b in zip(probabilities(w * u), probabilities(u)))
    up = np.array(sp.symbols(f"v0:{n}", positive=True), dtype=object)
    eqs = [sp.expand(sp.fraction(sp.together(a - b))[0]) for a, b in zip(probabilities(up), probabilities(u))]
    A = sp.Matrix([[e.coeff(v) for v in up] for e in eqs])
    kernel = DomainMatrix.from_Matrix(A).to_field().nullspace().to_Matrix()        # exact, over QQ(u)
    necessary = kernel.rows == 1 and ex.matrix_is_zero(kernel.row(0).T * u[0] - sp.Matrix(u) * kernel[0, 0],
                                                       tuple(u))
    z = np.random.default_rng(3).normal(size=8)
    shift = float(np.max(np.abs(softmax(z + 123.456) - softmax(z))))
    moved = float(np.max(np.abs(softmax(z + np.linspace(0, 1e-3, 8)) - softmax(z))))
    ok = sufficient and necessary and shift <= 1e-15 and moved > 1e-6
    return Outcome(ok, (computed("softmax(z + c) == softmax(z) (exact, n = 3)", sufficient),
                        computed("equal distributions => e^{z'} = lambda e^{z} (kernel dim 1, spanned by u)",
                                 necessary),
                        computed("float: max |softmax(z + c) - softmax(z)|", shift, tolerance=1e-15),
                        computed("float: a non-constant shift moves the distribution", moved)),
                   seeds={"z": 3})


# ----------------------------------------------------------------------------------------- A10
@certificate("A10", title="Order parameter m(theta) = 0 iff the tensor is input-invariant",
             paper="PLGA Def. 5.1, Prop. 5.2(ii)",
             claim="m = ||D1 - D2||_rms / mean(||D1||_rms, ||D2||_rms) vanishes iff D1 == D2, including identically "
                   "zero tensors (piecewise convention); with a = 0, b_a = G*, m(G_LM) = 0 while m(A_P) > 0.",
             method="numeric")
def order_parameter(m=op.order_parameter, stages=op.stages_from_density, init=op.init_params) -> Outcome:
    """Equal, zero, zero-mean-perturbed, tiny (1e-300) and huge (1e300) tensors, and an anti-aligned pair 1e310
    apart in scale (the bound m <= 2 attained), against the reference m (mpmath sums, theorylab.certificates.reference.plga);
    the a = 0 counterexample."""
    rng = np.random.default_rng(5)
    D = rng.normal(size=(DK, DK))
    dz = rng.normal(size=(DK, DK))
    dz -= dz.mean()                                                      # zero-mean perturbation
    same, zero = m(D, D), m(np.zeros_like(D), np.zeros_like(D))
    pos = np.abs(D) + 0.1                                                # entrywise positive
    pairs = [(s * D, s * (D + 1e-8 * dz)) for s in (1e-300, 1.0, 1e300)] + [(D, D + dz), (3.7 * D, 3.7 * (D + dz)),
                                                                            (D, np.zeros_like(D)), (D, -D),
                                                                            (1e-300 * pos, -1e10 * pos)]
    lib = [m(a, b) for a, b in pairs]
    reference = [ref.order_parameter(a, b) for a, b in pairs]
    value_err = float(np.max([abs(x - y) / y for x, y in zip(lib, reference)]))
    symmetric = m(D, D + dz) == m(D + dz, D)
    params = init(DK, 4)
    Gstar = rng.normal(size=(DK, DK))
    cached = dataclasses.replace(params, a=np.zeros((DK, DK)), b_a=Gstar)
    s1, s2 = (stages(op.density_operator(_queries(300 + i)), cached) for i in range(2))
    m_G, m_AP = m(s1.G, s2.G), m(s1.A_P, s2.A_P)
    r1, r2 = (stages(op.density_operator(_queries(300 + i)), params) for i in range(2))
    m_G_random = m(r1.G, r2.G)
    anti = lib[-1]
    try:                                                                 # 0/0: an empty tensor has no rms
        op.rms(np.zeros(0))
        empty_refused = False
    except ParameterError:
        empty_refused = True
    ok = same == 0 and zero == 0 and value_err <= 1e-13 and symmetric and m_G == 0 and m_AP > 0 and m_G_random > 0 \
        and abs(anti - 2) <= 1e-15 and empty_refused
    return Outcome(ok, (computed("m(D, D)", same), computed("m(0, 0) (piecewise convention)", zero),
                        computed("m(sD, s(D + 1e-8 dz)) at s = 1e-300, 1, 1e300 (dz zero-mean)", lib[:3]),
                        computed("m at (D, D + dz), (3.7 D, 3.7 (D + dz)), (D, 0), (D, -D), (1e-300 P, -1e10 P): library",
                                 lib[3:]),
                        computed("the same, reference (mpmath sums; exact values 2 at the last three)",
                                 reference[3:]),
                        computed("max |m - m_ref| / m_ref over the 8 pairs", value_err, tolerance=1e-13),
                        bound("m(1e-300 P, -1e10 P), P > 0 entrywise (anti-aligned at 1e310 scale ratio)", anti,
                              formula="m <= 2 (triangle inequality), attained iff D2 = -c D1, c > 0"),
                        computed("||X||_rms of the empty tensor is refused (ParameterError: 0/0)", empty_refused),
                        computed("a = 0, b_a = G*: m(G_LM)", m_G), computed("a = 0, b_a = G*: m(A_P)", m_AP),
                        computed("random head: m(G_LM) for two inputs", m_G_random)),
                   arrays={"D": D, "dz": dz}, seeds={"tensors": 5, "queries": 300})


def _extremal_row():
    """q, K, dG at which the score-row bound of §5.3 is attained and the attention row moves at the sharp
    softmax rate 1/2: two keys +-h e_1 (equal scores: a two-point softmax), q = |q| e_0 and dG = s e_0 e_1^T, so
    Delta e = s |q| h (1, -1) / sqrt(dk), along the top singular direction of K (||K||_2 = h sqrt 2)."""
    q, K, dG = np.zeros(DK), np.zeros((2, DK)), np.zeros((DK, DK))
    q[0], K[0, 1], K[1, 1], dG[0, 1] = 1.7, 2.3, -2.3, 1e-5
    return q, K, dG


@certificate("A10.stability", title="Softmax is 1-Lipschitz; an operator change dG moves attention rows boundedly",
             paper="PLGA §5.3 (quantitative stability of the collapse)",
             claim="||softmax(z) - softmax(z')||_2 <= ||z - z'||_2, so attention row t moves by at most "
                   "||q_t|| ||K||_2 ||G - G'||_2 / sqrt(dk) when G_LM is replaced by G'; the score-row bound is "
                   "attained, the attention-row bound within the factor 2 of softmax's sharp constant 1/2.",
             method="numeric")
def stability(softmax=None, row_bound=op.row_perturbation_bound, stages=op.stages_from_density,
              init=op.init_params) -> Outcome:
    """2000 random score pairs at scales 0.1..100; rows of two PLGA heads' G_LM on the same keys; the bound against
    the reference formula and on the extremal example of :func:`_extremal_row`.

    ``softmax`` defaults to ``theorylab.psa.softmax.softmax`` (resolved here).
    """
    from theorylab.psa import softmax as psoftmax

    softmax = softmax or psoftmax.softmax
    rng = np.random.default_rng(21)
    ratios = []
    for scale in (0.1, 1.0, 10.0, 100.0):
        z = scale * rng.normal(size=(500, 12))
        z2 = z + scale * rng.normal(size=(500, 12)) * rng.uniform(0, 1, (500, 1))
        ratios.append(np.linalg.norm(softmax(z) - softmax(z2), axis=1) / np.linalg.norm(z - z2, axis=1))
    sharp = np.full(12, -60.0)
    sharp[:2] = 0.0                                       # two-point distribution: Jacobian norm 1/2 attained
    step = np.zeros(12)
    step[:2] = (1e-6, -1e-6)
    ratios.append(np.atleast_1d(np.linalg.norm(softmax(sharp + step) - softmax(sharp)) / np.linalg.norm(step)))
    lipschitz = float(np.max(np.concatenate(ratios)))
    q, K = _queries(22), _queries(23)
    G1 = stages(op.density_operator(q), init(DK, 5)).G
    G2 = stages(op.density_operator(_queries(24)), init(DK, 5)).G
    rows, score_rows, formula = [], [], 0.0
    for t in range(0, S, 4):
        e1, e2 = q[t] @ G1 @ K.T / np.sqrt(DK), q[t] @ G2 @ K.T / np.sqrt(DK)
        b = row_bound(q[t], K, G1 - G2)
        formula = float(np.maximum(formula, abs(b / ref.row_perturbation_bound(q[t], K, G1 - G2) - 1)))
        rows.append(np.linalg.norm(softmax(e1) - softmax(e2)) / b)
        score_rows.append(np.linalg.norm(e1 - e2) / b)
    qx, Kx, dGx = _extremal_row()
    bx = row_bound(qx, Kx, dGx)
    de = qx @ dGx @ Kx.T / np.sqrt(DK)
    attained = float(np.linalg.norm(de) / bx)
    attention_x = float(np.linalg.norm(softmax(de) - softmax(np.zeros(2))) / bx)
    formula = float(np.maximum(formula, abs(bx / ref.row_perturbation_bound(qx, Kx, dGx) - 1)))
    worst = float(np.max(rows))
    ok = lipschitz <= 1.0 and worst <= 1.0 and np.max(score_rows) <= 1.0 and formula <= 1e-13 \
        and abs(attained - 1) <= 1e-12 and abs(attention_x - 0.5) <= 1e-6
    return Outcome(ok,
                   (computed("max ||softmax(z) - softmax(z')|| / ||z - z'|| over 2000 pairs + a two-point pair "
                             "(sharp constant 1/2)", lipschitz),
                    bound("row change / (||q_t|| ||K||_2 ||dG||_2 / sqrt(dk)), worst of 8 rows", worst,
                          formula="PLGA §5.3; must be <= 1"),
                    bound("score-row change / bound, worst of the same 8 rows", float(np.max(score_rows)),
                          formula="must be <= 1"),
                    computed("max |library bound / reference formula - 1|", formula, tolerance=1e-13),
                    computed("extremal example: score-row change / bound (attained: 1)", attained, tolerance=1e-12),
                    computed("extremal example: attention-row change / bound (sharp softmax constant: 1/2)",
                             attention_x, tolerance=1e-6)),
                   arrays={"attention_ratios": np.array(rows), "score_ratios": np.array(score_rows)},
                   seeds={"scores": 21, "queries": 22})


# ----------------------------------------------------------------------------------------- A11
@certificate("A11.symbolic", title="D_Q = Q^T Q is symmetric PSD with rank <= min(S, dk)",
             paper="PLGA §3.2",
             claim="D_Q = Q^T Q is symmetric, x^T D_Q x = |Q x|^2 >= 0, and det D_Q == 0 when S < dk.", method="exact")
def density_symbolic(density=op.density_operator) -> Outcome:
    """Symbolic Q (S = 2, dk = 3) and (S = 3, dk = 2) through the library's density_operator."""
    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic import plga as sy

    Q = sy.symbol_matrix("q", 2, 3, real=True)
    x = sy.symbol_matrix("x", 3, 1, real=True)
    gens = tuple(Q.flat) + tuple(x.flat)
    D = ex.matrix(density(Q))
    if D.shape != (3, 3):
        return Outcome(False, (computed("shape of D_Q for Q of shape (S, dk) = (2, 3)", list(D.shape)),))
    sym = ex.matrix_is_zero(D - D.T, gens)
    X, Qm = sp.Matrix(x), sp.Matrix(Q)
    sos = ex.is_zero((X.T * D * X)[0] - sum(v**2 for v in Qm * X), gens)
    rank = ex.is_zero(D.det(), gens)
    Q2 = sy.symbol_matrix("r", 3, 2, real=True)
    full = not ex.is_zero(ex.matrix(density(Q2)).det(), tuple(Q2.flat))
    return Outcome(sym and sos and rank and full,
                   (computed("D - D^T == 0", sym), computed("x^T D x == |Q x|^2 (sum of squares)", sos),
                    computed("S = 2 < dk = 3: det D == 0 (rank <= S)", rank),
                    computed("S = 3 > dk = 2: det D not identically 0 (rank min(S, dk) attainable)", full)))


@certificate("A11.numeric", title="D_Q structure; LayerNorm scale invariance at eps = 0; eps-LN error computed "
                                  "directly", paper="PLGA §3.2, Lemma 5.11",
             claim="D_Q is PSD of rank min(S, dk) for generic Q; LN_0(cD) = LN_0(D); the library's row LayerNorm and "
                   "LN_eps(D) - LN_eps(D/S), computed directly, agree with a 40-digit reference LayerNorm.",
             method="numeric")
def density_numeric(report=op.density_report, layer_norm=op.layer_norm, ln_error=op.ln_scale_error,
                    gated=op.gated_unit, glu=op.glu) -> Outcome:
    """(S, dk) = (8, 32), (32, 32), (64, 32) against numpy's rank of Q; LN at c = 1e-6, 1/64, 1e6; the library's
    LayerNorm and eps error against the reference LayerNorm evaluated row by row in mpmath at 40 digits."""
    queries = {S_: _queries(400 + S_, S_, 32) for S_ in (8, 32, 64)}
    reports = {S_: report(q) for S_, q in queries.items()}
    structure = all(r.symmetry_error == 0 and r.min_eigenvalue >= -r.tol and r.rank == r.rank_bound
                    == np.linalg.matrix_rank(queries[S_]) == min(S_, 32) for S_, r in reports.items())
    sigma_min = float(np.linalg.svd(queries[64], compute_uv=False)[-1])          # full rank: lambda_min = s_min(Q)^2
    lam_min = abs(reports[64].min_eigenvalue / sigma_min ** 2 - 1)
    D = op.density_operator(_queries(410, 64, 32))
    inv = max(float(np.max(np.abs(layer_norm(c * D, eps=0.0) - layer_norm(D, eps=0.0)))) for c in (1e-6, 1 / 64, 1e6))
    rng = np.random.default_rng(411)
    gamma, beta = 1 + 0.1 * rng.normal(size=32), 0.1 * rng.normal(size=32)
    ln_float = float(np.max(np.abs(layer_norm(D, gamma, beta, eps=op.EPS_LN)
                                   - ref.layer_norm_rows(D, gamma, beta, op.EPS_LN))))
    ln_40 = float(np.max(np.abs(layer_norm(D, eps=op.EPS_LN) - ref.layer_norm_rows_mp(D, op.EPS_LN))))
    errs, deviations = [], []
    for scale in (1.0, 1e-3):                                       # typical rows and small-norm rows
        Dq = op.density_operator(_queries(420, 64, 32, scale))
        e = ln_error(Dq, 64, op.EPS_LN)
        exact = ref.layer_norm_rows_mp(Dq, op.EPS_LN) - ref.layer_norm_rows_mp(Dq / 64, op.EPS_LN)
        errs.append(float(np.max(np.abs(e))))
        deviations.append(float(np.max(np.abs(e - exact))))
    # the library defaults (layer_norm, gated_unit) against the authors' eps_LN = 1e-6, at 40 digits; rows of
    # size 1e-160 (var + eps underflows to eps in the scaled units: the |x| << sqrt(eps) branch) and 1e160
    default_ln = float(np.max(np.abs(layer_norm(D) - ref.layer_norm_rows_mp(D, EPS_LN_REFERENCE_CODE))))
    negative = -1e300 * np.abs(D[8:12]) / np.max(np.abs(D[8:12]))    # all-negative rows spanning 1e-300 .. 1e300:
    negative[:, 0] = -1e-300                                            # the row scale is set by the largest |x|
    extreme = np.stack([1e-160 * D[:4], 1e160 * D[4:8], negative])
    extreme_refs = [ref.layer_norm_rows_mp(X, EPS_LN_REFERENCE_CODE) for X in extreme]
    extreme_lib = layer_norm(extreme)                                   # one (3, 4, 32) stack: rows on the last axis
    extreme_ln = max(float(np.max(np.abs(L - R)) / np.max(np.abs(R))) for L, R in zip(extreme_lib, extreme_refs))
    extreme_scale = float(np.max(np.abs(extreme_refs[0])))                   # ~ |x| / sqrt(eps): ~1e-157
    unit = op.init_params(32, 7, n_res=1, hidden=24).units[0]
    dense_default = len(unit.glus) == 2 and len(op.init_params(8).units) == 2    # defaults n_dense = 2, n_res = 2
    rows = _queries(430, 16, 32)
    unit_ref = ref.residual_unit(rows, {"glus": [(g.W1, g.b1, g.W2, g.b2, g.W3, g.b3) for g in unit.glus],
                                        "gamma": unit.ln_gamma, "beta": unit.ln_beta}, EPS_LN_REFERENCE_CODE)
    unit_err = float(np.max(np.abs(gated(rows, unit) - unit_ref)))
    g0 = dataclasses.replace(unit.glus[0], **{b: 0.1 * rng.normal(size=np.shape(getattr(unit.glus[0], b)))
                                              for b in ("b1", "b2", "b3")})   # hidden = 24 != dk = 32, biases != 0
    glu_err = float(np.max(np.abs(glu(rows, g0) - ref.glu(rows, g0.W1, g0.b1, g0.W2, g0.b2, g0.W3, g0.b3))))
    flat_zero = bool(np.all(layer_norm(np.array([[3.0] * 4, [1e-300] * 4, [-1e300] * 4]), eps=0.0) == 0))
    ok = structure and dense_default and flat_zero \
        and inv <= 1e-12 and ln_float <= 1e-13 and ln_40 <= 1e-13 and np.max(deviations) <= 1e-12 \
        and errs[1] > 1e-3 and lam_min <= 1e-10 and default_ln <= 1e-14 and extreme_ln <= 1e-14 \
        and 0 < extreme_scale < 1e-150 and unit_err <= 1e-13 and glu_err <= 1e-15
    return Outcome(ok, (computed("(S, dk) = (8|32|64, 32): [min eigenvalue, rank, bound]",
                                 [[r.min_eigenvalue, r.rank, r.rank_bound] for r in reports.values()]),
                        computed("rank == bound == numpy rank of Q, symmetric, PSD", structure),
                        computed("init_params defaults: n_dense == 2 gated units per residual unit (the authors' 110M model), "
                                 "n_res == 2 residual units", dense_default),
                        computed("S = 64: |min eigenvalue / s_min(Q)^2 - 1| (SVD of Q)", lam_min, tolerance=1e-10),
                        computed("max |LN_0(cD) - LN_0(D)|, c in {1e-6, 1/64, 1e6}", inv, tolerance=1e-12),
                        computed("max |library LN - reference LN| (gamma, beta random, eps = 1e-6)", ln_float,
                                 tolerance=1e-13),
                        computed("max |library LN - reference LN at 40 digits|", ln_40, tolerance=1e-13),
                        computed("max |LN_eps(D) - LN_eps(D/S)|, S = 64, eps = 1e-6: typical rows, |q| ~ 1e-3",
                                 errs),
                        computed("max |library eps error - reference at 40 digits|", float(np.max(deviations)), tolerance=1e-12),
                        computed("max |layer_norm(D) (default eps) - reference LN at eps_LN = 1e-6, 40 digits|",
                                 default_ln, tolerance=1e-14),
                        computed("rows 1e-160 D, 1e160 D: max |library LN - reference at 40 digits| / max |reference| "
                                 "(1e-160 rows: the |x| << sqrt(eps) branch; all-negative rows 1e-300 .. 1e300)",
                                 extreme_ln, tolerance=1e-14),
                        computed("max |reference LN(1e-160 D)| (~ |x - mean| / sqrt(eps))", extreme_scale),
                        computed("max |gated_unit (default eps_ln) - reference LN(GLU(GLU(r)) + r) at eps = 1e-6|",
                                 unit_err, tolerance=1e-13),
                        computed("max |glu(r) - reference GLU(r)| (dk = 32, hidden = 24, random biases)", glu_err,
                                 tolerance=1e-15),
                        computed("float LayerNorm at eps = 0 of constant rows (3.0, 1e-300, -1e300): 0, not 0/0",
                                 flat_zero)),
                   arrays={"D": D}, seeds={"queries": 400, "affine": 411})


# ----------------------------------------------------------------------------------------- A12
@certificate("A12.symbolic", title="Rotary twirl = orthogonal projection onto the commutant (exact Haar average)",
             paper="PLGA Lemma 5.9, §5.4.1",
             claim="The Haar average of R^T G R over the rotation torus is the library's commutant projection, which "
                   "is idempotent and self-adjoint (orthogonal).", method="exact")
def twirl_symbolic(projection=op.commutant_projection, haar=_exact_route("torus_haar_average")) -> Outcome:
    """dk = 4, symbolic G and H; circle moments E[c^i s^j] exactly."""
    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic import plga as sy

    G = sy.symbol_matrix("g", 4, 4, real=True)
    H = sy.symbol_matrix("h", 4, 4, real=True)
    gens = tuple(G.flat) + tuple(H.flat)
    PG, PH = ex.matrix(projection(G)), ex.matrix(projection(H))
    average = ex.equal(haar(sp.Matrix(G)), PG, gens)
    idem = ex.equal(ex.matrix(projection(_obj(np.array(PG.tolist(), dtype=object)))), PG, gens)
    selfadj = ex.is_zero((PG.T * sp.Matrix(H)).trace() - (sp.Matrix(G).T * PH).trace(), gens)
    # the circle moments E[cos^i sin^j] the average is built from, beyond the degree 2 that R^T G R needs, against
    # the Beta integral Gamma((i+1)/2) Gamma((j+1)/2) / (pi Gamma((i+j)/2 + 1)) (0 unless i, j are both even)
    moments = all(sy._trig_moment(i, j) == (sp.gamma(sp.Rational(i + 1, 2)) * sp.gamma(sp.Rational(j + 1, 2))
                                            / (sp.pi * sp.gamma(sp.Rational(i + j, 2) + 1)) if i % 2 == j % 2 == 0 else 0)
                  for i in range(7) for j in range(7))
    return Outcome(average and idem and selfadj and moments,
                   (computed("Haar average of R^T G R == Pi(G)", average), computed("Pi(Pi(G)) == Pi(G)", idem),
                    computed("<Pi G, H> == <G, Pi H>", selfadj),
                    computed("circle moments E[cos^i sin^j], i, j = 0..6 == Beta-integral closed form", moments)))


C_THETA_64 = 44968.27712271532
"""Golden C_Theta for dk = 64, base 10^4 (Lemma 5.9; the paper quotes ~4.4968e4), published by an independent
public audit of the PLGA theory; recomputed here in mpmath from exact frequencies (``reference.plga``)."""


@certificate("A12.numeric", title="Position twirl converges to the commutant projection within C_Theta/S, attained",
             paper="PLGA Lemma 5.9, App. D",
             claim="||(1/S) sum_n R_n M R_n^T - Pi(M)||_F <= (C_Theta/S) ||M||_F with C_Theta = 44968.277... at dk = 64, "
                   "base 10^4; the bound is attained, up to the factor |sin(S omega/2)| -> 1, by a matrix at the worst "
                   "frequency; the off-commutant residual ||G - Pi G||/||G|| of the operator is reported.",
             method="numeric")
def twirl_numeric(twirl=op.position_twirl, projection=op.commutant_projection, constant=op.twirl_constant,
                  residual=op.off_commutant_residual, stages=op.stages_from_density, init=op.init_params) -> Outcome:
    """C_Theta of the library's RoPE frequencies vs the golden value and the reference (mpmath, exact frequencies);
    twirl and projection vs the reference (loop sum, 3-point Haar average per plane); the bound on random M
    (dk = 8, base 10, S = 64..4096) and attained on the extremal M of ``reference.plga.extremal_twirl_input``, at
    dk = 8 (S = 23), on the two worst planes of dk = 64 (S ~ pi/omega ~ 70,600) and on two pairs of high
    frequencies whose worst frequency is a sum or a double (near 2 pi)."""
    C64 = constant(rope_frequencies(64, 1e4))
    C64_ref = ref.twirl_constant(ref.rope_frequencies_mp(64, 10000))
    freqs = rope_frequencies(8, 10.0)
    C = constant(freqs)
    C_ref = ref.twirl_constant(freqs)
    M = np.random.default_rng(12).normal(size=(8, 8))
    Ss = (64, 256, 1024, 4096)
    errs = [float(np.linalg.norm(twirl(M, freqs, s) - projection(M))) for s in Ss]
    bounds_ = [C / s * float(np.linalg.norm(M)) for s in Ss]
    within = all(e <= b for e, b in zip(errs, bounds_))
    slope = float(np.polyfit(np.log(Ss), np.log(errs), 1)[0])
    twirl_ref = float(np.max(np.abs(twirl(M, freqs, 64) - ref.position_twirl(M, freqs, 64))))
    projection_ref = float(np.max(np.abs(projection(M) - ref.haar_projection(M))))
    attained, constants = {}, {}
    cases = (("dk = 8, base 10 (worst: theta_a - theta_b)", freqs),
             ("dk = 64, base 1e4, planes 30-31 (the golden C_Theta)", rope_frequencies(64, 1e4)[30:]),
             ("theta = (3.0, 3.2) (worst: theta_a + theta_b near 2 pi)", np.array([3.0, 3.2])),
             ("theta = (3.1, 1.0) (worst: 2 theta_a near 2 pi)", np.array([3.1, 1.0])))
    for name, fr in cases:
        Mx, omega = ref.extremal_twirl_input(fr)
        near = min(abs(omega) % (2 * np.pi), 2 * np.pi - abs(omega) % (2 * np.pi))   # distance to 2 pi Z
        Sx = int(round(np.pi / near))                                   # |sin(S omega / 2)| ~ 1
        err = float(np.linalg.norm(twirl(Mx, fr, Sx) - projection(Mx)))
        ratio = err / (constant(fr) / Sx * float(np.linalg.norm(Mx)))
        attained[name] = (Sx, ratio, abs(float(np.sin(Sx * omega / 2))))
        constants[name] = abs(constant(fr) / ref.twirl_constant(fr) - 1)
    G = stages(op.density_operator(_queries(500, 64, 8)), init(8, 3)).G
    res_G, res_PG = float(residual(G)), float(residual(projection(G)))
    single = np.zeros((8, 8))
    single[0, 3] = 1.0                                                  # one off-commutant entry: residual exactly 1
    stack = np.stack([G, single, ref.haar_projection(G) + 0.5 * single, np.zeros((8, 8))])
    stack_lib = residual(stack)
    stack_ref = [float(np.linalg.norm(X - ref.haar_projection(X)) / np.linalg.norm(X)) if X.any() else 0.0
                 for X in stack]
    stack_err = float(np.max(np.abs(stack_lib - stack_ref)))
    stack_err = max(stack_err, float(np.max(np.abs(residual(stack.reshape(2, 2, 8, 8)).ravel() - stack_ref))))  # 4-d
    negative = -np.abs(G) * 1e300                                       # all entries < 0, one of them tiny: the
    negative[0, 0] = -1e-300                                            # rescale must use the largest |entry|
    for X, e in ((G, 900), (G, -900), (negative, 0)):                   # residual is scale invariant: reference
        Xs = np.ldexp(X, e)                                             # on X itself (the 1e-300 entry is < 1e-600
        here = float(np.linalg.norm(X - ref.haar_projection(X)) / np.linalg.norm(X)) if e else \
            float(np.linalg.norm(np.ldexp(X, -997) - ref.haar_projection(np.ldexp(X, -997)))
                  / np.linalg.norm(np.ldexp(X, -997)))                  # relative there: below rounding)
        stack_err = float(np.maximum(stack_err, abs(float(residual(Xs)) - here)))      # NaN propagates
    ok = (abs(C64 / C_THETA_64 - 1) <= 1e-12 and abs(C64_ref / C_THETA_64 - 1) <= 1e-14 and abs(C / C_ref - 1) <= 1e-12
          and np.max(list(constants.values())) <= 1e-12 and within and slope <= -0.8 and twirl_ref <= 1e-13 and projection_ref <= 1e-13 and res_PG <= 1e-15
          and all(abs(r / sx - 1) <= 1e-9 and sx >= 0.99 for _, r, sx in attained.values())
          and stack_err <= 1e-14 and stack_lib[1] == 1.0)
    return Outcome(ok, (computed("C_Theta at dk = 64, base 1e4: library", C64, tolerance=1e-12 * C_THETA_64),
                        computed("the same, reference (mpmath, exact frequencies) and golden",
                                 [C64_ref, C_THETA_64], tolerance=1e-14 * C_THETA_64),
                        computed("C_Theta at dk = 8, base 10: library, reference", [C, C_ref], tolerance=1e-12 * C),
                        computed("max |library C_Theta / reference - 1| over the four frequency sets below",
                                 float(np.max(list(constants.values()))), tolerance=1e-12),
                        computed("||twirl_S(M) - Pi M||_F, S = 64..4096", errs),
                        bound("(C_Theta/S) ||M||_F", bounds_, formula="Lemma 5.9"),
                        computed("log-log slope of the twirl error in S", slope),
                        computed("max |library twirl - reference loop| (S = 64)", twirl_ref, tolerance=1e-13),
                        computed("max |library Pi(M) - reference Haar average|", projection_ref, tolerance=1e-13),
                        computed("extremal M: [S, error / bound, |sin(S omega/2)|] (attained iff equal)",
                                 {k: list(v) for k, v in attained.items()}, tolerance=1e-9),
                        computed("off-commutant residual of a random-head G_LM", res_G),
                        computed("off-commutant residual of Pi(G_LM)", res_PG, tolerance=1e-15),
                        computed("residual of the stack [G_LM, E_03, Pi(G_LM) + E_03/2, 0]: library (E_03 attains 1)",
                                 [float(x) for x in stack_lib]),
                        computed("max |library - ||X - Haar(X)||_F / ||X||_F| over the stack and G_LM 2^(+-900), "
                                 "an all-negative G with entries 1e-300 .. 1e300 (reference); the stack as (2, 2, 8, 8)", stack_err,
                                 tolerance=1e-14)),
                   arrays={"M": M, "errors": np.array(errs)}, seeds={"M": 12, "queries": 500})


# ----------------------------------------------------------------------------------------- A13
@certificate("A13.symbolic", title="DAG-loss floor: h(W) >= tr(W o W) >= dk eps^2 for entries >= eps",
             paper="PLGA §4.3, §7",
             claim="Every walk term of h is >= 0 and the k = 1 term is sum_i W_ii^2, so W_ii >= eps gives "
                   "h >= dk eps^2; at W = eps 1 1^T, tr((W o W)^k) = (dk eps^2)^k and h = e^{dk eps^2} - 1.",
             method="exact")
def dag_floor_symbolic(trace_power=_exact_route("trace_power"), floor=op.dag_floor) -> Outcome:
    """d = 3: the k = 1 term; the all-eps matrix for k = 1..5; the library floor at symbolic eps."""
    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic import plga as sy

    w = sy.symbol_matrix("w", 3, 3, real=True)
    gens = tuple(w.flat)
    first = ex.is_zero(trace_power(sp.Matrix(w * w), 1) - sum(w[i, i] ** 2 for i in range(3)), gens)
    eps = sp.Symbol("epsilon", positive=True)
    Mall = sp.Matrix(3, 3, lambda i, j: eps**2)
    closed = all(ex.is_zero(trace_power(Mall, k) - (3 * eps**2) ** k, (eps,)) for k in range(1, 6))
    e0 = sp.Rational(1, 1024)                                   # exact in binary: the float floor is exact too
    lib_floor = ex.is_zero(ex.exact(float(floor(3, float(e0)))) - trace_power(Mall, 1).subs(eps, e0), ())
    return Outcome(first and closed and lib_floor,
                   (computed("tr(W o W) == sum_i W_ii^2", first),
                    computed("all-eps W: tr((W o W)^k) == (3 eps^2)^k, k = 1..5", closed),
                    computed("dag_floor(3, 2^-10) == tr(eps^2 J) at eps = 2^-10 (the floor is the k = 1 term)",
                             lib_floor)))


@certificate("A13.numeric", title="DAG-loss floor dk eps^2 holds and is attained, evaluated overflow-safely",
             paper="PLGA §4.3, §7",
             claim="For A_LM (entries >= eps) h >= dk eps^2, attained to 1e-10 at A_LM = eps 1 1^T (dk = 64, "
                   "eps = 1e-9) where the naive tr expm - d cancels to 0; h stays finite in log form where expm "
                   "overflows.", method="numeric")
def dag_floor_numeric(notears=op.notears_h, floor=op.dag_floor, stages=op.stages_from_density,
                      init=op.init_params) -> Outcome:
    """All-eps 64 x 64; the zero head's A_LM; random heads; 8 x 8 all-10 matrix (h ~ e^800) vs mpmath."""
    import mpmath as mp
    from scipy.linalg import expm

    dk, eps = 64, op.EPS
    flat = np.full((dk, dk), eps)
    h_flat = notears(flat).h
    fl = float(floor(dk, eps))
    attained = abs(h_flat / fl - 1)
    naive = float(np.trace(expm(flat * flat))) - dk
    heads = []
    for seed in range(3):
        A = stages(op.density_operator(_queries(600 + seed)), init(DK, seed)).A_LM
        heads.append(notears(A).h / float(floor(DK, eps)))
    zero_head = dataclasses.replace(init(DK, 1), W=np.zeros((DK, DK)))
    A0 = stages(op.density_operator(_queries(610)), zero_head).A_LM
    ratio0 = notears(A0).h / float(floor(DK, eps))
    big = np.full((8, 8), 10.0)
    hv = notears(big)
    with mp.workdps(40):
        Mm = mp.matrix([[mp.mpf(100)] * 8 for _ in range(8)])          # W o W at 40 digits
        log_ref = float(mp.log(sum(mp.expm(Mm)[i, i] for i in range(8)) - 8))
    with np.errstate(over="ignore"):
        naive_big = float(np.trace(expm(big * big))) - 8
    ok = h_flat >= fl * (1 - 1e-12) and attained <= 1e-10 and min(heads) >= 1 and abs(ratio0 - 1) <= 1e-10 \
        and abs(hv.log_h - log_ref) <= 1e-9
    return Outcome(ok, (computed("h(eps 1 1^T), dk = 64, eps = 1e-9", h_flat), bound("dk eps^2", fl, formula="A13"),
                        computed("|h / (dk eps^2) - 1| at the floor", attained, tolerance=1e-10),
                        proxy("naive tr expm(W o W) - d at the floor", naive, formula="cancels in float64"),
                        computed("h / floor for 3 random heads' A_LM (>= 1)", heads),
                        computed("zero head (A_LM = eps): h / floor", ratio0, tolerance=1e-10),
                        computed("all-10 8x8: log h (library)", hv.log_h),
                        computed("all-10 8x8: |log h - log(tr expm - 8)| (mpmath, 40 digits)", abs(hv.log_h - log_ref),
                                 tolerance=1e-9),
                        proxy("naive tr expm - d at all-10 8x8", naive_big, formula="overflows to inf")),
                   arrays={"h_over_floor": np.array(heads), "A_LM_zero_head": A0}, seeds={"heads": 600})

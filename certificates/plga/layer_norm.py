"""Certificates of the density operator and LayerNorm (claims A11, A15; PLGA §3.2, Lemma 5.11).

A11: D_Q = Q^T Q is symmetric PSD with rank <= min(S, dk); LayerNorm of D is scale invariant at eps = 0 and the
eps-LayerNorm error LN(D) - LN(D/S) is computed directly, not by proxy. A15: eps-LayerNorm's exact shift
invariance, the ball identity sum u^2 = d var/(var + eps), scale invariance only at eps = 0, and the labelled
first-order proxy (Lean: LayerNorm).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from theorylab import plga
from theorylab.certificates.plga._common import _obj, _queries
from theorylab.certificates.reference import plga as ref
from theorylab.certificates.reference import plga_lean as lref
from theorylab.certify import Outcome, bound, certificate, computed, proxy
from theorylab.errors import ParameterError


EPS_LN_REFERENCE_CODE = 1e-6
"""The LayerNorm ``eps`` of the authors' public model code (Lemma 5.11's eps_LN), the library's documented default."""



# ----------------------------------------------------------------------------------------- A11
@certificate("A11.symbolic", title="D_Q = Q^T Q is symmetric PSD with rank <= min(S, dk)",
             paper="PLGA §3.2",
             claim="D_Q = Q^T Q is symmetric, x^T D_Q x = |Q x|^2 >= 0, and det D_Q == 0 when S < dk.", method="exact")
def density_symbolic() -> Outcome:
    """Symbolic Q (S = 2, dk = 3) and (S = 3, dk = 2) through the library's density_operator."""
    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic import plga as sy

    Q = sy.symbol_matrix("q", 2, 3, real=True)
    x = sy.symbol_matrix("x", 3, 1, real=True)
    gens = tuple(Q.flat) + tuple(x.flat)
    D = ex.matrix(plga.density_operator(Q))
    if D.shape != (3, 3):
        return Outcome(False, (computed("shape of D_Q for Q of shape (S, dk) = (2, 3)", list(D.shape)),))
    sym = ex.matrix_is_zero(D - D.T, gens)
    X, Qm = sp.Matrix(x), sp.Matrix(Q)
    sos = ex.is_zero((X.T * D * X)[0] - sum(v**2 for v in Qm * X), gens)
    rank = ex.is_zero(D.det(), gens)
    Q2 = sy.symbol_matrix("r", 3, 2, real=True)
    full = not ex.is_zero(ex.matrix(plga.density_operator(Q2)).det(), tuple(Q2.flat))
    return Outcome(sym and sos and rank and full,
                   (computed("D - D^T == 0", sym), computed("x^T D x == |Q x|^2 (sum of squares)", sos),
                    computed("S = 2 < dk = 3: det D == 0 (rank <= S)", rank),
                    computed("S = 3 > dk = 2: det D not identically 0 (rank min(S, dk) attainable)", full)))



@certificate("A11.numeric", title="D_Q structure; LayerNorm scale invariance at eps = 0; eps-LN error computed "
                                  "directly", paper="PLGA §3.2, Lemma 5.11",
             claim="D_Q is PSD of rank min(S, dk) for generic Q; LN_0(cD) = LN_0(D); the library's row LayerNorm and "
                   "LN_eps(D) - LN_eps(D/S), computed directly, agree with a 40-digit reference LayerNorm.",
             method="numeric")
def density_numeric() -> Outcome:
    """(S, dk) = (8, 32), (32, 32), (64, 32) against numpy's rank of Q; LN at c = 1e-6, 1/64, 1e6; the library's
    LayerNorm and eps error against the reference LayerNorm evaluated row by row in mpmath at 40 digits."""
    queries = {S_: _queries(400 + S_, S_, 32) for S_ in (8, 32, 64)}
    reports = {S_: plga.density_report(q) for S_, q in queries.items()}
    structure = all(r.symmetry_error == 0 and r.min_eigenvalue >= -r.tol and r.rank == r.rank_bound
                    == np.linalg.matrix_rank(queries[S_]) == min(S_, 32) for S_, r in reports.items())
    sigma_min = float(np.linalg.svd(queries[64], compute_uv=False)[-1])          # full rank: lambda_min = s_min(Q)^2
    lam_min = abs(reports[64].min_eigenvalue / sigma_min ** 2 - 1)
    D = plga.density_operator(_queries(410, 64, 32))
    inv = max(float(np.max(np.abs(plga.layer_norm(c * D, eps=0.0) - plga.layer_norm(D, eps=0.0))))
              for c in (1e-6, 1 / 64, 1e6))
    rng = np.random.default_rng(411)
    gamma, beta = 1 + 0.1 * rng.normal(size=32), 0.1 * rng.normal(size=32)
    ln_float = float(np.max(np.abs(plga.layer_norm(D, gamma, beta, eps=plga.EPS_LN)
                                   - ref.layer_norm_rows(D, gamma, beta, plga.EPS_LN))))
    ln_40 = float(np.max(np.abs(plga.layer_norm(D, eps=plga.EPS_LN) - ref.layer_norm_rows_mp(D, plga.EPS_LN))))
    errs, deviations = [], []
    for scale in (1.0, 1e-3):                                       # typical rows and small-norm rows
        Dq = plga.density_operator(_queries(420, 64, 32, scale))
        e = plga.ln_scale_error(Dq, 64, plga.EPS_LN)
        exact = ref.layer_norm_rows_mp(Dq, plga.EPS_LN) - ref.layer_norm_rows_mp(Dq / 64, plga.EPS_LN)
        errs.append(float(np.max(np.abs(e))))
        deviations.append(float(np.max(np.abs(e - exact))))
    # the library defaults (layer_norm, gated_unit) against the authors' eps_LN = 1e-6, at 40 digits; rows of
    # size 1e-160 (var + eps underflows to eps in the scaled units: the |x| << sqrt(eps) branch) and 1e160
    default_ln = float(np.max(np.abs(plga.layer_norm(D) - ref.layer_norm_rows_mp(D, EPS_LN_REFERENCE_CODE))))
    negative = -1e300 * np.abs(D[8:12]) / np.max(np.abs(D[8:12]))    # all-negative rows spanning 1e-300 .. 1e300:
    negative[:, 0] = -1e-300                                            # the row scale is set by the largest |x|
    extreme = np.stack([1e-160 * D[:4], 1e160 * D[4:8], negative])
    extreme_refs = [ref.layer_norm_rows_mp(X, EPS_LN_REFERENCE_CODE) for X in extreme]
    extreme_lib = plga.layer_norm(extreme)                              # one (3, 4, 32) stack: rows on the last axis
    extreme_ln = max(float(np.max(np.abs(L - R)) / np.max(np.abs(R))) for L, R in zip(extreme_lib, extreme_refs))
    extreme_scale = float(np.max(np.abs(extreme_refs[0])))                   # ~ |x| / sqrt(eps): ~1e-157
    unit = plga.init_params(32, 7, n_res=1, hidden=24).units[0]
    dense_default = len(unit.glus) == 2 and len(plga.init_params(8).units) == 2    # defaults n_dense = 2, n_res = 2
    rows = _queries(430, 16, 32)
    unit_ref = ref.residual_unit(rows, {"glus": [(g.W1, g.b1, g.W2, g.b2, g.W3, g.b3) for g in unit.glus],
                                        "gamma": unit.ln_gamma, "beta": unit.ln_beta}, EPS_LN_REFERENCE_CODE)
    unit_err = float(np.max(np.abs(plga.gated_unit(rows, unit) - unit_ref)))
    g0 = dataclasses.replace(unit.glus[0], **{b: 0.1 * rng.normal(size=np.shape(getattr(unit.glus[0], b)))
                                              for b in ("b1", "b2", "b3")})   # hidden = 24 != dk = 32, biases != 0
    glu_err = float(np.max(np.abs(plga.glu(rows, g0) - ref.glu(rows, g0.W1, g0.b1, g0.W2, g0.b2, g0.W3, g0.b3))))
    flat_zero = bool(np.all(plga.layer_norm(np.array([[3.0] * 4, [1e-300] * 4, [-1e300] * 4]), eps=0.0) == 0))
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



# ----------------------------------------------------------------------------------------- A15
def _refused(call) -> bool:
    """Whether ``call()`` is refused with :class:`ParameterError` (any value returned: not refused)."""
    try:
        call()
    except ParameterError:
        return True
    return False


def _radical_form(expr):
    """``(part, radicand)`` with ``expr = part * radicand^(-1/2)``, ``part`` free of the radical (exact rationals), or
    None when ``expr`` does not have that form (e.g. a radical inside a sum)."""
    import sympy as sp

    from theorylab.symbolic import exact as ex

    e = ex.exact(expr)
    bases = {p.base for p in e.atoms(sp.Pow) if p.exp in (sp.Rational(1, 2), sp.Rational(-1, 2))}
    if len(bases) != 1:
        return None
    Q = bases.pop()
    r = sp.Dummy("r", positive=True)
    part = sp.cancel(e.xreplace({Q ** sp.Rational(-1, 2): 1 / r, Q ** sp.Rational(1, 2): r}) * r)
    return None if part.has(r) else (part, Q)



@certificate("A15.symbolic", title="eps-LayerNorm: exact shift invariance, the ball identity, scale invariance only "
                                   "at eps = 0",
             paper="PLGA Lemma 5.11; Lean LayerNorm.lean (lnEps_shift, sum_sq_normalized, lnEps_scale_eps_zero)",
             claim="LN_eps(r + c 1) = LN_eps(r) for every eps, gamma, beta; sum_i ((r_i - mean)/sqrt(var + eps))^2 = "
                   "d var/(var + eps) < d (a ball, not the sphere); LN_0(c r) = LN_0(r) for c > 0, while for eps > 0 "
                   "LN_eps(c r) != LN_eps(r) (a rational witness); a numeric eps < 0 is refused.",
             method="exact")
def layer_norm_exact() -> Outcome:
    """Symbolic row (d = 3) and symbolic eps, c, gamma, beta through the library's LayerNorm (object arrays). Each
    output entry must have the form beta_i + part_i / sqrt(radicand): part and radicand are then compared with the
    formula as rational functions over QQ (an entry of any other form fails the check). A numeric eps < 0 with an
    exact row must be refused (Lemma 5.11's eps >= 0), not evaluated."""
    import sympy as sp

    from theorylab.symbolic import exact as ex

    d = 3
    x = ex.symbol_array("x", d, real=True)
    g, b = ex.symbol_array("g", d, real=True), ex.symbol_array("b", d, real=True)
    c = sp.Symbol("c", real=True)
    e = sp.Symbol("epsilon", positive=True)
    gens = tuple(x) + tuple(g) + tuple(b) + (c, e)
    mean = sum(x) / d
    var = sum((xi - mean) ** 2 for xi in x) / d

    def form(out, parts, radicand, gens_, affine=None):
        """Every entry is (beta_i +) gamma_i part_i / sqrt(radicand): the eps-LayerNorm formula, decided exactly."""
        found = [_radical_form(v - (0 if affine is None else affine[i])) for i, v in enumerate(out)]
        return all(f is not None and ex.is_zero(f[1] - radicand, gens_) and ex.is_zero(f[0] - p, gens_)
                   for f, p in zip(found, parts))

    formula = form(plga.layer_norm(x, g, b, eps=e), [gi * (xi - mean) for gi, xi in zip(g, x)], var + e, gens, b)
    shift = form(plga.layer_norm(x + c, g, b, eps=e), [gi * (xi - mean) for gi, xi in zip(g, x)], var + e, gens, b)
    plain = [_radical_form(v) for v in plga.layer_norm(x, eps=e)]
    ball = all(f is not None for f in plain) and ex.is_zero(sum(p ** 2 for p, _ in plain) / plain[0][1]
                                                            - d * var / (var + e), gens)
    below = ex.is_zero((d - d * var / (var + e)) - d * e / (var + e), gens)            # d - ball = d eps/(var+eps) > 0
    cp = sp.Symbol("c", positive=True)
    gens0 = tuple(x) + (cp,)
    scale0 = form(plga.layer_norm(cp * x, eps=0), [cp * (xi - mean) for xi in x], cp ** 2 * var,  # = LN_0(x), c > 0
                  gens0)
    w = _obj([sp.Integer(0), sp.Integer(1), sp.Integer(3)])
    quarter = sp.Rational(1, 4)
    sq_scaled = ex.exact(plga.layer_norm(2 * w, eps=quarter)[0] ** 2)
    sq_plain = ex.exact(plga.layer_norm(w, eps=quarter)[0] ** 2)
    witness = not ex.is_zero(sq_scaled - sq_plain, ())
    rows = [[0, 1, 3], [8, 6, 5]]                     # var = 14/9 per row; eps = 2/9 makes sqrt(var + eps) = 4/3
    out = plga.layer_norm(_obj([[sp.Integer(v) for v in r] for r in rows]), eps=sp.Rational(2, 9))
    rowwise = np.shape(out) == (2, 3) and all(
        ex.is_zero(ex.exact(out[i][j]) - (v - sp.Rational(sum(r), 3)) * sp.Rational(3, 4), ())
        for i, r in enumerate(rows) for j, v in enumerate(r))
    # eps = 0: a constant row (var = 0) is 0, not 0/0; a row with var = 1 is x - mean
    flat = plga.layer_norm(_obj([[sp.Integer(5)] * 2, [sp.Integer(0), sp.Integer(2)]]), eps=0)
    eps0 = np.shape(flat) == (2, 2) and all(ex.is_zero(ex.exact(v) - t, ())
                                            for v, t in zip(np.ravel(flat), (0, 0, -1, 1)))
    negative, mp_eps = _exact_route_eps(w)
    ok = formula and shift and ball and below and scale0 and witness and rowwise and eps0 and negative and mp_eps
    return Outcome(ok, (computed("LN_eps(x) == beta + gamma (x - mean)/sqrt(var + eps) (gamma, beta, eps symbolic)",
                                 formula),
                        computed("LN_eps(x + c) == LN_eps(x) (gamma, beta, eps symbolic)", shift),
                        computed("sum LN_eps(x)_i^2 == d var/(var + eps) (gamma = 1, beta = 0)", ball),
                        computed("d - sum = d eps/(var + eps) > 0: the range is a ball", below),
                        computed("LN_0(c x) == c (x - mean)/sqrt(c^2 var) == LN_0(x) for c > 0", scale0),
                        computed("eps = 1/4, x = (0, 1, 3): LN(2x)_0^2 != LN(x)_0^2 (scale invariance fails)",
                                 witness),
                        computed("2x3 rational matrix [[0, 1, 3], [8, 6, 5]], eps = 2/9: each row normalised by its "
                                 "own mean and variance, == 3 (x - mean_row)/4 exactly", rowwise),
                        computed("eps = 0: LN([5, 5]) == [0, 0] (constant row), LN([0, 2]) == [-1, 1] exactly", eps0),
                        computed("exact row (0, 1, 3) with eps = -1 as an int, a SymPy Rational and (on the mpmath "
                                 "row) an mpf is refused (ParameterError: eps >= 0 on the exact route too)", negative),
                        computed("mpmath row (0, 1, 3), eps = mpf(2)/9: accepted, == (-1, -1/4, 5/4) to 1e-14",
                                 mp_eps)))


def _exact_route_eps(w) -> tuple[bool, bool]:
    """A negative eps is refused on the exact route whatever its number type (var = 14/9 > 1, so sqrt(var - 1)
    would be real); an mpmath eps on an mpmath row is accepted and gives the exact value."""
    import mpmath
    import sympy as sp

    w_mp = _obj([mpmath.mpf(0), mpmath.mpf(1), mpmath.mpf(3)])
    negative = all(_refused(lambda row=row, e=e: plga.layer_norm(row, eps=e))
                   for row, e in ((w, -1), (w, sp.Rational(-1)), (w_mp, mpmath.mpf(-1))))
    try:
        got = np.ravel(plga.layer_norm(w_mp, eps=mpmath.mpf(2) / 9))
        mp_eps = len(got) == 3 and all(abs(g - t) <= 1e-14 for g, t in zip(got, (-1, -0.25, 1.25)))
    except ParameterError:
        mp_eps = False
    return negative, mp_eps



@certificate("A15.numeric", title="eps-LayerNorm in float64: ball identity, shift invariance, and the labelled proxy "
                                  "eps/(2v) beside the direct scale error",
             paper="PLGA Lemma 5.11(ii); the authors' audit (ln_pair_error)",
             claim="sum LN(r)^2 = d v/(v + eps) on rows from v >> eps to v << eps; LN(r + c) = LN(r); the direct relative "
                   "error ||LN(r) - LN(r/S)||/||LN(r/S)|| equals sqrt((v + eps)/(v + eps/S^2)) - 1 <= eps/(2v) without "
                   "affine parameters (v = var(r/S)), tight as eps/v -> 0; with an affine beta the proxy is no bound.",
             method="numeric")
def layer_norm_numeric() -> Outcome:
    """Rows of N(0, s^2) for s from 1e-5 to 10 (eps = 1e-6, d = 64) against ``reference.plga_lean`` (mpmath); the
    authors' test row (default_rng(1), 64 entries, S = 40); an affine witness."""
    eps, S, d = plga.EPS_LN, 40.0, 64
    rng = np.random.default_rng(15)
    rows = np.stack([s * rng.standard_normal(d) for s in (1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0)])
    ball = np.sum(plga.layer_norm(rows, eps=eps) ** 2, axis=1)
    ball_ref = np.array([lref.ln_ball_value(r, eps) for r in rows])
    ball_err = float(np.max(np.abs(ball / ball_ref - 1)))
    ulps = np.sqrt(np.var(rows, axis=1) + eps) / (3.0 + np.max(np.abs(rows), axis=1))   # rounding of r + 3, scaled
    shift = float(np.max(np.max(np.abs(plga.layer_norm(rows + 3.0, eps=eps) - plga.layer_norm(rows, eps=eps)), axis=1)
                         * ulps))
    direct = (np.linalg.norm(plga.ln_scale_error(rows, S, eps), axis=1)
              / np.linalg.norm(plga.layer_norm(rows / S, eps=eps), axis=1))
    closed = np.array([lref.ln_relative_scale_error(r, S, eps) for r in rows])
    direct_err = float(np.max(np.abs(direct / closed - 1)))
    prox = plga.ln_scale_proxy(rows, S, eps)
    v = np.var(rows / S, axis=1)
    proxy_err = float(np.max(np.abs(prox / (eps / (2 * v)) - 1)))
    ratio = direct / prox
    authors_row = np.random.default_rng(1).standard_normal(64)
    authors_ratio = float((np.linalg.norm(plga.ln_scale_error(authors_row, S, eps))
                           / np.linalg.norm(plga.layer_norm(authors_row / S, eps=eps)))
                          / plga.ln_scale_proxy(authors_row, S, eps))
    beta = -plga.layer_norm(rows[5] / S, eps=eps) * 0.999                    # affine beta almost cancelling LN(r/S)
    affine = float(np.linalg.norm(plga.ln_scale_error(rows[5], S, eps))
                   / np.linalg.norm(plga.layer_norm(rows[5] / S, beta=beta, eps=eps))
                   / plga.ln_scale_proxy(rows[5], S, eps))
    constant = plga.ln_scale_proxy(np.full((1, 8), 3.14), S, eps)
    constant0 = plga.ln_scale_proxy(np.full((1, 8), 3.14), S, 0.0)                  # eps = 0 too: inf, not 0/0
    # rows spanning 2^-1000 .. 2^100 whose largest |x| is negative (sets the row scale), and their negation
    wide = np.array([[-2.0 ** 100, -2.0 ** 99, 2.0 ** -1000, 0.0, -1.0, -3.0]])
    wide = np.concatenate([wide, -wide])
    wide_err = float(np.max(np.abs(plga.ln_scale_proxy(wide, S, eps) / [lref.ln_scale_proxy_mp(r, S, eps) for r in wide]
                                   - 1)))
    ok = (ball_err <= 1e-12 and bool(np.all(ball < d)) and shift <= 1e-14 and direct_err <= 1e-8 and proxy_err <= 1e-15
          and bool(np.all(ratio <= 1 + 1e-9)) and 1 - 1e-3 <= ratio[-1] <= 1 and affine > 1 and np.isinf(constant[0])
          and wide_err <= 1e-15 and np.isposinf(constant0[0]))
    return Outcome(ok, (computed("max rel |sum LN^2 - d v/(v + eps)| (mpmath), 7 rows", ball_err, tolerance=1e-12),
                        computed("sum LN^2 per row (d = 64; < d: ball)", ball),
                        computed("max |LN(r + 3) - LN(r)| sqrt(v + eps) / (3 + max|r|) (rounding of r + 3: ~ulps)",
                                 shift, tolerance=1e-14),
                        computed("max rel |direct relative error / closed form - 1|", direct_err, tolerance=1e-8),
                        computed("max rel |library proxy - eps/(2 var(r/S))|", proxy_err, tolerance=1e-15),
                        bound("direct / proxy per row (<= 1 without affine; -> 1 as eps/v -> 0)", ratio,
                              formula="sqrt((v + eps)/(v + eps/S^2)) - 1 <= eps/(2v)"),
                        computed("the authors' test row (default_rng(1), S = 40): direct / proxy (they assert 1 +- 0.1)",
                                 authors_ratio),
                        proxy("with beta ~ -LN(r/S): direct / proxy (> 1: not a bound with affine parameters)", affine,
                              formula="eps / (2 var(r/S))"),
                        computed("proxy on a constant row (the direct error is 0 there), eps = 1e-6 and eps = 0",
                                 [float(constant[0]), float(constant0[0])]),
                        computed("rows spanning 2^-1000 .. 2^100, largest |x| negative / positive: max rel |proxy - "
                                 "eps/(2 var(r/S))| (mpmath)", wide_err, tolerance=1e-15)),
                   arrays={"rows": rows, "direct": direct, "proxy": prox}, seeds={"rows": 15, "authors_row": 1})


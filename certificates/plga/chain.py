"""Certificates of PLGA's forward chain (claims A2, A14): positivity, the metric learner, the Hadamard power.

A2: iSwiGLU(u) = u^2 sigmoid(u) >= 0 exactly, so A_LM >= eps and A_P = A_LM^P > 0 (A2.symbolic); the float chain
against the reference chain (A2.numeric); the metric learner Phi_res in both residual conventions and the
reference initialisation, with the authors' rank-63 observation (A2.metric, the authors' public model code).
A14: the Hadamard-power group law A^{o(s+t)P} = A^{o sP} o A^{o tP}, A^{o 0} = 1 (Lean: HadamardPower).
PLGA §3.1, eqs. 3.1-3.5, Prop. 3.7, 3.11.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from theorylab import plga
from theorylab.certificates import _reference_views as view
from theorylab.certificates.plga._common import DK, RANK_RTOL, STAGE_RTOL, _obj, _queries, _rel, _stage_errors
from theorylab.certificates.reference import plga as ref
from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.errors import ParameterError


# ----------------------------------------------------------------------------------------- A2
@certificate("A2.symbolic", title="iSwiGLU(u) = silu(u) u = u^2 sigmoid(u) >= 0; powers of positives are positive",
             paper="PLGA §3.1 eq. 3.1, 3.4-3.5",
             claim="iSwiGLU(u) = u^2 sigmoid(u) >= 0 for real u, so A_LM = iSwiGLU + eps > 0 and A_P = A_LM^P > 0.",
             method="exact")
def iswiglu_exact() -> Outcome:
    """Library iSwiGLU on a symbol, with ``exp(-u) -> y > 0``: a rational function of (u, y)."""
    import sympy as sp

    from theorylab.symbolic import exact as ex

    u = sp.Symbol("u", real=True)
    y, eps, p = sp.Symbol("y", positive=True), sp.Symbol("epsilon", positive=True), sp.Symbol("p", real=True)
    to_y = {sp.exp(-u): y}
    f = ex.exact(plga.iswiglu(_obj([u]))[0]).subs(to_y)
    g = ex.exact((plga.silu(_obj([u])) * u)[0]).subs(to_y)
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



@certificate("A2.numeric", title="A_LM >= eps and A_P = A_LM^P > 0 entrywise, against the reference chain",
             paper="PLGA §3.1-3.2, §2.2",
             claim="iSwiGLU >= 0 in float64 over |u| <= 800; A_LM, A_P = A_LM^(.P) and G_LM equal the reference chain "
                   "of eqs. 3.3-3.6 entrywise; every A_LM entry >= eps (attained by the zero head) and every A_P > 0.",
             method="numeric")
def positivity_numeric() -> Outcome:
    """iSwiGLU vs u^2 expit(u) (SciPy); 5 random heads, the zero head (U = 0) and b_W = -50 against the reference
    chain (theorylab.certificates.reference.plga: A_P as exp(P o log A_LM), PLGA §2.2), and A_P against exp(P o log A_LM)
    of the library's own A_LM (eq. 3.5 alone)."""
    from scipy.special import expit

    u = np.concatenate([np.linspace(-800, 800, 16001), [0.0, 1e-200, -1e-200]])
    f = plga.iswiglu(u)
    ref_f = u * u * expit(u)
    normal = ref_f >= np.finfo(float).tiny * 1e10          # relative accuracy is only defined off the subnormals
    rel = float(np.max(np.abs(f - ref_f)[normal] / ref_f[normal]))
    sub = float(np.max(np.abs(f - ref_f)[~normal]))
    nonneg = bool(np.all(f >= 0) and np.all(np.isfinite(f)))
    top = 1e154                                                   # the documented domain u <= 1e154, attained:
    edge = float(abs(plga.iswiglu(np.array([top]))[0] / (top * top) - 1))     # u^2 sigmoid(u) = u^2 there (1e308)
    try:                                                          # and the next float above is refused
        plga.iswiglu(np.array([np.nextafter(top, np.inf)]))
        edge_refused = False
    except ParameterError:
        edge_refused = True
    base = plga.init_params(DK, 7)
    heads = {f"head{seed}": (plga.init_params(DK, seed), _queries(100 + seed)) for seed in range(5)}
    heads["zero head (U = 0)"] = (dataclasses.replace(base, W=np.zeros((DK, DK))), _queries(7))
    heads["b_W = -50"] = (dataclasses.replace(base, W=np.zeros((DK, DK)), b_W=np.full((DK, DK), -50.0)), _queries(7))
    errors, power, mins, arrays = {}, 0.0, {}, {}
    for name, (params, q) in heads.items():
        D = q.T @ q
        lib, reference = plga.stages_from_density(D, params), ref.stages(D, view.psi(params))
        errors[name] = _stage_errors(lib, reference)
        power = float(np.maximum(power, np.max(np.abs(lib.A_P / np.exp(params.P * np.log(lib.A_LM)) - 1))))
        mins[name] = (float(lib.A_LM.min()) - params.eps, float(lib.A_P.min()))
        arrays[f"{name}: A_P"] = lib.A_P
    worst = {k: float(np.max([e[k] for e in errors.values()])) for k in ("A_LM", "A_P", "G")}     # NaN propagates
    zero = plga.stages_from_density(plga.density_operator(_queries(7)), heads["zero head (U = 0)"][0])
    floor_attained = bool(np.all(zero.A_LM == base.eps))
    paper_floor = bool(base.eps == 1e-9)                           # the paper's eps = 10^-9 floor (PLGA §3, §6.1)
    margins = plga.positivity_margins(zero, base.eps)                # min iSwiGLU = 0 attained: still positive
    zero_margins = bool(margins.min_iswiglu == 0 and margins.min_A_LM == base.eps and margins.positive)
    positive = all(a >= 0 and p > 0 for a, p in mins.values())
    table = {(0.0, 0.5, 5e-324, 0.5): True, (-5e-324, 0.5, 1.0, 0.5): False,    # (min iSwiGLU, min A_LM, min A_P, eps):
             (0.0, np.nextafter(0.5, 0), 1.0, 0.5): False, (0.0, 0.5, 0.0, 0.5): False,    # each condition fails alone
             (0.0, 0.0, 1.0, 0.0): False, (0.0, 5e-324, 1.0, 0.0): True}   # eps = 0: A_LM > 0 still required
    truth_table = all(bool(plga.PositivityMargins(*row).positive) is want for row, want in table.items())
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



# ----------------------------------------------------------------------------------------- A2 (residual units)
@certificate("A2.metric", title="Phi_res in both residual conventions (the authors' LN(GLU(r) + r), ours additive) "
                                "against the reference; rank 63 of 64 only with the final LayerNorm",
             paper="PLGA eq. 3.3, Prop. 3.11; the authors' public model code (ResLayerA)",
             claim="The library's metric learner, with the authors' gated unit LN(W3(silu(W1 r) * W2 r) + r) and with "
                   "our additive unit r + silu(r W1) W2, equals the reference chain; with the authors' 110M "
                   "configuration (dk = 64, 8 units of 2 gated layers, width 180) and S = 40 random queries the "
                   "final LayerNorm makes every row of A mean-zero, so A has numerical rank 63 (tolerance "
                   "64 eps_float32 s_1, the authors'); without it (additive units) rank 64.",
             method="numeric")
def metric_learner() -> Outcome:
    """Small heads (dk = 16, 3 units) in both conventions and the authors' configuration, library vs
    ``reference.plga.stages``; singular values of the reference's A (NumPy SVD)."""
    errors, arrays = {}, {}
    for residual in plga.RESIDUALS:
        worst = {"A": 0.0, "A_LM": 0.0, "G": 0.0}
        for seed in range(3):
            params = plga.init_params(16, seed, n_res=3, residual=residual)
            D = plga.density_operator(_queries(700 + seed, 24, 16))
            lib, reference = plga.stages_from_density(D, params), ref.stages(D, view.psi(params))
            worst = {"A": max(worst["A"], _rel(lib.A, reference["A"])),
                     "A_LM": max(worst["A_LM"], float(np.max(np.abs(lib.A_LM / reference["A_LM"] - 1)))),
                     "G": max(worst["G"], _rel(lib.G, reference["G"]))}
        errors[residual] = worst
    ranks, floors, means, big = {}, {}, {}, {}
    q = _queries(710, 40, 64)
    for residual in plga.RESIDUALS:
        params = plga.init_params(64, 11, n_res=8, n_dense=2, hidden=180, residual=residual)
        lib = plga.stages_from_density(plga.density_operator(q), params)
        reference = ref.stages(plga.density_operator(q), view.psi(params))
        big[residual] = _rel(lib.A, reference["A"])
        s = np.linalg.svd(reference["A"], compute_uv=False)
        ranks[residual] = int(np.sum(s > RANK_RTOL * s[0]))
        floors[residual] = float(s[-1] / s[0])
        means[residual] = float(np.max(np.abs(reference["A"].mean(axis=1))) / np.max(np.abs(reference["A"])))
        arrays[f"{residual}: singular values of A"] = s
    D24 = plga.density_operator(q[:24, :16])
    contrast = _rel(plga.stages_from_density(D24, plga.init_params(16, 0, residual="glu-ln")).G,
                    plga.stages_from_density(D24, plga.init_params(16, 0, residual="additive")).G)
    biased = {}                                                     # every bias, gamma, beta nonzero: each term counts
    for residual in plga.RESIDUALS:
        params = _random_biases(plga.init_params(16, 5, n_res=2, residual=residual), np.random.default_rng(720))
        D = plga.density_operator(_queries(721, 24, 16))
        lib, reference = plga.stages_from_density(D, params), ref.stages(D, view.psi(params))
        biased[residual] = max(_rel(lib.A, reference["A"]), _rel(lib.G, reference["G"]))
    layout, variance, tail = _init_layout()
    uniform = _glorot_uniform_reach()
    worst = max(max(e.values()) for e in errors.values())
    ok = (worst <= STAGE_RTOL and max(big.values()) <= STAGE_RTOL and ranks == {"glu-ln": 63, "additive": 64}
          and floors["glu-ln"] <= 1e-12 and floors["additive"] > 10 * RANK_RTOL and means["glu-ln"] <= 1e-14
          and contrast > 1e-2 and max(biased.values()) <= STAGE_RTOL and all(layout.values())
          and abs(variance - 1) <= INIT_VARIANCE_TOL and 1 - INIT_UNIFORM_REACH <= min(uniform) <= max(uniform) <= 1)
    return Outcome(ok, (computed("max rel |library - reference| of A, A_LM, G (dk = 16, 3 units, 3 heads)", errors,
                                 tolerance=STAGE_RTOL),
                        computed("authors' configuration (dk = 64, 8 x 2 gated, width 180): max rel |A - A_ref|", big,
                                 tolerance=STAGE_RTOL),
                        computed("numerical rank of A at tolerance 64 eps_float32 s_1 (authors: 63 at init)", ranks),
                        computed("s_64 / s_1 of A", floors),
                        computed("max |row mean of A| / max |A| (LayerNorm output: mean zero, A 1 = 0)", means),
                        computed("contrast: the two conventions' G_LM differ (rel)", contrast),
                        computed("random nonzero b1, b2, b3, gamma_j, beta_j, gamma, beta, b_W, b_a (dk = 16, 2 units): "
                                 "max rel |library - reference| of A, G", biased, tolerance=STAGE_RTOL),
                        computed("init_params layout as documented (n_res units of n_dense gated layers, shapes, "
                                 "zero biases, unit gammas)", layout),
                        computed("Glorot-normal W, P, a: sample variance / (2 / (fan_in + fan_out)), 5 heads dk = 16 "
                                 f"(chi-square: P(|ratio - 1| > {INIT_VARIANCE_TOL}) = {tail:.1e} for any seed)",
                                 variance, tolerance=INIT_VARIANCE_TOL),
                        bound("Glorot-uniform dense layers (dk = 16, width 40, both conventions): [min, max] over the "
                              "16 matrices of max|w| / sqrt(6 / (fan_in + fan_out))",
                              [min(uniform), max(uniform)],
                              formula=f"in [1 - {INIT_UNIFORM_REACH}, 1]: the bound holds and is reached (P(a 640-entry "
                                      f"matrix stays below) = {(1 - INIT_UNIFORM_REACH) ** 640:.1e} for any seed)")),
                   arrays=arrays, seeds={"heads": 0, "queries": 700, "authors_config": 11, "biases": 720})



INIT_UNIFORM_REACH = 0.03
"""How far below its Glorot-uniform limit ``sqrt(6 / (m + n))`` the largest |entry| of a 16 x 40 dense matrix may stay:
``0.97^640 = 3.4e-9`` per matrix for any seed, while a wrong scale (3 for 6, m or n for m + n) is >= 0.29 away."""



def _glorot_uniform_reach() -> list[float]:
    """``max |w| / sqrt(6 / (fan_in + fan_out))`` of every dense matrix of ``Phi_res`` (dk = 16, width 40, two units
    in each convention): at most 1 (the support of U(-lim, lim)) and, with 640 entries, above 1 - INIT_UNIFORM_REACH."""
    out = []
    for residual, n_dense in (("glu-ln", 2), ("additive", 1)):
        for unit in plga.init_params(16, 3, n_res=2, n_dense=n_dense, hidden=40, residual=residual).units:
            dense = [w for g in unit.glus for w in (g.W1, g.W2, g.W3)] if residual == "glu-ln" else [unit.W1, unit.W2]
            out += [float(np.max(np.abs(w)) / np.sqrt(6.0 / sum(w.shape))) for w in dense]
    return out



INIT_VARIANCE_TOL = 0.25
"""|sample variance / Glorot variance - 1| allowed for the 3840 Glorot-normal entries of W, P, a of five dk = 16 heads:
a chi-square tail of 1.5e-24 for any seed, while a variance off by the factor 2 of a wrong fan (m or n for m + n at
square shapes) is 1 away."""



def _random_biases(params: plga.PLGAParams, rng) -> plga.PLGAParams:
    """``params`` with every bias and LayerNorm affine parameter of Phi_res, the head's LayerNorm, ``b_W`` and ``b_a``
    replaced by random nonzero values (the reference initialisation sets them to 0 or 1, where a dropped or
    sign-flipped bias is invisible)."""
    dk = params.dk

    def vec(n, centre=0.0):
        return centre + 0.3 * rng.standard_normal(n)

    units = []
    for u in params.units:
        if isinstance(u, plga.GatedResidualUnit):
            glus = tuple(dataclasses.replace(g, b1=vec(g.b1.size), b2=vec(g.b2.size), b3=vec(dk)) for g in u.glus)
            units.append(plga.GatedResidualUnit(glus, vec(dk, 1.0), vec(dk)))
        else:
            units.append(dataclasses.replace(u, b1=vec(u.b1.size), b2=vec(dk)))
    return dataclasses.replace(params, units=tuple(units), ln_gamma=vec(dk, 1.0), ln_beta=vec(dk),
                               b_W=0.3 * rng.standard_normal((dk, dk)), b_a=0.3 * rng.standard_normal((dk, dk)))



def _init_layout() -> tuple[dict, float, float]:
    """``init_params`` against its docstring: the unit layout and shapes of a few configurations (both conventions,
    n_res = 0..3), zero biases and unit gammas, and the Glorot-normal variance ``2 / (m + n) = 1/dk`` of the square
    ``W, P, a`` (sample variance ratio over five heads, and the chi-square probability that it leaves the tolerance)."""
    from scipy.stats import chi2

    layout = {}
    for residual, dk, n_res, n_dense, hidden in (("glu-ln", 6, 3, 2, 5), ("glu-ln", 4, 0, 1, 4),
                                                 ("additive", 6, 3, 1, 5), ("additive", 4, 1, 1, 7)):
        p = plga.init_params(dk, 1, n_res=n_res, n_dense=n_dense, hidden=hidden, residual=residual)
        if residual == "glu-ln":
            shapes = all(isinstance(u, plga.GatedResidualUnit) and len(u.glus) == n_dense
                         and all((g.W1.shape, g.W2.shape, g.W3.shape) == ((dk, hidden), (dk, hidden), (hidden, dk))
                                 and not (g.b1.any() or g.b2.any() or g.b3.any()) for g in u.glus)
                         and np.all(u.ln_gamma == 1) and not u.ln_beta.any() for u in p.units)
        else:
            shapes = all(isinstance(u, plga.ResidualUnit) and (u.W1.shape, u.W2.shape) == ((dk, hidden), (hidden, dk))
                         and not (u.b1.any() or u.b2.any()) for u in p.units)
        top = all(getattr(p, k).shape == (dk, dk) for k in ("W", "P", "a")) and not (p.b_W.any() or p.b_a.any())
        layout[f"{residual} dk={dk} n_res={n_res} n_dense={n_dense} hidden={hidden}"] = \
            len(p.units) == n_res and shapes and top and np.all(p.ln_gamma == 1) and not p.ln_beta.any()
    dk = 16
    entries = np.concatenate([getattr(plga.init_params(dk, seed), k).ravel()
                              for seed in range(5) for k in ("W", "P", "a")])
    variance = float(np.mean(entries ** 2) / (2.0 / (dk + dk)))         # mean known (0): N ratio ~ chi2(N)
    n = entries.size
    tail = float(chi2.cdf(n * (1 - INIT_VARIANCE_TOL), n) + chi2.sf(n * (1 + INIT_VARIANCE_TOL), n))
    return layout, variance, tail



# ----------------------------------------------------------------------------------------- A14
def _zero_or_witness(expr, gens, witness) -> bool:
    """Decide ``expr == 0`` identically: exactly when it is a rational function over QQ of ``gens``; otherwise it is
    declared nonzero only on a witness (the value at the rational point ``witness``, to 30 digits, > 1e-20 in size),
    and anything else is undecided (ERROR, never PASS)."""
    from sympy.polys.polyerrors import BasePolynomialError

    from theorylab.symbolic import exact as ex

    try:
        return ex.is_zero(expr, gens)
    except (ex.Undecided, BasePolynomialError):
        if abs(complex(ex.exact(expr).xreplace(witness).evalf(30))) > 1e-20:
            return False
        raise



@certificate("A14.symbolic", title="Hadamard-power group law A^{o(s+t)P} = A^{o sP} o A^{o tP} and A^{o 0} = 1, exactly",
             paper="PLGA eq. 3.5, Prop. 3.7; Lean HadamardPower.lean (hadPow_add, hadPow_zero)",
             claim="For entrywise positive A and real P, s, t the library's elementwise power satisfies "
                   "A^{o(s+t)P} = A^{o sP} o A^{o tP} entrywise and A^{o 0} = 1 1^T.",
             method="exact")
def hadamard_group_exact() -> Outcome:
    """Symbolic 2x2 A (positive symbols) and P, s, t (real) through the library; each side's logarithm is expanded
    (valid for a positive base) and log a_ij replaced by a generator, so the identity is a polynomial one over QQ."""
    import sympy as sp

    from theorylab.symbolic import exact as ex

    A = ex.symbol_array("a", 2, 2, positive=True)
    P = ex.symbol_array("p", 2, 2, real=True)
    s, t = sp.symbols("s t", real=True)
    logs = {sp.log(a): sp.Symbol(f"log_{a}", real=True) for a in A.flat}
    gens = tuple(P.flat) + (s, t) + tuple(logs.values())

    def log_of(e):
        return sp.expand_log(sp.log(e), force=False).xreplace(logs)

    witness = dict(zip(gens, [sp.Rational(v) for v in ("-1/2", "-3/2", "-2", "-5/3", "2/3", "-3/2", "1", "-2",
                                                         "3/4", "5")]))   # a rational point (P, s, t, log A): P < 0, st < 0
    lhs, rhs = plga.hadamard_power(A, (s + t) * P), plga.hadamard_power(A, s * P) * plga.hadamard_power(A, t * P)
    group = all(_zero_or_witness(log_of(x) - log_of(y), gens, witness) for x, y in zip(lhs.flat, rhs.flat))
    zero = all(sp.simplify(v) == 1 for v in plga.hadamard_power(A, _obj(np.zeros((2, 2), dtype=int))).flat)
    unit = all(_zero_or_witness(log_of(v) - logs[sp.log(a)] * p, gens, witness)
               for v, a, p in zip(plga.hadamard_power(A, P).flat, A.flat, P.flat))
    return Outcome(group and zero and unit,
                   (computed("log A^{o(s+t)P} - log(A^{o sP} o A^{o tP}) == 0 entrywise (polynomial in s, t, P, log A)",
                             group),
                    computed("A^{o 0} == 1 1^T", zero),
                    computed("log (A^{o P})_ij == P_ij log A_ij (the elementwise power itself)", unit)))



@certificate("A14.numeric", title="Hadamard-power group law in float64 against exp(P o log A), on PLGA heads",
             paper="PLGA eq. 3.5, §2.2, Prop. 3.7",
             claim="On A_LM of random heads (entries down to eps = 1e-9) the library's A^{o P} equals exp(P o log A) "
                   "and the group law holds to float rounding for s, t in [-2, 2]; A^{o 0} = 1 exactly.",
             method="numeric")
def hadamard_group_numeric() -> Outcome:
    """3 heads' A_LM (one with b_W = -50, entries at eps) against ``reference.plga`` exp/log route."""
    worst_ref, worst_law, zero_ok, arrays = 0.0, 0.0, True, {}
    grid = (-2.0, -0.5, 0.25, 1.0, 2.0)
    for seed in range(3):
        params = plga.init_params(16, seed)
        if seed == 2:
            params = dataclasses.replace(params, b_W=np.full((16, 16), -50.0))
        A = plga.stages_from_density(plga.density_operator(_queries(740 + seed, 24, 16)), params).A_LM
        P = params.P
        lib = plga.hadamard_power(A, P)
        reference = np.exp(P * np.log(A))                                        # the reference's §2.2 route
        worst_ref = float(np.maximum(worst_ref, np.max(np.abs(lib / reference - 1))))
        for s in grid:
            for t in grid:
                scale = 1 + np.abs((s + t) * P * np.log(A))                       # rounding grows with the exponent
                law = np.abs(plga.hadamard_power(A, (s + t) * P)
                             / (plga.hadamard_power(A, s * P) * plga.hadamard_power(A, t * P)) - 1) / scale
                worst_law = float(np.maximum(worst_law, np.max(law)))
        zero_ok &= bool(np.all(plga.hadamard_power(A, np.zeros_like(P)) == 1.0))
        arrays[f"A_LM head {seed}"] = A
    ok = worst_ref <= 1e-13 and worst_law <= 1e-14 and zero_ok
    return Outcome(ok, (computed("max rel |A^{o P} / exp(P o log A) - 1| (3 heads)", worst_ref, tolerance=1e-13),
                        computed("max |A^{o(s+t)P} / (A^{o sP} A^{o tP}) - 1| / (1 + |(s+t) P log A|), s, t in grid",
                                 worst_law, tolerance=1e-14),
                        computed("A^{o 0} == 1 exactly", zero_ok)),
                   arrays=arrays, seeds={"queries": 740})


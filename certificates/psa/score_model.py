"""Certificates of the PSA reduced score model (PSA §6.3: P11) and of the softmax linearisation it rests on
(PSA §6.1, §6.4: P12.symbolic exact, P12.numeric)."""
from __future__ import annotations

import numpy as np

from theorylab.certificates.reference import transformer as ref
from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.psa.scoremodel import score_model
from theorylab.psa.softmax import softmax as lib_softmax, softmax_jacobian, softmax_response


@certificate("P11", title="T4-only score-gap SNR is sqrt(dk)/2 for every g", paper="PSA §6.3",
             claim="In the T4-only model Delta/sigma = sqrt(dk)/2, independent of g.", method="exact")
def t4_snr() -> Outcome:
    """Decide ``Delta^2 - (dk/4) sigma^2 == 0`` as a polynomial identity in (g, dk); the symbolic Delta and sigma^2
    themselves against the reference model (:mod:`theorylab.certificates.reference.score_model`) at g in
    {1/2, 2, 3}, dk = 16 (exact values: the reference's t4-only gap sqrt(dk) g^2 and variance 4 g^4)."""
    import sympy as sp  # SymPy only when a check runs (certify --list stays light)

    from theorylab.symbolic.psa import dk, g, gap_expr, variance_expr

    model = score_model("t4-only")
    delta, var = gap_expr(model), variance_expr(model)
    residual = sp.Poly(sp.expand(delta**2 - dk / 4 * var), g, dk)
    ratio = sp.simplify(delta / sp.sqrt(var))
    values_ok, values = _t4_values(delta, var, g, dk)
    return Outcome(bool(residual.is_zero and values_ok),
                   (computed("Delta^2 - (dk/4) sigma^2", str(residual.as_expr())),
                    computed("Delta/sigma", str(ratio)),
                    computed("symbolic (Delta, sigma^2) at g = 1/2, 2, 3, dk = 16 == reference (gap, variance)",
                             values_ok)),
                   arrays={"values": values})


def _t4_values(delta, var, g, dk) -> tuple[bool, np.ndarray]:
    """The symbolic gap and variance evaluated exactly at g in {1/2, 2, 3}, dk = 16, against the reference model's
    floats (exact there: small dyadic values); rows (g, Delta, reference, sigma^2, reference)."""
    import sympy as sp

    from theorylab.certificates.reference import score_model as sref

    rows = [(float(x), float(delta.subs({g: x, dk: 16})), sref.gap("t4-only", float(x), 16.0),
             float(var.subs(g, x)), sref.variance("t4-only", float(x)))
            for x in (sp.Rational(1, 2), sp.Integer(2), sp.Integer(3))]
    return all(r[1] == r[2] and r[3] == r[4] for r in rows), np.array(rows)


@certificate("P12.symbolic", title="Softmax linearisation dp = (diag p - pp^T) ds; 1.dp = 0; shift invisible",
             paper="PSA §6.1, §6.4",
             claim="The first derivative of softmax(s + eps d) at 0 is (diag p - p p^T) d = p (d - <p, d>); it sums to "
                   "zero, annihilates a common shift, and the remainder is second order.", method="exact")
def linearisation() -> Outcome:
    """Exact in u = exp(s) (positive symbols) for n = 4 scores."""
    from theorylab.symbolic import exact as ex
    from theorylab.symbolic import softmax as sm

    u, d = sm.symbols(4)
    gens = tuple(u) + tuple(d)
    p = sm.probabilities(u)
    first = sm.derivative(u, d, 1)
    jac_ok = ex.equal(softmax_jacobian(p) @ d, first, gens)
    resp_ok = ex.equal(softmax_response(p, d), first, gens)
    mass = ex.is_zero(sum(softmax_response(p, d)), gens)
    shift = ex.matrix_is_zero(softmax_jacobian(p) @ np.ones(4, dtype=int), gens)
    second = sm.derivative(u, d, 2)
    nonzero = not ex.matrix_is_zero(second, gens)  # the remainder really is second order, not smaller
    zeroth = ex.equal(sm.derivative(u, d, 0), p, gens)
    distinct = not ex.equal(first, second, gens) and not ex.equal(first, p, gens)  # the decider can say "differ"
    conv_ok = _exact_conversions(ex)
    ok = jac_ok and resp_ok and mass and shift and nonzero and zeroth and distinct and conv_ok
    return Outcome(ok, (computed("d/deps softmax == softmax_jacobian(p) @ d", jac_ok),
                        computed("softmax_response(p, d) == the derivative", resp_ok),
                        computed("1 . dp == 0", mass), computed("softmax_jacobian(p) @ 1 == 0 (shift invisible)", shift),
                        computed("second derivative not identically zero (remainder exactly 2nd order)", nonzero),
                        computed("equal() tells the 1st derivative from the 2nd and from p (same shapes)", distinct),
                        computed("exact(): 0-d arrays and floats to their exact rationals; bool, str, complex, "
                                 "1-element 1-D arrays refused", conv_ok)))


def _exact_conversions(ex) -> bool:
    """The exact converter the deciders rest on, against hand-written exact values: a 0-d float array and a float
    become their dyadic rationals (0.1 = 3602879701896397 / 2^55), a 0-d int array an Integer; a boolean, a numeric
    string, a complex and a 1-element 1-D array are refused (ParameterError)."""
    import sympy as sp

    from theorylab import ParameterError

    def convert(v):                                     # None: refused
        try:
            return ex.exact(v)
        except ParameterError:
            return None
    values_ok = (convert(np.array(0.75)) == sp.Rational(3, 4) and convert(np.array(7)) == sp.Integer(7)
                 and convert(0.1) == sp.Rational(3602879701896397, 2**55))
    return bool(values_ok and all(convert(v) is None for v in (True, np.bool_(False), "1.5", 1 + 0j, np.array([0.5]))))


@certificate("P12.numeric", title="Softmax: common shifts invisible in floating point; remainder scales as eps^2",
             paper="PSA §6.1",
             claim="softmax(s + c) == softmax(s) to rounding for shifts up to 1e3, and "
                   "|softmax(s + eps d) - p - eps dp| / eps^2 tends to |p''(0)|/2.", method="numeric")
def linearisation_numeric() -> Outcome:
    """Fixed-seed scores; values against the reference softmax and (diag p - p p^T) d computed here; the eps^2
    constant is compared with the exact second derivative evaluated at them."""
    rng = np.random.default_rng(12)
    s, d = rng.normal(size=(64, 16)), rng.normal(size=(64, 16))
    shifts = rng.uniform(-1e3, 1e3, size=(64, 1))
    p = lib_softmax(s)
    p_ref = np.array([ref.softmax(row) for row in s])
    value_err = float(np.max(np.abs(p / p_ref - 1)))
    jvp = np.einsum("nij,nj->ni", p_ref[:, :, None] * np.eye(16) - p_ref[:, :, None] * p_ref[:, None, :], d)
    response_err = float(np.max(np.abs(softmax_response(p_ref, d) - jvp)))
    shift_err = float(np.max(np.abs(lib_softmax(s + shifts) - p) / p))
    mass_err = float(np.max(np.abs(softmax_response(p, d).sum(axis=-1))))
    # exact second derivative (rational in u = exp(s)), evaluated in float: p * ((d - <p,d>)^2 - <p, (d - <p,d>)^2>)
    from theorylab.symbolic import softmax as sm
    import sympy as sp
    u, dd = sm.symbols(3)
    second = sp.lambdify(list(u) + list(dd), list(sm.derivative(u, dd, 2)))
    s3, d3 = s[:, :3], d[:, :3]
    p3 = lib_softmax(s3)
    exact2 = np.array([second(*np.exp(a - a.max()), *b) for a, b in zip(s3, d3)])
    ratios = []
    for eps in (1e-2, 1e-3):
        r = lib_softmax(s3 + eps * d3) - p3 - eps * softmax_response(p3, d3)
        ratios.append(float(np.max(np.abs(r / eps**2 - exact2 / 2))))
    ok = value_err <= 1e-14 and response_err <= 1e-14 and shift_err < 1e-12 and mass_err < 1e-15 \
        and ratios[1] < 1e-2 and ratios[1] < ratios[0]
    return Outcome(ok, (computed("max rel |softmax - reference softmax|", value_err, tolerance=1e-14),
                        computed("max |softmax_response(p, d) - (diag p - p p^T) d|", response_err, tolerance=1e-14),
                        bound("max relative change under shifts |c| <= 1e3", shift_err, "must be < 1e-12",
                              tolerance=1e-12),
                        bound("max |1 . dp|", mass_err, "must be < 1e-15", tolerance=1e-15),
                        bound("max |r(eps)/eps^2 - p''/2| at eps = 1e-2, 1e-3", ratios,
                              "decreasing, < 1e-2 at 1e-3 (O(eps) + rounding/eps^2)", tolerance=1e-6)),
                   arrays={"p": p}, seeds={"rng": 12})

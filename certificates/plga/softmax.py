"""Certificates of softmax's row facts (claims A7, A17).

A7: two finite score rows give the same distribution iff they differ by a common constant; A17: softmax is
positive, sums to 1, shift invariant and averages inside the convex hull (exact), and the masked softmax is zero
off its support in float64 (Lean: Softmax).
"""
from __future__ import annotations

import numpy as np

from theorylab.certificates.reference import plga_lean as lref
from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.psa import softmax as psoftmax


# ----------------------------------------------------------------------------------------- A7
@certificate("A7", title="Softmax rows: same distribution iff scores differ by a common constant",
             paper="PLGA Prop. 5.2(iii)",
             claim="Two finite score rows give the same softmax distribution iff they differ by a common additive "
                   "constant.", method="exact")
def softmax_rows() -> Outcome:
    """u_i = e^{z_i}: shift = common factor w; equal distributions => u' in the kernel of a linear map (the exact
    ``theorylab.symbolic.softmax.probabilities``); the float ``theorylab.psa.softmax.softmax`` on a shifted row."""
    import sympy as sp
    from sympy.polys.matrices import DomainMatrix

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic import softmax as ssoftmax

    n = 3
    u, _ = ssoftmax.symbols(n)
    w = sp.Symbol("w", positive=True)
    gens = tuple(u) + (w,)
    sufficient = all(ex.is_zero(a - b, gens)
                     for a, b in zip(ssoftmax.probabilities(w * u), ssoftmax.probabilities(u)))
    up = np.array(sp.symbols(f"v0:{n}", positive=True), dtype=object)
    eqs = [sp.expand(sp.fraction(sp.together(a - b))[0])
           for a, b in zip(ssoftmax.probabilities(up), ssoftmax.probabilities(u))]
    A = sp.Matrix([[e.coeff(v) for v in up] for e in eqs])
    kernel = DomainMatrix.from_Matrix(A).to_field().nullspace().to_Matrix()        # exact, over QQ(u)
    necessary = kernel.rows == 1 and ex.matrix_is_zero(kernel.row(0).T * u[0] - sp.Matrix(u) * kernel[0, 0],
                                                       tuple(u))
    z = np.random.default_rng(3).normal(size=8)
    shift = float(np.max(np.abs(psoftmax.softmax(z + 123.456) - psoftmax.softmax(z))))
    moved = float(np.max(np.abs(psoftmax.softmax(z + np.linspace(0, 1e-3, 8)) - psoftmax.softmax(z))))
    ok = sufficient and necessary and shift <= 1e-15 and moved > 1e-6
    return Outcome(ok, (computed("softmax(z + c) == softmax(z) (exact, n = 3)", sufficient),
                        computed("equal distributions => e^{z'} = lambda e^{z} (kernel dim 1, spanned by u)",
                                 necessary),
                        computed("float: max |softmax(z + c) - softmax(z)|", shift, tolerance=1e-15),
                        computed("float: a non-constant shift moves the distribution", moved)),
                   seeds={"z": 3})



# ----------------------------------------------------------------------------------------- A17
@certificate("A17.symbolic", title="Softmax: positive, sums to 1, shift invariant, averages inside the convex hull",
             paper="PLGA Prop. 3.12; Lean Softmax.lean (softmax_pos, softmax_sum_one, softmax_shift, softmax_avg_le)",
             claim="With u_i = e^{z_i} > 0 the library's softmax p_i = u_i / sum u is positive, sums to 1, is invariant "
                   "under z + c, and max v - sum p_i v_i = sum p_i (max v - v_i) >= 0, tending to 0 as the weight "
                   "concentrates on the maximum (the bound is sharp).",
             method="exact")
def softmax_exact() -> Outcome:
    """n = 3 positive symbols u, a positive w (= e^c), values v_i = M - g_i with g_0 = 0 and g_i >= 0."""
    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic import softmax as ssoftmax

    n = 3
    u = np.array(sp.symbols(f"u0:{n}", positive=True), dtype=object)
    w = sp.Symbol("w", positive=True)
    gaps = [sp.Integer(0)] + list(sp.symbols(f"g1:{n}", nonnegative=True))
    M = sp.Symbol("M", real=True)
    gens = tuple(u) + (w, M) + tuple(gaps[1:])
    p = ssoftmax.probabilities(u)
    positive = all(ex.exact(pi).is_positive is True for pi in p)
    total = ex.is_zero(sum(p) - 1, gens)
    shift = all(ex.is_zero(a - b, gens) for a, b in zip(ssoftmax.probabilities(w * u), p))
    v = [M - g for g in gaps]
    slack = M - sum(pi * vi for pi, vi in zip(p, v))
    identity = ex.is_zero(slack - sum(pi * g for pi, g in zip(p, gaps)), gens)
    nonneg = sp.simplify(sum(pi * g for pi, g in zip(p, gaps))).is_nonnegative is True
    sharp = sp.limit(sp.together(slack), u[0], sp.oo) == 0
    ok = positive and total and shift and identity and nonneg and sharp
    return Outcome(ok, (computed("p_i > 0 (u_i > 0)", positive), computed("sum p_i == 1", total),
                        computed("softmax(z + c) == softmax(z) (u -> w u)", shift),
                        computed("max v - sum p v == sum p_i (max v - v_i)", identity),
                        computed("... >= 0 (p > 0, max v - v_i >= 0): softmax_avg_le", nonneg),
                        computed("... -> 0 as u_argmax -> infinity (the bound is sharp)", sharp)))



@certificate("A17.numeric", title="Masked softmax in float64: exactly zero off the support, row-stochastic on it, "
                                  "shift invariant; convex-hull bound approached",
             paper="PLGA Prop. 3.12, §4 (causal mask); Lean Softmax.lean (maskedSoftmax_*)",
             claim="The library's masked softmax equals the ideal masked softmax (40-digit reference): exactly 0 off "
                   "the allowed set, > 0 on it, rows summing to 1, invariant under a common shift; sum p v <= max v "
                   "with slack (1 - p_max)(max v - v_rest) -> 0 as the score gap grows.",
             method="numeric")
def softmax_numeric() -> Outcome:
    """200 rows of 12 scores at scales 0.1..30 with random nonempty masks against
    ``reference.plga_lean.masked_softmax``; a two-level score row for the sharpness of the hull bound."""
    rng = np.random.default_rng(17)
    z = np.concatenate([s * rng.normal(size=(50, 12)) for s in (0.1, 1.0, 10.0, 30.0)])
    mask = rng.uniform(size=z.shape) < 0.6
    mask[np.arange(len(z)), rng.integers(0, 12, len(z))] = True
    lib = psoftmax.softmax(z, mask=mask)
    reference = np.stack([lref.masked_softmax(row, np.flatnonzero(m)) for row, m in zip(z, mask)])
    err = float(np.max(np.abs(lib - reference)))
    zero_off = bool(np.all(lib[~mask] == 0.0))
    positive = bool(np.all(lib[mask] > 0))
    sums = float(np.max(np.abs(lib.sum(axis=1) - 1)))
    shift = float(np.max(np.abs(psoftmax.softmax(z + 123.25, mask=mask) - lib)))
    sub = float(max(np.max(np.abs(psoftmax.softmax(row[m]) - p[m])) for row, m, p in zip(z, mask, lib)))
    v = rng.normal(size=z.shape)
    hull = float(np.max((lib * v).sum(axis=1) - np.where(mask, v, -np.inf).max(axis=1)))
    slack = []
    for gap in (2.0, 8.0, 32.0):
        p = psoftmax.softmax(np.array([gap, 0.0, 0.0, 0.0]))
        vals = np.array([1.0, 0.0, 0.0, 0.0])
        slack.append(float(1.0 - p @ vals))
    ok = (err <= 1e-15 and zero_off and positive and sums <= 4e-16 and shift <= 1e-13 and sub <= 1e-15
          and hull <= 1e-15 and slack[0] > slack[1] > slack[2] and slack[2] <= 1e-13)
    return Outcome(ok, (computed("max |library - ideal masked softmax (40 digits)|", err, tolerance=1e-15),
                        computed("exactly 0 off the allowed set", zero_off), computed("> 0 on it", positive),
                        computed("max |row sum - 1|", sums, tolerance=4e-16),
                        computed("max |softmax(z + 123.25) - softmax(z)| (masked; z + 123.25 rounds at ulp ~3e-14)", shift,
                                 tolerance=1e-13),
                        computed("max |masked softmax - softmax of the allowed scores|", sub, tolerance=1e-15),
                        bound("max (sum p v - max_allowed v)", hull, formula="softmax_avg_le: <= 0 up to rounding"),
                        computed("slack max v - sum p v at score gaps 2, 8, 32 (-> 0: sharp)", slack)),
                   arrays={"probabilities": lib, "mask": mask}, seeds={"scores": 17})


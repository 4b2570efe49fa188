"""Certificates of the order parameter and attention-row stability (claim A10; PLGA Def. 5.1, Prop. 5.2, §5.3).

A10: m(theta) = 0 iff the tensor is input-invariant (piecewise convention for zero tensors); the authors'
signed-mean statistic beside ours, never below it (A10.signed); softmax is 1-Lipschitz and an operator change
dG moves attention rows by at most ||q|| ||K|| ||dG|| / sqrt(dk), attained (A10.stability).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from theorylab import plga
from theorylab.certificates.plga._common import DK, S, _queries
from theorylab.certificates.reference import plga as ref
from theorylab.certificates.reference import plga_lean as lref
from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.errors import ParameterError


# ----------------------------------------------------------------------------------------- A10
@certificate("A10", title="Order parameter m(theta) = 0 iff the tensor is input-invariant",
             paper="PLGA Def. 5.1, Prop. 5.2(ii)",
             claim="m = ||D1 - D2||_rms / mean(||D1||_rms, ||D2||_rms) vanishes iff D1 == D2, including identically "
                   "zero tensors (piecewise convention); with a = 0, b_a = G*, m(G_LM) = 0 while m(A_P) > 0.",
             method="numeric")
def order_parameter() -> Outcome:
    """Equal, zero, zero-mean-perturbed, tiny (1e-300) and huge (1e300) tensors, and an anti-aligned pair 1e310
    apart in scale (the bound m <= 2 attained), against the reference m (mpmath sums, theorylab.certificates.reference.plga);
    the a = 0 counterexample."""
    rng = np.random.default_rng(5)
    D = rng.normal(size=(DK, DK))
    dz = rng.normal(size=(DK, DK))
    dz -= dz.mean()                                                      # zero-mean perturbation
    same, zero = plga.order_parameter(D, D), plga.order_parameter(np.zeros_like(D), np.zeros_like(D))
    pos = np.abs(D) + 0.1                                                # entrywise positive
    pairs = [(s * D, s * (D + 1e-8 * dz)) for s in (1e-300, 1.0, 1e300)] + [(D, D + dz), (3.7 * D, 3.7 * (D + dz)),
                                                                            (D, np.zeros_like(D)), (D, -D),
                                                                            (1e-300 * pos, -1e10 * pos)]
    lib = [plga.order_parameter(a, b) for a, b in pairs]
    reference = [ref.order_parameter(a, b) for a, b in pairs]
    value_err = float(np.max([abs(x - y) / y for x, y in zip(lib, reference)]))
    symmetric = plga.order_parameter(D, D + dz) == plga.order_parameter(D + dz, D)
    params = plga.init_params(DK, 4)
    Gstar = rng.normal(size=(DK, DK))
    cached = dataclasses.replace(params, a=np.zeros((DK, DK)), b_a=Gstar)
    s1, s2 = (plga.stages_from_density(plga.density_operator(_queries(300 + i)), cached) for i in range(2))
    m_G, m_AP = plga.order_parameter(s1.G, s2.G), plga.order_parameter(s1.A_P, s2.A_P)
    r1, r2 = (plga.stages_from_density(plga.density_operator(_queries(300 + i)), params) for i in range(2))
    m_G_random = plga.order_parameter(r1.G, r2.G)
    anti = lib[-1]
    try:                                                                 # 0/0: an empty tensor has no rms
        plga.rms(np.zeros(0))
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
def stability() -> Outcome:
    """2000 random score pairs at scales 0.1..100; rows of two PLGA heads' G_LM on the same keys; the bound against
    the reference formula and on the extremal example of :func:`_extremal_row`; softmax is
    ``theorylab.psa.softmax.softmax``."""
    from theorylab.psa import softmax as psoftmax

    rng = np.random.default_rng(21)
    ratios = []
    for scale in (0.1, 1.0, 10.0, 100.0):
        z = scale * rng.normal(size=(500, 12))
        z2 = z + scale * rng.normal(size=(500, 12)) * rng.uniform(0, 1, (500, 1))
        ratios.append(np.linalg.norm(psoftmax.softmax(z) - psoftmax.softmax(z2), axis=1)
                      / np.linalg.norm(z - z2, axis=1))
    sharp = np.full(12, -60.0)
    sharp[:2] = 0.0                                       # two-point distribution: Jacobian norm 1/2 attained
    step = np.zeros(12)
    step[:2] = (1e-6, -1e-6)
    ratios.append(np.atleast_1d(np.linalg.norm(psoftmax.softmax(sharp + step) - psoftmax.softmax(sharp))
                                / np.linalg.norm(step)))
    lipschitz = float(np.max(np.concatenate(ratios)))
    q, K = _queries(22), _queries(23)
    G1 = plga.stages_from_density(plga.density_operator(q), plga.init_params(DK, 5)).G
    G2 = plga.stages_from_density(plga.density_operator(_queries(24)), plga.init_params(DK, 5)).G
    rows, score_rows, formula = [], [], 0.0
    for t in range(0, S, 4):
        e1, e2 = q[t] @ G1 @ K.T / np.sqrt(DK), q[t] @ G2 @ K.T / np.sqrt(DK)
        b = plga.row_perturbation_bound(q[t], K, G1 - G2)
        formula = float(np.maximum(formula, abs(b / ref.row_perturbation_bound(q[t], K, G1 - G2) - 1)))
        rows.append(np.linalg.norm(psoftmax.softmax(e1) - psoftmax.softmax(e2)) / b)
        score_rows.append(np.linalg.norm(e1 - e2) / b)
    qx, Kx, dGx = _extremal_row()
    bx = plga.row_perturbation_bound(qx, Kx, dGx)
    de = qx @ dGx @ Kx.T / np.sqrt(DK)
    attained = float(np.linalg.norm(de) / bx)
    attention_x = float(np.linalg.norm(psoftmax.softmax(de) - psoftmax.softmax(np.zeros(2))) / bx)
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



# ----------------------------------------------------------------------------------------- A10 (signed)
@certificate("A10.signed", title="The authors' signed-mean order parameter beside ours; never below it, equal on "
                                 "constant tensors",
             paper="PLGA Def. 5.1; the authors' audit (order_pair, symmetrized signed normalization)",
             claim="m_signed = ||D1 - D2||_rms / (0.5 (|mean D1| + |mean D2|)) is 0 iff D1 == D2, infinite when the "
                   "means cancel, 2 at (1, -1); m_signed >= m_rms, with equality for constant tensors.",
             method="numeric")
def signed_order_parameter() -> Outcome:
    """The authors' test pairs, random tensors at scales 1e-300..1e300, constant tensors and a tensor <= 0 whose
    largest entry is 0 (its mean -1 is scaled by max|X| = 2, not by max X = 0), against
    ``reference.plga_lean.order_parameter_signed`` (mpmath sums) and ``reference.plga.order_parameter``."""
    rng = np.random.default_rng(51)
    D, dz = rng.normal(size=(8, 8)) + 0.3, rng.normal(size=(8, 8))
    pairs = {"identical": (D, D.copy()), "zero pair": (np.zeros((4, 4)), np.zeros((4, 4))),
             "(1, -1) (authors: 2, 2)": (np.ones((2, 2)), -np.ones((2, 2))),
             "means cancel (authors: inf)": (np.array([1.0, -1.0]), np.array([-1.0, 1.0])),
             "D vs D + dz": (D, D + dz), "1e-300 scale": (1e-300 * D, 1e-300 * (D + dz)),
             "1e300 scale": (1e300 * D, 1e300 * (D + dz)), "constant 2 vs 3": (np.full((3, 3), 2.0), np.full((3, 3), 3.0)),
             "constant -1 vs 0.5": (np.full(5, -1.0), np.full(5, 0.5)), "zero vs D": (np.zeros((8, 8)), D),
             "max 0, mean -1 vs D": (np.array([-2.0, 0.0, -1.0]), np.array([1.0, 3.0, 2.0]))}
    lib = {k: plga.order_parameter(a, b, normalization="signed") for k, (a, b) in pairs.items()}
    refs = {k: lref.order_parameter_signed(a, b) for k, (a, b) in pairs.items()}
    rms = {k: ref.order_parameter(a, b) for k, (a, b) in pairs.items()}

    def same(x, y):
        return (x == y) if (math.isinf(y) or y == 0) else abs(x / y - 1) <= 1e-13

    agree = all(same(lib[k], refs[k]) for k in pairs)
    above = all(lib[k] >= rms[k] * (1 - 1e-14) for k in pairs)
    equal_const = [lib[k] / rms[k] for k in ("constant 2 vs 3", "constant -1 vs 0.5")]
    attained = all(abs(r - 1) <= 1e-14 for r in equal_const)
    ok = (agree and above and attained and lib["identical"] == 0 and lib["zero pair"] == 0
          and abs(lib["(1, -1) (authors: 2, 2)"] - 2) <= 1e-15 and math.isinf(lib["means cancel (authors: inf)"]))
    return Outcome(ok, (computed("library m_signed per pair", lib), computed("reference m_signed (mpmath sums)", refs),
                        computed("library == reference (0 and inf exactly, else rel 1e-13)", agree),
                        computed("reference m_rms per pair", rms),
                        bound("m_signed >= m_rms on every pair", above, formula="|mean X| <= ||X||_rms"),
                        computed("m_signed / m_rms on constant tensors (equality: |mean| = rms)",
                                 equal_const, tolerance=1e-14)),
                   arrays={"D": D, "dz": dz}, seeds={"tensors": 51})


"""Certificates of the spectral structure of PLGA's positive matrices (claims A3, A4, A16).

A3: Perron-Frobenius on A_LM (simple positive spectral radius, positive eigenvector, Collatz-Wielandt brackets)
against a reference power iteration; A4: entrywise positive is not positive semidefinite; A16: the rank-one
A = 1 alpha^T (Lean: RankOne). PLGA Prop. 3.9, 3.12.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg

from theorylab import plga
from theorylab.certificates.plga._common import DK, _queries
from theorylab.certificates.reference import plga as ref
from theorylab.certify import Outcome, certificate, computed, proxy
from theorylab.errors import ParameterError


# ----------------------------------------------------------------------------------------- A3
def _perron_heads() -> tuple[bool, tuple, dict]:
    """A3 on 5 random heads' A_LM: the eigen route against the reference power iteration
    (theorylab.certificates.reference.plga.perron_root), the residual computed here, the second modulus against NumPy's
    eigvals, and the library's Collatz-Wielandt brackets at v = 1 (also on diag(1.7e308, 1e308)) and at the reference
    Perron vector (sum 1: the bracket must contain rho_ref and be tight)."""
    worst_root, worst_vec, worst_resid, worst_gap, worst_cw, positive, bracket = 0.0, 0.0, 0.0, np.inf, 0.0, True, True
    worst_second, worst_field, field_exact, at_v = 0.0, 0.0, True, True
    arrays = {}
    for seed in range(5):
        A = plga.stages_from_density(plga.density_operator(_queries(200 + seed)), plga.init_params(DK, seed)).A_LM
        pf = plga.perron_frobenius(A)
        rho, v = ref.perron_root(A)
        worst_root = float(np.maximum(worst_root, abs(pf.rho - rho) / rho))        # np.maximum: NaN propagates
        worst_vec = float(np.maximum(worst_vec, np.max(np.abs(pf.vector - v)) / np.max(v)))
        here_resid = float(np.max(np.abs(A @ pf.vector - pf.rho * pf.vector)))
        worst_resid = float(np.maximum(worst_resid, here_resid / pf.rho))
        worst_field = float(np.maximum(worst_field, abs(pf.residual - here_resid) / pf.rho))   # NaN propagates
        field_exact &= pf.residual == here_resid                        # the same float operations: bitwise
        ratios = A.sum(axis=1)                                           # (A 1)_i / 1_i
        lo, hi = plga.collatz_wielandt_bounds(A)
        bracket &= bool(np.allclose((lo, hi), (ratios.min(), ratios.max()), rtol=1e-14, atol=0)
                        and lo <= rho * (1 + 1e-12) and rho <= hi * (1 + 1e-12))
        positive &= bool(np.all(pf.vector > 0))
        cw_lo, cw_hi = plga.collatz_wielandt_bounds(A, v)              # at v_ref (sum 1, not the ones vector)
        at_v &= bool(cw_lo <= rho * (1 + 1e-12) and rho <= cw_hi * (1 + 1e-12))
        worst_cw = float(np.maximum(worst_cw, (cw_hi - cw_lo) / rho))
        worst_gap = float(np.minimum(worst_gap, (pf.rho - pf.second) / pf.rho))
        second_ref = float(np.sort(np.abs(np.linalg.eigvals(A)))[-2])           # |lambda_2|, NumPy's eigvals
        worst_second = float(np.maximum(worst_second, abs(pf.second - second_ref) / rho))
        arrays[f"vector{seed}"] = pf.vector
    huge = np.diag([1.7e308, 1e308])                                    # row sums near the float limit: the default
    bracket &= plga.collatz_wielandt_bounds(huge) == (1e308, 1.7e308)   # v = 1 leaves them representable
    ok = positive and bracket and worst_root <= 1e-12 and worst_vec <= 1e-10 and worst_gap > 1e-6 \
        and worst_resid <= 1e-10 and worst_field <= 1e-15 and worst_cw <= 1e-9 and worst_second <= 1e-12 and field_exact \
        and at_v
    evidence = (computed("max |rho - rho_ref| / rho_ref (reference: power iteration)", worst_root, tolerance=1e-12),
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
                computed("library Collatz-Wielandt bounds at v_ref bracket rho_ref (5 heads)", at_v),
                computed("max library Collatz-Wielandt width at v_ref / rho (tight bracket)", worst_cw, tolerance=1e-9))
    return ok, evidence, arrays


def _perron_rank_one() -> tuple[bool, tuple]:
    """A3 on rank-one inputs 1 alpha^T: rho = sum(alpha) with the constant eigenvector, and 24 mixed-sign ones
    (d = 2..7) whose library residual must be ||M v - lambda v||_inf computed here."""
    alpha = np.random.default_rng(9).uniform(0.1, 2.0, DK)
    R1 = np.outer(np.ones(DK), alpha)
    pf1 = plga.perron_frobenius(R1)
    rank_one = abs(pf1.rho - alpha.sum()) / alpha.sum()
    flat = float(np.max(np.abs(pf1.vector - 1.0 / DK)))
    clone_rng, clone_resid, clone_worst = np.random.default_rng(10), True, 0.0    # mixed signs, d = 2..7: rounding
    for d in [2, 3, 4, 5, 6, 7] * 4:                                   # residuals of either sign before the |.|
        Rc = np.outer(np.ones(d), clone_rng.uniform(-1.0, 2.0, d))
        try:
            pc = plga.perron_frobenius(Rc)
        except ParameterError:                                          # refused: the closed-form route is missing
            clone_resid = False
            continue
        here = float(np.max(np.abs(Rc @ pc.vector - pc.eigenvalue * pc.vector)))
        clone_resid &= bool(pc.residual == here)
        clone_worst = max(clone_worst, here)
    ok = rank_one <= 1e-12 and flat <= 1e-12 and clone_resid and clone_worst <= 1e-15
    return ok, (computed("rank one: |rho - sum(alpha)|/sum(alpha)", rank_one, tolerance=1e-12),
                computed("rank one: max |v - 1/dk| (eigenvector is the constant vector)", flat, tolerance=1e-12),
                computed("24 rank-one inputs with mixed signs (d = 2..7): library residual == "
                         "||M v - lambda v||_inf computed here", clone_resid),
                computed("their largest ||M v - lambda v||_inf (rounding)", clone_worst, tolerance=1e-15))


def _perron_periodic() -> tuple[bool, tuple]:
    """A3 on weighted p-cycles (irreducible, period p: p eigenvalues of modulus rho) against the closed form
    rho = (prod w)^(1/p) and the null space of C - rho I."""
    periodic = []
    for w in ([1.0, 1.0, 1.0], [2.0, 1.0, 1.0], [0.5, 3.0, 1.0, 0.25], [1.0, 4.0]):
        p = len(w)
        C = np.roll(np.diag(w), 1, axis=1)                              # C[i, i+1] = w_i
        rho_c = float(np.prod(w)) ** (1.0 / p)                          # C^p = prod(w) I
        null = scipy.linalg.null_space(C - rho_c * np.eye(p), rcond=1e-10)[:, 0]
        pc = plga.perron_frobenius(C)
        periodic.append(max(abs(pc.rho / rho_c - 1), abs(pc.eigenvalue / rho_c - 1), abs(pc.second / rho_c - 1),
                            float(np.max(np.abs(pc.vector - null / null.sum()))),
                            0.0 if np.isrealobj(pc.vector) and np.all(pc.vector > 0) else 1.0))
    return max(periodic) <= 1e-12, (
        computed("weighted 3-, 4-, 2-cycles (periodic: |lambda_2| = rho): max relative error of rho, "
                 "eigenvalue and second vs (prod w)^(1/p), of the vector vs the null space of "
                 "C - rho I, and 1 if the vector is not real and positive", periodic, tolerance=1e-12),)


@certificate("A3", title="Perron-Frobenius on A_LM; rank-one A = 1 alpha^T has spectral radius sum(alpha)",
             paper="PLGA Prop. 3.9, 3.12",
             claim="A_LM > 0 has a simple positive spectral radius with a positive eigenvector; a rank-one matrix "
                   "with identical rows alpha^T has spectral radius equal to the common row sum.", method="numeric")
def perron() -> Outcome:
    """Eigen route against the reference power iteration (theorylab.certificates.reference.plga.perron_root) on 5 random
    heads' A_LM: root, vector, residual computed here; Collatz-Wielandt brackets at v = 1 and at the Perron vector."""
    heads_ok, heads, arrays = _perron_heads()
    clones_ok, clones = _perron_rank_one()
    cycles_ok, cycles = _perron_periodic()
    return Outcome(heads_ok and clones_ok and cycles_ok, heads + clones + cycles,
                   arrays=arrays, seeds={"heads": 200, "alpha": 9, "clones": 10})


# ----------------------------------------------------------------------------------------- A4
@certificate("A4", title="Entrywise positive is not positive semidefinite: [[1,10],[1,1]]",
             paper="PLGA §3.1", claim="[[1,10],[1,1]] > 0 entrywise, yet its symmetric part has eigenvalues 6.5 "
                                      "and -4.5.", method="exact")
def positive_not_psd() -> Outcome:
    """Exact eigenvalues of the symmetric part (rational arithmetic)."""
    import sympy as sp

    from theorylab.symbolic import plga as sy

    M = sp.Matrix([[1, 10], [1, 1]])
    ev = sy.symmetric_part_eigenvalues(M)
    expected = {sp.Rational(13, 2): 1, sp.Rational(-9, 2): 1}
    positive = all(v > 0 for v in M)
    ok = positive and ev == expected and min(ev) < 0
    return Outcome(ok, (computed("entrywise positive", positive),
                        computed("eigenvalues of (M + M^T)/2", {str(k): v for k, v in ev.items()}),
                        computed("smallest eigenvalue < 0 (not PSD)", bool(min(ev) < 0))))



# ----------------------------------------------------------------------------------------- A16
@certificate("A16", title="Rank one A = 1 alpha^T: det 0, A^{k+1} = s^k A, row-sum eigenvector, nilpotent at s = 0; "
                          "perron_frobenius answers it",
             paper="PLGA Prop. 3.9; Lean RankOne.lean (rowClone_*)",
             claim="For symbolic alpha (d = 3, 4): rank 1 alpha^T <= 1 (every 2x2 minor vanishes) and = 1 iff alpha != 0, "
                   "det = 0, A 1 = s 1, A^{k+1} = s^k A (k <= 4), and A^2 = 0 when s = 0; the library's "
                   "perron_frobenius returns rho = |s|, eigenvalue s, second 0 exactly on dyadic rank-one inputs, "
                   "rho = 0 in the nilpotent case.",
             method="exact")
def rank_one() -> Outcome:
    """Symbolic alpha through the library's row_clone (SymPy matrix algebra); float inputs with dyadic entries compared
    exactly (==) with SymPy's exact spectrum of the same rational matrix."""
    import sympy as sp

    from theorylab.symbolic import exact as ex

    checks = {}
    for d in (3, 4):
        alpha = ex.symbol_array("alpha", d, real=True)
        gens = tuple(alpha)
        A = ex.matrix(plga.row_clone(alpha))
        s = sum(alpha)
        minors = all(ex.is_zero(sp.expand(A[i, k] * A[j, l] - A[i, l] * A[j, k]), gens)
                     for i in range(d) for j in range(i + 1, d) for k in range(d) for l in range(k + 1, d))
        power, powers = A, True
        for k in range(1, 5):                                            # A^{k+1} by repeated products, expanded
            power = (power * A).applyfunc(sp.expand)
            powers &= ex.matrix_is_zero((power - s ** k * A).applyfunc(sp.expand), gens)
        nil = {alpha[-1]: -sum(alpha[:-1])}
        An = A.xreplace(nil)
        checks[f"d = {d}"] = {
            "det == 0": ex.is_zero(sp.expand(A.det()), gens), "2x2 minors == 0 (rank <= 1)": minors,
            "row 0 == alpha (A = 0 iff alpha = 0)": ex.matrix_is_zero(A.row(0).T - sp.Matrix(alpha), gens),
            "A 1 == s 1": ex.matrix_is_zero(A * sp.ones(d, 1) - s * sp.ones(d, 1), gens),
            "A^{k+1} == s^k A, k = 1..4": powers,
            "s = 0: A^2 == 0, A != 0": (ex.matrix_is_zero((An * An).applyfunc(sp.expand), gens[:-1])
                                        and not ex.matrix_is_zero(An, gens[:-1]))}
    spectra, answered = {}, True
    for name, alpha in {"alpha = (3, -1, 5, 1)/8": [3, -1, 5, 1], "nilpotent (1, 2, -3)/8": [1, 2, -3],
                        "alpha = 0 (d = 3)": [0, 0, 0], "d = 1, alpha = -4/8": [-4]}.items():
        exact_alpha = [sp.Rational(a, 8) for a in alpha]
        M = np.outer(np.ones(len(alpha)), np.array(alpha) / 8.0)
        ev = sp.Matrix(len(alpha), len(alpha), lambda i, j: exact_alpha[j]).eigenvals()
        s = sum(exact_alpha)
        try:
            pf = plga.perron_frobenius(M)
        except ParameterError as exc:
            answered, spectra[name] = False, f"refused: {exc}"
            continue
        exact = (ev == ({s: 1, 0: len(alpha) - 1} if s != 0 and len(alpha) > 1 else {s: len(alpha)})
                 and pf.rho == float(abs(s)) and pf.eigenvalue == float(s) and pf.second == 0.0
                 and bool(np.all(pf.vector == 1.0 / len(alpha))) and pf.residual <= 1e-16)
        answered &= exact
        spectra[name] = [pf.rho, pf.eigenvalue, pf.second, pf.residual, str(s), exact]
    noise = float(np.max(np.abs(np.linalg.eigvals(np.outer(np.ones(3), [1 / 8, 2 / 8, -3 / 8])))))
    ok = all(all(c.values()) for c in checks.values()) and answered
    return Outcome(ok, (computed("identities per d", checks),
                        computed("library perron_frobenius [rho, eigenvalue, second, residual], exact s, rho, "
                                 "eigenvalue, second, vector exact (==), residual <= 1e-16", spectra),
                        proxy("largest |eigenvalue| of the nilpotent case from a general eigensolver", noise,
                              formula="numpy.linalg.eigvals: the defective eigenvalue 0 returns ~sqrt(machine eps)")))


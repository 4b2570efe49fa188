"""Exact (SymPy) routes for the PLGA certificates (PLGA §3-5; claims A2-A7, A11-A13).

Everything here is rational arithmetic over QQ (or QQ of named generators): Haar
moments of the rotation torus, rational rotations ``u = tan(theta/2)``, closed-walk
enumeration, exact spectra of small integer matrices. The certificates compare these
with what the numeric library (:mod:`theorylab.plga.operator`) computes.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp
from sympy.polys.matrices import DomainMatrix

from theorylab.errors import positive_int
from theorylab.symbolic.exact import matrix as exact_matrix


def symbol_matrix(name: str, rows: int, cols: int, **assumptions) -> np.ndarray:
    """Object array of fresh symbols ``name_i_j``."""
    return np.array([[sp.Symbol(f"{name}_{i}_{j}", **assumptions) for j in range(cols)] for i in range(rows)],
                    dtype=object)


# ---------------------------------------------------------------- rotation torus (A6, A12)
def plane_rotation(c, s) -> sp.Matrix:
    """``[[c, -s], [s, c]]``: the library's pair rotation (theorylab.psa.shear.rotate_pairs)."""
    return sp.Matrix([[c, -s], [s, c]])


def torus_rotation(cs) -> sp.Matrix:
    """Block-diagonal rotation from per-plane ``(c_a, s_a)`` pairs."""
    return sp.diag(*[plane_rotation(c, s) for c, s in cs])


def _trig_moment(i: int, j: int) -> sp.Rational:
    """``E[cos^i phi sin^j phi]`` for phi uniform on the circle: 0 unless i, j even, else
    ``(i-1)!! (j-1)!! / (i+j)!!``."""
    if i % 2 or j % 2:
        return sp.Integer(0)
    return sp.Rational(sp.factorial2(i - 1) * sp.factorial2(j - 1), sp.factorial2(i + j))


def torus_haar_average(G) -> sp.Matrix:
    """Exact Haar average of ``R^T G R`` over the rotation torus (independent uniform angle per plane).

    ``R`` has symbolic ``(c_a, s_a)``; each entry of ``R^T G R`` is expanded as a polynomial in
    them, reduced by ``c_a^2 + s_a^2 = 1`` implicitly through the exact circle moments.
    """
    G = sp.Matrix(G)
    planes = G.shape[0] // 2
    cs = [sp.symbols(f"c{a} s{a}", real=True) for a in range(planes)]
    gens = [v for pair in cs for v in pair]
    R = torus_rotation(cs)
    conj = (R.T * G * R).applyfunc(sp.expand)

    def average(expr):
        total = sp.Integer(0)
        for monom, coeff in sp.Poly(expr, *gens).terms():
            weight = sp.Integer(1)
            for a in range(planes):
                weight *= _trig_moment(monom[2 * a], monom[2 * a + 1])
            total += coeff * weight
        return sp.expand(total)

    return conj.applyfunc(average)


u1, u2 = sp.symbols("u1 u2", real=True)
"""``u_a = tan(theta_a / 2)``: rational parametrisation of the plane rotations."""


def rational_plane(u) -> tuple[sp.Expr, sp.Expr]:
    """``(cos theta, sin theta) = ((1 - u^2)/(1 + u^2), 2u/(1 + u^2))``."""
    return (1 - u**2) / (1 + u**2), 2 * u / (1 + u**2)


def commuting_solutions(us) -> list[sp.Matrix]:
    """Basis of ``{G : G R = R G}`` for the one-step rotation R with plane parameters ``us``.

    By the group law ``R_t = R^t``, ``q^T R_t^T G R_s k`` depends only on ``s - t`` for all
    q, k exactly when G commutes with R (Prop. 4.1). R is block-diagonal, so the (a, b)
    block of ``G R - R G`` is ``G_ab R_b - R_a G_ab``: four unknowns per block pair, solved
    as linear systems over QQ(us) (denominators 1 + u^2 cleared). Pass equal parameters
    to see a resonance.
    """
    planes = [sp.Matrix([[(1 - u**2), -2 * u], [2 * u, (1 - u**2)]]) for u in us]   # (1 + u^2) R_a
    scale = [1 + u**2 for u in us]
    d = 2 * len(us)
    out = []
    x = sp.symbols("x0:4")
    X = sp.Matrix(2, 2, x)
    for a, Ra in enumerate(planes):
        for b, Rb in enumerate(planes):
            E = (X * Rb * scale[a] - Ra * X * scale[b]).applyfunc(sp.expand)      # (1+u_a^2)(1+u_b^2)(X R_b - R_a X)
            A = sp.Matrix([[e.coeff(v) for v in x] for e in E])
            kernel = DomainMatrix.from_Matrix(A).to_field().nullspace().to_Matrix()   # exact, over QQ(us)
            for r in range(kernel.rows):
                M = sp.zeros(d, d)
                M[2 * a:2 * a + 2, 2 * b:2 * b + 2] = sp.Matrix(2, 2, list(kernel.row(r)))
                out.append(M)
    return out


def commutant_basis(planes: int) -> list[sp.Matrix]:
    """The claimed commutant: ``E_aa (x) I`` and ``E_aa (x) J`` for each plane a (dimension 2 * planes)."""
    planes = positive_int("planes", planes)
    J = sp.Matrix([[0, -1], [1, 0]])
    out = []
    for a in range(planes):
        for B in (sp.eye(2), J):
            M = sp.zeros(2 * planes, 2 * planes)
            M[2 * a:2 * a + 2, 2 * a:2 * a + 2] = B
            out.append(M)
    return out


def span_equal(A: list[sp.Matrix], B: list[sp.Matrix]) -> bool:
    """Whether two lists of matrices span the same space (exact ranks of the stacked vectors)."""
    va = sp.Matrix([list(M) for M in A])
    vb = sp.Matrix([list(M) for M in B])
    both = sp.Matrix.vstack(va, vb)
    ra, rb, rab = va.rank(simplify=True), vb.rank(simplify=True), both.rank(simplify=True)
    return ra == rb == rab


# ---------------------------------------------------------------- walks (A5, A13)
def closed_walk_sum(M, k: int) -> sp.Expr:
    """Sum over closed walks ``i_0 -> i_1 -> ... -> i_0`` of length k of the product of M's entries."""
    M = sp.Matrix(M)
    d = M.shape[0]
    total = sp.Integer(0)
    for path in itertools.product(range(d), repeat=k):
        term = sp.Integer(1)
        for a in range(k):
            term *= M[path[a], path[(a + 1) % k]]
        total += term
    return sp.expand(total)


def trace_power(M, k: int) -> sp.Expr:
    """``tr(M^k)`` expanded."""
    return sp.expand((sp.Matrix(M) ** k).trace())


def walk_series_value(M, kmax: int) -> sp.Expr:
    """``sum_{k=1}^{kmax} tr(M^k)/k!`` (a truncation of ``tr exp(M) - d``)."""
    return sum(trace_power(M, k) / math.factorial(k) for k in range(1, kmax + 1))


# ---------------------------------------------------------------- spectra (A4)
def symmetric_part_eigenvalues(M) -> dict:
    """Exact eigenvalues (with multiplicities) of ``(M + M^T)/2``; floats enter as their exact binary value."""
    M = exact_matrix(M)
    return ((M + M.T) / 2).eigenvals()


def matrix_eigenvalues(M) -> dict:
    """Exact eigenvalues of ``M`` itself (for contrast with its symmetric part)."""
    return exact_matrix(M).eigenvals()


__all__ = ["symbol_matrix", "plane_rotation", "torus_rotation", "torus_haar_average", "u1", "u2", "rational_plane",
           "commuting_solutions", "commutant_basis", "span_equal", "closed_walk_sum", "trace_power",
           "walk_series_value", "symmetric_part_eigenvalues", "matrix_eigenvalues"]

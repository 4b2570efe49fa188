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

from theorylab.errors import ParameterError, describe, positive_int
from theorylab.symbolic.exact import _to_exact, _to_matrix


def symbol_matrix(name: str, rows: int, cols: int, **assumptions) -> np.ndarray:
    """Object array of fresh symbols ``name_i_j``."""
    return np.array([[sp.Symbol(f"{name}_{i}_{j}", **assumptions) for j in range(cols)] for i in range(rows)],
                    dtype=object)


# ---------------------------------------------------------------- rotation torus (A6, A12)
def plane_rotation(c, s) -> sp.Matrix:
    """``[[c, -s], [s, c]]``: the library's pair rotation (theorylab.psa.rotary.rotate_pairs).

    ``c``, ``s``: numbers or SymPy expressions (:func:`theorylab.symbolic.exact.exact`; strings are refused)."""
    c, s = _to_exact("c", c), _to_exact("s", s)
    return sp.Matrix([[c, -s], [s, c]])


def torus_rotation(cs) -> sp.Matrix:
    """Block-diagonal rotation from per-plane ``(c_a, s_a)`` pairs (numbers or SymPy expressions)."""
    pairs = [tuple(p) for p in cs] if not isinstance(cs, (str, bytes)) and hasattr(cs, "__iter__") else None
    if pairs is None or any(len(p) != 2 for p in pairs):
        raise ParameterError(f"cs must be a list of (c, s) pairs (got {describe(cs)})")
    return sp.diag(*[plane_rotation(c, s) for c, s in pairs])


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
    G = _to_matrix("G", G)
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
    """Whether two lists of matrices span the same space (exact ranks of the stacked vectors).

    Each matrix is a SymPy matrix or an array of numbers and expressions, converted by
    :func:`theorylab.symbolic.exact.matrix` (strings are refused)."""
    va, vb = (sp.Matrix([list(_to_matrix(name, M)) for M in _matrices(name, X)]) for name, X in (("A", A), ("B", B)))
    both = sp.Matrix.vstack(va, vb)
    ra, rb, rab = va.rank(simplify=True), vb.rank(simplify=True), both.rank(simplify=True)
    return ra == rb == rab


# ---------------------------------------------------------------- walks (A5, A13)
def closed_walk_sum(M, k: int) -> sp.Expr:
    """Sum over closed walks ``i_0 -> i_1 -> ... -> i_0`` of length k (>= 1) of the product of M's entries.

    ``M``: a square SymPy matrix or array of numbers and expressions (:func:`theorylab.symbolic.exact.matrix`)."""
    M, k = _square("M", M), positive_int("k", k)
    d = M.shape[0]
    total = sp.Integer(0)
    for path in itertools.product(range(d), repeat=k):
        term = sp.Integer(1)
        for a in range(k):
            term *= M[path[a], path[(a + 1) % k]]
        total += term
    return sp.expand(total)


def trace_power(M, k: int) -> sp.Expr:
    """``tr(M^k)`` expanded (``M`` square, as for :func:`closed_walk_sum`; ``k >= 0``)."""
    return _trace_power(_square("M", M), positive_int("k", k, low=0))


def _trace_power(M: sp.Matrix, k: int) -> sp.Expr:
    return sp.expand((M ** k).trace())


def walk_series_value(M, kmax: int) -> sp.Expr:
    """``sum_{k=1}^{kmax} tr(M^k)/k!`` (a truncation of ``tr exp(M) - d``)."""
    M, kmax = _square("M", M), positive_int("kmax", kmax)
    return sum(_trace_power(M, k) / math.factorial(k) for k in range(1, kmax + 1))


def _square(name: str, M) -> sp.Matrix:
    """``M`` as an exact square SymPy matrix (:func:`theorylab.symbolic.exact.matrix`), else ParameterError."""
    M = _to_matrix(name, M)
    if M.rows != M.cols:
        raise ParameterError(f"{name} must be a square matrix (got shape {M.shape})")
    return M


def _matrices(name: str, X) -> list:
    """A list of matrices (not a string or a single number)."""
    if isinstance(X, (str, bytes, sp.Basic, sp.MatrixBase)) or not hasattr(X, "__iter__"):
        raise ParameterError(f"{name} must be a list of matrices (got {describe(X)})")
    return list(X)


# ---------------------------------------------------------------- spectra (A4)
def symmetric_part_eigenvalues(M) -> dict:
    """Exact eigenvalues (with multiplicities) of ``(M + M^T)/2``; floats enter as their exact binary value."""
    M = _to_matrix("M", M)
    return ((M + M.T) / 2).eigenvals()


def matrix_eigenvalues(M) -> dict:
    """Exact eigenvalues of ``M`` itself (for contrast with its symmetric part)."""
    return _to_matrix("M", M).eigenvals()


__all__ = ["symbol_matrix", "plane_rotation", "torus_rotation", "torus_haar_average", "u1", "u2", "rational_plane",
           "commuting_solutions", "commutant_basis", "span_equal", "closed_walk_sum", "trace_power",
           "walk_series_value", "symmetric_part_eigenvalues", "matrix_eigenvalues"]

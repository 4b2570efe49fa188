"""Exact decision procedures shared by the symbolic certificates.

An identity is *decided* here only by exact arithmetic: an expression is brought to
one fraction ``num/den`` of polynomials over the rationals (or over ``QQ[...]`` of
named generators) and ``num`` is tested for being the zero polynomial. Anything that
is not a rational function of the declared generators (square roots, exponentials,
floating-point coefficients, SymPy's ``EX`` domain) raises :class:`Undecided`; the
certificate runner turns that into ERROR, never PASS.
"""
from __future__ import annotations

import numbers

import numpy as np
import sympy as sp

from theorylab.errors import ParameterError, positive_int


class Undecided(ArithmeticError):
    """SymPy could not decide the identity by exact polynomial arithmetic."""


def exact(value) -> sp.Expr:
    """A SymPy expression with floats converted to their exact binary rational value."""
    if isinstance(value, (bool, np.bool_)):
        raise Undecided(f"boolean {value!r} is not an algebraic value")
    if isinstance(value, numbers.Integral):
        return sp.Integer(int(value))
    if isinstance(value, numbers.Real) and not isinstance(value, sp.Basic):
        return sp.Rational(float(value))
    expr = sp.sympify(value)
    if expr.has(sp.Float):
        expr = expr.xreplace({f: sp.Rational(float(f)) for f in expr.atoms(sp.Float)})
    return expr


def matrix(arr) -> sp.Matrix:
    """``sp.Matrix`` of a NumPy (object or numeric) 1-D/2-D array with exact entries."""
    arr = np.asarray(arr, dtype=object)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise Undecided(f"expected a vector or matrix (got ndim {arr.ndim})")
    return sp.Matrix(arr.shape[0], arr.shape[1], [exact(v) for v in arr.flat])


def is_zero(expr, gens) -> bool:
    """Decide ``expr == 0`` identically in ``gens`` (a rational function over QQ).

    Every free symbol of ``expr`` must be among ``gens``, so the coefficients are
    rational numbers and the zero test is exact.
    """
    gens = tuple(gens)
    expr = exact(expr)
    extra = expr.free_symbols - set(gens)
    if extra:
        raise Undecided(f"symbols {sorted(map(str, extra))} are not generators")
    num, den = sp.fraction(sp.together(expr))
    try:
        pn = sp.Poly(sp.expand(num), *gens, domain="QQ") if gens else None
        pd = sp.Poly(sp.expand(den), *gens, domain="QQ") if gens else None
    except (sp.PolynomialError, sp.polys.polyerrors.CoercionFailed) as exc:
        raise Undecided(f"not a rational function over QQ of {gens}: {exc}") from None
    if not gens:
        num, den = sp.expand(num), sp.expand(den)  # exact: no numerical guessing of a closed form
        if not (num.is_Rational and den.is_Rational):
            raise Undecided(f"constant {expr} is not rational")
        if den == 0:
            raise Undecided("zero denominator")
        return num == 0
    if pd.is_zero:
        raise Undecided("zero denominator")
    return pn.is_zero


def matrix_is_zero(M, gens) -> bool:
    """Every entry of ``M`` is identically zero (decided entrywise by :func:`is_zero`)."""
    return all(is_zero(v, gens) for v in matrix(M))


def equal(a, b, gens) -> bool:
    """``a == b`` identically (scalars, arrays or matrices), decided exactly."""
    if isinstance(a, (np.ndarray, sp.MatrixBase)) or isinstance(b, (np.ndarray, sp.MatrixBase)):
        A, B = matrix(a), matrix(b)
        return A.shape == B.shape and matrix_is_zero(A - B, gens)
    return is_zero(exact(a) - exact(b), gens)


def positive(expr, assumptions_hint: str = "") -> bool:
    """Decide ``expr > 0`` from SymPy's assumptions (symbols declared positive); None -> Undecided."""
    verdict = exact(expr).is_positive
    if verdict is None:
        raise Undecided(f"sign of {expr} not decided {assumptions_hint}".strip())
    return bool(verdict)


def symbol_array(name: str, *shape: int, **assumptions) -> np.ndarray:
    """Object array of fresh symbols ``name_i_j`` of the given shape (a symbolic stream)."""
    if not isinstance(name, str):
        raise ParameterError(f"name must be a string (got {type(name).__name__})")
    shape = tuple(positive_int("shape", n, low=0) for n in shape)
    flat = [sp.Symbol(f"{name}_{'_'.join(map(str, idx))}", **assumptions) for idx in np.ndindex(*shape)]
    arr = np.empty(len(flat), dtype=object)
    arr[:] = flat
    return arr.reshape(shape)


def symbols_of(*arrays) -> tuple[sp.Symbol, ...]:
    """All symbols appearing in the given object arrays or expressions (sorted by name)."""
    found: set = set()
    for a in arrays:
        for v in np.asarray(a, dtype=object).flat:
            found |= exact(v).free_symbols
    return tuple(sorted(found, key=str))

"""Exact decision procedures shared by the symbolic certificates.

An identity is *decided* here only by exact arithmetic: an expression is brought to
one fraction ``num/den`` of polynomials over the rationals (or over ``QQ[...]`` of
named generators) and ``num`` is tested for being the zero polynomial. Anything that
is not a rational function of the declared generators (square roots, exponentials,
floating-point coefficients, SymPy's ``EX`` domain) raises :class:`Undecided`; the
certificate runner turns that into ERROR, never PASS.
"""
from __future__ import annotations

import math
import numbers

import numpy as np
import sympy as sp

from theorylab.errors import ParameterError, describe, positive_int


class Undecided(ArithmeticError):
    """SymPy could not decide the identity by exact polynomial arithmetic."""


def exact(value) -> sp.Expr:
    """A SymPy expression with floats converted to their exact binary rational value.

    Parameters
    ----------
    value : int, float, Fraction or NumPy scalar (finite), a 0-d array of one, or a SymPy
        expression without infinities or NaN. Strings are refused, never parsed: this module
        converts by type and never calls ``sympify`` (which evaluates strings as Python code).

    Returns
    -------
    sympy.Basic
        Integers as ``Integer``, fractions and floats as the exact ``Rational`` (a float is a
        dyadic rational), expressions with their ``Float`` atoms replaced the same way.

    Raises
    ------
    ParameterError
        For a string, bytes, None, a boolean, a complex number, NaN or an infinity, a list or
        array of several values (use :func:`matrix`) or any other object.
    """
    return _to_exact("value", value)


def _to_exact(name: str, value) -> sp.Basic:
    """:func:`exact` with the parameter's name for the message (the one converter of this module)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, sp.Basic):
        if value.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
            raise ParameterError(f"{name} must be a finite real number or a SymPy expression without infinities "
                                 f"or NaN (got {describe(value)})")
        if value.has(sp.Float):
            value = value.xreplace({f: sp.Rational(float(f)) for f in value.atoms(sp.Float)})
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        if isinstance(value, numbers.Integral):
            return sp.Integer(int(value))
        if isinstance(value, numbers.Rational):
            return sp.Rational(int(value.numerator), int(value.denominator))
        if math.isfinite(float(value)):
            return sp.Rational(float(value))
    what = f"a string {describe(value)}; strings are not parsed" if isinstance(value, (str, bytes)) else \
        describe(value)
    raise ParameterError(f"{name} must be a finite real number or a SymPy expression (got {what})")


def matrix(arr) -> sp.Matrix:
    """``sp.Matrix`` of a NumPy (object or numeric) 1-D/2-D array, nested list or SymPy matrix with exact entries.

    Every entry goes through :func:`exact` (strings and non-finite numbers are refused with
    :class:`ParameterError`); a 1-D input becomes a column.
    """
    return _to_matrix("arr", arr)


def _to_matrix(name: str, arr) -> sp.Matrix:
    """:func:`matrix` with the parameter's name for the message."""
    if isinstance(arr, (str, bytes)) or arr is None:
        raise ParameterError(f"{name} must be a vector or matrix of finite real numbers or SymPy expressions "
                             f"(got {describe(arr)})")
    try:
        arr = np.asarray(arr.tolist() if isinstance(arr, sp.MatrixBase) else arr, dtype=object)
    except ValueError:
        raise ParameterError(f"{name} must be a vector or matrix with rows of one length (got {describe(arr)})") \
            from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ParameterError(f"{name} must be a vector or matrix (got ndim {arr.ndim})")
    return sp.Matrix(arr.shape[0], arr.shape[1], [_to_exact(f"{name} entries", v) for v in arr.flat])


def _generators(gens) -> tuple:
    """``gens`` as a tuple of SymPy expressions (symbols, usually); strings and numbers are refused."""
    if isinstance(gens, (str, bytes, sp.Basic)) or not hasattr(gens, "__iter__"):
        raise ParameterError(f"gens must be a list of SymPy symbols (got {describe(gens)})")
    gens = tuple(gens)
    for v in gens:
        if not isinstance(v, sp.Basic) or v.is_number:
            raise ParameterError(f"gens must be a list of SymPy symbols (got an entry {describe(v)})")
    return gens


def is_zero(expr, gens) -> bool:
    """Decide ``expr == 0`` identically in ``gens`` (a rational function over QQ).

    Every free symbol of ``expr`` must be among ``gens``, so the coefficients are
    rational numbers and the zero test is exact.
    """
    return _is_zero(_to_exact("expr", expr), _generators(gens))


def _is_zero(expr: sp.Basic, gens: tuple) -> bool:
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
    gens = _generators(gens)
    return all(_is_zero(v, gens) for v in _to_matrix("M", M))


def equal(a, b, gens) -> bool:
    """``a == b`` identically (scalars, arrays or matrices), decided exactly."""
    gens = _generators(gens)
    if isinstance(a, (np.ndarray, sp.MatrixBase)) or isinstance(b, (np.ndarray, sp.MatrixBase)):
        A, B = _to_matrix("a", a), _to_matrix("b", b)
        return A.shape == B.shape and all(_is_zero(v, gens) for v in A - B)
    return _is_zero(_to_exact("a", a) - _to_exact("b", b), gens)


def positive(expr, assumptions_hint: str = "") -> bool:
    """Decide ``expr > 0`` from SymPy's assumptions (symbols declared positive); None -> Undecided."""
    verdict = _to_exact("expr", expr).is_positive
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
            found |= _to_exact("arrays entries", v).free_symbols
    return tuple(sorted(found, key=str))

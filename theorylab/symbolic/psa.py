"""Symbolic forms of the PSA reduced score model (exact rational coefficients)."""
from __future__ import annotations

import numpy as np
import sympy as sp

from theorylab.errors import ParameterError, describe, positive_int
from theorylab.psa.scoremodel import ScoreModel
from theorylab.symbolic.exact import _to_matrix, exact, symbol_array

g, dk = sp.symbols("g d_k", positive=True)


def _poly(coeffs) -> sp.Expr:
    """Polynomial in g whose coefficients are the EXACT binary values of the library's floats (no rounding)."""
    return sum(exact(c) * g**j for j, c in enumerate(coeffs))


def gap_expr(model: ScoreModel) -> sp.Expr:
    """``Delta(g, dk) = sqrt(dk) * gap_poly(g)`` with exact coefficients."""
    return sp.sqrt(dk) * _poly(model.gap_poly)


def variance_expr(model: ScoreModel) -> sp.Expr:
    """``sigma^2(g) = var_poly(g)`` with exact coefficients."""
    return _poly(model.var_poly)


# ---------------------------------------------------------------- symbols and helpers for the shear certificates
g_q, g_k = sp.symbols("g_q g_k", real=True)
n = sp.Symbol("n", positive=True, integer=True)
tan_half = sp.Symbol("u", real=True)
"""``u = tan(theta/2)``: cos(theta) = (1 - u^2)/(1 + u^2), sin(theta) = 2u/(1 + u^2) (rational)."""


def jacobian(outputs, inputs) -> sp.Matrix:
    """Jacobian matrix of a flat object array of expressions with respect to flat input symbols.

    Parameters
    ----------
    outputs : array-like of numbers or SymPy expressions (entries converted by
        :func:`theorylab.symbolic.exact.exact`: floats become their exact binary rational, strings are refused).
    inputs : array-like of SymPy symbols.

    Raises
    ------
    ParameterError
        If an output is not a finite number or expression, or an input is not a SymPy symbol.
    """
    outs = list(_to_matrix("outputs", np.ravel(np.asarray(outputs, dtype=object))))
    ins = list(np.ravel(np.asarray(inputs, dtype=object)))
    bad = [v for v in ins if not isinstance(v, sp.Symbol)]
    if bad or not ins:
        raise ParameterError(f"inputs must be a non-empty array of SymPy symbols (got {describe(bad[0] if bad else ins)})")
    return sp.Matrix(outs).jacobian(ins)


def lift(d: int) -> tuple[np.ndarray, np.ndarray]:
    """Symbolic phase-space point ``(q, p)`` of width d (object arrays)."""
    d = positive_int("d", d)
    return symbol_array("q", d), symbol_array("p", d)


def rational_rotation(T: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """RoPE tables ``(cos, sin)`` of shape ``(T, d/2)`` for angle ``t * theta`` at position t, exactly.

    Every rotation plane turns by theta per position; ``cos(t theta) + i sin(t theta) = w^t``
    with ``w = (1 - u^2 + 2iu)/(1 + u^2)``, ``u = tan(theta/2)``: rational functions of u.
    """
    T, d = positive_int("T", T), positive_int("d", d)
    w = (1 - tan_half**2 + 2 * sp.I * tan_half) / (1 + tan_half**2)
    cos = np.empty((T, d // 2), dtype=object)
    sin = np.empty((T, d // 2), dtype=object)
    for t in range(T):
        z = sp.expand(w**t, complex=True)
        cos[t, :], sin[t, :] = sp.cancel(sp.re(z)), sp.cancel(sp.im(z))
    return cos, sin

"""Symbolic forms of the PSA reduced score model (exact rational coefficients)."""
from __future__ import annotations

import sympy as sp

from theorylab.psa.scoremodel import ScoreModel

g, dk = sp.symbols("g d_k", positive=True)


def _poly(coeffs) -> sp.Expr:
    return sum(sp.nsimplify(c) * g**j for j, c in enumerate(coeffs))


def gap_expr(model: ScoreModel) -> sp.Expr:
    """``Delta(g, dk) = sqrt(dk) * gap_poly(g)`` with exact coefficients."""
    return sp.sqrt(dk) * _poly(model.gap_poly)


def variance_expr(model: ScoreModel) -> sp.Expr:
    """``sigma^2(g) = var_poly(g)`` with exact coefficients."""
    return _poly(model.var_poly)

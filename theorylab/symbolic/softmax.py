"""Softmax as a rational function, for exact certificates (PSA §6.1).

With ``u_i = exp(s_i) > 0`` the softmax is ``p_i = u_i / sum_j u_j``; a perturbation
``eps * d`` multiplies ``u_i`` by ``v_i = exp(eps d_i)``, and every derivative in eps at
0 is a rational function of ``u`` and ``d`` (``dv_i/deps = d_i v_i``, ``v = 1`` at 0).
So the linearisation and its remainder are decided by exact rational arithmetic.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from theorylab.errors import positive_int


def symbols(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Positive weights ``u`` (= exp(s)) and a perturbation direction ``d`` of length n (object arrays)."""
    n = positive_int("n", n)
    u = np.array(sp.symbols(f"u0:{n}", positive=True), dtype=object)
    d = np.array(sp.symbols(f"d0:{n}", real=True), dtype=object)
    return u, d


def probabilities(u) -> np.ndarray:
    """``p = u / sum(u)`` (object array)."""
    total = sum(u)
    return np.array([ui / total for ui in u], dtype=object)


def derivative(u, d, order: int) -> np.ndarray:
    """``d^order/deps^order softmax(s + eps d)`` at eps = 0, as rational functions of (u, d)."""
    n = len(u)
    v = sp.symbols(f"v0:{n}", positive=True)
    expr = [ui * vi / sum(uj * vj for uj, vj in zip(u, v)) for ui, vi in zip(u, v)]
    for _ in range(order):  # d/deps acts on v as the derivation v_i -> d_i v_i
        expr = [sum(sp.diff(e, vj) * dj * vj for vj, dj in zip(v, d)) for e in expr]
    at0 = {vi: 1 for vi in v}
    # one fraction per entry (together), not reduced to lowest terms: cancel's gcd was 5x the rest of the work,
    # and every consumer decides zero-ness exactly (exact.is_zero) or evaluates numerically
    return np.array([sp.together(e.xreplace(at0)) for e in expr], dtype=object)

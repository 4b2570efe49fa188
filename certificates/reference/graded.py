"""Reference quantities of the GLLM paper (§4.1-4.3), from its equations; NumPy and mpmath only.

* MLGE grading (§4.1): ``G = sum_l P_l diag(lambda^q_l) P_l^T``.
* Prop. 8: ``Phi(u) = log sum_j alpha_j e^{-u_j} + log sum_j tau_j e^{u_j}`` (``u = 2 q log lambda``);
  its gradient is taken here by mpmath's numerical differentiation of Phi at 30 digits, not by a
  formula.
* Lem. 4 / Thm. 4.1 (stratified design, geometric profiles ``a_l ~ nu^(L-1-l)``, ``s_l ~ mu^l``):
  ``cap_0^gr / cap_0^unif = g_0^2 sum_k a_k g_k^-2`` and ``Lambda(g) = (sum a g^-2)(sum s g^2)``; the
  grade condition ``1 <= g_0 <= ... <= g_(L-1)``, ``g_(l+1)/g_l <= (nu mu)^(-1/4)``.
"""
from __future__ import annotations

import mpmath as mp
import numpy as np


def mlge_grading(P_blocks, q_blocks, lam: float) -> np.ndarray:
    """``G = sum_l P_l diag(lambda^q_l) P_l^T`` (d, d), one level at a time."""
    d = np.asarray(P_blocks[0]).shape[0]
    G = np.zeros((d, d))
    for P, q in zip(P_blocks, q_blocks):
        P = np.asarray(P, dtype=float)
        G += P @ np.diag(float(lam) ** np.asarray(q, dtype=float)) @ P.T
    return G


def phi(u, alpha, tau):
    """``Phi(u) = log A(u) + log T(u)`` in mpmath (u, alpha, tau sequences of numbers)."""
    A = mp.fsum(mp.mpf(a) * mp.exp(-x) for a, x in zip(alpha, u))
    T = mp.fsum(mp.mpf(t) * mp.exp(x) for t, x in zip(tau, u))
    return mp.log(A) + mp.log(T)


def gradient_phi(u, alpha, tau, dps: int = 30) -> np.ndarray:
    """``grad Phi(u)`` by mpmath numerical differentiation (one partial derivative per coordinate)."""
    alpha, tau = [float(a) for a in alpha], [float(t) for t in tau]
    with mp.workdps(dps):
        u0 = [mp.mpf(float(x)) for x in u]
        out = []
        for j in range(len(u0)):
            def along(x, j=j):
                return phi(u0[:j] + [x] + u0[j + 1:], alpha, tau)
            out.append(float(mp.diff(along, u0[j])))
    return np.array(out)


def geometric_profiles(nu: float, mu: float, L: int) -> tuple[np.ndarray, np.ndarray]:
    """Cor. 3: ``a_l = nu^(L-1-l) / sum``, ``s_l = mu^l / sum``, l = 0..L-1."""
    a = np.array([nu ** (L - 1 - l) for l in range(L)])
    s = np.array([mu ** l for l in range(L)])
    return a / a.sum(), s / s.sum()


def cap_ratio_over_Lambda(g, a, s) -> float:
    """``(g_0^2 sum a g^-2) / ((sum a g^-2)(sum s g^2))``: the Lem. 4(iv) cap ratio in units of Lambda(g)."""
    g, a, s = (np.asarray(x, dtype=float) for x in (g, a, s))
    cap_ratio = g[0] ** 2 * np.sum(a / g ** 2)
    return float(cap_ratio / (np.sum(a / g ** 2) * np.sum(s * g ** 2)))


def extremal_grades(nu: float, mu: float, L: int) -> dict[str, np.ndarray]:
    """The two ends of the grade condition: constant grades and the steepest ones ``g_l = (nu mu)^(-l/4)``."""
    return {"constant": np.ones(L), "steepest": np.array([(nu * mu) ** (-l / 4) for l in range(L)])}


def sharp_factors(nu: float, mu: float, L: int) -> tuple[float, float]:
    """Exact extremes of cap_ratio/Lambda = g_0^2 / sum_l s_l g_l^2 over the grade condition (profiles of Cor. 3):
    the minimum ``(1-r)(1-mu^L) / ((1-mu)(1-r^L))`` (steepest grades; r = sqrt(mu/nu)) and the maximum 1
    (constant grades, since sum s = 1 and g_l >= g_0)."""
    r = np.sqrt(mu / nu)
    return (1 - r) * (1 - mu ** L) / ((1 - mu) * (1 - r ** L)), 1.0

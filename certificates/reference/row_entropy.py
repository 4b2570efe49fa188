"""Reference route to the row entropy's fall in the t4-only reduced model (PSA §6.6-6.7), NumPy only.

Independent of the library's quadrature (which differentiates E[H] numerically): here the fall
``D(x) = -dE[H]/dx`` at ``x = g^2`` is an integral of its own. In the t4-only model every
distractor's log-weight relative to the target is ``x e_j`` with a fixed energy
``e_j = 2 z_j - sqrt(dk)`` (z_j standard normal), so the row is a Gibbs distribution at inverse
temperature x over the energies ``(0, e_1, ..., e_m)`` and ``dH/dx = -x Var_p(e)``:

    D(x) = x (E[sum_j p_j e_j^2] - E[(sum_j p_j e_j)^2]),   m = T - 2.

With ``1/(1+S)^k = int_0^inf u^(k-1) e^(-u(1+S)) du / (k-1)!``, ``u = e^t``, ``v_j = t + x e_j``,
``k(v) = e^v exp(-e^v)``, ``k2(v) = e^(2v) exp(-e^v)`` and ``phi = E exp(-e^v)``::

    E[sum p e^2]    = m int exp(-e^t) E[e^2 k(v)] phi^(m-1) dt
    E[(sum p e)^2]  = int exp(-e^t) (m E[e^2 k2(v)] phi^(m-1) + m (m-1) E[e k(v)]^2 phi^(m-2)) dt

The expectations over z are composite 10-node Gauss-Legendre on [-9, 9] (panels of 0.5), the t
integral the same with panels of 2 on [t_lo, 5], t_lo far enough left that the distractors
dominate (``-45 - ln m - x (18 - sqrt(dk))``). Halving both panels changes D by < 5e-10 relative
at the condensed and mean-field points of the certificates.
"""
from __future__ import annotations

import numpy as np

from theorylab.certificates.reference.quadrature import composite

_Z_LO, _Z_HI, _Z_PANEL, _T_PANEL = -9.0, 9.0, 0.5, 2.0


def entropy_fall(x: float, dk: float, T: int) -> float:
    """``-dE[H]/dx`` of the t4-only row (target + ``T - 2`` distractors) at ``x = g^2 > 0``."""
    m = float(T) - 2.0
    z, wz = composite(_Z_LO, _Z_HI, _Z_PANEL)
    wz = wz * np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)
    e = 2.0 * z - np.sqrt(dk)
    t_lo = -45.0 - np.log(m) - x * max(0.0, 2.0 * _Z_HI - np.sqrt(dk))
    t, wt = composite(t_lo, 5.0, _T_PANEL)
    v = t[:, None] + x * e[None, :]
    ev = np.exp(v)
    k = np.exp(v - ev)
    k2 = np.exp(2.0 * v - ev)
    q = -np.expm1(-ev) @ wz                       # 1 - phi, directly
    lq = np.log1p(-np.clip(q, 0.0, 1.0))
    with np.errstate(invalid="ignore"):
        p1 = np.exp((m - 1.0) * lq)
        p2 = np.exp((m - 2.0) * lq) if m > 2 else np.ones_like(lq)
    cut = np.exp(-np.exp(t))
    a = m * ((cut * (k * e**2 @ wz) * p1) @ wt)
    b = (cut * (m * (k2 * e**2 @ wz) * p1 + m * (m - 1.0) * (k * e @ wz) ** 2 * p2)) @ wt
    return float(x * (a - b))


def row_moments(delta: float, sigma: float, m: int, *, scale: float = 1.0) -> tuple[float, float, float]:
    """``(E p_0, E H, E sum p^2)`` of a row: a target (log-weight 0) against ``m >= 1`` distractors with i.i.d.
    log-weights ``y_j = x_j - delta``, ``x_j ~ N(0, sigma^2)``, sigma > 0 (``scale`` < 1 refines both panels).

    With ``W = 1 + sum_j e^(y_j)``, ``1/W^k = int u^(k-1) e^(-u W) du / (k-1)!``, Frullani's
    ``ln W = int (e^(-u) - e^(-u W)) du / u``, ``u = e^t``, ``v = t + y`` and ``phi(t) = E exp(-e^v)``::

        E p_0       = int e^t exp(-e^t) phi^m dt
        E H         = int exp(-e^t) (1 - phi^m) dt - m int exp(-e^t) E[y e^v exp(-e^v)] phi^(m-1) dt
        E sum p^2   = int e^(2t) exp(-e^t) phi^m dt + m int exp(-e^t) E[e^(2v) exp(-e^v)] phi^(m-1) dt

    (H = ln W - sum_j y_j e^(y_j) / W, the target's log-weight being 0). The x expectation is composite
    10-node Gauss-Legendre on [-9 sigma, 9 sigma] (panels of ``min(1, sigma)``), the t integral the same on
    ``[-40 - max(0, ln m + 9 sigma - delta), 5]`` (panels of 1): below ``-ln W`` the integrands fall like
    ``e^t``, above t = 5 ``exp(-e^t) < 1e-64``. Quartering both panels changes the three moments by < 2e-14
    relative at the certificates' points; a brute-force simulation (4e5 rows) agrees within its standard errors.
    """
    x, wx = composite(-9.0 * sigma, 9.0 * sigma, scale * min(1.0, sigma))
    wx = wx * np.exp(-0.5 * (x / sigma) ** 2) / (sigma * np.sqrt(2.0 * np.pi))
    y = x - delta
    t, wt = composite(-40.0 - max(0.0, np.log(m) + 9.0 * sigma - delta), 5.0, scale)
    v = t[:, None] + y[None, :]
    ev = np.exp(np.minimum(v, 700.0))
    phi = np.exp(-ev) @ wx                        # phi itself (accurate where small) and 1 - phi (where phi ~ 1)
    q = -np.expm1(-ev) @ wx
    k1y = (y[None, :] * np.exp(v - ev)) @ wx
    k2 = np.exp(2.0 * v - ev) @ wx
    cut = np.exp(-np.exp(t))
    pm, pm1 = phi ** m, phi ** (m - 1)
    mass = wt @ (np.exp(t) * cut * pm)
    entropy = wt @ (cut * -np.expm1(m * np.log1p(-np.clip(q, 0.0, 1.0)))) - m * (wt @ (cut * k1y * pm1))
    ipr = wt @ (np.exp(2.0 * t) * cut * pm) + m * (wt @ (cut * k2 * pm1))
    return float(mass), float(entropy), float(ipr)


__all__ = ["entropy_fall", "row_moments"]

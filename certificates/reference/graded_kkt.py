"""KKT violation of a point of the clipped grade program (GLLM Prop. 10), from its definition; mpmath only.

In ``u = 2 log g`` the program minimises ``Phi(u) = log sum_j alpha_j e^(-u_j) + log sum_j tau_j e^(u_j)`` over the
box ``[0, U]^d``, ``U = 2 log C``.  Its KKT conditions: ``dPhi/du_j = tau_j e^(u_j)/T - alpha_j e^(-u_j)/A`` is 0 on
a free coordinate, >= 0 on one at the lower bound, <= 0 on one at the upper bound (no condition when the box is a
point, ``j`` in both sets).  The violation is the largest amount by which a condition fails.
"""
from __future__ import annotations

import mpmath as mp


def kkt_violation(g, alpha, tau, lower, upper, dps: int = 30):
    """``max_j`` of the KKT violation at the float grades ``g`` (``u = 2 log g``), with the coordinates of ``lower``
    at the lower bound and of ``upper`` at the upper bound (sets of indices); an mpf >= 0, at ``dps`` digits."""
    with mp.workdps(dps):
        u = [2 * mp.log(mp.mpf(float(x))) for x in g]
        a = [mp.mpf(float(x)) for x in alpha]
        t = [mp.mpf(float(x)) for x in tau]
        A = mp.fsum(x * mp.exp(-v) for x, v in zip(a, u))
        T = mp.fsum(y * mp.exp(v) for y, v in zip(t, u))
        worst = mp.mpf(0)
        for j, v in enumerate(u):
            grad = t[j] * mp.exp(v) / T - a[j] * mp.exp(-v) / A
            if j in lower and j in upper:
                continue
            fail = max(-grad, 0) if j in lower else max(grad, 0) if j in upper else abs(grad)
            worst = max(worst, fail)
        return worst

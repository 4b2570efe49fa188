"""Reference route to the distractors' own entropy E[H_d] (PSA §6.6-6.7, the random energy model), NumPy only.

``m`` i.i.d. log-weights ``x_j ~ N(0, sigma^2)``, ``S = sum_j e^(x_j)``,
``H_d = ln S - sum_j x_j e^(x_j) / S``. Independent of the library's quadrature (which reduces
``E[x e^x exp(-u e^x)]`` to bump integrals by Stein's lemma): here, with Frullani's
``ln S = int (e^(-u) - e^(-u S)) du / u``, ``1/S = int e^(-u S) du``, ``u = e^t`` and
``phi(t) = E exp(-e^(t + x))``, the expectation of ``x`` times the kernel is taken directly::

    E[H_d] = int [ exp(-e^t) - phi^m - m E[x e^(t+x) exp(-e^(t+x))] phi^(m-1) ] dt.

The x expectation is composite 10-node Gauss-Legendre on [-9 sigma, 9 sigma] (panels of
``min(0.5, sigma/2)``), the t integral the same on ``[-40 - ln m - 9 sigma, 5 + 9 sigma]``
(panels of 0.5). Halving both panels changes E[H_d] by < 1e-12 at the certificates' points.
For m = 2, ``H_d`` is the binary entropy of ``1/(1 + e^d)``, ``d = x_1 - x_2 ~ N(0, 2 sigma^2)``: a
one-dimensional integral (:func:`distractor_entropy_pair`, scipy ``quad``) that checks this route.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import integrate

from theorylab.certificates.reference.quadrature import composite


def distractor_entropy(sigma: float, m: int, *, scale: float = 1.0) -> float:
    """``E[H_d]`` of m >= 2 i.i.d. N(0, sigma^2) log-weights, sigma > 0 (``scale`` < 1 refines both panels)."""
    x, wx = composite(-9.0 * sigma, 9.0 * sigma, scale * min(0.5, sigma / 2.0))
    wx = wx * np.exp(-0.5 * (x / sigma) ** 2) / (sigma * math.sqrt(2.0 * math.pi))
    t, wt = composite(-40.0 - math.log(m) - 9.0 * sigma, 5.0 + 9.0 * sigma, scale * 0.5)
    v = t[:, None] + x[None, :]
    ev = np.exp(np.minimum(v, 700.0))
    phi = np.exp(-ev) @ wx
    kx = (x[None, :] * np.exp(v - ev)) @ wx
    cut = np.exp(-np.exp(np.minimum(t, 700.0)))
    return float(wt @ (cut - phi**m - m * kx * phi ** (m - 1)))


def distractor_entropy_pair(sigma: float) -> float:
    """``E[H_d]`` for m = 2: a one-dimensional integral over the difference ``d ~ N(0, 2 sigma^2)``, taken in d
    itself (``h(d) <= (1 + d) e^(-d)`` is below 1e-24 past d = 60), so it stays accurate at any sigma."""
    s = math.sqrt(2.0) * sigma

    def f(d):
        p = 1.0 / (1.0 + math.exp(-d))                  # the larger weight's share (d >= 0)
        h = -p * math.log(p) - (1.0 - p) * math.log1p(-p) if p < 1.0 else 0.0
        return math.exp(-0.5 * (d / s) ** 2) / (s * math.sqrt(2.0 * math.pi)) * h
    return 2.0 * integrate.quad(f, 0.0, min(60.0, 40.0 * s), epsabs=0.0, epsrel=1e-13, limit=500)[0]





def single_distractor_row(delta: float, sigma: float) -> tuple[float, float, float]:
    """``(E p_0, E H, E sum p^2)`` of a row with one distractor, log-weight ``y ~ N(-Delta, sigma^2)``
    relative to the target (``p_0 = 1/(1 + e^y)``): one-dimensional integrals (scipy ``quad``)."""
    def stats(z):
        y = sigma * z - delta
        p = 1.0 / (1.0 + math.exp(min(y, 700.0)))               # the target's share
        q = 1.0 / (1.0 + math.exp(min(-y, 700.0)))              # the distractor's
        h = -(p * math.log(p) if p > 0.0 else 0.0) - (q * math.log(q) if q > 0.0 else 0.0)
        return p, h, p * p + q * q

    def mean(k):
        return integrate.quad(lambda z: math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi) * stats(z)[k], -40.0, 40.0,
                              points=[delta / sigma] if abs(delta / sigma) < 40.0 else None, epsabs=1e-15,
                              epsrel=1e-13, limit=500)[0]
    return mean(0), mean(1), mean(2)
__all__ = ["distractor_entropy", "distractor_entropy_pair", "single_distractor_row"]

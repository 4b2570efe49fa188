"""Reference PSA reduced score model, written from the paper's equations (PSA §6.2-6.8, §10).

An independent second route for the Monte Carlo certificates: nothing here reads
``theorylab`` (no ScoreModel polynomials, no ``distractors``, no quadrature of
``theorylab.psa.quadrature``); only the standard library, NumPy and SciPy.

The model (one target against ``m = T - 2`` i.i.d. Gaussian distractors)
------------------------------------------------------------------------
Score channels over ``sqrt(dk)``: T1 = q.k, T2 = g p_q.k, T3 = g q.p_k, T4 = g^2 p_q.p_k.
Under the canonical induction model the target gains ``g sqrt(dk)`` from T3 and
``g^2 sqrt(dk)`` from T4; a distractor's channel variances are 1 (T1), 2g^2 (T2, T3),
4g^4 (T4) with Cov(T3, T4) = 2g^3. A variant keeps some channels:

=========================  =====================  =================================
variant                    gap Delta(g, dk)       distractor variance sigma^2(g)
=========================  =====================  =================================
t4-only (§6.6-6.7)         g^2 sqrt(dk)           Var T4 = 4 g^4
t3-inclusive (§10)         (g + g^2) sqrt(dk)     Var(T3 + T4) = 2g^2 + 2 (2g^3) + 4g^4
key-only (§6.8, Eq. 55)    g sqrt(dk)             Var(T1 + T3) = 1 + 2g^2
symmetric-key-convention   g^2 sqrt(dk)           Var(T1 + T4) = 1 + 4g^4
=========================  =====================  =================================

Mean target mass, one-dimensional route
---------------------------------------
``1/(1+S) = int_0^inf e^{-u(1+S)} du`` and the independence of the distractors give
``E[1/(1+S)] = int_0^inf e^-u phi(u)^m du`` with ``phi(u) = E exp(-u e^(x - Delta))``,
``x ~ N(0, sigma^2)``. Here: ``u = e^s``; ``1 - phi`` is integrated directly (so that
``m (1 - phi)`` keeps its relative precision) in the standard-normal variable ``z = x/sigma``
by adaptive Gauss-Kronrod (``scipy.integrate.quad``) with a break point at the step
``z = (Delta - s)/sigma`` of ``1 - exp(-e^(sigma z + s - Delta))``; the outer integral in s is
adaptive too. A target noise ``Delta -> Delta + sigma0 z_t`` is folded into the outer weight:
``E[1/(1+S)] = int phi(e^s)^m w(s) ds`` with ``w(s) = E_z exp(s + sigma0 z - e^(s + sigma0 z))``
(substitute ``s = t - sigma0 z_t``), itself one adaptive integral per s.
"""
from __future__ import annotations

import math

from scipy import integrate
from scipy.special import log_ndtr

VARIANTS = ("t4-only", "t3-inclusive", "key-only", "symmetric-key-convention")

_TOL = dict(epsabs=1e-14, epsrel=1e-10, limit=200)
_Z = 12.0          # |z| beyond 12 carries < 2e-33 of a standard normal
_S_LO, _S_HI = -40.0, 4.0   # e^(s - e^s) < 5e-18 outside (plus a sigma0 margin)


def gap(variant: str, g: float, dk: float) -> float:
    """Target score gap ``Delta(g, dk)`` of ``variant`` (table in the module docstring)."""
    t3, t4 = channel_gaps(g, dk)
    return {"t4-only": t4, "t3-inclusive": t3 + t4, "key-only": t3, "symmetric-key-convention": t4}[variant]


def channel_gaps(g: float, dk: float) -> tuple[float, float]:
    """Target gaps of the key ghost T3 and the double ghost T4: ``(g sqrt(dk), g^2 sqrt(dk))``."""
    return g * math.sqrt(dk), g * g * math.sqrt(dk)


def channel_variances(g: float) -> dict:
    """A distractor's channel variances (table in the module docstring): T1 1, T2 and T3 2g^2, T4 4g^4."""
    return {"T1": 1.0, "T2": 2.0 * g**2, "T3": 2.0 * g**2, "T4": 4.0 * g**4}


def cov_t3_t4(g: float) -> float:
    """``Cov(T3, T4) = 2 g^3`` of a distractor (T3 = g q.p_k, T4 = g^2 p_q.p_k share p_k)."""
    return 2.0 * g**3


def t3_t4_crossover(dk: float = 64.0) -> float:
    """The g > 0 where the T3 gap equals the T4 gap (root of their difference on [0.1, 10])."""
    from scipy.optimize import brentq

    return brentq(lambda g: channel_gaps(g, dk)[0] - channel_gaps(g, dk)[1], 0.1, 10.0, xtol=1e-15)


def variance(variant: str, g: float) -> float:
    """Distractor score variance ``sigma^2(g)`` of ``variant``, summed from its channels."""
    var_t1, var_t3, var_t4, cov_34 = 1.0, 2.0 * g**2, 4.0 * g**4, cov_t3_t4(g)
    return {"t4-only": var_t4, "t3-inclusive": var_t3 + var_t4 + 2.0 * cov_34,
            "key-only": var_t1 + var_t3, "symmetric-key-convention": var_t1 + var_t4}[variant]


def distractors(T: int) -> int:
    """``m = T - 2``: every key but the target and the query's own A key (PSA §6.8)."""
    return int(T) - 2


def log_count(T: int) -> float:
    """``L = ln(T - 1)``, the log-count of the closed forms."""
    return math.log(int(T) - 1)


def argmax_plateau(dk: float, T: int) -> float:
    """Large-g t4-only limit ``Phi(sqrt(dk)/2)^m``: the target beats all m distractors (SNR sqrt(dk)/2)."""
    return math.exp(distractors(T) * float(log_ndtr(math.sqrt(dk) / 2.0)))


def _one_minus_phi(s: float, delta: float, sigma: float) -> float:
    """``1 - E exp(-e^(s + x - Delta))``, x ~ N(0, sigma^2)."""
    c = delta - s
    if sigma == 0.0:
        return -math.expm1(-math.exp(min(-c, 700.0)))
    k = 1.0 / math.sqrt(2.0 * math.pi)

    def f(z, exp=math.exp, expm1=math.expm1):      # quad's inner loop: locals, and min(y, 700.0) inline
        y = sigma * z - c
        return k * exp(-0.5 * z * z) * -expm1(-exp(700.0 if 700.0 < y else y))
    step = c / sigma
    points = [p for p in (step, sigma) if -_Z < p < _Z]
    return integrate.quad(f, -_Z, _Z, points=sorted(set(points)) or None, **_TOL)[0]


def one_minus_phi(t: float, delta: float, sigma: float) -> float:
    """``1 - E exp(-e^(t + x - Delta))``, x ~ N(0, sigma^2), to full *relative* precision (no
    absolute tolerance: for the far left tail, values like 1e-23, where ``e^y`` is the whole of h)."""
    mu, k = t - delta, 1.0 / math.sqrt(2.0 * math.pi)

    def f(z, exp=math.exp, expm1=math.expm1):
        y = mu + sigma * z
        return k * exp(-0.5 * z * z) * -expm1(-exp(700.0 if 700.0 < y else y))
    zmax = 40.0                      # the tilted integrand e^(sigma z - z^2/2) peaks at z = sigma <= 8 here
    points = [p for p in (-mu / sigma, sigma) if -zmax < p < zmax]
    return integrate.quad(f, -zmax, zmax, points=sorted(points), epsabs=0.0, epsrel=1e-13, limit=500)[0]


def bump(t: float, delta: float, sigma: float, k: int) -> float:
    """``E[e^(kY) exp(-e^Y)]``, ``Y ~ N(t - Delta, sigma^2)`` (k = 1, 2: the row-entropy moments), to full
    relative precision like :func:`one_minus_phi`."""
    mu, c = t - delta, 1.0 / math.sqrt(2.0 * math.pi)

    def f(z, exp=math.exp):
        y = mu + sigma * z
        y = 700.0 if 700.0 < y else y
        return c * exp(-0.5 * z * z + k * y - exp(y))
    zmax = 40.0                      # the tilted integrand peaks at z = k sigma <= 16 here
    points = [p for p in (-mu / sigma, k * sigma) if -zmax < p < zmax]
    return integrate.quad(f, -zmax, zmax, points=sorted(points), epsabs=0.0, epsrel=1e-13, limit=500)[0]


def _weight(s: float, sigma0: float) -> float:
    """``E_z exp(y - e^y)``, ``y = s + sigma0 z``: the outer weight with target noise."""
    if sigma0 == 0.0:
        return math.exp(s - math.exp(s))
    k = 1.0 / math.sqrt(2.0 * math.pi)

    def f(z, exp=math.exp):
        y = s + sigma0 * z
        return k * exp(-0.5 * z * z + y - exp(700.0 if 700.0 < y else y))
    top = -s / sigma0                       # y = 0: where exp(y - e^y) peaks
    return integrate.quad(f, -_Z, _Z, points=[top] if -_Z < top < _Z else None, **_TOL)[0]


def mean_mass(delta: float, sigma: float, m: int, sigma0: float = 0.0) -> float:
    """``E[1/(1 + sum_{j<=m} exp(x_j - Delta - sigma0 z_t))]``, x_j ~ N(0, sigma^2), z_t ~ N(0, 1).

    The one-dimensional route of the module docstring (absolute error below 1e-11 over the
    certificates' points; they compare it with the library at 1e-9).
    """
    def f(s):
        q = _one_minus_phi(s, delta, sigma)
        return math.exp(m * math.log1p(-q)) * _weight(s, sigma0) if q < 1.0 else 0.0
    lo, hi = _S_LO - sigma0 * _Z, _S_HI + sigma0 * _Z
    return integrate.quad(f, lo, hi, **_TOL)[0]


def mass(variant: str, g: float, dk: float, T: int, sigma0: float = 0.0) -> float:
    """Mean target softmax mass ``M(g)`` of ``variant`` at head width dk and context length T
    (NaN for a non-finite g: a missing library root stays missing)."""
    if not math.isfinite(g):
        return float("nan")
    return mean_mass(gap(variant, g, dk), math.sqrt(variance(variant, g)), distractors(T), sigma0)


__all__ = ["VARIANTS", "gap", "variance", "channel_gaps", "channel_variances", "cov_t3_t4", "t3_t4_crossover", "distractors", "log_count",
           "argmax_plateau", "one_minus_phi", "bump", "mean_mass", "mass"]

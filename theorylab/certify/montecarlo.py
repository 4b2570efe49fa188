"""Seeds and thresholds of the Monte Carlo certificates: one false-failure budget for the suite.

A Monte Carlo certificate can FAIL on a correct library by bad luck. Each one declares that
probability (``@certificate(..., false_failure=alpha)``) and sets its thresholds from it: it
splits ``alpha`` over its statistical tests (Bonferroni: the probability that any of them
fails is at most the sum of their levels) and derives each test's threshold from its share
with the functions below. The declared probabilities add up to at most
:data:`FALSE_FAILURE_BUDGET` over the whole suite (``theorylab certify --list``,
docs/certificates.md).

Two kinds of threshold:

* **non-asymptotic** -- :func:`bernstein_halfwidth`, the empirical Bernstein bound (Maurer &
  Pontil 2009, Thm 4) for the mean of i.i.d. samples in [0, 1] (the target mass): valid for
  every sample size, no normal approximation;
* **asymptotic** -- :func:`z_threshold`, :func:`t_threshold`, :func:`chi2_ratio_bounds`:
  normal / Student / chi-square quantiles of statistics that are normal only in the limit
  (a root of a Monte Carlo curve, batch means, mean losses); their stated level holds up to
  the central-limit error.

Seeds: without ``--seed`` each certificate uses its fixed default seeds; ``theorylab certify
--seed N`` gives certificate ``id`` the base seed :func:`derived_seed` ``(N, id)``, so every
Monte Carlo certificate draws other numbers, reproducibly (same N, same numbers).
"""
from __future__ import annotations

import hashlib
import math

from theorylab.errors import ParameterError

FALSE_FAILURE_BUDGET = 1e-3
"""Upper bound on the summed false-failure probabilities of all Monte Carlo certificates."""

SEED_LIMIT = 2**64
"""``--seed`` takes an integer in ``[0, SEED_LIMIT)``."""


def validate_seed(seed) -> int | None:
    """``seed`` as an int in ``[0, 2^64)`` (None passes through); one-line ParameterError otherwise."""
    if seed is None:
        return None
    text = str(seed).strip()
    if not (text.isascii() and text.isdigit() and int(text) < SEED_LIMIT):
        raise ParameterError(f"--seed must be an integer in [0, 2^64) (got {seed!r})")
    return int(text)


def derived_seed(seed: int, cid: str) -> int:
    """Base seed of certificate ``cid`` under ``--seed seed``: 31 bits of SHA-256(``"cid:seed"``).

    31 bits leave room for the ``base + i`` sub-streams a certificate uses.
    """
    digest = hashlib.sha256(f"{cid}:{validate_seed(seed)}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def _share(alpha: float, tests: int) -> float:
    if not (0.0 < alpha < 1.0) or tests < 1:
        raise ParameterError(f"alpha must lie in (0, 1) and tests >= 1 (got {alpha!r}, {tests!r})")
    return alpha / tests


def z_threshold(alpha: float, tests: int = 1, two_sided: bool = True) -> float:
    """Normal threshold: ``P(|Z| > z) = alpha / tests`` (Bonferroni over ``tests``; ``P(Z > z)`` one-sided)."""
    from scipy.stats import norm

    return float(norm.isf(_share(alpha, tests) / (2.0 if two_sided else 1.0)))


def t_threshold(alpha: float, dof: int, tests: int = 1, two_sided: bool = True) -> float:
    """Student-t threshold with ``dof`` degrees of freedom at level ``alpha / tests`` (two- or one-sided)."""
    from scipy.stats import t

    return float(t.isf(_share(alpha, tests) / (2.0 if two_sided else 1.0), dof))


def chi2_ratio_bounds(alpha: float, dof: int) -> tuple[float, float]:
    """Two-sided acceptance region of ``chi2_dof / dof`` at level ``alpha``.

    Used for a ratio of variance estimates, ``s^2 / sigma^2 ~ chi2_dof / dof``: a standard
    error that is too small or too large (e.g. missing its ``1/sqrt(B)``) falls outside.
    """
    from scipy.stats import chi2

    a = _share(alpha, 1) / 2.0
    return float(chi2.ppf(a, dof) / dof), float(chi2.isf(a, dof) / dof)


def bernstein_halfwidth(variance: float, n: int, alpha: float, tests: int = 1) -> float:
    """Empirical Bernstein half-width for the mean of ``n`` i.i.d. samples in [0, 1].

    With probability at least ``1 - alpha/tests``, ``|mean - mu| <= sqrt(2 V ln(4/d) / n) +
    7 ln(4/d) / (3 (n - 1))``, ``d = alpha/tests``, V the unbiased sample variance (Maurer &
    Pontil 2009, Thm 4, applied to both tails).
    """
    if n < 2:
        raise ParameterError(f"n must be an integer >= 2 (got {n!r})")
    log_term = math.log(4.0 / _share(alpha, tests))
    return math.sqrt(2.0 * max(variance, 0.0) * log_term / n) + 7.0 * log_term / (3.0 * (n - 1))


def binomial_min_hits(n: int, p: float, alpha: float) -> int:
    """Largest k with ``P(Bin(n, p) < k) <= alpha``: fewer than k hits is a (one-sided) failure."""
    from scipy.stats import binom

    k = 0
    while k < n and binom.cdf(k, n, p) <= alpha:
        k += 1
    return k


__all__ = ["FALSE_FAILURE_BUDGET", "SEED_LIMIT", "validate_seed", "derived_seed", "z_threshold", "t_threshold",
           "chi2_ratio_bounds", "bernstein_halfwidth", "binomial_min_hits"]

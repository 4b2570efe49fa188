"""What the Monte Carlo certificates of the PSA score model share (no certificate lives here): the slack of a
library float against an enclosure, the quadrature-vs-reference tolerance, the default-seed rule, the empirical
Bernstein half-width of simulated masses and a NaN-safe running maximum."""
from __future__ import annotations

import numpy as np

from theorylab.certify import montecarlo as mcs

SLACK = 1e-13
"""Relative slack of a library float against a certified enclosure (a few ulp), as in P14."""
REF_TOL = 1e-9
"""Library quadrature vs the reference integral (both are accurate to ~1e-11)."""


def _base(seed: int | None, default: int) -> int:
    return default if seed is None else seed


def _bernstein(se, n: int, alpha: float, tests: int) -> np.ndarray:
    """Empirical Bernstein half-width of simulated mean masses with standard errors ``se`` over
    ``n`` samples (per-sample variance ``se^2 n``), at level ``alpha / tests`` each."""
    return np.array([mcs.bernstein_halfwidth(float(x) ** 2 * n, n, alpha, tests) for x in np.atleast_1d(se)])



def _worse(worst: float, errors: np.ndarray) -> float:
    """The running maximum error, infinite once any error is not finite (Python's max would drop a NaN)."""
    e = float(np.max(errors))
    return max(worst, e) if np.isfinite(e) else np.inf

"""Statistics shared by the papers' simulations and the tools: binomial intervals.

* :func:`wilson_interval` -- the Wilson score interval of a binomial proportion (trained accuracies,
  mutation scores).
"""
from __future__ import annotations

import numpy as np

from theorylab.errors import positive_int, real_scalar


def wilson_interval(hits: float, n: int, z: float = 2.5758) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion ``hits / n`` (default z: 99 % two-sided)."""
    n = positive_int("n", n, high=2 ** 53)
    z = real_scalar("z", z, low=0, low_inclusive=False, high=1e100)
    p = real_scalar("hits", hits, low=0, high=n) / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, float(centre - half)), min(1.0, float(centre + half))


__all__ = ["wilson_interval"]

"""Statistics shared by the papers' simulations and the tools: binomial intervals.

* :func:`wilson_interval` -- the Wilson score interval of a binomial proportion (trained accuracies,
  mutation scores).
"""
from __future__ import annotations

import numpy as np

from theorylab.errors import positive_int, real_scalar


def wilson_interval(hits: float, n: int, z: float = 2.5758) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion ``hits / n`` (default z: 99 % two-sided).

    ``(p + z^2/2n -/+ z sqrt(p (1 - p)/n + z^2/4n^2)) / (1 + z^2/n)`` with ``p = hits / n``, clipped to
    [0, 1]; it stays inside [0, 1] and is not degenerate at ``hits = 0`` or ``n``, unlike the normal
    interval. theorylab reports accuracies of trained models (PSA §7.4) and Monte Carlo shares with it.

    Parameters
    ----------
    hits : float
        Successes (a count; fractional when ties are credited ``1/k``), in ``[0, n]``.
    n : int
        Trials, >= 1.
    z : float
        Standard-normal quantile of the two-sided level (1.96 for 95 %).

    Returns
    -------
    (float, float)
        The interval's ends.

    Examples
    --------
    730 right answers in 1,000 held-out sequences, at 95 % (PSA §7.4):

    >>> import theorylab.nn as nn
    >>> low, high = nn.wilson_interval(730, 1000, z=1.96)
    >>> round(low, 4), round(high, 4)
    (0.7016, 0.7566)
    >>> nn.wilson_interval(0, 50, z=1.96)[0]
    0.0
    """
    n = positive_int("n", n, high=2 ** 53)
    z = real_scalar("z", z, low=0, low_inclusive=False, high=1e100)
    p = real_scalar("hits", hits, low=0, high=n) / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, float(centre - half)), min(1.0, float(centre + half))


__all__ = ["wilson_interval"]

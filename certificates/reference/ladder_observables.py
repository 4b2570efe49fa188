"""Reference gamma_c observables of an accuracy curve and the ladder's bootstrap slope, from their definitions.

Independent of ``theorylab`` (the standard library's ``fractions`` and ``math``, NumPy's generator for the
replayed stream). The definitions (docs/results.md study (j)), on a grid ``g_0 = 0 < g_1 < ...`` of
accuracies ``a_i``, the curve linearly interpolated between grid points:

* crossing of a level ``h``: the smallest gamma where the curve reaches ``h`` -- on the first segment
  ``[g_{i-1}, g_i]`` with ``a_{i-1} < h <= a_i`` -- or None when it never does or ``a_0 >= h`` already;
* plateau midpoint: the crossing of ``(a_0 + max a) / 2``; None when ``max a <= a_0``;
* steepest segment: the centre ``(g_i + g_{i+1}) / 2`` of the first segment of largest rise per unit of
  gamma ``(a_{i+1} - a_i) / (g_{i+1} - g_i)``; None when no segment rises;
* half accuracy: the crossing of 0.5 (or another level);
* the ladder slope: least squares of ``log gamma_c`` on ``log dk`` over the dk whose seed-mean curve has a
  gamma_c > 0 (none without two distinct such dk), with a percentile bootstrap: each draw resamples, for each of those dk in order, that dk's
  seeds with ``rng.integers(0, seeds, seeds)`` from one ``default_rng(seed)``, and is usable when every dk has a
  gamma_c > 0; the interval is the 2.5 and 97.5 percentiles (linear interpolation between order statistics)
  of the usable slopes, given when at least 20 draws are usable.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


def _exact(values) -> list[Fraction]:
    return [Fraction(float(v)) for v in values]          # the binary floats, exactly


def _first_crossing(g: list[Fraction], a: list[Fraction], h: Fraction) -> Fraction | None:
    if a[0] >= h:
        return None
    for i in range(1, len(a)):
        if a[i] >= h:                                      # a[i-1] < h <= a[i]: the segment that crosses
            return g[i - 1] + (h - a[i - 1]) * (g[i] - g[i - 1]) / (a[i] - a[i - 1])
    return None


def crossing(gammas, accuracy, level) -> Fraction | None:
    return _first_crossing(_exact(gammas), _exact(accuracy), Fraction(float(level)))


def plateau_midpoint(gammas, accuracy) -> Fraction | None:
    a = _exact(accuracy)
    if max(a) <= a[0]:
        return None
    return _first_crossing(_exact(gammas), a, (a[0] + max(a)) / 2)


def steepest_segment(gammas, accuracy) -> Fraction | None:
    g, a = _exact(gammas), _exact(accuracy)
    rises = [(a[i + 1] - a[i]) / (g[i + 1] - g[i]) for i in range(len(a) - 1)]
    best = max(rises)
    if best <= 0:
        return None
    i = rises.index(best)                                  # the first of equal rises
    return (g[i] + g[i + 1]) / 2


OBSERVABLES = {"plateau-midpoint": plateau_midpoint, "steepest-segment": steepest_segment,
               "half-accuracy": lambda g, a: crossing(g, a, 0.5)}


def _slope(x, y) -> float:
    mx, my = sum(x) / len(x), sum(y) / len(y)
    return sum((u - mx) * (w - my) for u, w in zip(x, y)) / sum((u - mx) ** 2 for u in x)


def _percentile(values, q: float) -> float:
    """Linear interpolation between order statistics at rank ``(n - 1) q / 100``."""
    s = sorted(values)
    r = (len(s) - 1) * q / 100.0
    lo = math.floor(r)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (r - lo) * (s[hi] - s[lo])


def ladder_slope(dks, gammas, per_seed, observable: str, draws: int, seed: int) -> dict:
    """The slope, its bootstrap interval and the usable draws, replayed from the stream convention above."""
    rule = OBSERVABLES[observable]
    curves = [np.asarray(a, float) for a in per_seed]
    point = [rule(gammas, c.mean(axis=0)) for c in curves]
    fit = [i for i, v in enumerate(point) if v is not None and v > 0]
    out = {"gamma_c": [None if v is None else float(v) for v in point], "slope": None, "ci_low": None,
           "ci_high": None, "usable_draws": 0}
    if len({dks[i] for i in fit}) < 2:                      # a least-squares slope needs two distinct dks
        return out
    x = [math.log(dks[i]) for i in fit]
    out["slope"] = _slope(x, [math.log(float(point[i])) for i in fit])
    rng = np.random.default_rng(int(seed))
    slopes = []
    for _ in range(int(draws)):
        gc = []
        for i in fit:
            c = curves[i]
            v = rule(gammas, c[rng.integers(0, c.shape[0], c.shape[0])].mean(axis=0))
            gc.append(None if v is None or v <= 0 else float(v))
        if all(v is not None for v in gc):
            slopes.append(_slope(x, [math.log(v) for v in gc]))
    out["usable_draws"] = len(slopes)
    if len(slopes) >= 20:
        out["ci_low"], out["ci_high"] = _percentile(slopes, 2.5), _percentile(slopes, 97.5)
    return out

"""The peak observables of the PSA reduced score model: critical couplings read off the maximum of
a derivative along g (PSA §6.7, §7.9-7.10; the table of :mod:`theorylab.psa.observables`).

``inflection`` (argmax dM/dg of the mean target mass), ``entropy-peak`` (argmax of ``-dE[H]/d(g^2)``,
H the attention row's entropy) and ``distractor-entropy-peak`` (the same for the distractors among
themselves). Each is a global maximum over the scan :data:`SCAN` of g in (0, 10], polished to the
zero of the second derivative: exactly by Brent's method on a central second difference of the
quadrature curve (:mod:`theorylab.psa.quadrature`, :mod:`theorylab.psa.row_stats`; memoised, a pure
function of the point); by Monte Carlo from per-sample exact g-derivatives
(:mod:`theorylab.psa.row_stats_mc`: the mean curve on a fine grid, cubic-spline interpolation), so no
simulated curve is ever differenced, with a batch-means interval.

Convention: NaN where the maximum sits at an end of the scan (the peak does not exist there).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from theorylab.errors import positive_int
from theorylab.psa.measurement import Measurement, _check
from theorylab.psa.scoremodel import ScoreModel

__all__ = ["SCAN", "inflection", "entropy_peak", "distractor_entropy_peak", "EXACT_PEAK_SECONDS"]


SCAN = np.append(0.02 * 1.15 ** np.arange(45), 10.0)
"""Coarse g scan of the peak observables: 46 values from 0.02 to 10, each 15 % above the last
(the transitions sharpen at small g, large dk)."""

_STENCIL = np.array([-1.0, 0.0, 1.0])
_SECOND = np.array([1.0, -2.0, 1.0])
"""Three-point central second difference: sum(_SECOND * f(u + _STENCIL h)) / h^2, error h^2 f^(4) / 12."""

_REL_STEP = 1e-3
"""Stencil step relative to u: with quadrature values accurate to ~1e-12 the second difference is
accurate to ~4e-6 relative, which places the zero to ~1e-6."""


def _interval(root: float, batch: np.ndarray, confidence: float) -> tuple[float, float]:
    """``root -/+ t_{B-1} sd / sqrt(B)`` over the finite batch values (NaN with fewer than 2)."""
    from scipy.stats import t as student_t

    ok = batch[np.isfinite(batch)]
    if ok.size < 2 or not np.isfinite(root):
        return float("nan"), float("nan")
    half = student_t.ppf(0.5 + confidence / 2.0, ok.size - 1) * ok.std(ddof=1) / np.sqrt(ok.size)
    return float(root - half), float(root + half)


# --- peak observables ----------------------------------------------------------------

@dataclass(frozen=True)
class _Peak:
    """A peak observable: maximise ``sign * dF/du`` over u, with ``u = g`` or ``u = g^2``.

    ``exact(model, g, dk, m)`` is the quadrature curve F(g) (a kernel: validated arguments); ``mc_height(curve)`` the
    Monte Carlo estimate of ``sign * dF/du`` on the curve's grid, ``mc_condition(mean, g)`` the
    quantity whose sign change from - to + marks the maximum (from a ``(..., G, 10)`` array of
    statistic means, see :data:`theorylab.psa.row_stats_mc.STATS`).
    """

    name: str
    squared: bool
    sign: float
    exact: Callable
    mc_height: Callable
    mc_condition: Callable


def _col(name: str) -> int:
    from theorylab.psa.row_stats_mc import STATS
    return STATS.index(name)


def _exact_entropy(model, g, dk, m):
    from theorylab.psa.row_stats import _exact_entropy as kernel
    return kernel(model, g, dk, m)


def _exact_distractor_entropy(model, g, dk, m):
    from theorylab.psa.row_stats import _exact_distractor_entropy as kernel
    return kernel(model, g, m)


def _exact_mass(model, g, dk, m):
    from theorylab.psa.quadrature import _exact_mass as kernel
    return kernel(model, g, dk, m, 0.0, 1)


def _entropy_peak_spec(name: str, stat: str, exact: Callable) -> _Peak:
    # D = -dF/d(g^2) = -F'/(2g); its maximum over g: g F'' - F' crosses 0 upwards
    return _Peak(name, True, -1.0, exact,
                 lambda mean, g: -mean[..., _col(f"d_{stat}")] / (2.0 * g),
                 lambda mean, g: g * mean[..., _col(f"d2_{stat}")] - mean[..., _col(f"d_{stat}")])


_PEAKS = {
    "inflection": _Peak("inflection", False, 1.0, _exact_mass,
                        lambda mean, g: mean[..., _col("d_mass")], lambda mean, g: -mean[..., _col("d2_mass")]),
    "entropy-peak": _entropy_peak_spec("entropy-peak", "entropy", _exact_entropy),
    "distractor-entropy-peak": _entropy_peak_spec("distractor-entropy-peak", "distractor_entropy",
                                                  _exact_distractor_entropy),
}


def _interior_argmax(values: np.ndarray) -> int:
    """Index of the largest finite value if it is not at either end, else -1."""
    if not np.any(np.isfinite(values)):
        return -1
    i = int(np.nanargmax(values))
    return i if 0 < i < values.size - 1 else -1


@lru_cache(maxsize=1024)
def _exact_peak(name: str, model: ScoreModel, dk: float, T: int) -> float:
    """An exact peak is a pure function of (name, model, dk, T) (a ScoreModel is a frozen value): memoised."""
    return _exact_peak_search(_PEAKS[name], model, dk, T)


def _exact_peak_search(spec: _Peak, model: ScoreModel, dk: float, T: int) -> float:
    from scipy.optimize import brentq

    u = SCAN**2 if spec.squared else SCAN

    def F(uu):
        g = np.sqrt(uu) if spec.squared else uu
        return np.asarray(spec.exact(model, np.asarray(g, dtype=float), dk, T - 2.0), float)

    D = spec.sign * np.gradient(F(u), u)
    i = _interior_argmax(D)
    if i < 0:
        return float("nan")

    def second(x):  # sign * h^2 F''(u), central second difference (its sign and zero only): + before the peak, - after
        return spec.sign * float(_SECOND @ F(x + _REL_STEP * x * _STENCIL))

    # the scan cells either side of the maximum, then two cells either side
    for lo, hi in ((u[i - 1], u[i + 1]), (u[max(i - 2, 0)], u[min(i + 2, u.size - 1)])):
        if second(lo) > 0 > second(hi):
            root = brentq(second, lo, hi, xtol=1e-10 * hi, rtol=1e-10)
            return float(np.sqrt(root) if spec.squared else root)
    return float("nan")


def _crossing_near(g: np.ndarray, cond: np.ndarray, near: float) -> float:
    """The upward zero crossing of ``cond`` (sampled on g) nearest ``near``, on its cubic spline.

    The mean curves are smooth in g (common random numbers), so the not-a-knot cubic spline is
    fourth-order accurate; a monotone (PCHIP) interpolant, third order, shifted the sharp peak of t4-only
    at dk = 256, T = 2048 by 5 batch-means standard errors of 20,000 samples (docs/simulation.md).
    """
    from scipy.interpolate import CubicSpline
    from scipy.optimize import brentq

    if not np.all(np.isfinite(cond)):
        return float("nan")
    hits = np.flatnonzero((cond[:-1] < 0) & (cond[1:] >= 0))
    if hits.size == 0:
        return float("nan")
    i = hits[np.argmin(np.abs(g[hits] - near))]
    curve = CubicSpline(g, cond)
    return float(brentq(curve, g[i], g[i + 1], xtol=1e-14))


def _mc_peak(spec: _Peak, variant, dk, T, samples, seed, confidence, sigma0, dtype, progress,
             fine_points: int) -> Measurement:
    from theorylab.psa.row_stats_mc import simulate_row_stats

    kw = dict(seed=seed, sigma0=sigma0, dtype=dtype, progress=progress)
    coarse = simulate_row_stats(variant, dk, T, SCAN, samples=min(samples, 2000), **kw)
    label = coarse.variant                 # the model's name (variant may be a ScoreModel)
    i = _interior_argmax(spec.mc_height(coarse.mean, SCAN))
    nan = float("nan")
    if i < 0:
        return Measurement(spec.name, label, coarse.dk, coarse.T, "mc", nan, nan, nan, confidence, samples, seed,
                           curve=coarse)
    lo, hi = SCAN[max(i - 2, 0)], SCAN[min(i + 2, SCAN.size - 1)]
    g = np.linspace(lo, hi, fine_points)
    curve = simulate_row_stats(variant, dk, T, g, samples=samples, **kw)
    near = g[int(np.argmax(spec.mc_height(curve.mean, g)))]
    root = _crossing_near(g, spec.mc_condition(curve.mean, g), near)
    ref = root if np.isfinite(root) else near
    batch = np.array([_crossing_near(g, spec.mc_condition(b, g), ref) for b in curve.batch_mean])
    lo_ci, hi_ci = _interval(root, batch, confidence)
    return Measurement(spec.name, label, curve.dk, curve.T, "mc", root, lo_ci, hi_ci, confidence, samples, seed,
                       batch_gamma_c=batch, curve=curve)


def _peak(name, variant, dk, T, method, samples, seed, confidence, sigma0, dtype, progress,
          fine_points) -> Measurement:
    model, dk, T, method, samples, seed, confidence, sigma0 = _check(variant, dk, T, method, samples, seed,
                                                                     confidence, sigma0, dtype)
    fine_points = positive_int("fine_points", fine_points, low=4)
    spec = _PEAKS[name]
    if method == "exact":
        return Measurement(name, model.variant, dk, T, method, _exact_peak(name, model, dk, T))
    return _mc_peak(spec, variant, dk, T, samples, seed, confidence, sigma0, dtype, progress, fine_points)


def inflection(variant, dk: float, T: int, *, method: str = "exact", samples: int = 20000, seed: int = 0,
               confidence: float = 0.95, sigma0: float = 0.0, dtype: str = "float32", progress: bool | None = None,
               fine_points: int = 32) -> Measurement:
    """``inflection``: the g of the steepest rise of the mean target mass, argmax dM/dg.

    A finite-size crossover point that exists whatever the plateau's height. Exact: the zero of
    M''(g) (five-point stencil of :func:`theorylab.psa.quadrature.exact_mass`) next to the scan's
    maximum of M'. Monte Carlo: the zero of the mean per-sample ``p_0''(g)``.

    Examples
    --------
    The steepest rise of the exact mean mass:

    >>> import theorylab.psa as psa
    >>> round(psa.inflection('t4-only', 64, 64).gamma_c, 3)
    0.782
    """
    return _peak("inflection", variant, dk, T, method, samples, seed, confidence, sigma0, dtype, progress,
                 fine_points)


def entropy_peak(variant, dk: float, T: int, *, method: str = "exact", samples: int = 20000, seed: int = 0,
                 confidence: float = 0.95, sigma0: float = 0.0, dtype: str = "float32",
                 progress: bool | None = None, fine_points: int = 32) -> Measurement:
    """``entropy-peak``: argmax over g of ``-dE[H]/d(g^2)``, H the attention row's entropy.

    In the t4-only model every score is g^2 times a fixed random energy, so g^2 is the softmax's
    inverse temperature beta and ``-dH/d beta = beta Var(score/beta)``: the peak is the
    specific-heat-like maximum of the entropy's fall, the finite-size trace of the random energy
    model's freezing (condensed side) or of the target's capture (mean-field side). Exact: the
    zero of ``d^2 E[H]/d(g^2)^2`` (quadrature, :func:`theorylab.psa.row_stats.exact_row_stats`);
    Monte Carlo: the zero of the mean of ``g H'' - H'`` from per-sample derivatives.

    Examples
    --------
    The peak of the row entropy's fall, from a small Monte Carlo (``method='exact'`` is the quadrature):

    >>> import theorylab.psa as psa
    >>> m = psa.entropy_peak('t4-only', 16, 16, method='mc', samples=2000, fine_points=8)
    >>> round(m.gamma_c, 2), m.method
    (0.78, 'mc')
    """
    return _peak("entropy-peak", variant, dk, T, method, samples, seed, confidence, sigma0, dtype, progress,
                 fine_points)


def distractor_entropy_peak(variant, dk: float, T: int, *, method: str = "exact", samples: int = 20000,
                            seed: int = 0, confidence: float = 0.95, sigma0: float = 0.0, dtype: str = "float32",
                            progress: bool | None = None, fine_points: int = 32) -> Measurement:
    """``distractor-entropy-peak``: argmax over g of ``-dE[H_d]/d(g^2)``, H_d the distractors' own entropy.

    The random energy model's finite-size freezing peak: it depends on sigma(g) and m only, not on
    the target's gap (so not on dk). A reference point for the condensed branch's
    ``c (L/2)^(1/4)``.

    Examples
    --------
    The peak of the distractors' entropy fall, from a small Monte Carlo:

    >>> import theorylab.psa as psa
    >>> m = psa.distractor_entropy_peak('t4-only', 16, 16, method='mc', samples=2000, fine_points=8)
    >>> round(m.gamma_c, 2), m.method
    (0.79, 'mc')
    """
    return _peak("distractor-entropy-peak", variant, dk, T, method, samples, seed, confidence, sigma0, dtype,
                 progress, fine_points)


EXACT_PEAK_SECONDS = {"inflection": 0.5, "entropy-peak": 1.0, "distractor-entropy-peak": 3.0}
"""Seconds of one exact peak (the scan and the Brent polish) on a shared 2-core machine, by observable."""
_EXACT_PEAK_BYTES = 32e6
"""Working arrays of one exact peak (quadrature node grids of ~1500 x 336, a few of them)."""

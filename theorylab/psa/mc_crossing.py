"""The simulated critical coupling of the PSA reduced score model (PSA §6.8, §10): gamma_c as the
first upward crossing of the Monte Carlo mean mass ``M(g) = 1/2``.

:func:`mc_gamma_c` runs :mod:`theorylab.psa.montecarlo`'s common-random-number curve twice on one
stream (a coarse scan of g in [0, 10] for the bracket, then a fine grid over it) and solves the
curve's monotone cubic interpolant (:func:`first_crossing`) for the root; :class:`MCGammaC` is the
result with its batch-means confidence interval (the same root on each of
:data:`~theorylab.psa.montecarlo.BATCHES` contiguous sample batches, Student t quantile).

Convention: the crossing is the *first upward* one of ``level`` (1/2 unless told); NaN where the
curve stays below it for g <= 10 ("no crossing" is a result, not an error).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from theorylab._results import to_frame
from theorylab.errors import ParameterError, check_memory, choice, positive_int, real_array, real_scalar
from theorylab.psa.montecarlo import (BATCHES, DTYPES, MassCurve, _check_simulate_memory, _simulate_mass, _validate,
                                      simulate_cost)
from theorylab.psa.quadrature import integer_context_length
from theorylab.psa.scoremodel import ScoreModel
from theorylab.resources import Cost, count

__all__ = ["MCGammaC", "mc_gamma_c", "first_crossing", "mc_gamma_c_cost"]


@dataclass(frozen=True)
class MCGammaC:
    """gamma_c of the reduced model from simulation: the first upward crossing of M(g) = level.

    Attributes
    ----------
    variant, dk, T, samples, seed : the simulated model and its stream.
    gamma_c : root of the full-sample mean curve (NaN if M stays below ``level`` for g <= g_max).
    ci_low, ci_high : confidence interval by batch means: the root of each of
        :data:`BATCHES` contiguous-batch curves, ``gamma_c -/+ t_{B-1} sd / sqrt(B)``.
    confidence : the interval's nominal coverage.  ci_method : "batch-means".
    batch_gamma_c : the per-batch roots (NaN where a batch curve does not cross).
    curve : the fine-grid :class:`MassCurve` the root was read from.
    level : the mass level (1/2).

    Notes
    -----
    :meth:`row` is the scalar fields as a dict, :meth:`to_frame` a one-row table (the curve:
    ``curve.to_frame()``).
    """

    variant: str
    dk: float
    T: int
    samples: int
    seed: int
    gamma_c: float
    ci_low: float
    ci_high: float
    confidence: float = 0.95
    ci_method: str = "batch-means"
    batch_gamma_c: np.ndarray = field(repr=False, default=None)
    curve: MassCurve = field(repr=False, default=None)
    level: float = 0.5

    def row(self) -> dict:
        """A flat dict (no arrays): variant, dk, T, samples, seed, gamma_c, ci_low, ci_high, confidence,
        ci_method, level."""
        return {"variant": self.variant, "dk": self.dk, "T": self.T, "samples": self.samples, "seed": self.seed,
                "gamma_c": self.gamma_c, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "confidence": self.confidence, "ci_method": self.ci_method, "level": self.level}

    def to_frame(self):
        """:meth:`row` as a one-row ``pandas.DataFrame`` (pandas: the optional extra ``theorylab[pandas]``)."""
        return to_frame([self.row()])


def first_crossing(gamma: np.ndarray, mass: np.ndarray, level: float = 0.5) -> float:
    """First upward crossing of ``level`` by a sampled curve (monotone cubic interpolant); NaN if none.

    ``gamma``: 1-D, strictly increasing, at least 2 points; ``mass``: one value per point (a NaN
    anywhere, a missing value, gives NaN); ``level``: a real number.

    Examples
    --------
    First upward crossing of 1/2 by a sampled curve:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> round(psa.first_crossing(np.array([0.0, 1.0, 2.0]), np.array([0.1, 0.4, 0.9])), 4)
    1.2438
    """
    gamma = real_array("gamma", gamma)
    mass = real_array("mass", mass, allow_nan=True)
    if gamma.ndim != 1 or gamma.size < 2 or mass.shape != gamma.shape or np.any(np.diff(gamma) <= 0):
        raise ParameterError(f"gamma must be a strictly increasing 1-D grid of >= 2 points and mass one value per "
                             f"point (got shapes {gamma.shape} and {mass.shape})")
    return _first_crossing(gamma, mass, real_scalar("level", level))


def _first_crossing(gamma: np.ndarray, mass: np.ndarray, level: float) -> float:
    from scipy.interpolate import PchipInterpolator
    from scipy.optimize import brentq

    above = mass >= level
    hits = np.flatnonzero(~above[:-1] & above[1:])
    if above[0] or hits.size == 0 or not np.all(np.isfinite(mass)):
        return float("nan")
    i = hits[0]
    e = np.frexp(max(np.max(np.abs(mass)), abs(level)))[1]      # the root of c (mass - level) is the same:
    f = np.ldexp(mass, -e) - np.ldexp(level, -e)                 # scale by a power of two (exact), no overflow
    try:
        curve = PchipInterpolator(gamma, f)
    except ValueError:
        raise ParameterError("gamma, mass: the curve is too steep to interpolate (slopes beyond the float range)") \
            from None
    return float(brentq(curve, gamma[i], gamma[i + 1], xtol=1e-14))


_COARSE = np.concatenate([np.linspace(0.0, 4.0, 41), np.linspace(4.25, 10.0, 24)])


def mc_gamma_c(variant, dk: float, T: int, *, samples: int = 20000, seed: int = 0, level: float = 0.5,
               confidence: float = 0.95, fine_points: int = 32, sigma0: float = 0.0, dtype: str = "float32",
               progress: bool | None = None) -> MCGammaC:
    """Simulated gamma_c: the first g where the Monte Carlo mean mass reaches ``level`` (1/2).

    Two passes on the same stream (seed): a coarse scan of g in [0, 10] (step 0.1 up to
    4, 0.25 beyond) with ``min(samples, 2000)`` samples finds the bracket; a fine grid
    of ``fine_points`` values over the bracket widened by one coarse step, with all
    ``samples``, gives the common-random-number curve whose monotone cubic interpolant
    is solved for the root. The confidence interval comes from batch means (the same
    root on each of :data:`BATCHES` contiguous sample batches; Student t quantile).

    ``fine_points`` is an integer >= 4. A request whose arrays (:func:`mc_gamma_c_cost`) exceed the
    memory limit is refused with :class:`~theorylab.resources.ResourceError` before anything runs.
    ``variant`` as for :func:`simulate_mass`.

    Examples
    --------
    A small Monte Carlo of the crossing (PSA §10; the default is 20000 samples):

    >>> from theorylab.psa import mc_gamma_c
    >>> r = mc_gamma_c("t4-only", 128, 512, samples=2000, seed=0)
    >>> round(r.gamma_c, 2), r.ci_low < r.gamma_c < r.ci_high
    (0.79, True)
    """
    T = integer_context_length(T)
    samples = positive_int("samples", samples)
    level = real_scalar("level", level, low=0, high=1, low_inclusive=False, high_inclusive=False)
    confidence = real_scalar("confidence", confidence, low=0, high=1, low_inclusive=False, high_inclusive=False)
    fine_points = positive_int("fine_points", fine_points, low=4)
    check_memory("samples, fine_points, T", mc_gamma_c_cost(T, samples, fine_points).memory)   # before the grid
    dtype = choice("dtype", dtype, DTYPES)
    model, _, dk, m, seed, sigma0 = _validate(variant, dk, T, _COARSE, seed, sigma0, dtype)
    _check_simulate_memory(m, _COARSE.size, min(samples, 2000), dtype)
    _check_simulate_memory(m, fine_points, samples, dtype)
    return _mc_gamma_c(model, dk, m, samples, seed, level, confidence, fine_points, sigma0, dtype, progress)


def _mc_gamma_c(model: ScoreModel, dk: float, m: int, samples: int, seed: int, level: float, confidence: float,
                fine_points: int, sigma0: float, dtype: str, progress) -> MCGammaC:
    """Kernel of :func:`mc_gamma_c` (everything validated and the memory checked by the caller)."""
    from scipy.stats import t as student_t

    variant = model.variant
    kw = dict(seed=seed, sigma0=sigma0, dtype=dtype, progress=progress)
    coarse = _simulate_mass(model, _COARSE, dk, m, samples=min(samples, 2000), **kw)
    nan = float("nan")
    above = coarse.mass >= level
    hits = np.flatnonzero(~above[:-1] & above[1:])
    if hits.size == 0:
        return MCGammaC(variant, coarse.dk, coarse.T, samples, seed, nan, nan, nan, confidence,
                        batch_gamma_c=np.full(BATCHES, nan), curve=coarse, level=level)
    i = hits[0]
    lo = _COARSE[max(i - 1, 0)]
    hi = _COARSE[min(i + 2, _COARSE.size - 1)]
    curve = _simulate_mass(model, np.linspace(lo, hi, fine_points), dk, m, samples=samples, **kw)
    root = _first_crossing(curve.gamma, curve.mass, level)
    batch_roots = np.array([_first_crossing(curve.gamma, b, level) for b in curve.batch_mass])
    ok = batch_roots[np.isfinite(batch_roots)]
    if ok.size >= 2 and np.isfinite(root):
        half = student_t.ppf(0.5 + confidence / 2.0, ok.size - 1) * ok.std(ddof=1) / np.sqrt(ok.size)
        ci = (float(root - half), float(root + half))
    else:
        ci = (nan, nan)
    return MCGammaC(variant, curve.dk, curve.T, samples, seed, root, ci[0], ci[1], confidence,
                    batch_gamma_c=batch_roots, curve=curve, level=level)


def mc_gamma_c_cost(T, samples, fine_points: int = 32) -> Cost:
    """Peak memory and run time of :func:`mc_gamma_c`: the coarse scan, then the fine curve."""
    coarse = simulate_cost(T, _COARSE.size, min(count("samples", samples), 2000.0))
    return coarse.then(simulate_cost(T, fine_points, samples))

"""Named transition observables of the PSA reduced score model: where along g the target wins.

The paper (PSA §6.7, §7.9-7.10) quotes measured critical couplings without naming the
observable they were read from. Each function below is one observable, computed either
exactly (deterministic quadrature, :mod:`theorylab.psa.quadrature` and :mod:`theorylab.psa.row_stats`)
or by Monte Carlo (:mod:`theorylab.psa.montecarlo`, :mod:`theorylab.psa.row_stats_mc`, common
random numbers over g, a batch-means confidence interval):

=========================== ===============================================================
``mass-half``               first g where the mean target mass M(g) reaches 1/2 (the default of
                            ``theorylab gamma-c``; undefined where the argmax plateau is < 1/2)
``half-plateau``            first g where M(g) reaches half its argmax plateau
                            ``P = lim_{g->inf} M`` (``Phi(sqrt(dk)/2)^m`` for t4-only)
``inflection``              argmax over g of dM/dg (steepest rise of the mean target mass)
``entropy-peak``            argmax over g of ``-dE[H]/d(g^2)``, H the attention row's entropy
                            (target and distractors): in the t4-only model g^2 is the softmax's
                            inverse temperature, so this is the specific-heat-like peak of the
                            entropy's fall
``distractor-entropy-peak`` the same for the distractors' entropy among themselves (the random
                            energy model's own freezing; independent of dk and of the target)
=========================== ===============================================================

Peaks are global maxima over a scan of g in (0, 10] (:data:`SCAN`), polished to the zero of
the second derivative: exactly by Brent's method on a central second difference of the quadrature
curve (memoised: a pure function of the point); by Monte Carlo from per-sample exact g-derivatives (the mean curve of
``p_0''`` or ``g H'' - H'`` on a fine grid, cubic-spline interpolation), so no simulated
curve is ever differenced. NaN when the observable does not exist at the point (the mass
never reaches the level, or the maximum sits at an end of the scan).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import numpy as np

from theorylab._results import to_frame
from theorylab.errors import ParameterError, choice, positive_int, real_scalar, seed_int, single
from theorylab.psa.scoremodel import ScoreModel, _head_width, resolve_model

METHODS: tuple[str, ...] = ("exact", "mc")

SCAN = np.append(0.02 * 1.15 ** np.arange(45), 10.0)
"""Coarse g scan of the peak observables: 46 values from 0.02 to 10, each 15 % above the last
(the transitions sharpen at small g, large dk)."""

_STENCIL = np.array([-1.0, 0.0, 1.0])
_SECOND = np.array([1.0, -2.0, 1.0])
"""Three-point central second difference: sum(_SECOND * f(u + _STENCIL h)) / h^2, error h^2 f^(4) / 12."""

_REL_STEP = 1e-3
"""Stencil step relative to u: with quadrature values accurate to ~1e-12 the second difference is
accurate to ~4e-6 relative, which places the zero to ~1e-6."""


@dataclass(frozen=True)
class Measurement:
    """One observable's critical coupling at one (variant, dk, T).

    Attributes
    ----------
    observable, variant, dk, T, method : what was measured, and how ("exact" or "mc").
    gamma_c : the coupling (NaN where the observable does not exist).
    ci_low, ci_high : Monte Carlo batch-means confidence interval (NaN for exact).
    confidence : the interval's nominal coverage (NaN where no interval is computed: exact measurements).
    samples, seed : Monte Carlo draws and stream (0 for exact).
    level : the mass level for level observables (NaN for peaks).
    batch_gamma_c : per-batch values (Monte Carlo; empty for exact).
    curve : the fine-grid curve the value was read from (Monte Carlo), else None.

    Notes
    -----
    :meth:`row` is the scalar fields as a dict, :meth:`to_frame` a one-row table; measurements of many
    points are one table as ``pandas.DataFrame([m.row() for m in measurements])``.
    """

    observable: str
    variant: str
    dk: float
    T: int
    method: str
    gamma_c: float
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    confidence: float = float("nan")
    samples: int = 0
    seed: int = 0
    level: float = float("nan")
    batch_gamma_c: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0))
    curve: object = field(repr=False, default=None)

    def row(self) -> dict:
        """A flat dict (no arrays) for tables and JSON."""
        return {"observable": self.observable, "variant": self.variant, "dk": self.dk, "T": self.T,
                "method": self.method, "gamma_c": self.gamma_c, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "samples": self.samples, "seed": self.seed, "level": self.level}

    def to_frame(self):
        """:meth:`row` as a one-row ``pandas.DataFrame`` (pandas: the optional extra ``theorylab[pandas]``)."""
        return to_frame([self.row()])


# --- validation ----------------------------------------------------------------------

def _check(variant, dk, T, method, samples, seed, confidence, sigma0, dtype):
    from theorylab.psa.montecarlo import DTYPES
    from theorylab.psa.quadrature import integer_context_length

    model = resolve_model(variant)
    choice("dtype", dtype, DTYPES)
    dk = single("dk", _head_width(dk))
    T = integer_context_length(T)
    method = choice("method", method, METHODS)
    samples = positive_int("samples", samples)
    seed = seed_int("seed", seed)
    confidence = real_scalar("confidence", confidence, low=0, high=1, low_inclusive=False, high_inclusive=False)
    sigma0 = real_scalar("sigma0", sigma0, low=0)
    if method == "exact" and sigma0 > 0:
        raise ParameterError("sigma0 > 0 needs method='mc' (the exact observables have no target noise)")
    return model, dk, T, method, samples, seed, confidence, sigma0


def _interval(root: float, batch: np.ndarray, confidence: float) -> tuple[float, float]:
    """``root -/+ t_{B-1} sd / sqrt(B)`` over the finite batch values (NaN with fewer than 2)."""
    from scipy.stats import t as student_t

    ok = batch[np.isfinite(batch)]
    if ok.size < 2 or not np.isfinite(root):
        return float("nan"), float("nan")
    half = student_t.ppf(0.5 + confidence / 2.0, ok.size - 1) * ok.std(ddof=1) / np.sqrt(ok.size)
    return float(root - half), float(root + half)


# --- level observables ---------------------------------------------------------------

def _level(name: str, level_of: Callable[[ScoreModel, float, int], float], variant, dk, T, method, samples, seed,
           confidence, sigma0, dtype, progress) -> Measurement:
    model, dk, T, method, samples, seed, confidence, sigma0 = _check(variant, dk, T, method, samples, seed,
                                                                     confidence, sigma0, dtype)
    if method == "exact":
        return _exact_level(name, level_of, model, dk, T)
    level = float(level_of(model, dk, T))
    if not 0.0 < level < 1.0:
        return Measurement(name, model.variant, dk, T, method, float("nan"), level=level)
    from theorylab.psa.mc_crossing import mc_gamma_c
    mc = mc_gamma_c(variant, dk, T, samples=samples, seed=seed, level=level, confidence=confidence, sigma0=sigma0,
                    dtype=dtype, progress=progress)
    return Measurement(name, model.variant, mc.dk, mc.T, method, mc.gamma_c, mc.ci_low, mc.ci_high, confidence,
                       samples, seed, level, mc.batch_gamma_c, mc.curve)


def _exact_level(name: str, level_of, model: ScoreModel, dk: float, T: int) -> Measurement:
    """Kernel of an exact level observable (a validated point)."""
    from theorylab.psa.quadrature import _exact_gamma_c

    level = float(level_of(model, dk, T))
    if not 0.0 < level < 1.0:
        return Measurement(name, model.variant, dk, T, "exact", float("nan"), level=level)
    return Measurement(name, model.variant, dk, T, "exact", _exact_gamma_c(model, dk, T - 2.0, level), level=level)


def plateau_level(variant, dk: float, T: int) -> float:
    """Half the argmax plateau ``lim_{g->inf} M(g)`` (:func:`theorylab.psa.quadrature.argmax_limit`).

    Examples
    --------
    Half the argmax plateau of t4-only at (dk, T) = (64, 64):

    >>> import theorylab.psa as psa
    >>> round(psa.plateau_level('t4-only', 64, 64), 4)
    0.499
    """
    from theorylab.psa.transition import _grid

    model = resolve_model(variant)
    return single("dk and T", _plateau_levels(model, *_grid(dk, T)))


def _plateau_levels(model: ScoreModel, dk: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Kernel of :func:`plateau_level` (a validated, broadcast grid)."""
    from theorylab.psa.transition import _argmax_probability
    return _argmax_probability(model, dk, T, None) / 2.0


def _plateau_level(model: ScoreModel, dk: float, T: int) -> float:
    """:func:`plateau_level` at a validated point."""
    return float(_plateau_levels(model, np.asarray(dk), np.asarray(float(T))))


def _half(model, dk, T) -> float:
    return 0.5


def mass_half(variant, dk: float, T: int, *, method: str = "exact", samples: int = 20000, seed: int = 0,
              confidence: float = 0.95, sigma0: float = 0.0, dtype: str = "float32",
              progress: bool | None = None) -> Measurement:
    """``mass-half``: the first g where the mean target mass M(g) reaches 1/2 (PSA §7.9's transition).

    The root of :func:`theorylab.psa.quadrature.exact_gamma_c` (``method="exact"``) or
    :func:`theorylab.psa.mc_crossing.mc_gamma_c` (``"mc"``, with its batch-means interval).
    Undefined (NaN) where M stays below 1/2, e.g. on condensed points whose argmax plateau is < 1/2.
    ``variant``: a name of :data:`~theorylab.psa.scoremodel.VARIANTS` or a ScoreModel (as every observable).

    Examples
    --------
    The exact mass-half coupling of t4-only (the transition of PSA §7.9):

    >>> import theorylab.psa as psa
    >>> m = psa.mass_half('t4-only', 64, 64)
    >>> round(m.gamma_c, 4), m.method
    (0.7772, 'exact')
    """
    return _level("mass-half", _half, variant, dk, T, method, samples, seed, confidence, sigma0, dtype, progress)


def half_plateau(variant, dk: float, T: int, *, method: str = "exact", samples: int = 20000, seed: int = 0,
                 confidence: float = 0.95, sigma0: float = 0.0, dtype: str = "float32",
                 progress: bool | None = None) -> Measurement:
    """``half-plateau``: the first g where M(g) reaches half its argmax plateau (:func:`plateau_level`).

    For dk >> 8L the plateau is ~1 and this is ``mass-half``. On condensed points it stays
    defined while the plateau is not negligible (it breaks down when M overshoots its own
    plateau, e.g. t4-only at dk = 16, T = 128).

    Examples
    --------
    Where M(g) reaches half its argmax plateau (exact):

    >>> import theorylab.psa as psa
    >>> round(psa.half_plateau('t4-only', 64, 64).gamma_c, 4)
    0.7767
    """
    return _level("half-plateau", _plateau_level, variant, dk, T, method, samples, seed, confidence, sigma0, dtype,
                  progress)


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


def _measure_exact(name: str, model: ScoreModel, dk: float, T: int) -> Measurement:
    """Kernel of ``measure(name, variant, dk, T)`` (exact method, a validated point)."""
    if name in _PEAKS:
        return Measurement(name, model.variant, dk, T, "exact", _exact_peak(name, model, dk, T))
    return _exact_level(name, _half if name == "mass-half" else _plateau_level, model, dk, T)


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


OBSERVABLES: dict[str, Callable[..., Measurement]] = {
    "mass-half": mass_half,
    "half-plateau": half_plateau,
    "inflection": inflection,
    "entropy-peak": entropy_peak,
    "distractor-entropy-peak": distractor_entropy_peak,
}
"""The registry: observable name -> function (every function takes ``(variant, dk, T, *, method, ...)``)."""

OBSERVABLE_NAMES: tuple[str, ...] = tuple(OBSERVABLES)

PEAK_OBSERVABLES: tuple[str, ...] = tuple(_PEAKS)
"""The observables read off a peak of a derivative (their Monte Carlo runs the row-statistics kernel)."""

DEFAULT_OBSERVABLE = "mass-half"
"""The observable of ``theorylab gamma-c --method exact|mc`` and ``compare`` unless told otherwise."""


def observable(name: str) -> Callable[..., Measurement]:
    """The function of the observable ``name`` (one of :data:`OBSERVABLE_NAMES`).

    Examples
    --------
    Observables by name:

    >>> import theorylab.psa as psa
    >>> psa.observable('mass-half') is psa.mass_half
    True
    """
    return OBSERVABLES[choice("observable", name, OBSERVABLE_NAMES)]


def measure(name: str, variant: str, dk: float, T: int, **kwargs) -> Measurement:
    """``observable(name)(variant, dk, T, **kwargs)``.

    Parameters
    ----------
    name : one of :data:`OBSERVABLE_NAMES`.
    variant, dk, T : the point (as for :func:`mass_half`).
    **kwargs : keyword parameters of that observable's function (``method``, ``samples``, ``seed``, ...;
        ``fine_points`` for the peaks). The level observables fix their level (``mass-half``: 1/2;
        ``half-plateau``: half the plateau), so ``level`` is not one of them.

    Raises
    ------
    ParameterError
        For an unknown observable, a keyword the observable does not take, or an invalid value.

    Examples
    --------
    One observable by exact quadrature (PSA §6.8; ``method="mc"`` gives the Monte Carlo with its CI):

    >>> from theorylab.psa import measure
    >>> r = measure("mass-half", "t4-only", 128, 512)
    >>> r.method, round(r.gamma_c, 4)
    ('exact', 0.7863)
    """
    fn = observable(name)
    accepted = _keywords(fn)
    for key in kwargs:
        if key not in accepted:
            hint = (" (its level is fixed; psa.mc_crossing.mc_gamma_c and psa.quadrature.exact_gamma_c take a level in "
                    "(0, 1))" if key == "level" else "")
            raise ParameterError(f"{key} is not a parameter of observable {name}{hint}; it takes "
                                 f"{', '.join(accepted)}")
    return fn(variant, dk, T, **kwargs)


@lru_cache(maxsize=None)
def _keywords(fn) -> tuple[str, ...]:
    """The keyword-only parameters of an observable's function."""
    return tuple(p.name for p in inspect.signature(fn).parameters.values() if p.kind is p.KEYWORD_ONLY)


__all__ = ["METHODS", "SCAN", "Measurement", "mass_half", "half_plateau", "inflection", "entropy_peak",
           "distractor_entropy_peak", "plateau_level", "OBSERVABLES", "OBSERVABLE_NAMES", "PEAK_OBSERVABLES",
           "DEFAULT_OBSERVABLE",
           "observable", "measure"]


EXACT_PEAK_SECONDS = {"inflection": 0.5, "entropy-peak": 1.0, "distractor-entropy-peak": 3.0}
"""Seconds of one exact peak (the scan and the Brent polish) on a shared 2-core machine, by observable."""
_EXACT_PEAK_BYTES = 32e6
"""Working arrays of one exact peak (quadrature node grids of ~1500 x 336, a few of them)."""


def measure_cost(name: str, T, *, method: str = "exact", samples: int = 20000, fine_points: int = 32,
                 dtype: str = "float32"):
    """Peak memory and run time of one :func:`measure` (checked by the CLI before it runs).

    Level observables cost what :func:`theorylab.psa.quadrature.exact_gamma_c` /
    :func:`theorylab.psa.mc_crossing.mc_gamma_c` cost; a Monte Carlo peak is two passes of
    :func:`theorylab.psa.row_stats_mc.simulate_row_stats` (the coarse scan with ``min(samples, 2000)``
    samples, then ``fine_points`` couplings with all of them)."""
    from theorylab.resources import Cost, count

    name = choice("observable", name, OBSERVABLE_NAMES)
    method = choice("method", method, METHODS)
    count("T", T), count("samples", samples), count("fine_points", fine_points)    # not every route below reads them
    if name not in _PEAKS:
        if method == "exact":
            from theorylab.psa.quadrature import exact_gamma_c_cost
            return exact_gamma_c_cost()
        from theorylab.psa.mc_crossing import mc_gamma_c_cost
        return mc_gamma_c_cost(T, samples, fine_points)
    if method == "exact":
        return Cost(_EXACT_PEAK_BYTES, EXACT_PEAK_SECONDS[name], f"one exact {name}")
    from theorylab.psa.row_stats_mc import row_stats_cost
    coarse = row_stats_cost(T, SCAN.size, min(count("samples", samples), 2000.0), dtype)
    return coarse.then(row_stats_cost(T, fine_points, samples, dtype))


__all__ += ["EXACT_PEAK_SECONDS", "measure_cost"]

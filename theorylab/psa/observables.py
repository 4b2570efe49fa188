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

This module holds the two *level* observables (the first crossing of a mass level: by
:func:`theorylab.psa.quadrature.exact_gamma_c` or :func:`theorylab.psa.mc_crossing.mc_gamma_c`),
the registry of all five (:data:`OBSERVABLES`, :func:`observable`, :func:`measure`) and their cost.
The three *peak* observables (a maximum of a derivative over the scan
:data:`theorylab.psa.peaks.SCAN`) are :mod:`theorylab.psa.peaks`; the result record
:class:`~theorylab.psa.measurement.Measurement` and the shared validation are
:mod:`theorylab.psa.measurement`. NaN when the observable does not exist at the point (the mass
never reaches the level, or the maximum sits at an end of the scan).
"""
from __future__ import annotations

import inspect
from functools import lru_cache
from typing import Callable

import numpy as np

from theorylab._moved import names_getattr
from theorylab.errors import ParameterError, choice, single
from theorylab.psa import measurement, peaks
from theorylab.psa.scoremodel import ScoreModel, resolve_model


# --- level observables ---------------------------------------------------------------

def _level(name: str, level_of: Callable[[ScoreModel, float, int], float], variant, dk, T, method, samples, seed,
           confidence, sigma0, dtype, progress) -> measurement.Measurement:
    model, dk, T, method, samples, seed, confidence, sigma0 = measurement._check(variant, dk, T, method, samples,
                                                                                 seed, confidence, sigma0, dtype)
    if method == "exact":
        return _exact_level(name, level_of, model, dk, T)
    level = float(level_of(model, dk, T))
    if not 0.0 < level < 1.0:
        return measurement.Measurement(name, model.variant, dk, T, method, float("nan"), level=level)
    from theorylab.psa.mc_crossing import mc_gamma_c
    mc = mc_gamma_c(variant, dk, T, samples=samples, seed=seed, level=level, confidence=confidence, sigma0=sigma0,
                    dtype=dtype, progress=progress)
    return measurement.Measurement(name, model.variant, mc.dk, mc.T, method, mc.gamma_c, mc.ci_low, mc.ci_high,
                                   confidence, samples, seed, level, mc.batch_gamma_c, mc.curve)


def _exact_level(name: str, level_of, model: ScoreModel, dk: float, T: int) -> measurement.Measurement:
    """Kernel of an exact level observable (a validated point)."""
    from theorylab.psa.quadrature import _exact_gamma_c

    level = float(level_of(model, dk, T))
    if not 0.0 < level < 1.0:
        return measurement.Measurement(name, model.variant, dk, T, "exact", float("nan"), level=level)
    return measurement.Measurement(name, model.variant, dk, T, "exact", _exact_gamma_c(model, dk, T - 2.0, level),
                                   level=level)


def plateau_level(variant, dk: float, T: int) -> float:
    """Half the argmax plateau ``lim_{g->inf} M(g)`` (:func:`theorylab.psa.quadrature.argmax_limit`).

    Examples
    --------
    Half the argmax plateau of t4-only at (dk, T) = (64, 64):

    >>> import theorylab.psa as psa
    >>> round(psa.plateau_level('t4-only', 64, 64), 4)
    0.499
    """
    from theorylab.psa.crossing import _grid

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
              progress: bool | None = None) -> measurement.Measurement:
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
                 progress: bool | None = None) -> measurement.Measurement:
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


def _measure_exact(name: str, model: ScoreModel, dk: float, T: int) -> measurement.Measurement:
    """Kernel of ``measure(name, variant, dk, T)`` (exact method, a validated point)."""
    if name in peaks._PEAKS:
        return measurement.Measurement(name, model.variant, dk, T, "exact", peaks._exact_peak(name, model, dk, T))
    return _exact_level(name, _half if name == "mass-half" else _plateau_level, model, dk, T)


OBSERVABLES: dict[str, Callable[..., measurement.Measurement]] = {
    "mass-half": mass_half,
    "half-plateau": half_plateau,
    "inflection": peaks.inflection,
    "entropy-peak": peaks.entropy_peak,
    "distractor-entropy-peak": peaks.distractor_entropy_peak,
}
"""The registry: observable name -> function (every function takes ``(variant, dk, T, *, method, ...)``)."""

OBSERVABLE_NAMES: tuple[str, ...] = tuple(OBSERVABLES)

PEAK_OBSERVABLES: tuple[str, ...] = tuple(peaks._PEAKS)
"""The observables read off a peak of a derivative (their Monte Carlo runs the row-statistics kernel)."""

DEFAULT_OBSERVABLE = "mass-half"
"""The observable of ``theorylab gamma-c --method exact|mc`` and ``compare`` unless told otherwise."""


def observable(name: str) -> Callable[..., measurement.Measurement]:
    """The function of the observable ``name`` (one of :data:`OBSERVABLE_NAMES`).

    Examples
    --------
    Observables by name:

    >>> import theorylab.psa as psa
    >>> psa.observable('mass-half') is psa.mass_half
    True
    """
    return OBSERVABLES[choice("observable", name, OBSERVABLE_NAMES)]


def measure(name: str, variant: str, dk: float, T: int, **kwargs) -> measurement.Measurement:
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


__all__ = ["mass_half", "half_plateau", "plateau_level", "OBSERVABLES", "OBSERVABLE_NAMES", "PEAK_OBSERVABLES",
           "DEFAULT_OBSERVABLE", "observable", "measure", "measure_cost"]

__getattr__ = names_getattr(__name__)    # names of psa.measurement and psa.peaks imported from here: one release


def measure_cost(name: str, T, *, method: str = "exact", samples: int = 20000, fine_points: int = 32,
                 dtype: str = "float32"):
    """Peak memory and run time of one :func:`measure` (checked by the CLI before it runs).

    Level observables cost what :func:`theorylab.psa.quadrature.exact_gamma_c` /
    :func:`theorylab.psa.mc_crossing.mc_gamma_c` cost; a Monte Carlo peak is two passes of
    :func:`theorylab.psa.row_stats_mc.simulate_row_stats` (the coarse scan with ``min(samples, 2000)``
    samples, then ``fine_points`` couplings with all of them)."""
    from theorylab.resources import Cost, count

    name = choice("observable", name, OBSERVABLE_NAMES)
    method = choice("method", method, measurement.METHODS)
    count("T", T), count("samples", samples), count("fine_points", fine_points)    # not every route below reads them
    if name not in peaks._PEAKS:
        if method == "exact":
            from theorylab.psa.quadrature import exact_gamma_c_cost
            return exact_gamma_c_cost()
        from theorylab.psa.mc_crossing import mc_gamma_c_cost
        return mc_gamma_c_cost(T, samples, fine_points)
    if method == "exact":
        return Cost(peaks._EXACT_PEAK_BYTES, peaks.EXACT_PEAK_SECONDS[name], f"one exact {name}")
    from theorylab.psa.row_stats_mc import row_stats_cost
    coarse = row_stats_cost(T, peaks.SCAN.size, min(count("samples", samples), 2000.0), dtype)
    return coarse.then(row_stats_cost(T, fine_points, samples, dtype))


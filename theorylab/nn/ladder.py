"""The trained dk ladder: gamma_c of an accuracy curve by three named observables, and its slope against dk.

The paper's Figure 9 (PSA §7.11) reads a gamma_c "from the accuracy curve" without saying how, so
we measure it three ways, each on a grid ``gammas`` (increasing, starting at 0) of seed-mean
accuracies, with linear interpolation between grid points:

* ``plateau-midpoint`` (:func:`plateau_midpoint`) -- the smallest gamma where the curve reaches
  the midpoint between its gamma = 0 value and its plateau (the largest accuracy on the grid);
* ``steepest-segment`` (:func:`steepest_segment`) -- the centre of the grid segment where the
  accuracy rises fastest per unit of gamma;
* ``half-accuracy`` (:func:`half_accuracy`) -- the smallest gamma where the accuracy reaches 50 %.

:func:`ladder_slope` is the least-squares slope of log gamma_c on log dk with a percentile
bootstrap interval over seeds (the seeds of each dk resampled with replacement, independently
per dk; a draw where some dk has no gamma_c is dropped and counted).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from theorylab.errors import ParameterError, check_memory, choice, positive_int, real_array, real_scalar, seed_int

OBSERVABLES = ("plateau-midpoint", "steepest-segment", "half-accuracy")
"""The named gamma_c observables of an accuracy curve."""
__all__ = ["OBSERVABLES", "plateau_midpoint", "steepest_segment", "half_accuracy", "curve_gamma_c", "ladder_slope"]


def _grid(gammas) -> np.ndarray:
    g = real_array("gammas", gammas, low=0)
    if g.ndim != 1 or g.size < 2 or g[0] != 0 or np.any(np.diff(g) <= 0):
        raise ParameterError("gammas must be an increasing grid starting at 0 (at least 2 points)")
    return g


def _curve(g: np.ndarray, accuracy) -> np.ndarray:
    a = real_array("accuracy", accuracy, low=0, high=1)
    if a.shape != g.shape:
        raise ParameterError(f"accuracy must hold one value per gamma ({g.size}) (got shape {a.shape})")
    return a


def _crossing(g: np.ndarray, a: np.ndarray, level: float) -> float | None:
    """Smallest gamma where ``a`` reaches ``level`` (linear interpolation); None if it never does
    or already does at gamma = 0."""
    above = a >= level
    if not above.any() or above[0]:
        return None
    i = int(np.argmax(above))
    return float(g[i - 1] + (level - a[i - 1]) * (g[i] - g[i - 1]) / (a[i] - a[i - 1]))


def _plateau_midpoint(g: np.ndarray, a: np.ndarray) -> float | None:
    if a.max() <= a[0]:
        return None
    return _crossing(g, a, 0.5 * (a[0] + a.max()))


def _steepest_segment(g: np.ndarray, a: np.ndarray) -> float | None:
    rise = np.diff(a) / np.diff(g)
    if rise.max() <= 0:
        return None
    i = int(np.argmax(rise))
    return float(0.5 * (g[i] + g[i + 1]))


_KERNELS = {"plateau-midpoint": _plateau_midpoint, "steepest-segment": _steepest_segment,
            "half-accuracy": lambda g, a: _crossing(g, a, 0.5)}


def plateau_midpoint(gammas: Sequence[float], accuracy: Sequence[float]) -> float | None:
    """Smallest gamma where the accuracy reaches the midpoint of its gamma = 0 value and its plateau.

    Parameters
    ----------
    gammas : sequence of float
        Increasing couplings, starting at 0 (at least two).
    accuracy : sequence of float
        Accuracy in [0, 1] at each gamma (a seed mean).

    Returns
    -------
    float or None
        Linear interpolation between the grid points around the crossing of
        ``(accuracy[0] + max(accuracy)) / 2``; None when the curve never rises above its gamma = 0 value.

    Examples
    --------
    One seed-mean curve of the trained dk ladder (PSA §7.11): the midpoint 0.425 is crossed
    between gamma = 1 and 1.5:

    >>> import theorylab.nn as nn
    >>> gammas, accuracy = [0, 0.5, 1, 1.5, 2], [0.1, 0.15, 0.4, 0.7, 0.75]
    >>> round(nn.plateau_midpoint(gammas, accuracy), 4), nn.plateau_midpoint(gammas, [0.5, 0.4, 0.3, 0.2, 0.1])
    (1.0417, None)
    """
    g = _grid(gammas)
    return _plateau_midpoint(g, _curve(g, accuracy))


def steepest_segment(gammas: Sequence[float], accuracy: Sequence[float]) -> float | None:
    """Centre of the grid segment where the accuracy rises fastest per unit of gamma.

    Parameters
    ----------
    gammas : sequence of float
        Increasing couplings, starting at 0 (at least two).
    accuracy : sequence of float
        Accuracy in [0, 1] at each gamma.

    Returns
    -------
    float or None
        ``(gammas[i] + gammas[i + 1]) / 2`` for the segment ``i`` of largest
        ``(accuracy[i + 1] - accuracy[i]) / (gammas[i + 1] - gammas[i])`` (the first of equals);
        None when no segment rises. Its resolution is the grid's: the answer is a segment centre.

    Examples
    --------
    The steepest rise (0.6 per unit of gamma) is on [1, 1.5] (a ladder curve, PSA §7.11):

    >>> import theorylab.nn as nn
    >>> gammas, accuracy = [0, 0.5, 1, 1.5, 2], [0.1, 0.15, 0.4, 0.7, 0.75]
    >>> nn.steepest_segment(gammas, accuracy)
    1.25
    """
    g = _grid(gammas)
    return _steepest_segment(g, _curve(g, accuracy))


def half_accuracy(gammas: Sequence[float], accuracy: Sequence[float], level: float = 0.5) -> float | None:
    """Smallest gamma where the accuracy reaches ``level`` (default 50 %), linearly interpolated.

    Parameters
    ----------
    gammas : sequence of float
        Increasing couplings, starting at 0 (at least two).
    accuracy : sequence of float
        Accuracy in [0, 1] at each gamma.
    level : float
        The threshold, in (0, 1).

    Returns
    -------
    float or None
        None when the curve never reaches ``level`` on the grid, or is already there at gamma = 0.

    Examples
    --------
    >>> import theorylab.nn as nn
    >>> gammas, accuracy = [0, 0.5, 1, 1.5, 2], [0.1, 0.15, 0.4, 0.7, 0.75]
    >>> round(nn.half_accuracy(gammas, accuracy), 4), nn.half_accuracy(gammas, accuracy, level=0.9)   # PSA §7.11
    (1.1667, None)
    """
    g = _grid(gammas)
    level = real_scalar("level", level, low=0, high=1, low_inclusive=False, high_inclusive=False)
    return _crossing(g, _curve(g, accuracy), level)


def curve_gamma_c(gammas: Sequence[float], accuracy: Sequence[float], observable: str) -> float | None:
    """gamma_c of one accuracy curve by the named observable (:data:`OBSERVABLES`).

    Parameters
    ----------
    gammas, accuracy : sequence of float
        As :func:`plateau_midpoint`.
    observable : str
        ``"plateau-midpoint"``, ``"steepest-segment"`` or ``"half-accuracy"``.

    Returns
    -------
    float or None

    Examples
    --------
    The three observables of one curve of the trained dk ladder (PSA §7.11):

    >>> import theorylab.nn as nn
    >>> gammas, accuracy = [0, 0.5, 1, 1.5, 2], [0.1, 0.15, 0.4, 0.7, 0.75]
    >>> [round(nn.curve_gamma_c(gammas, accuracy, name), 4) for name in nn.ladder.OBSERVABLES]
    [1.0417, 1.25, 1.1667]
    """
    kernel = _KERNELS[choice("observable", observable, OBSERVABLES)]
    g = _grid(gammas)
    return kernel(g, _curve(g, accuracy))


def _slope(ldk: np.ndarray, gc: np.ndarray) -> float:
    return float(np.polyfit(ldk, np.log(gc), 1)[0])


def ladder_slope(dks: Sequence[float], gammas: Sequence[float], per_seed: Sequence, observable: str,
                 draws: int = 2000, seed: int = 0) -> dict:
    """Log-log slope of gamma_c against dk, with a percentile bootstrap 95 % interval over seeds.

    Parameters
    ----------
    dks : sequence of float
        Head widths (> 0, at least two distinct).
    gammas : sequence of float
        The coupling grid (increasing, starting at 0), shared by every dk.
    per_seed : sequence of arrays
        One ``(seeds, len(gammas))`` array of accuracies per dk (seed counts may differ).
    observable : str
        A name of :data:`OBSERVABLES`.
    draws : int
        Bootstrap resamples: each resamples, with replacement and independently per dk, that dk's
        seeds, and fits the slope through the gamma_c of the resampled mean curves.
    seed : int
        Seed of the resampling stream ``numpy.random.default_rng(seed)``, in [0, 2^64).

    Returns
    -------
    dict
        ``gamma_c`` (per dk, of the seed-mean curve; None where undefined), ``slope`` (None
        unless at least two dk have a gamma_c > 0), ``ci_low``, ``ci_high`` (2.5 and 97.5
        percentiles of the bootstrap slopes; None when fewer than 20 draws are usable), ``draws``
        (requested), ``usable_draws`` (draws where every dk of the fit has a gamma_c > 0), and
        ``method`` (the interval's name).

    Examples
    --------
    Two seeds at each of three head widths; gamma_c falls with dk as in PSA §7.11:

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> gammas = [0, 0.5, 1, 2]
    >>> per_seed = [np.array([[0.1, 0.2, 0.8, 0.9], [0.1, 0.3, 0.9, 0.9]]),
    ...             np.array([[0.1, 0.6, 0.9, 0.9], [0.1, 0.7, 0.9, 0.9]]),
    ...             np.array([[0.1, 0.9, 0.9, 0.9], [0.1, 0.8, 0.9, 0.9]])]
    >>> r = nn.ladder_slope([8, 16, 32], gammas, per_seed, "plateau-midpoint", draws=100, seed=0)
    >>> [round(g, 4) for g in r["gamma_c"]], round(r["slope"], 4), r["usable_draws"]
    ([0.7083, 0.3636, 0.2667], -0.7047, 100)
    >>> bool(r["ci_low"] <= r["slope"] <= r["ci_high"])
    True
    """
    dk = real_array("dks", dks, low=0, low_inclusive=False)
    if dk.ndim != 1 or dk.size < 2 or np.unique(dk).size < 2:
        raise ParameterError("dks must hold at least two distinct head widths")
    g = _grid(gammas)
    kernel = _KERNELS[choice("observable", observable, OBSERVABLES)]
    if not isinstance(per_seed, (list, tuple)) or len(per_seed) != dk.size:
        raise ParameterError(f"per_seed must hold one (seeds, {g.size}) array per dk ({dk.size})")
    curves = []
    for i, acc in enumerate(per_seed):
        a = real_array(f"per_seed[{i}]", acc, low=0, high=1)
        if a.ndim != 2 or a.shape[1] != g.size or not a.shape[0]:
            raise ParameterError(f"per_seed[{i}] must be (seeds, {g.size}) accuracies (got shape {a.shape})")
        curves.append(a)
    draws = positive_int("draws", draws)
    check_memory("draws, per_seed", 8.0 * draws * (sum(a.shape[0] for a in curves) + dk.size))
    point = [kernel(g, a.mean(axis=0)) for a in curves]
    fit = [i for i, v in enumerate(point) if v is not None and v > 0]
    out = {"gamma_c": point, "slope": None, "ci_low": None, "ci_high": None, "draws": draws, "usable_draws": 0,
           "method": "percentile bootstrap over seeds, resampled per dk"}
    if len(fit) < 2 or np.unique(dk[fit]).size < 2:
        return out
    ldk = np.log(dk[fit])
    out["slope"] = _slope(ldk, np.array([point[i] for i in fit]))
    rng = np.random.default_rng(seed_int("seed", seed))
    slopes = []
    for _ in range(draws):
        gc = []
        for i in fit:
            a = curves[i]
            v = kernel(g, a[rng.integers(0, a.shape[0], a.shape[0])].mean(axis=0))
            gc.append(np.nan if v is None or v <= 0 else v)
        if np.all(np.isfinite(gc)):
            slopes.append(_slope(ldk, np.array(gc)))
    out["usable_draws"] = len(slopes)
    if len(slopes) >= 20:
        out["ci_low"], out["ci_high"] = (float(x) for x in np.percentile(slopes, [2.5, 97.5]))
    return out

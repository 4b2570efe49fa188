"""Monte Carlo row statistics of the PSA reduced score model (Numba; beside the mass-only kernel).

The draws are those of :func:`theorylab.psa.montecarlo.simulate_mass` -- the same counter-based
normals (:mod:`theorylab.rng`), the same channel loadings, the same sample keys and chunks --
so sample s is the same configuration here and there, at every g of a grid (common random
numbers). The mass-only kernel is untouched; this one computes per sample and per g, exactly
(no finite differences):

* ``p_0`` (target mass), ``H`` (row entropy), ``H_d`` (distractor-only entropy), ``sum p_i^2``;
* the g-derivatives ``p_0'``, ``p_0''``, ``H'``, ``H''``, ``H_d'``, ``H_d''``, from the scores'
  g-derivatives ``y' = a' z_a + b' z_b - Delta'`` and ``y''`` (the loadings and gap are
  polynomials in g). With ``<.>`` the softmax average over the row (the target has
  ``y = y' = y'' = 0``)::

      p_0'  = -p_0 <y'>,            p_0'' = p_0 (2<y'>^2 - <y''> - <y'^2>),
      H'    = -Cov(y, y'),          H''   = -[Var y' + Cov(y, y'') + E(y - <y>)(y' - <y'>)^2],

  and the same over the distractors alone for ``H_d``.

Arithmetic: normals, scores and weights as in the mass kernel (float32 by default, polynomial
exp); the weights are taken relative to the row maximum (two passes over the distractors, so no
clipping of large scores) and every moment is accumulated in float64; indices are checked (``boundscheck``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial

import numba as nb
import numpy as np

from theorylab._results import grid_rows, to_frame
from theorylab.errors import ParameterError, choice, positive_int, real_array, single
from theorylab.psa.scoremodel import ScoreModel, _head_width
from theorylab.resources import Cost, bytes_of, count
from theorylab.psa.montecarlo import (BATCHES, CALL_SECONDS, CHUNK, DRAW_SECONDS, LOADINGS, _RATE_GUESS, _validate,
                                       batch_means, simulated_model)
from theorylab.psa.mc_kernels import exp32, exp64
from theorylab.rng import TARGET_INDEX, fill_normals32, fill_normals64, normal_pair, sample_key

STATS: tuple[str, ...] = ("mass", "entropy", "distractor_entropy", "ipr", "d_mass", "d2_mass",
                          "d_entropy", "d2_entropy", "d_distractor_entropy", "d2_distractor_entropy")
"""Per-sample statistics of the row-statistics kernel, in output order (``d`` = d/dg)."""

_N = len(STATS)


@nb.njit(inline="always", cache=True)
def _entropy_moments(Z, A, B1, B2, C1, D, E, F):
    """(H - ln Z, H', H'') of a softmax row from its weighted sums (any common shift of y)."""
    yb, y1, y1s, y2 = A / Z, B1 / Z, B2 / Z, C1 / Z
    yy1, yy2, yy1s = D / Z, E / Z, F / Z
    cov = yy1 - yb * y1
    var1 = y1s - y1 * y1
    cov2 = yy2 - yb * y2
    k3 = yy1s - 2.0 * y1 * yy1 - yb * y1s + 2.0 * yb * y1 * y1
    return -yb, -cov, -(var1 + cov2 + k3)


@nb.njit(inline="always", cache=True)
def _finish(out, i, k, ymax, Zd, A, Q, B1, B2, C1, D, E, F):
    """Write the statistics of sample i at grid point k from the distractor sums (y shifted by ymax)."""
    # distractors alone
    h, hg, hgg = _entropy_moments(Zd, A, B1, B2, C1, D, E, F)
    out[i, k, 2] = math.log(Zd) + h
    out[i, k, 8] = hg
    out[i, k, 9] = hgg
    # the whole row: weights relative to c = max(0, ymax); the target's y = 0 is -ymax after the shift
    lr = min(ymax, 0.0)
    r = math.exp(lr)
    w0 = math.exp(-max(ymax, 0.0))
    Z = w0 + r * Zd
    h, hg, hgg = _entropy_moments(Z, r * A - ymax * w0, r * B1, r * B2, r * C1, r * D, r * E, r * F)
    p0 = w0 / Z
    # ln(sum_i e^(y_i - ymax)) = ln Z + (max(ymax, 0) - ymax) = ln Z - lr
    out[i, k, 0] = p0
    out[i, k, 1] = math.log(Z) - lr + h
    out[i, k, 3] = (w0 * w0 + r * r * Q) / (Z * Z)
    y1, y1s, y2 = r * B1 / Z, r * B2 / Z, r * C1 / Z
    out[i, k, 4] = -p0 * y1
    out[i, k, 5] = p0 * (2.0 * y1 * y1 - y2 - y1s)
    out[i, k, 6] = hg
    out[i, k, 7] = hgg


@nb.njit(parallel=True, cache=True, fastmath=True, boundscheck=True)
def _stats32(seed, start, out, m, a, b, delta, a1, b1, d1, a2, b2, d2, sigma0):
    n, G = out.shape[0], out.shape[1]
    for i in nb.prange(n):
        key = sample_key(seed, start + i)
        za = np.empty(m, np.float32)
        zb = np.empty(m, np.float32)
        fill_normals32(key, za, zb)
        shift = sigma0 * normal_pair(key, TARGET_INDEX)[0]
        for k in range(G):
            ak, bk, dk = np.float32(a[k]), np.float32(b[k]), np.float32(delta[k] + shift)
            top = np.float32(-np.inf)
            for j in range(m):
                top = max(top, ak * za[j] + bk * zb[j] - dk)
            Zd = A = Q = B1 = B2 = C1 = D = E = F = 0.0
            a1d, b1d, d1d = a1[k], b1[k], d1[k]
            a2d, b2d, d2d = a2[k], b2[k], d2[k]
            for j in range(m):
                ys = ak * za[j] + bk * zb[j] - dk - top
                w = np.float64(exp32(ys))
                y = np.float64(ys)
                p1 = a1d * za[j] + b1d * zb[j] - d1d
                p2 = a2d * za[j] + b2d * zb[j] - d2d
                wy, wp1 = w * y, w * p1
                Zd += w
                A += wy
                Q += w * w
                B1 += wp1
                B2 += wp1 * p1
                C1 += w * p2
                D += wy * p1
                E += wy * p2
                F += wy * p1 * p1
            _finish(out, i, k, np.float64(top), Zd, A, Q, B1, B2, C1, D, E, F)


@nb.njit(parallel=True, cache=True, fastmath=True, error_model="numpy", boundscheck=True)
def _stats64(seed, start, out, m, a, b, delta, a1, b1, d1, a2, b2, d2, sigma0):
    n, G = out.shape[0], out.shape[1]
    for i in nb.prange(n):
        key = sample_key(seed, start + i)
        za = np.empty(m)
        zb = np.empty(m)
        fill_normals64(key, za, zb)
        shift = sigma0 * normal_pair(key, TARGET_INDEX)[0]
        for k in range(G):
            ak, bk, dk = a[k], b[k], delta[k] + shift
            top = -np.inf
            for j in range(m):
                top = max(top, ak * za[j] + bk * zb[j] - dk)
            Zd = A = Q = B1 = B2 = C1 = D = E = F = 0.0
            a1d, b1d, d1d, a2d, b2d, d2d = a1[k], b1[k], d1[k], a2[k], b2[k], d2[k]
            for j in range(m):
                y = ak * za[j] + bk * zb[j] - dk - top
                w = exp64(y)
                p1 = a1d * za[j] + b1d * zb[j] - d1d
                p2 = a2d * za[j] + b2d * zb[j] - d2d
                Zd += w
                A += w * y
                Q += w * w
                B1 += w * p1
                B2 += w * p1 * p1
                C1 += w * p2
                D += w * y * p1
                E += w * y * p2
                F += w * y * p1 * p1
            _finish(out, i, k, top, Zd, A, Q, B1, B2, C1, D, E, F)


_KERNELS = {"float32": _stats32, "float64": _stats64}


def score_polynomials(variant, g, dk: float) -> tuple[np.ndarray, ...]:
    """Loadings, gap and their first two g-derivatives on the grid g: ``(a, b, Delta, a', b', Delta', a'', b'', Delta'')``.

    ``variant``: a name or a ScoreModel with that variant's loadings
    (:func:`theorylab.psa.montecarlo.simulated_model`); ``g`` in [0, 1000], ``dk > 0``.

    Examples
    --------
    Loadings, gap and their derivatives (nine arrays):

    >>> import theorylab.psa as psa
    >>> len(psa.score_polynomials('t4-only', [1.0], 64))
    9
    """
    model = simulated_model(variant)
    g = real_array("gamma", g, low=0, high=1e3)
    return _score_polynomials(model.variant, model, g, single("dk", _head_width(dk)))


def _score_polynomials(variant: str, model: ScoreModel, g: np.ndarray, dk: float) -> tuple[np.ndarray, ...]:
    P = np.polynomial.polynomial
    a, b = LOADINGS[variant]
    gap = np.sqrt(dk) * np.asarray(model.gap_poly, float)
    out = []
    for order in (0, 1, 2):
        out += [P.polyval(g, P.polyder(c, order) if order else c) for c in (a, b, gap)]
    return tuple(np.ascontiguousarray(np.broadcast_to(x, g.shape), float) for x in out)


def per_sample_row_stats(variant, dk: float, T: int, gammas, start: int, count: int, *, seed: int = 0,
                         sigma0: float = 0.0, dtype: str = "float32") -> np.ndarray:
    """Row statistics (:data:`STATS`) of samples ``start .. start+count-1`` at every g: shape ``(count, G, 10)``.

    Sample s is the configuration of :func:`theorylab.psa.montecarlo.per_sample_mass`'s sample s.

    Examples
    --------
    The ten row statistics of three samples at one g:

    >>> import theorylab.psa as psa
    >>> psa.per_sample_row_stats('t4-only', 64, 64, [1.0], 0, 3).shape
    (3, 1, 10)
    """
    dtype = choice("dtype", dtype, tuple(_KERNELS))
    model, g, dk, m, seed, sigma0 = _validate(variant, dk, T, gammas, seed, sigma0, dtype)
    variant = model.variant
    start, count = positive_int("start", start, low=0), positive_int("count", count)
    _check_scores(variant, model, g, dk, sigma0)
    return _run_chunk(variant, model, g, dk, m, seed, sigma0, dtype, start, count)


_MAX_SCORE = 1e30
"""Largest loading, gap or g-derivative (plus 40 sigma0 of target noise) the row-statistics kernel takes: its
moments multiply a score by two derivatives, and the float32 kernel holds the scores (far beyond any model:
``e^(-1e30)`` is 0)."""


def _check_scores(variant, model, g, dk, sigma0) -> None:
    top = max(float(np.max(np.abs(p))) for p in _score_polynomials(variant, model, g, dk)) + 40.0 * sigma0
    if not top <= _MAX_SCORE:
        raise ParameterError(f"dk, gammas, sigma0 too large: the scores or their g-derivatives reach {top:.3g} "
                             f"(at most {_MAX_SCORE:g} in the row-statistics kernel)")


def _run_chunk(variant, model, g, dk, m, seed, sigma0, dtype, start, count) -> np.ndarray:
    out = np.empty((count, g.size, _N))
    _KERNELS[dtype](np.uint64(seed), np.int64(start), out, np.int64(m), *_score_polynomials(variant, model, g, dk),
                       sigma0)
    return out


@dataclass(frozen=True)
class RowStatsCurve:
    """Monte Carlo means of the row statistics along a g grid, from one set of draws.

    Attributes
    ----------
    variant, dk, T, samples, seed, sigma0, dtype : the simulated model and its stream.
    gamma : the grid of couplings g.
    mean : shape ``(G, 10)``: sample means of :data:`STATS` (column order).
    se : their standard errors.
    batch_mean : shape ``(BATCHES, G, 10)``: means over contiguous sample batches.

    Notes
    -----
    :meth:`rows` and :meth:`to_frame` give the table, one row per coupling g.
    """

    variant: str
    dk: float
    T: int
    samples: int
    seed: int
    sigma0: float
    gamma: np.ndarray
    mean: np.ndarray
    se: np.ndarray
    batch_mean: np.ndarray = field(repr=False, default=None)
    dtype: str = "float32"

    def stat(self, name: str) -> np.ndarray:
        """The mean curve of one statistic (a name of :data:`STATS`)."""
        return self.mean[:, STATS.index(choice("statistic", name, STATS))]

    def rows(self) -> list[dict]:
        """One dict per coupling g: variant, dk, T, samples, seed, sigma0, dtype, gamma, then each statistic
        of :data:`STATS` and its standard error (``<name>_se``)."""
        columns = {"gamma": self.gamma}
        for i, name in enumerate(STATS):
            columns[name], columns[f"{name}_se"] = self.mean[:, i], self.se[:, i]
        return grid_rows(columns, {"variant": self.variant, "dk": self.dk, "T": self.T, "samples": self.samples,
                                   "seed": self.seed, "sigma0": self.sigma0, "dtype": self.dtype})

    def to_frame(self):
        """:meth:`rows` as a ``pandas.DataFrame`` (pandas: the optional extra ``theorylab[pandas]``)."""
        return to_frame(self.rows())

    def stat_se(self, name: str) -> np.ndarray:
        return self.se[:, STATS.index(choice("statistic", name, STATS))]

    def batch_stat(self, name: str) -> np.ndarray:
        """Shape ``(BATCHES, G)``: the batch-mean curves of one statistic."""
        return self.batch_mean[:, :, STATS.index(choice("statistic", name, STATS))]


def simulate_row_stats(variant, dk: float, T: int, gammas, *, samples: int = 20000, seed: int = 0,
                       sigma0: float = 0.0, dtype: str = "float32", progress: bool | None = None) -> RowStatsCurve:
    """Monte Carlo means of p_0, H, H_d, sum p^2 and their g-derivatives on a g grid (CRN).

    Parameters and draws as :func:`theorylab.psa.montecarlo.simulate_mass` (same seed, same
    samples: its ``mass`` equals this ``stat("mass")`` up to rounding); ``variant`` a name or a ScoreModel
    with that variant's loadings (:func:`theorylab.psa.montecarlo.simulated_model`).

    Returns
    -------
    RowStatsCurve
        Identical for any thread count with the same seed.

    Examples
    --------
    Monte Carlo row statistics; :meth:`to_frame` gives one row per g:

    >>> import theorylab.psa as psa
    >>> curve = psa.simulate_row_stats('t4-only', 64, 64, [0.0], samples=1000)
    >>> print(curve.stat('entropy').round(2))
    [4.14]
    """
    dtype = choice("dtype", dtype, tuple(_KERNELS))
    model, g, dk, m, seed, sigma0 = _validate(variant, dk, T, gammas, seed, sigma0, dtype)
    variant = model.variant
    samples = positive_int("samples", samples)
    _check_scores(variant, model, g, dk, sigma0)
    return _simulate_row_stats(model, g, dk, m, seed, sigma0, dtype, samples, progress)


def _simulate_row_stats(model, g, dk, m, seed, sigma0, dtype, samples, progress) -> RowStatsCurve:
    """Kernel of :func:`simulate_row_stats` (validated by the caller, scores checked: ``_check_scores``)."""
    variant = model.variant
    if progress is None:
        progress = samples * m * g.size > 0.4 * _RATE_GUESS
    run = partial(_run_chunk, variant, model, g, dk, m, seed, sigma0, dtype)          # run(start, count)
    mean, se, batch_mean = batch_means(run, samples, "row statistics", progress)
    return RowStatsCurve(variant, dk, int(m + 2), samples, seed, sigma0, g, mean, se, batch_mean, dtype)


STATS_EVAL_SECONDS = {"float32": 1.2e-8, "float64": 1.4e-8}
"""Seconds per distractor evaluation of the row-statistics kernel at one g (both passes, nine moments),
measured beside the mass kernel's ``EVAL_SECONDS`` on the same shared 2-core machine."""


def row_stats_cost(T, n_gamma, samples, dtype: str = "float32") -> Cost:
    """Peak memory and run time of :func:`simulate_row_stats` (checked by the CLI before it runs).

    Memory: two normal vectors of ``m = T - 2`` distractors per Numba thread, the ``(CHUNK, G, 10)``
    block of statistics with its reductions, the batch sums. Time:
    ``CALL_SECONDS + samples * m * (DRAW_SECONDS + G * STATS_EVAL_SECONDS[dtype])``."""
    m, G, n = max(count("T", T) - 2, 0.0), count("n_gamma", n_gamma), count("samples", samples)
    itemsize = np.dtype(choice("dtype", dtype, tuple(_KERNELS))).itemsize
    memory = nb.get_num_threads() * bytes_of(2, m, itemsize=itemsize) + bytes_of(3, min(n, CHUNK), G, _N) \
        + bytes_of(2, BATCHES + 1, G, _N)
    seconds = CALL_SECONDS + n * m * (DRAW_SECONDS + G * STATS_EVAL_SECONDS[dtype])
    return Cost(memory, seconds, f"{n:.3g} samples x {m:.3g} distractors x {G:.3g} couplings (row statistics)")


__all__ = ["STATS", "RowStatsCurve", "simulate_row_stats", "per_sample_row_stats", "score_polynomials",
           "STATS_EVAL_SECONDS", "row_stats_cost"]

"""Monte Carlo of the PSA reduced Gaussian score model (Numba; PSA §6.6-6.8, §10).

One sample is one query: a target with score gap ``Delta(g, dk)`` (plus optional
noise ``sigma0 z_t``) competes with ``m = T - 2`` distractors whose scores are
centred Gaussians of variance ``sigma^2(g)``. Its target softmax mass is
``1 / (1 + sum_j exp(x_j - Delta - sigma0 z_t))``; :func:`simulate_mass` averages it
over samples for a whole grid of g **from one set of draws** and
:func:`theorylab.psa.mc_crossing.mc_gamma_c` finds the root of ``M(g) = 1/2``.

Common random numbers (CRN) over a g grid
-----------------------------------------
Each distractor draws one pair of standard normals ``(z_a, z_b)`` from the
counter-based stream of :mod:`theorylab.rng` and builds its score from the
model's channels::

    x_j(g) = a(g) z_a + b(g) z_b,     a(g)^2 + b(g)^2 == sigma^2(g) for every g,

with polynomial loadings (:data:`LOADINGS`, checked against the ScoreModel's variance
polynomial by :func:`loading_variance_poly`):

* t4-only: ``x = 2 g^2 z_a`` (T4 alone);
* t3-inclusive: ``x = sqrt2 (g + g^2) z_a + sqrt2 g^2 z_b`` -- T3 = sqrt2 g z_a and
  T4 = sqrt2 g^2 (z_a + z_b), so Var T3 = 2g^2, Var T4 = 4g^4, Cov = 2g^3;
* key-only: ``x = z_a + sqrt2 g z_b`` (T1 + T3);
* symmetric-key-convention: ``x = z_a + 2 g^2 z_b`` (T1 + T4).

So one draw is one *physical* configuration of channel noises, evaluated at every g;
along g each channel scales with its own power of g (for t3-inclusive the correlation
between x(g) and x(g') is not 1, unlike the shortcut ``x = sigma(g) z``, which would
reproduce the marginal variance but not the channel structure).

Numerics: float32 by default (float64 on request); a branch-free polynomial exp with
clipped argument (``[-80, 60]`` in float32, so no result is subnormal, ``[-700, 600]`` in float64) that LLVM
vectorises (the PyPI Numba has no SVML). Clipping at the top only matters when one
term alone exceeds e^60, where the mass is below 1e-26 either way. Kernel indices are checked (``boundscheck``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial

import numba as nb
import numpy as np

from theorylab._moved import names_getattr
from theorylab._progress import progress as progress_bar
from theorylab._results import grid_rows, scalar_output, to_frame
from theorylab.errors import (ParameterError, check_memory, choice, finite_output, positive_int, real_array,
                              real_scalar, seed_int, single)
from theorylab.psa.scoremodel import VARIANTS, ScoreModel, _distractors, _head_width, resolve_model
from theorylab.resources import Cost, bytes_of, count
from theorylab.psa.mc_kernels import _kernel32, _kernel64
from theorylab.psa.quadrature import integer_context_length

_R2 = math.sqrt(2.0)
LOADINGS: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "t4-only": ((0.0, 0.0, 2.0), (0.0,)),
    "t3-inclusive": ((0.0, _R2, _R2), (0.0, 0.0, _R2)),
    "key-only": ((1.0,), (0.0, _R2)),
    "symmetric-key-convention": ((1.0,), (0.0, 0.0, 2.0)),
}
"""Polynomial loadings (lowest degree first) ``(a(g), b(g))`` of the two normals of a distractor."""

BATCHES = 20
"""Contiguous sample batches kept by :func:`simulate_mass` (batch means for confidence intervals)."""

CHUNK = 2048
"""Samples per kernel call (fixed, so results never depend on the thread count)."""


def loading_variance_poly(variant: str) -> np.ndarray:
    """Coefficients of ``a(g)^2 + b(g)^2`` (lowest degree first): must equal ``sigma^2(g)``.

    Examples
    --------
    a(g)^2 + b(g)^2 of t4-only as polynomial coefficients:

    >>> import theorylab.psa as psa
    >>> print(psa.loading_variance_poly('t4-only'))
    [0. 0. 0. 0. 4.]
    """
    return _loading_variance_poly(choice("variant", variant, VARIANTS))


def _loading_variance_poly(variant: str) -> np.ndarray:
    P = np.polynomial.polynomial
    a, b = LOADINGS[variant]
    return P.polyadd(P.polymul(a, a), P.polymul(b, b))


@scalar_output
@finite_output("g")
def loadings(variant: str, g) -> tuple[np.ndarray, np.ndarray]:
    """The loadings ``a(g), b(g)`` of the distractor's two normals on the grid g (reals >= 0).

    Examples
    --------
    The distractor loadings of t4-only on a g grid:

    >>> import theorylab.psa as psa
    >>> a, b = psa.loadings('t4-only', [0.0, 1.0])
    >>> print(a.round(4), b.round(4))
    [0. 2.] [0. 0.]
    """
    return _loadings(choice("variant", variant, VARIANTS), real_array("g", g, low=0, allow_empty=True))


def _loadings(variant: str, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = LOADINGS[variant]
    P = np.polynomial.polynomial
    return P.polyval(g, a), P.polyval(g, b)


_KERNELS = {"float32": _kernel32, "float64": _kernel64}
DTYPES: tuple[str, ...] = tuple(_KERNELS)
"""Arithmetic of the Monte Carlo kernels (normals, scores and weights; sums are float64)."""


def per_sample_mass(variant, dk: float, T: int, gammas, start: int, count: int, *, seed: int = 0,
                    sigma0: float = 0.0, dtype: str = "float32") -> np.ndarray:
    """Target mass of samples ``start .. start+count-1`` at every g: shape ``(count, G)``.

    Sample ``s`` is the same configuration in every call (counter-based draws);
    ``start + count <= 2^63``, ``seed`` in [0, 2^64). ``variant`` as for :func:`simulate_mass`.

    Examples
    --------
    Target mass of four samples at two couplings:

    >>> import theorylab.psa as psa
    >>> m = psa.per_sample_mass('t4-only', 16, 64, [0.5, 1.0], 0, 4, seed=1)
    >>> m.shape
    (4, 2)
    """
    dtype = choice("dtype", dtype, DTYPES)
    model, g, dk, m, seed, sigma0 = _validate(variant, dk, T, gammas, seed, sigma0, dtype)
    count = positive_int("count", count)
    start = positive_int("start", start, low=0, high=2 ** 63 - count)
    check_memory("count, gammas", 8 * count * g.size)
    return _run_chunk(model, g, dk, m, seed, sigma0, dtype, start, count)


def simulated_model(variant) -> ScoreModel:
    """The :class:`ScoreModel` the Monte Carlo simulates for ``variant`` (a name or a ScoreModel).

    A name gives the paper's model (:func:`~theorylab.psa.scoremodel.score_model`). A ScoreModel
    (:func:`~theorylab.psa.scoremodel.resolve_model`) is simulated with the channel loadings of its
    ``variant`` (:data:`LOADINGS`), so its variance polynomial must equal theirs (:func:`loading_variance_poly`,
    to 1e-12 relative); its gap polynomial is free (e.g. a gap of the other sign).

    Raises
    ------
    ParameterError
        For an unknown variant, or a ScoreModel whose variance differs from its variant's loadings.

    Examples
    --------
    The Monte Carlo's model of a named variant:

    >>> import theorylab.psa as psa
    >>> psa.simulated_model('t4-only').variant
    't4-only'
    """
    model = resolve_model(variant)
    if not isinstance(variant, ScoreModel):
        return model
    want = np.trim_zeros(np.asarray(model.var_poly, float), "b")
    got = np.trim_zeros(_loading_variance_poly(model.variant), "b")
    if want.shape != got.shape or not np.allclose(want, got, rtol=1e-12, atol=1e-14):
        raise ParameterError(f"variant's variance polynomial must equal the {model.variant} loadings "
                             f"(got {tuple(model.var_poly)})")
    return model


def _run_chunk(model, g, dk, m, seed, sigma0, dtype, start, count) -> np.ndarray:
    a, b = _loadings(model.variant, g)
    delta = model._gap(g, dk)
    out = np.empty((count, g.size))
    # one fixed argument type for every call: the seed as uint64 and the start as int64, so that the
    # first call does not decide the compiled signature (a small seed would otherwise type it int64
    # and a later seed >= 2^63 would not fit)
    _KERNELS[dtype](np.uint64(seed), np.int64(start), out, np.int64(m), a, b, delta, float(sigma0))
    return out


def _validate(variant, dk, T, gammas, seed, sigma0, dtype):
    """The boundary checks of the simulations: ``(model, g, dk, m, seed, sigma0)``."""
    model = simulated_model(variant)
    g = real_array("gamma", gammas, low=0, high=1e3).ravel()
    dk = single("dk", _head_width(dk))
    m = int(_distractors(integer_context_length(T, high=2**31)))
    seed = seed_int("seed", seed)
    sigma0 = real_scalar("sigma0", sigma0, low=0)
    itemsize = np.dtype(dtype).itemsize
    check_memory("T", 2 * m * itemsize * nb.get_num_threads())      # two normals per distractor, per thread
    if isinstance(variant, ScoreModel):      # a user's gap polynomial: refuse an overflowing gap, once
        model.gap(g, dk)
    return model, g, dk, m, seed, sigma0


@dataclass(frozen=True)
class MassCurve:
    """Mean target softmax mass M(g) of the reduced model over a g grid, one set of draws.

    Attributes
    ----------
    variant, dk, T, samples, seed, sigma0 : the simulated model and its stream.
    gamma : the grid of couplings g.
    mass : sample mean of the target mass at each g.
    se : its standard error (sample standard deviation / sqrt(samples)).
    batch_mass : shape ``(batches, G)``: means over contiguous sample batches
        (for batch-means confidence intervals).
    dtype : arithmetic of the kernel ("float32" or "float64").

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
    mass: np.ndarray
    se: np.ndarray
    batch_mass: np.ndarray = field(repr=False, default=None)
    dtype: str = "float32"

    def rows(self) -> list[dict]:
        """One dict per coupling g: variant, dk, T, samples, seed, sigma0, dtype, gamma, mass, se."""
        return grid_rows({"gamma": self.gamma, "mass": self.mass, "se": self.se},
                         {"variant": self.variant, "dk": self.dk, "T": self.T, "samples": self.samples,
                          "seed": self.seed, "sigma0": self.sigma0, "dtype": self.dtype})

    def to_frame(self):
        """:meth:`rows` as a ``pandas.DataFrame`` (pandas: the optional extra ``theorylab[pandas]``)."""
        return to_frame(self.rows())


def simulate_mass(variant, dk: float, T: int, gammas, *, samples: int = 20000, seed: int = 0,
                  sigma0: float = 0.0, dtype: str = "float32", progress: bool | None = None) -> MassCurve:
    """Monte Carlo mean target mass ``M(g) = E[1/(1 + sum_j exp(x_j - Delta))]`` on a g grid.

    Parameters
    ----------
    variant : score-model variant: a name of :data:`theorylab.psa.scoremodel.VARIANTS`, or a
        :class:`~theorylab.psa.scoremodel.ScoreModel` with that variant's loadings (:func:`simulated_model`).
    dk : head width (> 0).  T : context length (integer >= 3); ``m = T - 2`` distractors.
    gammas : couplings g (>= 0), all evaluated on the same draws (common random numbers).
    samples : number of independent queries.  seed : stream seed, an integer in [0, 2^64).
    sigma0 : standard deviation of the target's own score noise (default 0).
    dtype : "float32" (default) or "float64" kernel arithmetic.
    progress : show a progress bar (None: only when the run is expected to exceed ~2 s).

    Returns
    -------
    MassCurve
        Identical for any thread count with the same seed; its ``variant`` is the model's name.

    Examples
    --------
    >>> from theorylab.psa import simulate_mass
    >>> curve = simulate_mass("t4-only", 128, 512, [0.5, 1.0], samples=1000, seed=0)   # PSA §10
    >>> curve.mass.round(2)
    array([0.03, 0.96])
    """
    dtype = choice("dtype", dtype, DTYPES)
    model, g, dk, m, seed, sigma0 = _validate(variant, dk, T, gammas, seed, sigma0, dtype)
    samples = positive_int("samples", samples)
    _check_simulate_memory(m, g.size, samples, dtype)
    return _simulate_mass(model, g, dk, m, seed, sigma0, dtype, samples, progress)


def _check_simulate_memory(m: int, n_gamma: int, samples: int, dtype: str) -> None:
    check_memory("samples, gammas, T", 16 * samples + simulate_cost(m + 2, n_gamma, samples, dtype).memory)


def _simulate_mass(model, g, dk, m, seed, sigma0, dtype, samples, progress) -> MassCurve:
    """Kernel of :func:`simulate_mass` (validated by the caller, memory checked)."""
    if progress is None:
        progress = samples * m * g.size > 2.0 * _RATE_GUESS
    run = partial(_run_chunk, model, g, dk, m, seed, sigma0, dtype)          # run(start, count)
    mass, se, batch_mass = batch_means(run, samples, "simulate", progress)
    return MassCurve(model.variant, dk, int(m + 2), samples, seed, sigma0, g, mass, se, batch_mass, dtype)


def batch_means(run, samples: int, label: str, progress: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample means, standard errors and batch means of ``run(start, count)`` over ``samples`` samples.

    ``run`` returns one row per sample (shape ``(count, ...)``), computed :data:`CHUNK` samples at a
    time. Sample i belongs to batch ``floor(i B / samples)`` (``B`` = :data:`BATCHES`; batch b
    starts at ``ceil(b samples / B)``), so the batches do not depend on the chunking. The
    standard error is the sample standard deviation over sqrt(samples); empty batches (samples < B)
    are dropped from the batch means.
    """
    first = [-(-b * samples // BATCHES) for b in range(BATCHES + 1)]
    counts = np.diff(first).astype(float)
    sums = sq = None
    with progress_bar(samples, label, "sample", enabled=progress) as bar:
        for start in range(0, samples, CHUNK):
            count = min(CHUNK, samples - start)
            out = run(start, count)
            if sums is None:
                sums, sq = np.zeros((BATCHES, *out.shape[1:])), np.zeros(out.shape[1:])
            ids = np.arange(start, start + count) * BATCHES // samples
            cuts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
            sums[ids[cuts]] += np.add.reduceat(out, cuts, axis=0)
            sq += np.einsum("i...,i...->...", out, out)
            if bar is not None:
                bar.update(count)
    mean = sums.sum(axis=0) / samples
    var = np.maximum(sq / samples - mean**2, 0.0) * samples / max(samples - 1, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        batch = sums / counts.reshape(-1, *([1] * (sums.ndim - 1)))
    return mean, np.sqrt(var / samples), batch[counts > 0]


_RATE_GUESS = 2e9
"""Rough distractor evaluations per second, only to decide whether to show a progress bar."""

DRAW_SECONDS = 3.5e-8
"""Seconds per distractor draw (a pair of normals), measured on a shared 2-core machine."""
EVAL_SECONDS = {"float32": 2.5e-9, "float64": 4.5e-9}
"""Seconds per distractor evaluation at one g (same machine), by kernel arithmetic."""
CALL_SECONDS = 0.03
"""Fixed seconds per call (validation, loadings, launching the Numba threads; same machine)."""


def simulate_cost(T, n_gamma, samples, dtype: str = "float32") -> Cost:
    """Peak memory and run time of :func:`simulate_mass` (checked by the CLI before it runs).

    Memory: two normal vectors of ``m = T - 2`` distractors per Numba thread, the
    ``(CHUNK, G)`` block of masses with its reductions, the batch sums. Time:
    ``CALL_SECONDS + samples * m * (DRAW_SECONDS + G * EVAL_SECONDS[dtype])``."""
    m, G, n = max(count("T", T) - 2, 0.0), count("n_gamma", n_gamma), count("samples", samples)
    itemsize = np.dtype(choice("dtype", dtype, DTYPES)).itemsize
    memory = nb.get_num_threads() * bytes_of(2, m, itemsize=itemsize) + bytes_of(3, min(n, CHUNK), G) \
        + bytes_of(3, BATCHES + 1, G)
    seconds = CALL_SECONDS + n * m * (DRAW_SECONDS + G * EVAL_SECONDS[dtype])
    return Cost(memory, seconds, f"{n:.3g} samples x {m:.3g} distractors x {G:.3g} couplings")


__all__ = ["LOADINGS", "MassCurve", "simulate_mass", "per_sample_mass", "loadings",
           "loading_variance_poly", "simulated_model", "simulate_cost"]

__getattr__ = names_getattr(__name__)    # mc_gamma_c & co. (psa.mc_crossing), exp32/exp64 (psa.mc_kernels): one release

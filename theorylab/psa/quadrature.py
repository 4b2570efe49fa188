"""Exact (quadrature) mean target mass of the PSA reduced score model; its gamma_c.

For a target with gap Delta against ``m = T - 2`` i.i.d. distractors ``x ~ N(0, sigma^2)``
(docs/simulation.md, "Exact quadrature")::

    M = E[1 / (1 + S)],   S = sum_j exp(x_j - Delta)
      = integral_0^inf e^-u phi(u)^m du,   phi(u) = E exp(-u e^(x - Delta))

(from ``1/(1+S) = int_0^inf e^-u(1+S) du`` and independence). With ``u = e^t``,
``M = int exp(t - e^t) exp(m log1p(-(1 - phi)))  dt``; ``1 - phi`` is computed directly
(never as 1 minus a rounded phi), so ``m (1 - phi)`` keeps full relative precision even
for T = 100,000:

* ``1 - phi = E h(Y)``, ``h(y) = -expm1(-e^y)``, ``Y = x + t - Delta ~ N(mu, sigma^2)``;
* small sigma (<= 0.5): Gauss-Hermite in the standard normal (h is entire and varies on
  a scale >= 1/sigma >= 2);
* larger sigma (the integrand's step narrows like 1/sigma in z, where Gauss-Hermite
  fails): split at y = 0,
  ``E h(Y) = P(Y > 0) - E[e^(-e^Y); Y > 0] + E[h(Y); Y < 0]``, with ``P(Y > 0)`` by
  ``ndtr``, the two remaining pieces by composite Gauss-Legendre in y over the window
  [-36, 4.6] where they live, and the far left tail (h(y) = e^y to 1e-16)
  in closed form ``exp(mu + sigma^2/2) Phi((y_lo - mu - sigma^2)/sigma)``.

The outer t integral is composite Gauss-Legendre on [-45, 5] (the weight
``exp(t - e^t)`` is below 3e-20 outside). Target noise ``sigma0`` adds an outer
Gauss-Hermite average over ``Delta + sigma0 z``. Absolute error: below 1e-12 in the
tests' node-doubling checks (docs/simulation.md).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.optimize import brentq
from scipy.special import erfcx, log_ndtr, ndtr

from theorylab._results import scalar_output
from theorylab.errors import ParameterError, check_memory, positive_int, real_array, real_scalar, single
from theorylab.psa.scoremodel import ScoreModel, _context_length, _distractors, _head_width, resolve_model
from theorylab.psa.transition import argmax_probability
from theorylab.resources import Cost, bytes_of, count

_SWITCH = 0.5
_Y_LO, _Y_HI = -36.0, 4.6
_T_LO, _T_HI = -45.0, 5.0


@lru_cache(maxsize=None)
def _legendre_rule(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [-1, 1] (an eigenvalue problem: computed once per size)."""
    return np.polynomial.legendre.leggauss(nodes)


@lru_cache(maxsize=None)
def _gauss_legendre(lo: float, hi: float, panels: int, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    x, w = _legendre_rule(nodes)
    edges = np.linspace(lo, hi, panels + 1)
    half = np.diff(edges) / 2.0
    mid = (edges[:-1] + edges[1:]) / 2.0
    return (mid[:, None] + half[:, None] * x).ravel(), (half[:, None] * w).ravel()


@lru_cache(maxsize=None)
def _gauss_hermite(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights for E f(Z), Z ~ N(0, 1)."""
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    return x, w / np.sqrt(2.0 * np.pi)


@scalar_output
def one_minus_phi(t, delta: float, sigma: float, *, refine: int = 1) -> np.ndarray:
    """``1 - phi(e^t) = E[1 - exp(-e^(t + x - Delta))]``, x ~ N(0, sigma^2), for an array of t.

    ``t`` real (any shape), ``delta`` real, ``sigma >= 0``; ``refine`` (an integer in
    [1, 8]) multiplies the number of quadrature nodes (for convergence checks).

    Examples
    --------
    1 - phi(e^t) at two t:

    >>> import theorylab.psa as psa
    >>> print(psa.one_minus_phi([-2.0, 0.0], 1.0, 0.5).round(4))
    [0.0544 0.3262]
    """
    t = real_array("t", t, allow_empty=True)
    delta = real_scalar("delta", delta)
    sigma = real_scalar("sigma", sigma, low=0)
    refine = _refine(refine)
    check_memory("t, refine", 8 * 3 * t.size * 288 * refine)
    return _one_minus_phi(t, delta, sigma, refine)


MAX_REFINE = 8
"""Largest quadrature refinement (``refine`` multiplies the nodes; 2 is the convergence check's)."""


def _refine(refine) -> int:
    return positive_int("refine", refine, high=MAX_REFINE)


def _y_rule(refine: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The y nodes of the wide-sigma rule: composite Gauss-Legendre on [_Y_LO, 0] (A) and [0, _Y_HI] (B)."""
    yA, wA = _gauss_legendre(_Y_LO, 0.0, 18 * refine, 16)
    yB, wB = _gauss_legendre(0.0, _Y_HI, 3 * refine, 16)
    return yA, wA, yB, wB


def _y_density(mu: np.ndarray, sigma: float, refine: int) -> np.ndarray:
    """The N(mu, sigma^2) density at the y nodes of :func:`_y_rule` (A then B): shape (y nodes, mu.size).

    The wide-sigma rules of :func:`_one_minus_phi` and ``row_stats._bump_expectations`` share it (the row
    moments compute it once for both)."""
    yA, _, yB, _ = _y_rule(refine)
    y = np.concatenate([yA, yB])
    with np.errstate(over="ignore"):          # sigma near the float maximum: the density is 0
        z = np.subtract.outer(y, mu.ravel())  # (y nodes, mu.size), then in place: the operations of the formula
        z /= sigma                            # exp(-((y - mu)/sigma)^2 / 2) / (sigma sqrt(2 pi)), the same bits
        np.square(z, out=z)
        z *= -0.5
        np.exp(z, out=z)
        z /= sigma * np.sqrt(2.0 * np.pi)
    return z


def _one_minus_phi(t: np.ndarray, delta: float, sigma: float, refine: int, density=None) -> np.ndarray:
    """``1 - phi(e^t)``; ``density``: :func:`_y_density` of ``t - delta`` when the caller has it (sigma > _SWITCH)."""
    mu = t - delta
    if sigma <= _SWITCH:
        z, w = _gauss_hermite(64 * refine)
        y = sigma * z[:, None] + mu.ravel()[None, :]
        with np.errstate(over="ignore"):
            return (w @ -np.expm1(-np.exp(y))).reshape(mu.shape)
    mu = mu.ravel()
    yA, wA, yB, wB = _y_rule(refine)
    d = _y_density(mu, sigma, refine) if density is None else density
    above = ndtr(mu / sigma)
    B = (wB * np.exp(-np.exp(yB))) @ d[yA.size:]
    A = (wA * -np.expm1(-np.exp(yA))) @ d[:yA.size]
    return (above - B + A + _left_tail(mu, sigma)).reshape(t.shape)


def _left_tail(mu: np.ndarray, sigma: float) -> np.ndarray:
    """``E[e^Y; Y < y_lo] = exp(mu + sigma^2/2) Phi((y_lo - mu - sigma^2)/sigma)``, Y ~ N(mu, sigma^2).

    With ``x = (y_lo - mu)/sigma - sigma`` the exponent ``mu + sigma^2/2 + log Phi(x)`` cancels
    two terms of size sigma^2; for ``x < 0`` it is rewritten exactly as
    ``y_lo - ((y_lo - mu)/sigma)^2/2 + log(erfcx(-x/sqrt 2)/2)``, finite for any sigma (the
    ``sigma -> inf`` limit of the mass is ``2^-m``).
    """
    a = (_Y_LO - mu) / sigma
    x = a - sigma
    with np.errstate(over="ignore", invalid="ignore"):
        direct = np.exp(mu + sigma * sigma / 2.0 + log_ndtr(x))
        rewritten = np.exp(_Y_LO - a * a / 2.0) * erfcx(-x / np.sqrt(2.0)) / 2.0
    return np.where(x < 0, rewritten, direct)


def integer_context_length(T, high: int | None = None) -> int:
    """Validate a context length for the reduced model's sampling/quadrature: an integer ``3 <= T``
    (``<= high`` if given); ``m = T - 2`` distractors must be a whole number.

    Examples
    --------
    A whole-number T is accepted as an int:

    >>> import theorylab.psa as psa
    >>> psa.integer_context_length(64.0)
    64
    """
    T = _context_length(T)
    if T.ndim:
        raise ParameterError(f"T must be a single integer >= 3 (got an array of shape {T.shape})")
    T = float(T)
    if not T.is_integer() or (high is not None and T > high):
        limit = "" if high is None else f" and <= {int(high)}"
        raise ParameterError(f"T must be an integer >= 3{limit} (got {T:g})")
    return int(T)


def mass_given(delta: float, sigma: float, m: float, *, refine: int = 1) -> float:
    """``E[1/(1 + sum_{j<=m} exp(x_j - delta))]`` for x_j ~ N(0, sigma^2) i.i.d. (quadrature).

    ``delta`` real, ``sigma >= 0``, ``m >= 0`` (a real count is allowed here: the formula is
    analytic in m), ``refine`` a positive integer node multiplier.

    Examples
    --------
    The mean target mass against 10 distractors:

    >>> import theorylab.psa as psa
    >>> round(psa.mass_given(2.0, 1.0, 10), 4)
    0.3307
    """
    delta = real_scalar("delta", delta)
    sigma = real_scalar("sigma", sigma, low=0)
    m = real_scalar("m", m, low=0)
    refine = _refine(refine)
    return _mass_given(delta, sigma, m, refine)


def _mass_given(delta: float, sigma: float, m: float, refine: int) -> float:
    if m == 0:                                   # no distractor: the target holds all the mass
        return 1.0
    t, w = _gauss_legendre(_T_LO, _T_HI, 50 * refine, 12)
    q = np.clip(_one_minus_phi(t, delta, sigma, refine), 0.0, 1.0)
    with np.errstate(divide="ignore"):  # q == 1 (phi underflowed): phi^m = 0
        return float(w @ np.exp(t - np.exp(t) + m * np.log1p(-q)))


@scalar_output
def exact_mass(variant, dk: float, T: int, gammas, sigma0: float = 0.0, *, refine: int = 1) -> np.ndarray:
    """Mean target softmax mass M(g) of the reduced model, by quadrature (no sampling noise).

    Parameters
    ----------
    variant : score-model variant: a name of :data:`~theorylab.psa.scoremodel.VARIANTS` or a
        :class:`~theorylab.psa.scoremodel.ScoreModel` (:func:`~theorylab.psa.scoremodel.resolve_model`).
    dk : head width (> 0).  T : context length (an integer >= 3).
    gammas : couplings g >= 0.  sigma0 : target-noise standard deviation (>= 0); the mass is averaged over
    ``Delta + sigma0 z`` on nodes adapted to ``sigma0`` (``_target_rule``).
    refine : node multiplier (1 = default accuracy).

    Returns
    -------
    ndarray of M(g), same shape as ``gammas``.

    Examples
    --------
    >>> from theorylab.psa import exact_mass
    >>> round(exact_mass("t4-only", 128, 512, 0.7), 4)         # PSA §6.7: E[target mass] at g = 0.7
    0.2371
    >>> exact_mass("t4-only", 128, 512, [0.0, 0.7, 1.0]).round(3)
    array([0.002, 0.237, 0.956])
    """
    model = resolve_model(variant)
    g = real_array("gamma", gammas, low=0, high=1e3)
    dk = single("dk", _head_width(dk))
    m = float(_distractors(integer_context_length(T)))
    sigma0 = real_scalar("sigma0", sigma0, low=0)
    refine = _refine(refine)
    if isinstance(variant, ScoreModel):          # a user's polynomials: refuse an overflowing gap or variance, once
        model.gap(g, dk), model.variance(g)
    return _exact_mass(model, g, dk, m, sigma0, refine)


def _exact_mass(model: ScoreModel, g: np.ndarray, dk: float, m: float, sigma0: float, refine: int) -> np.ndarray:
    """Kernel of :func:`exact_mass`: ``g`` a float array in [0, 1e3], the rest validated by the caller."""
    delta = model._gap(g, dk).ravel()
    sigma = np.sqrt(model._variance(g)).ravel()
    out = np.array([sum(wi * _mass_given(d + sigma0 * zi, float(s), m, refine)     # target noise: _target_rule
                        for zi, wi in zip(*_target_rule(sigma0))) for d, s in zip(delta, sigma)])
    return out.reshape(g.shape)


QUADRATURE_SECONDS = 1e-2
"""Seconds per quadrature mass at one (g, target shift), measured on a shared 2-core machine;
``MASS_CALL_SECONDS`` per call of :func:`exact_mass`."""
MASS_CALL_SECONDS = 0.05
_QUADRATURE_BYTES = 4e6
"""Working arrays of one quadrature mass (node grids of a few hundred by a few hundred)."""
_TARGET_NODES = 40


def exact_mass_cost(n_gamma, sigma0: float = 0.0) -> Cost:
    """Peak memory and run time of :func:`exact_mass` for ``n_gamma`` couplings (one mass per target-noise node
    of ``_target_rule`` for each: 1 at sigma0 = 0, 40 up to sigma0 = 1, 10 ceil(9 sigma0) beyond)."""
    evals = count("n_gamma", n_gamma) * _target_rule(real_scalar("sigma0", sigma0, low=0))[0].size
    return Cost(_QUADRATURE_BYTES + bytes_of(4, n_gamma), MASS_CALL_SECONDS + evals * QUADRATURE_SECONDS,
                f"{evals:.3g} quadrature masses")


_SCAN = np.concatenate([np.linspace(0.0, 4.0, 41), np.linspace(4.25, 10.0, 24)])
_BRENT_STEPS = 60


def exact_gamma_c_cost() -> Cost:
    """Peak memory and run time (an upper bound) of one :func:`exact_gamma_c`: the whole scan and a Brent polish."""
    return Cost(_QUADRATURE_BYTES, (_SCAN.size + _BRENT_STEPS) * QUADRATURE_SECONDS, "one exact gamma_c")


def exact_gamma_c(variant, dk: float, T: int, *, level: float = 0.5, xtol: float = 1e-12) -> float:
    """Reduced-model gamma_c: the smallest g where the exact mean mass crosses ``level`` upwards.

    Scans g in [0, 10] (step 0.1 up to 4, 0.25 beyond) and polishes the first bracket
    by Brent's method. NaN where M(g) stays below ``level`` on [0, 10]. ``variant`` is a name of
    :data:`~theorylab.psa.scoremodel.VARIANTS` or a :class:`~theorylab.psa.scoremodel.ScoreModel`.

    Examples
    --------
    The exact (quadrature) crossing next to the annealed 0.787 (PSA §6.7):

    >>> from theorylab.psa import exact_gamma_c
    >>> round(exact_gamma_c("t4-only", 128, 512), 4)
    0.7863
    """
    model = resolve_model(variant)
    dk, T = single("dk", _head_width(dk)), integer_context_length(T)
    level = real_scalar("level", level, low=0, high=1, low_inclusive=False, high_inclusive=False)
    xtol = real_scalar("xtol", xtol, low=0, low_inclusive=False)
    return _exact_gamma_c(model, dk, float(_distractors(T)), level, xtol)


def _exact_gamma_c(model: ScoreModel, dk: float, m: float, level: float, xtol: float = 1e-12) -> float:
    """Kernel of :func:`exact_gamma_c` (``m = T - 2`` distractors; everything validated by the caller)."""
    def f(g):
        return float(_exact_mass(model, np.asarray(g, dtype=float), dk, m, 0.0, 1)) - level

    prev_g, prev_f = _SCAN[0], f(_SCAN[0])
    for g in _SCAN[1:]:
        fg = f(g)
        if prev_f < 0 <= fg:
            return brentq(f, prev_g, g, xtol=xtol, rtol=4 * np.finfo(float).eps)
        prev_g, prev_f = g, fg
    return float("nan")


_TARGET_Z = 9.0
"""Half-width in z of the composite target-noise rule (P(|Z| > 9) = 2.3e-19)."""


def _target_rule(sigma0: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes z and weights w with ``sum w f(z) = E f(Z)``, Z ~ N(0, 1), for the target-noise average of the mass
    ``f(z) = M(Delta + sigma0 z)`` (:func:`exact_mass` and the row statistics).

    The mass is a step of width about 1 in the gap (smoothed, not widened much, by the distractor spread), i.e. of
    width ``1 / sigma0`` in z. ``sigma0 = 0``: the single node z = 0. ``0 < sigma0 <= 1``: 40-node Gauss-Hermite.
    ``sigma0 > 1`` (where a fixed Gauss-Hermite rule converges slowly: 1.8e-6 off at sigma0 = 3, sigma = 0.18):
    composite 10-node Gauss-Legendre in z on [-9, 9] with ``ceil(9 sigma0)`` panels (width <= 2 / sigma0), so the
    nodes grow linearly with sigma0 (docs/simulation.md, "Target noise").
    """
    if sigma0 == 0.0:
        return np.zeros(1), np.ones(1)
    if sigma0 <= 1.0:
        return _gauss_hermite(_TARGET_NODES)
    panels = np.ceil(_TARGET_Z * sigma0)
    check_memory("sigma0", 160.0 * panels)             # two float64 arrays of 10 panels nodes (inf refused too)
    z, w = _gauss_legendre(-_TARGET_Z, _TARGET_Z, int(panels), 10)
    return z, w * np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)


@scalar_output
def argmax_limit(variant, dk, T) -> np.ndarray:
    """Large-g limit of the mean mass for a noiseless target: ``P(target is the argmax)``.

    ``Phi(r)^m`` with ``r = gap_lead sqrt(dk) / sqrt(var_lead)`` from the leading powers of g;
    for t4-only ``r = sqrt(dk)/2`` (PSA §6.7's argmax plateau). One source of truth:
    :func:`theorylab.psa.transition.argmax_probability` at ``g=None``.

    Examples
    --------
    The large-g mass limit of t4-only:

    >>> import theorylab.psa as psa
    >>> round(float(psa.argmax_limit('t4-only', 64, 64)), 4)
    0.998
    """
    return argmax_probability(variant, dk, T)


__all__ = ["exact_mass", "exact_gamma_c", "argmax_limit", "one_minus_phi", "mass_given", "integer_context_length",
           "exact_mass_cost", "exact_gamma_c_cost", "MAX_REFINE"]

"""Exact (quadrature) attention-row statistics of the PSA reduced score model, beside M(g).

One query row: the target (score 0 after a shift) and ``m = T - 2`` distractors with
log-weights ``y_j = x_j - Delta``, ``x_j ~ N(0, sigma^2)`` i.i.d.; ``S = sum_j e^(y_j)``,
``p_0 = 1/(1 + S)``, ``p_j = e^(y_j)/(1 + S)``. Beside the mean target mass
``M = E p_0`` (:func:`theorylab.psa.quadrature.mass_given`) this module computes, with no
sampling noise:

* the **row entropy** ``H = -sum_i p_i ln p_i = ln(1 + S) - sum_j y_j e^(y_j)/(1 + S)``
  (target and distractors);
* the **distractor-only entropy** ``H_d = ln S - sum_j y_j e^(y_j)/S`` (the Gibbs entropy of
  the distractors among themselves: shift invariant, so it depends on sigma and m only --
  the random-energy-model entropy of m Gaussian levels at inverse temperature sigma);
* the **inverse participation ratio** ``I = sum_i p_i^2`` (target included). The
  *participation ratio* we report is ``1 / E[I]`` (the reciprocal of the mean, which is
  what the quadrature gives exactly; ``E[1/I]`` has no one-dimensional representation).

Representation (docs/simulation.md, "Row statistics")
-----------------------------------------------------
With ``phi(u) = E exp(-u e^y)``, ``u = e^t`` and ``Y = t + y ~ N(t - Delta, sigma^2)``, Frullani
and ``1/(1+S)^k = int u^(k-1) e^(-u(1+S)) du / (k-1)!`` give::

    E ln(1 + S)     = int exp(-e^t) (1 - phi^m) dt
    E[sum y p]      = m int exp(-e^t) [sigma^2 (K1 - K2) - Delta K1] phi^(m-1) dt
    E[sum p^2]      = int exp(2t - e^t) phi^m dt + m int exp(-e^t) K2 phi^(m-1) dt
    E ln S          = int [exp(-e^t) - phi^m] dt
    E[sum x p_d]    = m sigma^2 int (K1 - K2) phi^(m-1) dt          (Delta = 0)

with ``K1 = E[e^Y exp(-e^Y)]`` and ``K2 = E[e^(2Y) exp(-e^Y)]``: ``E[y e^y exp(-u e^y)]`` is
reduced to them by Stein's lemma, ``E[(Y - mu) k(Y)] = sigma^2 E k'(Y)`` with
``k(Y) = e^Y exp(-e^Y)``, ``k' = k - e^(2Y) exp(-e^Y)``. ``1 - phi`` is
:func:`theorylab.psa.quadrature.one_minus_phi`; ``K1, K2`` (bounded bumps around Y = 0) use the
same nodes: Gauss-Hermite for ``sigma <= 0.5``, else composite Gauss-Legendre in y on
[-36, 4.6] plus the closed-form lognormal left tail. The t integral is the exact module's
composite Gauss-Legendre on [-45, 5] (region B), extended to the left (region A, where
``exp(-e^t) = 1`` and the integrands live while ``ln S`` is large: down to
``-45 - ln m - max(0, 10 sigma - Delta)``) and, for ``E ln S``, to the right (region C, up to
``5 + 10 sigma``), with panels of width ``max(1, sigma/4)``. Target noise ``sigma0`` is an
outer average over ``Delta + sigma0 z`` on the nodes of :func:`~theorylab.psa.quadrature.exact_mass`.

Accuracy (tests/test_row_stats.py): against direct adaptive integration over the m-fold
Gaussian (m = 1, 2) and mpmath; node doubling changes nothing above 1e-10.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import log_ndtr

from theorylab._results import grid_rows, scalar_fields, scalar_output, to_frame
from theorylab.errors import ParameterError, check_memory, real_array, real_scalar, single
from theorylab.psa.scoremodel import ScoreModel, _distractors, _head_width, resolve_model
from theorylab.psa.quadrature import (_SWITCH, _T_HI, _T_LO, _Y_LO, _gauss_hermite, _gauss_legendre, _mass_given,
                                      _one_minus_phi, _refine, _target_rule, _y_density, _y_rule,
                                      integer_context_length)

SIGMA_MAX = 1e4
"""Largest distractor spread sigma of the quadrature: up to it, doubling the nodes changes E H and E H_d by less
than 1e-8 and ``sigma E H`` follows its large-sigma limit; beyond, the t panels (width sigma/4) lose the
integrand's features (at sigma = 1e6 E H is ten times too large, E H_d can come out negative; NaN from 1e10)."""
_TAIL_Z = 10.0
"""Standard deviations of y covered beyond the mean (P(z > 10) = 7.6e-24)."""


def bump_expectations(t, delta: float, sigma: float, *, refine: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """``K1 = E[e^Y exp(-e^Y)]`` and ``K2 = E[e^(2Y) exp(-e^Y)]``, ``Y ~ N(t - Delta, sigma^2)``, for an array of t.

    Both integrands are bounded bumps around Y = 0 (maxima 1/e and 4/e^2), decaying like
    ``e^Y`` (``e^(2Y)``) on the left and double-exponentially on the right. ``t`` and ``delta`` are reals with
    ``|t|, |delta| <= 1e300``, ``0 <= sigma <= SIGMA_MAX``, ``refine`` in [1, 8].

    Examples
    --------
    K1 and K2 at one t:

    >>> import theorylab.psa as psa
    >>> k1, k2 = psa.bump_expectations([0.0], 1.0, 0.5)
    >>> print(k1.round(4), k2.round(4))
    [0.2528] [0.1187]
    """
    t = np.atleast_1d(real_array("t", t, low=-1e300, high=1e300))
    if t.ndim != 1:
        raise ParameterError(f"t must be a 1-D array of nodes (got shape {t.shape})")
    delta = real_scalar("delta", delta, low=-1e300, high=1e300)
    sigma = real_scalar("sigma", sigma, low=0, high=SIGMA_MAX)
    return _bump_expectations(t, delta, sigma, _refine(refine))


def _bump_expectations(t: np.ndarray, delta: float, sigma: float, refine: int,
                       density=None) -> tuple[np.ndarray, np.ndarray]:
    """``E[e^(kY) exp(-e^Y)]``, k = 1, 2; ``density``: ``_y_density`` of ``t - delta`` when the caller has it."""
    mu = t - delta
    with np.errstate(over="ignore"):
        if sigma <= _SWITCH:
            z, w = _gauss_hermite(64 * refine)
            check_memory("t, delta, sigma", 8.0 * 3 * w.size * t.size)     # three (y nodes, t nodes) grids
            y = sigma * z[:, None] + mu[None, :]
            e = np.exp(y)
            return w @ np.exp(y - e), w @ np.exp(2.0 * y - e)
        yA, wA, yB, wB = _y_rule(refine)
        y, w = np.concatenate([yA, yB]), np.concatenate([wA, wB])
        check_memory("t, delta, sigma", 8.0 * 4 * w.size * t.size)         # four (y nodes, t nodes) grids
        e = np.exp(y)
        density = _y_density(mu, sigma, refine) if density is None else density
        s2 = sigma * sigma
        # left of _Y_LO: e^Y exp(-e^Y) = e^Y (1 + O(e^Y)), a lognormal partial expectation in closed form
        tail1 = np.exp(mu + s2 / 2.0 + log_ndtr((_Y_LO - mu - s2) / sigma))
        tail2 = np.exp(2.0 * mu + 2.0 * s2 + log_ndtr((_Y_LO - mu - 2.0 * s2) / sigma))
        return (w * np.exp(y - e)) @ density + tail1, (w * np.exp(2.0 * y - e)) @ density + tail2


def _t_nodes(delta: float, sigma: float, m: float, refine: int, right: bool) -> tuple[np.ndarray, np.ndarray]:
    """t nodes: region A (left extension), B = [-45, 5], and C (right extension) if ``right``: composite
    12-node Gauss-Legendre, panels of about ``width`` in A and C (an empty region has no panel, so no node)."""
    width = max(1.0, sigma / 4.0)
    t_a = _T_LO + min(0.0, delta - _TAIL_Z * sigma - np.log(max(m, 1.0)))
    t_c = _T_HI + max(0.0, _TAIL_Z * sigma - delta) if right else _T_HI
    regions = [(t_a, _T_LO, int(np.ceil((_T_LO - t_a) / width)) * refine), (_T_LO, _T_HI, 50 * refine),
               (_T_HI, t_c, int(np.ceil((t_c - _T_HI) / width)) * refine)]
    # the (y, t) grids of the bump expectations and one_minus_phi: <= 4 x 16 x 21 refine y nodes per t node
    check_memory("delta, sigma", 8.0 * 12 * sum(panels for *_, panels in regions) * 4 * 16 * 21 * refine)
    parts = [_gauss_legendre(float(lo), float(hi), panels, 12) for lo, hi, panels in regions]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _powers(q: np.ndarray, m: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``phi^m``, ``phi^(m-1)`` and ``1 - phi^m`` from ``q = 1 - phi`` (cancellation-free)."""
    q = np.clip(q, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        lq = np.log1p(-q)
        lm = m * lq
        lm1 = np.where(m == 1.0, 0.0, (m - 1.0) * lq)
    return np.exp(lm), np.exp(lm1), -np.expm1(lm)


@dataclass(frozen=True)
class RowMoments:
    """Exact means of one row's statistics at one (Delta, sigma, m).

    Attributes
    ----------
    mass : ``E p_0`` (mean target mass M).
    entropy : ``E H`` (row entropy, nats).
    distractor_entropy : ``E H_d`` (entropy of the distractors among themselves).
    ipr : ``E sum_i p_i^2`` (inverse participation ratio, target included).
    log_partition : ``E ln(1 + S)``.
    """

    mass: float
    entropy: float
    distractor_entropy: float
    ipr: float
    log_partition: float


def row_moments_given(delta: float, sigma: float, m: float, *, refine: int = 1,
                      distractor: bool = True) -> RowMoments:
    """Exact :class:`RowMoments` for a target with gap ``delta`` against ``m`` N(0, sigma^2) distractors.

    ``delta`` real, ``0 <= sigma <= SIGMA_MAX`` (the quadrature's accurate range), ``m >= 1`` (a real count is
    allowed: the formulas are analytic in m). ``distractor=False`` skips the distractor-only entropy (NaN).

    Examples
    --------
    Exact row moments for one gap against 10 distractors:

    >>> import theorylab.psa as psa
    >>> mom = psa.row_moments_given(2.0, 1.0, 10)
    >>> round(mom.mass, 4), round(mom.entropy, 4)
    (0.3307, 1.8992)
    """
    delta = real_scalar("delta", delta)
    sigma = real_scalar("sigma", sigma, low=0, high=SIGMA_MAX)
    m = real_scalar("m", m, low=1)
    refine = _refine(refine)
    hd = _distractor_entropy(sigma, m, refine) if distractor else float("nan")
    return _row_moments(delta, sigma, m, refine, hd)


def _row_moments(delta: float, sigma: float, m: float, refine: int, hd: float, mass: bool = True) -> RowMoments:
    t, w = _t_nodes(delta, sigma, m, refine, right=False)
    density = _y_density(t - delta, sigma, refine) if sigma > _SWITCH else None      # shared by the two rules
    pm, pm1, one_minus_pm = _powers(_one_minus_phi(t, delta, sigma, refine, density), m)
    k1, k2 = _bump_expectations(t, delta, sigma, refine, density)
    with np.errstate(over="ignore"):
        cut = np.exp(-np.exp(t))
        square = np.exp(2.0 * t - np.exp(t))
    log_z = float(w @ (cut * one_minus_pm))
    mean_y = m * float(w @ (cut * (sigma * sigma * (k1 - k2) - delta * k1) * pm1))
    ipr = float(w @ (square * pm)) + m * float(w @ (cut * k2 * pm1))
    return RowMoments(_mass_given(delta, sigma, m, refine) if mass else float("nan"), log_z - mean_y, hd, ipr, log_z)


@lru_cache(maxsize=4096)
def _distractor_entropy(sigma: float, m: float, refine: int) -> float:
    """``E[ln S - sum x e^x / S]`` for m i.i.d. N(0, sigma^2) (shift invariant: Delta = 0)."""
    if m == 1.0:
        return 0.0
    t, w = _t_nodes(0.0, sigma, m, refine, right=True)
    density = _y_density(t, sigma, refine) if sigma > _SWITCH else None
    pm, pm1, one_minus_pm = _powers(_one_minus_phi(t, 0.0, sigma, refine, density), m)
    k1, k2 = _bump_expectations(t, 0.0, sigma, refine, density)
    log_s = float(w @ (one_minus_pm + np.expm1(-np.exp(np.minimum(t, 700.0)))))
    mean_x = m * sigma * sigma * float(w @ ((k1 - k2) * pm1))
    return log_s - mean_x


@dataclass(frozen=True)
class RowStatistics:
    """Exact row statistics of the reduced model along g (no sampling noise).

    Attributes
    ----------
    variant, dk, T, sigma0 : the model.
    gamma : couplings g.
    mass : M(g) = E p_0 (the same numbers as :func:`theorylab.psa.quadrature.exact_mass`).
    entropy : E H(g), the row entropy (nats; ``ln(T - 1)`` at g = 0 for t4-only).
    distractor_entropy : E H_d(g), the distractors' entropy among themselves.
    ipr : E sum_i p_i^2(g).
    participation : ``1 / ipr`` (our convention for the participation ratio: reciprocal of the mean).

    Notes
    -----
    :meth:`rows` and :meth:`to_frame` give the table, one row per coupling g.
    """

    variant: str
    dk: float
    T: int
    sigma0: float
    gamma: np.ndarray
    mass: np.ndarray
    entropy: np.ndarray
    distractor_entropy: np.ndarray
    ipr: np.ndarray

    @property
    def participation(self) -> np.ndarray:
        return 1.0 / self.ipr

    def rows(self) -> list[dict]:
        """One dict per coupling g: variant, dk, T, sigma0, gamma, mass, entropy, distractor_entropy, ipr,
        participation."""
        return grid_rows({"gamma": self.gamma, "mass": self.mass, "entropy": self.entropy,
                          "distractor_entropy": self.distractor_entropy, "ipr": self.ipr,
                          "participation": self.participation},
                         {"variant": self.variant, "dk": self.dk, "T": self.T, "sigma0": self.sigma0})

    def to_frame(self):
        """:meth:`rows` as a ``pandas.DataFrame`` (pandas: the optional extra ``theorylab[pandas]``)."""
        return to_frame(self.rows())


STATISTICS: tuple[str, ...] = ("mass", "entropy", "distractor_entropy", "ipr")
"""Names of the row statistics (fields of :class:`RowStatistics`)."""


def _grid(variant, dk, T, gammas, refine):
    """Validated ``(model, g, dk, m, refine)`` of one variant along g (the boundary of this module's functions)."""
    model = resolve_model(variant)
    g = real_array("gamma", gammas, low=0, high=1e3)
    dk = single("dk", _head_width(dk))
    T = integer_context_length(T)
    refine = _refine(refine)
    if isinstance(variant, ScoreModel):        # a user's polynomials: refuse an overflowing gap or variance, once
        model.gap(g, dk), model.variance(g)
    _sigma_along(model, g)                     # refuse a sigma(g) beyond the quadrature's range
    return model, g, dk, float(_distractors(T)), refine


def _sigma_along(model: ScoreModel, g: np.ndarray) -> np.ndarray:
    """``sigma(g)`` flattened; :class:`ParameterError` beyond :data:`SIGMA_MAX`."""
    sigma = np.sqrt(model._variance(g)).ravel()
    if sigma.size and not sigma.max() <= SIGMA_MAX:
        raise ParameterError(f"gamma too large for the row-statistics quadrature: sigma(g) = {sigma.max():.3g} exceeds "
                             f"{SIGMA_MAX:g} (at g = {g.ravel()[np.argmax(sigma)]:g})")
    return sigma


def exact_row_stats(variant, dk: float, T: int, gammas, sigma0: float = 0.0, *, refine: int = 1,
                    distractor: bool = True) -> RowStatistics:
    """Exact mean row statistics M, E H, E H_d, E sum p^2 of the reduced model along g (PSA §6.6-6.8).

    Parameters
    ----------
    variant : score-model variant: a name of :data:`~theorylab.psa.scoremodel.VARIANTS` or a
        :class:`~theorylab.psa.scoremodel.ScoreModel` (:func:`~theorylab.psa.scoremodel.resolve_model`).
    dk : head width (> 0).  T : context length (an integer >= 3).
    gammas : couplings g >= 0.  sigma0 : target-noise standard deviation (>= 0).
    refine : node multiplier (1 = default accuracy).
    distractor : also compute the distractor-only entropy (it does not depend on Delta or sigma0).

    Returns
    -------
    RowStatistics, arrays of the shape of ``gammas``; its ``variant`` is the model's name.

    Examples
    --------
    Exact mass and entropy of t4-only at two couplings; :meth:`to_frame` gives the table:

    >>> import theorylab.psa as psa
    >>> rs = psa.exact_row_stats('t4-only', 64, 64, [0.5, 1.0])
    >>> print(rs.mass.round(4), rs.entropy.round(4))
    [0.0955 0.8738] [3.9373 0.6669]
    """
    model, g, dk, m, refine = _grid(variant, dk, T, gammas, refine)
    sigma0 = real_scalar("sigma0", sigma0, low=0)
    delta, sigma = model._gap(g, dk).ravel(), _sigma_along(model, g)
    z, wz = _target_rule(sigma0)                       # the target-noise nodes of exact_mass
    out = np.empty((delta.size, 4))
    for i, (d, s) in enumerate(zip(delta, sigma)):
        hd = _distractor_entropy(float(s), m, refine) if distractor else float("nan")
        rows = [_row_moments(float(d + sigma0 * zi), float(s), m, refine, hd) for zi in z]
        out[i] = [sum(wi * getattr(r, k) for r, wi in zip(rows, wz)) for k in STATISTICS]
    return scalar_fields(RowStatistics(model.variant, dk, int(m + 2), sigma0, g,
                                       *(out[:, j].reshape(g.shape) for j in range(4))))


@scalar_output
def exact_entropy(variant, dk: float, T: int, gammas, *, refine: int = 1) -> np.ndarray:
    """E H(g) alone (the row entropy of :func:`exact_row_stats`, without the other statistics).

    Examples
    --------
    E H(g) of t4-only (ln(T - 1) at g = 0):

    >>> import theorylab.psa as psa
    >>> print(psa.exact_entropy('t4-only', 64, 64, [0.0, 1.0]).round(4))
    [4.1431 0.6669]
    """
    model, g, dk, m, refine = _grid(variant, dk, T, gammas, refine)
    return _exact_entropy(model, g, dk, m, refine)


def _exact_entropy(model: ScoreModel, g: np.ndarray, dk: float, m: float, refine: int = 1) -> np.ndarray:
    """Kernel of :func:`exact_entropy` (``g`` in [0, 1e3] with sigma(g) <= SIGMA_MAX; validated by the caller)."""
    delta, sigma = model._gap(g, dk).ravel(), np.sqrt(model._variance(g)).ravel()
    return np.array([_row_moments(float(d), float(s), m, refine, float("nan"), mass=False).entropy
                     for d, s in zip(delta, sigma)]).reshape(g.shape)


@scalar_output
def exact_distractor_entropy(variant, dk: float, T: int, gammas, *, refine: int = 1) -> np.ndarray:
    """E H_d(g) alone (the distractor-only entropy; no dependence on the gap, dk or target noise).

    Same quadrature as :func:`exact_row_stats`'s ``distractor_entropy``; ``dk`` is validated but unused.

    Examples
    --------
    E H_d(g) of t4-only:

    >>> import theorylab.psa as psa
    >>> print(psa.exact_distractor_entropy('t4-only', 64, 64, [0.0, 1.0]).round(4))
    [4.1271 2.6181]
    """
    model, g, _, m, refine = _grid(variant, dk, T, gammas, refine)
    return _exact_distractor_entropy(model, g, m, refine)


def _exact_distractor_entropy(model: ScoreModel, g: np.ndarray, m: float, refine: int = 1) -> np.ndarray:
    """Kernel of :func:`exact_distractor_entropy` (validated by the caller)."""
    sigma = np.sqrt(model._variance(g)).ravel()
    return np.array([_distractor_entropy(float(s), m, refine) for s in sigma]).reshape(g.shape)


__all__ = ["RowMoments", "RowStatistics", "STATISTICS", "bump_expectations", "exact_row_stats",
           "row_moments_given", "exact_entropy", "exact_distractor_entropy", "SIGMA_MAX"]

"""Critical couplings of the PSA reduced score model (PSA §6.6-6.8, §10; docs/conventions.md).

The *annealed crossing* puts the target's softmax mass at one half under the annealed
partition function of ``m = T - 2`` log-normal distractors::

    Delta(g, dk) = L + sigma^2(g) / 2,        L = ln(T - 1),

and gamma_c is its smallest positive root. Every function here broadcasts over
arrays of ``dk`` and ``T`` and returns NaN where no root exists ("no root" is a
result, not an error); scalar ``dk`` and ``T`` give Python floats, arrays give arrays.

* :func:`annealed_gamma_c` -- closed forms for ``t4-only``, ``key-only`` and
  ``symmetric-key-convention``; a polished polynomial root for ``t3-inclusive``.
* the generic smallest positive root of any variant's crossing polynomial (an independent route
  to the closed forms) is :func:`theorylab.psa.crossing.crossing_root`.
* :func:`gamma_c` -- the law each variant is quoted with: the t4-only *two-branch law*
  (mean-field root for ``dk >= 8L``, condensed branch ``c (L/2)^(1/4)`` below),
  the annealed root for the others.
* Thresholds: :func:`crossover_dk` (``8L``, t4-only), :func:`key_only_threshold` (``4L + 2``).
* :func:`argmax_probability` -- ``P(target is the argmax) = Phi(Delta/sigma)^m`` and its large-g
  limit; :func:`argmax_plateau` is its t4-only case ``Phi(sqrt(dk)/2)^m``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr

from theorylab._results import grid_rows, scalar_fields, scalar_output, to_frame
from theorylab._moved import names_getattr
from theorylab.errors import finite_result, real_array, real_scalar
from theorylab.resources import Cost, count
from theorylab.psa.crossing import _crossing_root, _grid
from theorylab.psa.scoremodel import (ScoreModel, _context_length, _distractors, _log_count, log_count,
                                      resolve_model, score_model)

__getattr__ = names_getattr(__name__)     # crossing_root & co. moved to theorylab.psa.crossing (one release)

__all__ = ["CONDENSATION_C", "CONDENSATION_C_PAPER", "CONDENSATION_OBSERVABLE", "CriticalCoupling", "gamma_c",
           "annealed_gamma_c", "condensed_gamma_c", "crossover_dk", "key_only_threshold", "freezing_coupling", "t4_band",
           "t4_asymptote", "t3_asymptote", "t4_above_one_interval", "argmax_probability", "argmax_plateau", "gamma_c_cost"]

CONDENSATION_C_PAPER = 0.741
"""The paper's calibrated condensation constant c (0.741 +/- 0.015, PSA §6.7)."""

CONDENSATION_OBSERVABLE = "entropy-peak"
"""The observable CONDENSATION_C is calibrated with (:mod:`theorylab.psa.observables`): the g of the
steepest fall of the attention row's mean entropy, argmax over g of ``-dE[H]/d(g^2)``."""

CONDENSATION_C = 0.748
"""Default c of the condensed branch: theorylab's own calibration (docs/simulation.md, finding (d)).

Observable: :data:`CONDENSATION_OBSERVABLE` (``entropy-peak``); per point ``c_i = g_peak / (L/2)^(1/4)``,
averaged over nine condensed points (``theorylab.psa.compare.CONDENSED_GRID``: dk in {8, 16, 32} x
T in {64, 512, 2048}) by exact quadrature: c = 0.7479, spread across points 0.0143 (the paper:
0.741 +/- 0.015); the Monte Carlo confirms it (``theorylab.psa.compare.calibrate_condensation_c``).
The paper's 0.741 stays available as CONDENSATION_C_PAPER."""


@scalar_output
def crossover_dk(T) -> np.ndarray:
    """``d*_k = 8L``: below it the t4-only annealed crossing has no real root (PSA §6.7).

    Examples
    --------
    >>> from theorylab.psa import crossover_dk
    >>> round(crossover_dk(512), 1)           # d*_k = 8 ln(T - 1), PSA §6.7
    49.9
    """
    return 8.0 * log_count(T)


@scalar_output
def key_only_threshold(T) -> np.ndarray:
    """``dk = 4L + 2``: the key-only annealed crossing has a real root iff ``dk >= 4L + 2`` (PSA §6.8).

    The key-only crossing ``g^2 - sqrt(dk) g + L + 1/2 = 0`` (gap ``g sqrt(dk)``, variance
    ``1 + 2g^2``: the base term T1 kept) has discriminant ``dk - 4L - 2`` with ``L = ln(T - 1)``.
    Example: T = 512 gives 26.94.

    Examples
    --------
    The key-only crossing needs dk >= 4L + 2:

    >>> import theorylab.psa as psa
    >>> round(float(psa.key_only_threshold(64)), 4)
    18.5725
    """
    return 4.0 * log_count(T) + 2.0


@scalar_output
def freezing_coupling(T) -> np.ndarray:
    """``g_f = (L/2)^(1/4)``: where the T4-only distractor sigma reaches sqrt(2L) (REM freezing).

    Examples
    --------
    The REM freezing coupling at T = 64:

    >>> import theorylab.psa as psa
    >>> round(float(psa.freezing_coupling(64)), 4)
    1.1997
    """
    return _freezing_coupling(_context_length(T))


def _freezing_coupling(T: np.ndarray) -> np.ndarray:
    """Kernel of :func:`freezing_coupling` (``T`` validated)."""
    return (_log_count(T) / 2.0) ** 0.25


def _quadratic_smaller_root(b: np.ndarray, c: np.ndarray, a: float) -> np.ndarray:
    """Smaller root of ``a x^2 - b x + c = 0`` (b, c > 0), NaN if complex; cancellation-free."""
    disc = b * b - 4.0 * a * c
    with np.errstate(invalid="ignore"):
        x = 2.0 * c / (b + np.sqrt(disc))
    return np.where(disc >= 0, x, np.nan)


@scalar_output
def t4_band(dk, T) -> tuple[np.ndarray, np.ndarray]:
    """Both annealed roots of the t4-only model: the elevated competition band (PSA §6.7).

    With ``x = g^2`` the crossing is ``2x^2 - sqrt(dk) x + L = 0``, so
    ``g^2 = (sqrt(dk) -/+ sqrt(dk - 8L)) / 4``; NaN where ``dk < 8L``.
    Example: (dk, T) = (128, 512) gives [0.787, 2.245].

    Examples
    --------
    >>> from theorylab.psa import t4_band
    >>> [round(g, 3) for g in t4_band(128, 512)]     # PSA §6.7
    [0.787, 2.245]
    """
    return _t4_band(*_grid(dk, T))


def _t4_band(dk: np.ndarray, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Kernel of :func:`t4_band` (a validated, broadcast grid)."""
    L = _log_count(T)
    lower = np.sqrt(_quadratic_smaller_root(np.sqrt(dk), L, 2.0))
    with np.errstate(invalid="ignore"):
        upper = np.sqrt((np.sqrt(dk) + np.sqrt(dk - 8.0 * L)) / 4.0)
    return lower, upper


@scalar_output
def annealed_gamma_c(variant: str, dk, T) -> np.ndarray:
    """Smallest positive root of ``Delta = L + sigma^2/2`` for ``variant`` (NaN if none).

    Closed forms (docs/conventions.md):

    * t4-only: ``gamma_c^2 = (sqrt(dk) - sqrt(dk - 8L)) / 4``, real iff ``dk >= 8L``;
    * key-only: ``g^2 - sqrt(dk) g + L + 1/2 = 0``, real iff ``dk >= 4L + 2``;
    * symmetric-key-convention: ``gamma_c^2 = (sqrt(dk) - sqrt(dk - 8L - 4)) / 4``;
    * t3-inclusive: no closed form; :func:`crossing_root`.

    Examples
    --------
    PSA §6.7 quotes 1.030 at (dk, T) = (64, 512); below ``8L`` there is no root:

    >>> from theorylab.psa import annealed_gamma_c
    >>> round(annealed_gamma_c("t4-only", 64, 512), 3)
    1.03
    >>> annealed_gamma_c("t4-only", [32, 64], 512).round(3)
    array([ nan, 1.03])
    """
    model = score_model(variant)
    return _annealed_gamma_c(model, *_grid(dk, T))


def _annealed_gamma_c(model: ScoreModel, dk: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Kernel of :func:`annealed_gamma_c`: a library model (closed form by its name), a validated grid."""
    variant = model.variant
    L = _log_count(T)
    if variant == "t4-only":
        return np.sqrt(_quadratic_smaller_root(np.sqrt(dk), L, 2.0))
    if variant == "symmetric-key-convention":
        return np.sqrt(_quadratic_smaller_root(np.sqrt(dk), L + 0.5, 2.0))
    if variant == "key-only":
        return _quadratic_smaller_root(np.sqrt(dk), L + 0.5, 1.0)
    return _crossing_root(model, dk, T, 4)


@scalar_output
def condensed_gamma_c(T, c: float = CONDENSATION_C) -> np.ndarray:
    """Condensed-branch critical coupling ``c (L/2)^(1/4)`` for ``dk < 8L`` (PSA §6.7).

    Our reading of the paper: the transition sits at REM freezing times the
    condensation constant ``c`` (default :data:`CONDENSATION_C`).

    Examples
    --------
    >>> from theorylab.psa import condensed_gamma_c
    >>> round(condensed_gamma_c(512), 3)      # c = 0.748 times (L/2)^(1/4), PSA §6.7
    0.994
    """
    c = real_scalar("c", c, low=0, low_inclusive=False)
    return finite_result("c", _condensed_gamma_c(_context_length(T), c))


def _condensed_gamma_c(T: np.ndarray, c: float) -> np.ndarray:
    """Kernel of :func:`condensed_gamma_c` (``T`` validated, ``c > 0``; the caller checks the result is finite)."""
    return c * _freezing_coupling(T)


@dataclass(frozen=True)
class CriticalCoupling:
    """The quoted law for one variant over a broadcast (dk, T) grid.

    Attributes
    ----------
    variant : model variant.
    dk, T, L : the grid and its log-count ``L = ln(T - 1)``.
    gamma_c : critical coupling (NaN where no root exists).
    branch : ``"mean-field"``, ``"condensed"`` or ``"none"`` per point.
    band_upper : t4-only upper annealed root (NaN elsewhere and for other variants).

    Notes
    -----
    Scalar ``dk`` and ``T`` give Python scalars (``float``; ``branch`` a ``str``), arrays give arrays.
    :meth:`rows` and :meth:`to_frame` give the table, one row per grid point.
    """

    variant: str
    dk: np.ndarray | float
    T: np.ndarray | float
    L: np.ndarray | float
    gamma_c: np.ndarray | float
    branch: np.ndarray | str
    band_upper: np.ndarray | float

    def rows(self) -> list[dict]:
        """One dict per grid point (C order): variant, dk, T, L, gamma_c, branch, band_upper (t4-only)."""
        columns = {"dk": self.dk, "T": self.T, "L": self.L, "gamma_c": self.gamma_c, "branch": self.branch}
        if self.variant == "t4-only":
            columns["band_upper"] = self.band_upper
        return grid_rows(columns, {"variant": self.variant})

    def to_frame(self):
        """:meth:`rows` as a ``pandas.DataFrame`` (pandas: the optional extra ``theorylab[pandas]``)."""
        return to_frame(self.rows())


def gamma_c(variant: str, dk, T, c: float = CONDENSATION_C) -> CriticalCoupling:
    """Predicted critical coupling of ``variant`` on the (dk, T) grid.

    t4-only follows the two-branch law: the mean-field root for ``dk >= 8L`` and the
    condensed branch ``c (L/2)^(1/4)`` for ``dk < 8L``. The other variants report their
    annealed root, or ``branch = "none"`` where it does not exist.

    Examples
    --------
    The two-branch law at the paper's points (PSA §6.7): mean-field above ``d*_k = 8L``, condensed below.

    >>> from theorylab.psa import gamma_c
    >>> law = gamma_c("t4-only", 128, 512)
    >>> round(law.gamma_c, 3), law.branch
    (0.787, 'mean-field')
    >>> grid = gamma_c("t4-only", [32, 128], 512)
    >>> [(r["dk"], round(r["gamma_c"], 3), r["branch"]) for r in grid.rows()]
    [(32.0, 0.994, 'condensed'), (128.0, 0.787, 'mean-field')]
    """
    model = score_model(variant)
    dk, T = _grid(dk, T)
    c = real_scalar("c", c, low=0, low_inclusive=False)
    return scalar_fields(_gamma_c(model, dk, T, c))


def _gamma_c(model: ScoreModel, dk: np.ndarray, T: np.ndarray, c: float) -> CriticalCoupling:
    """Kernel of :func:`gamma_c`: a library model, a validated broadcast grid, ``c > 0``."""
    variant = model.variant
    L = _log_count(T)
    root = _annealed_gamma_c(model, dk, T)
    branch = np.where(np.isnan(root), "none", "mean-field").astype(object)
    upper = np.full(dk.shape, np.nan)
    if variant == "t4-only":
        upper = _t4_band(dk, T)[1]
        condensed = np.isnan(root)
        root = np.where(condensed, finite_result("c", _condensed_gamma_c(T, c)), root)
        branch = np.where(condensed, "condensed", "mean-field").astype(object)
    return CriticalCoupling(variant, dk, T, L, root, branch, upper)


GAMMA_C_SECONDS = 1.5e-5
"""Seconds per grid point of :func:`gamma_c` for the slowest variant (t3-inclusive's root finder;
measured on a shared 2-core machine), plus ``GAMMA_C_CALL_SECONDS`` per call; ``GAMMA_C_BYTES``
its peak bytes per point."""
GAMMA_C_CALL_SECONDS = 2e-3
GAMMA_C_BYTES = 400.0


def gamma_c_cost(points) -> Cost:
    """Peak memory and run time (upper bound over variants) of :func:`gamma_c` on ``points`` grid points."""
    n = count("points", points)
    return Cost(n * GAMMA_C_BYTES, GAMMA_C_CALL_SECONDS + n * GAMMA_C_SECONDS, f"gamma_c at {n:.3g} points")


@scalar_output
def t4_asymptote(dk, T) -> np.ndarray:
    """Large-dk t4-only asymptote ``gamma_c ~ (L^2/dk)^(1/4)``.

    Examples
    --------
    The large-dk t4-only asymptote:

    >>> import theorylab.psa as psa
    >>> round(float(psa.t4_asymptote(4096, 64)), 4)
    0.2544
    """
    dk, T = _grid(dk, T)
    return np.sqrt(log_count(T)) / dk ** 0.25


@scalar_output
def t3_asymptote(dk, T) -> np.ndarray:
    """Large-dk t3-inclusive asymptote ``gamma_c ~ L/sqrt(dk)``.

    Examples
    --------
    The large-dk t3-inclusive asymptote:

    >>> import theorylab.psa as psa
    >>> round(float(psa.t3_asymptote(4096, 64)), 4)
    0.0647
    """
    dk, T = _grid(dk, T)
    return log_count(T) / np.sqrt(dk)


@scalar_output
def t4_above_one_interval(T) -> tuple[np.ndarray, np.ndarray]:
    """The dk interval ``[8L, (L+2)^2)`` on which the t4-only gamma_c exceeds 1 (PSA §10).

    gamma_c > 1 needs the parabola's vertex ``sqrt(dk)/4`` above 1 (dk > 16) as well, so the
    interval is ``[max(8L, 16), (L+2)^2)``: the paper's form for ``L >= 2`` (T >= e^2 + 1) and
    empty (lower >= upper) for ``L < 2``, where gamma_c < 1 for every dk.

    Examples
    --------
    The dk interval on which t4-only's gamma_c exceeds 1 at T = 64:

    >>> import theorylab.psa as psa
    >>> lo, hi = psa.t4_above_one_interval(64)
    >>> round(float(lo), 3), round(float(hi), 3)
    (33.145, 37.738)
    """
    L = log_count(T)
    return np.maximum(8.0 * L, 16.0), (L + 2.0) ** 2


@scalar_output
def argmax_probability(variant, dk, T, g=None) -> np.ndarray:
    """``P(noiseless target is the argmax) = Phi(Delta/sigma)^m``, m = T - 2 (PSA §6.7).

    The target's score sits ``Delta(g, dk)`` above ``m`` independent Gaussian distractors of
    standard deviation ``sigma(g)``, so it beats all of them with probability
    ``Phi(Delta/sigma)^m``. ``g=None`` gives the large-g limit, where only the leading powers
    count: ``Delta/sigma -> gap_lead sqrt(dk) / sqrt(var_lead)`` when ``deg var = 2 deg gap``
    (every variant; +inf or 0 otherwise). For t4-only ``Delta/sigma = sqrt(dk)/2`` at every g,
    the argmax plateau :func:`argmax_plateau`.

    Parameters
    ----------
    variant : a name of :data:`~theorylab.psa.scoremodel.VARIANTS`, or a :class:`ScoreModel`
        (:func:`~theorylab.psa.scoremodel.resolve_model`: e.g. a model that is not the paper's).
    dk, T : head width (> 0) and context length (>= 3), broadcast.
    g : coupling(s) > 0, broadcast with dk and T; None for the large-g limit.

    Computed as ``exp(m log Phi(r))`` so that it stays accurate for large T.

    Examples
    --------
    P(target is the argmax) at the large-g limit (PSA §6.7):

    >>> import theorylab.psa as psa
    >>> round(float(psa.argmax_probability('t4-only', 64, 64)), 4)
    0.998
    """
    model = resolve_model(variant)
    dk, T = _grid(dk, T)
    if g is not None:
        g = real_array("g", g, low=0, low_inclusive=False)
    return _argmax_probability(model, dk, T, g)


def _argmax_probability(model: ScoreModel, dk: np.ndarray, T: np.ndarray, g) -> np.ndarray:
    """Kernel of :func:`argmax_probability` (a validated grid; ``g`` a float array > 0 or None)."""
    r = np.sqrt(dk) * _leading_snr(model) if g is None else _snr(model, g, dk)
    return np.exp(_distractors(T) * log_ndtr(r))


_G_PLAIN = 2.0 ** 100
"""Couplings in [2^-100, 2^100] take the plain quotient Delta/sigma (no power of g over- or underflows)."""


def _snr(model: ScoreModel, g: np.ndarray, dk: np.ndarray) -> np.ndarray:
    """``Delta/sigma`` at couplings g > 0: the plain quotient of :meth:`ScoreModel.gap` and
    :meth:`ScoreModel.variance` on [2^-100, 2^100]; outside, :func:`_factored_snr` (same value,
    no overflow to inf/inf = NaN at g = 1e200, no underflow to 0/0 at g = 1e-200)."""
    plain = (g >= 1.0 / _G_PLAIN) & (g <= _G_PLAIN)
    g_in, g_out = np.where(plain, g, 1.0), np.where(plain, 1.0, g)
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = model._gap(g_in, dk) / np.sqrt(model._variance(g_in))
        outside = np.sqrt(dk) * _factored_snr(model, g_out)
    return np.where(plain, inside, outside)


def _factored_snr(model: ScoreModel, g: np.ndarray) -> np.ndarray:
    """``Delta / (sigma sqrt(dk))`` with the dominant power of g factored out of each polynomial:
    ``P(g) = g^n sum_k p_k g^(k-n)`` with n the degree (g > 1) or the lowest power (g < 1)."""
    gap = np.trim_zeros(np.asarray(model.gap_poly, float), "b")
    var = np.trim_zeros(np.asarray(model.var_poly, float), "b")
    if len(gap) == 0:
        return np.zeros_like(g)

    def factored(c, big):
        lead = len(c) - 1 if big else int(np.flatnonzero(c)[0])
        rest = c[lead::-1] if big else c[lead:]                   # in powers of 1/g (big) or of g
        return lead, np.polynomial.polynomial.polyval(np.where(big, 1.0 / g, g), rest)

    big = g > 1
    out = np.empty_like(g)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        for side in (True, False):
            (p, P), (q, Q) = factored(gap, side), factored(var, side)
            out = np.where(big == side, g ** (p - q / 2.0) * P / np.sqrt(Q), out)
    return out


def _leading_snr(model: ScoreModel) -> float:
    """``lim_{g->inf} Delta / (sigma sqrt(dk))`` from the leading coefficients of the model."""
    gap = np.trim_zeros(np.asarray(model.gap_poly, float), "b")
    var = np.trim_zeros(np.asarray(model.var_poly, float), "b")
    p, q = len(gap) - 1, len(var) - 1                            # a zero gap: p = -1 < q / 2, limit 0
    if 2 * p > q:
        return float(np.copysign(np.inf, gap[-1]))
    return float(gap[-1] / np.sqrt(var[-1])) if 2 * p == q else 0.0


@scalar_output
def argmax_plateau(dk, T) -> np.ndarray:
    """Large-g limit of the t4-only model: ``P(target is argmax) = Phi(sqrt(dk)/2)^m``, m = T - 2.

    The t4-only case of :func:`argmax_probability` (its SNR is ``sqrt(dk)/2`` at every g).

    Examples
    --------
    >>> from theorylab.psa import argmax_plateau
    >>> round(argmax_plateau(128, 512), 4)    # Phi(sqrt(128)/2)^510, PSA §6.7
    1.0
    """
    return argmax_probability("t4-only", dk, T)

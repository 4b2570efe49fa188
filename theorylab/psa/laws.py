"""The arithmetic behind figures the PSA paper quotes from its laws and fits (PSA §7.12, §10, A6.5, A11.1,
A31.9, A34.3): one function per formula.

* :func:`band_gamma_c` -- the two-branch law's critical coupling at both ends and at the midpoint of a
  context-length band (A34.3's scored-mask band at dk = 16);
* :func:`power_law_fit` -- ``y = A / x^alpha`` by least squares in ``y`` (the depth law, A6.5 / A11.1);
  :func:`loglog_fit` -- the same law by least squares in ``log y``;
* :func:`power_law`, :func:`implied_exponent` -- a law's prediction and the exponent one observation
  implies (A31.9's out-of-sample test);
* :func:`large_dk_exponent` -- the fitted log-log slope of a variant's gamma_c over head widths (§10);
  :func:`gap_fraction` -- the share of a gap an improved value closes (§10's "a quarter");
* :func:`chance_multiple` -- accuracy over the chance level ``1/n`` (§7.12).

Scalar input gives Python scalars, arrays give arrays.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from theorylab._results import scalar_output
from theorylab.errors import ParameterError, finite_result, real_array, real_scalar
from theorylab.psa.scoremodel import head_width, score_model
from theorylab.psa.transition import CONDENSATION_C, _gamma_c

__all__ = ["CouplingBand", "band_gamma_c", "PowerLawFit", "power_law_fit", "loglog_fit", "power_law",
           "implied_exponent", "large_dk_exponent", "gap_fraction", "chance_multiple"]


@dataclass(frozen=True)
class CouplingBand:
    """The t4-only two-branch law over a context-length band ``[T_low, T_high]`` at one head width.

    Attributes
    ----------
    low, high : gamma_c at ``T_low`` and at ``T_high``.
    midpoint : gamma_c at the band's midpoint context length ``T_mid = (T_low + T_high) / 2``.
    T_mid : that midpoint.
    branch : the law's branch at the three points (``"condensed"`` below ``d*_k = 8L``).
    """

    low: float
    high: float
    midpoint: float
    T_mid: float
    branch: tuple[str, str, str]


def band_gamma_c(dk, T_low, T_high, c: float = CONDENSATION_C) -> CouplingBand:
    """The t4-only two-branch law's gamma_c at both ends and the midpoint of a context-length band (PSA A34.3).

    Parameters
    ----------
    dk : head width (> 0).
    T_low, T_high : the band's context lengths (``3 <= T_low <= T_high``), e.g. the effective context
        lengths a scored mask spans.
    c : condensation constant of the condensed branch (> 0); the paper's is
        :data:`~theorylab.psa.transition.CONDENSATION_C_PAPER` (0.741).

    Returns
    -------
    CouplingBand

    Examples
    --------
    §A34.3's scored-mask band at dk = 16, T_eff in [25, 127], with the paper's c = 0.741 (paper: 0.832-0.924,
    analytic midpoint 0.899):

    >>> from theorylab.psa.laws import band_gamma_c
    >>> band = band_gamma_c(16, 25, 127, c=0.741)
    >>> round(band.low, 3), round(band.high, 3), round(band.midpoint, 3), band.T_mid
    (0.832, 0.924, 0.898, 76.0)
    """
    dk = real_scalar("dk", dk, low=0, low_inclusive=False)
    lo, hi = real_scalar("T_low", T_low, low=3), real_scalar("T_high", T_high, low=3)
    if lo > hi:
        raise ParameterError(f"T_low must not exceed T_high (got {lo:g} > {hi:g})")
    c = real_scalar("c", c, low=0, low_inclusive=False)
    T = np.array([lo, hi, (lo + hi) / 2.0])
    law = _gamma_c(score_model("t4-only"), np.full(3, dk), T, c)
    g = np.asarray(law.gamma_c, dtype=float)
    return CouplingBand(float(g[0]), float(g[1]), float(g[2]), float(T[2]), tuple(str(b) for b in law.branch))


@dataclass(frozen=True)
class PowerLawFit:
    """A fitted law ``y = prefactor / x^exponent``.

    Attributes
    ----------
    prefactor, exponent : the fitted A and alpha.
    r_squared : ``1 - SS_res / SS_tot`` in the space the fit minimised (``y`` for :func:`power_law_fit`,
        ``log y`` for :func:`loglog_fit`).
    """

    prefactor: float
    exponent: float
    r_squared: float


def _points(x, y) -> tuple[np.ndarray, np.ndarray]:
    """Validate two equal-length 1-d arrays of > 0 values, at least three points, two distinct x."""
    x = np.atleast_1d(real_array("x", x, low=0, low_inclusive=False))
    y = np.atleast_1d(real_array("y", y, low=0, low_inclusive=False))
    if x.ndim != 1 or x.shape != y.shape:
        raise ParameterError(f"x and y must be 1-d arrays of one length (got shapes {x.shape} and {y.shape})")
    if x.size < 3 or np.ptp(np.log(x)) == 0 or np.ptp(y) == 0:
        raise ParameterError("a power-law fit needs at least three points, two distinct x and two distinct y")
    return x, y


def _broadcast(**arrays) -> list[np.ndarray]:
    """The validated ``arrays`` broadcast to one shape, or ParameterError naming them."""
    try:
        return np.broadcast_arrays(*arrays.values())
    except ValueError:
        shapes = ", ".join(f"{k} {np.shape(v)}" for k, v in arrays.items())
        raise ParameterError(f"{' and '.join(arrays)} must broadcast to one shape (got {shapes})") from None


def _loglog(x: np.ndarray, y: np.ndarray) -> PowerLawFit:
    """Kernel of :func:`loglog_fit` (validated points)."""
    lx, ly = np.log(x), np.log(y)
    slope, intercept = np.polyfit(lx, ly, 1)
    res = ly - (intercept + slope * lx)
    r2 = 1.0 - float(np.sum(res ** 2) / np.sum((ly - ly.mean()) ** 2))
    return PowerLawFit(float(np.exp(intercept)), float(-slope), r2)


def loglog_fit(x, y) -> PowerLawFit:
    """Fit ``y = A / x^alpha`` by ordinary least squares of ``log y`` on ``log x``; R^2 in ``log y``.

    Parameters
    ----------
    x, y : 1-d arrays of one length (>= 3 points) of positive values, two distinct x and two distinct y.

    Returns
    -------
    PowerLawFit

    Examples
    --------
    An exact law is recovered (the depth law's alternative fit, §A6.5, is in :func:`power_law_fit`):

    >>> from theorylab.psa.laws import loglog_fit
    >>> fit = loglog_fit([1, 2, 4, 8], [4.0, 2.0, 1.0, 0.5])
    >>> round(fit.prefactor, 12), round(fit.exponent, 12), round(fit.r_squared, 12)
    (4.0, 1.0, 1.0)
    """
    return _loglog(*_points(x, y))


def power_law_fit(x, y) -> PowerLawFit:
    """Fit ``y = A / x^alpha`` by least squares in ``y`` itself; R^2 = 1 - SS_res/SS_tot in ``y`` (PSA A6.5, A11.1).

    This is the fit that reproduces the paper's depth law gamma*(N) = 4.17 / N^0.73, R^2 = 0.947, from its
    Experiment-17 optima; the log-log fit (:func:`loglog_fit`) of the same points differs. Started from the
    log-log fit and refined by trust-region least squares (``scipy.optimize.least_squares``).

    Parameters
    ----------
    x, y : 1-d arrays of one length (>= 3 points) of positive values, two distinct x and two distinct y.

    Returns
    -------
    PowerLawFit

    Examples
    --------
    The depth law's points (N, gamma*) = (1, 4.0), (2, 3.0), (4, 1.25), (8, 0.75) (§A6.5):

    >>> from theorylab.psa.laws import power_law_fit
    >>> fit = power_law_fit([1, 2, 4, 8], [4.0, 3.0, 1.25, 0.75])
    >>> round(fit.prefactor, 2), round(fit.exponent, 2), round(fit.r_squared, 3)
    (4.17, 0.73, 0.947)
    """
    x, y = _points(x, y)
    start = _loglog(x, y)
    lx = np.log(x)
    sol = least_squares(lambda p: p[0] * np.exp(-p[1] * lx) - y, [start.prefactor, start.exponent],
                        jac=lambda p: np.stack([np.exp(-p[1] * lx), -p[0] * lx * np.exp(-p[1] * lx)], axis=1),
                        xtol=1e-15, ftol=1e-15, gtol=1e-15)
    A, alpha = (float(v) for v in sol.x)
    res = A * np.exp(-alpha * lx) - y
    r2 = 1.0 - float(np.sum(res ** 2) / np.sum((y - y.mean()) ** 2))
    return PowerLawFit(*finite_result("the fitted prefactor and exponent", (A, alpha)), r2)


@scalar_output
def power_law(prefactor, exponent, x) -> np.ndarray:
    """The law's value ``prefactor / x^exponent`` (PSA A31.9; exponent 1 is linear accumulation).

    Parameters
    ----------
    prefactor : A (> 0).
    exponent : alpha (real).
    x : the argument(s) (> 0), e.g. depths N.

    Examples
    --------
    §A31.9: the depth law at N = 12, and linear accumulation (exponent 1; paper: 0.347):

    >>> from theorylab.psa.laws import power_law
    >>> round(power_law(4.17, 0.73, 12), 3), round(power_law(4.17, 1.0, 12), 3)
    (0.68, 0.347)
    """
    A = real_scalar("prefactor", prefactor, low=0, low_inclusive=False)
    alpha = real_scalar("exponent", exponent)
    x = real_array("x", x, low=0, low_inclusive=False)
    return finite_result("the law's value", A * np.exp(-alpha * np.log(x)))


@scalar_output
def implied_exponent(prefactor, y, x) -> np.ndarray:
    """The exponent ``alpha = ln(prefactor / y) / ln x`` for which the law passes through ``(x, y)`` (PSA A31.9).

    Parameters
    ----------
    prefactor : the law's A (> 0).
    y : the observed value(s) (> 0).
    x : where it was observed (> 0, != 1).

    Examples
    --------
    §A31.9: the optimum 0.80 observed at N = 12 under the prefactor 4.17 (paper: alpha = 0.664):

    >>> from theorylab.psa.laws import implied_exponent
    >>> round(implied_exponent(4.17, 0.80, 12), 3)
    0.664
    """
    A = real_scalar("prefactor", prefactor, low=0, low_inclusive=False)
    y = real_array("y", y, low=0, low_inclusive=False)
    x = real_array("x", x, low=0, low_inclusive=False)
    y, x = _broadcast(y=y, x=x)
    if np.any(x == 1.0):
        raise ParameterError("x must differ from 1 (every exponent passes through x = 1)")
    return finite_result("the implied exponent", np.log(A / y) / np.log(x))


def large_dk_exponent(variant: str, T, dk, c: float = CONDENSATION_C) -> float:
    """Fitted exponent of gamma_c in dk: the least-squares slope of ``log gamma_c`` on ``log dk`` (PSA §10).

    Parameters
    ----------
    variant : a score-model variant (``"t4-only"``, ``"t3-inclusive"``, ...); gamma_c is its quoted law
        (:func:`~theorylab.psa.transition.gamma_c`).
    T : context length (>= 3).
    dk : the head widths of the fit (1-d, > 0, at least two distinct); every one must have a gamma_c.
    c : condensation constant of the t4-only condensed branch (> 0).

    Examples
    --------
    At T = 512 over dk = 2^8 .. 2^16 (paper §10: -0.461 with T3, -0.254 T4-only; asymptotes -1/2, -1/4):

    >>> from theorylab.psa.laws import large_dk_exponent
    >>> widths = [2.0 ** k for k in range(8, 17)]
    >>> round(large_dk_exponent("t3-inclusive", 512, widths), 3), round(large_dk_exponent("t4-only", 512, widths), 3)
    (-0.461, -0.254)
    """
    model = score_model(variant)
    T = real_scalar("T", T, low=3)
    dk = np.atleast_1d(head_width(real_array("dk", dk)))
    if dk.ndim != 1 or np.ptp(np.log(dk)) == 0:
        raise ParameterError("dk must be a 1-d array of at least two distinct head widths")
    c = real_scalar("c", c, low=0, low_inclusive=False)
    g = np.asarray(_gamma_c(model, dk, np.full(dk.shape, T), c).gamma_c, dtype=float)
    if np.any(np.isnan(g)):
        raise ParameterError(f"{variant} has no gamma_c at dk = {dk[np.isnan(g)][0]:g}, T = {T:g}")
    return float(np.polyfit(np.log(dk), np.log(g), 1)[0])


@scalar_output
def gap_fraction(baseline, improved, target) -> np.ndarray:
    """The share ``(improved - baseline) / (target - baseline)`` of the gap to ``target`` that ``improved`` closes
    (PSA §10: the T3 channel's share of the exponent gap to trained models).

    Parameters
    ----------
    baseline, improved, target : reals (broadcast); ``target != baseline``.

    Examples
    --------
    §10: exponents -0.254 (T4-only), -0.461 (with T3), -1.13 (trained) -- "roughly a quarter":

    >>> from theorylab.psa.laws import gap_fraction
    >>> round(gap_fraction(-0.254, -0.461, -1.13), 3)
    0.236
    """
    b, i, t = _broadcast(**{n: real_array(n, v) for n, v in (("baseline", baseline), ("improved", improved),
                                                               ("target", target))})
    if np.any(t == b):
        raise ParameterError("target must differ from baseline (there is no gap to close)")
    return finite_result("the gap fraction", (i - b) / (t - b))


@scalar_output
def chance_multiple(accuracy, n) -> np.ndarray:
    """Accuracy as a multiple of the chance level ``1/n``: ``accuracy * n`` (PSA §7.12).

    Parameters
    ----------
    accuracy : accuracies in [0, 1].
    n : number of equally likely answers (>= 1; chance = 1/n), e.g. key-value pairs L.

    Examples
    --------
    §7.12: 0.626 at 24 pairs and 0.511 at 31 (paper: 15x and 16x chance):

    >>> from theorylab.psa.laws import chance_multiple
    >>> [round(float(v), 2) for v in chance_multiple([0.626, 0.511], [24, 31])]
    [15.02, 15.84]
    """
    a = real_array("accuracy", accuracy, low=0.0, high=1.0)
    n = real_array("n", n, low=1.0)
    a, n = _broadcast(accuracy=a, n=n)
    return a * n

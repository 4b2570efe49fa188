"""The annealed crossing polynomial of a reduced score model and its smallest positive root
(PSA §6.6-6.8; docs/conventions.md).

The crossing puts the target's softmax mass at one half under the annealed partition function
of ``m = T - 2`` log-normal distractors: ``Delta(g, dk) - L - sigma^2(g)/2 = 0`` with
``L = ln(T - 1)``, a polynomial in g whose coefficients come from the model's gap and variance
polynomials (:class:`~theorylab.psa.scoremodel.ScoreModel`). This module holds that polynomial
for any model (:func:`crossing_polynomial`), its residual (:func:`crossing_residual`) and the
generic root finder (:func:`crossing_root`: companion-matrix eigenvalues, then safeguarded Newton
steps). :mod:`theorylab.psa.transition` uses the root for ``t3-inclusive`` and holds the closed
forms and the quoted laws; the root is an independent route to those closed forms.

Convention: ``dk > 0`` and ``T >= 3`` broadcast to one grid (:func:`_grid`, shared with
:mod:`theorylab.psa.transition`); NaN where no positive real root exists ("no root" is a result).
"""
from __future__ import annotations

import numpy as np

from theorylab._results import scalar_output
from theorylab.errors import ParameterError, finite_output, positive_int, real_array
from theorylab.psa.scoremodel import ScoreModel, _context_length, _head_width, _log_count, log_count

__all__ = ["crossing_polynomial", "crossing_residual", "crossing_root"]


def _grid(dk, T) -> tuple[np.ndarray, np.ndarray]:
    """Validate and broadcast ``dk`` (> 0) and ``T`` (>= 3)."""
    dk, T = _head_width(dk), _context_length(T)
    try:
        return np.broadcast_arrays(dk, T)
    except ValueError:
        raise ParameterError(f"dk and T must broadcast to one grid (got shapes {dk.shape} and {T.shape})") from None


def crossing_polynomial(model: ScoreModel, dk, T) -> np.ndarray:
    """Coefficients (lowest degree first, shape ``(..., n)``) of ``Delta - L - sigma^2/2`` in g.

    Examples
    --------
    Coefficients of the t4-only crossing polynomial (lowest degree first):

    >>> import theorylab.psa as psa
    >>> print(psa.crossing_polynomial(psa.resolve_model('t4-only'), 1024, 64).round(4))
    [-4.1431  0.     32.      0.     -2.    ]
    """
    return _crossing_polynomial(model, *_grid(dk, T))


def _crossing_polynomial(model: ScoreModel, dk: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Kernel of :func:`crossing_polynomial` (a validated, broadcast grid)."""
    n = max(len(model.gap_poly), len(model.var_poly))
    gap = np.pad(np.asarray(model.gap_poly, float), (0, n - len(model.gap_poly)))
    var = np.pad(np.asarray(model.var_poly, float), (0, n - len(model.var_poly)))
    coeffs = np.sqrt(dk)[..., None] * gap - 0.5 * var
    coeffs[..., 0] -= _log_count(T)
    return coeffs


@scalar_output
@finite_output("g, dk, T")
def crossing_residual(model: ScoreModel, g, dk, T) -> tuple[np.ndarray, np.ndarray]:
    """``(Delta - L - sigma^2/2, Delta + L + sigma^2/2)`` at g: the residual and its scale.

    A root g is accurate to relative precision eps when ``|residual| <= eps * scale``.

    Examples
    --------
    The residual vanishes at the root:

    >>> import theorylab.psa as psa
    >>> model = psa.resolve_model('t4-only')
    >>> g = psa.crossing_root(model, 1024, 64)
    >>> r, scale = psa.crossing_residual(model, g, 1024, 64)
    >>> bool(abs(r) < 1e-9 * scale)
    True
    """
    g = real_array("g", g, low=0)
    delta, var = model.gap(g, dk), model.variance(g)
    L = log_count(T)
    return delta - L - var / 2.0, delta + L + var / 2.0


@scalar_output
def crossing_root(model: ScoreModel, dk, T, *, newton_steps: int = 4) -> np.ndarray:
    """Smallest positive real root of the crossing polynomial, by eigenvalues then Newton.

    The roots of every grid point's polynomial are the eigenvalues of its companion
    matrix (one batched ``eigvals`` call); the smallest positive near-real one
    (``|Im g| <= 1e-6 max(1, |g|)``: a tangent double root splits into such a pair) is then
    polished by Newton steps on the polynomial itself, each kept only where it lowers ``|f|``
    (so a tangent double root, where ``f' ~ 0``, keeps its eigenvalue). NaN where no positive
    real root exists. Used for ``t3-inclusive`` and as an independent check of the closed forms.
    ``newton_steps`` (an integer in [0, 100]) is the number of polishing steps.

    Examples
    --------
    The t4-only annealed root at (dk, T) = (1024, 64):

    >>> import theorylab.psa as psa
    >>> round(float(psa.crossing_root(psa.resolve_model('t4-only'), 1024, 64)), 4)
    0.3613
    """
    newton_steps = positive_int("newton_steps", newton_steps, low=0, high=100)
    return _crossing_root(model, *_grid(dk, T), newton_steps)


def _crossing_root(model: ScoreModel, dk: np.ndarray, T: np.ndarray, newton_steps: int) -> np.ndarray:
    """Kernel of :func:`crossing_root` (a validated, broadcast grid; ``newton_steps`` in [0, 100])."""
    coeffs = _crossing_polynomial(model, dk, T)
    shape, n = coeffs.shape[:-1], coeffs.shape[-1] - 1
    flat = coeffs.reshape(-1, n + 1)
    companion = np.zeros((flat.shape[0], n, n))
    companion[:, 1:, :-1] = np.eye(n - 1)
    companion[:, :, -1] = -flat[:, :-1] / flat[:, -1:]
    roots = np.linalg.eigvals(companion)
    real = np.abs(roots.imag) <= 1e-6 * np.maximum(1.0, np.abs(roots))
    candidates = np.where(real & (roots.real > 0), roots.real, np.inf)
    g = candidates.min(axis=1)
    found = np.isfinite(g)
    g = np.where(found, g, 0.0)
    deriv = flat[:, 1:] * np.arange(1, n + 1)
    for _ in range(newton_steps):  # safeguarded: a step is kept only where it lowers |f| (at a tangent double
        f = _polyval_rows(flat, g)    # root f' ~ 0 and a plain step would jump away from it)
        fp = _polyval_rows(deriv, g)
        trial = g - np.divide(f, fp, out=np.zeros_like(f), where=fp != 0)
        g = np.where(found & (np.abs(_polyval_rows(flat, trial)) < np.abs(f)), trial, g)
    return np.where(found & (g > 0), g, np.nan).reshape(shape)


def _polyval_rows(coeffs: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Horner evaluation of one polynomial per row at the matching x."""
    out = np.zeros_like(x)
    for j in range(coeffs.shape[1] - 1, -1, -1):
        out = out * x + coeffs[:, j]
    return out

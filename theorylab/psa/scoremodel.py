"""The PSA reduced Gaussian score model (PSA paper §6; conventions in docs/conventions.md).

A query competes for softmax mass between one target key and ``m = T - 2``
independent Gaussian distractors. A variant of the model fixes two polynomials in
the coupling ``g`` (the paper's gamma):

* the target's score gap ``Delta(g, dk) = sqrt(dk) * gap_poly(g)``;
* the distractor score variance ``sigma^2(g) = var_poly(g)``.

Both are stored as coefficient tuples (lowest degree first), so the crossing
equation, the simulation and the quadrature all read the same numbers.

Conventions (see docs/conventions.md)
-------------------------------------
* ``m = T - 2`` distractors (paper §6.8).
* ``L = ln(T - 1)`` is the log-count in every closed form; with it the formulas
  reproduce the paper's quoted 0.7867, 2.245, 1.030, 0.602, 0.664, 0.569, 0.4132.
* Scores are scaled by ``1/sqrt(dk)``; per-channel gaps are ``g sqrt(dk)`` (T3) and
  ``g^2 sqrt(dk)`` (T4); distractor variances 1 (T1), 2g^2 (T2, T3), 4g^4 (T4),
  Cov(T3, T4) = 2g^3.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab._results import scalar_output
from theorylab.errors import ParameterError, choice, finite_output, real_array

VARIANTS: tuple[str, ...] = ("t4-only", "t3-inclusive", "key-only", "symmetric-key-convention")


@dataclass(frozen=True)
class ScoreModel:
    """One variant of the reduced model: ``Delta = sqrt(dk) gap_poly(g)``, ``sigma^2 = var_poly(g)``.

    Attributes
    ----------
    variant : the variant's name (one of :data:`VARIANTS`).
    gap_poly : coefficients of ``Delta(g)/sqrt(dk)`` in powers of g, lowest first.
    var_poly : coefficients of ``sigma^2(g)`` in powers of g, lowest first.
    source : the paper section the variant comes from.
    """

    variant: str
    gap_poly: tuple[float, ...]
    var_poly: tuple[float, ...]
    source: str

    @finite_output("g, dk")
    def gap(self, g, dk) -> np.ndarray:
        """Target score gap ``Delta(g, dk)`` (broadcast over arrays of g and dk)."""
        g = real_array("g", g, low=0)
        dk = real_array("dk", dk, low=0, low_inclusive=False)
        return self._gap(g, dk)

    @finite_output("g")
    def variance(self, g) -> np.ndarray:
        """Distractor score variance ``sigma^2(g)``."""
        return self._variance(real_array("g", g, low=0))

    def _gap(self, g: np.ndarray, dk) -> np.ndarray:
        """Kernel of :meth:`gap`: ``g`` a float array >= 0, ``dk`` > 0 (validated by the caller)."""
        return np.sqrt(dk) * np.polynomial.polynomial.polyval(g, self.gap_poly)

    def _variance(self, g: np.ndarray) -> np.ndarray:
        """Kernel of :meth:`variance`: ``g`` a float array >= 0 (validated by the caller)."""
        return np.polynomial.polynomial.polyval(g, self.var_poly)


_MODELS = {
    "t4-only": ScoreModel("t4-only", (0.0, 0.0, 1.0), (0.0, 0.0, 0.0, 0.0, 4.0),
                          "PSA §6.6-6.7 (Thm 64): double-ghost channel T4 alone, symmetric shear"),
    "t3-inclusive": ScoreModel("t3-inclusive", (0.0, 1.0, 1.0), (0.0, 0.0, 2.0, 4.0, 4.0),
                               "PSA §10 addendum: T3 + T4 with Cov(T3, T4) = 2g^3"),
    "key-only": ScoreModel("key-only", (0.0, 1.0), (1.0, 0.0, 2.0),
                           "PSA §6.8 Eq. 55: key-only half-lift, base term T1 kept"),
    "symmetric-key-convention": ScoreModel("symmetric-key-convention", (0.0, 0.0, 1.0), (1.0, 0.0, 0.0, 0.0, 4.0),
                                           "PSA §6.8: symmetric shear in the key-only convention (T1 kept)"),
}


def score_model(variant: str) -> ScoreModel:
    """Return the :class:`ScoreModel` named ``variant`` (one of :data:`VARIANTS`).

    Examples
    --------
    >>> from theorylab.psa import score_model
    >>> m = score_model("t4-only")            # PSA §6.6: Delta = sqrt(dk) g^2, sigma^2 = 4 g^4
    >>> m.gap_poly, m.var_poly
    ((0.0, 0.0, 1.0), (0.0, 0.0, 0.0, 0.0, 4.0))
    """
    return _MODELS[choice("variant", variant, VARIANTS)]


def resolve_model(variant) -> ScoreModel:
    """The :class:`ScoreModel` a public function of the reduced model computes with.

    Parameters
    ----------
    variant : str or ScoreModel
        A variant name (one of :data:`VARIANTS`: the paper's models), or a :class:`ScoreModel` you built
        (e.g. ``dataclasses.replace(score_model("t4-only"), gap_poly=...)``) to compute a model that is not
        the paper's. A ScoreModel's ``variant`` must still be one of :data:`VARIANTS` (the Monte Carlo
        draws that variant's channel loadings, so it also requires the variance polynomial to equal them);
        its coefficients must be finite real numbers.

    Raises
    ------
    ParameterError
        For an unknown name, or a ScoreModel whose variant is unknown or whose coefficients are not
        finite reals (the message names ``variant``).

    Examples
    --------
    A variant name resolves to its ScoreModel:

    >>> import theorylab.psa as psa
    >>> psa.resolve_model('t4-only').variant
    't4-only'
    """
    if not isinstance(variant, ScoreModel):
        return score_model(variant)
    choice("variant", variant.variant, VARIANTS)
    for name in ("gap_poly", "var_poly"):
        real_array(f"variant.{name}", getattr(variant, name))
    return variant


def _log_count(T):
    """Kernel of :func:`log_count`: ``T`` validated (>= 3) by the caller."""
    return np.log(T - 1.0)     # L = ln(T - 1)


@scalar_output
def log_count(T):
    """``L = ln(T - 1)``, the log-count of every closed form (our convention; T >= 3).

    Examples
    --------
    L = ln(T - 1):

    >>> import theorylab.psa as psa
    >>> round(float(psa.log_count(65)), 4)
    4.1589
    """
    return _log_count(_context_length(T))


@scalar_output
def distractors(T):
    """``m = T - 2``, the number of distractor keys (PSA §6.8).

    Examples
    --------
    m = T - 2 distractors:

    >>> import theorylab.psa as psa
    >>> int(psa.distractors(64))
    62
    """
    return _distractors(_context_length(T))


def _distractors(T):
    """Kernel of :func:`distractors`: ``T`` validated (>= 3) by the caller."""
    return T - 2.0     # m = T - 2


@scalar_output
def context_length(T):
    """Validate the context length: a finite real ``T >= 3``.

    Examples
    --------
    A validated context length:

    >>> import theorylab.psa as psa
    >>> float(psa.context_length(64))
    64.0
    """
    return _context_length(T)


def _context_length(T) -> np.ndarray:
    """Kernel of :func:`context_length`: ``T`` as a float array, refused unless finite and >= 3."""
    return real_array("T", T, low=3)


@scalar_output
def head_width(dk):
    """Validate the head width: a finite real ``dk > 0``.

    Examples
    --------
    A validated head width:

    >>> import theorylab.psa as psa
    >>> float(psa.head_width(64))
    64.0
    """
    return _head_width(dk)


def _head_width(dk) -> np.ndarray:
    """Kernel of :func:`head_width`: ``dk`` as a float array, refused unless finite and > 0."""
    return real_array("dk", dk, low=0, low_inclusive=False)


__all__ = ["VARIANTS", "ScoreModel", "score_model", "resolve_model", "log_count", "distractors",
           "context_length", "head_width", "ParameterError"]

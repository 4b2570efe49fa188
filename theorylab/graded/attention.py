"""Exponentially graded attention (EG-MHSA, GLLM paper §3.1): the grading matrix and its geometry.

``M_{q,lambda} = diag(lambda^q_1, ..., lambda^q_dk)``; the graded head uses ``Q' = Q M``,
``K' = K M``, ``V' = V M`` so that ``Q' K'^T = Q M^2 K^T`` (Eq. 12) and the grading is absorbed
into the projections by ``W~ = W M`` (Rem. 1, Cor. 1).  Prop. 5: at a Frobenius budget B the
graded constraint set on the effective weights, ``||W~ M^-1||_F <= B``, is an ellipsoid with
semi-axis ``B lambda^q_j`` along ``e_j``.
"""
from __future__ import annotations

import numpy as np

from theorylab.errors import ParameterError, check_memory, finite_result, real_array, real_scalar

__all__ = ["grading_matrix", "grade", "ellipsoid_semi_axes"]


def grading_matrix(q, lam: float) -> np.ndarray:
    """The grading matrix ``M = diag(lambda^q)`` of one head (Eq. 10), shape (dk, dk).

    Parameters
    ----------
    q : 1-D array of real grades (the paper takes q >= 0; any real q gives an invertible M).
    lam : base lambda > 0 (the paper uses lambda > 1, e.g. e^(1/dk)).

    Raises ParameterError when some ``lambda^q_j`` exceeds the float range.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.grading_matrix([0.0, 1.0, 2.0], 2.0)          # M = diag(lambda^q), GLLM §3.1
    array([[1., 0., 0.],
           [0., 2., 0.],
           [0., 0., 4.]])
    """
    return np.diag(_grading_diag(q, lam))


def _grading_diag(q, lam) -> np.ndarray:
    q = real_array("q", q)
    if q.ndim != 1:
        raise ParameterError(f"q must be a 1-D vector of grades (got shape {q.shape})")
    lam = real_scalar("lam", lam, low=0.0, low_inclusive=False)
    check_memory("q", 8 * q.size * q.size)
    with np.errstate(over="ignore"):
        return finite_result("q, lam", lam ** q)


def grade(X, q, lam: float) -> np.ndarray:
    """``X M``: grade the rows of ``X`` (n, dk) (queries, keys or values, Eq. 11).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> gr.grade(np.ones((2, 3)), [0.0, 1.0, 2.0], 2.0)      # rows X M, GLLM §3.1
    array([[1., 2., 4.],
           [1., 2., 4.]])
    """
    X = real_array("X", X)
    m = _grading_diag(q, lam)
    if X.ndim < 1 or X.shape[-1] != m.size:
        raise ParameterError(f"X must have rows of length dk = len(q) = {m.size} (got shape {X.shape})")
    return finite_result("X, q, lam", X * m)


def ellipsoid_semi_axes(q, lam: float, B: float) -> np.ndarray:
    """Semi-axes ``B lambda^q_j`` of the graded constraint ellipsoid (Prop. 5).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.ellipsoid_semi_axes([0.0, 1.0, 2.0], 2.0, B=0.5)
    array([0.5, 1. , 2. ])
    """
    B = real_scalar("B", B, low=0.0, low_inclusive=False)
    return finite_result("q, lam, B", B * _grading_diag(q, lam))

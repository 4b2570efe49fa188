"""The symplectic shear as a matrix on phase space (PSA §2-4, P1-P3; the stream form is
:mod:`theorylab.psa.shear`).

On ``(q, p)`` in ``R^{2d}`` the symplectic form is ``J = [[0, I], [-I, 0]]``
(:func:`symplectic_form`), the upper shear ``M_g = [[I, g I], [0, I]]`` and the lower shear
``[[I, 0], [g I, I]]`` (§4.4); an order-lattice member acts on ``(q, p_q, k, p_k)`` as
``M_{g_q} (+) M_{g_k}`` (:func:`lattice_matrix`). The nonlinear shear ``(q, p) -> (q + f(p), p)``
(§4.6) has Jacobian ``[[I, Df], [0, I]]`` (:func:`shear_jacobian`) and is symplectic iff ``Df`` is
symmetric: ``dk (dk - 1) / 2`` conditions (:func:`symplectic_shear_codimension`).

Exact route (as in :mod:`theorylab.psa.shear`): integer couplings give integer matrices, symbolic
couplings (SymPy) object arrays, so ``theorylab.symbolic`` can check these very matrices by exact
algebra; numeric input is validated as finite reals.
"""
from __future__ import annotations

import numbers

import numpy as np

from theorylab._results import scalar_output
from theorylab.errors import ParameterError, check_memory, finite_output, positive_int
from theorylab.psa.shear import _coupling, _phase_point, _same_shape, _values

__all__ = ["symplectic_form", "upper_shear_matrix", "lower_shear_matrix", "lattice_matrix", "nonlinear_shear",
           "shear_jacobian", "symplectic_shear_codimension"]


def _blocks(a, b, c, e, d: int) -> np.ndarray:
    eye = np.eye(d, dtype=int)
    vals = (a, b, c, e)
    dtype = (object if any(not isinstance(v, numbers.Real) for v in vals)
             else int if all(isinstance(v, numbers.Integral) for v in vals) else float)
    return np.block([[eye * a, eye * b], [eye * c, eye * e]]).astype(dtype)


def _width(d, factor: int = 2) -> int:
    """Phase-space half-width d >= 1 of a ``(factor d) x (factor d)`` matrix (memory checked)."""
    d = positive_int("d", d)
    check_memory("d", 8 * (factor * d) ** 2)
    return d


def symplectic_form(d: int = 1) -> np.ndarray:
    """``J = [[0, I], [-I, 0]]`` on phase space ``(q, p)`` in ``R^{2d}`` (integer entries).

    Examples
    --------
    J in R^2:

    >>> import theorylab.psa as psa
    >>> print(psa.symplectic_form())
    [[ 0  1]
     [-1  0]]
    """
    return _blocks(0, 1, -1, 0, _width(d)).astype(int)


@finite_output("g")
def upper_shear_matrix(g, d: int = 1) -> np.ndarray:
    """``M_g = [[I, g I], [0, I]]`` acting on ``(q, p)`` in ``R^{2d}`` (object array if g is symbolic).

    Examples
    --------
    M_g in R^2 at g = 0.5:

    >>> import theorylab.psa as psa
    >>> print(psa.upper_shear_matrix(0.5))
    [[1.  0.5]
     [0.  1. ]]
    """
    return _blocks(1, _coupling("g", g), 0, 1, _width(d))


@finite_output("g")
def lower_shear_matrix(g, d: int = 1) -> np.ndarray:
    """Lower shear ``[[I, 0], [g I, I]]`` on ``(q, p)`` (PSA §4.4).

    Examples
    --------
    The lower shear in R^2 at g = 0.5:

    >>> import theorylab.psa as psa
    >>> print(psa.lower_shear_matrix(0.5))
    [[1.  0. ]
     [0.5 1. ]]
    """
    return _blocks(1, 0, _coupling("g", g), 1, _width(d))


@finite_output("g_q, g_k")
def lattice_matrix(g_q, g_k, d: int = 1) -> np.ndarray:
    """Joint operator ``M_{g_q} (+) M_{g_k}`` on ``(q, p_q, k, p_k)`` in ``R^{4d}``.

    Equal couplings give the symmetric member; ``g_q = 0`` or ``g_k = 0`` the half-lifts.

    Examples
    --------
    The joint operator on (q, p_q, k, p_k) is 4 x 4 for d = 1:

    >>> import theorylab.psa as psa
    >>> psa.lattice_matrix(0.5, 0.0).shape
    (4, 4)
    """
    d = _width(d, 4)
    mq, mk = upper_shear_matrix(g_q, d), upper_shear_matrix(g_k, d)
    out = np.zeros((4 * d, 4 * d), dtype=np.result_type(mq, mk))
    out[:2 * d, :2 * d] = mq
    out[2 * d:, 2 * d:] = mk
    return out


@scalar_output
@finite_output("q, p")
def nonlinear_shear(q, p, f) -> tuple:
    """Nonlinear upper shear ``(q, p) -> (q + f(p), p)`` for a map ``f`` of the momentum (PSA §4.6).

    ``f`` must map p to an array of p's shape (its values are validated like q's).

    Examples
    --------
    A nonlinear upper shear with f = sin:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> q, p = psa.nonlinear_shear(np.array([1.0]), np.array([0.5]), np.sin)
    >>> print(q.round(4), p)
    [1.4794] [0.5]
    """
    q, p = _phase_point(q, p)
    if not callable(f):
        raise ParameterError(f"f must be a function of the momentum (got {type(f).__name__})")
    try:
        fp = f(p)
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise ParameterError(f"f must map the momentum p to an array of p's shape (f(p) raised "
                             f"{type(exc).__name__})") from None
    fp = _values("f(p)", fp)
    _same_shape(q, fp, "q and f(p)")
    return q + fp, p


def shear_jacobian(dfdp) -> np.ndarray:
    """Jacobian ``[[I, Df], [0, I]]`` of :func:`nonlinear_shear` at a point where ``Df = dfdp`` (d x d).

    Examples
    --------
    The Jacobian at Df = [[2]]:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> print(psa.shear_jacobian(np.array([[2.0]])))
    [[1. 2.]
     [0. 1.]]
    """
    F = _values("dfdp", dfdp)
    if F.ndim != 2 or F.shape[0] != F.shape[1]:
        raise ParameterError(f"dfdp must be a square d x d matrix (got shape {F.shape})")
    d = F.shape[0]
    check_memory("dfdp", 8 * (2 * d) ** 2)
    out = np.zeros((2 * d, 2 * d), dtype=object if F.dtype == object else np.result_type(F, int))
    if out.dtype == object:
        out[:] = 0
    out[:d, :d] = np.eye(d, dtype=int)
    out[d:, d:] = np.eye(d, dtype=int)
    out[:d, d:] = F
    return out


def symplectic_shear_codimension(dk) -> int:
    """Codimension ``dk (dk - 1) / 2`` of the symmetric-Jacobian condition on nonlinear shears.

    ``(q, p) -> (q + f(p), p)`` is symplectic iff ``Df`` is symmetric everywhere: one
    linear condition per pair ``i < j`` (PSA §4.6: 2016 at dk = 64).

    Examples
    --------
    Conditions on a dk = 4 shear to be symplectic:

    >>> import theorylab.psa as psa
    >>> psa.symplectic_shear_codimension(4)
    6
    """
    dk = positive_int("dk", dk)
    return dk * (dk - 1) // 2

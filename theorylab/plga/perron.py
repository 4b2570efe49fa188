"""Perron-Frobenius data of entrywise positive matrices and the rank-one ``1 alpha^T`` (PLGA §3.3-3.4).

``A_LM >= eps > 0`` entrywise (claim A2), so the Perron-Frobenius theorem gives it a simple, strictly
dominant spectral radius with a positive eigenvector (Prop. 3.12; claim A3), bracketed by the
Collatz-Wielandt bounds. A learned singularity ``A = 1 alpha^T`` (Prop. 3.9; claim A16) has the
spectrum ``{sum(alpha), 0, ..., 0}`` whatever the signs of ``alpha``, answered in closed form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from theorylab.errors import ParameterError, finite_output, real_array
from theorylab.plga._validate import _real_or_exact, _square


@dataclass(frozen=True, eq=False)
class PerronPair:
    """Perron-Frobenius data of an entrywise positive matrix (claim A3), or the spectrum of ``1 alpha^T`` (A16).

    ``rho`` spectral radius; ``vector`` the positive right eigenvector normalised to sum 1;
    ``second`` the next-largest eigenvalue modulus (``rho > second`` means rho is simple
    and strictly dominant); ``residual`` ``||M v - lambda v||_inf``; ``eigenvalue`` the
    eigenvalue ``lambda`` of ``vector``: the Perron root ``rho`` for a nonnegative matrix, the
    common row sum ``s`` (any sign, 0 in the nilpotent case) for identical rows.
    """

    rho: float
    vector: np.ndarray
    second: float
    residual: float
    eigenvalue: float = float("nan")


def row_clone(alpha) -> np.ndarray:
    """``A = 1 alpha^T``, the (d, d) matrix whose every row is ``alpha`` (PLGA Prop. 3.9: the learned
    singularity condition; claim A16). Object arrays (the exact route) are checked entrywise.

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> plga.row_clone([0.25, 0.75])                             # 1 alpha^T (PLGA Prop. 3.9)
    array([[0.25, 0.75],
           [0.25, 0.75]])
    """
    alpha = _real_or_exact("alpha", alpha)
    if alpha.ndim != 1:
        raise ParameterError(f"alpha must be a 1-d vector (got shape {alpha.shape})")
    out = np.empty((alpha.size, alpha.size), dtype=alpha.dtype)
    out[...] = alpha
    return out


@finite_output("M")
def perron_frobenius(M) -> PerronPair:
    """Perron root and vector of a square nonnegative matrix ``M`` (claim A3, Prop. 3.12).

    A matrix with identical rows, ``M = 1 alpha^T`` (Prop. 3.9), is answered in closed form
    whatever the signs of ``alpha``: its spectrum is ``{s, 0, ..., 0}`` with ``s = sum(alpha)``
    (correctly rounded, ``math.fsum``) and eigenvector ``1``, so ``rho = |s|``, ``second = 0``,
    ``eigenvalue = s``. This includes the nilpotent case ``s = 0`` (``M^2 = 0``: ``rho = 0``, not
    simple), where a general eigensolver returns ``~sqrt(machine eps)`` noise from the defective
    eigenvalue 0 (claim A16). Otherwise raises ParameterError unless ``M`` is one square matrix
    with every entry >= 0 (the Perron-Frobenius theorem says nothing about a matrix with a
    negative entry).

    Examples
    --------
    >>> import numpy as np
    >>> from theorylab.plga import perron_frobenius
    >>> pf = perron_frobenius(np.array([[2.0, 1.0], [1.0, 2.0]]))   # PLGA Prop. 3.12
    >>> round(pf.rho, 12), pf.vector.round(3)
    (3.0, array([0.5, 0.5]))
    """
    M = _square("M", M, single=True, exact=False)
    if M.size and np.all(M == M[:1]):                                   # identical rows: M = 1 alpha^T
        s = math.fsum(M[0])
        v = np.full(len(M), 1.0 / len(M))
        return PerronPair(abs(s), v, 0.0, float(np.max(np.abs(M @ v - s * v))), s)
    if np.any(M < 0):
        raise ParameterError(f"M must be nonnegative (every entry >= 0; got min entry {M.min():g})")
    vals, vecs = np.linalg.eig(M)
    # rho is an eigenvalue and Re(lambda) <= |lambda| <= rho for every other one: the largest real part picks rho
    lead = int(np.argmax(vals.real))     # even when M is periodic (p eigenvalues omega^k rho of modulus rho)
    v = np.real(vecs[:, lead])
    v = v / v.sum()
    rho = float(vals[lead].real)
    second = float(np.max(np.abs(np.delete(vals, lead))))   # d >= 2 here: a 1x1 matrix has identical rows (above)
    return PerronPair(rho, v, second, float(np.max(np.abs(M @ v - rho * v))), rho)


@finite_output("M, v")
def collatz_wielandt_bounds(M, v=None) -> tuple[float, float]:
    """``(min_i (M v)_i / v_i, max_i (M v)_i / v_i)``: they bracket the Perron root of a nonnegative
    ``M`` for every positive ``v`` (Collatz-Wielandt); ``v = 1`` gives the row-sum bounds.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> M = np.array([[2.0, 1.0], [1.0, 3.0]])                   # Perron root 3.618 (PLGA Prop. 3.12)
    >>> plga.collatz_wielandt_bounds(M)                          # row sums
    (3.0, 4.0)
    >>> lo, hi = plga.collatz_wielandt_bounds(M, v=[1.0, 1.618])
    >>> round(lo, 3), round(hi, 3)
    (3.618, 3.618)
    """
    M = _square("M", M, exact=False)
    v = np.ones(M.shape[-1]) if v is None else real_array("v", v, low=0, low_inclusive=False)
    if v.shape != M.shape[-1:]:
        raise ParameterError(f"v must have shape ({M.shape[-1]},) (got {v.shape})")
    r = (M @ v) / v
    return float(r.min()), float(r.max())



__all__ = [
    "PerronPair", "row_clone", "perron_frobenius", "collatz_wielandt_bounds"
]

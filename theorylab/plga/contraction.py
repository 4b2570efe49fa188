"""Diameter contraction of the metric learner's row map (PLGA Prop. 5.12(i); claim A18).

If ``f`` is ``K_f``-Lipschitz and ``g`` is ``K_g``-Lipschitz then
``diam g(f(S)) <= K_g K_f diam S`` (the authors' Lean ``diam_comp_le``), and an ``N``-fold
iterate of a ``K``-Lipschitz map shrinks diameters by ``K^N`` (``diam_iterate_le``). The row
map ``phi`` of ``Phi_res`` (Prop. 3.11) is a composition of residual units, so
``diam phi(S) <= prod_j K_j diam S`` -- a bound on the composite through per-unit constants,
which the paper warns is loose (singular-vector alignment matters); the measured quantity is
the composite's own pairwise ratio (:func:`pairwise_ratios`).

Per-unit constants: the additive unit ``r + silu(r W1 + b1) W2 + b2`` is Lipschitz with
``K = 1 + sup|SiLU'| ||W1||_2 ||W2||_2`` (attained by aligned rank-one weights at
``r W1 = u*``). The authors' gated unit ``LN(GLU(r) + r)`` has no global constant (the gate
is quadratic, LayerNorm's Jacobian grows like ``1/sqrt(var + eps)``), so it is refused here;
their audit bounds it on the sampled domain only.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from theorylab.errors import ParameterError, finite_result, real_array, real_scalar
from theorylab.plga.envelopes import SILU_PRIME_SUP
from theorylab.plga.params import PLGAParams, ResidualUnit


def _points(name: str, X) -> np.ndarray:
    X = real_array(name, X)
    if X.ndim != 2 or len(X) == 0:
        raise ParameterError(f"{name} must be a non-empty 2-d array of points (rows) (got shape {X.shape})")
    return X


def diameter(X) -> float:
    """``diam S = max_{x, y in S} ||x - y||_2`` of the rows of ``X`` (0 for a single point); ``X`` is first scaled by
    a power of two (exact: the diameter scales with it), so no difference overflows.

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> plga.diameter([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0]])      # PLGA Prop. 5.12
    5.0
    >>> plga.diameter([[3e300, 0.0], [-3e300, 0.0]])
    6e+300
    """
    X = _points("X", X)
    e = int(np.frexp(np.max(np.abs(X)))[1])
    X = np.ldexp(X, -e)
    best = 0.0
    for i in range(len(X) - 1):                                           # differences first: no cancellation
        best = max(best, float(np.max(np.linalg.norm(X[i + 1:] - X[i], axis=1))))
    with np.errstate(over="ignore"):
        return finite_result("X", float(np.ldexp(best, e)))


def composition_bound(lipschitz: Sequence[float], diam: float) -> float:
    """``(prod_j K_j) diam``: the bound of Prop. 5.12(i) on the diameter of the image under the composition of
    maps with Lipschitz constants ``K_j`` (``diam_comp_le``; ``K_j = K`` N times gives ``diam_iterate_le``).

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> plga.composition_bound([0.5, 0.5, 2.0], diam=4.0)         # (prod K_j) diam, PLGA Prop. 5.12(i)
    2.0
    """
    K = real_array("lipschitz", lipschitz, low=0, allow_empty=True)
    diam = real_scalar("diam", diam, low=0)
    with np.errstate(over="ignore", invalid="ignore"):
        return finite_result("lipschitz, diam", float(np.prod(K)) * diam)


def unit_lipschitz(unit: ResidualUnit) -> float:
    """``1 + sup|SiLU'| ||W1||_2 ||W2||_2``: a Lipschitz constant of the additive unit ``r + silu(r W1 + b1) W2 + b2``
    (sharp: attained for aligned rank-one weights). The gated unit has none (ParameterError).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> unit = plga.ResidualUnit(W1=np.eye(2), b1=np.zeros(2), W2=0.5 * np.eye(2), b2=np.zeros(2))
    >>> round(plga.unit_lipschitz(unit), 4)                       # 1 + 1.0998 * 1 * 0.5 (PLGA Prop. 5.12)
    1.5499
    """
    if not isinstance(unit, ResidualUnit):
        raise ParameterError("unit must be an additive ResidualUnit: the gated unit LN(GLU(r) + r) has no global "
                             f"Lipschitz constant (got {type(unit).__name__})")
    return 1.0 + SILU_PRIME_SUP * float(np.linalg.norm(unit.W1, 2) * np.linalg.norm(unit.W2, 2))


def row_map_lipschitz(params: PLGAParams) -> list[float]:
    """The per-unit constants :func:`unit_lipschitz` of the row map ``phi`` of ``Phi_res``, in order.

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> params = plga.init_params(4, seed=0, residual="additive", n_res=3)
    >>> K = plga.row_map_lipschitz(params)                        # one constant per unit (PLGA Prop. 5.12)
    >>> len(K), all(k > 1 for k in K)
    (3, True)
    """
    return [unit_lipschitz(u) for u in params.units]


def pairwise_ratios(f: Callable, X, Y) -> np.ndarray:
    """``||f(x_i) - f(y_i)|| / ||x_i - y_i||`` for the row pairs of ``X`` and ``Y`` (the authors' empirical pairwise
    contraction ratios; a sampled lower estimate of the Lipschitz constant of ``f``, never a bound).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> X, Y = np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[1.0, 0.0], [1.0, 3.0]])
    >>> plga.pairwise_ratios(lambda Z: 0.5 * Z, X, Y)             # a map contracting by 1/2 (PLGA Prop. 5.12)
    array([0.5, 0.5])
    """
    X, Y = _points("X", X), _points("Y", Y)
    if X.shape != Y.shape:
        raise ParameterError(f"X and Y must have the same shape (got {X.shape} and {Y.shape})")
    den = np.linalg.norm(X - Y, axis=1)
    if np.any(den == 0):
        raise ParameterError("X and Y must differ in every row (a pair at distance 0 has no ratio)")
    return np.linalg.norm(np.asarray(f(X)) - np.asarray(f(Y)), axis=1) / den


__all__ = ["diameter", "composition_bound", "unit_lipschitz", "row_map_lipschitz", "pairwise_ratios"]

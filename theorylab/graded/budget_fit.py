"""The estimator of the selection ladder (GLLM Prop. 7, §8.3.4): least squares over the graded class
``{w : ||G^-1 w|| <= B}`` at a budget ``B``, for many unconstrained fits at once.

In the orthogonal design of :mod:`theorylab.graded.ladder_sim` (``ladder_sim.DESIGN``) the constrained fit is a
per-coordinate shrinkage ``w_j = o_j e_j/(e_j + nu)``, ``e_j = precision_j g_j^2``, of the unconstrained fit
``o``, with one multiplier ``nu >= 0`` per row: ``nu = 0`` when ``o`` is inside the class, otherwise the root of
``1/||w(nu)/g|| - 1/B`` (concave and increasing in nu), found by Newton's method (at most ``NEWTON_ITERATIONS``
steps; the iterates rise monotonically to the root). The ladder evaluates each arm at its representation budget
``B(g) = ||G^-1 w*||`` (``ladder_sim.ESTIMATOR``).
"""
from __future__ import annotations

import numpy as np

from theorylab.errors import ParameterError, finite_result, real_array, real_scalar

__all__ = ["NEWTON_ITERATIONS", "constrained_fit"]

NEWTON_ITERATIONS = 100
"""The most Newton steps on the multiplier of one fit (it converges in ~6-9)."""


def constrained_fit(obs, precision, g, B: float) -> np.ndarray:
    """``argmin_w sum_j precision_j (w_j - obs_j)^2`` subject to ``sum_j (w_j/g_j)^2 <= B^2``, row by row.

    ``obs`` (reps, d): unconstrained least-squares fits; ``precision`` (d,): ``m sigma_j^2``; ``g`` (d,)
    grades; ``B > 0``.  Returns (reps, d); the method is in the module docstring.

    Examples
    --------
    A fit outside the ball ``||w/g|| <= B`` is shrunk onto it (GLLM Prop. 7); one inside is kept:

    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> obs = np.array([[3.0, 4.0], [0.3, 0.4]])
    >>> w = gr.constrained_fit(obs, precision=[1.0, 1.0], g=[1.0, 1.0], B=1.0)
    >>> np.round(w, 4)
    array([[0.6, 0.8],
           [0.3, 0.4]])
    >>> np.round(np.linalg.norm(w, axis=1), 6)
    array([1. , 0.5])
    """
    obs = real_array("obs", obs)
    if obs.ndim != 2 or not obs.shape[1]:
        raise ParameterError(f"obs must be a (reps, d) array of fits (got shape {obs.shape})")
    precision = real_array("precision", precision, low=0, low_inclusive=False)
    g = real_array("g", g, low=0, low_inclusive=False)
    if precision.shape != obs.shape[1:] or g.shape != obs.shape[1:]:
        raise ParameterError(f"precision and g must have shape ({obs.shape[1]},) (got {precision.shape} and {g.shape})")
    B = real_scalar("B", B, low=0, low_inclusive=False)
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        return finite_result("obs, precision, g, B", _constrained_fit(obs, precision, g, B))


def _constrained_fit(obs: np.ndarray, precision: np.ndarray, g: np.ndarray, B: float) -> np.ndarray:
    e = precision * g ** 2
    c = obs * precision * g                      # w_j / g_j = c_j / (e_j + nu)
    active = np.sum((obs / g) ** 2, axis=1) > np.float64(B) ** 2
    nu = np.zeros(obs.shape[0])
    if active.any():
        ca, na = c[active], nu[active]
        for _ in range(NEWTON_ITERATIONS):
            t = ca / (e + na[:, None])
            nsq = np.sum(t * t, axis=1)
            step = (1.0 / np.sqrt(nsq) - 1.0 / B) / (nsq ** -1.5 * np.sum(t * t / (e + na[:, None]), axis=1))
            na = np.maximum(na - step, 0.0)
            if np.all(np.abs(step) <= 1e-15 * np.maximum(na, e.min())):
                break
        nu[active] = na
    return np.where(active[:, None], obs * e / (e + nu[:, None]), obs)

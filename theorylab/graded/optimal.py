"""Optimal grades of a graded linear model: unclipped, clipped to ``[1, C]``, per level, and Table 3.

GLLM paper (gllm-hierarchical-grading.md) §4.2 (Prop. 7(iii): ``g* ~ (alpha/tau)^(1/4)``,
``Lambda(g*) = BC^2``), §6.2-6.4 (Prop. 10: the clipped program on ``[1, C]^d`` and its KKT
form; Prop. 11: the L-variable level program; Cor. 4), §6.7 (Prop. 12: moment maps), §7.5-7.6
(Table 3). The profiles, Lambda and BC they minimise are :mod:`theorylab.graded.grades`.

Conventions (docs/graded.md): the gauge ``min_j g_j = 1`` (``grades.GAUGE``; ``g_0 = 1`` for the
increasing level profiles of Table 3); the clip ``lambda^q in [1, C]``, i.e. ``g in [1, C]^d``, is
the box ``[0, 2 log C]`` in the variables ``u = 2 log g``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.errors import ParameterError, finite_result, real_array, real_scalar
from theorylab.graded.grades import (Lambda_star, _Lambda, _same_length, _tilted, bc_geometric, geometric_profiles,
                                     gradient_u, profiles, reduce_levels)
from theorylab.resources import Cost, count

# --------------------------------------------------------------------------- optimal grades
def optimal_grades(alpha, tau) -> np.ndarray:
    """Unclipped optimum ``g*_j ~ (alpha_j/tau_j)^(1/4)`` (Prop. 7(iii)), gauge ``min g = 1``;
    ``Lambda(g*) = BC(alpha, tau)^2``.

    Examples
    --------
    >>> from theorylab.graded import optimal_grades
    >>> optimal_grades([0.5, 0.3, 0.2], [0.2, 0.3, 0.5]).round(3)      # GLLM Prop. 7(iii)
    array([1.581, 1.257, 1.   ])
    """
    a, t = profiles(alpha, tau)
    g = (a / t) ** 0.25
    return g / g.min()


@dataclass(frozen=True)
class ClippedOptimum:
    """Solution of the clipped program ``min Lambda(g)`` over ``g in [1, C]^d`` (Prop. 10).

    ``g``: gauge-fixed minimiser (``min g = 1``); ``Lambda``: the minimum; ``kappa``: the
    common shift of the saturated form ``u_j = clip(rho_j + kappa, 0, 2 log C)`` with
    ``rho_j = (1/2) log(alpha_j/tau_j)``; ``lower``/``upper``: coordinates at the clip bounds;
    ``kkt_residual``: max violation of the KKT conditions at ``g``.
    """

    g: np.ndarray
    Lambda: float
    kappa: float
    lower: np.ndarray
    upper: np.ndarray
    kkt_residual: float


def clip_bound(C: float) -> float:
    """Validate the clip C >= 1 (``lambda^q_max <= C``) and return it as a float.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.clip_bound(2)                                            # the clip C of GLLM Prop. 10
    2.0
    """
    return real_scalar("C", C, low=1.0)


PROGRAM_BYTES = 160.0
"""Peak bytes per coordinate of :func:`clipped_grades` (its working arrays and result)."""
PROGRAM_SECONDS = 2e-5
"""Seconds per coordinate of :func:`clipped_grades` (bisection; measured on a shared 2-core machine)."""


def clipped_grades_cost(n) -> Cost:
    """Peak memory and run time of :func:`clipped_grades` (and of :func:`table3_row`) on ``n`` coordinates
    (an integer >= 0; ``inf`` beyond the float range, which the limits refuse)."""
    n = count("n", n)
    return Cost(n * PROGRAM_BYTES, n * PROGRAM_SECONDS, f"a grade program on {n:.3g} coordinates")


def clipped_grades(alpha, tau, C: float) -> ClippedOptimum:
    """Solve the clipped program of Prop. 10 on ``[1, C]^d`` reliably.

    Method: by the KKT analysis of Prop. 10(ii) every minimiser has the saturated form
    ``u(kappa) = clip(rho + kappa, 0, U)`` (``U = 2 log C``) with kappa a root of
    ``h(kappa) = kappa - (1/2) log(T(u)/A(u))``.  ``h`` is continuous and nondecreasing
    (``h' = 1 - (sum_free tau^(u) + sum_free alpha^(-u))/2 >= 0``), negative for small kappa and
    positive for large kappa, so bisection finds a root; any root is a KKT point of a convex
    problem, hence a global minimiser.  The gauge is then fixed by ``u <- u - min u``.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> alpha, tau = [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]
    >>> opt = gr.clipped_grades(alpha, tau, C=1.2)                  # GLLM Prop. 10: grades in [1, C]
    >>> opt.g.round(4), round(opt.Lambda, 4), round(gr.Lambda_star(alpha, tau), 4)
    (array([1.2   , 1.0954, 1.    ]), 0.9152, 0.8695)
    """
    a, t = profiles(alpha, tau)
    C = clip_bound(C)
    U = 2.0 * np.log(C)
    rho = 0.5 * (np.log(a) - np.log(t))

    def h(kappa):
        u = np.clip(rho + kappa, 0.0, U)
        return kappa - 0.5 * (np.log(np.sum(t * np.exp(u))) - np.log(np.sum(a * np.exp(-u))))

    lo, hi = -rho.max() - 1.0, U - rho.min() + 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if h(mid) < 0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 4 * np.finfo(float).eps * max(1.0, abs(mid)):
            break
    kappa = 0.5 * (lo + hi)
    u = np.clip(rho + kappa, 0.0, U)
    u = u - u.min()
    g = np.exp(u / 2.0)
    grad = gradient_u(u, a, t)
    at_lo, at_hi = u <= 1e-12, u >= U - 1e-12
    # KKT: grad = 0 on free coordinates, >= 0 at the lower bound, <= 0 at the upper bound
    viol = np.where(at_lo & ~at_hi, np.minimum(grad, 0), np.where(at_hi & ~at_lo, np.maximum(grad, 0),
                                                                 np.where(at_lo & at_hi, 0.0, grad)))
    return ClippedOptimum(g, float(_Lambda(a, t, g)), float(kappa), np.flatnonzero(at_lo), np.flatnonzero(at_hi),
                          float(np.max(np.abs(viol))))


def level_program(alpha, tau, dims, C: float) -> tuple[ClippedOptimum, np.ndarray, np.ndarray]:
    """Prop. 11: for level-stratified profiles (constant on each level ``V_l`` of size ``d_l``)
    solve the clipped program in L variables on the level masses ``(a, s)``.

    Returns ``(optimum over levels, a, s)``; ``np.repeat(optimum.g, dims)`` is a minimiser of the
    d-variable program (the minimiser is level-constant).  Raises ParameterError when a profile
    is not constant on some level (relative tolerance 1e-9).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> alpha = gr.expand_levels([0.6, 0.4], [2, 2])
    >>> tau = gr.expand_levels([0.3, 0.7], [2, 2])
    >>> opt, a, s = gr.level_program(alpha, tau, dims=[2, 2], C=2.0)    # GLLM Prop. 11
    >>> opt.g.round(4), a, s
    (array([1.3678, 1.    ]), array([0.6, 0.4]), array([0.3, 0.7]))
    """
    a_, t_ = profiles(alpha, tau)
    a, s = reduce_levels(a_, dims), reduce_levels(t_, dims)
    dims = np.array([int(d) for d in np.atleast_1d(dims)])
    for name, p, m in (("alpha", a_, a), ("tau", t_, s)):
        if not np.allclose(p, np.repeat(m / dims, dims), rtol=1e-9, atol=0):
            raise ParameterError(f"{name} must be constant on each level of dims={dims.tolist()} "
                                 f"(level-stratified, Prop. 11)")
    return clipped_grades(a, s, C), a, s


def moment_maps(alpha, tau, u) -> tuple[np.ndarray, np.ndarray]:
    """The two moment maps of Prop. 12 at ``u``: ``(alpha^(-u), tau^(u))``; they coincide at the
    optimum ``u* = 2 log g*``, where both equal ``sqrt(alpha tau)/BC``.

    Examples
    --------
    At the optimum ``u* = 2 log g*`` the two maps coincide (GLLM Prop. 12):

    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> alpha, tau = [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]
    >>> left, right = gr.moment_maps(alpha, tau, 2 * np.log(gr.optimal_grades(alpha, tau)))
    >>> left.round(4), right.round(4)
    (array([0.3391, 0.3217, 0.3391]), array([0.3391, 0.3217, 0.3391]))
    """
    a, t = profiles(alpha, tau)
    u = _same_length("u", u, a)
    return _tilted(a, -u), _tilted(t, u)


def recession_slope(v) -> float:
    """Recession slope of ``Phi = log Lambda`` along ``v`` (Prop. 12(ii)): ``max v - min v``;
    positive off the gauge direction, which is why the selection problem has a minimiser.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.recession_slope([1.0, -0.5, 2.0]), gr.recession_slope([1.0, 1.0, 1.0])   # 0 on the gauge (GLLM Prop. 12(ii))
    (2.5, 0.0)
    """
    v = real_array("v", v)
    with np.errstate(over="ignore"):
        return float(finite_result("v", v.max() - v.min()))


def clipped_lower_bound(alpha, tau, C: float) -> float:
    """Prop. 10(iii): ``Lambda*_C >= max(BC(alpha, tau)^2, C^-2)``.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> alpha, tau = [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]
    >>> round(gr.clipped_lower_bound(alpha, tau, C=1.2), 4)         # max(BC^2, C^-2), GLLM Prop. 10(iii)
    0.8695
    >>> round(gr.clipped_grades(alpha, tau, C=1.2).Lambda, 4)
    0.9152
    """
    return max(Lambda_star(alpha, tau), clip_bound(C) ** -2.0)


# --------------------------------------------------------------------------- Table 3
@dataclass(frozen=True)
class GradeRow:
    """One row of Table 3 (§7.6): geometric level profiles at L levels and clip C."""

    nu: float
    mu: float
    levels: int
    C: float
    BC: float
    Lambda_star: float
    Lambda_star_C: float
    token_gain: float
    g_star_C: tuple
    g_star: tuple
    bound: float


def table3_row(nu: float, mu: float, levels: int = 4, C: float = 2.0) -> GradeRow:
    """Lambda* = BC(a, s)^2 (Cor. 3 closed form), Lambda*_C (the L-variable program of Prop. 11
    on the box, Prop. 10), token gain 1/Lambda*_C, g*_C (gauge g_0 = 1) and the Prop. 10(iii) bound.

    Examples
    --------
    >>> from theorylab.graded import table3_row
    >>> row = table3_row(0.5, 0.5)            # GLLM Table 3, nu = mu = 0.5, four levels
    >>> round(row.Lambda_star, 4), round(row.Lambda_star_C, 4), round(row.token_gain, 3)
    (0.5689, 0.6039, 1.656)
    """
    a, s = geometric_profiles(nu, mu, levels)
    bc = bc_geometric(nu, mu, levels)
    opt = clipped_grades(a, s, C)
    return GradeRow(float(nu), float(mu), int(levels), clip_bound(C), bc, bc ** 2, opt.Lambda, 1.0 / opt.Lambda,
                    tuple(float(x) for x in opt.g), tuple(float(x) for x in optimal_grades(a, s)),
                    clipped_lower_bound(a, s, C))


TABLE3_PARAMETERS = ((0.5, 0.2), (0.6, 0.3), (0.7, 0.3), (0.8, 0.4))
"""The (nu, mu) pairs of Table 3 (L = 4, C = 2)."""


__all__ = ["optimal_grades", "ClippedOptimum", "clip_bound", "PROGRAM_BYTES", "PROGRAM_SECONDS", "clipped_grades_cost", "clipped_grades", "level_program", "moment_maps", "recession_slope", "clipped_lower_bound", "GradeRow", "table3_row", "TABLE3_PARAMETERS"]

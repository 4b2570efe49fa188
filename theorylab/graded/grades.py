"""Grades of a graded linear model: the profiles and the sample-complexity ratio Lambda (with BC).

GLLM paper (gllm-hierarchical-grading.md) §4.2 (Def. 2, Prop. 7-8, Cor. 3), §6.7 (Prop. 12).
The grades that minimise Lambda -- unclipped, clipped to ``[1, C]``, per level -- and Table 3 are
:mod:`theorylab.graded.optimal`.

Conventions the paper leaves open, named here and explained in docs/graded.md:

* ``GAUGE``: Lambda is invariant under g -> c g, so optimal grades are a ray (unclipped)
  or a segment along 1 (clipped).  We report the representative with ``min_j g_j = 1``
  (q >= 0 with min q = 0, Prop. 8(i)); for the increasing level profiles of Cor. 3 this
  is ``g_0 = 1`` as printed in Table 3.
* ``PROFILE_SUM_RTOL``: a profile must sum to 1 within this relative tolerance (so that
  numbers read from a file with a few printed digits are accepted); it is then divided
  by its sum, so every profile used downstream sums to 1 in floating point.
* The clip: ``lambda^q in [1, C]`` i.e. ``g in [1, C]^d``; in the variables
  ``u = 2 log g`` the box is ``[0, 2 log C]``.
"""
from __future__ import annotations

import numpy as np

from theorylab import _moved
from theorylab._results import scalar_output
from theorylab.errors import (ParameterError, check_memory, finite_result, integer_array, positive_int, real_array,
                              real_scalar)

__all__ = ["GAUGE", "PROFILE_SUM_RTOL", "profile", "profiles", "geometric_parameters", "geometric_profiles",
           "expand_levels", "reduce_levels", "Lambda", "Lambda_q", "log_Lambda_u", "bhattacharyya",
           "Lambda_star", "bc_geometric", "tilted", "gradient_u", "admissibility", "boundary_polynomial"]

GAUGE = "min-grade-one"
PROFILE_SUM_RTOL = 1e-6


# --------------------------------------------------------------------------- profiles
def profile(name: str, value) -> np.ndarray:
    """Validate a profile (alpha or tau, Def. 2): a 1-D probability vector with full support.

    Returns the vector divided by its sum (see ``PROFILE_SUM_RTOL``).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.profile("alpha", [0.5, 0.25, 0.25])                    # GLLM Def. 2, §3
    array([0.5 , 0.25, 0.25])
    >>> gr.profile("alpha", [2.0, 1.0, 1.0])
    Traceback (most recent call last):
        ...
    theorylab.errors.ParameterError: alpha must sum to 1 within 1e-06 (got sum 4)
    """
    p = real_array(name, value, low=0.0, low_inclusive=False)
    if p.ndim != 1:
        raise ParameterError(f"{name} must be a 1-D vector of positive numbers summing to 1 (got shape {p.shape})")
    total = float(p.sum())
    if abs(total - 1.0) > PROFILE_SUM_RTOL:
        raise ParameterError(f"{name} must sum to 1 within {PROFILE_SUM_RTOL:g} (got sum {total:.10g})")
    return p / total


def profiles(alpha, tau) -> tuple[np.ndarray, np.ndarray]:
    """Validate the pair (alpha, tau): both profiles, same length.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> alpha, tau = gr.profiles([0.5, 0.5], [0.75, 0.25])         # GLLM §3
    >>> alpha, tau
    (array([0.5, 0.5]), array([0.75, 0.25]))
    >>> gr.profiles([0.5, 0.5], [0.2, 0.3, 0.5])
    Traceback (most recent call last):
        ...
    theorylab.errors.ParameterError: alpha and tau must have the same length (got 2 and 3)
    """
    a, t = profile("alpha", alpha), profile("tau", tau)
    if a.shape != t.shape:
        raise ParameterError(f"alpha and tau must have the same length (got {a.size} and {t.size})")
    return a, t


def geometric_parameters(nu: float, mu: float, ordered: bool = False) -> tuple[float, float]:
    """Validate the parameters ``(nu, mu)`` of the geometric level profiles of Cor. 3; return them as floats.

    Two regimes, one validator:

    * ``ordered=False``: ``0 < nu < 1`` and ``0 < mu < 1`` -- the geometric hypothesis of Cor. 3
      (target concentrating towards the deepest level, data decaying away from the shallowest).
      Enough for the profiles, the closed form of BC, Table 3 (Prop. 10-11) and Lem. 4's grade
      condition.
    * ``ordered=True``: ``0 < mu < nu < 1`` -- additionally ``r = sqrt(mu/nu) < 1``, which Lem. 4(iv) /
      Thm. 4.1 need for the lower factor ``c_{mu,nu} = c_4 (1 - r) > 0`` (and Cor. 3 for
      ``Lambda* = Theta(nu^L)``).

    Raises
    ------
    ParameterError
        One line naming nu and mu, the range required and the values received.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.geometric_parameters(0.5, 0.25, ordered=True)          # GLLM Cor. 3: 0 < mu < nu < 1
    (0.5, 0.25)
    >>> gr.geometric_parameters(0.25, 0.5, ordered=True)
    Traceback (most recent call last):
        ...
    theorylab.errors.ParameterError: nu and mu must satisfy 0 < mu < nu < 1 ... (got nu=0.25, mu=0.5)
    """
    rng = "0 < mu < nu < 1 (Thm. 4.1: r = sqrt(mu/nu) < 1)" if ordered else "0 < nu < 1 and 0 < mu < 1 (Cor. 3)"
    nu_, mu_ = (real_array(name, v) for name, v in (("nu", nu), ("mu", mu)))
    if nu_.ndim or mu_.ndim:
        raise ParameterError(f"nu and mu must be real numbers with {rng} (got nu={nu!r}, mu={mu!r})")
    nu_, mu_ = float(nu_), float(mu_)
    ok = 0.0 < nu_ < 1.0 and 0.0 < mu_ < 1.0 and (mu_ < nu_ or not ordered)
    if not ok:
        raise ParameterError(f"nu and mu must satisfy {rng} (got nu={nu_:g}, mu={mu_:g})")
    return nu_, mu_


def geometric_profiles(nu: float, mu: float, levels: int) -> tuple[np.ndarray, np.ndarray]:
    """Level profiles of Cor. 3: ``a_l ~ nu^(L-1-l)`` (target) and ``s_l ~ mu^l`` (data), l = 0..L-1.

    Parameters
    ----------
    nu, mu : ``0 < nu < 1``, ``0 < mu < 1`` (:func:`geometric_parameters`; Thm. 4.1 further needs mu < nu).
    levels : L >= 1.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> a, s = gr.geometric_profiles(0.5, 0.5, levels=3)          # GLLM Cor. 3
    >>> np.round(a, 4), np.round(s, 4)
    (array([0.1429, 0.2857, 0.5714]), array([0.5714, 0.2857, 0.1429]))
    """
    nu, mu = geometric_parameters(nu, mu)
    L = positive_int("levels", levels)
    check_memory("levels", 8 * 8 * L)
    l = np.arange(L)
    a, s = (x / x.sum() for x in (nu ** (L - 1 - l), mu ** l))    # normalised first: nu^(L-1)/Z_a may underflow
    if a[0] == 0 or s[-1] == 0:
        raise ParameterError(f"levels too large for nu={nu:g}, mu={mu:g}: the smallest level mass nu^(L-1)/Z_a or "
                             f"mu^(L-1)/Z_s underflows to 0 (the profiles must have full support; got levels={L})")
    return a, s


def expand_levels(level_profile, dims) -> np.ndarray:
    """Coordinate profile of a level-stratified profile: ``alpha_j = a_l / d_l`` for j in V_l (Cor. 3).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.expand_levels([0.2, 0.8], dims=[2, 4])                 # a_l / d_l per coordinate (GLLM Cor. 3)
    array([0.1, 0.1, 0.2, 0.2, 0.2, 0.2])
    """
    a = profile("level profile", level_profile)
    dims = _dims(dims)
    if dims.size != a.size:
        raise ParameterError(f"dims must have one entry per level ({a.size}), got {dims.size}")
    check_memory("dims", 8 * int(dims.sum()))
    return np.repeat(a / dims, dims)


def _dims(dims) -> np.ndarray:
    """Level sizes: a non-empty 1-D array of integers >= 1."""
    d = integer_array("dims", dims, low=1)
    if d.ndim > 1:
        raise ParameterError(f"dims must be a 1-D list of level sizes (got shape {d.shape})")
    return np.atleast_1d(d)


def reduce_levels(coord_profile, dims) -> np.ndarray:
    """Level masses ``a_l = sum_{j in V_l} alpha_j`` of a coordinate profile (Prop. 11).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.reduce_levels([0.1, 0.1, 0.2, 0.2, 0.2, 0.2], dims=[2, 4])   # GLLM Prop. 11
    array([0.2, 0.8])
    """
    p = profile("profile", coord_profile)
    dims = _dims(dims)
    if dims.sum() != p.size:
        raise ParameterError(f"dims must sum to the profile length {p.size} (got {dims.sum()})")
    return np.add.reduceat(p, np.concatenate(([0], np.cumsum(dims)[:-1])))


# --------------------------------------------------------------------------- Lambda, BC
def _Lambda(alpha, tau, g):
    """Kernel of Lambda over the last axis (no validation).

    Lambda is invariant under ``g -> c g`` (GAUGE), so each g is first divided by the power of
    two nearest the geometric mean of its extremes: exact (no rounding), and it keeps ``g^2`` and
    ``g^-2`` in the float range for any grades with ``max g / min g < 2^500`` (e.g. all grades
    1e200 or 1e-200 give the same Lambda as all grades 1).
    """
    _, top = np.frexp(np.max(g, axis=-1, keepdims=True))
    _, bottom = np.frexp(np.min(g, axis=-1, keepdims=True))
    g = np.ldexp(g, -((top + bottom) // 2))
    with np.errstate(over="ignore"):
        return np.sum(alpha * g ** -2.0, axis=-1) * np.sum(tau * g ** 2.0, axis=-1)


def _finite_Lambda(value, name: str):
    if not np.all(np.isfinite(value)):
        raise ParameterError(f"{name}: Lambda overflows the float range (the grades span more than ~2^500; "
                             f"log_Lambda_u gives its logarithm)")
    return value


@scalar_output
def Lambda(g, alpha, tau):
    """Sample-complexity ratio ``Lambda(g) = (sum_j alpha_j g_j^-2)(sum_j tau_j g_j^2)`` (Prop. 7).

    ``g`` has shape (..., d) with positive entries; the result has shape (...). Scale invariant:
    any common scale of g (1e-200, 1e200) gives the same value.

    Examples
    --------
    Uniform grades give Lambda = 1; the optimal grades reach ``BC(alpha, tau)^2 < 1`` (GLLM Prop. 7):

    >>> from theorylab.graded import Lambda, optimal_grades
    >>> alpha, tau = [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]
    >>> Lambda([1.0, 1.0, 1.0], alpha, tau)
    1.0
    >>> round(Lambda(optimal_grades(alpha, tau), alpha, tau), 4)
    0.8695
    """
    a, t = profiles(alpha, tau)
    g = real_array("g", g, low=0.0, low_inclusive=False)
    if g.shape[-1:] != a.shape:
        raise ParameterError(f"g must have last dimension {a.size} (got shape {g.shape})")
    return _finite_Lambda(_Lambda(a, t, g), "g")


@scalar_output
def Lambda_q(q, alpha, tau, lam: float = np.e):
    """``Lambda(q) = Lambda(lambda^q)`` with base ``lam > 1`` (Prop. 8).

    Invariant under ``q -> q + c``: q is centred on the midpoint of its range before
    exponentiating, so only the spread of q (not its offset) is limited by the float range.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> alpha, tau = [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]
    >>> round(float(gr.Lambda_q([0.0, 0.0, 0.0], alpha, tau)), 4)         # q = 0: Lambda = 1 (GLLM Prop. 8)
    1.0
    >>> round(float(gr.Lambda_q([0.4, 0.2, 0.0], alpha, tau)), 4)
    0.8715
    >>> round(float(gr.Lambda_q([1.4, 1.2, 1.0], alpha, tau)), 4)         # the same after q -> q + 1
    0.8715
    """
    a, t = profiles(alpha, tau)
    lam = real_scalar("lam", lam, low=1.0, low_inclusive=False)
    q = real_array("q", q)
    if q.shape[-1:] != a.shape:
        raise ParameterError(f"q must have last dimension {a.size} (got shape {q.shape})")
    centre = 0.5 * np.max(q, axis=-1, keepdims=True) + 0.5 * np.min(q, axis=-1, keepdims=True)
    with np.errstate(over="ignore"):
        g = lam ** (q - centre)
    return _finite_Lambda(_Lambda(a, t, g) if np.all(np.isfinite(g)) else np.inf, "q, lam")


@scalar_output
def log_Lambda_u(u, alpha, tau):
    """``Phi(u) = log A(u) + log T(u) = log Lambda`` in the variables ``u = 2 q log lambda`` (Prop. 8),
    ``A = sum alpha_j e^{-u_j}``, ``T = sum tau_j e^{u_j}``; evaluated with log-sum-exp (no overflow).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> alpha, tau = [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]
    >>> u = [0.8, 0.4, 0.0]                                         # u = 2 q log lambda (GLLM Prop. 8)
    >>> round(float(gr.log_Lambda_u(u, alpha, tau)), 4)
    -0.1376
    """
    from scipy.special import logsumexp

    a, t = profiles(alpha, tau)
    u = real_array("u", u)
    if u.shape[-1:] != a.shape:
        raise ParameterError(f"u must have last dimension {a.size} (got shape {u.shape})")
    return logsumexp(np.log(a) - u, axis=-1) + logsumexp(np.log(t) + u, axis=-1)


def bhattacharyya(alpha, tau) -> float:
    """Bhattacharyya affinity ``BC(alpha, tau) = sum_j sqrt(alpha_j tau_j)`` (Prop. 7(iii)).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> round(gr.bhattacharyya([0.5, 0.3, 0.2], [0.2, 0.3, 0.5]), 4)   # GLLM Prop. 7(iii)
    0.9325
    >>> gr.bhattacharyya([0.5, 0.5], [0.5, 0.5])
    1.0
    """
    a, t = profiles(alpha, tau)
    return float(np.sum(np.sqrt(a * t)))


def Lambda_star(alpha, tau) -> float:
    """Unclipped optimum ``Lambda* = min_g Lambda(g) = BC(alpha, tau)^2`` (Prop. 7(iii)).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> round(gr.Lambda_star([0.5, 0.3, 0.2], [0.2, 0.3, 0.5]), 4)     # BC^2, GLLM Prop. 7(iii)
    0.8695
    """
    return bhattacharyya(alpha, tau) ** 2


def bc_geometric(nu: float, mu: float, levels: int) -> float:
    """Closed form of Cor. 3:
    ``BC(a, s) = nu^((L-1)/2) / sqrt(Z_a Z_s) * (1 - r^L)/(1 - r)``, ``r = sqrt(mu/nu)``,
    ``Z_a = sum_k nu^k``, ``Z_s = sum_k mu^k`` (geometric sums, limit taken at r = 1, i.e. mu = nu);
    ``0 < nu, mu < 1`` (:func:`geometric_parameters`).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> a, s = gr.geometric_profiles(0.5, 0.25, levels=4)          # GLLM Cor. 3: closed form = direct sum
    >>> round(gr.bc_geometric(0.5, 0.25, levels=4), 6), round(gr.bhattacharyya(a, s), 6)
    (0.573703, 0.573703)
    """
    nu, mu = geometric_parameters(nu, mu)
    L = positive_int("levels", levels)
    top, low = (nu, mu) if mu <= nu else (mu, nu)  # BC is symmetric in (nu, mu): keep r <= 1 (no r^L overflow)
    r = np.sqrt(low / top)
    return float(top ** ((L - 1) / 2) / np.sqrt(_geom(nu, L) * _geom(mu, L)) * _geom(r, L))


def _geom(x: float, n: int) -> float:
    """``sum_{k<n} x^k`` = (1 - x^n)/(1 - x), equal to n at x = 1."""
    return float(n) if np.isclose(x, 1.0, rtol=0, atol=1e-12) else (1 - x ** n) / (1 - x)


def tilted(p, u):
    """Tilted profile ``p^(u)_j = p_j e^{u_j} / sum_k p_k e^{u_k}`` (moment map, Prop. 12).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.tilted([0.5, 0.5], [0.0, 0.0])                          # GLLM Prop. 12: u = 0 leaves p unchanged
    array([0.5, 0.5])
    >>> gr.tilted([0.5, 0.5], [0.0, 1.0]).round(4)
    array([0.2689, 0.7311])
    """
    p = real_array("p", p, low=0.0, low_inclusive=False)
    u = real_array("u", u)
    if p.ndim != 1 or u.shape != p.shape:
        raise ParameterError(f"p and u must be 1-D of the same length (got shapes {p.shape} and {u.shape})")
    return _tilted(p, u)


def _tilted(p, u):
    with np.errstate(over="ignore", invalid="ignore"):
        shift = u - np.max(u)
    w = p * np.exp(np.where(np.isfinite(shift), shift, -np.inf))    # u spanning > 1.8e308: only the top counts
    return w / w.sum()


def gradient_u(u, alpha, tau) -> np.ndarray:
    """``grad_u Phi(u) = tau^(u) - alpha^(-u)`` with ``alpha^(-u)_j = alpha_j e^{-u_j}/A(u)``
    (Prop. 8, Prop. 12(iii)); at ``u = 0`` it is ``tau - alpha``.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> alpha, tau = [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]
    >>> gr.gradient_u([0.0, 0.0, 0.0], alpha, tau).round(4)        # tau - alpha at u = 0 (GLLM Prop. 8)
    array([-0.3,  0. ,  0.3])
    """
    a, t = profiles(alpha, tau)
    u = _same_length("u", u, a)
    return _tilted(t, u) - _tilted(a, -u)


def _same_length(name: str, v, a) -> np.ndarray:
    v = real_array(name, v)
    if v.shape != a.shape:
        raise ParameterError(f"{name} must have length {a.size} (got shape {v.shape})")
    return v


def admissibility(q, alpha, tau) -> float:
    """First-order criterion ``<q, alpha - tau>`` (Eq. 15): q enters the admissible cone to first
    order iff this is positive.  Invariant under q -> q + c 1.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> alpha, tau = [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]
    >>> round(gr.admissibility([1.0, 0.5, 0.0], alpha, tau), 4)     # > 0: this q improves on uniform (GLLM §3, eq. 15)
    0.3
    >>> round(gr.admissibility([0.0, 0.5, 1.0], alpha, tau), 4)
    -0.3
    """
    a, t = profiles(alpha, tau)
    q = _same_length("q", q, a)
    with np.errstate(over="ignore", invalid="ignore"):
        return float(finite_result("q", q @ (a - t)))


@scalar_output
def boundary_polynomial(t, alpha, tau):
    """``F(t) = prod_k t_k (Lambda - 1)`` with ``t_j = g_j^2 = lambda^(2 q_j)`` (Prop. 12(i)):
    ``F(t) = (sum_j alpha_j prod_{k != j} t_k)(sum_j tau_j t_j) - prod_k t_k``; Q+ = {F < 0}.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> alpha, tau = [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]
    >>> t = np.array([2.0, 1.5, 1.0])                               # t = g^2 (GLLM Prop. 12(i))
    >>> round(float(gr.boundary_polynomial(t, alpha, tau)), 4)      # < 0: g = sqrt(t) is admissible
    -0.3675
    >>> round(float(np.prod(t) * (gr.Lambda(np.sqrt(t), alpha, tau) - 1)), 4)
    -0.3675
    """
    a, t_ = profiles(alpha, tau)
    t = real_array("t", t, low=0.0, low_inclusive=False)
    if t.shape[-1:] != a.shape:
        raise ParameterError(f"t must have last dimension {a.size} (got shape {t.shape})")
    with np.errstate(over="ignore", invalid="ignore"):
        prod = np.prod(t, axis=-1)
        return finite_result("t", np.sum(a * prod[..., None] / t, axis=-1) * np.sum(t_ * t, axis=-1) - prod)


__getattr__ = _moved.moved_names(__name__, dict.fromkeys((
    "optimal_grades", "ClippedOptimum", "clip_bound", "PROGRAM_BYTES", "PROGRAM_SECONDS", "clipped_grades_cost",
    "clipped_grades", "level_program", "moment_maps", "recession_slope", "clipped_lower_bound", "GradeRow", "table3_row",
    "TABLE3_PARAMETERS"), "theorylab.graded.optimal"))
"""The optimal and clipped grades and Table 3 moved to :mod:`theorylab.graded.optimal`; their old path works for
one release."""

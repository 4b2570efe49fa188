"""Minimax envelopes of graded linear classes (GLLM paper §4.3: Lem. 3, Lem. 4, Thm. 4.1).

Setting (level-stratified Gaussian design): ``y = <w, x> + xi``, ``x ~ N(0, Sigma)`` with
``Sigma = diag(sigma_j^2)`` constant on each level ``V_l`` (``sigma_(l)^2``), ``xi ~ N(0, sigma_xi^2)``,
m samples, loss ``||Sigma^(1/2)(w_hat - w)||^2``.  Class ``F(B, D) = {w : ||D w||_2 <= B}`` with
``D`` diagonal and constant on levels (``D_l``).

* ``cap_l = sigma_(l)^2 B^2 / D_l^2``, ``eps^2 = sigma_xi^2 / m``;
* envelope ``M(m) = sum_l min(cap_l, d_l eps^2)``;
* Lem. 3: the minimax risk is ``>= c M`` for every ``m >= 1`` (the constant is built from the
  packing constants c_0, c_5 of the proof, which the paper does not evaluate; we report the
  implied constant measured against a computed lower bound) and ``<= UPPER_CONSTANT * M`` for
  ``m >= 2 sum_{l in S} d_l + 4`` with ``S = {l : d_l eps^2 <= cap_l}`` (levels worth estimating);
* Lem. 4: ``m_sat = d_0 sigma_xi^2 / cap_0^unif = d^2 sigma_xi^2 / (L^2 s_0)``,
  window ``W = {m : 4 <= m <= m_sat / 2}``, cap ratio ``cap_0^gr/cap_0^unif = g_0^2 sum_k a_k g_k^-2``;
* Thm. 4.1: on W the minimax ratio is within ``[c_4 (1-r), (c_4 (1-mu))^-1] * Lambda(g)``,
  ``r = sqrt(mu/nu)``; the deterministic part ``(1-r) <= cap ratio / Lambda <= 1/(1-mu)`` is
  what we check, c_4 being unevaluated in the paper.

Conventions (named; see docs/graded.md): ``StratifiedModel`` takes equal level sizes
``d_l = d/L``, total data variance ``sum_j sigma_j^2 = 1`` (so ``sigma_j^2 = tau_j``), a unit-norm
target with energy profile alpha (``B_unif = ||w*|| = 1``), and the graded budget at the
representation of that target, ``B_gr = ||G^-1 w*|| = (sum_l a_l g_l^-2)^(1/2)`` (Prop. 7's
"fix the target, not the budget").
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab._results import scalar_output
from theorylab.errors import ParameterError, check_memory, finite_result, positive_int, real_array, real_scalar
from theorylab.graded import grades, optimal
from theorylab.resources import Cost

__all__ = ["UPPER_CONSTANT", "WINDOW_LOW", "caps", "eps2", "envelope", "worth_estimating", "upper_regime",
           "m_sat", "window", "cap_ratio", "grade_condition", "theorem41_factors", "LinearClass",
           "StratifiedModel", "stratified_model_cost", "stratified_model"]

UPPER_CONSTANT = 3.0
"""Lem. 3(ii): minimax risk <= 3 * envelope for m >= 2 sum_{l in S} d_l + 4."""
WINDOW_LOW = 4
"""Lem. 4: the window starts at m = 4 (the upper bound's regime with S empty)."""


@scalar_output
def caps(sigma2, D, B: float) -> np.ndarray:
    """``cap_l = sigma_(l)^2 B^2 / D_l^2`` (per level; sigma2 and D of the same shape).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.caps([0.5, 0.3, 0.2], D=[1.0, 2.0, 4.0], B=1.0)          # sigma^2 B^2 / D^2 per level, GLLM §4.3
    array([0.5   , 0.075 , 0.0125])
    """
    sigma2 = real_array("sigma2", sigma2, low=0.0, low_inclusive=False)
    D = real_array("D", D, low=0.0, low_inclusive=False)
    if sigma2.shape != D.shape:
        raise ParameterError(f"sigma2 and D must have one entry per level each (got shapes {sigma2.shape} "
                             f"and {D.shape})")
    B = np.float64(real_scalar("B", B, low=0.0, low_inclusive=False))
    with np.errstate(over="ignore", under="ignore"):
        return _positive_finite("sigma2, D, B", sigma2 * B ** 2 / D ** 2)


def _positive_finite(names: str, value):
    """A cap, noise level or ratio: finite and > 0 (an overflow or underflow of the inputs is refused)."""
    if not np.all(np.isfinite(value)) or np.any(np.asarray(value) <= 0):
        raise ParameterError(f"{names} out of range: the result overflows or underflows the float range")
    return value


@scalar_output
def eps2(sigma_xi: float, m) -> np.ndarray:
    """``eps^2 = sigma_xi^2 / m``.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.eps2(2.0, [4, 16, 100])                                 # sigma_xi^2 / m, GLLM §4.3
    array([1.  , 0.25, 0.04])
    """
    return _eps2(*_noise(sigma_xi, m))


def _noise(sigma_xi, m) -> tuple[float, np.ndarray]:
    return (np.float64(real_scalar("sigma_xi", sigma_xi, low=0.0, low_inclusive=False)),
            real_array("m", m, low=1.0))


def _eps2(sigma_xi: float, m: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", under="ignore"):
        return _positive_finite("sigma_xi, m", sigma_xi ** 2 / m)


def _levels(cap, dims):
    cap = real_array("caps", cap, low=0.0, low_inclusive=False)
    dims = real_array("dims", dims, low=1.0)
    if cap.shape != dims.shape or cap.ndim != 1:
        raise ParameterError(f"caps and dims must be 1-D of the same length (got {cap.shape} and {dims.shape})")
    return cap, dims


def envelope(cap, dims, sigma_xi: float, m) -> np.ndarray:
    """``M(m) = sum_l min(cap_l, d_l eps^2)`` (Lem. 3), vectorised over m."""
    cap, dims = _levels(cap, dims)
    e2 = _eps2(*_noise(sigma_xi, m))[..., None]
    with np.errstate(over="ignore"):
        return finite_result("caps, dims", np.sum(np.minimum(cap, dims * e2), axis=-1))


def worth_estimating(cap, dims, sigma_xi: float, m) -> np.ndarray:
    """Boolean mask (..., L) of ``S = {l : d_l eps^2 <= cap_l}``.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> cap = gr.caps([0.5, 0.3, 0.2], D=[1.0, 2.0, 4.0], B=1.0)
    >>> gr.worth_estimating(cap, dims=[2, 2, 2], sigma_xi=1.0, m=10)    # S of GLLM Lemma 3: d_l eps^2 <= cap_l
    array([ True, False, False])
    """
    cap, dims = _levels(cap, dims)
    return _worth(cap, dims, _eps2(*_noise(sigma_xi, m)))


def _worth(cap, dims, e2) -> np.ndarray:
    return dims * e2[..., None] <= cap


def upper_regime(cap, dims, sigma_xi: float, m) -> np.ndarray:
    """Whether Lem. 3(ii) applies: ``m >= 2 sum_{l in S} d_l + 4``.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> cap = gr.caps([0.5, 0.3, 0.2], D=[1.0, 2.0, 4.0], B=1.0)
    >>> gr.upper_regime(cap, dims=[2, 2, 2], sigma_xi=1.0, m=[6, 10])   # m >= 2 D_S + 4 (GLLM Lemma 3(ii))
    array([False,  True])
    """
    cap, dims = _levels(cap, dims)
    sigma_xi, m = _noise(sigma_xi, m)
    S = _worth(cap, dims, _eps2(sigma_xi, m))
    return m >= 2 * np.sum(np.where(S, dims, 0.0), axis=-1) + 4


def m_sat(d0: float, sigma_xi: float, cap0_unif: float) -> float:
    """Saturation size ``m_sat = d_0 sigma_xi^2 / cap_0^unif`` (Lem. 4).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.m_sat(d0=8, sigma_xi=1.0, cap0_unif=0.05)         # d_0 sigma_xi^2 / cap_0, GLLM Lemma 4
    160.0
    """
    d0 = real_scalar("d0", d0, low=1.0)
    sigma_xi = np.float64(real_scalar("sigma_xi", sigma_xi, low=0.0, low_inclusive=False))
    cap0 = real_scalar("cap0_unif", cap0_unif, low=0.0, low_inclusive=False)
    with np.errstate(over="ignore"):
        return float(finite_result("d0, sigma_xi, cap0_unif", d0 * sigma_xi ** 2 / cap0))


def window(msat: float) -> tuple[int, int] | None:
    """``W = {m in N : 4 <= m <= m_sat/2}`` as (first, last), or None when empty (m_sat < 8).

    Examples
    --------
    >>> from theorylab.graded import window
    >>> window(100.0)                         # GLLM Theorem 4.1: 4 <= m <= m_sat / 2
    (4, 50)
    >>> window(7.0) is None
    True
    """
    last = int(np.floor(real_scalar("m_sat", msat, low=0.0) / 2))
    return (WINDOW_LOW, last) if last >= WINDOW_LOW else None


def cap_ratio(g, a) -> float:
    """``cap_0^gr / cap_0^unif = g_0^2 sum_k a_k g_k^-2`` (Lem. 4(iv)), level grades g, target masses a.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> round(gr.cap_ratio([1.0, 1.0, 1.0], [0.2, 0.3, 0.5]), 4)      # uniform grades: ratio 1 (GLLM Lemma 4(iv))
    1.0
    >>> round(gr.cap_ratio([1.0, 1.5, 2.0], [0.2, 0.3, 0.5]), 4)
    0.4583
    """
    a = grades.profile("a", a)
    g = real_array("g", g, low=0.0, low_inclusive=False)
    if g.shape != a.shape:
        raise ParameterError(f"g must have one grade per level ({a.size}), got shape {g.shape}")
    g = np.ldexp(g, -np.frexp(g[0])[1])      # invariant under g -> c g: scale by a power of two (exact)
    with np.errstate(over="ignore"):
        return float(finite_result("g", g[0] ** 2 * np.sum(a / g ** 2)))


def grade_condition(g, nu: float, mu: float) -> bool:
    """Lem. 4's grade condition: ``1 <= g_0 <= ... <= g_(L-1)``, ``g_(l+1)/g_l <= (nu mu)^(-1/4)``, each up to a
    rounding slack 1e-12; ``0 < nu, mu < 1`` (Cor. 3's geometric profiles, :func:`grades.geometric_parameters`).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.grade_condition([1.0, 1.2, 1.44], nu=0.5, mu=0.5)      # ratio 1.2 <= (nu mu)^(-1/4) = 1.414 (GLLM Lemma 4)
    True
    >>> gr.grade_condition([1.0, 2.0, 4.0], nu=0.5, mu=0.5)
    False
    """
    nu, mu = grades.geometric_parameters(nu, mu)
    g = real_array("g", g, low=0.0, low_inclusive=False)
    if g.ndim != 1:
        raise ParameterError(f"g must be a 1-D vector of level grades (got shape {g.shape})")
    ratio = g[1:] / g[:-1]
    tol = 1e-12
    with np.errstate(divide="ignore"):
        top = np.float64(nu * mu) ** -0.25                   # inf when nu mu underflows: no upper limit
    return bool(g[0] >= 1 - tol and np.all(ratio >= 1 - tol) and np.all(ratio <= top + tol))


@scalar_output
def theorem41_factors(nu: float, mu: float) -> tuple[float, float]:
    """Deterministic factors of Thm. 4.1: ``(1 - r, 1/(1 - mu))`` with ``r = sqrt(mu/nu)``;
    ``c_{mu,nu} = c_4 (1 - r)`` and ``C_{mu,nu} = (c_4 (1 - mu))^-1``.  Regime ``0 < mu < nu < 1``
    (:func:`grades.geometric_parameters` with ``ordered=True``): the lower factor is positive only for r < 1.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> lower, upper = gr.theorem41_factors(nu=0.5, mu=0.125)     # r = 1/2 (GLLM Theorem 4.1)
    >>> round(float(lower), 4), round(float(upper), 4)
    (0.5, 1.1429)
    """
    nu, mu = grades.geometric_parameters(nu, mu, ordered=True)
    return 1.0 - np.sqrt(mu / nu), 1.0 / (1.0 - mu)


@dataclass(frozen=True)
class LinearClass:
    """One class ``F(B, D)`` in the stratified design: per-level sigma^2, D, and budget B."""

    name: str
    dims: np.ndarray
    sigma2: np.ndarray
    D: np.ndarray
    B: float

    @property
    def caps(self) -> np.ndarray:
        return caps(self.sigma2, self.D, self.B)

    def coords(self, per_level) -> np.ndarray:
        """Expand a per-level vector (one real per level, or a boolean level mask) to the d coordinates."""
        mask = isinstance(per_level, np.ndarray) and per_level.dtype == bool
        v = per_level if mask else real_array("per_level", per_level)
        if v.shape != self.dims.shape:
            raise ParameterError(f"per_level must have one entry per level ({self.dims.size}), got shape {v.shape}")
        return np.repeat(v, self.dims)


@dataclass(frozen=True)
class StratifiedModel:
    """Geometric level-stratified design of Lem. 4 / Thm. 4.1 with its uniform and graded classes."""

    nu: float
    mu: float
    levels: int
    d: int
    sigma_xi: float
    g: np.ndarray
    a: np.ndarray
    s: np.ndarray
    uniform: LinearClass
    graded: LinearClass

    @property
    def dims(self) -> np.ndarray:
        return self.uniform.dims

    @property
    def m_sat(self) -> float:
        return m_sat(self.dims[0], self.sigma_xi, self.uniform.caps[0])

    @property
    def window(self):
        return window(self.m_sat)

    @property
    def cap_ratio(self) -> float:
        return cap_ratio(self.g, self.a)

    @property
    def Lambda(self) -> float:
        return float(grades.Lambda(self.g, self.a, self.s))

    def target(self) -> np.ndarray:
        """The unit-norm target ``w*_j = sqrt(alpha_j)`` with energy profile alpha."""
        return np.sqrt(self.uniform.coords(self.a / self.dims))


def stratified_model_cost(levels) -> Cost:
    """Peak memory and run time of :func:`stratified_model` (the level program on L levels dominates;
    coordinate arrays of length d are built only on demand)."""
    return optimal.clipped_grades_cost(positive_int("levels", levels, low=0))


def stratified_model(nu: float, mu: float, levels: int, d: int, sigma_xi: float = 1.0, g=None,
                     C: float = 2.0) -> StratifiedModel:
    """Build the design of Lem. 4 (see the module conventions).  ``g`` are level grades; by
    default the clipped optimum g*_C of the level program at clip ``C`` (Prop. 10-11).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> model = gr.stratified_model(nu=0.5, mu=0.25, levels=3, d=12)    # GLLM Lemma 4, Theorem 4.1
    >>> round(model.m_sat, 2), model.window
    (21.0, (4, 10))
    >>> round(model.cap_ratio, 4), round(model.Lambda, 4)
    (0.4135, 0.5699)
    """
    L = positive_int("levels", levels)
    d = positive_int("d", d)
    check_memory("d", 8 * 8 * d)
    if d % L:
        raise ParameterError(f"d must be a multiple of levels (equal level sizes d_l = d/L); got d={d}, levels={L}")
    a, s = grades.geometric_profiles(nu, mu, L)
    C = optimal.clip_bound(C)                                             # validated even when g is given
    g = optimal.clipped_grades(a, s, C).g if g is None else real_array("g", g, low=0.0, low_inclusive=False)
    if g.shape != (L,):
        raise ParameterError(f"g must have one grade per level ({L}), got shape {g.shape}")
    dims = np.full(L, d // L)
    sigma2 = s / dims
    sigma_xi = real_scalar("sigma_xi", sigma_xi, low=0.0, low_inclusive=False)
    uniform = LinearClass("uniform", dims, sigma2, np.ones(L), 1.0)
    with np.errstate(over="ignore", divide="ignore"):
        D, B = finite_result("g", 1.0 / g), float(finite_result("g", np.sqrt(np.sum(a / g ** 2))))
    graded = LinearClass("graded", dims, sigma2, D, B)
    return StratifiedModel(float(nu), float(mu), L, d, sigma_xi, g, a, s, uniform, graded)

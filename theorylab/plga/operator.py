"""The PLGA operator G_LM (PLGA paper eqs. 3.2-3.9) and its structural quantities (§3-5).

Forward pass, one head of width ``dk``, rotated queries ``q_rot`` of shape ``(S, dk)``
(Definition 4.3: the density operator is built from *rotary-rotated* queries)::

    D_Q   = Q~^T Q~                                   (3.2)  density operator, (dk, dk)
    A     = Phi_res(LN(D_Q))                          (3.3)  residual metric learner, row-wise
    A_LM  = iSwiGLU(W A + b_W) + eps                  (3.4)  iSwiGLU(u) = u^2 sigmoid(u) >= 0
    A_P   = A_LM ** P   (entrywise)                   (3.5)
    G_LM  = a A_P + b_a                               (3.6)
    E     = Q~ G_LM K~^T / sqrt(dk)                   (3.7)

Conventions the paper leaves open (named here, explained in docs/plga.md)
--------------------------------------------------------------------------
* LayerNorm acts on each *row* of ``D_Q`` (the last axis), population variance,
  ``eps_ln = 1e-6`` inside the square root, affine ``gamma, beta`` per column.
* ``Phi_res`` is a stack of residual units applied to every row independently (the
  shared row map phi of Prop. 3.11). Two units (``RESIDUALS``):

  - ``"glu-ln"`` (default; the authors' public model code, ``ResLayerA``):
    ``u_j(r) = LN_j(g_jm(... g_j1(r)) + r)`` with gated units
    ``g(x) = (silu(x W1 + b1) * (x W2 + b2)) W3 + b3`` and a LayerNorm (eps_ln, affine
    gamma_j, beta_j) after the skip: :class:`GatedResidualUnit`;
  - ``"additive"`` (this library's first convention): ``u_j(r) = r + silu(r W1_j + b1_j) W2_j + b2_j``,
    no gate and no normalisation: :class:`ResidualUnit`.

  With the final LayerNorm (gamma = 1, beta = 0, as initialised) every row of ``A`` has mean
  zero, so ``A 1 = 0`` and ``rank A <= dk - 1`` (the authors' "numerical rank 63 of 64").
* ``W``, ``a`` multiply from the left (``W A``, ``a A_P``), as in the Lipschitz constant
  C_G of Prop. 5.12 ("the left action of a"); ``b_W``, ``b_a`` are full (dk, dk) matrices.
* RoPE planes are adjacent coordinate pairs ``(2j, 2j+1)``; the commutant of the
  rotations (Prop. 4.1) is then block-diagonal with 2x2 blocks ``c I + s J``,
  ``J = [[0, -1], [1, 0]]``.
* The order parameter uses the rms norm ``||X||_rms = sqrt(mean(X^2))`` and the
  piecewise convention ``m = 0`` when both tensors are identically zero (Def. 5.1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from theorylab.errors import (ParameterError, check_memory, choice, finite_output, finite_result, positive_int,
                              real_array, real_or_exact, real_scalar, seed_int)

EPS: float = 1e-9
"""The positivity floor ``eps`` of eq. (3.4) in the reference code."""
EPS_LN: float = 1e-6
"""The LayerNorm regularisation constant ``eps_LN`` of the reference code (Lemma 5.11)."""

J2 = np.array([[0.0, -1.0], [1.0, 0.0]])
"""The 2x2 rotation generator J spanning, with I, each commutant block (Prop. 4.1)."""


# --------------------------------------------------------------------------- parameters
RESIDUALS = ("glu-ln", "additive")
"""Residual-unit conventions of ``Phi_res``: the authors' gated unit with a final LayerNorm, or ours (additive)."""


@dataclass(frozen=True, eq=False)
class ResidualUnit:
    """One additive residual unit ``u(r) = r + silu(r W1 + b1) W2 + b2`` of the metric learner (``"additive"``)."""

    W1: np.ndarray  # (dk, dh)
    b1: np.ndarray  # (dh,)
    W2: np.ndarray  # (dh, dk)
    b2: np.ndarray  # (dk,)


@dataclass(frozen=True, eq=False)
class GLU:
    """The authors' gated linear unit ``g(x) = (silu(x W1 + b1) * (x W2 + b2)) W3 + b3`` (SwiGLU form)."""

    W1: np.ndarray  # (dk, dh)
    b1: np.ndarray  # (dh,)
    W2: np.ndarray  # (dk, dh)
    b2: np.ndarray  # (dh,)
    W3: np.ndarray  # (dh, dk)
    b3: np.ndarray  # (dk,)


@dataclass(frozen=True, eq=False)
class GatedResidualUnit:
    """The authors' residual unit ``u(r) = LN(g_m(... g_1(r)) + r)`` (``"glu-ln"``): the gated units in sequence,
    the skip, then a LayerNorm with affine ``ln_gamma, ln_beta`` (shape (dk,)) and the head's ``eps_ln``."""

    glus: tuple[GLU, ...]
    ln_gamma: np.ndarray
    ln_beta: np.ndarray


@dataclass(frozen=True, eq=False)
class PLGAParams:
    """Parameters of one PLGA head (eqs. 3.3-3.6); every matrix is (dk, dk) unless stated.

    Attributes
    ----------
    W, b_W : metric-to-potential map of (3.4), ``W A + b_W``.
    P : entrywise exponents of (3.5).
    a, b_a : coupling and bias of (3.6), ``G_LM = a A_P + b_a``.
    units : the residual units of ``Phi_res`` (3.3), applied row-wise: :class:`GatedResidualUnit` (the
        authors') or :class:`ResidualUnit` (additive), see ``RESIDUALS``.
    ln_gamma, ln_beta : LayerNorm affine parameters, shape (dk,).
    eps : positivity floor of (3.4); ``eps_ln`` : LayerNorm constant.
    """

    W: np.ndarray
    b_W: np.ndarray
    P: np.ndarray
    a: np.ndarray
    b_a: np.ndarray
    units: tuple[GatedResidualUnit | ResidualUnit, ...] = ()
    ln_gamma: np.ndarray | None = None
    ln_beta: np.ndarray | None = None
    eps: float = EPS
    eps_ln: float = EPS_LN

    @property
    def dk(self) -> int:
        return self.W.shape[0]


def init_params(dk: int, seed: int = 0, *, n_res: int = 2, hidden: int | None = None,
                eps: float = EPS, eps_ln: float = EPS_LN, residual: str = "glu-ln", n_dense: int = 2) -> PLGAParams:
    """Random PLGA parameters with the reference initialisation (PLGA §3.1, the authors' public code).

    Dense layers of ``Phi_res`` Glorot-uniform with zero bias; ``W, P, a`` Glorot-normal;
    ``b_W, b_a`` zero; every LayerNorm ``gamma = 1, beta = 0``. ``residual`` picks the unit
    (``RESIDUALS``): ``"glu-ln"`` (default, the authors' ``LN(GLU(r) + r)`` with ``n_dense`` gated
    units of width ``hidden`` per residual unit) or ``"additive"`` (``r + silu(r W1 + b1) W2 + b2``).
    The authors' 110M configuration is ``dk = 64, n_res = 8, n_dense = 2, hidden = 180``.
    ``eps > 0`` (the positivity floor: ``A_LM >= eps`` makes ``A_P = A_LM ** P`` finite),
    ``eps_ln >= 0``; ``seed`` in [0, 2^64).
    """
    dk = positive_int("dk", dk)
    n_res = positive_int("n_res", n_res, low=0)
    hidden = positive_int("hidden", hidden if hidden is not None else dk)
    residual = choice("residual", residual, RESIDUALS)
    n_dense = positive_int("n_dense", n_dense)
    eps, eps_ln = real_scalar("eps", eps, low=0, low_inclusive=False), real_scalar("eps_ln", eps_ln, low=0)
    check_memory("dk, hidden, n_res, n_dense",
                 8 * (5 * dk * dk + n_res * n_dense * (3 * dk * hidden + 2 * hidden + 3 * dk)))
    rng = np.random.default_rng(seed_int("seed", seed))

    def glorot_uniform(m, n):
        lim = np.sqrt(6.0 / (m + n))
        return rng.uniform(-lim, lim, size=(m, n))

    def glorot_normal(m, n):
        return rng.normal(0.0, np.sqrt(2.0 / (m + n)), size=(m, n))

    def glu():
        return GLU(glorot_uniform(dk, hidden), np.zeros(hidden), glorot_uniform(dk, hidden), np.zeros(hidden),
                   glorot_uniform(hidden, dk), np.zeros(dk))

    if residual == "additive":
        units = tuple(ResidualUnit(glorot_uniform(dk, hidden), np.zeros(hidden), glorot_uniform(hidden, dk),
                                   np.zeros(dk)) for _ in range(n_res))
    else:
        units = tuple(GatedResidualUnit(tuple(glu() for _ in range(n_dense)), np.ones(dk), np.zeros(dk))
                      for _ in range(n_res))
    return PLGAParams(W=glorot_normal(dk, dk), b_W=np.zeros((dk, dk)), P=glorot_normal(dk, dk),
                      a=glorot_normal(dk, dk), b_a=np.zeros((dk, dk)), units=units,
                      ln_gamma=np.ones(dk), ln_beta=np.zeros(dk), eps=float(eps), eps_ln=float(eps_ln))


def sdpa_params(params: PLGAParams) -> PLGAParams:
    """The same head with ``a = 0, b_a = I``, so ``G_LM = I`` and PLGA is SDPA (Thm 5.4(i), claim A1)."""
    dk = params.dk
    return PLGAParams(params.W, params.b_W, params.P, np.zeros((dk, dk)), np.eye(dk), params.units,
                      params.ln_gamma, params.ln_beta, params.eps, params.eps_ln)


def _is_exact(x) -> bool:
    return isinstance(x, np.ndarray) and x.dtype == object


def _real_or_exact(name: str, x) -> np.ndarray:
    """Validated input of a function with an exact route: object arrays entrywise, numbers as reals."""
    return real_or_exact(name, x, allow_empty=True)


def _square(name: str, M, *, single: bool = False, exact: bool = True) -> np.ndarray:
    """A non-empty square matrix (or a stack of them unless ``single``); object arrays (the exact
    route, unless ``exact=False``: numeric-only functions) are checked entrywise."""
    M = _real_or_exact(name, M) if exact else real_array(name, M)
    if M.ndim < 2 or M.shape[-1] != M.shape[-2] or M.shape[-1] == 0 or (single and M.ndim != 2):
        what = "a non-empty square matrix" + ("" if single else " (or a stack of them)")
        raise ParameterError(f"{name} must be {what} (got shape {M.shape})")
    return M


def _queries(name: str, q, *, exact: bool = True) -> np.ndarray:
    q = _real_or_exact(name, q) if exact else real_array(name, q, allow_empty=True)
    if q.ndim != 2 or q.shape[1] == 0:
        raise ParameterError(f"{name} must be a 2-d array of shape (S, dk), dk >= 1 (got shape {q.shape})")
    return q


# --------------------------------------------------------------------------- forward (3.2)-(3.7)
def sigmoid(u) -> np.ndarray:
    """Logistic ``1/(1 + e^-u)``, evaluated as ``e^u/(1 + e^u)`` for u < 0 (no overflow, full relative
    accuracy in both tails); object arrays (exact route) get the SymPy expression ``1/(1 + exp(-u))``."""
    return _sigmoid(_real_or_exact("u", u))


def _sigmoid(u: np.ndarray) -> np.ndarray:
    if _is_exact(u):
        import sympy as sp

        return np.vectorize(lambda v: 1 / (1 + sp.exp(-v)), otypes=[object])(u)
    e = np.exp(-np.abs(u))                          # <= 1: no overflow; full relative accuracy both sides
    return np.where(u >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def iswiglu(u) -> np.ndarray:
    """``iSwiGLU(u) = silu(u) * u = u^2 sigmoid(u) >= 0`` (PLGA eq. 3.1), overflow-free: every real
    ``u <= 1e154`` (above, ``u^2`` exceeds the float range: ParameterError)."""
    u = _real_or_exact("u", u)
    if not _is_exact(u) and u.size and np.max(u) > _ISWIGLU_MAX:
        raise ParameterError(f"u must be <= {_ISWIGLU_MAX:g} (u^2 sigmoid(u) overflows above; got {np.max(u):g})")
    return _iswiglu(u)


_ISWIGLU_MAX = 1e154


def _iswiglu(u: np.ndarray) -> np.ndarray:
    return u * (u * _sigmoid(u))            # u (u sigmoid(u)): 0, not inf * 0, for u << 0


@finite_output("q_rot")
def density_operator(q_rot) -> np.ndarray:
    """``D_Q = Q~^T Q~`` of the rotated queries ``q_rot`` (S, dk) (PLGA eq. 3.2, Def. 4.3)."""
    q = _queries("q_rot", q_rot)
    return q.T @ q                                                     # (dk, dk)


@finite_output("q_rot")
def cumulative_density_operators(q_rot, mask=None) -> np.ndarray:
    """Masked cumulative Grams ``D_t^cum = sum_{n<=t} m_n q~_n q~_n^T`` for t = 1..S (PLGA eq. 4.16).

    Returns an array (S, dk, dk); ``mask`` (S,) of 0/1 weights defaults to all ones.
    """
    q = _queries("q_rot", q_rot)
    m = np.ones(len(q)) if mask is None else real_array("mask", mask, low=0, high=1, allow_empty=True)
    if m.shape != (len(q),):
        raise ParameterError(f"mask must have shape ({len(q)},) (got {m.shape})")
    check_memory("q_rot", 16 * q.shape[0] * q.shape[1] ** 2)
    outer = np.einsum("n,ni,nj->nij", m, q, q)                         # (S, dk, dk)
    return np.cumsum(outer, axis=0)


@finite_output("x, gamma, beta")
def layer_norm(x, gamma=None, beta=None, eps: float = EPS_LN) -> np.ndarray:
    """Row-wise LayerNorm ``gamma * (x - mean) / sqrt(var + eps) + beta`` over the last axis.

    Population variance; ``eps = 0`` gives the exactly scale-invariant map (Lemma 5.11).
    Convention for a constant row (zero variance): with ``eps = 0`` it maps to 0 (then
    ``+ beta``), the value every ``eps > 0`` gives it, instead of 0/0.
    Each numeric row is first scaled by a power of two (exact: the result is unchanged
    wherever the plain formula neither overflows nor underflows), so rows of size 1e200
    or 1e-200 are normalised correctly.
    Object arrays (e.g. of ``mpmath.mpf`` or SymPy symbols) are evaluated in their own arithmetic;
    with them ``eps`` may be a SymPy symbol too.
    ``gamma``, ``beta`` (optional) broadcast against the rows, e.g. shape ``(d,)``.
    """
    x = _real_or_exact("x", x)
    if x.ndim < 1 or x.shape[-1] == 0:
        raise ParameterError(f"x must be an array with a non-empty last axis (got shape {x.shape})")
    if not (_is_exact(x) and hasattr(eps, "free_symbols")):              # a SymPy eps on the exact route only
        eps = real_scalar("eps", eps, low=0)
    gamma, beta = (None if a is None else _affine(name, a, x.shape) for name, a in (("gamma", gamma), ("beta", beta)))
    return _layer_norm(x, gamma, beta, eps)


def _affine(name: str, a, shape) -> np.ndarray:
    a = _real_or_exact(name, a)
    try:
        ok = np.broadcast_shapes(a.shape, shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ParameterError(f"{name} must broadcast to the shape of x {shape}, e.g. ({shape[-1]},) (got {a.shape})")
    return a


def _layer_norm(x: np.ndarray, gamma, beta, eps: float) -> np.ndarray:
    if _is_exact(x):
        centred = x - x.mean(axis=-1, keepdims=True)
        var = np.mean(centred * centred, axis=-1, keepdims=True)
        den = (var + eps) ** 0.5          # ** 0.5: also high-precision (mpmath) object arrays
        out = centred / np.where(den == 0, 1, den)
    else:
        _, e = np.frexp(np.max(np.abs(x), axis=-1, keepdims=True))
        y = np.ldexp(x, -e)                                                  # each row in [-1, 1], exactly
        centred = y - y.mean(axis=-1, keepdims=True)
        var = np.mean(centred * centred, axis=-1, keepdims=True)
        with np.errstate(over="ignore"):
            eps_y = np.ldexp(eps, -2 * e)                                    # eps in the scaled units
        den = np.sqrt(var + eps_y)
        out = np.divide(centred, den, out=np.zeros_like(centred), where=den > 0)   # constant row: 0
        tiny = np.isinf(eps_y)                                               # |x| << sqrt(eps): var negligible
        if tiny.any():
            out = np.where(tiny, np.ldexp(centred, e) / np.sqrt(eps), out)
    if gamma is not None:
        out = out * gamma
    if beta is not None:
        out = out + beta
    return out


def silu(u) -> np.ndarray:
    """``silu(u) = u sigmoid(u)`` (overflow-free)."""
    return _silu(_real_or_exact("u", u))


def _silu(u: np.ndarray) -> np.ndarray:
    return u * _sigmoid(u)


def _unit_rows(x, dk: int) -> np.ndarray:
    """Rows ``(..., dk)`` of finite reals fed to a residual unit (float route only)."""
    x = real_array("x", x, allow_empty=True)
    if x.ndim < 1 or x.shape[-1] != dk:
        raise ParameterError(f"x must have rows of length dk = {dk} (got shape {x.shape})")
    return x


@finite_output("x")
def glu(x, g: GLU) -> np.ndarray:
    """The authors' gated unit ``(silu(x W1 + b1) * (x W2 + b2)) W3 + b3`` on the rows of ``x``."""
    return _glu(_unit_rows(x, g.W1.shape[0]), g)


def _glu(x: np.ndarray, g: GLU) -> np.ndarray:
    return (_silu(x @ g.W1 + g.b1) * (x @ g.W2 + g.b2)) @ g.W3 + g.b3       # (..., dk)


@finite_output("x")
def gated_unit(x, u: GatedResidualUnit, eps_ln: float = EPS_LN) -> np.ndarray:
    """The authors' residual unit ``LN(g_m(... g_1(x)) + x)`` on the rows of ``x`` (``"glu-ln"``); ``eps_ln >= 0``."""
    x = _unit_rows(x, u.ln_gamma.shape[-1])
    eps_ln = real_scalar("eps_ln", eps_ln, low=0)
    return _gated_unit(x, u, eps_ln)


def _gated_unit(x: np.ndarray, u: GatedResidualUnit, eps_ln: float) -> np.ndarray:
    h = x
    for g in u.glus:
        h = _glu(h, g)
    return layer_norm(h + x, u.ln_gamma, u.ln_beta, eps_ln)                  # (..., dk)


@finite_output("A, P")
def hadamard_power(A, P) -> np.ndarray:
    """The elementwise (Hadamard) power ``A^(o P)``, ``(A^(o P))_ij = A_ij ** P_ij`` (PLGA eq. 3.5, Prop. 3.7).

    For entrywise positive ``A`` it is a one-parameter group in the exponent:
    ``A^(o (s + t) P) = A^(o s P) o A^(o t P)`` and ``A^(o 0) = 1 1^T`` (claim A14). ``A`` and ``P``
    broadcast together; a numeric ``A`` must be entrywise >= 0 (a negative base has no real power).
    Object arrays (the exact route) are raised in their own arithmetic.
    """
    A, P = _real_or_exact("A", A), _real_or_exact("P", P)
    if not _is_exact(A) and A.size and np.min(A) < 0:
        raise ParameterError(f"A must be entrywise >= 0 (a negative base has no real power; got {np.min(A):g})")
    try:
        np.broadcast_shapes(A.shape, P.shape)
    except ValueError:
        raise ParameterError(f"A and P must have broadcastable shapes (got {A.shape} and {P.shape})") from None
    return _hadamard_power(A, P)


def _hadamard_power(A: np.ndarray, P: np.ndarray) -> np.ndarray:
    return A ** P


def metric_learner(x, params: PLGAParams) -> np.ndarray:
    """``Phi_res``: the residual units applied to every row of ``x`` (PLGA eq. 3.3, Prop. 3.11)."""
    x = real_array("x", x)
    if x.ndim < 1 or x.shape[-1] != params.dk:
        raise ParameterError(f"x must have rows of length dk = {params.dk} (got shape {x.shape})")
    return finite_result("x", _metric_learner(x, params))


def _metric_learner(x: np.ndarray, params: PLGAParams) -> np.ndarray:
    for u in params.units:
        if isinstance(u, GatedResidualUnit):
            x = _gated_unit(x, u, params.eps_ln)
        else:
            x = x + _silu(x @ u.W1 + u.b1) @ u.W2 + u.b2                     # (..., dk)
    return x


@dataclass(frozen=True, eq=False)
class PLGAStages:
    """Every tensor of the PLGA chain for one density operator (eqs. 3.2-3.6)."""

    D: np.ndarray       # density operator D_Q (3.2)
    A: np.ndarray       # metric  Phi_res(LN(D)) (3.3)
    U: np.ndarray       # pre-activation W A + b_W (3.4)
    A_LM: np.ndarray    # iSwiGLU(U) + eps (3.4)
    A_P: np.ndarray     # A_LM ** P (3.5)
    G: np.ndarray       # G_LM = a A_P + b_a (3.6)


def stages_from_density(D, params: PLGAParams) -> PLGAStages:
    """Run ``Psi``: D -> (A, A_LM, A_P, G_LM) (PLGA eqs. 3.3-3.6); ``D`` may be a stack (..., dk, dk)."""
    D = _square("D", D)
    if D.shape[-1] != params.dk:
        raise ParameterError(f"D must have trailing shape ({params.dk}, {params.dk}) (got {D.shape})")
    A = _metric_learner(_layer_norm(D, params.ln_gamma, params.ln_beta, params.eps_ln), params)  # (..., dk, dk)
    U = params.W @ A + params.b_W                                                                # (..., dk, dk)
    A_LM = _iswiglu(U) + params.eps                                                              # (..., dk, dk) > 0
    A_P = _hadamard_power(A_LM, params.P)                                                        # (..., dk, dk) > 0
    G = params.a @ A_P + params.b_a                                                              # (..., dk, dk)
    return PLGAStages(D, A, U, A_LM, A_P, G)


def plga_stages(q_rot, params: PLGAParams) -> PLGAStages:
    """All PLGA tensors from the global Gram of the rotated queries (eqs. 3.2-3.6)."""
    return stages_from_density(density_operator(q_rot), params)


def g_lm(q_rot, params: PLGAParams) -> np.ndarray:
    """``G_LM`` (dk, dk) of the rotated queries ``q_rot`` (S, dk) with the global Gram (eqs. 3.2-3.6)."""
    return plga_stages(q_rot, params).G


def g_lm_cumulative(q_rot, params: PLGAParams, mask=None) -> np.ndarray:
    """``G_LM^(t) = Psi(D_t^cum)`` for t = 1..S, shape (S, dk, dk) (PLGA eq. 4.16, cumulative Gram)."""
    return stages_from_density(cumulative_density_operators(q_rot, mask), params).G


@finite_output("q_rot, k_rot, G")
def scores(q_rot, k_rot, G) -> np.ndarray:
    """``E = Q~ G K~^T / sqrt(dk)`` (PLGA eq. 3.7); ``G`` (dk, dk) or per-row (S, dk, dk)."""
    q, k = _queries("q_rot", q_rot), _queries("k_rot", k_rot)
    G = _square("G", G)
    dk = q.shape[1]
    if k.shape[1] != dk or G.shape[-1] != dk or G.ndim > 3 or (G.ndim == 3 and len(G) != len(q)):
        raise ParameterError(f"q_rot (S, dk), k_rot (S', dk) and G (dk, dk) or (S, dk, dk) must agree "
                             f"(got {q.shape}, {k.shape}, {G.shape})")
    if G.ndim == 2:
        return q @ G @ k.T / np.sqrt(dk)                                # (S, S')
    return np.einsum("ti,tij,sj->ts", q, G, k) / np.sqrt(dk)           # row t uses G^(t)


@finite_output("q_t, K, dG")
def row_perturbation_bound(q_t, K, dG) -> float:
    """``||q_t|| ||K||_2 ||dG||_2 / sqrt(dk)``: bound on the l2 change of attention row t when G_LM moves
    by ``dG`` (PLGA §5.3: softmax is 1-Lipschitz in l2, composed with the bilinear score)."""
    q_t = real_array("q_t", q_t)
    K, dG = real_array("K", K), _square("dG", dG, single=True, exact=False)     # K: at least one key (a row)
    if K.ndim != 2:
        raise ParameterError(f"K must be a 2-d array of shape (S, dk), S >= 1 (got shape {K.shape})")
    if q_t.ndim != 1 or K.shape[1] != q_t.size or dG.shape[0] != q_t.size:
        raise ParameterError(f"q_t (dk,), K (S, dk) and dG (dk, dk) must share dk "
                             f"(got shapes {q_t.shape}, {K.shape}, {dG.shape})")
    return float(np.linalg.norm(q_t) * np.linalg.norm(K, 2) * np.linalg.norm(dG, 2) / np.sqrt(q_t.size))


# --------------------------------------------------------------------------- structural quantities
@dataclass(frozen=True)
class PositivityMargins:
    """Smallest entries along the positive chain (Prop. 3.x, claim A2)."""

    min_iswiglu: float     # min iSwiGLU(W A + b_W) >= 0
    min_A_LM: float        # >= eps
    min_A_P: float         # > 0
    eps: float

    @property
    def positive(self) -> bool:
        """``A_LM >= eps > 0`` entrywise and ``A_P > 0`` entrywise."""
        return self.min_iswiglu >= 0 and self.min_A_LM >= self.eps and self.min_A_LM > 0 and self.min_A_P > 0


def positivity_margins(stages: PLGAStages, eps: float = EPS) -> PositivityMargins:
    """The positivity margins of ``iSwiGLU(U)``, ``A_LM`` and ``A_P`` (claim A2)."""
    eps = real_scalar("eps", eps, low=0)
    return PositivityMargins(float(np.min(_iswiglu(stages.U))), float(np.min(stages.A_LM)),
                             float(np.min(stages.A_P)), eps)


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
    singularity condition; claim A16). Object arrays (the exact route) are checked entrywise."""
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
    negative entry)."""
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
    ``M`` for every positive ``v`` (Collatz-Wielandt); ``v = 1`` gives the row-sum bounds."""
    M = _square("M", M, exact=False)
    v = np.ones(M.shape[-1]) if v is None else real_array("v", v, low=0, low_inclusive=False)
    if v.shape != M.shape[-1:]:
        raise ParameterError(f"v must have shape ({M.shape[-1]},) (got {v.shape})")
    r = (M @ v) / v
    return float(r.min()), float(r.max())


@dataclass(frozen=True, eq=False)
class NotearsValue:
    """NOTEARS ``h(W) = tr exp(W o W) - d`` evaluated overflow-safely (claims A5, A13).

    ``log_h`` is the natural log of h (finite whenever h > 0, even when h overflows a
    float); ``h`` is ``exp(log_h)`` (``inf`` on overflow, 0.0 when W o W is nilpotent);
    ``method`` is "walk-series" or "shifted-expm".
    """

    h: float
    log_h: float
    method: str


_SERIES_RHO = 8.0


def walk_terms(W, kmax: int = 30) -> np.ndarray:
    """``log( tr((W o W)^k) / k! )`` for k = 1..kmax: log weighted closed-walk counts (claim A5).

    Computed with a renormalised running power, so no term overflows; a zero walk
    count gives ``-inf``. ``W`` one square matrix, ``kmax`` in [1, 10000].
    """
    kmax = positive_int("kmax", kmax, high=10_000)
    return _walk_terms(_squared("W", W), kmax)


def _squared(name: str, W) -> np.ndarray:
    """``W o W`` of one square real matrix, refused if an entry overflows."""
    W = _square(name, W, single=True, exact=False)
    with np.errstate(over="ignore"):
        return finite_result(name, W ** 2)


def _walk_terms(M: np.ndarray, kmax: int) -> np.ndarray:
    out = np.full(kmax, -np.inf)                                        # -inf: a zero walk count
    B, log_scale = np.eye(len(M)), 0.0                                  # M^k/k! = B * exp(log_scale)
    for k in range(1, kmax + 1):
        B = B @ M / k
        s = np.max(B)                                                   # M = W o W >= 0 entrywise, so B >= 0
        if s == 0:
            break                                                       # M^k = 0: every later term is -inf too
        B, log_scale = B / s, log_scale + np.log(s)
        with np.errstate(divide="ignore"):
            out[k - 1] = np.log(np.trace(B)) + log_scale                # trace >= 0; log 0 = -inf
    return out


def notears_h(W) -> NotearsValue:
    """``h(W) = tr exp(W o W) - d = sum_{k>=1} tr((W o W)^k)/k!`` (NOTEARS; PLGA §4.3, claims A5, A13).

    For spectral radius rho(W o W) <= 8 the walk series is summed term by term (all
    terms are >= 0, so no cancellation, and small h keeps full relative accuracy, down
    to the floor dk eps^2); above it ``log tr exp(M) = rho + log tr exp(M - rho I)``,
    which cannot overflow: ``exp(M - rho I) = (e^(-rho/2^s) exp(M/2^s))^(2^s)`` is a power of an
    entrywise nonnegative matrix, squared with a running renormalisation (no cancellation,
    whatever the size of W; the direct ``expm(M - rho I)`` returned 0 or NaN from W ~ 1e10 on).
    Raises ParameterError when W o W is so far from normal (its norm dwarfs its spectral radius)
    that float64 cannot determine ``log h`` to a relative 1e-8.
    """
    M = _squared("W", W)
    d = len(M)
    top = np.frexp(np.max(M))[1]                                          # rho(M) = 2^top rho(M / 2^top), exactly
    rho = float(np.ldexp(np.max(np.abs(np.linalg.eigvals(np.ldexp(M, -top)))), top))
    if rho <= _SERIES_RHO:
        kmax = d + 60               # every simple cycle (length <= d) is reached, then its multiples fall as 8^k / k!
        logs = _walk_terms(M, kmax)
        finite = logs[np.isfinite(logs)]
        if finite.size == 0:
            return NotearsValue(0.0, -np.inf, "walk-series")
        top = finite.max()
        log_h = float(top + np.log(np.sum(np.exp(finite - top))))
        return NotearsValue(float(np.exp(log_h)), log_h, "walk-series")
    log_t, err = _log_trace_shifted_exp(M, rho)                           # log tr exp(M - rho I)
    log_h = rho + log_t + float(np.log1p(-d * np.exp(-rho - log_t)))
    if not err <= _NOTEARS_RTOL * abs(log_h):
        raise ParameterError(f"W: h(W) is not determined in float64 (W o W is too far from normal: its norm "
                             f"{np.max(M):.3g} dwarfs its spectral radius {rho:.3g}; log h known to +-{err:.3g})")
    with np.errstate(over="ignore"):
        h = float(np.exp(log_h))
    return NotearsValue(h, log_h, "shifted-expm")


_NOTEARS_RTOL = 1e-8
"""Largest relative error bound of ``log h`` that :func:`notears_h` returns (above it: ParameterError)."""


def _log_trace_shifted_exp(M: np.ndarray, rho: float) -> tuple[float, float]:
    """``log tr exp(M - rho I)`` of an entrywise nonnegative ``M`` by scaling and squaring: ``exp((M - rho I)/2^s)
    = e^(-rho/2^s) expm(M/2^s)`` with ``||M/2^s||_inf <= 1``, then ``s`` squarings, each renormalised by its largest
    entry (kept as a logarithm). Every factor is nonnegative, so no step cancels or overflows, and the products'
    entrywise relative errors (``<= d eps`` each) at most double with each squaring: the second value returned,
    ``2^s d eps``, bounds the absolute error of the logarithm (~ ``||M|| eps``: small beside ``rho`` unless M is
    far from normal)."""
    from scipy.linalg import expm

    s = max(0, int(np.frexp(np.max(M))[1]) + int(np.ceil(np.log2(len(M)))))
    B, log_scale = np.maximum(expm(np.ldexp(M, -s)), 0.0), -np.ldexp(rho, -s)      # exp((M - rho I)/2^s)
    for _ in range(s + 1):
        top = np.max(B)
        B, log_scale = B / top, log_scale + np.log(top)
        if _ == s:
            break
        B, log_scale = B @ B, 2 * log_scale
    return float(np.log(np.trace(B)) + log_scale), float(np.ldexp(len(M) * np.finfo(float).eps, s))


def dag_loss(W) -> float:
    """The authors' implemented DAG loss ``DL = |log(tr e^{W o W} / d)| = log1p(h / d)`` (PLGA §4.3; claim A13).

    Computed from :func:`notears_h` (``h = tr e^{W o W} - d >= 0``, so the absolute value is
    redundant): ``log1p(h/d)`` while ``h <= d``, ``log h - log d + log1p(d/h)`` above (finite
    where ``h`` overflows). It keeps full relative accuracy at the floor: for ``W = eps 1 1^T``
    (dk = 64, eps = 1e-9) ``DL = log1p(eps^2) = 1e-18``, where evaluating ``tr e^{W o W}`` first
    (the authors' eigenvalue route) returns ``1 + 1e-18 = 1`` in float64 and DL = 0.
    """
    M = _square("W", W)
    d = M.shape[-1]
    v = notears_h(M)
    if v.log_h == -np.inf:
        return 0.0
    excess = v.log_h - np.log(d)                                          # log(h / d)
    return float(np.log1p(np.exp(excess)) if excess <= 0 else excess + np.log1p(np.exp(-excess)))


def dag_floor(dk, eps=EPS) -> np.ndarray:
    """``dk * eps^2``: the lower bound on h(W) when every entry of W is >= eps (claim A13)."""
    with np.errstate(over="ignore"):
        return finite_result("dk, eps", real_array("dk", dk, low=1) * real_array("eps", eps, low=0) ** 2)


def commutant_projection(G) -> np.ndarray:
    """Orthogonal (Frobenius) projection onto the RoPE commutant (Prop. 4.1, Lemma 5.9; claim A12).

    Off-diagonal 2x2 blocks are zeroed; each diagonal block ``B`` becomes
    ``(tr B / 2) I + ((B10 - B01) / 2) J``. Planes are adjacent pairs (2j, 2j+1);
    requires even dk. Works on stacks (..., dk, dk).
    """
    G = _square("G", G)
    dk = G.shape[-1]
    if dk % 2:
        raise ParameterError(f"G must have an even size dk (got {dk})")
    out = np.zeros_like(G)
    for j in range(0, dk, 2):
        c = 0.5 * G[..., j, j] + 0.5 * G[..., j + 1, j + 1]          # = 0.5 (a + b), exactly, and no overflow
        s = 0.5 * G[..., j + 1, j] - 0.5 * G[..., j, j + 1]
        out[..., j, j] = out[..., j + 1, j + 1] = c
        out[..., j + 1, j], out[..., j, j + 1] = s, -s
    return out


def off_commutant_residual(G) -> np.ndarray:
    """``||G - Pi(G)||_F / ||G||_F`` (0 for G = 0) (PLGA Appendix D diagnostic; claim A12)."""
    G = _square("G", G, exact=False)
    if G.shape[-1] % 2:
        raise ParameterError(f"G must have an even size dk (got {G.shape[-1]})")
    G = np.ldexp(G, -np.frexp(np.max(np.abs(G), axis=(-2, -1), keepdims=True))[1])   # scale invariant: exact rescale
    num = np.linalg.norm(G - commutant_projection(G), axis=(-2, -1))
    den = np.linalg.norm(G, axis=(-2, -1))
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def plane_rotations(freqs, positions) -> np.ndarray:
    """RoPE rotations ``R_n`` as matrices, shape (len(positions), dk, dk): the library's
    :func:`theorylab.psa.shear.rotate_pairs` (planes (2j, 2j+1), angle n*theta_j) applied to a basis."""
    from theorylab.psa import shear

    freqs = real_array("freqs", freqs)
    n = np.atleast_1d(real_array("positions", positions))
    if freqs.ndim != 1 or n.ndim != 1:
        raise ParameterError(f"freqs and positions must be 1-D (got shapes {freqs.shape} and {n.shape})")
    dk = 2 * freqs.size
    check_memory("freqs, positions", 3 * 8 * n.size * dk * dk)
    cos, sin = shear.rope_tables(n.size, freqs, n)
    basis = np.broadcast_to(np.eye(dk)[:, None, :], (dk, n.size, dk))      # basis[j, n] = e_j
    return np.transpose(shear.rotate_pairs(basis, cos, sin), (1, 2, 0))      # [n, :, j] = R_n e_j


@finite_output("M")
def position_twirl(M, freqs, S: int) -> np.ndarray:
    """``(1/S) sum_{n=1}^S R_n M R_n^T`` computed by direct summation (Lemma 5.9; claim A12)."""
    M = _square("M", M, single=True, exact=False)
    S = positive_int("S", S)
    freqs = real_array("freqs", freqs)
    if 2 * freqs.size != M.shape[0]:
        raise ParameterError(f"freqs must hold dk/2 = {M.shape[0] // 2} frequencies for M of size {M.shape[0]} "
                             f"(got {np.size(freqs)})")
    R = plane_rotations(freqs, np.arange(1, S + 1))
    return (R @ M @ np.swapaxes(R, -1, -2)).sum(axis=0) / S                # (dk, dk)


PAIR_SETS = ("unordered", "ordered")
"""How the twirl's difference frequencies are listed: each distinct frequency once (ours), or over ordered plane
pairs a != b as in the authors' audit (``build_freqs``), which counts every cross-plane frequency twice."""


def _frequencies(freqs) -> np.ndarray:
    """RoPE frequencies: a 1-D array of finite reals whose doubles and pairwise sums stay finite."""
    th = real_array("freqs", freqs, low=-1e300, high=1e300)
    if th.ndim != 1:
        raise ParameterError(f"freqs must be a 1-D array of frequencies (got shape {th.shape})")
    return th


def twirl_frequencies(freqs, pairs: str = "unordered") -> np.ndarray:
    """The nonzero difference frequencies of the position twirl (Lemma 5.9): ``2 theta_a`` and ``theta_a +- theta_b``.

    ``pairs = "unordered"`` (ours): planes a < b, each frequency once: ``dk/2 + 2 C(dk/2, 2) = dk^2/4``
    entries (1024 at dk = 64). ``"ordered"`` (the authors' audit): planes a != b, so every cross-plane
    frequency twice: ``dk/2 + dk/2 (dk/2 - 1) 2`` entries (2016 at dk = 64). The ordered list is the
    entry weighting: of the ``dk^2 - dk`` off-commutant entries of a matrix in the RoPE eigenbasis,
    ``2`` carry each in-plane frequency and ``4`` each cross-plane one, half of that per ordered list
    entry. C_Theta is the same for both; medians and fractions are not (docs/plga.md).
    """
    th = _frequencies(freqs)
    choice("pairs", pairs, PAIR_SETS)
    iu = np.triu_indices(th.size, 1)                                     # empty for one plane
    diffs = [2 * th, th[iu[0]] + th[iu[1]], th[iu[0]] - th[iu[1]]]
    if pairs == "ordered":
        diffs += diffs[1:]
    return np.abs(np.concatenate(diffs))


def twirl_multiplier(omega, S: int) -> np.ndarray:
    """``|(1/S) sum_{n=1}^S e^{i omega n}| = |sin(S omega/2)| / (S |sin(omega/2)|)``: the factor by which the length-S
    position twirl multiplies the frequency-omega component (Lemma 5.9); 1 at a resonance ``sin(omega/2) = 0``.
    It is at most ``min(1, 1/(S |sin(omega/2)|))`` (the Lean ``geom_orbit_bound``)."""
    omega = np.remainder(real_array("omega", omega), 2 * np.pi)          # 2 pi-periodic: no overflow in S omega
    S = positive_int("S", S)
    den = S * np.abs(np.sin(omega / 2))
    return np.divide(np.abs(np.sin(S * omega / 2)), den, out=np.ones_like(den), where=den > 0)


@dataclass(frozen=True)
class TwirlStatistics:
    """The multipliers of one twirl length over one frequency list (the authors' audit table, ``twirl_analytic``)."""

    S: int
    pairs: str
    n: int                   # number of frequencies listed (1024 unordered, 2016 ordered at dk = 64)
    worst: float             # largest multiplier
    median: float
    below_0_1: float         # fraction of multipliers < 0.1
    below_0_01: float        # fraction < 0.01
    slowest_in_plane: float  # multiplier of the smallest in-plane frequency 2 min(theta)
    bound: float             # C_Theta / S, Lemma 5.9's uniform bound on the multipliers


def twirl_statistics(freqs, S: int, pairs: str = "unordered") -> TwirlStatistics:
    """:class:`TwirlStatistics` of the length-``S`` twirl over :func:`twirl_frequencies` ``(freqs, pairs)``."""
    th = _frequencies(freqs)
    m = twirl_multiplier(twirl_frequencies(th, pairs), S)
    return TwirlStatistics(int(S), pairs, int(m.size), float(m.max()), float(np.median(m)),
                           float(np.mean(m < 0.1)), float(np.mean(m < 0.01)),
                           float(twirl_multiplier(2 * th.min(), S)), twirl_constant(th) / S)


def twirl_constant(freqs) -> float:
    """``C_Theta = max_{omega != 0} 1/|sin(omega/2)|`` over the difference frequencies
    ``2 theta_a`` and ``theta_a +- theta_b`` (Lemma 5.9); ``inf`` if any is resonant."""
    th = _frequencies(freqs)
    s = np.abs(np.sin(twirl_frequencies(th) / 2))
    return float(np.inf if np.any(s == 0) else 1.0 / s.min())


def rms(X) -> float:
    """``||X||_rms = sqrt(mean(X^2))``, scaled by max|X| first so it neither under- nor overflows.

    Parameters
    ----------
    X : array-like of finite reals, not empty (the mean of no entries is 0/0).

    Raises
    ------
    ParameterError
        If ``X`` is empty or holds anything but finite real numbers.
    """
    return _rms(real_array("X", X))


def _rms(X: np.ndarray) -> float:
    top = float(np.max(np.abs(X)))
    return 0.0 if top == 0 else top * float(np.sqrt(np.mean((X / top) ** 2)))


NORMALIZATIONS = ("rms", "signed")
"""Denominators of the order parameter: the rms one of Def. 5.1 (ours) or the authors' symmetrized signed mean."""


def _mean(X) -> float:
    """``mean(X)``, scaled by max|X| first (no overflow)."""
    top = float(np.max(np.abs(X))) if X.size else 0.0
    return 0.0 if top == 0 else top * float(np.mean(X / top))


def order_parameter(D1, D2, normalization: str = "rms") -> float:
    """``m = ||D1 - D2||_rms / (0.5 (||D1||_rms + ||D2||_rms))`` (PLGA Def. 5.1; claim A10).

    Piecewise convention: ``m = 0`` when both tensors are identically zero, so that
    ``m = 0`` iff ``D1 == D2`` holds without exception (Prop. 5.2(ii)).

    ``normalization="signed"``: the authors' audit statistic ``||D1 - D2||_rms / (0.5 (|mean D1| +
    |mean D2|))`` (their symmetrized adaptation of the source papers' ``|mu_1|``; ``order_pair``):
    0 when ``D1 == D2``, ``inf`` when the means cancel but the tensors differ. It is never below the
    rms statistic (``|mean X| <= ||X||_rms``), with equality for constant tensors.
    """
    D1, D2 = real_array("D1", D1), real_array("D2", D2)
    if D1.shape != D2.shape:
        raise ParameterError(f"D1 and D2 must have the same shape (got {D1.shape} and {D2.shape})")
    e = np.frexp(max(np.max(np.abs(D1)), np.max(np.abs(D2))))[1]         # m is scale invariant: scaling both
    D1, D2 = np.ldexp(D1, -e), np.ldexp(D2, -e)                        # by a power of two keeps D1 - D2 finite
    if choice("normalization", normalization, NORMALIZATIONS) == "signed":
        num, mu = _rms(D1 - D2), 0.5 * (abs(_mean(D1)) + abs(_mean(D2)))
        return 0.0 if num == 0 else (num / mu if mu > 0 else float("inf"))
    den = 0.5 * (_rms(D1) + _rms(D2))
    return 0.0 if den == 0 else _rms(D1 - D2) / den


@dataclass(frozen=True)
class DensityReport:
    """Structure of D_Q = Q^T Q (PLGA §3.2; claim A11)."""

    symmetry_error: float   # max |D - D^T|
    min_eigenvalue: float   # >= -tol for PSD
    rank: int               # numerical rank (tolerance tol)
    rank_bound: int         # min(S, dk)
    tol: float


def density_report(q_rot) -> DensityReport:
    """Symmetry, smallest eigenvalue and numerical rank of ``D_Q`` vs the bound min(S, dk)."""
    q = _queries("q_rot", q_rot, exact=False)
    D = density_operator(q)
    if not q.shape[0]:
        raise ParameterError("q_rot must have at least one row (S >= 1)")
    ev = np.linalg.eigvalsh(0.5 * (D + D.T))
    tol = max(D.shape) * np.finfo(float).eps * max(float(np.max(np.abs(ev))), 1e-300)
    return DensityReport(float(np.max(np.abs(D - D.T))), float(ev.min()), int(np.sum(ev > tol)),
                         min(q.shape), float(tol))


def ln_scale_error(D, S, eps: float = EPS_LN) -> np.ndarray:
    """``LN_eps(D) - LN_eps(D / S)`` computed directly, row-wise (Lemma 5.11(ii); claim A11).

    No proxy: both LayerNorms are evaluated and subtracted (no affine gamma, beta).
    """
    D = _real_or_exact("D", D)
    if D.ndim < 1 or D.shape[-1] == 0:
        raise ParameterError(f"D must be an array with a non-empty last axis (got shape {D.shape})")
    S = real_scalar("S", S, low=0, low_inclusive=False)
    eps = real_scalar("eps", eps, low=0)
    return _layer_norm(D, None, None, eps) - _layer_norm(D / S, None, None, eps)




def ln_scale_proxy(D, S, eps: float = EPS_LN) -> np.ndarray:
    """The first-order proxy ``eps / (2 v)``, ``v = var(row of D / S)``, of the relative eps-LayerNorm scale error
    ``||LN(D) - LN(D/S)|| / ||LN(D/S)||``, row-wise (``inf`` on constant rows). A labelled proxy, reported beside
    the direct :func:`ln_scale_error` as in the authors' audit (``ln_pair_error``); without affine parameters it
    is an upper bound, ``sqrt((v + eps)/(v + eps/S^2)) - 1 <= eps/(2v)``, tight to first order as eps/v -> 0
    (Lemma 5.11(ii); claim A15)."""
    D = real_array("D", D)
    if D.ndim < 1 or D.shape[-1] == 0:
        raise ParameterError(f"D must be an array with a non-empty last axis (got shape {D.shape})")
    S = real_scalar("S", S, low=0, low_inclusive=False)
    eps = real_scalar("eps", eps, low=0)
    # eps / (2 var(D/S)) = eps S^2 / (2 var D), every row and S scaled by powers of two first (exact): no overflow
    e = np.frexp(np.max(np.abs(D), axis=-1))[1]                             # rows D = 2^e y, |y| <= 1
    v = np.var(np.ldexp(D, -e[..., None]), axis=-1)
    s_mant, s_exp = np.frexp(S)
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        out = np.ldexp(eps * s_mant ** 2 / (2 * v), 2 * s_exp - 2 * e)                # constant rows: replaced below
    if np.any((v > 0) & ~np.isfinite(out)):
        raise ParameterError("D, S, eps out of range: the proxy eps S^2 / (2 var D) overflows the float range")
    return np.where(v > 0, out, np.inf)


@finite_output("W, b, G")
def absorb_operator(W, b, G) -> tuple[np.ndarray, np.ndarray]:
    """``(W G, b G)``: a constant operator absorbed into an affine query projection,
    ``(X W + 1 b^T) G = X (W G) + 1 (b^T G)`` (PLGA Thm 5.4(ii), the authors' ``absorb_operator_affine``;
    claim A19). With RoPE the absorbed model computes the same scores iff ``G`` lies in the rotation
    commutant (Prop. 4.1). Object arrays (the exact route) are checked entrywise."""
    W, b = _real_or_exact("W", W), _real_or_exact("b", b)
    G = _square("G", G, single=True)
    if W.ndim != 2 or W.shape[1] != G.shape[0] or b.shape != (W.shape[1],):
        raise ParameterError(f"W (d, dk), b (dk,) and G (dk, dk) must fit (got {W.shape}, {b.shape}, {G.shape})")
    return W @ G, b @ G


__all__ = [
    "EPS", "EPS_LN", "J2", "RESIDUALS", "ResidualUnit", "GLU", "GatedResidualUnit", "PLGAParams", "init_params",
    "sdpa_params",
    "iswiglu", "silu", "density_operator", "cumulative_density_operators", "layer_norm", "glu", "gated_unit",
    "hadamard_power", "metric_learner",
    "PLGAStages", "stages_from_density", "plga_stages", "g_lm", "g_lm_cumulative", "scores",
    "row_perturbation_bound",
    "PositivityMargins", "positivity_margins", "PerronPair", "row_clone", "perron_frobenius",
    "collatz_wielandt_bounds", "sigmoid",
    "NotearsValue", "walk_terms", "notears_h", "dag_loss", "dag_floor",
    "commutant_projection", "off_commutant_residual", "plane_rotations", "position_twirl", "PAIR_SETS",
    "twirl_frequencies", "twirl_multiplier", "TwirlStatistics", "twirl_statistics", "twirl_constant",
    "rms", "NORMALIZATIONS", "order_parameter", "DensityReport", "density_report", "ln_scale_error", "ln_scale_proxy",
    "absorb_operator",
]

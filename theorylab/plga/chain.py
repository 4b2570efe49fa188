"""The forward chain of one PLGA head: the operator G_LM and the scores (PLGA eqs. 3.1-3.9, Thm 5.4(ii)).

Forward pass, one head of width ``dk``, rotated queries ``q_rot`` of shape ``(S, dk)``
(Definition 4.3: the density operator is built from *rotary-rotated* queries)::

    D_Q   = Q~^T Q~                                   (3.2)  density operator, (dk, dk)
    A     = Phi_res(LN(D_Q))                          (3.3)  residual metric learner, row-wise
    A_LM  = iSwiGLU(W A + b_W) + eps                  (3.4)  iSwiGLU(u) = u^2 sigmoid(u) >= 0
    A_P   = A_LM ** P   (entrywise)                   (3.5)
    G_LM  = a A_P + b_a                               (3.6)
    E     = Q~ G_LM K~^T / sqrt(dk)                   (3.7)

with the global Gram (3.2) or the masked cumulative one ``D_t^cum`` (4.16); :func:`absorb_operator`
folds a constant ``G`` into an affine query projection (Thm 5.4(ii)). The parameters and the residual
conventions of ``Phi_res`` are :mod:`theorylab.plga.params`'.

Conventions the paper leaves open (named here, explained in docs/plga.md)
--------------------------------------------------------------------------
* LayerNorm acts on each *row* of ``D_Q`` (the last axis), population variance,
  ``eps_ln = 1e-6`` inside the square root, affine ``gamma, beta`` per column.
* Every public function validates its inputs once; object arrays (SymPy symbols, ``mpmath.mpf``)
  take the exact route where the docstring says so (:mod:`theorylab.symbolic.plga`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab._results import scalar_output
from theorylab.errors import (ParameterError, check_memory, finite_output, finite_result, real_array,
                              real_scalar)
from theorylab.plga._validate import _is_exact, _queries, _real_or_exact, _square
from theorylab.plga.params import EPS_LN, GLU, GatedResidualUnit, PLGAParams


@scalar_output
def sigmoid(u) -> np.ndarray:
    """Logistic ``1/(1 + e^-u)``, evaluated as ``e^u/(1 + e^u)`` for u < 0 (no overflow, full relative
    accuracy in both tails); object arrays (exact route) get the SymPy expression ``1/(1 + exp(-u))``.

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> plga.sigmoid([-800.0, 0.0, 2.0]).round(4)                 # no overflow in the tails (PLGA eq. 3.1)
    array([0.    , 0.5   , 0.8808])
    """
    return _sigmoid(_real_or_exact("u", u))


def _sigmoid(u: np.ndarray) -> np.ndarray:
    if _is_exact(u):
        import sympy as sp

        return np.vectorize(lambda v: 1 / (1 + sp.exp(-v)), otypes=[object])(u)
    e = np.exp(-np.abs(u))                          # <= 1: no overflow; full relative accuracy both sides
    return np.where(u >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


@scalar_output
def iswiglu(u) -> np.ndarray:
    """``iSwiGLU(u) = silu(u) * u = u^2 sigmoid(u) >= 0`` (PLGA eq. 3.1), overflow-free: every real
    ``u <= 1e154`` (above, ``u^2`` exceeds the float range: ParameterError).

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> plga.iswiglu([-2.0, 0.0, 2.0]).round(4)                   # u^2 sigmoid(u) >= 0 (PLGA eq. 3.1)
    array([0.4768, 0.    , 3.5232])
    """
    u = _real_or_exact("u", u)
    if not _is_exact(u) and u.size and np.max(u) > _ISWIGLU_MAX:
        raise ParameterError(f"u must be <= {_ISWIGLU_MAX:g} (u^2 sigmoid(u) overflows above; got {np.max(u):g})")
    return _iswiglu(u)


_ISWIGLU_MAX = 1e154


def _iswiglu(u: np.ndarray) -> np.ndarray:
    return u * (u * _sigmoid(u))            # u (u sigmoid(u)): 0, not inf * 0, for u << 0


@finite_output("q_rot")
def density_operator(q_rot) -> np.ndarray:
    """``D_Q = Q~^T Q~`` of the rotated queries ``q_rot`` (S, dk) (PLGA eq. 3.2, Def. 4.3).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> q = np.array([[1.0, 0.0], [1.0, 2.0]])
    >>> plga.density_operator(q)                                  # Q^T Q (PLGA eq. 3.2)
    array([[2., 2.],
           [2., 4.]])
    """
    q = _queries("q_rot", q_rot)
    return q.T @ q                                                     # (dk, dk)


@finite_output("q_rot")
def cumulative_density_operators(q_rot, mask=None) -> np.ndarray:
    """Masked cumulative Grams ``D_t^cum = sum_{n<=t} m_n q~_n q~_n^T`` for t = 1..S (PLGA eq. 4.16).

    Returns an array (S, dk, dk); ``mask`` (S,) of 0/1 weights defaults to all ones.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> q = np.array([[1.0, 0.0], [1.0, 2.0]])
    >>> D = plga.cumulative_density_operators(q)                  # D_1, D_2 (PLGA eq. 4.16)
    >>> D[0], np.array_equal(D[-1], plga.density_operator(q))
    (array([[1., 0.],
           [0., 0.]]), True)
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

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> plga.layer_norm([[1.0, 2.0, 3.0]], eps=0.0).round(4)      # exactly scale invariant at eps = 0 (Lemma 5.11)
    array([[-1.2247,  0.    ,  1.2247]])
    >>> plga.layer_norm([[1e200, 2e200, 3e200]], eps=0.0).round(4)
    array([[-1.2247,  0.    ,  1.2247]])
    """
    x = _real_or_exact("x", x)
    if x.ndim < 1 or x.shape[-1] == 0:
        raise ParameterError(f"x must be an array with a non-empty last axis (got shape {x.shape})")
    eps = _exact_eps(eps) if _is_exact(x) else real_scalar("eps", eps, low=0)
    gamma, beta = (None if a is None else _affine(name, a, x.shape) for name, a in (("gamma", gamma), ("beta", beta)))
    return _layer_norm(x, gamma, beta, eps)


def _exact_eps(eps):
    """``eps`` of the exact route: a SymPy expression with symbols as it is; a SymPy or mpmath number (kept in
    its own arithmetic) or a float, real and >= 0."""
    if getattr(eps, "free_symbols", None):
        return eps
    try:
        ok = not isinstance(eps, (bool, np.bool_)) and complex(eps).imag == 0 and float(complex(eps).real) >= 0
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ParameterError(f"eps must be a real number >= 0 or a SymPy symbol (got {eps!r})")
    return eps if hasattr(eps, "free_symbols") or type(eps).__module__.startswith("mpmath") else float(eps)


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


@scalar_output
def silu(u) -> np.ndarray:
    """``silu(u) = u sigmoid(u)`` (overflow-free).

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> plga.silu([-2.0, 0.0, 2.0]).round(4)                      # u sigmoid(u) (PLGA eq. 3.1)
    array([-0.2384,  0.    ,  1.7616])
    """
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
    """The authors' gated unit ``(silu(x W1 + b1) * (x W2 + b2)) W3 + b3`` on the rows of ``x``.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> glu = plga.init_params(4, seed=0).units[0].glus[0]        # a gated unit of Phi_res (PLGA eq. 3.3)
    >>> plga.glu(np.zeros((2, 4)), glu)                           # zero biases: silu(0) * 0 = 0
    array([[0., 0., 0., 0.],
           [0., 0., 0., 0.]])
    """
    return _glu(_unit_rows(x, g.W1.shape[0]), g)


def _glu(x: np.ndarray, g: GLU) -> np.ndarray:
    return (_silu(x @ g.W1 + g.b1) * (x @ g.W2 + g.b2)) @ g.W3 + g.b3       # (..., dk)


@finite_output("x")
def gated_unit(x, u: GatedResidualUnit, eps_ln: float = EPS_LN) -> np.ndarray:
    """The authors' residual unit ``LN(g_m(... g_1(x)) + x)`` on the rows of ``x`` (``"glu-ln"``); ``eps_ln >= 0``.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> unit = plga.init_params(4, seed=0).units[0]               # LN(GLU(r) + r), PLGA eq. 3.3
    >>> y = plga.gated_unit(np.random.default_rng(0).standard_normal((3, 4)), unit)
    >>> y.shape, bool(np.abs(y.mean(axis=1)).max() < 1e-12)       # each row is layer-normalised
    ((3, 4), True)
    """
    x = _unit_rows(x, u.ln_gamma.shape[-1])
    eps_ln = real_scalar("eps_ln", eps_ln, low=0)
    return _gated_unit(x, u, eps_ln)


def _gated_unit(x: np.ndarray, u: GatedResidualUnit, eps_ln: float) -> np.ndarray:
    h = x
    for g in u.glus:
        h = _glu(h, g)
    return layer_norm(h + x, u.ln_gamma, u.ln_beta, eps_ln)                  # (..., dk)


@scalar_output
@finite_output("A, P")
def hadamard_power(A, P) -> np.ndarray:
    """The elementwise (Hadamard) power ``A^(o P)``, ``(A^(o P))_ij = A_ij ** P_ij`` (PLGA eq. 3.5, Prop. 3.7).

    For entrywise positive ``A`` it is a one-parameter group in the exponent:
    ``A^(o (s + t) P) = A^(o s P) o A^(o t P)`` and ``A^(o 0) = 1 1^T`` (claim A14). ``A`` and ``P``
    broadcast together; a numeric ``A`` must be entrywise >= 0 (a negative base has no real power).
    Object arrays (the exact route) are raised in their own arithmetic.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> A, P = np.array([[4.0, 9.0]]), np.array([[0.5, 2.0]])
    >>> plga.hadamard_power(A, P)                                 # A_ij ** P_ij (PLGA eq. 3.5, Prop. 3.7)
    array([[ 2., 81.]])
    >>> plga.hadamard_power(A, 0 * P)
    array([[1., 1.]])
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
    """``Phi_res``: the residual units applied to every row of ``x`` (PLGA eq. 3.3, Prop. 3.11).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> params = plga.init_params(4, seed=0)
    >>> x = plga.layer_norm(plga.density_operator(np.random.default_rng(0).standard_normal((5, 4))))
    >>> plga.metric_learner(x, params).shape                      # Phi_res row by row (PLGA eq. 3.3, Prop. 3.11)
    (4, 4)
    """
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
    """Run ``Psi``: D -> (A, A_LM, A_P, G_LM) (PLGA eqs. 3.3-3.6); ``D`` may be a stack (..., dk, dk).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> params = plga.init_params(4, seed=0)
    >>> D = plga.density_operator(np.random.default_rng(0).standard_normal((5, 4)))
    >>> st = plga.stages_from_density(D, params)                 # PLGA eqs. 3.3-3.6
    >>> st.G.shape, bool(st.A_LM.min() >= params.eps)
    ((4, 4), True)
    """
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
    """All PLGA tensors from the global Gram of the rotated queries (eqs. 3.2-3.6).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> q = np.random.default_rng(0).standard_normal((5, 4))
    >>> st = plga.plga_stages(q, plga.init_params(4, seed=0))    # PLGA eqs. 3.2-3.6
    >>> np.array_equal(st.D, plga.density_operator(q)), st.A_P.shape
    (True, (4, 4))
    """
    return stages_from_density(density_operator(q_rot), params)


def g_lm(q_rot, params: PLGAParams) -> np.ndarray:
    """``G_LM`` (dk, dk) of the rotated queries ``q_rot`` (S, dk) with the global Gram (eqs. 3.2-3.6).

    Examples
    --------
    >>> import numpy as np
    >>> from theorylab.plga import g_lm, init_params
    >>> q = np.random.default_rng(0).standard_normal((5, 8))       # 5 rotated queries, PLGA eqs. 3.2-3.6
    >>> g_lm(q, init_params(8, seed=0)).shape
    (8, 8)
    """
    return plga_stages(q_rot, params).G


def g_lm_cumulative(q_rot, params: PLGAParams, mask=None) -> np.ndarray:
    """``G_LM^(t) = Psi(D_t^cum)`` for t = 1..S, shape (S, dk, dk) (PLGA eq. 4.16, cumulative Gram).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> q = np.random.default_rng(0).standard_normal((5, 4))
    >>> params = plga.init_params(4, seed=0)
    >>> G = plga.g_lm_cumulative(q, params)                      # one operator per prefix (PLGA eq. 4.16)
    >>> G.shape, bool(np.allclose(G[-1], plga.g_lm(q, params), rtol=1e-12, atol=0))
    ((5, 4, 4), True)
    """
    return stages_from_density(cumulative_density_operators(q_rot, mask), params).G


@finite_output("q_rot, k_rot, G")
def scores(q_rot, k_rot, G) -> np.ndarray:
    """``E = Q~ G K~^T / sqrt(dk)`` (PLGA eq. 3.7); ``G`` (dk, dk) or per-row (S, dk, dk).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> q, k = np.array([[1.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> plga.scores(q, k, np.eye(2))                             # Q G K^T / sqrt(dk) (PLGA eq. 3.7)
    array([[0.70710678, 0.        ]])
    >>> plga.scores(q, k, np.array([[0.0, 2.0], [0.0, 0.0]])).round(4)
    array([[0.    , 1.4142]])
    """
    q, k = _queries("q_rot", q_rot), _queries("k_rot", k_rot)
    G = _square("G", G)
    dk = q.shape[1]
    if k.shape[1] != dk or G.shape[-1] != dk or G.ndim > 3 or (G.ndim == 3 and len(G) != len(q)):
        raise ParameterError(f"q_rot (S, dk), k_rot (S', dk) and G (dk, dk) or (S, dk, dk) must agree "
                             f"(got {q.shape}, {k.shape}, {G.shape})")
    if G.ndim == 2:
        return q @ G @ k.T / np.sqrt(dk)                                # (S, S')
    return np.einsum("ti,tij,sj->ts", q, G, k) / np.sqrt(dk)           # row t uses G^(t)



@finite_output("W, b, G")
def absorb_operator(W, b, G) -> tuple[np.ndarray, np.ndarray]:
    """``(W G, b G)``: a constant operator absorbed into an affine query projection,
    ``(X W + 1 b^T) G = X (W G) + 1 (b^T G)`` (PLGA Thm 5.4(ii), the authors' ``absorb_operator_affine``;
    claim A19). With RoPE the absorbed model computes the same scores iff ``G`` lies in the rotation
    commutant (Prop. 4.1). Object arrays (the exact route) are checked entrywise.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> W, b, G = np.eye(2), np.array([1.0, 0.0]), np.array([[2.0, 0.0], [0.0, 3.0]])
    >>> plga.absorb_operator(W, b, G)                            # (W G, b G), PLGA §5 (claim A19)
    (array([[2., 0.],
           [0., 3.]]), array([2., 0.]))
    """
    W, b = _real_or_exact("W", W), _real_or_exact("b", b)
    G = _square("G", G, single=True)
    if W.ndim != 2 or W.shape[1] != G.shape[0] or b.shape != (W.shape[1],):
        raise ParameterError(f"W (d, dk), b (dk,) and G (dk, dk) must fit (got {W.shape}, {b.shape}, {G.shape})")
    return W @ G, b @ G



__all__ = [
    "sigmoid", "iswiglu", "silu", "density_operator", "cumulative_density_operators", "layer_norm", "glu",
    "gated_unit", "hadamard_power", "metric_learner", "PLGAStages", "stages_from_density", "plga_stages",
    "g_lm", "g_lm_cumulative", "scores", "absorb_operator"
]

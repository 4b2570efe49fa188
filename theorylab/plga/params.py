"""Parameters of one PLGA head and their reference initialisation (PLGA §3.1, eqs. 3.3-3.6).

:class:`PLGAParams` holds ``W, b_W`` (3.4), ``P`` (3.5), ``a, b_a`` (3.6), the residual units of the
metric learner ``Phi_res`` (3.3) and its LayerNorm affine parameters; :func:`init_params` draws them as
the authors' public code does, :func:`sdpa_params` sets ``G_LM = I`` (Thm 5.4(i)).

Conventions the paper leaves open (named here, explained in docs/plga.md)
--------------------------------------------------------------------------
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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.errors import check_memory, choice, positive_int, real_scalar, seed_int


EPS: float = 1e-9
"""The positivity floor ``eps`` of eq. (3.4) in the reference code."""
EPS_LN: float = 1e-6
"""The LayerNorm regularisation constant ``eps_LN`` of the reference code (Lemma 5.11)."""



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

    Examples
    --------
    >>> from theorylab.plga import init_params
    >>> params = init_params(8, seed=0)       # one head of width 8, PLGA §3.1
    >>> type(params).__name__
    'PLGAParams'
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
    """The same head with ``a = 0, b_a = I``, so ``G_LM = I`` and PLGA is SDPA (Thm 5.4(i), claim A1).

    Examples
    --------
    With ``a = 0, b_a = I`` the operator is the identity, so PLGA reduces to SDPA (PLGA §5, claim A1):

    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> q = np.random.default_rng(0).standard_normal((5, 4))
    >>> G = plga.g_lm(q, plga.sdpa_params(plga.init_params(4, seed=0)))
    >>> np.array_equal(G, np.eye(4))
    True
    """
    dk = params.dk
    return PLGAParams(params.W, params.b_W, params.P, np.zeros((dk, dk)), np.eye(dk), params.units,
                      params.ln_gamma, params.ln_beta, params.eps, params.eps_ln)



__all__ = [
    "EPS", "EPS_LN", "RESIDUALS", "ResidualUnit", "GLU", "GatedResidualUnit", "PLGAParams", "init_params",
    "sdpa_params"
]

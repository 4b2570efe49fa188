"""Diagnostics of a PLGA head: positivity margins, the order parameter, the density operator's structure,
LayerNorm's scale error and the attention-row stability bound (PLGA §3.2, §5.1-5.3; claims A2, A10, A11, A15).

Conventions (named here, explained in docs/plga.md)
---------------------------------------------------
* The order parameter uses the rms norm ``||X||_rms = sqrt(mean(X^2))`` and the
  piecewise convention ``m = 0`` when both tensors are identically zero (Def. 5.1);
  ``NORMALIZATIONS`` also offers the authors' signed-mean denominator.
* The eps-LayerNorm scale error is computed directly (:func:`ln_scale_error`); the first-order
  proxy of the authors' audit is labelled as one (:func:`ln_scale_proxy`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.errors import ParameterError, choice, finite_output, real_array, real_scalar
from theorylab.plga._validate import _queries, _real_or_exact, _square
from theorylab.plga.chain import PLGAStages, _iswiglu, _layer_norm, density_operator
from theorylab.plga.params import EPS, EPS_LN


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
    """The positivity margins of ``iSwiGLU(U)``, ``A_LM`` and ``A_P`` (claim A2).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> q = np.random.default_rng(0).standard_normal((5, 4))
    >>> pm = plga.positivity_margins(plga.plga_stages(q, plga.init_params(4, seed=0)))   # PLGA §3.2
    >>> bool(pm.min_iswiglu >= 0), bool(pm.min_A_LM >= pm.eps), bool(pm.min_A_P > 0)
    (True, True, True)
    """
    eps = real_scalar("eps", eps, low=0)
    return PositivityMargins(float(np.min(_iswiglu(stages.U))), float(np.min(stages.A_LM)),
                             float(np.min(stages.A_P)), eps)



@finite_output("q_t, K, dG")
def row_perturbation_bound(q_t, K, dG) -> float:
    """``||q_t|| ||K||_2 ||dG||_2 / sqrt(dk)``: bound on the l2 change of attention row t when G_LM moves
    by ``dG`` (PLGA §5.3: softmax is 1-Lipschitz in l2, composed with the bilinear score).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> q, K = np.array([1.0, 0.0, 0.0, 0.0]), np.eye(4)
    >>> plga.row_perturbation_bound(q, K, 0.1 * np.eye(4))       # 1 * 1 * 0.1 / sqrt(4) (PLGA §5.3)
    0.05
    """
    q_t = real_array("q_t", q_t)
    K, dG = real_array("K", K), _square("dG", dG, single=True, exact=False)     # K: at least one key (a row)
    if K.ndim != 2:
        raise ParameterError(f"K must be a 2-d array of shape (S, dk), S >= 1 (got shape {K.shape})")
    if q_t.ndim != 1 or K.shape[1] != q_t.size or dG.shape[0] != q_t.size:
        raise ParameterError(f"q_t (dk,), K (S, dk) and dG (dk, dk) must share dk "
                             f"(got shapes {q_t.shape}, {K.shape}, {dG.shape})")
    return float(np.linalg.norm(q_t) * np.linalg.norm(K, 2) * np.linalg.norm(dG, 2) / np.sqrt(q_t.size))



def rms(X) -> float:
    """``||X||_rms = sqrt(mean(X^2))``, scaled by max|X| first so it neither under- nor overflows.

    Parameters
    ----------
    X : array-like of finite reals, not empty (the mean of no entries is 0/0).

    Raises
    ------
    ParameterError
        If ``X`` is empty or holds anything but finite real numbers.

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> round(plga.rms([3.0, -4.0]), 4)                           # sqrt(12.5) (PLGA §5.1)
    3.5355
    >>> print(f"{plga.rms([3e200, -4e200]):.4e}")                 # no overflow
    3.5355e+200
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

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> D = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> plga.order_parameter(D, D)                                # 0 iff D1 == D2 (PLGA Prop. 5.2)
    0.0
    >>> round(plga.order_parameter(D, 2 * D), 4)
    0.6667
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
    """Symmetry, smallest eigenvalue and numerical rank of ``D_Q`` vs the bound min(S, dk).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> rep = plga.density_report(np.random.default_rng(0).standard_normal((3, 8)))   # S = 3 < dk = 8 (PLGA §3.2)
    >>> rep.rank, rep.rank_bound, bool(rep.min_eigenvalue >= -rep.tol)
    (3, 3, True)
    """
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

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> D = np.array([[1.0, 2.0, 3.0, 4.0]])
    >>> plga.ln_scale_error(D, S=8, eps=0.0)                      # exactly scale invariant (PLGA Lemma 5.11)
    array([[0., 0., 0., 0.]])
    >>> print(f"{np.abs(plga.ln_scale_error(D, S=8, eps=1e-6)).max():.2e}")
    3.38e-05
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
    (Lemma 5.11(ii); claim A15).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> D = np.array([[1.0, 2.0, 3.0, 4.0]])
    >>> print(f"{plga.ln_scale_proxy(D, S=8)[0]:.2e}")          # eps / (2 var(D/S)), PLGA Lemma 5.11(ii)
    2.56e-05
    >>> rel = np.linalg.norm(plga.ln_scale_error(D, S=8)) / np.linalg.norm(plga.layer_norm(D / 8))
    >>> print(f"{rel:.2e}")                                     # the direct relative error, below the proxy
    2.52e-05
    """
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



__all__ = [
    "PositivityMargins", "positivity_margins", "row_perturbation_bound", "rms", "NORMALIZATIONS",
    "order_parameter", "DensityReport", "density_report", "ln_scale_error", "ln_scale_proxy"
]

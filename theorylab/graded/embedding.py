"""Multi-level graded embeddings (MLGE, GLLM paper §4.1): the level grading and Prop. 6.

``G = sum_l P_l M_l P_l^T`` with ``P_l`` (d, d_l) the level projections and
``M_l = diag(lambda^q_l)``.  In the graded basis ``P = [P_0 ... P_{L-1}]`` the grading reads
``P^T G P``; Prop. 6 bounds its distance to the direct sum ``(+)_l M_l`` by ``L lambda^q_max eta``.

Convention (the statement of Prop. 6 names eta without a formula in the available text):
``orthogonality_defect`` is ``eta = max_{l != l'} ||P_l^T P_l'||_op`` (the cross-level overlap the
proof bounds), with each ``P_l`` having orthonormal columns.  ``gram_defect`` is the alternative
``||P^T P - I||_op``.  docs/graded.md records what each convention gives.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import block_diag

from theorylab.errors import ParameterError, real_array


def _blocks(P_blocks, q_blocks):
    if len(P_blocks) != len(q_blocks) or not P_blocks:
        raise ParameterError("P_blocks and q_blocks must be non-empty lists of the same length")
    Ps = [real_array(f"P_blocks[{i}]", P) for i, P in enumerate(P_blocks)]
    qs = [real_array(f"q_blocks[{i}]", q) for i, q in enumerate(q_blocks)]
    for i, (P, q) in enumerate(zip(Ps, qs)):
        if P.ndim != 2 or q.ndim != 1 or P.shape[1] != q.size or P.shape[0] != Ps[0].shape[0]:
            raise ParameterError(f"P_blocks[{i}] must be (d, d_l) with d_l = len(q_blocks[{i}])")
    return Ps, qs


def mlge_grading(P_blocks, q_blocks, lam: float) -> np.ndarray:
    """``G = sum_l P_l diag(lambda^q_l) P_l^T`` (d, d)."""
    Ps, qs = _blocks(P_blocks, q_blocks)
    lam = float(real_array("lam", lam, low=0.0, low_inclusive=False))
    return sum((P * lam ** q) @ P.T for P, q in zip(Ps, qs))


def graded_basis_defect(P_blocks, q_blocks, lam: float) -> float:
    """``|| P^T G P - (+)_l M_l ||_op``: distance of G, read in the graded basis, to the direct sum."""
    Ps, qs = _blocks(P_blocks, q_blocks)
    P = np.hstack(Ps)
    direct = block_diag(*[np.diag(lam ** q) for q in qs])
    return float(np.linalg.norm(P.T @ mlge_grading(Ps, qs, lam) @ P - direct, 2))


def orthogonality_defect(P_blocks) -> float:
    """``eta = max_{l != l'} ||P_l^T P_l'||_op`` (0 for a single level)."""
    Ps = [real_array(f"P_blocks[{i}]", P) for i, P in enumerate(P_blocks)]
    return max((float(np.linalg.norm(A.T @ B, 2)) for i, A in enumerate(Ps) for j, B in enumerate(Ps) if i != j),
               default=0.0)


def gram_defect(P_blocks) -> float:
    """``||P^T P - I||_op`` for ``P = [P_0 ... P_{L-1}]`` (the alternative convention)."""
    P = np.hstack([real_array(f"P_blocks[{i}]", P) for i, P in enumerate(P_blocks)])
    return float(np.linalg.norm(P.T @ P - np.eye(P.shape[1]), 2))


def prop6_bound(q_blocks, lam: float, eta: float) -> float:
    """Right-hand side of Prop. 6: ``L lambda^q_max eta``."""
    qmax = max(float(np.max(real_array("q_blocks", q))) for q in q_blocks)
    return len(q_blocks) * float(lam) ** qmax * float(real_array("eta", eta, low=0.0))

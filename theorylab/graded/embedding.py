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

from theorylab.errors import ParameterError, finite_result, real_array, real_scalar

__all__ = ["mlge_grading", "graded_basis_defect", "orthogonality_defect", "gram_defect", "prop6_bound"]


def _list(name: str, value) -> list:
    if isinstance(value, (str, bytes, np.ndarray)) or not isinstance(value, (list, tuple)) or not value:
        raise ParameterError(f"{name} must be a non-empty list of arrays, one per level (got {type(value).__name__})")
    return list(value)


def _projections(P_blocks) -> list[np.ndarray]:
    Ps = [real_array(f"P_blocks[{i}]", P) for i, P in enumerate(_list("P_blocks", P_blocks))]
    for i, P in enumerate(Ps):
        if P.ndim != 2 or P.shape[0] != Ps[0].shape[0]:
            raise ParameterError(f"P_blocks[{i}] must be a (d, d_l) matrix with the same d as P_blocks[0] "
                                 f"(got shape {P.shape})")
    return Ps


def _grades(q_blocks) -> list[np.ndarray]:
    qs = [real_array(f"q_blocks[{i}]", q) for i, q in enumerate(_list("q_blocks", q_blocks))]
    for i, q in enumerate(qs):
        if q.ndim != 1:
            raise ParameterError(f"q_blocks[{i}] must be a 1-D vector of grades (got shape {q.shape})")
    return qs


def _blocks(P_blocks, q_blocks):
    Ps, qs = _projections(P_blocks), _grades(q_blocks)
    if len(Ps) != len(qs):
        raise ParameterError(f"P_blocks and q_blocks must have the same length (got {len(Ps)} and {len(qs)})")
    for i, (P, q) in enumerate(zip(Ps, qs)):
        if P.shape[1] != q.size:
            raise ParameterError(f"P_blocks[{i}] must be (d, d_l) with d_l = len(q_blocks[{i}]) = {q.size} "
                                 f"(got shape {P.shape})")
    return Ps, qs


def _level_gradings(qs, lam) -> list[np.ndarray]:
    """``lambda^q_l`` per level, refused when it exceeds the float range."""
    lam = real_scalar("lam", lam, low=0.0, low_inclusive=False)
    with np.errstate(over="ignore"):
        return [finite_result("q_blocks, lam", lam ** q) for q in qs]


def mlge_grading(P_blocks, q_blocks, lam: float) -> np.ndarray:
    """``G = sum_l P_l diag(lambda^q_l) P_l^T`` (d, d).

    Examples
    --------
    Two orthogonal levels of R^3 (GLLM §4.1): G is diagonal in that basis.

    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> P = [np.eye(3)[:, :1], np.eye(3)[:, 1:]]
    >>> gr.mlge_grading(P, [np.array([0.0]), np.array([1.0, 2.0])], lam=2.0)
    array([[1., 0., 0.],
           [0., 2., 0.],
           [0., 0., 4.]])
    """
    Ps, qs = _blocks(P_blocks, q_blocks)
    return finite_result("P_blocks, q_blocks, lam", _mlge(Ps, _level_gradings(qs, lam)))


def _mlge(Ps, ms) -> np.ndarray:
    return sum((P * m) @ P.T for P, m in zip(Ps, ms))


def graded_basis_defect(P_blocks, q_blocks, lam: float) -> float:
    """``|| P^T G P - (+)_l M_l ||_op``: distance of G, read in the graded basis, to the direct sum.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> P = [np.eye(3)[:, :1], np.eye(3)[:, 1:]]              # orthogonal levels: no defect (GLLM Prop. 6)
    >>> gr.graded_basis_defect(P, [np.array([0.0]), np.array([1.0, 2.0])], lam=2.0)
    0.0
    """
    Ps, qs = _blocks(P_blocks, q_blocks)
    ms = _level_gradings(qs, lam)
    P = np.hstack(Ps)
    direct = block_diag(*[np.diag(m) for m in ms])
    with np.errstate(over="ignore", invalid="ignore"):
        residual = P.T @ _mlge(Ps, ms) @ P - direct
    return float(np.linalg.norm(finite_result("P_blocks, q_blocks, lam", residual), 2))


def orthogonality_defect(P_blocks) -> float:
    """``eta = max_{l != l'} ||P_l^T P_l'||_op`` (0 for a single level).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> t = 0.1                                               # level 1 tilted towards level 0
    >>> P = [np.array([[1.0], [0.0]]), np.array([[np.sin(t)], [np.cos(t)]])]
    >>> round(gr.orthogonality_defect(P), 4)                  # eta of GLLM Prop. 6: sin(0.1)
    0.0998
    """
    Ps = _projections(P_blocks)
    with np.errstate(over="ignore", invalid="ignore"):
        cross = [A.T @ B for i, A in enumerate(Ps) for j, B in enumerate(Ps) if i != j]
    return max((float(np.linalg.norm(finite_result("P_blocks", c), 2)) for c in cross), default=0.0)


def gram_defect(P_blocks) -> float:
    """``||P^T P - I||_op`` for ``P = [P_0 ... P_{L-1}]`` (the alternative convention).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> t = 0.1
    >>> P = [np.array([[1.0], [0.0]]), np.array([[np.sin(t)], [np.cos(t)]])]
    >>> round(gr.gram_defect(P), 4)                           # ||P^T P - I||, the other convention of Prop. 6
    0.0998
    """
    P = np.hstack(_projections(P_blocks))
    with np.errstate(over="ignore", invalid="ignore"):
        residual = P.T @ P - np.eye(P.shape[1])
    return float(np.linalg.norm(finite_result("P_blocks", residual), 2))


def prop6_bound(q_blocks, lam: float, eta: float) -> float:
    """Right-hand side of Prop. 6: ``L lambda^q_max eta``.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> round(gr.prop6_bound([np.array([0.0]), np.array([1.0, 2.0])], lam=2.0, eta=0.1), 4)   # L lambda^q_max eta
    0.8
    """
    qs = _grades(q_blocks)
    eta = real_scalar("eta", eta, low=0.0)
    top = _level_gradings([np.array([max(float(np.max(q)) for q in qs)])], lam)[0][0]   # lambda^q_max
    return float(finite_result("q_blocks, lam, eta", len(qs) * top * eta))

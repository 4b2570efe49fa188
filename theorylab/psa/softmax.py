"""The softmax and its Frechet linearisation (PSA §6.1, §6.4).

For scores ``s`` and ``p = softmax(s)``, a perturbation ``ds`` moves the distribution by

    dp = (diag p - p p^T) ds = p * (ds - <p, ds>)        (first order),

so only the AC part ``ds - <p, ds>`` of the perturbation acts (the DC part, a common
shift, is invisible) and ``1.dp = 0`` (mass is redistributed, not created). The
remainder ``softmax(s + ds) - p - dp`` is second order in ``ds``.

``softmax_jacobian`` and ``softmax_response`` are pure arithmetic and also accept NumPy
object arrays (the exact route used by ``theorylab.symbolic.softmax``).
"""
from __future__ import annotations

import numpy as np

from theorylab.errors import ParameterError, check_memory, exact_array, finite_output, positive_int, real_array


def _vector(name: str, x) -> np.ndarray:
    arr = exact_array(name, x) if isinstance(x, np.ndarray) and x.dtype == object else real_array(name, x)
    if arr.ndim < 1 or arr.shape[-1] == 0:
        raise ParameterError(f"{name} must be a non-empty array along its last axis")
    return arr


def softmax(s, axis: int = -1, mask=None) -> np.ndarray:
    """``exp(s_i - max s) / sum_j exp(s_j - max s)`` along ``axis`` (stable for any finite shift).

    Parameters
    ----------
    s : array of scores (at least 1-D).
    axis : the axis the distribution runs along (default ``-1``).
    mask : optional boolean array broadcastable to ``s``; ``False`` entries are left out,
        exactly as if their score were ``-inf`` (weight exactly 0; e.g. the future keys of
        causal attention). Their scores are not read. Every slice along ``axis`` must keep
        at least one entry.

    Scores must be finite reals where they count (everywhere when ``mask`` is None).
    """
    if mask is None:
        s = real_array("s", s)
    else:
        try:
            s = np.asarray(s)
        except (TypeError, ValueError):
            raise ParameterError("s must be an array of real scores") from None
        if s.dtype.kind not in "iuf":
            real_array("s", s)                                               # refuses with the reason
    if s.ndim < 1:
        raise ParameterError("s must be an array of scores (got a scalar)")
    axis = positive_int("axis", axis, low=-s.ndim, high=s.ndim - 1)
    if s.shape[axis] == 0:
        raise ParameterError(f"s must have at least one score along axis {axis} (got shape {s.shape})")
    if mask is not None:
        keep = np.asarray(mask)
        if keep.dtype != bool:
            raise ParameterError(f"mask must be a boolean array (got dtype {keep.dtype})")
        try:
            keep = np.broadcast_to(keep, s.shape)
        except ValueError:
            raise ParameterError(f"mask must broadcast to the shape of s {s.shape} (got {keep.shape})") from None
        real_array("s", s[keep], allow_empty=True)                       # finite where it counts
        if not keep.any(axis=axis).all():
            raise ParameterError("mask must keep at least one score in every slice along axis")
        return _softmax(s, axis, keep)
    return _softmax(s, axis)


def _softmax(s: np.ndarray, axis: int, keep: np.ndarray | None = None) -> np.ndarray:
    """:func:`softmax` of validated float scores along ``axis``; entries where the boolean ``keep`` (broadcastable
    to ``s``) is False get score -inf, weight exactly 0 (the kernel; also the NumPy decoder's causal softmax,
    ``theorylab.nn.attention``)."""
    if keep is not None:
        s = np.where(keep, s, -np.inf)
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@finite_output("p")
def softmax_jacobian(p) -> np.ndarray:
    """``diag(p) - p p^T`` for a probability vector ``p`` (last axis; batched over leading axes).

    Examples
    --------
    diag(p) - p p^T of a two-point distribution:

    >>> import theorylab.psa as psa
    >>> print(psa.softmax_jacobian([0.25, 0.75]))
    [[ 0.1875 -0.1875]
     [-0.1875  0.1875]]
    """
    p = _vector("p", p)
    check_memory("p", 8 * p.size * p.shape[-1])
    eye = np.eye(p.shape[-1], dtype=int)
    return p[..., :, None] * eye - p[..., :, None] * p[..., None, :]


@finite_output("p, ds")
def softmax_response(p, ds) -> np.ndarray:
    """First-order response ``dp = p * (ds - <p, ds>)`` to a score perturbation ``ds`` (last axis).

    Examples
    --------
    A common shift of the scores leaves the softmax unchanged:

    >>> import theorylab.psa as psa
    >>> print(psa.softmax_response([0.25, 0.75], [1.0, 1.0]))
    [0. 0.]
    """
    p, ds = _vector("p", p), _vector("ds", ds)
    if p.shape[-1] != ds.shape[-1]:
        raise ParameterError(f"p and ds must have the same length (got {p.shape[-1]} and {ds.shape[-1]})")
    dc = (p * ds).sum(axis=-1, keepdims=True)
    return p * (ds - dc)


__all__ = ["softmax", "softmax_jacobian", "softmax_response"]

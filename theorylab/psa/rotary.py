"""Rotary position embedding (RoPE) and the shear's placement around it (PSA §5.3, P9).

Convention (named here because the paper leaves it open): RoPE pairs coordinates ``(2i, 2i+1)``
(interleaved, RoFormer) and rotates pair ``i`` at position ``t`` by angle ``t * freqs[i]`` with
``freqs[i] = base^(-2i/d)`` (:func:`rope_frequencies`, :func:`rope_tables`, :func:`rotate_pairs`,
:func:`rope`). Placement ``"post-rope"`` (the paper's) rotates, then takes momentum and shears;
``"pre-rope"`` shears the raw stream, then rotates (:func:`place_shear`, :func:`sheared_stream`;
the names are :data:`theorylab.psa.shear.PLACEMENTS`). The two differ by the Coriolis term
(:func:`coriolis_term`).

Streams are ``(..., T, d)`` as in :mod:`theorylab.psa.shear`; :func:`rotate_pairs` and
:func:`place_shear` only add and multiply, so they also take object arrays (the exact route).
"""
from __future__ import annotations

import numpy as np

from theorylab.errors import (ParameterError, check_memory, choice, finite_output, finite_result, positive_int,
                              real_array, real_scalar)
from theorylab.psa.shear import PLACEMENTS, _stream, _values, shear

__all__ = ["rope_frequencies", "rope_tables", "rotate_pairs", "rope", "place_shear", "sheared_stream",
           "coriolis_term"]


def rope_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """RoPE angular frequencies ``base^(-2i/d)``, i = 0..d/2-1 (d even).

    Examples
    --------
    RoPE frequencies of d = 4:

    >>> import theorylab.psa as psa
    >>> print(psa.rope_frequencies(4))
    [1.   0.01]
    """
    d = positive_int("d", d)
    if d % 2:
        raise ParameterError(f"d must be an even integer >= 2 (got {d})")
    check_memory("d", 4 * d)
    base = real_scalar("base", base, low=1, low_inclusive=False)
    return base ** (-np.arange(0, d, 2) / d)                    # base^(-2j/d), j = 0 .. d/2 - 1


def rope_tables(T: int, freqs, positions=None) -> tuple[np.ndarray, np.ndarray]:
    """``(cos, sin)`` tables of shape ``(T, d/2)``: angle ``positions[t] * freqs[i]``.

    Examples
    --------
    cos/sin tables for T = 3, d = 4:

    >>> import theorylab.psa as psa
    >>> cos, sin = psa.rope_tables(3, psa.rope_frequencies(4))
    >>> cos.shape
    (3, 2)
    """
    T = positive_int("T", T)
    freqs = real_array("freqs", freqs)
    if freqs.ndim != 1:
        raise ParameterError(f"freqs must be a 1-D array of d/2 frequencies (got shape {freqs.shape})")
    check_memory("T, freqs", 24 * T * freqs.size)
    pos = np.arange(T, dtype=float) if positions is None else real_array("positions", positions)
    if pos.shape != (T,):
        raise ParameterError(f"positions must have one entry per position (T = {T}, got shape {pos.shape})")
    with np.errstate(over="ignore"):
        angles = finite_result("positions, freqs", pos[:, None] * freqs[None, :])
    return np.cos(angles), np.sin(angles)


@finite_output("x, cos, sin")
def rotate_pairs(x, cos, sin, axis: int = -2) -> np.ndarray:
    """Rotate coordinate pairs ``(2i, 2i+1)`` of ``x`` (``(..., T, d)``) by tables ``(T, d/2)``.

    Pure arithmetic (exact route): pair ``i`` at position ``t`` becomes
    ``(c x - s y, s x + c y)`` with ``c = cos[t, i]``, ``s = sin[t, i]``.

    Examples
    --------
    Rotation keeps each pair's norm:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> x = np.ones((3, 4))
    >>> cos, sin = psa.rope_tables(3, psa.rope_frequencies(4))
    >>> print(np.linalg.norm(psa.rotate_pairs(x, cos, sin), axis=-1).round(4))
    [2. 2. 2.]
    """
    x = _stream("x", x, axis)
    if x.ndim < 2:
        raise ParameterError(f"x must be a stream (..., T, d) with a position and a feature axis (got shape {x.shape})")
    x = np.moveaxis(x, axis, -2)
    if x.shape[-1] % 2:
        raise ParameterError(f"the last axis of x must have even length d (got {x.shape[-1]})")
    cos, sin = _values("cos", cos), _values("sin", sin)
    if cos.shape != x.shape[-2:-1] + (x.shape[-1] // 2,) or sin.shape != cos.shape:
        raise ParameterError(f"cos and sin must have shape (T, d/2) = {x.shape[-2], x.shape[-1] // 2} "
                             f"(got {cos.shape}, {sin.shape})")
    return np.moveaxis(_rotate_pairs(x, cos, sin), -2, axis)


def _rotate_pairs(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """:func:`rotate_pairs` of a validated stream ``x`` (..., T, d) along axis -2 by tables ``(T, d/2)``
    (the kernel; also the NumPy decoder's RoPE, ``theorylab.nn.attention``). Object arrays too."""
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x) if x.dtype == object else np.empty(x.shape, dtype=np.result_type(x, cos))
    out[..., 0::2] = cos * even - sin * odd
    out[..., 1::2] = sin * even + cos * odd
    return out


@finite_output("x, positions")
def rope(x, freqs=10000.0, positions=None, axis: int = -2) -> np.ndarray:
    """Rotary position embedding of a stream ``x`` of shape ``(..., T, d)`` (d even).

    Parameters
    ----------
    x : the stream.
    freqs : a float ``base`` (frequencies ``base^(-2i/d)``, default 10000) or a 1-D
        array of the ``d/2`` angular frequencies.
    positions : positions of the T rows (default ``0..T-1``).
    axis : position axis (default ``-2``).

    Examples
    --------
    RoPE leaves position 0 unchanged:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> x = np.ones((3, 4))
    >>> print(psa.rope(x)[0])
    [1. 1. 1. 1.]
    """
    x = _stream("x", x, axis)
    T, d = x.shape[axis], x.shape[-1]
    if np.ndim(freqs) == 0:
        freqs = rope_frequencies(d, freqs)
    return rotate_pairs(x, *rope_tables(T, freqs, positions), axis=axis)


@finite_output("x, g")
def place_shear(x, g, cos, sin, placement: str = "post-rope", axis: int = -2) -> np.ndarray:
    """Sheared, rotated stream for a placement, given RoPE tables ``(cos, sin)``.

    ``post-rope`` (the paper's, PSA §5.3): ``shear(rotate(x), g)``.
    ``pre-rope``: ``rotate(shear(x, g))``. They differ by the Coriolis term
    ``g (R_t - R_{t-1}) x_{t-1}`` (see :func:`coriolis_term`). Pure arithmetic.

    Examples
    --------
    A post-RoPE sheared stream keeps the stream's shape:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> x = np.ones((3, 4))
    >>> cos, sin = psa.rope_tables(3, psa.rope_frequencies(4))
    >>> psa.place_shear(x, 0.5, cos, sin).shape
    (3, 4)
    """
    choice("placement", placement, PLACEMENTS)
    if placement == "post-rope":
        return shear(rotate_pairs(x, cos, sin, axis), g, axis)
    return rotate_pairs(shear(x, g, axis), cos, sin, axis)


@finite_output("x, g, positions")
def sheared_stream(x, g, freqs=10000.0, positions=None, placement: str = "post-rope",
                   axis: int = -2) -> np.ndarray:
    """:func:`place_shear` with RoPE tables built from ``freqs`` (base or array) and ``positions``.

    Examples
    --------
    At g = 0 the sheared stream is the rotated stream:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> x = np.ones((3, 4))
    >>> bool(np.allclose(psa.sheared_stream(x, 0.0), psa.rope(x)))
    True
    """
    x = _stream("x", x, axis)
    d = x.shape[-1]
    if np.ndim(freqs) == 0:
        freqs = rope_frequencies(d, freqs)
    return place_shear(x, g, *rope_tables(x.shape[axis], freqs, positions), placement=placement, axis=axis)


@finite_output("x, g")
def coriolis_term(x, g, cos, sin, axis: int = -2) -> np.ndarray:
    """Post-RoPE minus pre-RoPE sheared stream: ``g (R_t - R_{t-1}) x_{t-1}`` (zero at t = 0).

    Per rotation plane its norm is ``2 |sin(theta/2)| |g x_{t-1}|`` for a per-step angle
    theta (PSA §5.3). Computed as the difference of the two placements.

    Examples
    --------
    The Coriolis term is zero at t = 0:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> x = np.ones((3, 4))
    >>> cos, sin = psa.rope_tables(3, psa.rope_frequencies(4))
    >>> print(psa.coriolis_term(x, 0.5, cos, sin)[0])
    [0. 0. 0. 0.]
    """
    return place_shear(x, g, cos, sin, "post-rope", axis) - place_shear(x, g, cos, sin, "pre-rope", axis)

"""What the PSA shear costs an inference engine (PSA §8): cache size, FLOPs, INT8 headroom.

Accounting conventions (named here, explained in docs/transformer.md)
---------------------------------------------------------------------
* ``d`` is the model width (all heads of a layer together); the KV cache of one layer
  holds ``2 T d`` numbers (keys and values of T positions).
* The shear is applied at insertion (PSA §8.3): the cache holds sheared keys, and the
  only extra persistent state is the raw query and raw key of the last position, two
  d-vectors per layer, so the extra fraction is ``2 d / (2 T d) = 1/T``
  (0.0244 % at T = 4096, the paper's "0.024 %").
* FLOPs count one add, subtract or multiply as one FLOP. Per stream and token the
  insertion ``x + g (x - x_prev)`` costs ``3d``; the query and key streams give ``6d``
  per token per layer (PSA §8.4).
* INT8 headroom: a sheared key ``(1 + g) x_t - g x_{t-1}`` has range at most ``(1 + 2g)``
  times the raw range, so at fixed relative precision it needs at most
  ``log2(1 + 2g)`` extra bits; an alternating stream attains it (PSA §8.6).
"""
from __future__ import annotations

import numpy as np

from theorylab._results import scalar_output
from theorylab.errors import ParameterError, check_memory, finite_output, positive_int, real_array, real_or_exact
from theorylab.psa import shear as psa


@scalar_output
@finite_output("T, d, layers")
def kv_cache_floats(T, d, layers=1):
    """Numbers held by the baseline KV cache: ``2 T d`` per layer (keys and values).

    Examples
    --------
    The baseline KV cache of a 12-layer model, T = 1024, d = 768:

    >>> import theorylab.psa as psa
    >>> int(psa.kv_cache_floats(1024, 768, layers=12))
    18874368
    """
    return 2 * real_array("T", T, low=1) * real_array("d", d, low=1) * real_array("layers", layers, low=1)


@scalar_output
@finite_output("d, layers")
def extra_state_floats(d, layers=1):
    """Extra persistent state of PSA: two retained raw d-vectors per layer (PSA §8.3).

    Examples
    --------
    PSA's extra state of a 12-layer model, d = 768:

    >>> import theorylab.psa as psa
    >>> int(psa.extra_state_floats(768, layers=12))
    18432
    """
    return 2 * real_array("d", d, low=1) * real_array("layers", layers, low=1)


@scalar_output
def extra_state_fraction(T):
    """Extra state over the KV cache, ``2 d / (2 T d) = 1/T`` (independent of d and depth).

    Examples
    --------
    The extra state is 1/T of the KV cache:

    >>> import theorylab.psa as psa
    >>> float(psa.extra_state_fraction(1024)) == 1 / 1024
    True
    """
    return 1.0 / real_array("T", T, low=1)


@scalar_output
@finite_output("d")
def shear_flops(d):
    """FLOPs added per token per layer: ``3d`` per stream (subtract, scale, add), two streams: ``6d``.

    Examples
    --------
    FLOPs the shear adds per token and layer at d = 768:

    >>> import theorylab.psa as psa
    >>> int(psa.shear_flops(768))
    4608
    """
    return 6 * real_array("d", d, low=1)


@scalar_output
@finite_output("x_prev, x, g")
def insert_sheared(x_prev, x, g):
    """The insertion kernel ``x + g (x - x_prev)``: the sheared vector of the newest position.

    Parameters
    ----------
    x_prev : the one retained raw vector (previous position), shape ``(d,)`` or batched.
    x : the new raw vector, same shape.
    g : the stream's coupling, a real number ``>= 0`` (PSA §8; the INT8 headroom bound
        :func:`int8_headroom_bits` assumes it).

    Returns
    -------
    :func:`theorylab.psa.shear.shear_step`, i.e. the last row of
    ``shear.shear([..., x_prev, x], g)`` (a causal two-tap filter), computed from the new vector and the retained one only.

    Examples
    --------
    The sheared newest vector at g = 0.5:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> print(psa.insert_sheared(np.array([1.0, 0.0]), np.array([2.0, 1.0]), 0.5))
    [2.5 1.5]
    """
    g = real_array("g", g, low=0)
    if g.ndim:
        raise ParameterError(f"g must be a single real number >= 0 (got an array of shape {g.shape})")
    return psa.shear_step(x_prev, x, float(g))


class _FlopCounter(np.ndarray):
    """An array that adds one FLOP per output element of +, - and * to ``count``."""

    count = 0

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = getattr(ufunc, method)(*(np.asarray(x) if isinstance(x, _FlopCounter) else x for x in inputs), **kwargs)
        if ufunc in (np.add, np.subtract, np.multiply):
            _FlopCounter.count += np.size(out)
        return np.asarray(out).view(_FlopCounter)


def count_flops(fn, *arrays, **kwargs) -> int:
    """FLOPs (adds, subtracts, multiplies; one per output element) that ``fn(*arrays, **kwargs)`` performs.

    Counted by running ``fn`` on instrumented arrays: an independent route to the
    closed-form count of :func:`shear_flops`.

    Examples
    --------
    Counting the FLOPs of the insertion kernel on d = 4 vectors:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> x = np.ones(4)
    >>> psa.count_flops(psa.insert_sheared, x, x, 0.5)
    12
    """
    _FlopCounter.count = 0
    fn(*(np.asarray(a, dtype=float).view(_FlopCounter) for a in arrays), **kwargs)
    return int(_FlopCounter.count)


@scalar_output
@finite_output("g")
def int8_headroom_bits(g):
    """Upper bound ``log2(1 + 2g)`` on the extra bits a sheared key needs (PSA §8.6), g >= 0.

    Examples
    --------
    Extra bits a sheared INT8 key may need at g = 1:

    >>> import theorylab.psa as psa
    >>> round(float(psa.int8_headroom_bits(1.0)), 4)
    1.585
    """
    return np.log2(1 + 2 * real_array("g", g, low=0))


@scalar_output
@finite_output("stream, g")
def range_growth(stream, g):
    """``max|shear(stream, g)| / max|stream|`` of a stream ``(T, d)``; object arrays give it exactly.

    Examples
    --------
    The alternating stream attains the bound 1 + 2g:

    >>> import theorylab.psa as psa
    >>> float(psa.range_growth(psa.alternating_stream(8), 1.0))
    3.0
    """
    x = real_or_exact("stream", stream)
    if np.ndim(x) != 2 or not np.size(x):
        raise ParameterError(f"stream must be a non-empty (T, d) array (got shape {np.shape(x)})")
    top = np.max(np.abs(x))
    if top == 0:
        raise ParameterError("stream must not be identically zero")
    if x.dtype == object:
        g = np.array(g, dtype=object)                                    # keep an exact coupling exact
    return np.max(np.abs(psa.shear(x, g))) / top


def alternating_stream(T: int, d: int = 1, dtype=float) -> np.ndarray:
    """The stream ``x_t = (-1)^t (1, ..., 1)`` that attains the INT8 bound (PSA §8.6).

    Examples
    --------
    The extremal stream of length 4:

    >>> import theorylab.psa as psa
    >>> print(psa.alternating_stream(4, d=2))
    [[ 1.  1.]
     [-1. -1.]
     [ 1.  1.]
     [-1. -1.]]
    """
    T, d = positive_int("T", T), positive_int("d", d)
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise ParameterError(f"dtype must be a NumPy dtype such as float or object (got {dtype!r})") from None
    check_memory("T, d", max(dtype.itemsize, 8) * T * d)
    signs = np.where(np.arange(T) % 2, -1, 1).astype(dtype)             # (-1)^t (Python ints if object)
    return np.repeat(signs[:, None], d, axis=1)


__all__ = ["kv_cache_floats", "extra_state_floats", "extra_state_fraction", "shear_flops", "insert_sheared", "count_flops",
           "int8_headroom_bits", "range_growth", "alternating_stream"]

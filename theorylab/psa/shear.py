"""The symplectic shear of Phase Space Attention (PSA §2-5), in pure NumPy.

A *stream* is an array of shape ``(..., T, d)``: ``T`` positions (axis ``-2`` unless
``axis`` says otherwise) of ``d``-dimensional post-RoPE query or key vectors. Its
phase-space lift is ``(q, p)`` with ``p`` the first difference along positions and
``p_0 = 0`` at the first position (PSA §4: no artificial first-token impulse). The
upper shear ``M_g : (q, p) -> (q + g p, p)`` then gives the sheared stream
``q' = (1 + g) q_t - g q_{t-1}``: a causal two-tap FIR filter per stream (PSA §4.2).

This module holds the stream form: the phase-space lift, the shear and its inverse step by step,
the order lattice and the two-tap filter view (P4). Beside it: the shear as a matrix on phase
space (:mod:`theorylab.psa.symplectic`, P1-P3), RoPE and the shear's placement around it
(:mod:`theorylab.psa.rotary`, P9), the four score channels (:mod:`theorylab.psa.scores`, P5-P6).

Conventions (named here because the paper leaves them open)
-----------------------------------------------------------
* RoPE pairs coordinates ``(2i, 2i+1)`` (interleaved, RoFormer); placement ``"post-rope"`` (the
  paper's) rotates before the shear, ``"pre-rope"`` after (:data:`PLACEMENTS`;
  :mod:`theorylab.psa.rotary`).
* Order-lattice members are named by their coupling pattern ``(g_q, g_k)``:
  standard ``(0, 0)``, query-only ``(g, 0)``, key-only ``(0, g)``, symmetric ``(g, g)``.

Exact route: every function here and in the modules beside it that only adds and multiplies
(``momentum``, ``shear``, ``upper_shear``, ``lower_shear``, ``rotate_pairs``, ``place_shear``,
``score_channels``, the matrices and ``stream_gain_sq``) also accepts NumPy object
arrays and symbolic couplings (e.g. SymPy symbols). Numeric input is validated
(finite reals); object input is taken as given, so ``theorylab.symbolic`` can check
these very functions by exact algebra.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from theorylab._results import scalar_output
from theorylab._moved import names_getattr
from theorylab.errors import (ParameterError, choice, exact_array, finite_output, is_exact, positive_int, real_array,
                              real_or_exact)

LATTICE: dict[str, tuple[int, int]] = {"standard": (0, 0), "query-only": (1, 0),
                                       "key-only": (0, 1), "symmetric": (1, 1)}
"""Order-lattice members (PSA §2.3) -> which streams carry the coupling ``(query, key)``."""

PLACEMENTS: tuple[str, ...] = ("post-rope", "pre-rope")


# ---------------------------------------------------------------- validation helpers
def _is_exact(x) -> bool:
    return isinstance(x, np.ndarray) and x.dtype == object


def _values(name: str, x) -> np.ndarray:
    """Numeric input as finite reals; object arrays and SymPy expressions (exact route) entrywise."""
    return real_or_exact(name, x)


def _axis(axis, ndim: int) -> int:
    return positive_int("axis", axis, low=-ndim, high=ndim - 1) if ndim else positive_int("axis", axis, low=0, high=0)


def _stream(name: str, x, axis: int) -> np.ndarray:
    """A stream with at least one position axis; numeric input must be finite reals."""
    arr = _values(name, x)
    if arr.ndim < 1:
        raise ParameterError(f"{name} must be an array with a position axis (got a scalar)")
    _axis(axis, arr.ndim)
    return arr


def _coupling(name: str, g):
    """A real coupling (any sign; the paper uses g >= 0; ints |g| <= 2^53 stay exact, other reals float) or SymPy."""
    if isinstance(g, (bool, np.bool_)):
        raise ParameterError(f"{name} must be a finite real number (got {g!r})")
    if is_exact(g) and not isinstance(g, np.ndarray):
        return exact_array(name, np.array(g, dtype=object)).item()       # symbolic (exact route)
    if isinstance(g, numbers.Integral) and abs(int(g)) <= 2 ** 53:
        return int(g)                                                   # exact integers stay exact
    if isinstance(g, numbers.Real) and not isinstance(g, np.ndarray):
        try:
            g = float(g)
        except OverflowError:
            g = math.inf if g > 0 else -math.inf
    value = real_array(name, g) if not _is_exact(g) else exact_array(name, g)
    if value.ndim:
        raise ParameterError(f"{name} must be a single real number or a SymPy expression (got shape {value.shape})")
    return value.item() if _is_exact(value) else float(value)


def _same_shape(a, b, names: str) -> None:
    if np.shape(a) != np.shape(b):
        raise ParameterError(f"{names} must have the same shape (got {np.shape(a)} and {np.shape(b)})")


# ---------------------------------------------------------------- phase-space lift
@finite_output("stream")
def momentum(stream, axis: int = -2) -> np.ndarray:
    """First difference along positions with zero momentum at the first position.

    Parameters
    ----------
    stream : array ``(..., T, d)`` (the post-RoPE stream in the paper's placement).
    axis : the position axis (default ``-2``).

    Returns
    -------
    p : same shape, ``p_t = x_t - x_{t-1}`` for ``t >= 1`` and ``p_0 = 0`` (PSA §4).

    Examples
    --------
    First differences of a stream, zero at the first position:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> print(psa.momentum(np.array([[1.0], [3.0], [6.0]])).ravel())
    [0. 2. 3.]
    """
    return _momentum(_stream("stream", stream, axis), axis)


def _momentum(x: np.ndarray, axis: int) -> np.ndarray:
    x = np.moveaxis(x, axis, 0)
    p = x - x                                                   # p_0 = 0 in x's own type (exact zero if object)
    p[1:] = x[1:] - x[:-1]
    return np.moveaxis(p, 0, axis)


def _phase_point(q, p) -> tuple[np.ndarray, np.ndarray]:
    q, p = _values("q", q), _values("p", p)
    _same_shape(q, p, "q and p")
    return q, p


@scalar_output
@finite_output("q, p, g")
def upper_shear(q, p, g) -> tuple[np.ndarray, np.ndarray]:
    """The upper shear ``M_g : (q, p) -> (q + g p, p)`` (PSA §3.2, §4), elementwise (q, p of one shape).

    Examples
    --------
    The upper shear moves q by g p:

    >>> import theorylab.psa as psa
    >>> q, p = psa.upper_shear(1.0, 2.0, 0.5)
    >>> float(q), float(p)
    (2.0, 2.0)
    """
    q, p = _phase_point(q, p)
    return _upper_shear(q, p, _coupling("g", g))


def _upper_shear(q, p, g):
    return q + g * p, p


@scalar_output
@finite_output("q, p, g")
def lower_shear(q, p, g) -> tuple[np.ndarray, np.ndarray]:
    """The lower shear ``(q, p) -> (q, p + g q)`` (PSA §4.4): symplectic but score-null.

    Examples
    --------
    The lower shear moves p by g q:

    >>> import theorylab.psa as psa
    >>> q, p = psa.lower_shear(1.0, 2.0, 0.5)
    >>> float(q), float(p)
    (1.0, 2.5)
    """
    q, p = _phase_point(q, p)
    g = _coupling("g", g)
    return q, p + g * q


@finite_output("stream, g")
def shear(stream, g, axis: int = -2) -> np.ndarray:
    """Sheared stream ``q' = q + g p`` with ``p = momentum(q)`` (PSA §4, Algorithm 1).

    Parameters
    ----------
    stream : array ``(..., T, d)``; pass the **post-RoPE** stream (see :func:`place_shear`).
    g : coupling (the paper's gamma); a real number or a symbol.
    axis : position axis (default ``-2``).

    Returns
    -------
    Array of the stream's shape: ``(1 + g) x_t - g x_{t-1}``, and ``x_0`` at ``t = 0``.
    """
    x = _stream("stream", stream, axis)
    return _shear(x, _coupling("g", g), axis)


def _shear(x: np.ndarray, g, axis: int) -> np.ndarray:
    return _upper_shear(x, _momentum(x, axis), g)[0]


def _step_vector(name: str, x) -> np.ndarray:
    """One position's vector: subclasses and object arrays kept; numeric input must be finite reals."""
    if _is_exact(x):
        return exact_array(name, x)
    real_array(name, x)
    return np.asanyarray(x, dtype=float)


@scalar_output
@finite_output("x_prev, x, g")
def shear_step(x_prev, x, g):
    """Sheared vector of the newest position, ``x + g (x - x_prev)`` (PSA §4, §8.3).

    The one-step form of :func:`shear`: ``shear(stream, g)[t] = shear_step(stream[t-1],
    stream[t], g)`` for ``t >= 1`` (the momentum is ``x - x_prev``; at ``t = 0`` it is zero
    and the sheared vector is ``x`` itself). This is the insertion kernel of a KV cache
    that keeps only the previous raw vector. Pure arithmetic (exact route).

    Examples
    --------
    The sheared newest vector:

    >>> import theorylab.psa as psa
    >>> float(psa.shear_step(1.0, 2.0, 0.5))
    2.5
    """
    x_prev, x = _step_vector("x_prev", x_prev), _step_vector("x", x)
    _same_shape(x_prev, x, "x_prev and x")
    return _upper_shear(x, x - x_prev, _coupling("g", g))[0]


@scalar_output
@finite_output("y, r_prev, g")
def unshear_step(y, r_prev, g):
    """Raw vector ``r = (y + g r_prev) / (1 + g)`` from its sheared value ``y`` and the raw predecessor.

    Inverse of :func:`shear_step` in its second argument: ``unshear_step(shear_step(a, b, g),
    a, g) = b`` (up to rounding), for ``g != -1``. Iterated along a stream it rebuilds raw
    vectors from sheared ones and one raw anchor; errors contract by ``|g / (1 + g)|``
    per step (``< 1`` for ``g > -1/2``). Pure arithmetic (exact route).

    Examples
    --------
    Undoing :func:`shear_step` recovers the raw vector:

    >>> import theorylab.psa as psa
    >>> float(psa.unshear_step(psa.shear_step(1.0, 2.0, 0.5), 1.0, 0.5))
    2.0
    """
    y, r_prev = _step_vector("y", y), _step_vector("r_prev", r_prev)
    _same_shape(y, r_prev, "y and r_prev")
    g = _coupling("g", g)
    numeric = isinstance(g, numbers.Real)          # _coupling returns a scalar (int, float, Fraction, SymPy), never
    if numeric and g == -1:                         # an array; a symbolic g is not refused
        raise ParameterError("g must not be -1 (the shear x + g (x - x_prev) is then not invertible)")
    return (y + g * r_prev) / (1 + g)


# ---------------------------------------------------------------- matrices (P1-P3)

@finite_output("g")
def lattice_couplings(member: str, g) -> tuple:
    """``(g_q, g_k)`` of an order-lattice member (one of :data:`LATTICE`) at coupling ``g``.

    Examples
    --------
    The symmetric member shears both streams:

    >>> import theorylab.psa as psa
    >>> psa.lattice_couplings('symmetric', 0.5)
    (0.5, 0.5)
    """
    a, b = LATTICE[choice("member", member, tuple(LATTICE))]
    g = _coupling("g", g)
    return a * g, b * g


# ---------------------------------------------------------------- stream filter (P4)
@finite_output("g")
def stream_taps(g) -> tuple:
    """Taps ``(b_0, b_1)`` of the per-stream causal filter ``H(z) = b_0 + b_1 z^-1 = (1+g) - g z^-1``.

    Examples
    --------
    The filter taps at g = 0.5:

    >>> import theorylab.psa as psa
    >>> psa.stream_taps(0.5)
    (1.5, -0.5)
    """
    g = _coupling("g", g)
    return 1 + g, -g


@scalar_output
@finite_output("g, cos_omega")
def stream_gain_sq(g, cos_omega):
    """Power gain ``|H(e^{i w})|^2 = 1 + 2 g (1 + g)(1 - cos w)`` of one sheared stream (PSA §4.2).

    Written in ``cos w`` (argument ``cos_omega`` in [-1, 1]) so that it is pure
    arithmetic: DC is ``cos w = 1`` (gain 1), Nyquist ``cos w = -1`` (gain ``(1 + 2g)^2``).

    Examples
    --------
    The power gain at the Nyquist frequency (cos w = -1):

    >>> import theorylab.psa as psa
    >>> float(psa.stream_gain_sq(0.5, -1.0))
    4.0
    """
    g = _coupling("g", g)
    if _is_exact(cos_omega):
        cos_omega = exact_array("cos_omega", cos_omega)
    elif is_exact(cos_omega):                       # a symbol
        cos_omega = _coupling("cos_omega", cos_omega)
    else:
        cos_omega = real_array("cos_omega", cos_omega, low=-1, high=1)
    return 1 + 2 * g * (1 + g) * (1 - cos_omega)


# ---------------------------------------------------------------- RoPE and placement (P9)

# ---------------------------------------------------------------- scores (P5, P6)

__all__ = ["LATTICE", "PLACEMENTS", "momentum", "upper_shear", "lower_shear", "shear", "shear_step", "unshear_step",
           "lattice_couplings", "stream_taps", "stream_gain_sq"]

__getattr__ = names_getattr(__name__)    # the matrices, RoPE and placement, score channels moved out: one release

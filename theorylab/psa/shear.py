"""The symplectic shear of Phase Space Attention (PSA §2-5), in pure NumPy.

A *stream* is an array of shape ``(..., T, d)``: ``T`` positions (axis ``-2`` unless
``axis`` says otherwise) of ``d``-dimensional post-RoPE query or key vectors. Its
phase-space lift is ``(q, p)`` with ``p`` the first difference along positions and
``p_0 = 0`` at the first position (PSA §4: no artificial first-token impulse). The
upper shear ``M_g : (q, p) -> (q + g p, p)`` then gives the sheared stream
``q' = (1 + g) q_t - g q_{t-1}``: a causal two-tap FIR filter per stream (PSA §4.2).

Conventions (named here because the paper leaves them open)
-----------------------------------------------------------
* RoPE pairs coordinates ``(2i, 2i+1)`` (interleaved, RoFormer) and rotates pair ``i``
  at position ``t`` by angle ``t * freqs[i]`` with ``freqs[i] = base^(-2i/d)``.
* Placement ``"post-rope"`` (the paper's): rotate, then take momentum and shear.
  ``"pre-rope"``: take momentum and shear the raw stream, then rotate.
* Order-lattice members are named by their coupling pattern ``(g_q, g_k)``:
  standard ``(0, 0)``, query-only ``(g, 0)``, key-only ``(0, g)``, symmetric ``(g, g)``.

Exact route: every function here that only adds and multiplies (``momentum``,
``shear``, ``upper_shear``, ``lower_shear``, ``rotate_pairs``, ``place_shear``,
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
from theorylab.errors import (ParameterError, check_memory, choice, exact_array, finite_output, finite_result,
                              is_exact, positive_int, real_array, real_or_exact, real_scalar)

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
def _blocks(a, b, c, e, d: int) -> np.ndarray:
    eye = np.eye(d, dtype=int)
    vals = (a, b, c, e)
    dtype = (object if any(not isinstance(v, numbers.Real) for v in vals)
             else int if all(isinstance(v, numbers.Integral) for v in vals) else float)
    return np.block([[eye * a, eye * b], [eye * c, eye * e]]).astype(dtype)


def _width(d, factor: int = 2) -> int:
    """Phase-space half-width d >= 1 of a ``(factor d) x (factor d)`` matrix (memory checked)."""
    d = positive_int("d", d)
    check_memory("d", 8 * (factor * d) ** 2)
    return d


def symplectic_form(d: int = 1) -> np.ndarray:
    """``J = [[0, I], [-I, 0]]`` on phase space ``(q, p)`` in ``R^{2d}`` (integer entries).

    Examples
    --------
    J in R^2:

    >>> import theorylab.psa as psa
    >>> print(psa.symplectic_form())
    [[ 0  1]
     [-1  0]]
    """
    return _blocks(0, 1, -1, 0, _width(d)).astype(int)


@finite_output("g")
def upper_shear_matrix(g, d: int = 1) -> np.ndarray:
    """``M_g = [[I, g I], [0, I]]`` acting on ``(q, p)`` in ``R^{2d}`` (object array if g is symbolic).

    Examples
    --------
    M_g in R^2 at g = 0.5:

    >>> import theorylab.psa as psa
    >>> print(psa.upper_shear_matrix(0.5))
    [[1.  0.5]
     [0.  1. ]]
    """
    return _blocks(1, _coupling("g", g), 0, 1, _width(d))


@finite_output("g")
def lower_shear_matrix(g, d: int = 1) -> np.ndarray:
    """Lower shear ``[[I, 0], [g I, I]]`` on ``(q, p)`` (PSA §4.4).

    Examples
    --------
    The lower shear in R^2 at g = 0.5:

    >>> import theorylab.psa as psa
    >>> print(psa.lower_shear_matrix(0.5))
    [[1.  0. ]
     [0.5 1. ]]
    """
    return _blocks(1, 0, _coupling("g", g), 1, _width(d))


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


@finite_output("g_q, g_k")
def lattice_matrix(g_q, g_k, d: int = 1) -> np.ndarray:
    """Joint operator ``M_{g_q} (+) M_{g_k}`` on ``(q, p_q, k, p_k)`` in ``R^{4d}``.

    Equal couplings give the symmetric member; ``g_q = 0`` or ``g_k = 0`` the half-lifts.

    Examples
    --------
    The joint operator on (q, p_q, k, p_k) is 4 x 4 for d = 1:

    >>> import theorylab.psa as psa
    >>> psa.lattice_matrix(0.5, 0.0).shape
    (4, 4)
    """
    d = _width(d, 4)
    mq, mk = upper_shear_matrix(g_q, d), upper_shear_matrix(g_k, d)
    out = np.zeros((4 * d, 4 * d), dtype=np.result_type(mq, mk))
    out[:2 * d, :2 * d] = mq
    out[2 * d:, 2 * d:] = mk
    return out


@scalar_output
@finite_output("q, p")
def nonlinear_shear(q, p, f) -> tuple:
    """Nonlinear upper shear ``(q, p) -> (q + f(p), p)`` for a map ``f`` of the momentum (PSA §4.6).

    ``f`` must map p to an array of p's shape (its values are validated like q's).

    Examples
    --------
    A nonlinear upper shear with f = sin:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> q, p = psa.nonlinear_shear(np.array([1.0]), np.array([0.5]), np.sin)
    >>> print(q.round(4), p)
    [1.4794] [0.5]
    """
    q, p = _phase_point(q, p)
    if not callable(f):
        raise ParameterError(f"f must be a function of the momentum (got {type(f).__name__})")
    try:
        fp = f(p)
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise ParameterError(f"f must map the momentum p to an array of p's shape (f(p) raised "
                             f"{type(exc).__name__})") from None
    fp = _values("f(p)", fp)
    _same_shape(q, fp, "q and f(p)")
    return q + fp, p


def shear_jacobian(dfdp) -> np.ndarray:
    """Jacobian ``[[I, Df], [0, I]]`` of :func:`nonlinear_shear` at a point where ``Df = dfdp`` (d x d).

    Examples
    --------
    The Jacobian at Df = [[2]]:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> print(psa.shear_jacobian(np.array([[2.0]])))
    [[1. 2.]
     [0. 1.]]
    """
    F = _values("dfdp", dfdp)
    if F.ndim != 2 or F.shape[0] != F.shape[1]:
        raise ParameterError(f"dfdp must be a square d x d matrix (got shape {F.shape})")
    d = F.shape[0]
    check_memory("dfdp", 8 * (2 * d) ** 2)
    out = np.zeros((2 * d, 2 * d), dtype=object if F.dtype == object else np.result_type(F, int))
    if out.dtype == object:
        out[:] = 0
    out[:d, :d] = np.eye(d, dtype=int)
    out[d:, d:] = np.eye(d, dtype=int)
    out[:d, d:] = F
    return out


def symplectic_shear_codimension(dk) -> int:
    """Codimension ``dk (dk - 1) / 2`` of the symmetric-Jacobian condition on nonlinear shears.

    ``(q, p) -> (q + f(p), p)`` is symplectic iff ``Df`` is symmetric everywhere: one
    linear condition per pair ``i < j`` (PSA §4.6: 2016 at dk = 64).

    Examples
    --------
    Conditions on a dk = 4 shear to be symplectic:

    >>> import theorylab.psa as psa
    >>> psa.symplectic_shear_codimension(4)
    6
    """
    dk = positive_int("dk", dk)
    return dk * (dk - 1) // 2


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


# ---------------------------------------------------------------- scores (P5, P6)
@finite_output("q, k, g_q, g_k")
def score_channels(q, k, g_q, g_k, scaled: bool = True) -> tuple[np.ndarray, ...]:
    """The four score channels of the sheared bilinear score (PSA §4.1).

    With ``p_q = momentum(q)``, ``p_k = momentum(k)`` (streams ``(T, d)``)::

        T1 = q.k,  T2 = g_q p_q.k,  T3 = g_k q.p_k,  T4 = g_q g_k p_q.p_k,

    each a ``(T_q, T_k)`` matrix, divided by ``sqrt(d)`` when ``scaled`` (numeric input
    only; pass ``scaled=False`` for exact arithmetic). Their sum is the score of the
    sheared streams ``shear(q, g_q) @ shear(k, g_k).T``.

    Examples
    --------
    Four channels of the sheared score, one score per key:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> q, k = np.ones((3, 2)), np.ones((3, 2))
    >>> len(psa.score_channels(q, k, 0.5, 0.5))
    4
    """
    q, k = _stream("q", q, -2), _stream("k", k, -2)
    if q.ndim != 2 or k.ndim != 2 or q.shape[1] != k.shape[1]:
        raise ParameterError(f"q and k must be (T, d) streams of the same width (got {q.shape}, {k.shape})")
    g_q, g_k = _coupling("g_q", g_q), _coupling("g_k", g_k)
    pq, pk = momentum(q), momentum(k)
    chans = (q @ k.T, g_q * (pq @ k.T), g_k * (q @ pk.T), g_q * g_k * (pq @ pk.T))
    if scaled:
        if _is_exact(q) or _is_exact(k):
            raise ParameterError("scaled must be False for exact (object) streams")
        chans = tuple(c / np.sqrt(q.shape[1]) for c in chans)
    return chans


@finite_output("q, k, g_q, g_k")
def coupling_split(q, k, g_q, g_k) -> dict[str, np.ndarray]:
    """Regroup the (unscaled) sheared score by coupling structure (PSA §4.8).

    With ``gbar = (g_q + g_k)/2`` and ``delta = (g_q - g_k)/2``::

        base      = q.k                          (T1)
        increment = gbar (p_q.k + q.p_k)         (the Leibniz increment of q.k, transported by gbar)
        bias      = delta (p_q.k - q.p_k)        (zero iff g_q = g_k; antisymmetric in q <-> k)
        coherence = g_q g_k p_q.p_k              (T4)

    Equal couplings leave base + transported increment + pure coherence; unequal
    couplings add the linear score bias. Pure arithmetic (exact route).

    Examples
    --------
    The sheared score regrouped by coupling:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> parts = psa.coupling_split(np.ones((3, 2)), np.ones((3, 2)), 0.5, 0.5)
    >>> sorted(parts)
    ['base', 'bias', 'coherence', 'increment']
    """
    t1, t2, t3, t4 = score_channels(q, k, 1, 1, scaled=False)
    g_q, g_k = _coupling("g_q", g_q), _coupling("g_k", g_k)
    gbar, delta = (g_q + g_k) / 2, (g_q - g_k) / 2
    return {"base": t1, "increment": gbar * (t2 + t3), "bias": delta * (t2 - t3), "coherence": g_q * g_k * t4}


__all__ = ["nonlinear_shear", "shear_jacobian", "symplectic_shear_codimension", "coupling_split",
           "LATTICE", "PLACEMENTS", "momentum", "upper_shear", "lower_shear", "shear", "shear_step", "unshear_step",
           "symplectic_form",
           "upper_shear_matrix", "lower_shear_matrix", "lattice_couplings", "lattice_matrix", "stream_taps",
           "stream_gain_sq", "rope_frequencies", "rope_tables", "rotate_pairs", "rope", "place_shear",
           "sheared_stream", "coriolis_term", "score_channels"]

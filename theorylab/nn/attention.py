"""One attention-head interface for SDPA, PSA, EG-MHSA and PLGA (pure NumPy, one head at a time).

A head is described by a frozen *spec* (:mod:`theorylab.nn.specs`: ``SDPA``, ``PSA``, ``TwoTap``,
``Graded``, ``PLGA``) and computed in three steps shared by the full forward pass and the
cached decoder (``theorylab.nn.decoder``):

1. :func:`streams` -- the score-bearing query/key streams and the value stream of the
   rows at positions ``start, start+1, ...``: grading (EG-MHSA), RoPE, the shear (PSA),
   a general two-tap filter (``TwoTap``, e.g. learnable taps).
   ``prev`` carries the raw projections of position ``start-1`` (the two retained raw
   vectors of PSA §8.3), so a block computed alone equals the same rows of a full pass.
2. :func:`scores` -- ``q G k^T / sqrt(dk)`` with ``G = I`` except for PLGA (eq. 3.7).
3. :func:`attend` -- causal softmax (:func:`attention_weights`) and the value average.

:func:`head` runs the three steps and, when given a ``trace`` list, appends what the
backward pass (``theorylab.nn.grad``) needs: raw projections, streams and weights.

Conventions (named here, explained in docs/transformer.md)
----------------------------------------------------------
* Inputs ``q, k, v`` of a head are its *raw projections* ``x W`` (shape ``(T, dk)``).
* RoPE (``theorylab.psa.rotary.rope``): interleaved pairs, ``base = 10000`` unless the
  spec's ``base`` says otherwise; ``base=None`` means no RoPE (NoPE).
* PSA: couplings ``(g_q, g_k)`` (symmetric ``g_q = g_k``, key-only ``g_q = 0``,
  query-only ``g_k = 0``), placement ``post-rope`` (paper) or ``pre-rope``; momentum zero
  at position 0. The value stream is never sheared (PSA §4.7).
* TwoTap: per stream ``b0 x_t + b1 x_{t-1}`` with ``x_{-1} = x_0`` (PSA's zero momentum at
  position 0), placed like PSA; taps ``(1 + g, -g)`` are the shear (``psa.shear.stream_taps``).
* EG-MHSA (GLLM §3.1): ``q M, k M, v M`` with ``M = diag(lam^q_j)``, grades clipped so
  that ``lam^q <= clip`` when a clip is given; grading acts on the projections, *before*
  RoPE, so it is absorbed by ``W -> W M`` (Rem. 1, Cor. 1) whatever the grades.
* PLGA: ``G_LM`` from ``theorylab.plga.operator`` on the rotated queries; ``gram`` is
  ``"global"`` (the paper's implemented operator, eq. 3.2: one G for the whole call) or
  ``"cumulative"`` (eq. 4.16: row t uses the Gram of rows <= t).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from theorylab import _moved
from theorylab.errors import ParameterError, finite_output, positive_int, real_array, real_or_exact
from theorylab.nn import specs
from theorylab.nn.specs import _spec
from theorylab.plga import operator as plga
from theorylab.psa import shear as psa
from theorylab.psa import rotary
from theorylab.psa.rotary import _rotate_pairs
from theorylab.psa.shear import _momentum, _shear
from theorylab.psa.softmax import _softmax

# ------------------------------------------------------------------------------ the three steps
def _rope(x, positions, base):
    """RoPE of validated rows ``x`` (..., n, dk) at float ``positions`` (n,): ``psa.rotary.rope``'s arithmetic."""
    if base is None:
        return x
    return _rotate(x, positions, base)                                  # [..., n, dk] rotated rows


def _rotate(x, positions, base: float):
    """RoPE rotation of rows ``x`` (..., n, dk) at ``positions``: for float rows, each pair ``(x_2i, x_2i+1)`` read
    as the complex number ``x_2i + i x_2i+1`` times ``cos + i sin`` (one complex product per pair: the same
    products and sums as ``psa.rotary.rotate_pairs``); object rows through ``psa.shear``'s kernel itself."""
    if x.dtype in (np.float64, np.float32) and x.strides[-1] == x.itemsize:
        phases = _cached_phases(x.shape[-1], float(base), positions.tobytes(), x.dtype == np.float32)
        return (x.view(phases.dtype) * phases).view(x.dtype)             # [..., n, dk]
    cos, sin = _rope_tables(x.shape[-1], base, positions, x.dtype)      # [n, dk/2] x2
    return _rotate_pairs(x, cos, sin)                                   # [..., n, dk]


def _rope_tables(dk: int, base: float, positions: np.ndarray, dtype=float) -> tuple[np.ndarray, np.ndarray]:
    """RoPE ``(cos, sin)`` tables ``(n, dk/2)`` of float ``positions`` (n,): ``psa.shear``'s own, computed once per
    ``(dk, base, positions)`` in a process (read-only), so a training step builds none. The tables are float32
    for float32 rows (computed in float64, then rounded) and float64 otherwise (object rows included)."""
    single = np.dtype(dtype) == np.float32
    return _cached_tables(dk, float(base), positions.tobytes(), single)


@functools.lru_cache(maxsize=1024)
def _cached_tables(dk: int, base: float, positions: bytes, single: bool) -> tuple[np.ndarray, np.ndarray]:
    pos = np.frombuffer(positions, dtype=float)                         # [n]
    cos, sin = rotary.rope_tables(len(pos), rotary.rope_frequencies(dk, base), pos)   # [n, dk/2] x2
    if single:
        cos, sin = cos.astype(np.float32), sin.astype(np.float32)
    cos.flags.writeable = sin.flags.writeable = False
    return cos, sin


@functools.lru_cache(maxsize=1024)
def _cached_phases(dk: int, base: float, positions: bytes, single: bool) -> np.ndarray:
    """``cos + i sin`` of :func:`_cached_tables` (n, dk/2), complex64 or complex128 (read-only)."""
    cos, sin = _cached_tables(dk, base, positions, single)
    phases = np.empty(cos.shape, dtype=np.complex64 if single else np.complex128)
    phases.real, phases.imag = cos, sin
    phases.flags.writeable = False
    return phases


@finite_output("q, k, v, prev")
def streams(spec: specs.HeadSpec, q, k, v, start: int = 0, prev=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Score-bearing query and key streams and the value stream of one head.

    Parameters
    ----------
    spec : the head.
    q, k, v : raw projections ``(..., n, dk)`` of the rows at positions ``start .. start+n-1``
        (leading batch axes are allowed except for PLGA).
    start : position of the first row.
    prev : ``(q_raw, k_raw)`` of position ``start - 1`` (required by PSA when start > 0:
        the two retained raw vectors); ignored by the other heads.

    Returns
    -------
    ``(qs, ks, vs)``, each ``(..., n, dk)``.

    Examples
    --------
    Key-only PSA without RoPE: the key stream is ``k + g p`` with momentum ``p_0 = 0`` (PSA §4),
    queries and values untouched:

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> x = np.array([[1.0, 0.0], [2.0, 0.0], [4.0, 0.0]])
    >>> qs, ks, vs = nn.streams(nn.PSA(g_q=0.0, g_k=1.0, base=None), x, x, x)
    >>> ks[:, 0], qs[:, 0]
    (array([1., 3., 6.]), array([1., 2., 4.]))

    A block computed alone from the retained raw pair of position ``start - 1`` (PSA §8.3) gives
    the same rows as the full pass:

    >>> q, k, v = np.random.default_rng(0).normal(size=(3, 5, 4))
    >>> spec = nn.PSA(g_q=0.5, g_k=1.0)
    >>> full = nn.streams(spec, q, k, v)
    >>> block = nn.streams(spec, q[3:], k[3:], v[3:], start=3, prev=(q[2], k[2]))
    >>> bool(np.allclose(block[1], full[1][3:], rtol=0, atol=1e-12))
    True
    """
    spec = _spec(spec)
    q, k, v = _projections(q, k, v)
    start = positive_int("start", start, low=0)
    if start > 0 and isinstance(spec, (specs.PSA, specs.TwoTap)):
        prev = _previous(prev, q.shape[:-2] + q.shape[-1:])
    return _streams(spec, q, k, v, start, prev)


def _streams(spec: specs.HeadSpec, q, k, v, start: int, prev) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`streams` without the checks: ``prev`` is the validated retained pair (PSA, TwoTap, start > 0)."""
    n = q.shape[-2]                                                     # rows in this block
    pos = np.arange(start, start + n, dtype=float)                      # [n] positions
    if isinstance(spec, specs.Graded):
        m = spec.diag                                                   # [dk] diag(lam^q)
        return _rope(q * m, pos, spec.base), _rope(k * m, pos, spec.base), v * m
    if not isinstance(spec, (specs.PSA, specs.TwoTap)):                 # SDPA, PLGA
        return _rope(q, pos, spec.base), _rope(k, pos, spec.base), v
    if start > 0:                                                       # prepend position start-1
        prev_q, prev_k = prev
        q = np.concatenate([prev_q[..., None, :], q], axis=-2)         # [n+1, dk]
        k = np.concatenate([prev_k[..., None, :], k], axis=-2)         # [n+1, dk]
        pos = np.arange(start - 1, start + n, dtype=float)              # [n+1]
    if isinstance(spec, specs.PSA):
        qs = _sheared(q, spec.g_q, pos, spec)                           # [n(+1), dk]
        ks = _sheared(k, spec.g_k, pos, spec)                           # [n(+1), dk]
    else:
        qs = _filtered(q, spec.q_taps, pos, spec)                       # [n(+1), dk]
        ks = _filtered(k, spec.k_taps, pos, spec)                       # [n(+1), dk]
    return qs[..., -n:, :], ks[..., -n:, :], v                          # drop the retained row


def _projections(q, k, v) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Raw projections ``(..., n, dk)``: q and k of one shape, v with the same leading shape."""
    q, k, v = real_or_exact("q", q), real_or_exact("k", k), real_or_exact("v", v)
    if q.ndim < 2 or q.shape != k.shape or v.shape[:-1] != q.shape[:-1] or q.shape[-1] == 0:
        raise ParameterError(f"q, k, v must be (..., n, dk) arrays with q and k of one shape and v of the same "
                             f"rows (got {q.shape}, {k.shape}, {v.shape})")
    return q, k, v


def _previous(prev, shape) -> tuple[np.ndarray, np.ndarray]:
    """``prev = (q_raw, k_raw)`` of the position before the block, each of ``shape``."""
    if not isinstance(prev, (tuple, list)) or len(prev) != 2:
        raise ParameterError("prev must hold the raw (q, k) of position start-1 for a PSA or two-tap block "
                             "with start > 0")
    pq, pk = real_array("prev[0]", prev[0]), real_array("prev[1]", prev[1])
    if pq.shape != shape or pk.shape != shape:
        raise ParameterError(f"prev must hold two raw vectors of shape {shape} (got {pq.shape} and {pk.shape})")
    return pq, pk


def _sheared(x, g, pos, spec: specs.PSA):
    """``psa.rotary.place_shear`` (or ``shear`` without RoPE) of validated rows, without the checks."""
    if spec.base is None:                                               # no RoPE: placements coincide
        return x if g == 0 else _shear(x, g, -2)                        # [..., n, dk] (g = 0: x + 0 p = x)
    if g == 0:                                                          # the unsheared stream: x + 0 p = x
        return _rotate(x, pos, spec.base)                               # [..., n, dk]
    if spec.placement == "post-rope":
        return _shear(_rotate(x, pos, spec.base), g, -2)                # [..., n, dk]
    return _rotate(_shear(x, g, -2), pos, spec.base)                    # [..., n, dk]


@finite_output("x, taps")
def two_tap(x, taps) -> np.ndarray:
    """Causal two-tap filter along positions (axis -2): ``b0 x_t + b1 x_{t-1}``, ``x_{-1} = x_0``.

    Written as ``(b0 + b1) x - b1 p`` with the PSA momentum ``p = psa.shear.momentum(x)``
    (``p_0 = 0``), so taps ``(1 + g, -g)`` give ``psa.shear.shear(x, g)``. ``x`` is ``(..., n, d)``
    (object arrays: the exact route), ``taps`` two reals.

    Examples
    --------
    Taps ``(1 + g, -g)`` at g = 1 are the PSA shear (PSA §4.2): ``2 x_t - x_{t-1}``, ``x_{-1} = x_0``:

    >>> import theorylab.nn as nn
    >>> nn.two_tap([[1.0], [2.0], [4.0]], [2.0, -1.0]).ravel()
    array([1., 3., 6.])
    """
    x = real_or_exact("x", x)
    if x.ndim < 2:
        raise ParameterError(f"x must be an (..., n, d) array of rows (got shape {x.shape})")
    taps = real_array("taps", taps)
    if taps.shape != (2,):
        raise ParameterError(f"taps must be two real taps (b0, b1) (got shape {taps.shape})")
    return _two_tap(x, taps)


def _two_tap(x, taps) -> np.ndarray:
    b0, b1 = (float(t) for t in taps)                                   # Python floats: x's type
    return (b0 + b1) * x - b1 * _momentum(x, -2)                       # [..., n, dk]


def _filtered(x, taps, pos, spec: specs.TwoTap):
    if spec.base is None:
        return _two_tap(x, taps)                                        # [..., n, dk]
    if spec.placement == "post-rope":
        return _two_tap(_rope(x, pos, spec.base), taps)                 # filter the rotated stream
    return _rope(_two_tap(x, taps), pos, spec.base)                     # rotate the filtered stream


def unshear_keys(spec: specs.PSA, ks, start: int = 0, prev_k=None) -> np.ndarray:
    """Raw key projections ``(n, dk)`` rebuilt from cached sheared keys ``ks`` and one anchor.

    Inverts the causal two-tap filter row by row with :func:`theorylab.psa.shear.unshear_step`,
    ``r_t = (k'_t + g r_{t-1}) / (1 + g)`` (post-RoPE: on rotated keys, then un-rotated;
    pre-RoPE: on un-rotated ``k'``), from the raw key ``prev_k`` of position ``start - 1``
    (unused when start = 0, where ``p_0 = 0``). The recursion contracts errors by
    ``|g/(1+g)|`` (``< 1`` for ``g > -1/2``). This is PSA §8.5's "one extra
    d-vector per speculative block" for the key stream: the cached sheared keys plus one
    anchored raw key give back every raw key of the block. ``g_k`` must not be -1 (the filter
    is then not invertible).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> q, k, v = np.random.default_rng(0).normal(size=(3, 5, 4))
    >>> spec = nn.PSA(g_q=0.0, g_k=0.5)
    >>> ks = nn.streams(spec, q, k, v)[1]                      # the cached sheared keys
    >>> bool(np.allclose(nn.unshear_keys(spec, ks), k, rtol=0, atol=1e-12))
    True
    >>> block = nn.unshear_keys(spec, ks[3:], start=3, prev_k=k[2])   # from the anchor (PSA §8.5)
    >>> bool(np.allclose(block, k[3:], rtol=0, atol=1e-12))
    True
    """
    if not isinstance(spec, specs.PSA):
        raise ParameterError(f"spec must be a PSA head (got {type(spec).__name__})")
    ks = real_array("ks", ks)
    if ks.ndim != 2 or ks.shape[1] == 0:
        raise ParameterError(f"ks must be an (n, dk) array of cached sheared keys (got shape {ks.shape})")
    start = positive_int("start", start, low=0)
    if start:
        prev_k = real_array("prev_k", prev_k)
        if prev_k.shape != ks.shape[1:]:
            raise ParameterError(f"prev_k must be the raw key of position start-1, shape {ks.shape[1:]} "
                                 f"(got {prev_k.shape})")
    n = ks.shape[-2]                                                    # rows to rebuild
    pos = np.arange(start, start + n, dtype=float)                      # [n] positions
    g = spec.g_k
    unrotate = (lambda x, p: x) if spec.base is None else (lambda x, p: rotary.rope(x, spec.base, -p))
    rotate = (lambda x, p: x) if spec.base is None else (lambda x, p: rotary.rope(x, spec.base, p))
    post = spec.placement == "post-rope"
    y = ks if post else unrotate(ks, pos)                               # [n, dk] filtered stream
    r = np.empty_like(y)
    last = None if start == 0 else (rotate(prev_k[None], pos[:1] - 1)[0] if post else prev_k)
    for t in range(n):                                                  # invert (1+g) r_t - g r_{t-1}
        r[t] = y[t] if last is None else psa.unshear_step(y[t], last, g)   # [dk]
        last = r[t]
    return unrotate(r, pos) if post else r                              # [n, dk] raw projections


@finite_output("qs, ks, G")
def scores(qs, ks, G=None) -> np.ndarray:
    """``qs G ks^T / sqrt(dk)``: ``(n, m)``; ``G`` is None (identity), ``(dk, dk)`` or per-row ``(n, dk, dk)``.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> np.round(nn.scores([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), 4)     # G = I
    array([[0.7071, 0.    , 0.7071]])
    >>> np.round(nn.scores([[1.0, 0.0]], [[0.0, 1.0]], G=[[0.0, 2.0], [0.0, 0.0]]), 4)   # PLGA eq. 3.7
    array([[1.4142]])
    """
    if G is not None:
        return plga.scores(qs, ks, G)                                   # [n, m] (PLGA eq. 3.7)
    qs, ks = real_or_exact("qs", qs), real_or_exact("ks", ks)
    if qs.ndim < 2 or ks.ndim < 2 or qs.shape[-1] != ks.shape[-1] or qs.shape[-1] == 0:
        raise ParameterError(f"qs (..., n, dk) and ks (..., m, dk) must share dk (got {qs.shape} and {ks.shape})")
    return _scores(qs, ks)


def _scores(qs, ks, G=None) -> np.ndarray:
    """:func:`scores` of validated streams; a PLGA operator ``G`` goes to ``plga.operator.scores``."""
    if G is not None:
        return plga.scores(qs, ks, G)                                   # [n, m] (PLGA eq. 3.7)
    return qs @ np.swapaxes(ks, -1, -2) / math.sqrt(qs.shape[-1])       # [n, m] (a Python float: qs's type)


def attention_weights(s) -> np.ndarray:
    """Causal softmax of scores ``s`` (..., n, m): row i is position ``m - n + i`` and sees keys ``<= m - n + i``.

    Examples
    --------
    Equal scores: each query spreads its weight evenly over the keys up to its own position (causal
    attention, as in the induction model of PSA §2.2); a single row is the last position:

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> np.round(nn.attention_weights(np.zeros((3, 3))), 4)
    array([[1.    , 0.    , 0.    ],
           [0.5   , 0.5   , 0.    ],
           [0.3333, 0.3333, 0.3333]])
    >>> np.round(nn.attention_weights(np.zeros((1, 3))), 4)
    array([[0.3333, 0.3333, 0.3333]])
    """
    s = real_array("s", s)
    if s.ndim < 2 or s.shape[-2] > s.shape[-1] or not s.size:
        raise ParameterError(f"s must be (..., n, m) scores with 1 <= n <= m (got shape {s.shape})")
    return _attention_weights(s)


def _attention_weights(s: np.ndarray) -> np.ndarray:
    """:func:`attention_weights` of validated scores: PSA's softmax kernel (``psa.softmax.softmax(s, mask=past)``;
    future keys get score -inf, weight exactly 0)."""
    n, m = s.shape[-2:]
    past = np.arange(m)[None, :] <= np.arange(m - n, m)[:, None]        # [n, m] keys up to the query
    return _softmax(s, -1, past)                                        # [..., n, m]


def attend(s, vs) -> np.ndarray:
    """Causal softmax of scores ``s`` (n, m) -- row i is position ``m - n + i`` -- times ``vs`` (m, dv).

    Examples
    --------
    Equal scores give the running mean of the values (causal attention, PSA §2.2):

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> nn.attend(np.zeros((3, 3)), [[1.0], [2.0], [6.0]]).ravel()
    array([1. , 1.5, 3. ])
    """
    p, vs = attention_weights(s), real_array("vs", vs)
    if vs.ndim != p.ndim or vs.shape[-2] != p.shape[-1]:
        raise ParameterError(f"vs must be (..., m, dv) values for scores of shape {p.shape} (got {vs.shape})")
    return p @ vs                                                       # [n, dv]


def _attend(s, vs) -> np.ndarray:
    """:func:`attend` of validated scores and values."""
    return _attention_weights(s) @ vs                                   # [n, dv]


def plga_operator(spec: specs.PLGA, qs) -> np.ndarray:
    """``G_LM`` of a PLGA head from its rotated queries ``qs`` (S, dk): (dk, dk) global, (S, dk, dk) cumulative.

    Examples
    --------
    The global operator (PLGA eq. 3.2) is the last row of the cumulative one (eq. 4.16):

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> import theorylab.plga as plga
    >>> qs = np.random.default_rng(0).normal(size=(5, 4))
    >>> spec = nn.PLGA(plga.init_params(4, seed=0))
    >>> G = nn.plga_operator(spec, qs)
    >>> G_t = nn.plga_operator(nn.PLGA(spec.params, gram="cumulative"), qs)
    >>> G.shape, G_t.shape, bool(np.allclose(G_t[-1], G, rtol=0, atol=1e-10))
    ((4, 4), (5, 4, 4), True)
    """
    if not isinstance(spec, specs.PLGA):
        raise ParameterError(f"spec must be a PLGA head (got {type(spec).__name__})")
    return _plga_operator(spec, qs)


def _plga_operator(spec: specs.PLGA, qs) -> np.ndarray:
    if spec.gram == "global":
        return plga.g_lm(qs, spec.params)                               # [dk, dk]
    return plga.g_lm_cumulative(qs, spec.params)                        # [S, dk, dk]


@finite_output("q, k, v")
def head(spec: specs.HeadSpec, q, k, v, trace: list | None = None) -> np.ndarray:
    """Full causal forward pass of one head over raw projections ``q, k, v`` (..., T, dk) -> (..., T, dk).

    ``trace``: if a list, a dict ``{q, k, v, qs, ks, vs, p}`` (raw projections, streams,
    attention weights) is appended to it for the backward pass. Floats only: the exact route (object
    arrays) goes through :func:`streams` and :func:`scores`.

    Examples
    --------
    A key-only PSA head (PSA §4); position 0 attends only to itself, and causal rows do not depend
    on later positions:

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> q, k, v = np.random.default_rng(0).normal(size=(3, 5, 4))
    >>> spec = nn.PSA.member("key-only", 1.0)
    >>> trace = []
    >>> out = nn.head(spec, q, k, v, trace=trace)
    >>> out.shape, bool(np.allclose(out[0], v[0])), sorted(trace[0])
    ((5, 4), True, ['k', 'ks', 'p', 'q', 'qs', 'v', 'vs'])
    >>> bool(np.allclose(nn.head(spec, q[:3], k[:3], v[:3]), out[:3], rtol=0, atol=1e-12))
    True
    """
    spec = _spec(spec)
    q, k, v = _projections(real_array("q", q), real_array("k", k), real_array("v", v))
    return _head(spec, q, k, v, trace)


def _head(spec: specs.HeadSpec, q, k, v, trace: list | None = None) -> np.ndarray:
    """:func:`head` of validated float projections (the decoder's kernel)."""
    qs, ks, vs = _streams(spec, q, k, v, 0, None)                       # [T, dk] x3
    G = _plga_operator(spec, qs) if isinstance(spec, specs.PLGA) else None   # None | [dk, dk] | [T, dk, dk]
    p = _attention_weights(_scores(qs, ks, G))                          # [T, T]
    if trace is not None:
        trace.append({"q": q, "k": k, "v": v, "qs": qs, "ks": ks, "vs": vs, "p": p})
    return p @ vs                                                       # [T, dk]


__all__ = ["streams", "two_tap", "unshear_keys", "scores", "attention_weights", "attend", "plga_operator", "head"]

__getattr__ = _moved.moved_names(__name__, {name: "theorylab.nn.specs" for name in specs.__all__})
"""The head specs moved to :mod:`theorylab.nn.specs`; their old path works for one release."""

"""The decoder-only transformer in NumPy: parameters, building blocks and the full forward pass.

Pre-LayerNorm GPT blocks (picoGPT layout) with RoPE inside the heads::

    x = wte[tokens]
    for each layer:  x = x + attention(LN1(x));  x = x + MLP(LN2(x))
    logits = LN_f(x) @ wte^T

:func:`forward` computes the logits of the whole sequence at once, each head by
``attention.head``; :mod:`theorylab.nn.prefix` checks PLGA's Definition 4.8 on it, and
:mod:`theorylab.nn.compiled` maps a graded or input-invariant PLGA decoder to the standard
transformer that computes the same function. Incremental decoding
over a KV cache is :mod:`theorylab.nn.decoder`, which also re-exports every public name of
this module (``theorylab.nn.decoder.forward`` is this :func:`forward`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from theorylab import _moved
from theorylab.errors import (ParameterError, check_memory, describe, finite_output, positive_int,
                              real_array, seed_int)
from theorylab.nn import attention
from theorylab.nn.specs import SDPA, HeadSpec
from theorylab.plga import operator as plga
from theorylab.plga.chain import _layer_norm as _plga_layer_norm

LN_EPS = 1e-5


# ------------------------------------------------------------------------------ parameters
@dataclass(frozen=True, eq=False)
class Layer:
    """One block: attention projections (d, d), MLP (d, 4d), (4d, d), two LayerNorms, the heads."""

    w_q: np.ndarray
    w_k: np.ndarray
    w_v: np.ndarray
    w_o: np.ndarray
    w_fc: np.ndarray
    b_fc: np.ndarray
    w_proj: np.ndarray
    b_proj: np.ndarray
    ln1: tuple[np.ndarray, np.ndarray]
    ln2: tuple[np.ndarray, np.ndarray]
    heads: tuple[HeadSpec, ...]


@dataclass(frozen=True, eq=False)
class Decoder:
    """Token embedding ``wte`` (V, d) (tied with the output), the layers, the final LayerNorm."""

    wte: np.ndarray
    layers: tuple[Layer, ...]
    ln_f: tuple[np.ndarray, np.ndarray]

    @property
    def n_head(self) -> int:
        return len(self.layers[0].heads)

    @property
    def d(self) -> int:
        return self.wte.shape[1]


def random_decoder(vocab: int = 32, d: int = 16, n_head: int = 2, n_layer: int = 2,
                   head: HeadSpec | Callable[[int, int], HeadSpec] = SDPA(), seed: int = 0) -> Decoder:
    """Gaussian weights: matrices N(0, 1/fan-in), embedding N(0, 1), LN gains 1 + 0.1 z, LN/MLP biases 0.1 z.

    ``head`` is one spec for every head, or a function ``(layer, head) -> spec``.

    Examples
    --------
    A tiny decoder of key-only PSA heads (PSA §4), two heads of width 4 in one layer:

    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("key-only", 1.0), seed=0)
    >>> model.d, model.n_head, len(model.layers), model.wte.shape
    (8, 2, 1, (8, 8))
    >>> type(model.layers[0].heads[1]).__name__
    'PSA'
    """
    vocab, d = positive_int("vocab", vocab), positive_int("d", d)
    n_head, n_layer = positive_int("n_head", n_head), positive_int("n_layer", n_layer)
    if d % n_head or (d // n_head) % 2:
        raise ParameterError(f"d must be a multiple of n_head with an even head width (got d={d}, n_head={n_head})")
    check_memory("vocab, d, n_layer", 8 * (vocab * d + n_layer * (12 * d * d + 8 * d)))
    rng = np.random.default_rng(seed_int("seed", seed))
    spec = head if callable(head) and not isinstance(head, HeadSpec) else (lambda layer, h: head)

    def w(m, n):
        return rng.normal(0.0, 1.0 / np.sqrt(m), (m, n))

    def ln():
        return 1.0 + 0.1 * rng.normal(size=d), 0.1 * rng.normal(size=d)

    specs = [[spec(i, h) for h in range(n_head)] for i in range(n_layer)]
    for row in specs:
        for sp in row:
            if not isinstance(sp, HeadSpec):
                raise ParameterError(f"head must be a head spec or a function (layer, head) -> spec (got {sp!r})")
    layers = tuple(Layer(w(d, d), w(d, d), w(d, d), w(d, d), w(d, 4 * d), 0.1 * rng.normal(size=4 * d),
                         w(4 * d, d), 0.1 * rng.normal(size=d), ln(), ln(),
                         tuple(specs[i])) for i in range(n_layer))
    return Decoder(rng.normal(size=(vocab, d)), layers, ln())


# ------------------------------------------------------------------------------ building blocks
def layer_norm(x, affine) -> np.ndarray:
    """Pre-LN of the rows of ``x`` with ``affine = (gamma, beta)`` (plga.operator.layer_norm, eps = LN_EPS)."""
    if not isinstance(affine, (tuple, list)) or len(affine) != 2:
        raise ParameterError("affine must be a pair (gamma, beta) of LayerNorm parameters")
    return plga.layer_norm(x, affine[0], affine[1], eps=LN_EPS)             # [n, d]


def _layer_norm(x: np.ndarray, affine) -> np.ndarray:
    """:func:`layer_norm` of validated float rows with the model's own (gamma, beta) (:func:`_layer_norm_parts`)."""
    return _layer_norm_parts(x, affine)[0]                                  # [n, d]


def _layer_norm_parts(x: np.ndarray, affine) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(LN(x), xhat, den)``: the output, the normalised rows and ``den = sqrt(var + eps)`` (the backward pass's
    inputs, ``theorylab.nn.grad``), in ``x``'s float type.

    The direct formula ``(x - mean) / sqrt(var + eps)``; rows whose variance overflows the float range go
    through ``plga.operator``'s scaled kernel (rows scaled by a power of two, exactly), which equals the direct
    formula wherever the latter is finite, so the two routes agree to the last bit on ordinary rows."""
    c = x - x.mean(axis=-1, keepdims=True)                                  # [..., d] centred rows
    with np.errstate(over="ignore"):                                        # overflow: the scaled route below
        var = np.mean(c * c, axis=-1, keepdims=True)                        # [..., 1]
    den = np.sqrt(var + LN_EPS)                                             # [..., 1]
    if np.isfinite(den).all():
        xhat = c
        xhat /= den                                                         # [..., d]
    else:                                                                   # |x| beyond ~1e154: scaled route
        xhat = _plga_layer_norm(x, None, None, LN_EPS)
        bad = ~np.isfinite(den[..., 0])                                     # rows whose variance overflows
        _, e = np.frexp(np.max(np.abs(x[bad]), axis=-1, keepdims=True))
        y = np.ldexp(x[bad], -e)                                            # those rows in [-1, 1], exactly
        cy = y - y.mean(axis=-1, keepdims=True)
        with np.errstate(over="ignore"):
            den[bad] = np.ldexp(np.sqrt(np.mean(cy * cy, axis=-1, keepdims=True) + np.ldexp(LN_EPS, -2 * e)), e)
    out = xhat * affine[0]
    out += affine[1]
    return out, xhat, den


@finite_output("x")
def gelu(x) -> np.ndarray:
    """GELU, tanh approximation (GPT-2)."""
    return _gelu(real_array("x", x, allow_empty=True))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))   # Python floats: x's type


def _rows(x, d: int) -> np.ndarray:
    """Hidden states ``(..., n, d)``: finite reals with the model width (a batch of sequences allowed)."""
    x = real_array("x", x)
    if x.ndim < 2 or x.shape[-1] != d:
        raise ParameterError(f"x must be an (..., n, {d}) array of hidden states (got shape {x.shape})")
    return x


@finite_output("x")
def mlp(layer: Layer, x) -> np.ndarray:
    """``GELU(x W_fc + b_fc) W_proj + b_proj`` of the rows ``x`` (n, d)."""
    return _mlp(layer, _rows(x, layer.w_fc.shape[0]))


def _mlp(layer: Layer, x: np.ndarray) -> np.ndarray:
    return _gelu(x @ layer.w_fc + layer.b_fc) @ layer.w_proj + layer.b_proj  # [n, 4d] -> [n, d]


def split_heads(x, n_head: int) -> np.ndarray:
    """``(..., n, d) -> (..., H, n, d/H)``."""
    n_head = positive_int("n_head", n_head)
    x = real_array("x", x)
    if x.ndim < 2 or x.shape[-1] % n_head:
        raise ParameterError(f"x must be (..., n, d) with d a multiple of n_head = {n_head} (got shape {x.shape})")
    return _split_heads(x, n_head)


def _split_heads(x: np.ndarray, n_head: int) -> np.ndarray:
    return np.moveaxis(x.reshape(*x.shape[:-1], n_head, -1), -2, -3)        # [..., n, d] -> [..., H, n, dk]


def merge_heads(x) -> np.ndarray:
    """``(..., H, n, dk) -> (..., n, H dk)``."""
    x = real_array("x", x)
    if x.ndim < 3:
        raise ParameterError(f"x must be an (..., H, n, dk) array (got shape {x.shape})")
    return _merge_heads(x)


def _merge_heads(x: np.ndarray) -> np.ndarray:
    return np.moveaxis(x, -3, -2).reshape(*x.shape[:-3], x.shape[-2], -1)   # [..., H, n, dk] -> [..., n, d]


@finite_output("x")
def projections(layer: Layer, x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-head query, key and value projections ``(H, n, dk)`` of the rows ``x`` (n, d)."""
    return _projections(layer, _rows(x, layer.w_q.shape[0]))


def _projections(layer: Layer, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    H = len(layer.heads)
    return (_split_heads(x @ layer.w_q, H), _split_heads(x @ layer.w_k, H),   # [H, n, dk] x3
            _split_heads(x @ layer.w_v, H))


def token_ids(model: Decoder, tokens, batched: bool = False) -> np.ndarray:
    """``tokens`` as a non-empty 1-D (or, if ``batched``, 2-D ``(batch, T)``) integer array of ids in ``[0, vocab)``.

    Examples
    --------
    The token check of every decoder entry point (for the induction sequences of PSA §2.2):

    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, seed=0)
    >>> nn.token_ids(model, [1, 2, 3]), nn.token_ids(model, [[1, 2], [3, 4]], batched=True).shape
    (array([1, 2, 3]), (2, 2))
    >>> nn.token_ids(model, [8])
    Traceback (most recent call last):
    ...
    theorylab.errors.ParameterError: tokens must be a non-empty 1-D array of integer ids in [0, 8) (got [8])
    """
    try:
        t = np.atleast_1d(np.asarray(tokens))
    except (TypeError, ValueError, OverflowError):
        t = np.asarray([None])
    vocab = len(model.wte)
    if t.ndim not in ((1, 2) if batched else (1,)) or t.size == 0 or t.dtype.kind not in "iu" or t.min() < 0 \
            or t.max() >= vocab:
        shape = "1-D or 2-D (batch, T)" if batched else "1-D"
        raise ParameterError(f"tokens must be a non-empty {shape} array of integer ids in [0, {vocab}) "
                             f"(got {describe(tokens)})")
    return t


# ------------------------------------------------------------------------------ full forward
@finite_output("model, tokens")
def forward(model: Decoder, tokens) -> np.ndarray:
    """Logits (T, V) of every position (``(batch, T, V)`` for tokens ``(batch, T)``), computed without a cache.

    Examples
    --------
    The full pass that the KV cache must reproduce (PSA §8.3):

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("key-only", 1.0), seed=0)
    >>> logits = nn.forward(model, [1, 2, 3, 4, 5])
    >>> logits.shape, nn.forward(model, [[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]]).shape
    ((5, 8), (2, 5, 8))
    >>> np.round(logits[-1, :3], 3)
    array([ 1.88 , -2.594, -3.309])
    """
    return _forward(model, token_ids(model, tokens, batched=True))


def _forward(model: Decoder, tokens: np.ndarray) -> np.ndarray:
    return _logits(model, _hidden_states(model, tokens))                    # [..., T, V]


@finite_output("model, tokens")
def hidden_states(model: Decoder, tokens, trace: list | None = None) -> np.ndarray:
    """The residual stream ``(..., T, d)`` after the last block, for tokens ``(T,)`` or ``(batch, T)``.

    ``trace``: if a list, one dict per layer is appended with what the backward pass
    (``theorylab.nn.grad``) needs: the block input ``x``, ``u1 = LN1(x)``, the merged head
    outputs ``a``, ``mid = x + a W_O``, ``u2 = LN2(mid)`` (None without an MLP), ``ln1`` and
    ``ln2``, the pairs ``(xhat, sqrt(var + eps))`` of the two LayerNorms (None without an MLP), and
    ``heads`` (one ``attention.head`` trace per head).

    Examples
    --------
    :func:`logits` of the residual stream is :func:`forward` (a key-only PSA decoder, PSA §4):

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("key-only", 1.0), seed=0)
    >>> trace = []
    >>> h = nn.hidden_states(model, [1, 2, 3, 4, 5], trace=trace)
    >>> h.shape, len(trace), len(trace[0]["heads"])
    ((5, 8), 1, 2)
    >>> bool(np.allclose(nn.logits(model, h), nn.forward(model, [1, 2, 3, 4, 5]), rtol=0, atol=1e-12))
    True
    """
    return _hidden_states(model, token_ids(model, tokens, batched=True), trace)


def _hidden_states(model: Decoder, tokens: np.ndarray, trace: list | None = None) -> np.ndarray:
    """:func:`hidden_states` of validated token ids (the kernel of the forward and training passes)."""
    x = model.wte[tokens]                                                   # [..., T, d]
    for layer in model.layers:
        rec = None if trace is None else {"x": x, "heads": []}
        u1, xhat1, den1 = _layer_norm_parts(x, layer.ln1)                   # [..., T, d]
        q, k, v = _projections(layer, u1)                                   # [..., H, T, dk] x3
        heads = [attention._head(s, q[..., h, :, :], k[..., h, :, :], v[..., h, :, :],
                                 None if rec is None else rec["heads"]) for h, s in enumerate(layer.heads)]
        a = heads[0] if len(heads) == 1 else np.concatenate(heads, axis=-1)  # [..., T, H dk] merged heads
        mid = a @ layer.w_o
        mid += x                                                            # [..., T, d]  x + a W_O
        if layer.w_fc.shape[1]:
            u2, xhat2, den2 = _layer_norm_parts(mid, layer.ln2)             # [..., T, d]
            x = mid + _mlp(layer, u2)                                       # [..., T, d]
        else:                                                               # no MLP: its output is b_proj
            u2 = xhat2 = den2 = None
            x = mid + layer.b_proj                                          # [..., T, d]
        if rec is not None:
            rec.update(u1=u1, ln1=(xhat1, den1), a=a, mid=mid, u2=u2, ln2=(xhat2, den2))
            trace.append(rec)
    return x


@finite_output("x")
def logits(model: Decoder, x) -> np.ndarray:
    """``LN_f(x) wte^T``: logits ``(..., V)`` of residual-stream rows ``x`` (..., d) (tied embedding).

    Examples
    --------
    The last position's logits from its residual-stream row (key-only PSA heads, PSA §4):

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("key-only", 1.0), seed=0)
    >>> last = nn.hidden_states(model, [1, 2, 3, 4, 5])[-1]
    >>> np.round(nn.logits(model, last)[:3], 3)
    array([ 1.88 , -2.594, -3.309])
    """
    x = real_array("x", x)
    if x.ndim < 1 or x.shape[-1] != model.d:
        raise ParameterError(f"x must be residual-stream rows (..., {model.d}) (got shape {x.shape})")
    return _logits(model, x)


def _logits(model: Decoder, x: np.ndarray) -> np.ndarray:
    return _layer_norm(x, model.ln_f) @ model.wte.T                         # [..., V]


__all__ = ["LN_EPS", "Layer", "Decoder", "random_decoder", "layer_norm", "gelu", "mlp", "split_heads", "merge_heads",
           "projections", "token_ids", "forward", "hidden_states", "logits"]

__getattr__ = _moved.moved_names(__name__, {
    **dict.fromkeys(("prefix_logits", "PrefixConsistency", "prefix_consistency", "prefix_consistency_gap"),
                    "theorylab.nn.prefix"),
    **dict.fromkeys(("compile_grading", "collapse_invariant_plga"), "theorylab.nn.compiled")})
"""Prefix consistency moved to :mod:`theorylab.nn.prefix`, the compile-out maps to :mod:`theorylab.nn.compiled`;
their old path works for one release."""

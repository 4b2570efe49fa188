"""Incremental decoding of the NumPy decoder with a KV cache that is exact for every head.

The model, its building blocks and the full forward pass are :mod:`theorylab.nn.transformer`,
prefix consistency :mod:`theorylab.nn.prefix` and the compile-out maps :mod:`theorylab.nn.compiled`;
every public name there is re-exported here, so ``theorylab.nn.decoder`` stays the one
import for the decoder. Two routes compute the same logits:

* :func:`forward` -- the whole sequence at once, each head by ``attention.head``.
* :func:`extend` -- incremental decoding over a :class:`Cache`. The cache stores the
  *score-bearing* keys: for PSA the **sheared** post-RoPE keys, computed once at insertion
  from the new raw key and the retained raw key of the previous position, never
  recomputed (PSA §8.3). Persistent extra state: the raw query and key projections of the
  last position -- two raw d-vectors per layer -- plus, while a speculative block is open,
  its anchor: the raw key of the position before it (one d-vector per layer, PSA §8.5).
  :func:`rollback` truncates the keys and values and restores the raw key of the restore
  point from the anchor and the cached sheared keys (``attention.unshear_keys``); the raw
  query is rebuilt from the cached value row (:func:`restore_queries`). Nothing is
  recomputed from the token stream. PLGA heads keep either the running cumulative Gram (``gram="cumulative"``,
  PLGA eq. 4.16) or a **G-cache**: ``G_LM`` of the prompt, frozen (``gram="global"``, PLGA
  §4.4), which is exact with respect to full recomputation only when ``G_LM`` is input
  invariant (PLGA Prop. 5.2).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from theorylab.errors import ParameterError, finite_output, positive_int, real_array
from theorylab.nn import attention, specs
from theorylab.nn.specs import PLGA, PSA, Graded, HeadSpec, TwoTap
from theorylab.nn.compiled import collapse_invariant_plga, compile_grading  # noqa: F401 (re-exported)
from theorylab.nn.prefix import (PrefixConsistency, prefix_consistency,  # noqa: F401 (re-exported)
                                 prefix_consistency_gap, prefix_logits)
from theorylab.nn.transformer import (LN_EPS, Decoder, Layer, forward, gelu, hidden_states,  # noqa: F401 (re-exported)
                                      layer_norm, logits, merge_heads, mlp, projections, random_decoder, split_heads,
                                      token_ids)
from theorylab.nn.transformer import _layer_norm, _merge_heads, _mlp, _projections, _rows, _split_heads
from theorylab.plga import operator as plga


# ------------------------------------------------------------------------------ the cache
@dataclass(frozen=True, eq=False)
class HeadCache:
    """What one head keeps between calls.

    Attributes
    ----------
    keys, values : ``(t, dk)`` score-bearing keys (sheared, post-RoPE for PSA) and values.
    raw_q, raw_k : ``(1, dk)`` raw query and key projections of the last position -- the two
        retained raw vectors of PSA §8.3 (PSA heads only; ``(0, dk)`` otherwise). After a
        rollback inside a block ``raw_q`` is ``(0, dk)`` until the next :func:`extend`
        rebuilds it (:func:`restore_queries`).
    gram : ``(r, dk, dk)`` cumulative Grams of the open block's positions and the one before it
        (PLGA ``gram="cumulative"``; one row after :func:`commit`).
    G : ``(dk, dk)`` ``G_LM`` of the prompt, frozen: the G-cache (PLGA ``gram="global"``).
    anchor : ``(1, dk)`` raw key of the position before the open block (PSA heads, block
        start > 0): the one extra vector per speculative block of PSA §8.5; None otherwise.
    spec : the head, recorded by :func:`empty_cache` so that :func:`rollback` can unshear.
    """

    keys: np.ndarray
    values: np.ndarray
    raw_q: np.ndarray
    raw_k: np.ndarray
    gram: np.ndarray
    G: np.ndarray | None = None
    anchor: np.ndarray | None = None
    spec: HeadSpec | None = None


@dataclass(frozen=True, eq=False)
class Cache:
    """The cached prefix: its length, ``layers[l][h]`` (one :class:`HeadCache` per head) and
    ``start``, the first position of the open speculative block (``length`` when none is open)."""

    length: int
    layers: tuple[tuple[HeadCache, ...], ...]
    start: int | None = None

    def __post_init__(self):
        if self.start is None:
            object.__setattr__(self, "start", self.length)


def empty_cache(model: Decoder) -> Cache:
    """The cache of the empty prefix.

    Examples
    --------
    One :class:`HeadCache` per head and layer, no keys yet (symmetric PSA heads, PSA §8.3):

    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("symmetric", 0.5), seed=0)
    >>> cache = nn.empty_cache(model)
    >>> cache.length, len(cache.layers), len(cache.layers[0]), cache.layers[0][0].keys.shape
    (0, 1, 2, (0, 4))
    """
    def head_caches(layer: Layer) -> tuple[HeadCache, ...]:
        dk = layer.w_q.shape[1] // len(layer.heads)                        # head width, not d // n_head
        rows = np.zeros((0, dk))
        return tuple(HeadCache(rows, rows, rows, rows, np.zeros((0, dk, dk)), spec=s) for s in layer.heads)
    return Cache(0, tuple(head_caches(layer) for layer in model.layers))


@finite_output("q, k, v")
def cached_head(spec: HeadSpec, hc: HeadCache, q, k, v, start: int) -> tuple[np.ndarray, HeadCache]:
    """One head over new raw rows ``q, k, v`` (n, dk) at positions start..: output (n, dk) and new cache.

    The rows form a new open block: a PSA head keeps the raw query and key of its last row
    and, as the block's anchor, the retained raw key of position ``start - 1``.

    Examples
    --------
    Two blocks through the cache give the rows of one full pass; the PSA head keeps the two
    retained raw vectors and the block's anchor (PSA §8.3, §8.5):

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> spec = nn.PSA(g_q=0.0, g_k=1.0)
    >>> q, k, v = np.random.default_rng(0).normal(size=(3, 5, 4))
    >>> hc = nn.empty_cache(nn.random_decoder(vocab=8, d=4, n_head=1, n_layer=1, head=spec)).layers[0][0]
    >>> first, hc = nn.cached_head(spec, hc, q[:3], k[:3], v[:3], start=0)
    >>> second, hc = nn.cached_head(spec, hc, q[3:], k[3:], v[3:], start=3)
    >>> hc.keys.shape, hc.raw_q.shape, hc.anchor.shape
    ((5, 4), (1, 4), (1, 4))
    >>> bool(np.allclose(np.concatenate([first, second]), nn.head(spec, q, k, v), rtol=0, atol=1e-12))
    True
    """
    start = positive_int("start", start, low=0)
    if start != len(hc.keys):
        raise ParameterError(f"start must be the cached length {len(hc.keys)} (got {start})")
    q, k, v = real_array("q", q), real_array("k", k), real_array("v", v)
    dk, dv = hc.keys.shape[1], hc.values.shape[1]
    if q.ndim != 2 or q.shape[1] != dk or k.shape != q.shape or v.shape != (len(q), dv):
        raise ParameterError(f"q, k must be (n, {dk}) and v (n, {dv}) rows of this head "
                             f"(got shapes {q.shape}, {k.shape}, {v.shape})")
    return _cached_head(specs._spec(spec), hc, q, k, v, start)


def _cached_head(spec: HeadSpec, hc: HeadCache, q, k, v, start: int) -> tuple[np.ndarray, HeadCache]:
    """:func:`cached_head` of validated rows consistent with the cache (the kernel of :func:`extend`)."""
    prev = (hc.raw_q[-1], hc.raw_k[-1]) if len(hc.raw_q) else None        # retained raw vectors
    if prev is None and start > 0 and isinstance(spec, (PSA, TwoTap)):
        raise ParameterError("prev must hold the raw (q, k) of position start-1 for a PSA or two-tap block "
                             "with start > 0")
    qs, ks, vs = attention._streams(spec, q, k, v, start, prev)             # [n, dk] x3, inserted once
    K, V = np.concatenate([hc.keys, ks]), np.concatenate([hc.values, vs])   # [t+n, dk] cached + new
    keep = min(start, 1)                                                    # keep the row of position start-1
    raw_q, raw_k, anchor, gram, frozen, G = hc.raw_q, hc.raw_k, None, hc.gram, hc.G, None
    if isinstance(spec, PSA):
        raw_q, raw_k, anchor = q[-1:], k[-1:], (hc.raw_k[-1:] if start else None)   # [1, dk] x2, anchor
    if isinstance(spec, PLGA) and spec.gram == "cumulative":
        D0 = hc.gram[-1] if start else np.zeros(hc.gram.shape[1:])         # [dk, dk] running Gram
        D = np.cumsum(np.concatenate([D0[None], np.einsum("ni,nj->nij", qs, qs)]), axis=0)  # [n+1, dk, dk]
        gram, G = D[1 - keep:], plga.stages_from_density(D[1:], spec.params).G            # G: [n, dk, dk]
    elif isinstance(spec, PLGA):
        G = frozen = hc.G if start else attention._plga_operator(spec, qs)  # [dk, dk] frozen at the prompt
    out = attention._attend(attention._scores(qs, K, G), V)                 # [n, dk]
    return out, HeadCache(K, V, raw_q, raw_k, gram, frozen, anchor, spec)


def restore_queries(layer: Layer, caches: tuple[HeadCache, ...], start: int) -> tuple[HeadCache, ...]:
    """Give back the raw query of position ``start - 1`` to PSA heads that lost it in a rollback.

    The paper's state (two raw vectors per layer, one anchored raw key per block) does not
    determine a raw query inside the block: queries are never cached. A head with
    ``g_q = 0`` ignores its predecessor query (any finite vector works; zero is used).
    Otherwise the query is rebuilt from the layer and the KV cache, never from the token
    stream: the cached value row is ``v = LN1(x) W_V`` (times ``diag(M)`` for graded heads),
    so ``q = v W_V^{-1} W_Q``. This needs ``W_V`` invertible (full-width multi-head values,
    as in this decoder); with grouped-query values an engine would have to keep the raw
    queries of the block instead.

    Examples
    --------
    After a rollback inside a speculative block (PSA §8.5) the raw query of the restore point is
    rebuilt and equals the one a prefill of the same prefix keeps:

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("symmetric", 0.5), seed=0)
    >>> _, cache = nn.extend(model, nn.empty_cache(model), [1, 2, 3])
    >>> _, cache = nn.extend(model, cache, [4, 5])
    >>> back = nn.rollback(cache, 4)
    >>> back.layers[0][0].raw_q.shape
    (0, 4)
    >>> heads = nn.restore_queries(model.layers[0], back.layers[0], 4)
    >>> _, prefill = nn.extend(model, nn.empty_cache(model), [1, 2, 3, 4])
    >>> all(np.allclose(h.raw_q, p.raw_q, rtol=0, atol=1e-12) for h, p in zip(heads, prefill.layers[0]))
    True
    """
    return _restore_queries(layer, caches, positive_int("start", start, low=0))


def _restore_queries(layer: Layer, caches: tuple[HeadCache, ...], start: int) -> tuple[HeadCache, ...]:
    lost = [isinstance(s, PSA) and start > 0 and not len(hc.raw_q) for s, hc in zip(layer.heads, caches)]
    if not any(lost):
        return caches
    dk = caches[0].values.shape[1]
    q = np.zeros((len(caches), dk))                                         # [H, dk]
    if any(m and s.g_q != 0 for m, s in zip(lost, layer.heads)):
        v = np.concatenate([hc.values[start - 1] / (s.diag if isinstance(s, Graded) else 1.0)
                            for s, hc in zip(layer.heads, caches)])         # [d] LN1(x) W_V
        try:
            u = np.linalg.solve(layer.w_v.T, v)                             # [d] LN1(x) of position start-1
        except np.linalg.LinAlgError:
            raise ParameterError("w_v must be invertible to restore the raw query of a query-sheared PSA head "
                                 "after a rollback inside a block") from None
        q = _split_heads((u @ layer.w_q)[None], len(caches))[:, 0]         # [H, dk]
    return tuple(replace(hc, raw_q=(q[h] if s.g_q != 0 else np.zeros(dk))[None]) if m else hc
                 for h, (m, s, hc) in enumerate(zip(lost, layer.heads, caches)))


@finite_output("x")
def cached_attention(layer: Layer, caches: tuple[HeadCache, ...], x, start: int) -> tuple[np.ndarray, tuple[HeadCache, ...]]:
    """Multi-head attention of new rows ``x`` (n, d) over the cached prefix: output (n, d), new head caches.

    Examples
    --------
    Two rows, then three more over the cache, equal all five at once (PSA §8.3):

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("symmetric", 0.5), seed=0)
    >>> layer, x = model.layers[0], np.random.default_rng(0).normal(size=(5, 8))
    >>> first, heads = nn.cached_attention(layer, nn.empty_cache(model).layers[0], x[:2], start=0)
    >>> second, heads = nn.cached_attention(layer, heads, x[2:], start=2)
    >>> once, _ = nn.cached_attention(layer, nn.empty_cache(model).layers[0], x, start=0)
    >>> second.shape, bool(np.allclose(np.concatenate([first, second]), once, rtol=0, atol=1e-12))
    ((3, 8), True)
    """
    if not isinstance(caches, (tuple, list)) or len(caches) != len(layer.heads):
        raise ParameterError(f"caches must hold one HeadCache per head ({len(layer.heads)})")
    start = positive_int("start", start, low=0)
    x = _rows(x, layer.w_q.shape[0])
    if x.ndim != 2:
        raise ParameterError(f"x must be an (n, {layer.w_q.shape[0]}) array of new rows (got shape {x.shape})")
    _consistent(caches, start)
    return _cached_attention(layer, caches, x, start)


def _consistent(caches, start: int) -> None:
    """Every head cache holds ``start`` keys and values of this layer's head width."""
    for hc in caches:
        if not isinstance(hc, HeadCache) or len(hc.keys) != start:
            raise ParameterError(f"start must be the cached length {len(hc.keys) if isinstance(hc, HeadCache) else 0} "
                                 f"(got {start})")


def _cached_attention(layer: Layer, caches: tuple[HeadCache, ...], x: np.ndarray,
                      start: int) -> tuple[np.ndarray, tuple[HeadCache, ...]]:
    q, k, v = _projections(layer, x)                                        # [H, n, dk] x3
    caches = _restore_queries(layer, caches, start)
    outs, caches = zip(*(_cached_head(s, hc, q[h], k[h], v[h], start)
                         for h, (s, hc) in enumerate(zip(layer.heads, caches))))
    return _merge_heads(np.stack(outs)) @ layer.w_o, tuple(caches)          # [n, d]


@finite_output("model, tokens")
def extend(model: Decoder, cache: Cache, tokens) -> tuple[np.ndarray, Cache]:
    """Append ``tokens`` (n,) to the cached prefix: logits (n, V) of the new positions and the new cache.

    The new positions form the open speculative block (a previous open block is closed).

    Examples
    --------
    A prompt, then a block of two tokens over the cache, give the full pass's logits (PSA §8.3):

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("symmetric", 0.5), seed=0)
    >>> prompt, cache = nn.extend(model, nn.empty_cache(model), [1, 2, 3])
    >>> block, cache = nn.extend(model, cache, [4, 5])
    >>> cache.length, cache.start, block.shape
    (5, 3, (2, 8))
    >>> bool(np.allclose(np.concatenate([prompt, block]), nn.forward(model, [1, 2, 3, 4, 5]), rtol=0, atol=1e-12))
    True
    """
    tokens = token_ids(model, tokens)
    if not isinstance(cache, Cache) or len(cache.layers) != len(model.layers) \
            or any(len(lc) != len(layer.heads) for lc, layer in zip(cache.layers, model.layers)):
        raise ParameterError("cache must be a Cache of this model (one HeadCache per head and layer)")
    for lc in cache.layers:
        _consistent(lc, cache.length)
    return _extend(model, cache, tokens)


def _extend(model: Decoder, cache: Cache, tokens: np.ndarray) -> tuple[np.ndarray, Cache]:
    """:func:`extend` of validated token ids and a cache of this model."""
    x = model.wte[tokens]                                                   # [n, d]
    layers = []
    for layer, lc in zip(model.layers, cache.layers):
        a, lc = _cached_attention(layer, lc, _layer_norm(x, layer.ln1), cache.length)
        x = x + a                                                           # [n, d]
        x = x + _mlp(layer, _layer_norm(x, layer.ln2))                      # [n, d]
        layers.append(lc)
    return _layer_norm(x, model.ln_f) @ model.wte.T, Cache(cache.length + len(tokens), tuple(layers), cache.length)


@finite_output("model, tokens")
def decode(model: Decoder, tokens, prompt: int) -> np.ndarray:
    """Logits (T, V): prefill the first ``prompt`` tokens, then one cached step per token.

    Examples
    --------
    Token-by-token decoding of sheared keys cached once (PSA §8.3) equals the full pass:

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("symmetric", 0.5), seed=0)
    >>> logits = nn.decode(model, [1, 2, 3, 4, 5], prompt=2)
    >>> logits.shape, bool(np.allclose(logits, nn.forward(model, [1, 2, 3, 4, 5]), rtol=0, atol=1e-12))
    ((5, 8), True)
    """
    tokens = token_ids(model, tokens)
    prompt = positive_int("prompt", prompt)
    if prompt > len(tokens):
        raise ParameterError(f"prompt must be <= the number of tokens ({len(tokens)}; got {prompt})")
    logits, cache = _extend(model, empty_cache(model), tokens[:prompt])
    rows = [logits]
    for t in range(prompt, len(tokens)):
        step, cache = _extend(model, commit(cache), tokens[t:t + 1])
        rows.append(step)
    return np.concatenate(rows)


def commit(cache: Cache) -> Cache:
    """Close the open block: drop its anchor (and the Grams before the last position).

    Examples
    --------
    The anchor is the one extra d-vector per speculative block (PSA §8.5); committing frees it:

    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("symmetric", 0.5), seed=0)
    >>> _, cache = nn.extend(model, nn.empty_cache(model), [1, 2, 3])
    >>> _, cache = nn.extend(model, cache, [4, 5])
    >>> closed = nn.commit(cache)
    >>> (cache.start, closed.start), (nn.cache_floats(cache)["extra"], nn.cache_floats(closed)["extra"])
    ((3, 5), (24, 16))
    """
    return Cache(cache.length, tuple(tuple(replace(hc, gram=hc.gram[-1:], anchor=None) for hc in heads)
                                     for heads in cache.layers))


def _restored_key(hc: HeadCache, start: int, length: int) -> np.ndarray:
    """Raw key ``(1, dk)`` of position ``length - 1`` of a PSA head, from the anchor and the block's sheared keys."""
    if length == start:                                                     # the whole block undone
        return hc.anchor if start else hc.raw_k[:0]
    if hc.spec.g_k <= -0.5:
        raise ParameterError(f"g_k must be > -1/2 for a rollback inside a block (the unshear recursion "
                             f"contracts only there; got {hc.spec.g_k})")
    # Numerical stability: r_t = (k'_t + g r_{t-1}) / (1+g) passes an error in r_{t-1} on to
    # r_t multiplied by g/(1+g), of modulus < 1 for every g > -1/2 (every g >= 0): the
    # recursion is contractive, so the accumulated rounding stays within (1+g) times one
    # step's rounding however long the block (measured: <= 1.1e-15 relative after 300 rows
    # at g = 50). For g <= -1/2 the factor is >= 1 and errors grow geometrically (g = -0.7:
    # 4e-2 after 40 rows), hence the refusal above.
    anchor = hc.anchor[0] if start else None
    return attention.unshear_keys(hc.spec, hc.keys[start:length], start, anchor)[-1:]    # [1, dk]


def rollback(cache: Cache, length: int) -> Cache:
    """Rewind the cache to ``length`` positions inside the open block (PSA §8.5).

    Keys and values are truncated. A PSA head's raw key of position ``length - 1`` is
    restored from the block's anchor and its cached sheared keys (``attention.unshear_keys``);
    its raw query is rebuilt at the next :func:`extend` (:func:`restore_queries`). The
    cumulative Gram (PLGA) of the restore point is the block's recorded row. Nothing is
    recomputed from the token stream, and the anchor stays until :func:`commit`.

    Examples
    --------
    Verify a draft block of two tokens, accept one, and continue: the logits are those of the
    accepted sequence:

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("symmetric", 0.5), seed=0)
    >>> _, cache = nn.extend(model, nn.empty_cache(model), [1, 2, 3])
    >>> _, cache = nn.extend(model, cache, [4, 7])            # the draft block
    >>> cache = nn.rollback(cache, 4)                           # token 7 rejected
    >>> step, cache = nn.extend(model, nn.commit(cache), [5])
    >>> bool(np.allclose(step, nn.forward(model, [1, 2, 3, 4, 5])[-1:], rtol=0, atol=1e-12))
    True
    """
    length = positive_int("length", length, low=0)
    if not cache.start <= length <= cache.length:
        raise ParameterError(f"length must lie in [{cache.start}, {cache.length}] (the open block; got {length})")
    if length == cache.length:
        return cache
    drop = cache.length - length

    def back(hc: HeadCache) -> HeadCache:
        psa_head = isinstance(hc.spec, PSA)
        raw_k = _restored_key(hc, cache.start, length) if psa_head else hc.raw_k
        return replace(hc, keys=hc.keys[:length], values=hc.values[:length], raw_q=hc.raw_q[:0], raw_k=raw_k,
                       gram=hc.gram[:len(hc.gram) - drop])

    return Cache(length, tuple(tuple(back(hc) for hc in heads) for heads in cache.layers), cache.start)


def cache_floats(cache: Cache) -> dict[str, int]:
    """Floats held by the cache: ``kv`` (keys + values) and ``extra`` (raw vectors, anchors, Grams, G-cache).

    Examples
    --------
    Five positions of two PSA heads of width 4: ``2 x 5 x (4 + 4)`` key and value floats, and as
    extra state the two retained raw vectors per layer (``2 d = 16``) plus the open block's
    anchor (``d = 8``, PSA §8.5):

    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("symmetric", 0.5), seed=0)
    >>> _, cache = nn.extend(model, nn.empty_cache(model), [1, 2, 3])
    >>> _, cache = nn.extend(model, cache, [4, 5])
    >>> sorted(nn.cache_floats(cache).items())
    [('extra', 24), ('kv', 80)]
    """
    heads = [hc for layer in cache.layers for hc in layer]
    kv = sum(hc.keys.size + hc.values.size for hc in heads)
    extra = sum(hc.raw_q.size + hc.raw_k.size + hc.gram.size + sum(0 if a is None else a.size for a in (hc.G, hc.anchor))
                for hc in heads)
    return {"kv": int(kv), "extra": int(extra)}


__all__ = ["Layer", "Decoder", "random_decoder", "forward", "hidden_states", "logits", "prefix_logits", "PrefixConsistency",
           "prefix_consistency", "prefix_consistency_gap", "collapse_invariant_plga",
           "token_ids", "HeadCache", "Cache", "empty_cache", "cached_head", "restore_queries", "cached_attention", "extend", "decode", "commit", "rollback", "cache_floats",
           "compile_grading"]

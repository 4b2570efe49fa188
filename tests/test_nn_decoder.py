"""The minimal decoder: cache equivalence for every head, speculative rollback, prefix
consistency (PLGA Remark 4.9), grading compile-out (GLLM Cor. 1), PLGA G-cache and the
counterexamples of PLGA Prop. 5.2."""
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from theorylab import ParameterError
from theorylab.nn import attention as A
from theorylab.nn import specs as S
from theorylab.nn import decoder as D
from theorylab.plga import operator as plga

DK = 8  # head width of the test decoders (d = 16, 2 heads)


def plga_head(gram, **override):
    def make(layer, h):
        p = plga.init_params(DK, seed=10 * layer + h)
        for name, value in override.items():
            p = plga.PLGAParams(**{**p.__dict__, name: value})
        return S.PLGA(p, gram)
    return make


G_STAR = np.random.default_rng(7).normal(size=(DK, DK))

HEADS = {
    "sdpa": S.SDPA(),
    "nope": S.SDPA(base=None),
    "psa-symmetric": S.PSA.member("symmetric", 0.8),
    "psa-key-only": S.PSA.member("key-only", 0.8),
    "psa-query-only": S.PSA.member("query-only", 0.8),
    "psa-unequal": S.PSA(0.3, 1.2),
    "psa-pre-rope": S.PSA(0.6, 0.6, "pre-rope"),
    "graded-clipped": lambda layer, h: S.Graded(np.linspace(0, 6, DK) * (h + 1), np.e ** (1 / DK), clip=1.5),
    "plga-cumulative": plga_head("cumulative"),
    "plga-invariant-G": plga_head("global", a=np.zeros((DK, DK)), b_a=G_STAR),
}


def tokens(T=14, seed=1, vocab=32):
    return np.random.default_rng(seed).integers(0, vocab, T)


def close(a, b):
    """Cache equivalence: max |a - b| <= 1e-12 on the logit scale (float64)."""
    return np.max(np.abs(a - b)) <= 1e-12 * max(1.0, np.max(np.abs(b)))


@pytest.mark.parametrize("name", HEADS)
def test_cached_decoding_equals_full_forward(name):
    model = D.random_decoder(head=HEADS[name], seed=3)
    x = tokens()
    full = D.forward(model, x)
    assert close(D.decode(model, x, prompt=5), full)
    assert close(D.decode(model, x, prompt=1), full)


@pytest.mark.parametrize("name", HEADS)
def test_speculative_rollback_restores_the_cache(name):
    """Prompt, a speculative block of 5 drafts, 2 accepted, rollback, corrected continuation."""
    model = D.random_decoder(head=HEADS[name], seed=4)
    x = tokens(16, seed=2)
    drafts = (x[6:11] + 5) % 32                                           # mostly wrong drafts
    _, cache = D.extend(model, D.empty_cache(model), x[:6])
    spec_logits, spec_cache = D.extend(model, D.commit(cache), np.concatenate([x[6:8], drafts[2:]]))
    cache = D.commit(D.rollback(spec_cache, 8))                          # accept x[6:8]
    rest, cache = D.extend(model, cache, x[8:])
    full = D.forward(model, x)
    assert close(spec_logits[:2], full[6:8])
    assert close(rest, full[8:])
    assert cache.length == len(x)


@settings(max_examples=15, deadline=None)
@given(g_q=st.floats(0, 2), g_k=st.floats(0, 2), pre=st.booleans(),
       cuts=st.lists(st.integers(1, 11), max_size=4, unique=True))
def test_any_block_partition_equals_full_forward(g_q, g_k, pre, cuts):
    """Feeding the tokens in arbitrary blocks (prefill, multi-token steps) gives the full-pass logits."""
    model = D.random_decoder(head=S.PSA(g_q, g_k, "pre-rope" if pre else "post-rope"), seed=15)
    x = tokens(12)
    cache, rows = D.empty_cache(model), []
    for a, b in zip([0] + sorted(cuts), sorted(cuts) + [12]):
        logits, cache = D.extend(model, D.commit(cache), x[a:b])
        rows.append(logits)
    assert close(np.concatenate(rows), D.forward(model, x))


def test_prefix_reuse():
    """One cached prefix serves two continuations (PSA §8.5: sheared keys depend only on the past)."""
    model = D.random_decoder(head=HEADS["psa-symmetric"], seed=16)
    prefix, a, b = tokens(6, seed=1), tokens(4, seed=2), tokens(5, seed=3)
    _, cache = D.extend(model, D.empty_cache(model), prefix)
    for tail in (a, b):
        logits, _ = D.extend(model, D.commit(cache), tail)
        assert close(logits, D.forward(model, np.concatenate([prefix, tail]))[len(prefix):])


def test_rollback_whole_block_and_bounds():
    model = D.random_decoder(head=HEADS["psa-symmetric"], seed=5)
    x = tokens(10)
    _, cache = D.extend(model, D.empty_cache(model), x[:4])
    _, spec = D.extend(model, D.commit(cache), x[4:8])
    back = D.rollback(spec, 4)                                           # undo the whole block
    logits, _ = D.extend(model, back, x[4:])
    assert close(logits, D.forward(model, x)[4:])
    with pytest.raises(ParameterError, match="length"):
        D.rollback(spec, 3)                                              # before the open block
    with pytest.raises(ParameterError, match="length"):
        D.rollback(D.commit(spec), 6)                                    # block already committed


def test_extra_state_is_two_raw_vectors_per_layer():
    """PSA §8.3: cache the sheared keys; the only extra state is 2 raw d-vectors per layer."""
    model = D.random_decoder(d=16, n_layer=3, head=HEADS["psa-symmetric"], seed=6)
    x = tokens(20)
    cache = D.empty_cache(model)
    for t in range(len(x)):
        _, cache = D.extend(model, D.commit(cache), x[t:t + 1])
    floats = D.cache_floats(D.commit(cache))
    assert floats["extra"] == 2 * model.d * len(model.layers)
    assert floats["kv"] == 2 * len(x) * model.d * len(model.layers)


def test_cache_keys_are_the_sheared_keys():
    """What the cache holds is the sheared post-RoPE key, never recomputed."""
    spec = HEADS["psa-symmetric"]
    model = D.random_decoder(n_layer=1, head=spec, seed=8)
    x = tokens(9)
    logits, cache = D.extend(model, D.empty_cache(model), x[:4])
    for t in range(4, 9):
        _, cache = D.extend(model, D.commit(cache), x[t:t + 1])
    layer = model.layers[0]
    q, k, v = D.projections(layer, D.layer_norm(model.wte[x], layer.ln1))
    for h in range(model.n_head):
        _, ks, _ = A.streams(spec, q[h], k[h], v[h])
        np.testing.assert_allclose(cache.layers[0][h].keys, ks, rtol=0, atol=1e-13)


# ------------------------------------------------------------------ prefix consistency (PLGA §4.5)
@pytest.mark.parametrize("name", ["sdpa", "psa-symmetric", "graded-clipped", "plga-cumulative", "plga-invariant-G"])
def test_prefix_consistency_holds(name):
    model = D.random_decoder(head=HEADS[name], seed=9)
    assert D.prefix_consistency_gap(model, tokens(10)) <= 1e-12 * 100


def test_global_gram_breaks_prefix_consistency():
    """PLGA Remark 4.9: with the global Gram, F(x_1:S)_r != F(x_1:r)_r on a constructed example."""
    model = D.random_decoder(n_layer=1, head=plga_head("global"), seed=9)
    x = np.array([3, 17, 3, 5, 29, 11, 3, 8])
    assert D.prefix_consistency_gap(model, x) > 1e-2


# ------------------------------------------------------------------ G-cache and Prop. 5.2 counterexamples
def first_layer_stages(model, x, h=0):
    layer = model.layers[0]
    q, k, v = D.projections(layer, D.layer_norm(model.wte[x], layer.ln1))
    qs, _, _ = A.streams(layer.heads[h], q[h], k[h], v[h])
    return plga.plga_stages(qs, layer.heads[h].params)


def test_g_cache_exact_under_invariance_a_zero():
    """a = 0, b_a = G*: A, A_LM, A_P vary with the input, G_LM == G*, and the G-cache is exact."""
    model = D.random_decoder(head=HEADS["plga-invariant-G"], seed=11)
    x, y = tokens(12, seed=1), tokens(12, seed=2)
    sx, sy = first_layer_stages(model, x), first_layer_stages(model, y)
    assert plga.order_parameter(sx.A_LM, sy.A_LM) > 1e-2
    assert plga.order_parameter(sx.G, sy.G) == 0.0
    assert close(D.decode(model, x, prompt=4), D.prefix_logits(model, x))


def test_g_cache_exact_when_keys_vanish():
    """W_K = 0: every score row is zero, attention uniform; G_LM varies (m > 0) yet the G-cache is exact."""
    base = D.random_decoder(head=plga_head("global"), seed=12)
    model = D.Decoder(base.wte, tuple(D.Layer(**{**l.__dict__, "w_k": np.zeros_like(l.w_k)})
                                      for l in base.layers), base.ln_f)
    x, y = tokens(12, seed=1), tokens(12, seed=2)
    assert plga.order_parameter(first_layer_stages(model, x).G, first_layer_stages(model, y).G) > 1e-2
    assert close(D.decode(model, x, prompt=4), D.prefix_logits(model, x))


def test_g_cache_not_exact_in_general():
    """Contrast: an input-dependent G_LM makes the prompt-frozen G-cache differ from recomputation."""
    model = D.random_decoder(head=plga_head("global"), seed=12)
    x = tokens(12)
    assert np.max(np.abs(D.decode(model, x, prompt=4) - D.prefix_logits(model, x))) > 1e-3


# ------------------------------------------------------------------ PLGA contains SDPA (A1), compile-out (G1)
def test_plga_with_identity_operator_is_sdpa():
    sdpa = D.random_decoder(head=S.SDPA(), seed=13)
    layers = tuple(D.Layer(**{**l.__dict__, "heads": tuple(S.PLGA(plga.sdpa_params(plga.init_params(DK, seed=h)))
                                                           for h in range(2))}) for l in sdpa.layers)
    as_plga = D.Decoder(sdpa.wte, layers, sdpa.ln_f)
    x = tokens()
    # exact: every G_LM is exactly I and q @ I = q in any order; the rest is the same code on the same arrays
    assert np.array_equal(D.forward(as_plga, x), D.forward(sdpa, x))


@pytest.mark.parametrize("clip", [None, 1.5])
def test_grading_compiles_out(clip):
    graded = D.random_decoder(head=lambda l, h: S.Graded(np.linspace(0, 8, DK), np.e ** (1 / DK), clip), seed=14)
    compiled = D.compile_grading(graded)
    assert all(isinstance(s, S.SDPA) for layer in compiled.layers for s in layer.heads)
    x = tokens()
    assert close(D.forward(compiled, x), D.forward(graded, x))


def test_random_decoder_validates():
    with pytest.raises(ParameterError, match="n_head"):
        D.random_decoder(d=10, n_head=4)


@pytest.mark.parametrize("bad", [[], [0, 32], [[[1, 2]]], [1.5, 2.0], [-1]])
def test_tokens_are_validated(bad):
    model = D.random_decoder(seed=0)
    with pytest.raises(ParameterError, match="tokens"):
        D.forward(model, bad)
    with pytest.raises(ParameterError, match="tokens"):
        D.extend(model, D.empty_cache(model), bad)
    with pytest.raises(ParameterError, match="tokens"):
        D.extend(model, D.empty_cache(model), [[1, 2]])         # the cache takes one sequence


def test_batched_forward_equals_one_sequence_at_a_time():
    model = D.random_decoder(seed=3, head=lambda layer, h: S.PSA(0.3 * h, 0.8))
    tokens = np.random.default_rng(4).integers(0, 32, (3, 9))
    batched = D.forward(model, tokens)                           # [3, 9, V]
    np.testing.assert_allclose(batched, np.stack([D.forward(model, t) for t in tokens]), rtol=0, atol=1e-13)


def test_decode_validates_prompt():
    model = D.random_decoder(seed=0)
    with pytest.raises(ParameterError, match="prompt"):
        D.decode(model, tokens(5), prompt=6)


def test_cached_keys_obey_the_int8_range_bound():
    """PSA §8.6 in the decoder: |cached sheared key| <= (1 + 2g) max |rotated raw key|, tight when alternating."""
    g = 0.8
    model = D.random_decoder(head=S.PSA.member("symmetric", g), seed=17)
    x = tokens(12)
    _, cache = D.extend(model, D.empty_cache(model), x)
    layer = model.layers[0]
    q, k, v = D.projections(layer, D.layer_norm(model.wte[x], layer.ln1))
    for h in range(model.n_head):
        rotated = A.streams(S.SDPA(), q[h], k[h], v[h])[1]
        assert np.max(np.abs(cache.layers[0][h].keys)) <= (1 + 2 * g) * np.max(np.abs(rotated)) * (1 + 1e-15)
    alternating = np.repeat(((-1.0) ** np.arange(8))[:, None], 4, axis=1)      # NoPE, k_t = (-1)^t (1,..,1)
    ks = A.streams(S.PSA(0.0, g, base=None), alternating, alternating, alternating)[1]
    assert np.max(np.abs(ks)) == 1 + 2 * g


def raw_projections(model, x):
    """Full-pass route to the raw (q, k) projections of every layer: ``[(H, T, dk), (H, T, dk)]`` per layer."""
    h, out = model.wte[x], []
    for layer in model.layers:
        q, k, v = D.projections(layer, D.layer_norm(h, layer.ln1))
        out.append((q, k))
        heads = [A.head(s, q[i], k[i], v[i]) for i, s in enumerate(layer.heads)]
        h = h + D.merge_heads(np.stack(heads)) @ layer.w_o
        h = h + D.mlp(layer, D.layer_norm(h, layer.ln2))
    return out


def test_one_anchored_raw_key_per_block_rebuilds_the_block_record():
    """PSA §8.5: cached sheared keys + the block's anchor (raw key before it) give back the block's raw keys."""
    spec = S.PSA.member("symmetric", 0.8)
    model = D.random_decoder(head=spec, seed=18)
    x = tokens(12)
    _, cache = D.extend(model, D.empty_cache(model), x[:5])
    _, block = D.extend(model, D.commit(cache), x[5:10])
    for (_, k), heads in zip(raw_projections(model, x[:10]), block.layers):
        for h, hc in enumerate(heads):
            np.testing.assert_allclose(hc.anchor[0], k[h, 4], rtol=0, atol=1e-13)   # raw key before the block
            rebuilt = A.unshear_keys(spec, hc.keys[5:], 5, hc.anchor[0])
            np.testing.assert_allclose(rebuilt, k[h, 5:10], rtol=0, atol=1e-13)


# ------------------------------------------------------------------ speculation with the paper's state only
PSA_VARIANTS = [k for k in HEADS if k.startswith("psa-")] + ["psa-nope"]
HEADS_PSA = {**HEADS, "psa-nope": S.PSA(0.5, 0.9, base=None)}


def retained_vectors(cache):
    """Raw d-vectors per layer held beside the KV cache: (raw queries, raw keys, anchors), all heads together."""
    count = lambda rows: sum(len(r) for r in rows) / len(cache.layers[0])
    return [(count(hc.raw_q for hc in heads), count(hc.raw_k for hc in heads),
             count(hc.anchor for hc in heads if hc.anchor is not None)) for heads in cache.layers]


@pytest.mark.parametrize("name", PSA_VARIANTS)
def test_speculation_retains_exactly_the_papers_state(name):
    """Committed: 2 raw vectors per layer; open block: + 1 anchor, whatever the block length; values exact."""
    model = D.random_decoder(head=HEADS_PSA[name], n_layer=3, seed=21)
    x = tokens(17, seed=3)
    _, cache = D.extend(model, D.empty_cache(model), x[:6])
    assert retained_vectors(cache) == [(1, 1, 0)] * 3                   # prefill block at 0: no anchor (p_0 = 0)
    truth = raw_projections(model, x)
    for n in (1, 4, 11):
        _, spec = D.extend(model, D.commit(cache), x[6:6 + n])
        assert retained_vectors(D.commit(cache)) == [(1, 1, 0)] * 3
        assert retained_vectors(spec) == [(1, 1, 1)] * 3
        assert D.cache_floats(spec)["extra"] == 3 * model.d * 3           # independent of n
        for (q, k), heads in zip(truth, spec.layers):
            for h, hc in enumerate(heads):
                np.testing.assert_allclose(hc.anchor[0], k[h, 5], rtol=1e-13, atol=1e-13)
                np.testing.assert_allclose(hc.raw_k[0], k[h, 5 + n], rtol=1e-13, atol=1e-13)
                np.testing.assert_allclose(hc.raw_q[0], q[h, 5 + n], rtol=1e-13, atol=1e-13)
        if 6 + n > 8:                                                    # rollback inside: raw query rebuilt later
            assert retained_vectors(D.rollback(spec, 8)) == [(0, 1, 1)] * 3
    assert D.cache_floats(D.commit(D.rollback(spec, 9)))["extra"] == 1 * model.d * 3


def mixed(layer, h):
    """A symmetric PSA head beside a graded head: the query rebuild undoes the graded value scaling."""
    return S.PSA.member("symmetric", 0.8) if h == 0 else HEADS["graded-clipped"](layer, h)


@pytest.mark.parametrize("name", PSA_VARIANTS + ["psa+graded"])
def test_rollback_to_any_point_equals_full_recomputation(name):
    """Prompt 5, a block of 8 drafts (2 right), rollback to every length in [5, 13], then the true tokens."""
    model = D.random_decoder(head=mixed if name == "psa+graded" else HEADS_PSA[name], seed=22)
    x = tokens(16, seed=4)
    _, cache = D.extend(model, D.empty_cache(model), x[:5])
    seen = np.concatenate([x[:7], (x[7:13] + 7) % 32])                  # prompt + the drafts the block saw
    _, spec = D.extend(model, D.commit(cache), seen[5:])
    truth = raw_projections(model, seen)
    for length in range(5, 14):
        back = D.rollback(spec, length)
        for (_, k), heads in zip(truth, back.layers):                    # the raw key restored by unshear
            for h, hc in enumerate(heads[:1] if name == "psa+graded" else heads):
                ref = k[h, length - 1]
                assert np.max(np.abs(hc.raw_k[0] - ref)) <= 1e-13 * np.max(np.abs(ref))
        stream = np.concatenate([seen[:length], x[length:]])
        full = D.forward(model, stream)[length:]                         # full recomputation of the new stream
        for c in (back, D.commit(back)):                                 # with or without commit
            logits, done = D.extend(model, c, x[length:])
            assert close(logits, full) and done.length == len(x)


def test_rollback_twice_and_inside_the_prefill_block():
    """A block rolled back twice (anchor kept until commit), and rollback inside a prefill (start 0)."""
    model = D.random_decoder(head=S.PSA(0.4, 1.5), seed=23)
    x = tokens(14, seed=5)
    full = D.forward(model, x)
    _, pre = D.extend(model, D.empty_cache(model), x[:9])
    for length in (0, 1, 4):
        logits, _ = D.extend(model, D.rollback(pre, length), x[length:])
        assert close(logits, full[length:]) if length else close(logits, D.forward(model, x))
    _, spec = D.extend(model, D.commit(pre), x[9:13])
    twice = D.rollback(D.rollback(spec, 12), 10)
    assert close(D.extend(model, twice, x[10:])[0], full[10:])


def test_rollback_state_is_needed():
    """Sensitivity: a rollback that skips the unshear (anchor as the raw key) or zeroes the query breaks equality."""
    model = D.random_decoder(head=S.PSA.member("symmetric", 0.8), seed=24)
    x = tokens(14, seed=6)
    full = D.forward(model, x)
    _, cache = D.extend(model, D.empty_cache(model), x[:5])
    _, spec = D.extend(model, D.commit(cache), x[5:11])
    back = D.rollback(spec, 8)
    assert close(D.extend(model, back, x[8:])[0], full[8:])
    no_unshear = D.Cache(8, tuple(tuple(replace(hc, raw_k=hc.anchor) for hc in heads) for heads in back.layers), 5)
    assert not close(D.extend(model, no_unshear, x[8:])[0], full[8:])
    zero_query = D.Cache(8, tuple(tuple(replace(hc, raw_q=0 * hc.raw_k) for hc in heads) for heads in back.layers), 5)
    assert not close(D.extend(model, zero_query, x[8:])[0], full[8:])


def test_unshear_stays_accurate_over_a_long_block():
    """Contractive recursion (factor g/(1+g)): after 300 positions the restored key is within (1+g) * 4 eps."""
    for g in (0.3, 4.0):
        model = D.random_decoder(head=S.PSA(0.0, g), n_layer=1, seed=25)
        x = tokens(302, seed=7)
        _, spec = D.extend(model, D.commit(D.extend(model, D.empty_cache(model), x[:1])[1]), x[1:])
        (_, k), = raw_projections(model, x)
        back = D.rollback(spec, 301)
        for h, hc in enumerate(back.layers[0]):
            err = np.max(np.abs(hc.raw_k[0] - k[h, 300])) / np.max(np.abs(k[h, 300]))
            assert err <= (1 + g) * 4 * np.finfo(float).eps


def test_query_rebuild_needs_an_invertible_value_projection():
    """W_V = 0: the value row carries nothing, so a query-sheared head cannot resume inside a block."""
    base = D.random_decoder(head=S.PSA.member("symmetric", 0.8), seed=27)
    model = D.Decoder(base.wte, tuple(replace(l, w_v=np.zeros_like(l.w_v)) for l in base.layers), base.ln_f)
    x = tokens(10)
    _, spec = D.extend(model, D.commit(D.extend(model, D.empty_cache(model), x[:4])[1]), x[4:9])
    with pytest.raises(ParameterError, match="w_v"):
        D.extend(model, D.rollback(spec, 6), x[6:])
    assert close(D.extend(model, spec, x[9:])[0], D.forward(model, x)[9:])   # no rollback: nothing to rebuild


def test_rollback_refuses_a_non_contractive_coupling():
    model = D.random_decoder(head=S.PSA(0.0, -0.7), seed=26)
    _, spec = D.extend(model, D.empty_cache(model), tokens(6))
    assert D.rollback(spec, 0).length == 0                               # whole block: nothing to unshear
    with pytest.raises(ParameterError, match="g_k"):
        D.rollback(spec, 3)


@settings(max_examples=10, deadline=None)
@given(grades=st.lists(st.floats(0, 30), min_size=DK, max_size=DK), clip=st.one_of(st.none(), st.floats(1, 4)),
       seed=st.integers(0, 1000))
def test_grading_compiles_out_for_any_grades(grades, clip, seed):
    graded = D.random_decoder(head=S.Graded(np.array(grades), np.e ** (1 / DK), clip), seed=seed)
    x = tokens(8, seed=seed)
    assert close(D.forward(D.compile_grading(graded), x), D.forward(graded, x))


@pytest.mark.parametrize("head", ["sdpa", 3, None])
def test_random_decoder_rejects_a_head_that_is_neither_a_spec_nor_a_function(head):
    with pytest.raises(ParameterError, match="head must be a head spec or a function"):
        D.random_decoder(head=head)

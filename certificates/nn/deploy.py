"""Deployability of PSA in the decoder (P20; PSA §8): the sheared-key cache against recomputation and the
reference forward pass (P20.numeric), the INT8 headroom bound (P20.exact).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from theorylab.certificates import _reference_views as view
from theorylab.certificates.reference import transformer as ref
from theorylab.certify import Outcome, certificate, computed
from theorylab.errors import ParameterError
from theorylab.nn import attention, decoder, specs
from theorylab.psa import deploy
from theorylab.certificates.nn._common import DK, TOKENS, TOL, TOL_PLGA, _max_error, _plga


# ------------------------------------------------------------------------------ P20
def _batched_block_streams() -> float:
    """``attention.streams`` on the rows 4..8 of sequences of 9 rows with leading batch axes (2, 3), (3,) (the first
    of the 2) and none (the first sequence), given the raw (q, k) of position 3, for PSA (post- and pre-RoPE) and
    TwoTap heads, against the reference streams of each whole sequence sliced to the block: max relative error over
    the query, key and value streams (inf where the library refuses a block). Also the block of rows 1..8 of the
    first sequence with the raw (q, k) of position 0 given as Python lists (array-likes, as ``prev`` documents), and
    ``transformer.merge_heads`` of the batched (2, 3, 5, dk) streams read as 3 heads (``(..., H, n, dk) ->
    (..., n, H dk)``) against the heads' columns concatenated here."""
    from theorylab.nn import transformer

    rng = np.random.default_rng(20)
    Q, K, V = rng.normal(size=(3, 2, 3, 9, DK))
    start, err = 4, 0.0
    heads = [(specs.PSA(g_q=0.7, g_k=1.3, placement=p), lambda x, p=p: ref.psa_stream(x, 0.7, p),
              lambda x, p=p: ref.psa_stream(x, 1.3, p)) for p in ("post-rope", "pre-rope")]
    heads.append((specs.TwoTap(q_taps=(1.5, -0.5), k_taps=(0.3, 0.9)), lambda x: ref.two_tap_stream(x, (1.5, -0.5)),
                  lambda x: ref.two_tap_stream(x, (0.3, 0.9))))
    for spec, ref_q, ref_k in heads:
        want = [np.array([[f(x) for x in b] for b in X])[..., start:, :] for f, X in ((ref_q, Q), (ref_k, K))]
        want.append(V[..., start:, :])
        for lead in ((), (0,), (0, 0)):                                   # batch axes (2, 3), (3,), none
            q, k, v = Q[lead], K[lead], V[lead]
            try:
                got = attention.streams(spec, q[..., start:, :], k[..., start:, :], v[..., start:, :], start,
                                        (q[..., start - 1, :], k[..., start - 1, :]))
            except ParameterError:
                return np.inf
            err = max(err, *(_max_error(g, w[lead]) if g.shape == w[lead].shape else np.inf
                             for g, w in zip(got, want)))
            if not lead:                                                  # 3 heads of 2 sequences, merged
                merged = transformer.merge_heads(got[1])
                err = max(err, _max_error(merged, np.concatenate(list(np.moveaxis(want[1], 1, 0)), axis=-1))
                          if merged.shape == (2, 9 - start, 3 * DK) else np.inf)
        try:                                                              # start 1, prev as lists
            got = attention.streams(spec, Q[0, 0, 1:], K[0, 0, 1:], V[0, 0, 1:], 1, (Q[0, 0, 0].tolist(),
                                                                                     K[0, 0, 0].tolist()))
        except (ParameterError, TypeError, IndexError):
            return np.inf
        want_1 = (ref_q(Q[0, 0])[1:], ref_k(K[0, 0])[1:], V[0, 0, 1:])
        err = max(err, *(_max_error(g, w) if g.shape == w.shape else np.inf for g, w in zip(got, want_1)))
    return err


@certificate("P20.numeric", title="Cached sheared keys equal recomputation; 2 raw vectors/layer; 6d FLOPs",
             paper="PSA §8.3-8.5", method="numeric",
             claim="Caching sheared keys at insertion (with two retained raw vectors per layer, prefix reuse, "
                   "speculative rollback by truncation, with the raw key of the restore point rebuilt from one anchored raw "
                   "key per block by unshearing) gives the full-recomputation logits; extra state is 1/T of the KV "
                   "cache (0.024 % at T = 4096); the insertion costs 6d FLOPs per token per layer.")
def psa_cache() -> Outcome:
    """Symmetric post-RoPE PSA decoder (g = 1 and 0.8 in the two heads): cached decode, speculative rollback and prefix reuse against the
    reference forward pass; measured cache floats against 1/T; counted FLOPs against 6d; the documented head defaults,
    block streams with 0 to 2 batch axes, the public MLP block (``_public_blocks``) and exact integer
    couplings against the reference heads and the documented rule."""
    couplings = (1.0, 0.8)                                                # per head; g = 1 is the taps (2, -1)
    model = decoder.random_decoder(d=16, n_head=2, n_layer=2, head=lambda i, h: specs.PSA(g_q=couplings[h],
                                                                                              g_k=couplings[h]), seed=3)
    reference = view.model(model)
    full = ref.forward(reference, TOKENS)
    err_full = _max_error(decoder.forward(model, TOKENS), full)
    (decoded, rest, reuse_other), (err_decode, err_rollback, err_reuse, extra_rolled, empty_after_undo) = \
        _cache_routes(model, reference, full)
    err_defaults, err_plga_default = _default_heads()
    consistency = _max_error(decoded, decoder.forward(model, TOKENS))
    block_extra, dl, fractions, counts, one_layer, flops, frac_4096 = _cache_accounting(model)
    d = model.d
    err_batched = _batched_block_streams()
    err_blocks, exact_couplings, mlp_out = _public_blocks()
    err_narrow = _narrow_heads()
    passed = (np.max([err_full, err_decode, err_rollback, err_reuse, err_defaults, err_batched, err_blocks,
                      err_narrow]) <= TOL
              and exact_couplings
              and err_plga_default <= TOL_PLGA and block_extra == [2 * dl, 3 * dl]
              and extra_rolled == 2 * model.d * len(model.layers) and empty_after_undo
              and all(m == f for m, f in fractions)
              and all(measured == closed for measured, closed in counts) and one_layer == (2 * 9 * d, 2 * d)
              and flops == 6 * d == deploy.shear_flops(d) and frac_4096 == 1 / 4096 and round(100 * frac_4096, 3) == 0.024)
    return Outcome(bool(passed), (
        computed("library full forward vs reference, max |dlogit| / scale", err_full, tolerance=TOL),
        computed("cached decode (prompt 5 and prompt 1) vs reference forward", err_decode, tolerance=TOL),
        computed("speculative rollback vs reference forward (this decoder, to length 8, 1 and 0; a one-head one; a "
                 "PSA + graded-head one)", err_rollback,
                 tolerance=TOL),
        computed("prefix reuse (one prefix, two continuations) vs reference forward", err_reuse, tolerance=TOL),
        computed("extra floats right after a rollback inside a block (raw key + anchor per head)", extra_rolled,
                 formula=f"== 2 d L = {2 * model.d * len(model.layers)}"),
        computed("a block opened at position 0, rolled back to 0: cache floats 0 (kv and extra)", empty_after_undo),
        computed("default couplings (g_k = 0, g_q = 0) and RoPE base (10000) of PSA, PSA.member, TwoTap.shear, TwoTap, Graded "
                 "(no clip), SDPA vs reference heads written with those values", err_defaults, tolerance=TOL),
        computed("streams of a block (start 4, retained raw q, k of position 3) with two, one and no leading batch axes, PSA "
                 "(g_q 0.7, g_k 1.3; post- and pre-RoPE) and TwoTap, and of a block at start 1 (prev as lists): max "
                 "relative |library - reference streams of the whole sequences, sliced| (queries, keys, values); "
                 "merge_heads of the batched key streams vs their heads concatenated", err_batched, tolerance=TOL),
        computed("head narrower than d / n_head (d_model 8, dk 4): cached decode and public cached_attention from "
                 "start 0 in two blocks vs the reference forward pass and heads", err_narrow, tolerance=TOL),
        computed("public mlp on rows of width d (d 16, W_FC 16 x 64) vs the reference GELU MLP", err_blocks,
                 tolerance=TOL),
        computed("PSA(g_q=g).g_q and PSA(g_k=g).g_k at g = +-2^53: exact int +-2^53; at +-(2^53 + 1): float "
                 "+-2^53 (the nearest double), as psa.shear computes with them", bool(exact_couplings)),
        computed("default RoPE base (10000) of a cumulative-Gram PLGA head vs a reference head written with it",
                 err_plga_default, tolerance=TOL_PLGA),
        computed("extra floats after a 5-token block (committed, open)", block_extra,
                 formula=f"== 2 d L = {2 * dl} (raw q, k of the last position), 3 d L = {3 * dl} (and the anchor)"),
        computed("consistency: cached decode vs the library's own full forward", consistency, tolerance=TOL),
        computed("extra/kv measured at T = 4, 9, 14 (exact fractions)", [str(m) for m, _ in fractions]),
        computed("1/T at T = 4, 9, 14", [str(f) for _, f in fractions]),
        computed("cache floats (kv, extra) measured at T = 4, 9, 14", [m for m, _ in counts]),
        computed("library closed forms 2 T d L and 2 d L", [c for _, c in counts]),
        computed(f"library closed forms at the default L = 1, T = 9 (2 T d = {2 * 9 * d}, 2 d = {2 * d})", one_layer),
        computed("extra state at T = 4096 (%), library formula", 100 * frac_4096),
        computed(f"counted insertion FLOPs (q and k), d = {d}", flops),
        computed("6d (paper) and the library's closed form", [6 * d, float(deploy.shear_flops(d))])),
        arrays={"reference_logits": full, "decoded": decoded, "rollback": rest, "reuse_other": reuse_other, "mlp": mlp_out},
        note="reference: theorylab.certificates.reference.transformer (independent PSA decoder); tolerance: module TOL")


def _cache_routes(model, reference, full):
    """Cached decode (prompt 5 and 1), speculative rollback (this decoder to lengths 8, 1 and 0, and a one-head one)
    and prefix reuse against the reference forward pass; the extra floats after a rollback inside a block and after
    undoing a block opened at position 0. Returns the arrays reported and the errors and counts checked."""
    decoded = decoder.decode(model, TOKENS, prompt=5)
    _, prefix = decoder.extend(model, decoder.empty_cache(model), TOKENS[:6])
    drafts = np.concatenate([TOKENS[6:8], (TOKENS[8:11] + 1) % 32])       # 2 right, 3 wrong drafts
    _, spec = decoder.extend(model, decoder.commit(prefix), drafts)
    rest, _ = decoder.extend(model, decoder.commit(decoder.rollback(spec, 8)), TOKENS[8:])
    single = decoder.random_decoder(d=16, n_head=1, n_layer=1, head=specs.PSA(g_q=1.0, g_k=0.8), seed=4)
    _, c1 = decoder.extend(single, decoder.empty_cache(single), TOKENS[:6])   # one head: the same rollback
    _, c1 = decoder.extend(single, decoder.commit(c1), drafts)
    rest_1, _ = decoder.extend(single, decoder.commit(decoder.rollback(c1, 8)), TOKENS[8:])
    other = np.concatenate([TOKENS[:6], TOKENS[::-1][:5]])                # same prefix, other continuation
    reuse_other = decoder.extend(model, decoder.commit(prefix), other[6:])[0]
    reuse_same = decoder.extend(model, decoder.commit(prefix), TOKENS[6:])[0]
    decoded_1 = decoder.decode(model, TOKENS, prompt=1)   # every step a one-token block
    err_decode = max(_max_error(decoded, full), _max_error(decoded_1, full))
    err_rollback = max(_max_error(rest, full[8:]), _max_error(rest_1, ref.forward(view.model(single), TOKENS)[8:]))
    err_reuse = float(np.max([_max_error(reuse_other, ref.forward(reference, other)[6:]),
                              _max_error(reuse_same, full[6:])]))
    # a rollback right after the restore point's own block start (length 1, the raw query of position 0 lost and
    # rebuilt) and the state held right after a rollback inside a block: one raw key + one anchor per head = 2 d L
    _, c0 = decoder.extend(model, decoder.empty_cache(model), TOKENS[:1])
    _, c0 = decoder.extend(model, decoder.commit(c0), drafts)
    rest_0, _ = decoder.extend(model, decoder.commit(decoder.rollback(c0, 1)), TOKENS[1:])
    err_rollback = max(err_rollback, _max_error(rest_0, full[1:]), _graded_rollback(drafts))
    extra_rolled = decoder.cache_floats(decoder.rollback(spec, 8))["extra"]
    _, open_0 = decoder.extend(model, decoder.empty_cache(model), drafts)   # a block opened at position 0
    undone = decoder.rollback(open_0, 0)                                  # undone whole: nothing may remain
    empty_after_undo = decoder.cache_floats(undone) == {"kv": 0, "extra": 0}
    err_rollback = max(err_rollback, _max_error(decoder.extend(model, undone, TOKENS)[0], full))
    return (decoded, rest, reuse_other), (err_decode, err_rollback, err_reuse, extra_rolled, empty_after_undo)


def _graded_rollback(drafts) -> float:
    """A layer of a query-sheared PSA head beside a graded head (values cached as ``v diag(M)``, M != I): prefix of 6,
    a block of 5 drafts rolled back to 8 (the PSA head's raw query of position 7 rebuilt from the whole layer's
    cached values), then the rest; max relative error against the reference forward pass."""
    grades = np.array([0.0, 1.0, 0.5, 2.0, 1.5, 0.0, 1.0, 3.0])
    mixed = decoder.random_decoder(d=16, n_head=2, n_layer=2, seed=11, head=lambda i, h: (
        specs.PSA(g_q=0.9, g_k=1.1), specs.Graded(grades, 1.3))[h])
    _, c = decoder.extend(mixed, decoder.empty_cache(mixed), TOKENS[:6])
    _, c = decoder.extend(mixed, decoder.commit(c), drafts)
    rest, _ = decoder.extend(mixed, decoder.commit(decoder.rollback(c, 8)), TOKENS[8:])
    return _max_error(rest, ref.forward(view.model(mixed), TOKENS)[8:])


def _narrow_heads() -> float:
    """A decoder whose head is narrower than d / n_head (``init_model`` with d_model 8, one head of width 4): cached
    decode (prompt 3) against the reference forward pass, and its layer's public ``cached_attention`` from start 0 in
    two blocks against the reference heads on the same normalised rows. Max relative error (inf where the library
    refuses)."""
    from theorylab.nn import train

    config = train.TrainConfig(variant="symmetric", gamma=1.0, task="canonical", T=8, vocab=16, d_model=8, dk=4)
    narrow, tokens = train.init_model(config, seed=0), TOKENS[:10] % 16
    layer, x = narrow.layers[0], np.random.default_rng(9).normal(size=(7, 8))
    heads = view.model(narrow)["blocks"][0]["heads"]
    q, k, v = x @ layer.w_q, x @ layer.w_k, x @ layer.w_v                   # [7, 4] x3
    want_attention = np.hstack([f(q, k, v) for f in heads]) @ layer.w_o     # one head: all 4 columns
    try:
        decoded = decoder.decode(narrow, tokens, prompt=3)
        caches = decoder.empty_cache(narrow).layers[0]
        first, caches = decoder.cached_attention(layer, caches, x[:3], start=0)
        second, _ = decoder.cached_attention(layer, caches, x[3:], start=3)
    except (ParameterError, ValueError):
        return np.inf
    return max(_max_error(decoded, ref.forward(view.model(narrow), tokens)),
               _max_error(np.concatenate([first, second]), want_attention))


def _default_heads() -> tuple[float, float]:
    """Documented head defaults (couplings, RoPE base) against reference heads written with them explicitly:
    max relative logit error of the PSA/TwoTap/Graded/SDPA decoder and of a cumulative-Gram PLGA one."""
    # documented defaults: standard couplings are 0 (PSA(g_q=...) leaves g_k = 0, PSA(g_k=...) g_q = 0) and the RoPE base is 10000
    # (PSA.member, TwoTap.shear); the reference heads are written with those values explicitly
    # (PSA.member, TwoTap.shear, Graded: no clip)
    grades, taps = np.array([0.0, 1.0, 0.5, 2.0]), (np.array([1.2, -0.4]), np.array([0.9, 0.6]))
    defaults = decoder.random_decoder(d=28, n_head=7, n_layer=1, seed=6, head=lambda i, h: (
        specs.PSA.member("key-only", 0.7), specs.PSA(g_q=0.6), specs.TwoTap.shear(0.5, 0.3),
        specs.Graded(grades, 1.5), specs.SDPA(), specs.TwoTap(*taps), specs.PSA(g_k=0.9))[h])
    ref_defaults = view.model(defaults)
    ref_defaults["blocks"][0]["heads"] = [ref.head("psa", g_q=0.0, g_k=0.7, base=10000.0),
                                          ref.head("psa", g_q=0.6, g_k=0.0, base=10000.0),
                                          ref.head("two_tap", q_taps=(1.5, -0.5), k_taps=(1.3, -0.3), base=10000.0),
                                          ref.head("graded", grades=grades, lam=1.5, clip=None, base=10000.0),
                                          ref.head("sdpa", base=10000.0),
                                          ref.head("two_tap", q_taps=taps[0], k_taps=taps[1], placement="post-rope",
                                                   base=10000.0),
                                          ref.head("psa", g_q=0.0, g_k=0.9, base=10000.0)]
    err_defaults = _max_error(decoder.forward(defaults, TOKENS), ref.forward(ref_defaults, TOKENS))
    plga_default = decoder.random_decoder(n_layer=1, head=_plga("cumulative"), seed=6)     # PLGA's default base
    ref_plga = view.model(plga_default)
    ref_plga["blocks"][0]["heads"] = [ref.head("plga", psi=view.psi(s.params), gram="cumulative", base=10000.0)
                                      for s in plga_default.layers[0].heads]
    err_plga_default = _max_error(decoder.forward(plga_default, TOKENS), ref.forward(ref_plga, TOKENS))
    return err_defaults, err_plga_default


def _public_blocks() -> tuple[float, bool, np.ndarray]:
    """The public MLP block on rows of width d: ``transformer.mlp`` of a random layer (W_FC 16 x 64) against the
    reference GELU MLP, max relative error (inf where the library refuses the rows); and PSA couplings kept as
    ``psa.shear`` computes with them: integers |g| <= 2^53 exact ints, beyond that the nearest double."""
    from theorylab.nn import transformer

    wide, u = decoder.random_decoder(d=16, n_layer=1, seed=7).layers[0], np.random.default_rng(8).normal(size=(5, 16))
    want_mlp = ref.gelu(u @ wide.w_fc + wide.b_fc) @ wide.w_proj + wide.b_proj
    try:
        got_mlp = transformer.mlp(wide, u)
        err = _max_error(got_mlp, want_mlp)
    except ParameterError:
        got_mlp, err = np.full_like(want_mlp, np.nan), np.inf
    cases = ((2 ** 53, int, 2 ** 53), (-2 ** 53, int, -2 ** 53), (2 ** 53 + 1, float, 2.0 ** 53),
             (-2 ** 53 - 1, float, -2.0 ** 53))
    exact_ok = all(type(c) is kind and c == value for g, kind, value in cases
                   for c in (specs.PSA(g_q=g).g_q, specs.PSA(g_k=g).g_k))
    return err, exact_ok, got_mlp


def _cache_accounting(model):
    """Extra-state floats of committed and open blocks, extra/kv at T = 4, 9, 14 against 1/T, the closed-form
    counts, the counted insertion FLOPs and the T = 4096 fraction."""
    # a five-token block after a committed prompt of 4: committed, the raw query and key of the last position per
    # head (2 d L); open, also the anchor (the raw key before the block, 3 d L)
    _, c = decoder.extend(model, decoder.empty_cache(model), TOKENS[:4])
    _, c = decoder.extend(model, decoder.commit(c), TOKENS[4:9])
    block_extra = [decoder.cache_floats(decoder.commit(c))["extra"], decoder.cache_floats(c)["extra"]]
    dl = model.d * len(model.layers)
    fractions, counts = [], []
    for T in (4, 9, 14):                                     # measured extra/kv of a committed cache
        _, c = decoder.extend(model, decoder.empty_cache(model), TOKENS[:T - 1])
        _, c = decoder.extend(model, decoder.commit(c), TOKENS[T - 1:T])
        f = decoder.cache_floats(decoder.commit(c))
        fractions.append((Fraction(f["extra"], f["kv"]), Fraction(1, T)))
        counts.append(((f["kv"], f["extra"]), (float(deploy.kv_cache_floats(T, model.d, len(model.layers))),
                                               float(deploy.extra_state_floats(model.d, len(model.layers))))))
    d = model.d
    one_layer = (float(deploy.kv_cache_floats(9, d)), float(deploy.extra_state_floats(d)))   # default layers = 1
    rng = np.random.default_rng(0)
    flops = sum(deploy.count_flops(deploy.insert_sheared, rng.normal(size=d), rng.normal(size=d), g=0.8) for _ in range(2))
    frac_4096 = float(deploy.extra_state_fraction(4096))
    return block_extra, dl, fractions, counts, one_layer, flops, frac_4096


@certificate("P20.exact", title="INT8 headroom log2(1+2g) is an upper bound, attained by an alternating stream",
             paper="PSA §8.6", method="exact",
             claim="A sheared key's range is at most (1+2g) times the raw range, so at most log2(1+2g) extra bits; "
                   "an alternating key stream attains it.")
def int8_headroom() -> Outcome:
    """Exact rational arithmetic on object arrays of Fractions through the library's shear."""
    range_growth, headroom = deploy.range_growth, deploy.int8_headroom_bits
    rng = np.random.default_rng(2026)
    couplings = (Fraction(0), Fraction(3, 10), Fraction(1), Fraction(5, 2))
    tight, below, bits_ok, exact = [], True, True, True
    default_width = deploy.alternating_stream(5)                  # d = 1: the column (+1, -1, +1, -1, +1)
    shape_ok = default_width.shape == (5, 1) and all(default_width[t, 0] == (-1) ** t for t in range(5))
    wide = deploy.alternating_stream(8, 3, dtype=object)          # d = 3: every row (-1)^t (1, 1, 1)
    shape_ok &= wide.shape == (8, 3) and all(wide[t, j] == (-1) ** t for t in range(8) for j in range(3))
    for g in couplings:
        alt = deploy.alternating_stream(8, 3, dtype=object) * Fraction(1)
        tight.append(range_growth(alt, g))
        for _ in range(20):                                  # random rational streams stay below the bound
            rand = np.array([[Fraction(int(v), 7) for v in row] for row in rng.integers(-50, 51, (8, 3))], dtype=object)
            if np.any(rand != 0):
                growth = range_growth(rand, g)
                below &= growth <= 1 + 2 * g
                rows = rand.tolist()                       # PSA §4: y_0 = x_0, y_t = (1 + g) x_t - g x_(t-1)
                sheared = [rows[0]] + [[(1 + g) * a - g * b for a, b in zip(r, p)] for p, r in zip(rows, rows[1:])]
                exact &= growth == max(abs(v) for r in sheared for v in r) / max(abs(v) for r in rows for v in r)
        bits_ok &= bool(np.isclose(headroom(float(g)), np.log2(float(tight[-1])), rtol=0, atol=1e-15))
    lead_negative = np.array([[Fraction(0)], [Fraction(-1)], [Fraction(-1, 2)]], dtype=object)   # max |.| at y < 0
    exact &= range_growth(lead_negative, Fraction(1, 2)) == Fraction(3, 2)          # y = (0, -3/2, -1/4)
    passed = all(t == 1 + 2 * g for t, g in zip(tight, couplings)) and below and bits_ok and shape_ok and exact
    return Outcome(bool(passed), (
        computed("alternating-stream range growth (exact)", [str(t) for t in tight]),
        computed("1 + 2g", [str(1 + 2 * g) for g in couplings]),
        computed("alternating_stream(5) is the column (-1)^t, alternating_stream(8, 3) the rows (-1)^t (1, 1, 1)",
                 bool(shape_ok)),
        computed("random rational streams within bound", bool(below)),
        computed("range growth == max |y| / max |x| of the shear written out here (80 random streams; "
                 "(0, -1, -1/2) at g = 1/2: 3/2)", bool(exact)),
        computed("headroom bits at g = 0, 0.3, 1, 2.5", [float(headroom(float(g))) for g in couplings],
                 tolerance=1e-15)))



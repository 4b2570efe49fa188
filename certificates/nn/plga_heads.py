"""PLGA heads in the decoder (PLGA Thm 5.4, Prop. 5.2, §4.4): PLGA with G_LM = I is SDPA, numerically (A1) and
exactly (A1.symbolic); the G-cache (A8); historical-row prefix consistency (A9).

The numeric checks hold the library's decoder against the reference forward pass of
``theorylab.certificates.reference.transformer`` fed the same weights (``theorylab.certificates._reference_views``);
comparisons of two routes through the library itself are evidence named ``consistency: ...``.
"""
from __future__ import annotations


import numpy as np

from theorylab.certificates import _reference_views as view
from theorylab.certificates.reference import plga as ref_plga
from theorylab.certificates.reference import transformer as ref
from theorylab.certify import Outcome, certificate, computed
from theorylab.nn import attention, decoder, specs
from theorylab.plga import operator as plga
from theorylab.certificates.nn._common import DK, TOKENS, TOL, TOL_PLGA, _max_error, _plga


# ------------------------------------------------------------------------------ A1
@certificate("A1", title="PLGA with G_LM = I is SDPA", paper="PLGA Thm 5.4(i), §3.1", method="numeric",
             claim="With a = 0 and b_a = I the PLGA decoder computes exactly the SDPA decoder's logits.")
def plga_contains_sdpa() -> Outcome:
    """Library SDPA, PLGA(a = 0, b_a = I) and generic PLGA decoders against the reference forward pass."""
    sdpa = decoder.random_decoder(head=specs.SDPA(), seed=13)
    heads = tuple(specs.PLGA(plga.sdpa_params(plga.init_params(DK, seed=h))) for h in range(sdpa.n_head))
    as_plga = decoder.Decoder(sdpa.wte, tuple(decoder.Layer(**{**l.__dict__, "heads": heads}) for l in sdpa.layers),
                              sdpa.ln_f)
    generic = decoder.random_decoder(head=_plga(), seed=13)
    reference_sdpa = ref.forward(view.model(sdpa), TOKENS)
    reference_generic = ref.forward(view.model(generic), TOKENS)
    lib_sdpa, lib_plga, lib_generic = (decoder.forward(m, TOKENS) for m in (sdpa, as_plga, generic))
    err_sdpa, err_identity = _max_error(lib_sdpa, reference_sdpa), _max_error(lib_plga, reference_sdpa)
    err_generic = _max_error(lib_generic, reference_generic)
    contrast = _max_error(reference_generic, reference_sdpa)
    bitwise = float(np.max(np.abs(lib_plga - lib_sdpa)))
    passed = err_sdpa <= TOL and err_identity <= TOL and err_generic <= TOL_PLGA and contrast > 1e-3
    return Outcome(bool(passed), (
        computed("library SDPA decoder vs reference SDPA, max |dlogit| / scale", err_sdpa, tolerance=TOL),
        computed("library PLGA(a = 0, b_a = I) decoder vs reference SDPA", err_identity, tolerance=TOL),
        computed("library PLGA (generic G_LM) vs reference PLGA", err_generic, tolerance=TOL_PLGA),
        computed("reference PLGA (generic G_LM) vs reference SDPA (contrast)", contrast),
        computed("consistency: library PLGA(G = I) vs library SDPA, max |dlogit| (bitwise)", bitwise, tolerance=0.0)),
        arrays={"reference_sdpa": reference_sdpa, "library_plga_identity": lib_plga,
                "reference_generic": reference_generic, "library_generic": lib_generic},
        note="reference: theorylab.certificates.reference.transformer; G = I also gives bitwise equality inside the library "
             "(Q I = Q exactly in floating point)")


# ------------------------------------------------------------------------------ A8
def _head0_tensors(model: decoder.Decoder, tokens) -> dict:
    """Reference PLGA tensors (A, A_LM, A_P, G_LM) of layer 1, head 0 of a library model's weights on ``tokens``."""
    layer = model.layers[0]
    h = ref.layer_norm(model.wte[tokens], *layer.ln1)
    q_rot = ref.rope((h @ layer.w_q)[:, :DK], layer.heads[0].base)
    return ref_plga.stages(q_rot.T @ q_rot, view.psi(layer.heads[0].params))


@certificate("A8", title="G-cache exact under invariance; Prop. 5.2 counterexamples", paper="PLGA Prop. 5.2, §4.4",
             method="numeric",
             claim="With input-invariant G_LM (a = 0, b_a = G*) the G-cached decoder matches full prefix "
                   "recomputation token by token although A_LM varies; with W_K = 0 the cache is exact while "
                   "m(G_LM) > 0; a generic input-dependent G_LM breaks the prompt-frozen cache.")
def g_cache() -> Outcome:
    """Library G-cached decode (prompt 4) against the reference's per-prefix recomputation and the reference
    G-cache (G_LM frozen at the prompt's Gram); order parameters from the reference tensors."""
    G_star = np.random.default_rng(7).normal(size=(DK, DK))
    invariant = decoder.random_decoder(head=_plga(a=np.zeros((DK, DK)), b_a=G_star), seed=11)
    base = decoder.random_decoder(head=_plga(), seed=12)
    silent = decoder.Decoder(base.wte, tuple(decoder.Layer(**{**l.__dict__, "w_k": np.zeros_like(l.w_k)})
                                             for l in base.layers), base.ln_f)
    other = TOKENS[::-1].copy()
    cached = {k: decoder.decode(m, TOKENS, prompt=4)
              for k, m in (("invariant", invariant), ("silent", silent), ("generic", base))}
    recomputed = {k: ref.prefix_logits(view.model(m), TOKENS)
                  for k, m in (("invariant", invariant), ("silent", silent), ("generic", base))}
    frozen = ref.forward(view.model(base, frozen_prompt=4), TOKENS)          # the reference G-cache
    err = {k: _max_error(cached[k], recomputed[k]) for k in cached}
    err_frozen = _max_error(cached["generic"], frozen)
    stages = {k: (_head0_tensors(m, TOKENS), _head0_tensors(m, other))
              for k, m in (("invariant", invariant), ("silent", silent))}
    m_alm = ref_plga.order_parameter(stages["invariant"][0]["A_LM"], stages["invariant"][1]["A_LM"])
    m_g_inv = ref_plga.order_parameter(stages["invariant"][0]["G"], stages["invariant"][1]["G"])
    m_g_silent = ref_plga.order_parameter(stages["silent"][0]["G"], stages["silent"][1]["G"])
    consistency = float(np.max([_max_error(cached[k], decoder.prefix_logits(m, TOKENS))
                                for k, m in (("invariant", invariant), ("silent", silent))]))
    passed = (err["invariant"] <= TOL_PLGA and err["silent"] <= TOL_PLGA and err_frozen <= TOL_PLGA
              and err["generic"] > 1e-3 and m_alm > 1e-2 and m_g_inv == 0.0 and m_g_silent > 1e-2)
    return Outcome(bool(passed), (
        computed("a=0, b_a=G*: library G-cache vs reference recomputation", err["invariant"], tolerance=TOL_PLGA),
        computed("a=0, b_a=G*: m(A_LM) (reference tensors)", m_alm),
        computed("a=0, b_a=G*: m(G_LM) (reference tensors)", m_g_inv, tolerance=0.0),
        computed("W_K=0: library G-cache vs reference recomputation", err["silent"], tolerance=TOL_PLGA),
        computed("W_K=0: m(G_LM) (reference tensors)", m_g_silent),
        computed("generic G_LM: library G-cache vs the reference G-cache (G_LM frozen at the prompt)", err_frozen,
                 tolerance=TOL_PLGA),
        computed("generic G_LM: library G-cache vs reference recomputation (contrast)", err["generic"]),
        computed("consistency: library G-cache vs the library's own prefix calls (invariant, W_K=0)", consistency,
                 tolerance=TOL_PLGA)),
        arrays={**{f"cached_{k}": v for k, v in cached.items()}, **{f"recomputed_{k}": v for k, v in recomputed.items()},
                "reference_gcache_generic": frozen})


# ------------------------------------------------------------------------------ A9
@certificate("A9", title="Historical-row prefix consistency: SDPA and cumulative Gram yes, global Gram no",
             paper="PLGA Def. 4.8, Remark 4.9, eq. 4.16", method="numeric",
             claim="F(x_1:S)_r = F(x_1:r)_r holds for SDPA and for the cumulative Gram and fails for the global "
                   "Gram on a constructed example.")
def prefix_consistency() -> Outcome:
    """One library pass against the reference's per-prefix recomputation F(x_1:r)_r; the library pass also
    against the reference one-pass forward (the same function)."""
    models = {"sdpa": (decoder.random_decoder(head=specs.SDPA(), seed=9), TOKENS, TOL),
              "psa": (decoder.random_decoder(head=specs.PSA(g_q=0.8, g_k=0.8), seed=9), TOKENS, TOL),
              "cumulative": (decoder.random_decoder(head=_plga("cumulative"), seed=9), TOKENS, TOL_PLGA),
              "global": (decoder.random_decoder(n_layer=1, head=_plga("global"), seed=9), TOKENS[:8], TOL_PLGA)}
    expected = {"sdpa": "consistent", "psa": "consistent", "cumulative": "consistent", "global": "inconsistent"}
    evidence, arrays, passed = [], {}, True
    for name, (model, tokens, tol) in models.items():
        one_pass = decoder.forward(model, tokens)
        reference = view.model(model)
        prefix = ref.prefix_logits(reference, tokens)
        agree = _max_error(one_pass, ref.forward(reference, tokens))
        gap_ref = _max_error(one_pass, prefix)
        err_prefix = _max_error(decoder.prefix_logits(model, tokens), prefix)
        ok = (agree <= tol and err_prefix <= tol
              and (gap_ref <= tol if expected[name] == "consistent" else gap_ref > 1e-2))
        if name == "cumulative":                                        # the running Gram across a rollback
            _, c = decoder.extend(model, decoder.empty_cache(model), tokens[:6])
            # committed: keys and values of 6 positions, and one dk x dk running Gram per head (no raw vectors)
            heads, dk = sum(len(layer.heads) for layer in model.layers), model.d // len(model.layers[0].heads)
            floats = decoder.cache_floats(decoder.commit(c))
            ok &= floats == {"kv": 6 * 2 * dk * heads, "extra": dk * dk * heads}
            evidence.append(computed(f"cumulative: floats of a committed 6-token cache == kv 6 x 2 dk per head, extra "
                                     f"one dk x dk Gram per head ({heads} heads, dk = {dk})", floats))
            _, c = decoder.extend(model, decoder.commit(c), np.concatenate([tokens[6:8], (tokens[8:11] + 1) % 32]))
            rest, _ = decoder.extend(model, decoder.commit(decoder.rollback(c, 8)), tokens[8:])
            err_rollback = _max_error(rest, prefix[8:])
            # every draft rejected: back to the start of the block, whose running Gram must survive the rollback
            rest, _ = decoder.extend(model, decoder.commit(decoder.rollback(c, 6)), tokens[6:])
            err_rollback = max(err_rollback, _max_error(rest, prefix[6:]))
            # an open block extended again before its commit: the running Gram continues from its last row
            _, c = decoder.extend(model, decoder.commit(decoder.rollback(c, 8)), tokens[8:10])
            rest, _ = decoder.extend(model, c, tokens[10:])
            err_rollback = max(err_rollback, _max_error(rest, prefix[10:]))
            ok &= err_rollback <= tol
            evidence.append(computed("cumulative: cached decode after a speculative rollback (3 of 5 drafts "
                                     "rejected, then all 5; an open block extended again) vs reference F(x_1:r)_r", err_rollback, tolerance=tol))
        passed &= ok
        arrays[f"{name}_one_pass"], arrays[f"{name}_reference_prefix"] = one_pass, prefix
        evidence += [computed(f"{name}: library one pass vs reference one pass", agree, tolerance=tol),
                     computed(f"{name}: library prefix_logits vs reference F(x_1:r)_r", err_prefix, tolerance=tol),
                     computed(f"{name}: max_r |F(x_1:S)_r - F_ref(x_1:r)_r| / scale ({expected[name]})", gap_ref,
                              tolerance=tol),
                     computed(f"consistency: {name}: library prefix_consistency_gap (absolute)", decoder.prefix_consistency_gap(model, tokens),
                              tolerance=1e-10)]
    return Outcome(bool(passed), tuple(evidence), arrays=arrays,
                   note="consistent: gap <= TOL (TOL_PLGA for PLGA) relative to the logit scale; inconsistent: > 1e-2; "
                        "F_ref: theorylab.certificates.reference.transformer on each prefix")





def _same(x, y, gens, witness) -> bool:
    """Decide ``x == y`` identically in ``gens``: exactly when the difference is a rational function over QQ
    (floats read as their exact binary value); otherwise ``False`` only on a witness (the difference evaluated
    at the rational point ``witness`` to 30 digits is > 1e-9 in size); anything else is undecided (ERROR)."""
    from theorylab.symbolic import exact as ex

    d = ex.exact(x) - ex.exact(y)
    if d.is_rational_function(*gens):
        return ex.is_zero(d, gens)
    if abs(complex(d.xreplace(witness).evalf(30))) > 1e-9:
        return False
    raise ex.Undecided(f"difference {str(d)[:80]}... neither decided zero nor witnessed nonzero")


@certificate("A1.symbolic", title="PLGA scores with a = 0, b_a = I are the SDPA scores, exactly; only G = I does it",
             paper="PLGA Thm 5.4(i), §3.1 eqs. 3.6-3.7", method="exact",
             claim="For symbolic Q, K, V (3x2, RoPE applied) and symbolic b_a, the library's G_LM = a A_P + b_a "
                   "is b_a at a = 0 whatever the queries; its scores Q~ G K~^T/sqrt(dk) equal the SDPA scores "
                   "identically in Q, K iff b_a = I; the library's a = 0, b_a = I head gives G_LM = I, the SDPA "
                   "scores and the SDPA values exactly.")
def plga_contains_sdpa_exact() -> Outcome:
    """Object arrays of SymPy symbols through ``attention.streams / plga_operator / scores`` (the head path
    before the softmax, which is one function of equal arguments); floats are read as exact binary rationals."""
    import dataclasses

    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic import plga as sy

    S, dk = 3, 2
    Q, K, V = (sy.symbol_matrix(n, S, dk, real=True) for n in "qkv")
    b = sy.symbol_matrix("b", dk, dk, real=True)
    zero = np.full((dk, dk), sp.Integer(0), dtype=object)      # a = 0 exactly (a symbolic a set to 0 after the
    #                                                             chain gives the same polynomials, 3x slower)
    qk = list(Q.flat) + list(K.flat)
    rng = np.random.default_rng(5)
    witness = {s: sp.Rational(int(rng.integers(-9, 10)), 7) for s in qk}
    params = plga.init_params(dk, seed=1, residual="additive")   # symbols through the gated unit's LN: too slow
    sdpa_q, sdpa_k, sdpa_v = attention.streams(specs.SDPA(), Q, K, V)
    sdpa_scores = attention.scores(sdpa_q, sdpa_k)

    # (i) the library's G_LM at a = 0 with symbolic b_a: it is b_a, for every Q
    sym = specs.PLGA(dataclasses.replace(params, a=zero, b_a=b))
    qs, ks, _ = attention.streams(sym, Q, K, V)
    g_is_b = ex.equal(attention.plga_operator(sym, qs), b, list(b.flat))
    # (ii) the score map at G = b_a: equal to SDPA identically in Q, K iff b_a = I (exact linear solve)
    residual = attention.scores(qs, ks, b) - sdpa_scores
    coeffs = [c for e in residual.flat for c in sp.Poly(sp.expand(ex.exact(e)), *qk).coeffs()]
    solutions = sp.linsolve(coeffs, list(b.flat))
    iff_identity = solutions == sp.FiniteSet(tuple(sp.eye(dk)))
    # (iii) the library's identity head: G_LM = I, scores and values = SDPA's, exactly
    head = specs.PLGA(plga.sdpa_params(params))
    qs, ks, vs = attention.streams(head, Q, K, V)
    G = attention.plga_operator(head, qs)
    g_is_identity = all(_same(G[i, j], int(i == j), qk, witness) for i in range(dk) for j in range(dk))
    scores_equal = all(_same(x, y, qk, witness) for x, y in zip(attention.scores(qs, ks, G).flat, sdpa_scores.flat))
    values_equal = ex.equal(vs, sdpa_v, list(V.flat))
    # (iv) the SDPA side itself, at the rational witness point, against the reference SDPA scores (float64)
    at = np.vectorize(lambda e: float(ex.exact(e).xreplace(witness)), otypes=[float])
    Qn, Kn = at(Q), at(K)
    reference_scores = ref.rope(Qn) @ ref.rope(Kn).T / np.sqrt(dk)
    anchor = _max_error(at(sdpa_scores), reference_scores)
    passed = g_is_b and iff_identity and g_is_identity and scores_equal and values_equal and anchor <= TOL
    return Outcome(bool(passed), (
        computed("G_LM(a = 0) == b_a for symbolic Q (decided exactly)", bool(g_is_b)),
        computed("solutions b_a of 'PLGA scores == SDPA scores for all Q, K'", str(solutions)),
        computed("identity head: G_LM == I", bool(g_is_identity)),
        computed("identity head: scores == SDPA scores (polynomials over QQ in Q, K)", bool(scores_equal)),
        computed("identity head: value stream == SDPA values", bool(values_equal)),
        computed("library SDPA scores at a rational point vs reference SDPA scores, max |d| / scale", anchor,
                 tolerance=TOL)),
        note="floats (RoPE tables, 1/sqrt(dk)) are read as their exact binary rationals in both routes; a "
             "non-rational difference is declared nonzero only on a 30-digit witness at a rational point")

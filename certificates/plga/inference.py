"""Certificates of prefix consistency's shape conjunct and inference collapse (claims A9, A19; PLGA Thm 5.4).

A9.shape: prefix consistency as a bundle (one row per input row and historical-row agreement), through the
decoder; A19: Q I K^T = Q K^T and affine bias absorption exactly, and an input-invariant PLGA decoder collapsing
to SDPA with W_Q G* (Lean: InferenceCollapse). A9's main certificate is in certificates/nn/plga_heads.py.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from theorylab import plga
from theorylab.certificates import _reference_views as view
from theorylab.certificates.plga._common import _obj, _rel
from theorylab.certificates.reference import plga_lean as lref
from theorylab.certificates.reference import transformer as ref_tf
from theorylab.certify import Outcome, certificate, computed
from theorylab.errors import ParameterError
from theorylab.nn import decoder, specs


# ----------------------------------------------------------------------------------------- A9 (shape conjunct)
def _toy_decoders() -> dict:
    """The decoders of the authors' OnlineContract.lean, over integer token arrays (rows of one integer each)."""
    return {"constant-empty (constNil)": lambda x: np.zeros((0, 1), dtype=np.int64),
            "global sum (globalSumDecoder)": lambda x: (np.asarray(x) + np.sum(x))[:, None],
            "row map, prefix sums (rowMapDecoder)": lambda x: np.cumsum(x)[:, None],
            "row map dropping the last row": lambda x: np.cumsum(x)[:-1, None]}



@certificate("A9.shape", title="Prefix consistency as a bundle: one row per input row AND historical-row agreement",
             paper="PLGA Def. 4.8, Remark 4.9; Lean OnlineContract.lean (PrefixConsistentShaped)",
             claim="The library's Definition 4.8 check has the shape conjunct: the constant-empty decoder passes the "
                   "row comparison vacuously and fails the bundle; the global-sum decoder is length-preserving and "
                   "inconsistent on [0, 1]; a row-map decoder satisfies both; the library decoder is length-preserving.",
             method="numeric")
def prefix_shape() -> Outcome:
    """Toy decoders on [0, 1] and [3, 1, 4, 1, 5] against ``reference.plga_lean.prefix_consistent_shaped`` (the Lean
    ``Option`` semantics on lists); the library SDPA decoder's one pass and prefix calls."""
    verdicts, agree = {}, True
    for name, F in _toy_decoders().items():
        for x in ([0, 1], [3, 1, 4, 1, 5]):
            lib = decoder.prefix_consistency(F, np.array(x))
            shaped, consistent = lref.prefix_consistent_shaped(F, list(x))
            agree &= lib.length_preserving == shaped and (lib.gap == 0) == consistent
            verdicts[f"{name} on {x}"] = [lib.length_preserving, lib.gap, lib.holds(), shaped and consistent]
    nil = verdicts["constant-empty (constNil) on [0, 1]"]
    glob = verdicts["global sum (globalSumDecoder) on [0, 1]"]
    rowmap = verdicts["row map, prefix sums (rowMapDecoder) on [3, 1, 4, 1, 5]"]
    model = decoder.random_decoder(head=specs.SDPA(), seed=9)
    tokens = np.array([3, 17, 3, 5, 29, 11, 3, 8])
    lib_model = decoder.prefix_consistency(lambda t: decoder.forward(model, t), tokens)
    reference = view.model(model)
    shaped_ref, _ = lref.prefix_consistent_shaped(lambda t: ref_tf.forward(reference, np.asarray(t)), list(tokens))
    ok = (agree and nil[:3] == [False, 0.0, False] and glob[:3] == [True, 1.0, False] and rowmap[:3] == [True, 0.0, True]
          and lib_model.length_preserving and shaped_ref and lib_model.gap <= 1e-12)
    return Outcome(ok, (computed("library (length_preserving, gap, holds) and reference Def. 4.8 per toy decoder",
                                 verdicts),
                        computed("library agrees with the reference (Option semantics) on all 8 cases", agree),
                        computed("SDPA decoder: length-preserving (library, reference)", [lib_model.length_preserving,
                                                                                         shaped_ref]),
                        computed("SDPA decoder: library gap (absolute)", lib_model.gap, tolerance=1e-12)),
                   arrays={"tokens": tokens}, seeds={"decoder": 9})



# ----------------------------------------------------------------------------------------- A19
@certificate("A19.symbolic", title="Inference collapse, algebraic core: Q I K^T = Q K^T; affine absorption "
                                   "(X W + 1 b^T) G = X (W G) + 1 (b^T G)",
             paper="PLGA Thm 5.4(i), (ii); Lean InferenceCollapse.lean (score_sdpa_special_case, absorb_operator_affine)",
             claim="The library's scores at G = I are Q K^T / sqrt(dk) identically, and its absorb_operator maps (W, b, G) "
                   "to (W G, b G) with (X W + 1 b^T) G = X W' + 1 b'^T for symbolic X, W, b, G.",
             method="exact")
def absorption_exact() -> Outcome:
    """Symbolic X (2x3), W (3x2), b (2,), G (2x2); Q, K (3x4) for the scores (sqrt(4) = 2 is exact)."""
    import sympy as sp

    from theorylab.symbolic import exact as ex

    X, W = ex.symbol_array("x", 2, 3, real=True), ex.symbol_array("w", 3, 2, real=True)
    b, G = ex.symbol_array("b", 2, real=True), ex.symbol_array("g", 2, 2, real=True)
    gens = ex.symbols_of(X, W, b, G)
    W2, b2 = plga.absorb_operator(W, b, G)
    ones = sp.ones(2, 1)
    lhs = (sp.Matrix(X) * sp.Matrix(W) + ones * sp.Matrix(b).T) * sp.Matrix(G)
    rhs = sp.Matrix(X) * ex.matrix(W2) + ones * ex.matrix(b2).T
    affine = ex.matrix_is_zero(lhs - rhs, gens)
    Q, K = ex.symbol_array("q", 3, 4, real=True), ex.symbol_array("k", 3, 4, real=True)
    identity = _obj(np.eye(4, dtype=int))
    sdpa = ex.matrix_is_zero(ex.matrix(plga.scores(Q, K, identity)) - sp.Matrix(Q) * sp.Matrix(K).T / 2,
                             ex.symbols_of(Q, K))
    return Outcome(affine and sdpa, (computed("(X W + 1 b^T) G == X W' + 1 b'^T with (W', b') = absorb_operator(W, b, G)",
                                              affine),
                                     computed("scores(Q, K, I) == Q K^T / sqrt(dk) (dk = 4)", sdpa)))



def _invariant_heads(G_stars, base):
    def make(layer, h):
        p = plga.init_params(8, seed=10 * layer + h)
        return specs.PLGA(dataclasses.replace(p, a=np.zeros((8, 8)), b_a=G_stars[layer][h]), base=base)
    return make



@certificate("A19.numeric", title="An input-invariant PLGA decoder collapses to SDPA with W_Q G*: exactly without "
                                  "RoPE, with RoPE iff G* commutes with the rotations",
             paper="PLGA Thm 5.4(ii), Prop. 4.1; Lean InferenceCollapse.lean, Rope.lean (relative_position_of_commute)",
             claim="For PLGA heads with a = 0 (G_LM = b_a = G*), the library's collapse_invariant_plga gives an SDPA "
                   "decoder (W_Q,h -> W_Q,h G*) whose logits equal the reference PLGA decoder's: without RoPE for any G*, "
                   "with RoPE for G* in the commutant (blocks c I + s J), and not for a generic G*.",
             method="numeric")
def collapse() -> Outcome:
    """Library collapsed SDPA decoder (d = 16, 2 heads, 2 layers) against ``reference.transformer`` on the original
    PLGA decoder; the absorbed weights against W_Q block @ G* computed here."""
    tokens = np.array([3, 17, 3, 5, 29, 11, 3, 8, 21, 17, 2, 30])
    rng = np.random.default_rng(19)
    generic = [[rng.normal(size=(8, 8)) for _ in range(2)] for _ in range(2)]
    commuting = []
    for _ in range(2):
        heads = []
        for _ in range(2):
            Gc = np.zeros((8, 8))
            for a in range(4):
                c, s = rng.normal(size=2)
                Gc[2 * a:2 * a + 2, 2 * a:2 * a + 2] = c * np.eye(2) + s * plga.J2
            heads.append(Gc)
        commuting.append(heads)
    cases = {"no RoPE, generic G*": (generic, None), "RoPE, G* in the commutant": (commuting, 10000.0),
             "RoPE, generic G* (contrast)": (generic, 10000.0)}
    errors, weights = {}, 0.0
    for name, (Gs, base) in cases.items():
        model = decoder.random_decoder(head=_invariant_heads(Gs, base), seed=19)
        collapsed = decoder.collapse_invariant_plga(model)
        sdpa_heads = all(isinstance(s, specs.SDPA) for layer in collapsed.layers for s in layer.heads)
        reference = ref_tf.forward(view.model(model), tokens)
        errors[name] = float(np.max(np.abs(decoder.forward(collapsed, tokens) - reference))
                             / max(1.0, np.max(np.abs(reference))))
        for layer, c_layer, Gl in zip(model.layers, collapsed.layers, Gs):
            for h in range(2):
                cols = slice(8 * h, 8 * h + 8)
                weights = max(weights, _rel(c_layer.w_q[:, cols], layer.w_q[:, cols] @ Gl[h]))
        errors[name + " (heads SDPA)"] = sdpa_heads
    # heads narrower than d / H (projections d x H dk, as train.init_model builds with d_model != dk): d = 16, 2 heads
    # of dk = 4, no RoPE, generic G*
    wide = decoder.random_decoder(n_layer=1, seed=19).layers[0]
    narrow_heads = tuple(specs.PLGA(dataclasses.replace(plga.init_params(4, seed=h), a=np.zeros((4, 4)),
                                                            b_a=rng.normal(size=(4, 4))), base=None) for h in range(2))
    narrow = decoder.random_decoder(n_layer=1, seed=19)
    narrow = dataclasses.replace(narrow, layers=(dataclasses.replace(
        wide, w_q=wide.w_q[:, :8], w_k=wide.w_k[:, :8], w_v=wide.w_v[:, :8], w_o=wide.w_o[:8], heads=narrow_heads),))
    reference = ref_tf.forward(view.model(narrow), tokens)
    narrow_logits = decoder.forward(decoder.collapse_invariant_plga(narrow), tokens)
    errors["no RoPE, heads dk = 4 < d / H"] = float(np.max(np.abs(narrow_logits - reference))
                                                    / max(1.0, np.max(np.abs(reference))))
    try:
        decoder.collapse_invariant_plga(
            decoder.random_decoder(head=lambda l, h: specs.PLGA(plga.init_params(8, seed=h)), seed=19))
        refused = False
    except ParameterError:
        refused = True
    ok = (errors["no RoPE, generic G*"] <= 1e-12 and errors["RoPE, G* in the commutant"] <= 1e-12
          and errors["no RoPE, heads dk = 4 < d / H"] <= 1e-12
          and errors["RoPE, generic G* (contrast)"] > 1e-3 and weights <= 1e-15 and refused
          and all(v for k, v in errors.items() if k.endswith("(heads SDPA)")))
    return Outcome(ok, (computed("max |collapsed SDPA logits - reference PLGA logits| / scale (and heads SDPA)", errors),
                        computed("max rel |collapsed W_Q block - W_Q block @ G*|", weights, tolerance=1e-15),
                        computed("a head with a != 0 is refused", refused)),
                   arrays={"tokens": tokens}, seeds={"G_star": 19, "decoder": 19})


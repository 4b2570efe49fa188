"""EG-MHSA compiles to a standard transformer with identical outputs (G1.numeric; GLLM Rem. 1, Cor. 1).

The graded and the compiled decoder against the reference forward pass of
``theorylab.certificates.reference.transformer``; graded vs compiled through the library is consistency evidence.
"""
from __future__ import annotations


import numpy as np

from theorylab.certificates import _reference_views as view
from theorylab.certificates.reference import transformer as ref
from theorylab.certify import Outcome, certificate, computed
from theorylab.nn import decoder, specs
from theorylab.certificates.nn._common import DK, TOKENS, TOL, _max_error


# ------------------------------------------------------------------------------ G1
@certificate("G1.numeric", title="EG-MHSA compiles to a standard transformer with identical outputs",
             paper="GLLM §3.1, Rem. 1, Cor. 1", method="numeric",
             claim="Absorbing M = diag(lam^q) (clipped at lam^q <= C) into W_Q, W_K, W_V gives a standard decoder "
                   "whose logits equal the graded decoder's.")
def grading_compiles() -> Outcome:
    """Library graded decoder vs the reference EG-MHSA (M = diag(min(lam^q, C))); the library's compiled weights
    vs W M with the reference's M; the compiled model through the reference SDPA decoder."""
    lam, clip = np.e ** (1 / DK), 1.5
    grades = [np.linspace(0, 8, DK) * (1 + h) for h in range(2)]
    graded = decoder.random_decoder(head=lambda l, h: specs.Graded(grades[h], lam, clip), seed=14)
    compiled = decoder.compile_grading(graded)
    standard = all(isinstance(s, specs.SDPA) for layer in compiled.layers for s in layer.heads)
    reference = ref.forward(view.model(graded), TOKENS)
    unclipped = ref.forward(view.model(graded, clip=False), TOKENS)
    m = np.concatenate([ref.grading_diag(q, lam, clip) for q in grades])            # [d] reference diag(M_h)
    weight_err = float(np.max([_max_error(getattr(c, w), getattr(l, w) * m)
                               for c, l in zip(compiled.layers, graded.layers) for w in ("w_q", "w_k", "w_v")]))
    err_graded = _max_error(decoder.forward(graded, TOKENS), reference)
    err_compiled = _max_error(decoder.forward(compiled, TOKENS), reference)
    err_ref_compiled = _max_error(ref.forward(view.model(compiled), TOKENS), reference)
    clip_matters = _max_error(unclipped, reference)
    consistency = _max_error(decoder.forward(compiled, TOKENS), decoder.forward(graded, TOKENS))
    # a layer mixing a graded head with a standard one: only the graded head's columns are scaled
    mixed = decoder.random_decoder(head=lambda l, h: specs.Graded(grades[0], lam, clip) if h == 0
                                   else specs.SDPA(), seed=15)
    err_mixed = _max_error(decoder.forward(decoder.compile_grading(mixed), TOKENS), ref.forward(view.model(mixed), TOKENS))
    passed = (standard and np.max([err_graded, err_compiled, err_ref_compiled, weight_err, err_mixed]) <= TOL
              and clip_matters > 1e-3)
    return Outcome(bool(passed), (
        computed("compiled heads are standard SDPA", standard),
        computed("library graded decoder vs reference EG-MHSA decoder, max |dlogit| / scale", err_graded,
                 tolerance=TOL),
        computed("library compiled W_Q, W_K, W_V vs W diag(min(lam^q, C)), max |dW| / scale", weight_err,
                 tolerance=TOL),
        computed("library compiled decoder vs reference EG-MHSA decoder", err_compiled, tolerance=TOL),
        computed("compiled weights through the reference SDPA decoder vs reference EG-MHSA", err_ref_compiled,
                 tolerance=TOL),
        computed("layer with one graded and one SDPA head: library compiled decoder vs reference", err_mixed,
                 tolerance=TOL),
        computed("reference without the clip vs with it (the clip binds: lam^q up to e^2 > C = 1.5)", clip_matters),
        computed("consistency: library compiled vs library graded", consistency, tolerance=TOL)),
        arrays={"reference_graded": reference, "compiled_weights_q": np.stack([l.w_q for l in compiled.layers])})

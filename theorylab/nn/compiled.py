"""The standard transformers that a graded or an input-invariant PLGA decoder compiles to.

Both maps return a decoder of SDPA heads that computes the same function as the one given:

* :func:`compile_grading` -- grading compile-out (GLLM Rem. 1, Cor. 1; claim G1): an EG-MHSA head
  with ``M = diag(lam^q)`` becomes an SDPA head with ``W~ = W M`` for ``W in {W_Q, W_K, W_V}``;
* :func:`collapse_invariant_plga` -- inference collapse (PLGA Thm 5.4(ii); claim A19): a PLGA head
  with ``a = 0`` has ``G_LM = b_a = G*`` for every input and becomes an SDPA head with
  ``W_Q -> W_Q G*``.

Convention: every other head is kept as it is; parameters are those of
:class:`~theorylab.nn.transformer.Decoder` (column block h of ``W_Q``, ``W_K``, ``W_V`` is head h).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from theorylab.errors import ParameterError
from theorylab.nn.specs import PLGA, SDPA, Graded
from theorylab.nn.transformer import Decoder
from theorylab.plga import operator as plga


# ------------------------------------------------------------------------------ grading compile-out
def compile_grading(model: Decoder) -> Decoder:
    """The standard transformer computing the same function as a graded one (GLLM Rem. 1, Cor. 1).

    Every :class:`Graded` head h becomes an :class:`SDPA` head with ``W~ = W M_h`` for
    ``W in {W_Q, W_K, W_V}`` (its columns scaled by ``diag(M_h)``).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> graded = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.Graded(np.array([0.0, 1, 1, 2]), 2.0),
    ...                            seed=0)
    >>> plain = nn.compile_grading(graded)
    >>> type(plain.layers[0].heads[0]).__name__
    'SDPA'
    >>> bool(np.allclose(nn.forward(plain, [1, 2, 3, 4]), nn.forward(graded, [1, 2, 3, 4]), rtol=0, atol=1e-12))
    True
    """
    layers = []
    for layer in model.layers:
        m = np.concatenate([s.diag if isinstance(s, Graded) else np.ones(layer.w_q.shape[1] // len(layer.heads))
                            for s in layer.heads])                          # [d] column scales
        heads = tuple(SDPA(s.base) if isinstance(s, Graded) else s for s in layer.heads)
        layers.append(replace(layer, w_q=layer.w_q * m, w_k=layer.w_k * m, w_v=layer.w_v * m, heads=heads))
    return replace(model, layers=tuple(layers))


# ------------------------------------------------------------------------------ inference collapse
def collapse_invariant_plga(model: Decoder) -> Decoder:
    """The SDPA decoder that an input-invariant PLGA decoder collapses to (PLGA Thm 5.4(ii); claim A19).

    Every PLGA head with ``a = 0`` has ``G_LM = b_a =: G*`` for every input; it becomes an SDPA head
    with the operator absorbed into its query projection, ``W_Q,h -> W_Q,h G*``
    (:func:`theorylab.plga.operator.absorb_operator`; the decoder has no query bias). The result has
    the same logits without RoPE (``base=None``) and, with RoPE, exactly when every ``G*`` lies in the
    rotation commutant (Prop. 4.1; the authors' ``relative_position_of_commute``). Other heads are kept.

    Examples
    --------
    An input-invariant PLGA head (``a = 0``) without RoPE collapses to SDPA with the same logits:

    >>> import dataclasses
    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> import theorylab.plga as plga
    >>> params = plga.init_params(4, seed=0)
    >>> invariant = nn.PLGA(dataclasses.replace(params, a=np.zeros_like(params.a)), base=None)
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=invariant, seed=0)
    >>> sdpa = nn.collapse_invariant_plga(model)
    >>> type(sdpa.layers[0].heads[0]).__name__
    'SDPA'
    >>> bool(np.allclose(nn.forward(sdpa, [1, 2, 3, 4]), nn.forward(model, [1, 2, 3, 4]), rtol=0, atol=1e-12))
    True
    """
    layers = []
    for layer in model.layers:
        dk = layer.w_q.shape[1] // len(layer.heads)
        w_q, heads = layer.w_q.copy(), []
        for h, s in enumerate(layer.heads):
            if isinstance(s, PLGA):
                if np.any(s.params.a != 0):
                    raise ParameterError("every PLGA head must be input-invariant (a = 0, G_LM = b_a) to collapse "
                                         "to SDPA (got a head with a != 0)")
                cols = slice(h * dk, (h + 1) * dk)
                w_q[:, cols], _ = plga.absorb_operator(layer.w_q[:, cols], np.zeros(dk), s.params.b_a)
                s = SDPA(s.base)
            heads.append(s)
        layers.append(replace(layer, w_q=w_q, heads=tuple(heads)))
    return replace(model, layers=tuple(layers))


__all__ = ["compile_grading", "collapse_invariant_plga"]

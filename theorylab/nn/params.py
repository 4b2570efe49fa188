"""A decoder's arrays by name: the parameters that training updates and the gradients are keyed by.

:func:`parameters` names every array of a :class:`~theorylab.nn.transformer.Decoder` (the arrays
themselves, not copies): ``"wte"``, ``"ln_f.0"`` (gain), ``"ln_f.1"`` (bias), ``"layers.i.<w>"`` for
``<w>`` in :data:`LAYER_WEIGHTS`, ``"layers.i.ln1.0"`` ... ``"layers.i.ln2.1"``, and the taps of the
learnable two-tap heads ``"layers.i.heads.h.q_taps"`` / ``"k_taps"`` (PSA §7.5). :func:`with_parameters`
puts such arrays back into a copy of the decoder. The backward passes (:mod:`theorylab.nn.grad`) and
the training loop (PSA §7.4, :mod:`theorylab.nn.train`) use these names.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from theorylab.nn import transformer
from theorylab.nn.specs import TwoTap

LAYER_WEIGHTS = ("w_q", "w_k", "w_v", "w_o", "w_fc", "b_fc", "w_proj", "b_proj")


def parameters(model: transformer.Decoder) -> dict[str, np.ndarray]:
    """Every array of ``model`` by name (the arrays themselves, not copies); TwoTap taps included.

    Examples
    --------
    The names the gradients of the trained models (PSA §7.4, §7.5) use:

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("key-only", 1.0), seed=0)
    >>> names = list(nn.parameters(model))
    >>> len(names), names[:4]
    (15, ['wte', 'ln_f.0', 'ln_f.1', 'layers.0.w_q'])
    >>> taps = nn.TwoTap(np.array([1.0, 0.0]), np.array([1.0, 0.0]))    # learnable taps (PSA §7.5)
    >>> [n for n in nn.parameters(nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=taps)) if "taps" in n][:2]
    ['layers.0.heads.0.q_taps', 'layers.0.heads.0.k_taps']
    """
    out = {"wte": model.wte, "ln_f.0": model.ln_f[0], "ln_f.1": model.ln_f[1]}
    for i, layer in enumerate(model.layers):
        for name in LAYER_WEIGHTS:
            out[f"layers.{i}.{name}"] = getattr(layer, name)
        for ln in ("ln1", "ln2"):
            out[f"layers.{i}.{ln}.0"], out[f"layers.{i}.{ln}.1"] = getattr(layer, ln)
        for h, spec in enumerate(layer.heads):
            if isinstance(spec, TwoTap):
                out[f"layers.{i}.heads.{h}.q_taps"] = spec.q_taps
                out[f"layers.{i}.heads.{h}.k_taps"] = spec.k_taps
    return out


def with_parameters(model: transformer.Decoder, params: dict[str, np.ndarray]) -> transformer.Decoder:
    """A copy of ``model`` whose arrays are taken from ``params`` (names of :func:`parameters`; missing keep).

    Examples
    --------
    How a training step (PSA §7.4) puts updated arrays back into a decoder:

    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("key-only", 1.0), seed=0)
    >>> scaled = nn.with_parameters(model, {"wte": 2 * model.wte})
    >>> bool((scaled.wte == 2 * model.wte).all()), scaled.layers[0].w_q is model.layers[0].w_q
    (True, True)
    """
    def get(name, old):
        return params.get(name, old)

    layers = []
    for i, layer in enumerate(model.layers):
        heads = tuple(replace(s, q_taps=get(f"layers.{i}.heads.{h}.q_taps", s.q_taps),
                              k_taps=get(f"layers.{i}.heads.{h}.k_taps", s.k_taps)) if isinstance(s, TwoTap) else s
                      for h, s in enumerate(layer.heads))
        fields = {name: get(f"layers.{i}.{name}", getattr(layer, name)) for name in LAYER_WEIGHTS}
        for ln in ("ln1", "ln2"):
            old = getattr(layer, ln)
            fields[ln] = (get(f"layers.{i}.{ln}.0", old[0]), get(f"layers.{i}.{ln}.1", old[1]))
        layers.append(replace(layer, heads=heads, **fields))
    ln_f = (get("ln_f.0", model.ln_f[0]), get("ln_f.1", model.ln_f[1]))
    return transformer.Decoder(get("wte", model.wte), tuple(layers), ln_f)


__all__ = ["parameters", "with_parameters"]

"""Hand-derived backward passes of the minimal transformer (``theorylab.nn``), for training.

Each function here is the vector-Jacobian product (VJP) of one forward operation: given
the operation's inputs and the gradient ``dy`` of a scalar loss with respect to its output,
it returns the gradients with respect to its inputs and parameters. The forward pass is
the one in ``theorylab.nn`` (``transformer.hidden_states`` and ``attention.head`` record what
is needed in a ``trace``); nothing here recomputes a model. Every VJP is checked against
float64 central finite differences of the forward operation (tests/test_nn_grad.py), and
:func:`loss_and_grad` against finite differences of ``transformer.forward`` itself.

Supported heads: :class:`~theorylab.nn.specs.SDPA`, :class:`~theorylab.nn.specs.PSA`
(fixed couplings, either placement) and :class:`~theorylab.nn.specs.TwoTap` (taps are
parameters). Graded and PLGA heads raise :class:`ParameterError`.

The gradient dictionaries use the names of :func:`theorylab.nn.params.parameters` (``"wte"``,
``"ln_f.0"`` (gain), ``"ln_f.1"`` (bias), ``"layers.0.w_q"``, ..., ``"layers.0.heads.0.k_taps"``).
"""
from __future__ import annotations

import math

import numpy as np

from theorylab import _moved
from theorylab.errors import ParameterError, finite_result, integer_array, real_array
from theorylab.nn import attention, transformer
from theorylab.nn.specs import PSA, SDPA, TwoTap
from theorylab.psa import shear as psa


# ------------------------------------------------------------------------------ elementwise and dense
def cross_entropy(logits, answers) -> tuple[float, np.ndarray]:
    """Mean cross-entropy of ``logits`` (N, V) against integer ``answers`` (N,) in ``[0, V)`` and its gradient (N, V).

    A loss beyond the float range (logits spread by more than ~1.8e308) raises ParameterError.

    Examples
    --------
    Equal logits over four tokens: the loss is ``log 4`` and the gradient is ``(softmax - onehot) / N``
    (the training loss of PSA §7.4):

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> loss, dlogits = nn.cross_entropy(np.zeros((2, 4)), [0, 3])
    >>> round(loss, 4), np.round(dlogits, 4)
    (1.3863, array([[-0.375,  0.125,  0.125,  0.125],
           [ 0.125,  0.125,  0.125, -0.375]]))
    """
    logits = real_array("logits", logits)
    if logits.ndim != 2 or 0 in logits.shape:
        raise ParameterError(f"logits must be a non-empty (N, V) array (got shape {logits.shape})")
    answers = integer_array("answers", answers, high=logits.shape[1] - 1)
    if answers.shape != logits.shape[:1]:
        raise ParameterError(f"answers must hold one token id per row of logits, shape ({len(logits)},) "
                             f"(got {answers.shape})")
    with np.errstate(over="ignore", invalid="ignore"):
        loss, grad = _cross_entropy(logits, answers)
    return finite_result("logits", loss), grad


def _cross_entropy(logits: np.ndarray, answers: np.ndarray) -> tuple[float, np.ndarray]:
    z = logits - logits.max(axis=-1, keepdims=True)                     # [N, V] stable shift
    lse = np.log(np.exp(z).sum(axis=-1))                                # [N]
    rows = np.arange(len(z))
    loss = float(np.mean(lse - z[rows, answers]))
    dz = np.exp(z - lse[:, None])                                       # [N, V] softmax
    dz[rows, answers] -= 1.0
    return loss, dz / len(z)


def layer_norm_vjp(x, affine, dy) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """VJP of ``transformer.layer_norm(x, (gain, bias))`` over the last axis: ``(dx, dgain, dbias)``."""
    _, xhat, den = transformer._layer_norm_parts(x, affine)
    return _layer_norm_vjp(xhat, den, affine[0], dy)


def _layer_norm_vjp(xhat, den, gain, dy) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`layer_norm_vjp` from the forward pass's normalised rows ``xhat`` and ``den = sqrt(var + eps)``."""
    dxhat = dy * gain                                                   # [..., d]
    dx = dxhat - dxhat.mean(axis=-1, keepdims=True)
    dxhat *= xhat
    dx -= xhat * dxhat.mean(axis=-1, keepdims=True)
    dx /= den                                                           # [..., d]
    axes = tuple(range(dy.ndim - 1))
    return dx, np.sum(dy * xhat, axis=axes), np.sum(dy, axis=axes)


def gelu_vjp(x, dy) -> np.ndarray:
    """VJP of ``transformer.gelu`` (tanh form): ``dy * gelu'(x)``.

    Parameters
    ----------
    x : the forward pass's input, an array of finite reals.
    dy : the gradient with respect to ``gelu(x)``, finite reals of the same shape.

    Returns
    -------
    numpy.ndarray
        ``dy * gelu'(x)``, the shape of ``x``.

    Raises
    ------
    ParameterError
        On non-real or non-finite entries, empty arrays, shapes that differ, or a product beyond the float range.
    """
    x, dy = real_array("x", x), real_array("dy", dy)
    if x.shape != dy.shape:
        raise ParameterError(f"x and dy must have the same shape (got {x.shape} and {dy.shape})")
    with np.errstate(over="ignore", invalid="ignore"):
        return finite_result("x, dy", _gelu_vjp(x, dy))


def _gelu_vjp(x: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """:func:`gelu_vjp` without the checks (the backward pass's kernel).

    ``x`` is clipped to [-30, 30] first: beyond, tanh is exactly +-1 in float64 and gelu' is
    exactly 1 or 0 either way, while ``x**3`` would overflow and give ``inf * 0 = NaN``."""
    x = np.clip(x, -30.0, 30.0)
    c = math.sqrt(2 / math.pi)                                          # a Python float: x's type
    t = np.tanh(c * (x + 0.044715 * x**3))
    return dy * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x))


def _flat(x) -> np.ndarray:
    return x.reshape(math.prod(x.shape[:-1]), x.shape[-1])              # [..., n] -> [rows, n]


def mlp_vjp(layer: transformer.Layer, u, dy) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """VJP of ``transformer.mlp(layer, u)``: ``(du, {w_fc, b_fc, w_proj, b_proj})``."""
    pre = u @ layer.w_fc + layer.b_fc                                   # [..., 4d]
    dh = _gelu_vjp(pre, dy @ layer.w_proj.T)                             # [..., 4d]
    grads = {"w_proj": _flat(transformer._gelu(pre)).T @ _flat(dy), "b_proj": _flat(dy).sum(axis=0),
             "w_fc": _flat(u).T @ _flat(dh), "b_fc": _flat(dh).sum(axis=0)}
    return dh @ layer.w_fc.T, grads


def logits_vjp(model: transformer.Decoder, x, dlogits) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """VJP of ``transformer.logits(model, x) = LN_f(x) wte^T``: ``(dx, {wte, ln_f.0, ln_f.1})``."""
    return _logits_vjp(model, transformer._layer_norm_parts(x, model.ln_f), dlogits)


def _logits_vjp(model: transformer.Decoder, ln, dlogits) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """:func:`logits_vjp` from the forward pass's ``ln = transformer._layer_norm_parts(x, model.ln_f)``."""
    u, xhat, den = ln                                                   # [..., d]
    dx, dg, db = _layer_norm_vjp(xhat, den, model.ln_f[0], dlogits @ model.wte)
    return dx, {"wte": _flat(dlogits).T @ _flat(u), "ln_f.0": dg, "ln_f.1": db}


def embedding_vjp(tokens, dx, vocab: int) -> np.ndarray:
    """VJP of ``wte[tokens]``: rows of ``dx`` summed into a ``(vocab, d)`` array (deterministic order).

    The rows of each token are grouped by a stable sort and summed by one ``add.reduceat``: the result depends
    on the tokens and rows only, not on timing or threads."""
    ids, rows = np.ravel(tokens), _flat(dx)
    out = np.zeros((vocab, rows.shape[-1]), dtype=rows.dtype)
    if not len(ids):
        return out
    order = np.argsort(ids, kind="stable")                              # [N] rows grouped by token
    sorted_ids = ids[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_ids[1:] != sorted_ids[:-1])))
    out[sorted_ids[starts]] = np.add.reduceat(rows[order], starts, axis=0)   # [tokens present, d]
    return out


# ------------------------------------------------------------------------------ one head
def _positions(x) -> np.ndarray:
    return np.arange(x.shape[-2], dtype=float)                          # positions 0..n-1 (start = 0)


def rope_vjp(dy, base: float | None) -> np.ndarray:
    """VJP of RoPE at positions ``0..n-1`` (``psa.rotary.rope``): the inverse rotation (angles negated)."""
    return attention._rope(dy, -_positions(dy), base)


def two_tap_vjp(x, taps, dy) -> tuple[np.ndarray, np.ndarray | None]:
    """VJP of ``attention.two_tap(x, taps)`` (``b0 x_t + b1 x_{t-1}``, ``x_{-1} = x_0``): ``(dx, dtaps)``.

    ``x`` is only needed for ``dtaps``; pass None for fixed taps (``dtaps`` is then None).
    """
    b0, b1 = (float(t) for t in taps)                                   # Python floats: dy's type
    dx = b0 * dy
    if b1 != 0:                                                         # b1 = 0: the terms below add 0
        dx[..., :-1, :] += b1 * dy[..., 1:, :]                          # x_t feeds y_{t+1} through b1
        dx[..., 0, :] += b1 * dy[..., 0, :]                             # and x_0 is its own predecessor
    if x is None:
        return dx, None
    prev = np.concatenate([x[..., :1, :], x[..., :-1, :]], axis=-2)     # [..., n, d] x_{t-1}
    return dx, np.array([np.sum(dy * x), np.sum(dy * prev)], dtype=dy.dtype)


def _taps(spec, stream: str):
    if isinstance(spec, PSA):
        g = spec.g_q if stream == "q" else spec.g_k                    # validated at construction
        return 1.0 + g, -g                                              # the shear's taps (psa.shear.stream_taps)
    return spec.q_taps if stream == "q" else spec.k_taps


def stream_vjp(spec, x, dy, stream: str) -> tuple[np.ndarray, np.ndarray | None]:
    """VJP of one score-bearing stream of ``attention.streams`` (start = 0): ``(dx, dtaps or None)``.

    ``stream`` is ``"q"`` or ``"k"``. SDPA: RoPE. PSA and TwoTap: the two-tap filter
    (PSA: taps ``(1 + g, -g)``) after RoPE (``post-rope``) or before it (``pre-rope``).
    """
    if not isinstance(spec, (SDPA, PSA, TwoTap)):
        raise ParameterError(f"spec must be an SDPA, PSA or TwoTap head to be trained (got {type(spec).__name__})")
    return _stream_vjp(spec, x, dy, stream)


def _stream_vjp(spec, x, dy, stream: str) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`stream_vjp` of an SDPA, PSA or TwoTap head (the backward pass's kernel)."""
    if isinstance(spec, SDPA) or (isinstance(spec, PSA) and (spec.g_q if stream == "q" else spec.g_k) == 0):
        return rope_vjp(dy, spec.base), None                            # PSA at g = 0: RoPE alone (x + 0 p = x)
    taps, learn = _taps(spec, stream), isinstance(spec, TwoTap)       # PSA couplings are fixed
    if spec.base is None:
        dx, dtaps = two_tap_vjp(x if learn else None, taps, dy)
    elif spec.placement == "post-rope":
        dr, dtaps = two_tap_vjp(attention._rope(x, _positions(x), spec.base) if learn else None, taps, dy)
        dx = rope_vjp(dr, spec.base)
    else:
        dx, dtaps = two_tap_vjp(x if learn else None, taps, rope_vjp(dy, spec.base))
    return dx, dtaps


def scores_vjp(qs, ks, ds) -> tuple[np.ndarray, np.ndarray]:
    """VJP of ``attention.scores(qs, ks) = qs ks^T / sqrt(dk)``: ``(dqs, dks)``."""
    ds = ds * (1.0 / math.sqrt(qs.shape[-1]))                           # [..., n, m] the scale, once
    return ds @ ks, np.swapaxes(ds, -1, -2) @ qs


def weights_vjp(p, dp) -> np.ndarray:
    """VJP of ``attention.attention_weights`` (causal softmax) at weights ``p``: ``p (dp - <p, dp>)``."""
    ds = dp - np.sum(p * dp, axis=-1, keepdims=True)                    # masked keys have p = 0
    ds *= p
    return ds


def head_vjp(spec, rec: dict, dout) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """VJP of ``attention.head`` from its trace ``rec``: ``(dq, dk, dv, {q_taps, k_taps} for TwoTap)``."""
    if not isinstance(spec, (SDPA, PSA, TwoTap)):
        raise ParameterError(f"spec must be an SDPA, PSA or TwoTap head to be trained (got {type(spec).__name__})")
    return _head_vjp(spec, rec, dout)


def _head_vjp(spec, rec: dict, dout) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """:func:`head_vjp` of an SDPA, PSA or TwoTap head (the backward pass's kernel)."""
    p, vs = rec["p"], rec["vs"]
    dvs = np.swapaxes(p, -1, -2) @ dout                                 # [..., T, dk]
    ds = weights_vjp(p, dout @ np.swapaxes(vs, -1, -2))                 # [..., T, T]
    dqs, dks = scores_vjp(rec["qs"], rec["ks"], ds)
    dq, dq_taps = _stream_vjp(spec, rec["q"], dqs, "q")
    dk, dk_taps = _stream_vjp(spec, rec["k"], dks, "k")
    taps = {} if dq_taps is None else {"q_taps": dq_taps, "k_taps": dk_taps}
    return dq, dk, dvs, taps                                            # values are not filtered


# ------------------------------------------------------------------------------ the model
def hidden_vjp(model: transformer.Decoder, tokens, trace: list, dh) -> dict[str, np.ndarray]:
    """VJP of ``transformer.hidden_states`` (with its ``trace``) for an output gradient ``dh`` (..., T, d)."""
    _trainable_heads(model)
    return _hidden_vjp(model, tokens, trace, dh)


def _trainable_heads(model: transformer.Decoder) -> None:
    """Refuse a model with a head the backward pass does not cover (Graded, PLGA)."""
    for layer in model.layers:
        for spec in layer.heads:
            if not isinstance(spec, (SDPA, PSA, TwoTap)):
                raise ParameterError(f"spec must be an SDPA, PSA or TwoTap head to be trained (got "
                                     f"{type(spec).__name__})")


def _hidden_vjp(model: transformer.Decoder, tokens, trace: list, dh) -> dict[str, np.ndarray]:
    """:func:`hidden_vjp` of a model of SDPA, PSA and TwoTap heads (the backward pass's kernel)."""
    grads: dict[str, np.ndarray] = {}
    dx = dh
    for i in reversed(range(len(model.layers))):
        layer, rec, name = model.layers[i], trace[i], f"layers.{i}."
        if rec["u2"] is None:                                           # no MLP: out = mid + b_proj
            g = {"w_fc": np.zeros_like(layer.w_fc), "b_fc": np.zeros_like(layer.b_fc),
                 "w_proj": np.zeros_like(layer.w_proj), "b_proj": _flat(dx).sum(axis=0)}
            grads[name + "ln2.0"], grads[name + "ln2.1"] = np.zeros_like(layer.ln2[0]), np.zeros_like(layer.ln2[1])
            dmid = dx                                                   # [..., T, d]
        else:
            du2, g = mlp_vjp(layer, rec["u2"], dx)
            dmid, grads[name + "ln2.0"], grads[name + "ln2.1"] = _layer_norm_vjp(*rec["ln2"], layer.ln2[0], du2)
            dmid += dx                                                  # [..., T, d]
        grads.update({name + k: v for k, v in g.items()})
        grads[name + "w_o"] = _flat(rec["a"]).T @ _flat(dmid)
        da = dmid @ layer.w_o.T                                         # [..., T, H dk]
        H = len(layer.heads)
        dk = da.shape[-1] // H
        parts = []
        for h, (spec, hrec) in enumerate(zip(layer.heads, rec["heads"])):
            dq, dkey, dv, taps = _head_vjp(spec, hrec, da if H == 1 else da[..., h * dk:(h + 1) * dk])
            parts.append((dq, dkey, dv))
            grads.update({f"{name}heads.{h}.{k}": v for k, v in taps.items()})
        u1 = _flat(rec["u1"])
        du1 = None
        for w, d in zip(("w_q", "w_k", "w_v"), zip(*parts)):
            merged = d[0] if H == 1 else np.concatenate(d, axis=-1)     # [..., T, H dk]
            grads[name + w] = u1.T @ _flat(merged)
            if du1 is None:
                du1 = merged @ getattr(layer, w).T                      # [..., T, d]
            else:
                du1 += merged @ getattr(layer, w).T
        dx, grads[name + "ln1.0"], grads[name + "ln1.1"] = _layer_norm_vjp(*rec["ln1"], layer.ln1[0], du1)
        dx += dmid                                                      # [..., T, d]
    grads["wte"] = embedding_vjp(tokens, dx, len(model.wte))
    return grads


def loss_and_grad(model: transformer.Decoder, tokens, answers) -> tuple[float, dict[str, np.ndarray], np.ndarray]:
    """Cross-entropy of the **last position's** prediction and its gradient for every parameter.

    Parameters
    ----------
    model : the decoder (SDPA, PSA or TwoTap heads).
    tokens : ``(batch, T)`` integer ids in ``[0, vocab)``.
    answers : ``(batch,)`` the token each sequence's last position must predict, in ``[0, vocab)``.

    Returns
    -------
    ``(loss, grads, logits)``: the mean loss, a gradient per name of :func:`parameters`,
    and the last position's logits ``(batch, V)``.

    Examples
    --------
    The query-position loss of the trained models (PSA §7.4); one gradient entry against a central
    difference of the loss:

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("key-only", 1.0), seed=0)
    >>> tokens, answers = np.array([[1, 2, 3, 4], [5, 6, 7, 1]]), np.array([2, 6])
    >>> loss, grads, logits = nn.loss_and_grad(model, tokens, answers)
    >>> round(loss, 4), logits.shape, set(grads) == set(nn.parameters(model))
    (6.2458, (2, 8), True)
    >>> def loss_at(step):
    ...     w = model.layers[0].w_k.copy()
    ...     w[0, 1] += step
    ...     return nn.loss_and_grad(nn.with_parameters(model, {"layers.0.w_k": w}), tokens, answers)[0]
    >>> difference = (loss_at(1e-6) - loss_at(-1e-6)) / 2e-6
    >>> bool(abs(difference - grads["layers.0.w_k"][0, 1]) < 1e-6)
    True
    """
    tokens = transformer.token_ids(model, tokens, batched=True)
    if tokens.ndim != 2:
        raise ParameterError(f"tokens must be a (batch, T) array of token ids (got shape {tokens.shape})")
    answers = integer_array("answers", answers, high=len(model.wte) - 1)
    if answers.shape != tokens.shape[:1]:
        raise ParameterError(f"answers must hold one token id per sequence, shape ({len(tokens)},) "
                             f"(got {answers.shape})")
    _trainable_heads(model)
    with np.errstate(over="ignore", invalid="ignore"):
        loss, grads, logits = _loss_and_grad(model, tokens, answers)
    if not (math.isfinite(loss) and all(np.all(np.isfinite(g)) for g in grads.values())):
        raise ParameterError("model, tokens out of range: the loss or a gradient overflows the float range")
    return loss, grads, logits


def _loss_and_grad(model: transformer.Decoder, tokens: np.ndarray,
                   answers: np.ndarray) -> tuple[float, dict[str, np.ndarray], np.ndarray]:
    """:func:`loss_and_grad` of validated ``(batch, T)`` token ids and answers, unchecked for overflow
    (the training loop's kernel: it checks the loss and the gradient norm of each step)."""
    trace: list = []
    h = transformer._hidden_states(model, tokens, trace)                # [B, T, d]
    last = h[..., -1, :]                                                # [B, d]
    ln = transformer._layer_norm_parts(last, model.ln_f)                # LN_f(last), xhat, den
    logits = ln[0] @ model.wte.T                                        # [B, V]  transformer._logits
    loss, dlogits = _cross_entropy(logits, answers)
    dlast, grads = _logits_vjp(model, ln, dlogits)
    dh = np.zeros_like(h)
    dh[..., -1, :] = dlast
    body = _hidden_vjp(model, tokens, trace, dh)
    grads["wte"] = grads["wte"] + body.pop("wte")                       # tied embedding: both ends
    grads.update(body)
    return loss, grads, logits


def sequence_loss_and_grad(model: transformer.Decoder, tokens,
                           targets) -> tuple[float, dict[str, np.ndarray], np.ndarray]:
    """Mean cross-entropy of **every position's** prediction and its gradient for every parameter.

    Parameters
    ----------
    model : transformer.Decoder
        The decoder (SDPA, PSA or TwoTap heads).
    tokens : array_like of int
        ``(batch, T)`` token ids in ``[0, vocab)``.
    targets : array_like of int
        ``(batch, T)``: the token position t of each sequence must predict (next-token training:
        ``tokens[:, t + 1]`` for t < T - 1, the answer at the last position), in ``[0, vocab)``.

    Returns
    -------
    (float, dict, numpy.ndarray)
        The loss averaged over all ``batch x T`` positions, a gradient per name of :func:`parameters`,
        and the logits ``(batch, T, V)``.

    Raises
    ------
    ParameterError
        On token ids or targets out of range or of the wrong shape, or a loss or gradient beyond the
        float range.

    Examples
    --------
    Next-token targets, the answer at the last position (``loss="sequence"`` of the trained
    models, PSA §7.4):

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=nn.PSA.member("key-only", 1.0), seed=0)
    >>> tokens, answers = np.array([[1, 2, 3, 4], [5, 6, 7, 1]]), np.array([2, 6])
    >>> targets = np.concatenate([tokens[:, 1:], answers[:, None]], axis=1)
    >>> loss, grads, logits = nn.sequence_loss_and_grad(model, tokens, targets)
    >>> round(loss, 4), logits.shape, grads["wte"].shape
    (4.9137, (2, 4, 8), (8, 8))
    """
    tokens = transformer.token_ids(model, tokens, batched=True)
    if tokens.ndim != 2:
        raise ParameterError(f"tokens must be a (batch, T) array of token ids (got shape {tokens.shape})")
    targets = integer_array("targets", targets, high=len(model.wte) - 1)
    if targets.shape != tokens.shape:
        raise ParameterError(f"targets must hold one token id per position, shape {tokens.shape} "
                             f"(got {targets.shape})")
    with np.errstate(over="ignore", invalid="ignore"):
        loss, grads, logits = _sequence_loss_and_grad(model, tokens, targets)
    if not (math.isfinite(loss) and all(np.all(np.isfinite(g)) for g in grads.values())):
        raise ParameterError("model, tokens out of range: the loss or a gradient overflows the float range")
    return loss, grads, logits


def _sequence_loss_and_grad(model: transformer.Decoder, tokens: np.ndarray,
                            targets: np.ndarray) -> tuple[float, dict[str, np.ndarray], np.ndarray]:
    """:func:`sequence_loss_and_grad` of validated ``(batch, T)`` token ids and targets (the training loop's
    kernel for ``loss="sequence"``), unchecked for overflow."""
    trace: list = []
    h = transformer._hidden_states(model, tokens, trace)                # [B, T, d]
    logits = transformer._logits(model, h)                              # [B, T, V]
    loss, dflat = _cross_entropy(_flat(logits), np.ravel(targets))      # mean over B T positions
    dh, grads = logits_vjp(model, h, dflat.reshape(logits.shape))
    body = hidden_vjp(model, tokens, trace, dh)
    grads["wte"] = grads["wte"] + body.pop("wte")                       # tied embedding: both ends
    grads.update(body)
    return loss, grads, logits


__all__ = ["cross_entropy", "layer_norm_vjp", "gelu_vjp", "mlp_vjp", "logits_vjp",
           "embedding_vjp", "rope_vjp", "two_tap_vjp", "stream_vjp", "scores_vjp", "weights_vjp", "head_vjp",
           "hidden_vjp", "loss_and_grad", "sequence_loss_and_grad"]

__getattr__ = _moved.moved_names(__name__, dict.fromkeys(("LAYER_WEIGHTS", "parameters", "with_parameters"),
                                                         "theorylab.nn.params"))
"""The parameter naming moved to :mod:`theorylab.nn.params`; its old path works for one release."""

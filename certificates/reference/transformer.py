"""Reference attention heads and decoder, picoGPT-sized, written from the papers' equations.

Independent of ``theorylab`` (NumPy only, plus :mod:`theorylab.certificates.reference.plga`). Float64 at tiny
sizes; loops where they make the definition plain.

Conventions (stated once; docs/transformer.md documents the library's, and the mapping is given)
------------------------------------------------------------------------------------------------
* RoPE (RoFormer eq. 34; PSA, PLGA Def. 4.3): ``theta_i = base^(-2i/d)``, i = 0..d/2-1; the
  rotation pairs are the *interleaved* coordinates ``(x_{2i}, x_{2i+1})``, read as the complex
  number ``x_{2i} + i x_{2i+1}`` and multiplied by ``e^{i t theta_i}`` at position t = 0, 1, ...
  The library uses the same layout and positions (mapping: identity).
* PSA (PSA §4, Alg. 1): momentum ``p_t = x_t - x_{t-1}``, ``p_0 = 0``, of the post-RoPE stream;
  sheared streams ``q' = q + g_q p_q``, ``k' = k + g_k p_k``; values unsheared. The pre-RoPE
  placement (PSA §5.3) shears the raw stream and then rotates it.
* EG-MHSA (GLLM §3.1, Eq. 10-12, §8.1.1): ``Q' = Q M``, ``K' = K M``, ``V' = V M`` with
  ``M = diag(min(lambda^q_j, C))`` (the clip ``lambda^q_max <= C``), applied to the projections
  before RoPE (the library's documented placement; the paper's Eq. 12 has no RoPE).
* PLGA (PLGA eqs. 3.2-3.9, 4.16): scores ``q~ G_LM k~^T / sqrt(dk)`` with ``G_LM`` from the Gram of
  the rotated queries of the whole call (global) or of rows <= t (cumulative);
  :mod:`theorylab.certificates.reference.plga` computes ``G_LM``. ``frozen_prompt = n`` freezes ``G_LM`` at
  the Gram of the first n rows (the G-cache semantics of PLGA §4.4).
* Causal softmax: row i attends to keys 0..i.
* Decoder (picoGPT / GPT-2 layout; the library's docs/transformer.md): ``x = wte[tokens]``;
  per block ``x += concat_h(head_h(LN1(x) W_Q, LN1(x) W_K, LN1(x) W_V)) W_O`` and
  ``x += GELU(LN2(x) W_fc + b_fc) W_proj + b_proj`` (GELU in its tanh form); logits
  ``LN_f(x) wte^T``. LayerNorm: population variance, eps = 1e-5, affine (g, b). Head h uses
  columns ``h dk .. (h+1) dk - 1`` of each projection.
"""
from __future__ import annotations

from functools import partial

import numpy as np

from theorylab.certificates.reference import plga as ref_plga

LN_EPS = 1e-5


# ------------------------------------------------------------------------------ RoPE, momentum, softmax
def rope_frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    """``theta_i = base^(-2i/d)``, i = 0..d/2-1."""
    return np.array([base ** (-2.0 * i / d) for i in range(d // 2)])


def rope(x, base: float | None = 10000.0, freqs=None) -> np.ndarray:
    """Rotate row t of ``x`` (T, d) by ``e^{i t theta_i}`` on the complex pairs ``x_{2i} + i x_{2i+1}``;
    ``theta = freqs`` when given, else :func:`rope_frequencies` of ``base`` (None: no rotation)."""
    x = np.asarray(x, dtype=float)
    if base is None and freqs is None:
        return x
    theta = rope_frequencies(x.shape[1], base) if freqs is None else np.asarray(freqs, dtype=float)
    t = np.arange(len(x))
    z = (x[:, 0::2] + 1j * x[:, 1::2]) * np.exp(1j * np.outer(t, theta))
    out = np.empty_like(x)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def momentum(x) -> np.ndarray:
    """``p_t = x_t - x_{t-1}`` for t >= 1 and ``p_0 = 0``."""
    p = np.zeros_like(x)
    p[1:] = x[1:] - x[:-1]
    return p


def softmax(z) -> np.ndarray:
    """``exp(z_i) / sum_j exp(z_j)``, computed after subtracting max z."""
    w = np.exp(np.asarray(z, dtype=float) - np.max(z))
    return w / w.sum()


def causal_attention(qs, ks, vs, G=None) -> np.ndarray:
    """Row i: ``softmax_j<=i(qs_i G_i ks_j / sqrt(dk)) . vs_j``; ``G`` None, (dk, dk) or per row (T, dk, dk)."""
    T, dk = qs.shape
    out = np.empty((T, vs.shape[1]))
    for i in range(T):
        Gi = np.eye(dk) if G is None else (G if G.ndim == 2 else G[i])
        e = np.array([qs[i] @ Gi @ ks[j] for j in range(i + 1)]) / np.sqrt(dk)
        out[i] = softmax(e) @ vs[:i + 1]
    return out


# ------------------------------------------------------------------------------ heads: (q, k, v) raw -> (T, dk)
def sdpa_head(q, k, v, base: float | None = 10000.0) -> np.ndarray:
    """Scaled dot-product attention with RoPE."""
    return causal_attention(rope(q, base), rope(k, base), v)


def psa_stream(x, g: float, placement: str = "post-rope", base: float | None = 10000.0, freqs=None) -> np.ndarray:
    """Sheared stream ``r + g p(r)`` with ``r = R x`` (post-RoPE) or ``R (x + g p(x))`` (pre-RoPE)."""
    if placement == "post-rope":
        r = rope(x, base, freqs)
        return r + g * momentum(r)
    return rope(x + g * momentum(x), base, freqs)


def psa_head(q, k, v, g_q: float, g_k: float, placement: str = "post-rope", base: float | None = 10000.0):
    """Phase Space Attention: sheared query and key streams, unsheared values (PSA §4, §4.7)."""
    return causal_attention(psa_stream(q, g_q, placement, base), psa_stream(k, g_k, placement, base), v)


def two_tap_stream(x, taps, placement: str = "post-rope", base: float | None = 10000.0) -> np.ndarray:
    """Causal two-tap filter ``b0 y_t + b1 y_{t-1}`` (``y_{-1} = y_0``) of ``y = R x`` (post-RoPE), or ``R``
    applied to the filtered raw stream (pre-RoPE) (PSA §4.2, §7.5; the shear is ``(1 + g, -g)``)."""
    def filtered(y):
        return taps[0] * y + taps[1] * np.vstack([y[:1], y[:-1]])
    return filtered(rope(x, base)) if placement == "post-rope" else rope(filtered(np.asarray(x, float)), base)


def two_tap_head(q, k, v, q_taps, k_taps, placement: str = "post-rope", base: float | None = 10000.0):
    """Free two-tap filters on the query and key streams, unfiltered values (PSA §7.5)."""
    return causal_attention(two_tap_stream(q, q_taps, placement, base), two_tap_stream(k, k_taps, placement, base), v)


def grading_diag(grades, lam: float, clip: float | None = None) -> np.ndarray:
    """Diagonal of ``M = diag(min(lambda^q, C))`` (GLLM Eq. 10 with the clip of §8.1.1)."""
    m = float(lam) ** np.asarray(grades, dtype=float)
    return m if clip is None else np.minimum(m, clip)


def graded_head(q, k, v, grades, lam: float, clip: float | None = None, base: float | None = 10000.0):
    """EG-MHSA head: ``softmax(R(QM) (R(KM))^T / sqrt(dk)) V M`` (GLLM Eq. 11-12)."""
    m = grading_diag(grades, lam, clip)
    return causal_attention(rope(q * m, base), rope(k * m, base), v * m)


def plga_head(q, k, v, psi: ref_plga.Psi, gram: str = "global", base: float | None = 10000.0,
              frozen_prompt: int | None = None) -> np.ndarray:
    """PLGA head (eqs. 3.2-3.9): ``G_LM`` global, cumulative (eq. 4.16) or frozen at the prompt (§4.4)."""
    qs, ks = rope(q, base), rope(k, base)
    if frozen_prompt is not None:
        G = ref_plga.g_lm(qs[:frozen_prompt], psi)
    elif gram == "cumulative":
        G = ref_plga.g_lm_cumulative(qs, psi)
    else:
        G = ref_plga.g_lm(qs, psi)
    return causal_attention(qs, ks, v, G)


HEADS = {"sdpa": sdpa_head, "psa": psa_head, "two_tap": two_tap_head, "graded": graded_head, "plga": plga_head}


def head(kind: str, **params):
    """A head function ``(q, k, v) -> out`` of one kind (a key of :data:`HEADS`) with its parameters."""
    return partial(HEADS[kind], **params)


# ------------------------------------------------------------------------------ decoder (picoGPT layout)
def layer_norm(x, g, b, eps: float = LN_EPS) -> np.ndarray:
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return g * (x - mean) / np.sqrt(var + eps) + b


def layer_norm_vjp_mp(x, g, dy, eps: float = LN_EPS, dps: int = 60) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(dx, dg, db)`` of ``<dy, layer_norm(x, g, b)>`` over the rows of ``x`` (n, d), in mpmath at ``dps`` digits
    (no float range: rows of any size), each entry of ``dx`` by a central difference of step ``10^-20`` times the
    row's largest entry (error ~10^-40 relative); ``dg = sum_rows dy xhat``, ``db = sum_rows dy``. Floats back."""
    import mpmath

    with mpmath.workdps(dps):
        def ln_dot(row, dyr):                                # <dy, (row - mean) / sqrt(var + eps) * g>
            mu = mpmath.fsum(row) / len(row)
            s = mpmath.sqrt(mpmath.fsum((r - mu) ** 2 for r in row) / len(row) + mpmath.mpf(eps))
            return mpmath.fsum(a * gj * (r - mu) / s for a, gj, r in zip(dyr, g, row)), [(r - mu) / s for r in row]
        x, dy, g = np.asarray(x, float), np.asarray(dy, float), [mpmath.mpf(float(v)) for v in g]
        dx, dg = np.empty_like(x), [mpmath.mpf(0)] * x.shape[1]
        for i, (xr, dyr) in enumerate(zip(x, dy)):
            row, dyr = [mpmath.mpf(float(v)) for v in xr], [mpmath.mpf(float(v)) for v in dyr]
            h = mpmath.mpf(10) ** -20 * max(abs(r) for r in row)
            for j in range(len(row)):
                up, down = list(row), list(row)
                up[j], down[j] = row[j] + h, row[j] - h
                dx[i, j] = float((ln_dot(up, dyr)[0] - ln_dot(down, dyr)[0]) / (2 * h))
            dg = [a + b * xh for a, b, xh in zip(dg, dyr, ln_dot(row, dyr)[1])]
        return dx, np.array([float(v) for v in dg]), dy.sum(axis=0)


def gelu(x) -> np.ndarray:
    """GPT-2's GELU: ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``."""
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def block(x, blk: dict) -> np.ndarray:
    """One pre-LayerNorm block; ``blk`` holds the weights and ``heads``, a list of head functions."""
    h = layer_norm(x, *blk["ln_1"])
    q, k, v = h @ blk["w_q"], h @ blk["w_k"], h @ blk["w_v"]
    dk = q.shape[1] // len(blk["heads"])
    cols = [slice(i * dk, (i + 1) * dk) for i in range(len(blk["heads"]))]
    x = x + np.hstack([f(q[:, c], k[:, c], v[:, c]) for f, c in zip(blk["heads"], cols)]) @ blk["w_o"]
    h = layer_norm(x, *blk["ln_2"])
    return x + gelu(h @ blk["w_fc"] + blk["b_fc"]) @ blk["w_proj"] + blk["b_proj"]


def forward(model: dict, tokens) -> np.ndarray:
    """Logits (T, V) of every position: ``model`` has ``wte`` (V, d), ``blocks`` and ``ln_f`` (g, b)."""
    x = model["wte"][np.asarray(tokens)]
    for blk in model["blocks"]:
        x = block(x, blk)
    return layer_norm(x, *model["ln_f"]) @ model["wte"].T


def prefix_logits(model: dict, tokens) -> np.ndarray:
    """Row r = last row of ``forward(tokens[:r+1])``: each position computed from its own prefix only."""
    tokens = np.asarray(tokens)
    return np.stack([forward(model, tokens[:r + 1])[-1] for r in range(len(tokens))])


def last_token_loss(model: dict, tokens, answers) -> float:
    """Mean over sequences b of ``-log softmax(forward(tokens_b)[-1])[answers_b]`` (next-token cross-entropy of
    the last position; ``tokens`` (B, T))."""
    losses = []
    for row, answer in zip(np.asarray(tokens), np.asarray(answers)):
        z = forward(model, row)[-1]
        losses.append(z.max() + np.log(np.sum(np.exp(z - z.max()))) - z[answer])
    return float(np.mean(losses))

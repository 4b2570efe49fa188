"""Reference AdamW, global-norm clipping, warm-up/cosine schedule and Wilson interval, from their equations.

Independent of ``theorylab`` (NumPy and the standard library only). One parameter at a time, loops
where they make the definition plain.

Conventions (the library's, docs/transformer.md and ``theorylab.nn.optim``)
----------------------------------------------------------------------------
* AdamW (Loshchilov & Hutter 2019, Alg. 2) at step t = 1, 2, ...: ``m_t = b1 m_{t-1} + (1 - b1) g``,
  ``v_t = b2 v_{t-1} + (1 - b2) g^2``, ``mhat = m_t / (1 - b1^t)``, ``vhat = v_t / (1 - b2^t)``,
  ``w_t = w_{t-1} - lr_t (mhat / (sqrt(vhat) + eps) + wd w_{t-1})``: the decay is decoupled and scaled
  by the scheduled learning rate (torch.optim.AdamW's reading of the paper's ``eta_t lambda``); it acts
  only on the parameters named as decayed.
* Clipping: all gradients scaled by ``min(1, c / ||g||)``, ``||g||`` the L2 norm of their concatenation.
* Schedule at step s = 0, 1, ...: ``peak (s + 1) / W`` for ``s < W`` (linear warm-up), then
  ``peak (0.1 + 0.9 (1 + cos(pi f)) / 2)`` with ``f = min(1, (s - W) / max(1, S - W))``: cosine decay
  from ``peak`` to ``peak / 10`` at step S.
* Wilson score interval (Wilson 1927): the ``p`` with ``(p_hat - p)^2 = z^2 p (1 - p) / n``, i.e. the
  roots of ``(1 + z^2/n) p^2 - (2 p_hat + z^2/n) p + p_hat^2 = 0``.
"""
from __future__ import annotations

import math

import numpy as np


def adamw(params: dict, grads_per_step: list[dict], lrs: list[float], b1: float, b2: float, eps: float,
          wd: float, decayed: set) -> dict:
    """The parameters after one AdamW step per entry of ``grads_per_step`` (learning rate ``lrs[t-1]``)."""
    return adamw_run(params, lambda w, t: grads_per_step[t], lrs, b1, b2, eps, wd, decayed)


def adamw_run(params: dict, gradient, lrs: list[float], b1: float, b2: float, eps: float, wd: float,
              decayed: set, max_norm: float | None = None) -> dict:
    """AdamW driven by ``gradient(w, t) -> {name: g}`` at step ``t = 0, 1, ...`` (the parameters ``w`` before
    the step), one step per entry of ``lrs``; with ``max_norm`` the gradients are clipped first (:func:`clip`)."""
    w = {k: np.array(p, dtype=float) for k, p in params.items()}
    m = {k: np.zeros_like(p) for k, p in w.items()}
    v = {k: np.zeros_like(p) for k, p in w.items()}
    for t, lr in enumerate(lrs, start=1):
        grads = gradient(dict(w), t - 1)
        if max_norm is not None:
            grads = clip(grads, max_norm)[0]
        for k, g in grads.items():
            m[k] = b1 * m[k] + (1 - b1) * g
            v[k] = b2 * v[k] + (1 - b2) * g ** 2
            mhat, vhat = m[k] / (1 - b1 ** t), v[k] / (1 - b2 ** t)
            w[k] = w[k] - lr * (mhat / (np.sqrt(vhat) + eps) + (wd * w[k] if k in decayed else 0.0))
    return w


def clip(grads: dict, max_norm: float) -> tuple[dict, float]:
    """Gradients scaled by ``min(1, max_norm / ||g||)`` and the norm ``||g||`` of their concatenation."""
    norm = float(np.linalg.norm(np.concatenate([np.ravel(g) for g in grads.values()])))
    scale = min(1.0, max_norm / norm)
    return {k: g * scale for k, g in grads.items()}, norm


def schedule(step: int, steps: int, peak: float, warmup: int) -> float:
    """Linear warm-up to ``peak`` over ``warmup`` steps, then cosine to ``peak / 10`` at ``steps``."""
    if step < warmup:
        return peak * (step + 1) / warmup
    f = min(1.0, (step - warmup) / max(1, steps - warmup))
    return peak * (0.1 + 0.9 * (1 + math.cos(math.pi * f)) / 2)


def wilson(hits: float, n: int, z: float) -> tuple[float, float]:
    """Both roots of ``(1 + z^2/n) p^2 - (2 p_hat + z^2/n) p + p_hat^2 = 0``, ``p_hat = hits / n``."""
    p_hat, a = hits / n, z * z / n
    lo, hi = sorted(np.roots([1 + a, -(2 * p_hat + a), p_hat * p_hat]).real)
    return float(lo), float(hi)

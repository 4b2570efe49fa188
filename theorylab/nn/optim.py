"""AdamW (Loshchilov & Hutter 2019) on dictionaries of NumPy arrays, and the learning-rate schedule.

The update of one parameter ``w`` with gradient ``g`` at step ``t = 1, 2, ...``::

    m = b1 m + (1 - b1) g,   v = b2 v + (1 - b2) g^2
    w = w - lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps) - lr wd w

The weight decay is decoupled (applied to ``w`` directly, scaled by the learning rate) and
acts only on the parameters named in ``decay``. The public functions are pure: every step returns
new arrays and a new state; the training loop's kernel ``_adamw_update`` updates its own arrays in place.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from theorylab.errors import finite_output, positive_int, real_scalar


@dataclass(frozen=True)
class AdamW:
    """Hyper-parameters: learning rate ``lr``, moment decays ``b1``, ``b2``, ``eps``, decoupled ``weight_decay``."""

    lr: float = 3e-3
    b1: float = 0.9
    b2: float = 0.999
    eps: float = 1e-8
    weight_decay: float = 0.01

    def __post_init__(self):
        real_scalar("lr", self.lr, low=0, low_inclusive=False)
        real_scalar("b1", self.b1, low=0, high=1, high_inclusive=False)
        real_scalar("b2", self.b2, low=0, high=1, high_inclusive=False)
        real_scalar("eps", self.eps, low=0, low_inclusive=False)
        real_scalar("weight_decay", self.weight_decay, low=0)


@dataclass(frozen=True, eq=False)
class AdamState:
    """Step count ``t`` and first/second moments per parameter name."""

    t: int
    m: dict[str, np.ndarray]
    v: dict[str, np.ndarray]


def init_state(params: dict[str, np.ndarray]) -> AdamState:
    """Zero moments for every parameter.

    Examples
    --------
    The optimiser state at step 0 of a training run (PSA §7.4):

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> state = nn.init_state({"w": np.array([1.0, -2.0])})
    >>> state.t, state.m["w"].tolist(), state.v["w"].tolist()
    (0, [0.0, 0.0], [0.0, 0.0])
    """
    zeros = {k: np.zeros_like(p) for k, p in params.items()}
    return AdamState(0, zeros, {k: z.copy() for k, z in zeros.items()})


def clip_by_norm(grads: dict[str, np.ndarray], max_norm: float | None) -> tuple[dict[str, np.ndarray], float]:
    """Scale all gradients together so that their global L2 norm is at most ``max_norm > 0`` (None: no clipping);
    return the norm before.

    Examples
    --------
    Clipping at norm 1, as the trained models of PSA §7.4 do:

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> grads, norm = nn.clip_by_norm({"a": np.array([3.0]), "b": np.array([4.0])}, 1.0)
    >>> norm, np.round(grads["a"], 4), np.round(grads["b"], 4)
    (5.0, array([0.6]), array([0.8]))
    >>> nn.clip_by_norm({"a": np.array([0.3])}, 1.0)[0]["a"].tolist()     # within the bound: unchanged
    [0.3]
    """
    if max_norm is not None:
        max_norm = real_scalar("max_norm", max_norm, low=0, low_inclusive=False)
    return _clip_by_norm(grads, max_norm)


def _clip_by_norm(grads: dict[str, np.ndarray], max_norm: float | None) -> tuple[dict[str, np.ndarray], float]:
    norm = math.sqrt(sum(float(np.sum(g * g)) for g in grads.values()))
    if max_norm is None or norm <= max_norm:
        return grads, norm
    scale = max_norm / norm
    return {k: g * scale for k, g in grads.items()}, norm


@finite_output("lr")
def adamw_step(params: dict[str, np.ndarray], grads: dict[str, np.ndarray], state: AdamState, opt: AdamW,
               lr: float | None = None, decay: frozenset[str] | set[str] = frozenset()
               ) -> tuple[dict[str, np.ndarray], AdamState]:
    """One AdamW step on the parameters that have a gradient; returns new parameters and state.

    ``lr >= 0`` overrides ``opt.lr`` (for a schedule); ``decay`` names the parameters with weight decay.

    Examples
    --------
    The first step moves each coordinate by ``lr`` against its gradient's sign (``m / sqrt(v) = sign g``
    after bias correction); weight decay then pulls ``w`` towards 0 (the optimiser of PSA §7.4):

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> params, grads = {"w": np.array([1.0, -2.0])}, {"w": np.array([0.5, -0.1])}
    >>> new, state = nn.adamw_step(params, grads, nn.init_state(params), nn.AdamW(lr=0.1, weight_decay=0.0))
    >>> np.round(new["w"], 4), state.t
    (array([ 0.9, -1.9]), 1)
    >>> new, _ = nn.adamw_step(params, grads, nn.init_state(params), nn.AdamW(lr=0.1), decay={"w"})
    >>> np.round(new["w"], 4)
    array([ 0.899, -1.898])
    """
    return _adamw_step(params, grads, state, opt, opt.lr if lr is None else real_scalar("lr", lr, low=0), decay)


def _adamw_step(params: dict[str, np.ndarray], grads: dict[str, np.ndarray], state: AdamState, opt: AdamW,
                lr: float, decay) -> tuple[dict[str, np.ndarray], AdamState]:
    """:func:`adamw_step` with a validated ``lr``, unchecked for overflow (the training loop's kernel)."""
    t = state.t + 1
    c1, c2 = 1.0 - opt.b1 ** t, 1.0 - opt.b2 ** t
    new, m, v = dict(params), dict(state.m), dict(state.v)
    for k, g in grads.items():
        m[k] = opt.b1 * state.m[k] + (1.0 - opt.b1) * g
        v[k] = opt.b2 * state.v[k] + (1.0 - opt.b2) * (g * g)
        w = params[k] * (1.0 - lr * opt.weight_decay) if k in decay else params[k]
        new[k] = w - lr * (m[k] / c1) / (np.sqrt(v[k] / c2) + opt.eps)
    return new, AdamState(t, m, v)


def _adamw_update(params: dict[str, np.ndarray], grads: dict[str, np.ndarray], state: AdamState, opt: AdamW,
                  lr: float, decay) -> AdamState:
    """:func:`_adamw_step` **in place**: the arrays of ``params`` and of the state's moments are updated (the
    training loop's kernel; the same operations in the same order, so the same numbers as the pure step).
    Returns the state with the new step count (and the same moment dictionaries)."""
    t = state.t + 1
    c1, c2 = 1.0 - opt.b1 ** t, 1.0 - opt.b2 ** t
    for k, g in grads.items():
        m, v, w = state.m[k], state.v[k], params[k]
        m *= opt.b1
        m += (1.0 - opt.b1) * g                                         # b1 m + (1 - b1) g
        v *= opt.b2
        v += (1.0 - opt.b2) * (g * g)                                   # b2 v + (1 - b2) g^2
        if k in decay:
            w *= 1.0 - lr * opt.weight_decay
        step = m / c1
        step *= lr
        den = v / c2
        np.sqrt(den, out=den)
        den += opt.eps
        step /= den                                                     # lr (m / c1) / (sqrt(v / c2) + eps)
        w -= step
    return AdamState(t, state.m, state.v)


def learning_rate(step: int, steps: int, peak: float, warmup: int) -> float:
    """Linear warm-up over ``warmup`` steps to ``peak > 0``, then cosine decay to ``peak / 10`` at ``steps``.

    Examples
    --------
    The schedule of the trained models (PSA §7.4: peak 5e-3, 100 warm-up steps):

    >>> import theorylab.nn as nn
    >>> [round(nn.learning_rate(step, 1000, 5e-3, 100), 6) for step in (0, 99, 550, 999)]
    [5e-05, 0.005, 0.00275, 0.0005]
    """
    step, steps, warmup = positive_int("step", step, low=0), positive_int("steps", steps), positive_int(
        "warmup", warmup, low=0)
    peak = real_scalar("peak", peak, low=0, low_inclusive=False)
    return _learning_rate(step, steps, peak, warmup)


def _learning_rate(step: int, steps: int, peak: float, warmup: int) -> float:
    if step < warmup:
        return peak * (step + 1) / warmup
    frac = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.45 * (1.0 + math.cos(math.pi * min(1.0, frac))))


__all__ = ["AdamW", "AdamState", "init_state", "clip_by_norm", "adamw_step", "learning_rate"]

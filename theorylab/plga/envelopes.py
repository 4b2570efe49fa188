"""Derivative envelopes of the PLGA activations and the greedy-margin criterion (PLGA §5.3-5.4; claim A20).

The constant ``C_G`` of Prop. 5.12 and the authors' end-to-end chain (their audit, section F)
need the sup of ``|f'|`` on the sampled preactivation interval ``[-U, U]``; a grid maximum is
a *lower* estimate of that sup, so the audit uses closed-form envelopes that dominate it::

    iSwiGLU'(u) = 2 u sigma(u) + u^2 sigma'(u)   ->   |iSwiGLU'| <= 2 U sigma(U) + U^2 / 4
    SiLU'(u)    = sigma(u) + u sigma'(u)          ->   |SiLU'|    <= sigma(U) + U / 4

(``sigma' = sigma (1 - sigma) <= 1/4``; ``|2 u sigma(u)| <= 2 U sigma(U)`` on ``[-U, U]``). Both are
tight as U -> 0 (their ratio to the true sup tends to 1). ``SiLU'`` has the global sup
``1.0998...`` at ``u* = 2.3994...``, the positive root of ``u tanh(u/2) = 2`` (where
``SiLU'' = sigma'(u) (2 - u tanh(u/2))`` vanishes); ``SiLU'(-u) = 1 - SiLU'(u)``, so its infimum is
``1 - 1.0998... = -0.0998...``.

A greedy decoder keeps its argmax under any logit perturbation of l_inf size ``B`` iff
``2 B < margin`` (top-1 minus top-2 logit): the winner can drop by B while the runner-up rises
by B; ``B < margin`` is not sufficient (logits (1, 0), B = 0.6 give (0.4, 0.6)).
"""
from __future__ import annotations

import numpy as np

from theorylab._results import scalar_output
from theorylab.errors import ParameterError, finite_result, real_array
from theorylab.plga.chain import _sigmoid


@scalar_output
def silu_prime(u) -> np.ndarray:
    """``SiLU'(u) = sigma(u) (1 + u (1 - sigma(u)))``.

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> plga.silu_prime([0.0, 2.3994, -4.0]).round(4)           # sup 1.0998 at u* = 2.3994 (PLGA eq. 3.1)
    array([ 0.5   ,  1.0998, -0.0527])
    """
    u = real_array("u", u)
    s = _sigmoid(u)
    return s * (1 + u * (1 - s))


@scalar_output
def iswiglu_prime(u) -> np.ndarray:
    """``iSwiGLU'(u) = 2 u sigma(u) + u^2 sigma(u) (1 - sigma(u))`` (iSwiGLU(u) = u^2 sigma(u), PLGA eq. 3.1),
    evaluated as ``u sigma(u) (2 + u (1 - sigma(u)))`` (no ``inf * 0`` for u << 0); ``u <= 1e307``.

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> plga.iswiglu_prime([0.0, 1.0, -1.0]).round(4)            # derivative of u^2 sigmoid(u) (PLGA eq. 3.1)
    array([ 0.    ,  1.6587, -0.3413])
    """
    u = real_array("u", u, high=1e307)
    s = _sigmoid(u)
    return u * s * (2 + u * (1 - s))


def _radius(U, high: float | None = None) -> np.ndarray:
    return real_array("U", U, low=0, high=high)


@scalar_output
def silu_prime_envelope(U) -> np.ndarray:
    """``sigma(U) + U/4 >= sup_{|u| <= U} |SiLU'(u)|`` (the authors' ``silu_dprime_env``).

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> plga.silu_prime_envelope([1.0, 4.0]).round(4)            # >= sup |SiLU'| on [-U, U] (PLGA eq. 3.1)
    array([0.9811, 1.982 ])
    """
    U = _radius(U)
    return _sigmoid(U) + U / 4


@scalar_output
def iswiglu_prime_envelope(U) -> np.ndarray:
    """``2 U sigma(U) + U^2/4 >= sup_{|u| <= U} |iSwiGLU'(u)|`` (the authors' ``iswiglu_dprime_env``); ``U <= 1e154``
    (beyond, ``U^2`` leaves the float range).

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> plga.iswiglu_prime_envelope([1.0, 4.0]).round(4)         # >= sup |iSwiGLU'| on [-U, U] (PLGA eq. 3.1)
    array([ 1.7121, 11.8561])
    """
    U = _radius(U, high=1e154)
    return 2 * U * _sigmoid(U) + U * U / 4


def silu_prime_sup() -> tuple[float, float]:
    """``(u*, SiLU'(u*))``: the global maximiser and sup of ``|SiLU'|`` (u* = 2.3994, sup = 1.0998).

    ``u*`` is the positive root of ``g(u) = u tanh(u/2) - 2`` (strictly increasing on u > 0), found
    by Newton's method from u = 2.4 to full float precision.

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> u, s = plga.silu_prime_sup()                              # sup |SiLU'| (PLGA Prop. 5.12)
    >>> round(u, 4), round(s, 4)
    (2.3994, 1.0998)
    """
    u = 2.4
    for _ in range(50):
        t = np.tanh(u / 2)
        step = (u * t - 2) / (t + u * (1 - t * t) / 2)
        u -= step
        if abs(step) <= 4 * np.finfo(float).eps * u:
            break
    return float(u), float(silu_prime(u))


SILU_PRIME_SUP: float = silu_prime_sup()[1]
"""``sup_u |SiLU'(u)| = 1.0998...`` (at u* = 2.3994...): the global Lipschitz constant of SiLU."""


def logit_margin(logits) -> np.ndarray:
    """Top-1 minus top-2 logit along the last axis (the greedy decoding margin).

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> plga.logit_margin([[2.0, 0.5, 1.5], [0.0, 3.0, 1.0]])   # top-1 minus top-2 (PLGA §5.3)
    array([0.5, 2. ])
    """
    z = real_array("logits", logits)
    if z.ndim < 1 or z.shape[-1] < 2:
        raise ParameterError(f"logits must have at least 2 entries along the last axis (got shape {z.shape})")
    top = np.sort(z, axis=-1)
    with np.errstate(over="ignore"):
        return finite_result("logits", top[..., -1] - top[..., -2])


@scalar_output
def greedy_margin_ok(B, margin) -> np.ndarray:
    """``2 B < margin``: an l_inf logit perturbation of size B cannot change the greedy argmax (sufficient, and
    necessary for the worst perturbation; at ``2 B = margin`` the worst one produces a tie).

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> plga.greedy_margin_ok(0.2, [0.5, 0.4, 0.3])               # 2 B < margin (PLGA §5.3)
    array([ True, False, False])
    """
    B, margin = real_array("B", B, low=0), real_array("margin", margin, low=0)
    try:
        np.broadcast_shapes(B.shape, margin.shape)
    except ValueError:
        raise ParameterError(f"B and margin must broadcast together (got shapes {B.shape} and {margin.shape})") from None
    return 2 * B < margin


__all__ = ["silu_prime", "iswiglu_prime", "silu_prime_envelope", "iswiglu_prime_envelope", "silu_prime_sup",
           "SILU_PRIME_SUP", "logit_margin", "greedy_margin_ok"]

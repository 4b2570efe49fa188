"""The attention score of a sheared query-key pair, split into its four channels (PSA §5-6, P5-P6).

With momenta ``p_q``, ``p_k`` (:func:`theorylab.psa.shear.momentum`), the score of the sheared
streams ``(q + g_q p_q) . (k + g_k p_k)`` is ``T1 + T2 + T3 + T4`` with ``T1 = q.k``,
``T2 = g_q p_q.k``, ``T3 = g_k q.p_k``, ``T4 = g_q g_k p_q.p_k`` (:func:`score_channels`; over
``sqrt(d)`` when ``scaled``). In ``gbar, delta = (g_q +/- g_k)/2`` the linear part splits into an
increment ``gbar (T2 + T3)`` and a bias ``delta (p_q.k - q.p_k)`` (:func:`coupling_split`).

Streams are ``(T, d)``; both functions only add and multiply, so they also take object arrays and
symbolic couplings (the exact route of :mod:`theorylab.psa.shear`).
"""
from __future__ import annotations

import numpy as np

from theorylab.errors import ParameterError, finite_output
from theorylab.psa.shear import _coupling, _is_exact, _stream, momentum

__all__ = ["score_channels", "coupling_split"]


@finite_output("q, k, g_q, g_k")
def score_channels(q, k, g_q, g_k, scaled: bool = True) -> tuple[np.ndarray, ...]:
    """The four score channels of the sheared bilinear score (PSA §4.1).

    With ``p_q = momentum(q)``, ``p_k = momentum(k)`` (streams ``(T, d)``)::

        T1 = q.k,  T2 = g_q p_q.k,  T3 = g_k q.p_k,  T4 = g_q g_k p_q.p_k,

    each a ``(T_q, T_k)`` matrix, divided by ``sqrt(d)`` when ``scaled`` (numeric input
    only; pass ``scaled=False`` for exact arithmetic). Their sum is the score of the
    sheared streams ``shear(q, g_q) @ shear(k, g_k).T``.

    Examples
    --------
    Four channels of the sheared score, one score per key:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> q, k = np.ones((3, 2)), np.ones((3, 2))
    >>> len(psa.score_channels(q, k, 0.5, 0.5))
    4
    """
    q, k = _stream("q", q, -2), _stream("k", k, -2)
    if q.ndim != 2 or k.ndim != 2 or q.shape[1] != k.shape[1]:
        raise ParameterError(f"q and k must be (T, d) streams of the same width (got {q.shape}, {k.shape})")
    g_q, g_k = _coupling("g_q", g_q), _coupling("g_k", g_k)
    pq, pk = momentum(q), momentum(k)
    chans = (q @ k.T, g_q * (pq @ k.T), g_k * (q @ pk.T), g_q * g_k * (pq @ pk.T))
    if scaled:
        if _is_exact(q) or _is_exact(k):
            raise ParameterError("scaled must be False for exact (object) streams")
        chans = tuple(c / np.sqrt(q.shape[1]) for c in chans)
    return chans


@finite_output("q, k, g_q, g_k")
def coupling_split(q, k, g_q, g_k) -> dict[str, np.ndarray]:
    """Regroup the (unscaled) sheared score by coupling structure (PSA §4.8).

    With ``gbar = (g_q + g_k)/2`` and ``delta = (g_q - g_k)/2``::

        base      = q.k                          (T1)
        increment = gbar (p_q.k + q.p_k)         (the Leibniz increment of q.k, transported by gbar)
        bias      = delta (p_q.k - q.p_k)        (zero iff g_q = g_k; antisymmetric in q <-> k)
        coherence = g_q g_k p_q.p_k              (T4)

    Equal couplings leave base + transported increment + pure coherence; unequal
    couplings add the linear score bias. Pure arithmetic (exact route).

    Examples
    --------
    The sheared score regrouped by coupling:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> parts = psa.coupling_split(np.ones((3, 2)), np.ones((3, 2)), 0.5, 0.5)
    >>> sorted(parts)
    ['base', 'bias', 'coherence', 'increment']
    """
    t1, t2, t3, t4 = score_channels(q, k, 1, 1, scaled=False)
    g_q, g_k = _coupling("g_q", g_q), _coupling("g_k", g_k)
    gbar, delta = (g_q + g_k) / 2, (g_q - g_k) / 2
    return {"base": t1, "increment": gbar * (t2 + t3), "bias": delta * (t2 - t3), "coherence": g_q * g_k * t4}

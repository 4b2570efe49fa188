"""Vector-level induction simulation through the four score channels (PSA §4.1, §5.3, §6.2, §6.5).

The canonical induction model at the vector level
-------------------------------------------------
A sample is a stream of ``T`` random isotropic token embeddings ``x_t ~ N(0, I_dk)``
(positions 0..T-1). The query sits at the last position ``t = T-1`` and repeats the
token ``A = x_{j-1}``; the target key is position ``j`` (uniform on 1..T-3), whose
predecessor is ``A``. The keys are positions 0..T-2 (the query's own position is not a
key), so there are ``m = T - 2`` distractors, as in the reduced model. This is the one
canonical model of :mod:`theorylab.psa.canonical` (``plant_induction``) in its reduced-model form
``query_is_key=False``; the causal-head form used there (keys 0..T-1, ``j`` in 1..T-2)
differs because the reduced model has ``T - 1`` candidates and no target at the query's
predecessor T-2 (where both momenta share ``x_{T-2}``: extra T2 and T4 gap), see that
module's docstring.
Queries and keys are the rotated stream (``W_Q = W_K = I``); RoPE rotates pair
``(2i, 2i+1)`` at position t by ``t * freqs[i]`` (:mod:`theorylab.psa.rotary`).

Because ``q' = q + g p_q`` and ``k' = k + g p_k``, the score of the symmetric shear is
the polynomial ``s(g) = c1 + g c2 + g c3 + g^2 c4`` in the coupling, with the four
unit-coupling channels (all over sqrt(dk))::

    c1 = q.k,   c2 = p_q.k,   c3 = q.p_k,   c4 = p_q.p_k      (T_i = g^{deg} c_i)

so the channels are computed once per sample and any g grid is evaluated for free.

This module holds the reduced channel model, the sampler and :func:`simulate`; what is read off a
sample lives beside it: the channel moments (:mod:`theorylab.psa.moments`), the lattice members'
target masses (:mod:`theorylab.psa.masses`) and the positional RoPE terms, Coriolis and Cesàro
(:mod:`theorylab.psa.positional`).

Conventions (ours; docs/plga.md, "induction simulation")
--------------------------------------------------------
* **Head sign.** With ``p_t = x_t - x_{t-1}`` the predecessor match enters ``c3`` and
  ``c4`` as ``-A.A``: under the bilinear form ``+I`` the shear *repels* the target. The
  simulated head uses the form ``-I`` (``HEAD_SIGN = -1``; the hand-built induction
  head that also suppresses the previous occurrence of A), so the gaps are positive
  and equal in magnitude to the reduced model's ``g sqrt(dk)`` and ``g^2 sqrt(dk)``.
* **Placement.** ``post`` (the paper's): momentum of the rotated stream; ``pre``:
  rotate the momentum of the raw stream (PSA §5.3); the difference is the Coriolis term.
* **RoPE.** ``theta`` is one per-step angle shared by every plane (monochromatic, the
  PSA §5.3 Coriolis setting); an array gives one frequency per plane; ``theta = 0``
  switches RoPE off.
* Gaps are measured against the mean of the sample's own distractors; variances and
  covariances are within-sample (over distractors, ddof = 1) averaged over samples.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab._moved import names_getattr
from theorylab.errors import (ParameterError, check_memory, choice, finite_result, positive_int, real_array,
                              seed_int)
from theorylab.psa import canonical
from theorylab.psa import shear
from theorylab.psa import rotary
from theorylab.psa.scoremodel import score_model
from theorylab.resources import Cost, bytes_of, count

HEAD_SIGN: float = -1.0
PLACEMENTS: dict[str, str] = {"post": "post-rope", "pre": "pre-rope"}
CHANNELS: tuple[str, ...] = ("T1", "T2", "T3", "T4")
DEGREE: tuple[int, ...] = (0, 1, 1, 2)
"""Power of g carried by each channel in the symmetric shear."""
_CHUNK = 64


# ----------------------------------------------------------------------------- reduced model
@dataclass(frozen=True)
class ChannelModel:
    """Per-channel moments the reduced model assumes, as coefficient tuples in g (lowest first).

    ``gap[c]`` multiplies sqrt(dk); ``var[c]`` is the distractor variance; ``cov34`` is
    Cov(T3, T4). Derived from :func:`theorylab.psa.scoremodel.score_model` (see
    :func:`reduced_channel_model`), never typed in here.
    """

    gap: dict[str, tuple[float, ...]]
    var: dict[str, tuple[float, ...]]
    cov34: tuple[float, ...]

    def gap_at(self, channel: str, g, dk) -> np.ndarray:
        return np.sqrt(dk) * np.polynomial.polynomial.polyval(g, self.gap[channel])

    def var_at(self, channel: str, g) -> np.ndarray:
        return np.polynomial.polynomial.polyval(g, self.var[channel])

    def cov34_at(self, g) -> np.ndarray:
        return np.polynomial.polynomial.polyval(g, self.cov34)


def reduced_channel_model() -> ChannelModel:
    """Per-channel gaps/variances from the score-model variants (docs/conventions.md, "Four score channels").

    * T4: the t4-only variant (gap g^2, variance 4g^4);
    * T3 gap: t3-inclusive gap minus t4-only gap; T3 variance: key-only variance minus
      its base term (the T1 variance, its constant coefficient);
    * Cov(T3, T4): half of (t3-inclusive variance - T3 variance - T4 variance);
    * T1: gap 0, variance = the key-only base term; T2: gap 0 and, by the query/key
      exchange symmetry of isotropic embeddings, the T3 variance (no variant carries T2).

    Examples
    --------
    The per-channel gaps and variances the score-model variants are built from:

    >>> import theorylab.psa as psa
    >>> model = psa.reduced_channel_model()
    >>> model.gap['T4'], [float(c) for c in model.cov34]
    ((0.0, 0.0, 1.0), [0.0, 0.0, 0.0, 2.0])
    """
    P = np.polynomial.polynomial
    t4, t34, key = score_model("t4-only"), score_model("t3-inclusive"), score_model("key-only")
    base = (key.var_poly[0],)
    var3 = tuple(P.polysub(key.var_poly, base))
    var4 = tuple(t4.var_poly)
    cov = tuple(0.5 * P.polysub(P.polysub(t34.var_poly, var3), var4))
    gap3 = tuple(P.polysub(t34.gap_poly, t4.gap_poly))
    return ChannelModel(gap={"T1": (0.0,), "T2": (0.0,), "T3": gap3, "T4": tuple(t4.gap_poly)},
                        var={"T1": base, "T2": var3, "T3": var3, "T4": var4}, cov34=cov)


# ----------------------------------------------------------------------------- RoPE and sampling
def frequencies(dk: int, theta=0.0) -> np.ndarray:
    """Per-plane RoPE frequencies: a scalar ``theta`` for every plane, or an array of dk/2.

    Examples
    --------
    One frequency per RoPE plane (dk/2 planes):

    >>> import theorylab.psa as psa
    >>> print(psa.frequencies(8, theta=0.25))
    [0.25 0.25 0.25 0.25]
    """
    dk = positive_int("dk", dk, low=2)
    if dk % 2:
        raise ParameterError(f"dk must be an even integer >= 2 (got {dk})")
    check_memory("dk", 4 * dk)
    th = real_array("theta", theta, low=-np.pi, high=np.pi)
    if th.ndim == 0:
        return np.full(dk // 2, float(th))
    if th.shape != (dk // 2,):
        raise ParameterError(f"theta must be a scalar or an array of dk/2 = {dk // 2} frequencies (got {th.shape})")
    return th


def induction_batch(rng: np.random.Generator, n: int, T: int, dk: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` canonical induction streams ``(n, T, dk)`` and their target positions ``(n,)`` (T >= 4).

    Examples
    --------
    Two canonical induction streams and their targets:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> x, j = psa.induction_batch(np.random.default_rng(0), 2, 8, 4)
    >>> x.shape, j.shape
    ((2, 8, 4), (2,))
    """
    if not isinstance(rng, np.random.Generator):
        raise ParameterError(f"rng must be a numpy.random.Generator (got {type(rng).__name__})")
    n, T, dk = positive_int("n", n), positive_int("T", T, low=4), positive_int("dk", dk)
    check_memory("n, T, dk", 8 * n * T * dk)
    x = rng.standard_normal((n, T, dk))                               # (n, T, dk) isotropic tokens
    return canonical.plant_induction(rng, x, query_is_key=False)          # query A = x_{j-1}, j in 1..T-3


def stream_channels(x, freqs, placement: str = "post") -> np.ndarray:
    """Unit-coupling channels ``(c1, c2, c3, c4)`` of the last-position query: shape (n, 4, T-1).

    ``x`` is (n, T, dk) with T >= 2 and dk even; ``freqs`` has dk/2 entries. Includes
    :data:`HEAD_SIGN` and the 1/sqrt(dk) scale.

    Examples
    --------
    The four unit-coupling channels of the last query:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> x, _ = psa.induction_batch(np.random.default_rng(0), 2, 8, 4)
    >>> psa.stream_channels(x, psa.frequencies(4)).shape
    (2, 4, 7)
    """
    placement = PLACEMENTS[choice("placement", placement, tuple(PLACEMENTS))]
    x = real_array("x", x)
    freqs = real_array("freqs", freqs)
    if x.ndim != 3 or x.shape[1] < 2 or x.shape[2] != 2 * freqs.size or freqs.ndim != 1:
        raise ParameterError(f"x must be (n, T, dk) with T >= 2 and dk = 2 len(freqs) (got shapes {x.shape} "
                             f"and {freqs.shape})")
    return finite_result("x", _stream_channels(x, *rotary.rope_tables(x.shape[1], freqs), placement))


def _stream_channels(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, placement: str) -> np.ndarray:
    """Kernel of :func:`stream_channels`: ``x`` a float stream (n, T, dk), ``cos, sin`` its RoPE tables (T, dk/2)."""
    dk = x.shape[-1]
    X = rotary._rotate_pairs(x, cos, sin)                              # (n, T, dk) rotated stream
    if placement == "post-rope":
        P = shear._momentum(X, -2)                                    # momentum of the rotated stream
    else:
        P = rotary._rotate_pairs(shear._momentum(x, -2), cos, sin)     # rotated momentum of the raw stream
    q, pq = X[:, -1], P[:, -1]                                        # (n, dk) query and its momentum
    K, PK = X[:, :-1], P[:, :-1]                                      # (n, T-1, dk) keys and momenta
    c = np.stack([np.einsum("nd,ntd->nt", q, K), np.einsum("nd,ntd->nt", pq, K),
                  np.einsum("nd,ntd->nt", q, PK), np.einsum("nd,ntd->nt", pq, PK)], axis=1)
    return HEAD_SIGN * c / np.sqrt(dk)                                # (n, 4, T-1)


@dataclass(frozen=True, eq=False)
class InductionSample:
    """Raw simulation output: ``channels`` (n, 4, T-1) and ``target`` (n,) key positions."""

    channels: np.ndarray
    target: np.ndarray
    dk: int
    T: int
    freqs: np.ndarray
    placement: str
    seed: int


def simulate(dk: int = 64, T: int = 512, theta=0.0, samples: int = 1000, seed: int = 0,
             placement: str = "post") -> InductionSample:
    """Simulate ``samples`` canonical induction queries and keep their four channels.

    Deterministic: chunk ``c`` of 64 samples draws from ``default_rng([seed, c])``, so
    the first n samples are the same for any total and any machine.

    Examples
    --------
    A small induction simulation (dk = 16, T = 32):

    >>> import theorylab.psa as psa
    >>> sample = psa.simulate(dk=16, T=32, samples=100)
    >>> sample.channels.shape, sample.target.shape
    ((100, 4, 31), (100,))
    """
    dk = positive_int("dk", dk, low=2)
    T = positive_int("T", T, low=5)
    freqs = frequencies(dk, theta)
    samples = positive_int("samples", samples, low=2)
    seed = seed_int("seed", seed)
    placement = choice("placement", placement, tuple(PLACEMENTS))
    check_memory("samples, T, dk", 8 * (2 * samples * 4 * T + 8 * _CHUNK * T * dk))
    chans, targets = [], []
    cos, sin = rotary.rope_tables(T, freqs)                           # (T, dk/2), the same for every chunk
    for c in range((samples + _CHUNK - 1) // _CHUNK):
        x, j = induction_batch(np.random.default_rng([seed, c]), _CHUNK, T, dk)
        chans.append(_stream_channels(x, cos, sin, PLACEMENTS[placement]))
        targets.append(j)
    return InductionSample(np.concatenate(chans)[:samples], np.concatenate(targets)[:samples], dk, T, freqs,
                           placement, seed)


# ----------------------------------------------------------------------------- cost
STREAM_SECONDS = 2.5e-7
"""Seconds per stream entry (sample x position x coordinate) in :func:`simulate` (measured on a shared
2-core machine; the rates of the moments and masses are ``theorylab.psa.moments.MOMENT_SECONDS`` and
``theorylab.psa.masses.MASS_SECONDS``)."""


def simulate_cost(dk, T, samples) -> Cost:
    """Peak memory and run time of :func:`simulate`: about six ``(64, T, dk)`` stream blocks with
    the RoPE tables, and the kept channels ``(samples, 4, T-1)`` twice (the concatenation)."""
    dk, T, samples = count("dk", dk), count("T", T), count("samples", samples)
    block = bytes_of(_CHUNK, T, dk) * 6 + bytes_of(T, dk)
    channels = bytes_of(4, samples, max(T - 1, 0.0))
    chunks = -(-samples // _CHUNK)
    return Cost(block + 2 * channels, chunks * _CHUNK * T * dk * STREAM_SECONDS,
                f"{samples:.3g} samples of {T:.3g} positions x {dk:.3g} dims")


# ----------------------------------------------------------------------------- moments


# ----------------------------------------------------------------------------- Coriolis (P9)

__all__ = ["HEAD_SIGN", "PLACEMENTS", "CHANNELS", "DEGREE", "ChannelModel", "reduced_channel_model", "frequencies",
           "induction_batch", "stream_channels", "InductionSample", "simulate", "simulate_cost"]

__getattr__ = names_getattr(__name__)    # the moments, masses and positional terms moved out: one release

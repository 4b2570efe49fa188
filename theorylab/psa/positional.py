"""The positional (RoPE) parts of the PSA score channels: the Coriolis difference of the two
placements (P9, PSA §5.3) and the Cesàro averages of a g-linear channel (P13, PSA §6.5).

* Coriolis: shearing after RoPE (``post``) and before it (``pre``) differ by
  ``g (R_t - R_{t-1}) x_{t-1}``-type terms whose per-plane norm is ``2 |sin(theta/2)|`` times the
  previous token's (:func:`coriolis_gain`); :func:`coriolis_band_ratios` measures that ratio per
  position and plane on a random stream with the library's placement difference
  (:func:`theorylab.psa.rotary.coriolis_term`).
* Cesàro: the momentum of a rotated stream telescopes, so the running mean of a g-linear channel
  over N candidates vanishes at O(1/N) whatever the content (:func:`cesaro_averages`);
  :func:`envelope_slope` reads the decay off the dyadic-block envelope's log-log slope.

Convention: RoPE pairs ``(2i, 2i+1)`` rotated by ``t * freqs[i]`` (:mod:`theorylab.psa.rotary`).
"""
from __future__ import annotations

import numpy as np

from theorylab._results import scalar_output
from theorylab.errors import (ParameterError, check_memory, choice, finite_output, positive_int, real_array, real_scalar,
                              seed_int)
from theorylab.psa import shear
from theorylab.psa import rotary

__all__ = ["coriolis_gain", "coriolis_band_ratios", "cesaro_averages", "envelope_slope"]


@scalar_output
def coriolis_gain(theta) -> np.ndarray:
    """``2 |sin(theta/2)|``: norm of ``R_theta - I`` on a plane, the Coriolis factor (PSA §5.3).

    Examples
    --------
    The Coriolis factor 2|sin(theta/2)| at theta = pi/3 is 1:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> round(float(psa.coriolis_gain(np.pi / 3)), 4)
    1.0
    """
    return 2.0 * np.abs(np.sin(0.5 * real_array("theta", theta)))


@finite_output("g, freqs")
def coriolis_band_ratios(dk: int, T: int, freqs, g: float = 1.0, seed: int = 0,
                         coriolis=rotary.coriolis_term) -> np.ndarray:
    """Measured per-plane ``||post - pre||_a / (|g| ||x_{t-1}||_a)`` for every position t >= 1.

    The post-minus-pre difference comes from ``coriolis`` (default: the library's
    placement difference). Returns (T-1, dk/2): one ratio per position and plane.

    Examples
    --------
    Measured per-plane Coriolis ratios (shape: positions x planes):

    >>> import theorylab.psa as psa
    >>> psa.coriolis_band_ratios(8, 16, psa.rope_frequencies(8)).shape
    (15, 4)
    """
    dk = positive_int("dk", dk, low=2)
    T = positive_int("T", T, low=2)
    check_memory("T, dk", 8 * 4 * T * dk)
    freqs = real_array("freqs", freqs)
    if freqs.shape != (dk // 2,):
        raise ParameterError(f"freqs must have dk/2 = {dk // 2} entries (got {freqs.shape})")
    g = real_scalar("g", g)
    if g == 0:
        raise ParameterError("g must be nonzero for a Coriolis ratio (got 0)")
    x = np.random.default_rng(seed_int("seed", seed)).standard_normal((T, dk))
    cos, sin = rotary.rope_tables(T, freqs)
    diff = np.asarray(coriolis(x, g, cos, sin))[1:]                  # (T-1, dk)
    plane = lambda v: np.sqrt(v[:, 0::2] ** 2 + v[:, 1::2] ** 2)      # noqa: E731  (T-1, dk/2)
    return plane(diff) / (abs(g) * plane(x[:-1]))


# ----------------------------------------------------------------------------- Cesaro (P13)
def cesaro_averages(N: int, freqs, channel: str = "T3", part: str = "positional", seed: int = 0,
                    momentum=shear.momentum) -> np.ndarray:
    """Running Cesaro means of a g-linear channel over N positions, normalised (PSA §6.5).

    ``part = "positional"``: a constant content vector ``x`` on every position, so the
    rotated stream is ``R_n x`` and its momentum ``(R_n - R_{n-1}) x`` is purely
    positional. ``part = "content"``: iid isotropic content (the candidate-wise part).
    ``channel = "T3"``: fixed query ``R_0 q`` against key momenta at positions 1..N;
    ``"T2"``: query momenta at 1..N against a fixed key ``R_0 k`` -- the same bilinear form
    with the roles exchanged, so for one seed both give the same numbers. Both parts
    telescope (``sum_n p_n = R_N x_N - R_0 x_0``): the Cesaro mean over candidates
    vanishes at O(1/N) whatever the content; what does not vanish is the candidate-wise
    value (the target's own T3 gap).
    Returns ``a[N'-1] = (1/N') sum_{n=1}^{N'} c(n) / (|q| |x| / sqrt(dk))`` for N' = 1..N.

    Examples
    --------
    Running Cesaro means of the T3 channel over 64 positions:

    >>> import theorylab.psa as psa
    >>> psa.cesaro_averages(64, psa.rope_frequencies(8)).shape
    (64,)
    """
    N = positive_int("N", N)
    freqs = real_array("freqs", freqs)
    if freqs.ndim != 1:
        raise ParameterError(f"freqs must be a 1-D array of dk/2 frequencies (got shape {freqs.shape})")
    check_memory("N, freqs", 8 * 8 * (N + 1) * freqs.size)
    choice("channel", channel, ("T2", "T3"))
    choice("part", part, ("positional", "content"))
    dk = 2 * freqs.size
    rng = np.random.default_rng(seed_int("seed", seed))
    other, content = rng.standard_normal(dk), rng.standard_normal(dk)
    x = (np.broadcast_to(content, (N + 1, dk)) if part == "positional"
         else rng.standard_normal((N + 1, dk)))
    stream = rotary.rope(x, freqs)                                      # (N+1, dk) rotated stream
    p = np.asarray(momentum(stream))[1:]                               # (N, dk) positions 1..N
    c = p @ other / np.sqrt(dk)                                        # T3: q.p_k ; T2: p_q.k (same form)
    scale = np.linalg.norm(other) * np.linalg.norm(content) / np.sqrt(dk)
    return np.cumsum(c) / np.arange(1, N + 1) / scale


def envelope_slope(averages, start: int = 16) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-log slope of the dyadic-block envelope ``max_{N' in [N, 2N)} |a(N')|``.

    Returns ``(slope, N_blocks, envelope)``; blocks start at ``start`` and double.

    Examples
    --------
    A 1/N decay has envelope slope -1:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> slope, _, _ = psa.envelope_slope(1.0 / np.arange(1, 257))
    >>> round(slope, 2)
    -1.0
    """
    a = np.abs(real_array("averages", averages))
    if a.ndim != 1:
        raise ParameterError(f"averages must be a 1-D array (got shape {a.shape})")
    start = positive_int("start", start)
    Ns, env = [], []
    lo = start
    while 2 * lo <= a.size:
        Ns.append(lo)
        env.append(a[lo - 1:2 * lo - 1].max())
        lo *= 2
    if len(Ns) < 3:
        raise ParameterError(f"averages must have at least {8 * start} entries for a slope (got {a.size})")
    Ns, env = np.array(Ns, float), np.array(env)
    if np.any(env == 0):
        return -np.inf, Ns, env
    return float(np.polyfit(np.log(Ns), np.log(env), 1)[0]), Ns, env

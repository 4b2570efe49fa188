"""Counter-based random numbers: every draw is a pure function of (seed, sample, index).

The Monte Carlo of the reduced score model (:mod:`theorylab.sim.competition`) needs
draws that do not depend on the order in which threads visit samples, so that

* the same seed gives bit-identical results for any ``NUMBA_NUM_THREADS``;
* the same draws serve every coupling g of a grid (common random numbers) and every
  call (a sample computed twice, in any chunk, is the same sample).

Construction (SplitMix64 finaliser used as a counter-based hash, Box-Muller):

* ``key(seed, s) = mix64(mix64(seed ^ A) + s * GOLDEN)`` names sample ``s``;
* ``bits(key, j) = mix64(key ^ (j * GOLDEN))`` is one 64-bit word for index ``j``;
* its two 32-bit halves give ``u1 = (hi + 1/2) 2^-32`` in (0, 1) and
  ``u2 = lo 2^-32`` in [0, 1), and Box-Muller turns them into a pair of independent
  standard normals ``(r cos 2 pi u2, r sin 2 pi u2)``, ``r = sqrt(-2 ln u1)``.
  The largest attainable |z| is sqrt(2 ln 2^33) = 6.76.

``mix64`` is the SplitMix64 output function (Steele, Lea & Flood 2014), a bijection of
64-bit words with full avalanche. The index ``TARGET_INDEX`` (2^32 - 1) is reserved for
the target's own noise; distractor indices are ``0 .. m-1``.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

from theorylab.errors import positive_int, real_array

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_SEED_SALT = np.uint64(0x5851F42D4C957F2D)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
TARGET_INDEX = 0xFFFFFFFF
"""Index reserved for the target-noise normal of a sample."""

_TWO_M32 = 2.0 ** -32
_TWO_PI = 2.0 * math.pi


@nb.njit(inline="always", cache=True)
def mix64(z):
    """SplitMix64 output function: a bijective 64-bit mixer (z is uint64)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@nb.njit(inline="always", cache=True)
def sample_key(seed, s):
    """The 64-bit key of sample ``s`` under ``seed`` (both non-negative ints)."""
    return mix64(mix64(np.uint64(seed) ^ _SEED_SALT) + np.uint64(s) * GOLDEN)


@nb.njit(inline="always", cache=True)
def uniform_pair(key, j):
    """Two uniforms of index ``j``: ``u1`` in (0, 1) (never 0) and ``u2`` in [0, 1)."""
    w = mix64(key ^ (np.uint64(j) * GOLDEN))
    u1 = (np.float64(w >> _S32) + 0.5) * _TWO_M32
    u2 = np.float64(w & _LOW32) * _TWO_M32
    return u1, u2


@nb.njit(inline="always", cache=True)
def normal_pair(key, j):
    """Two independent standard normals of index ``j`` (Box-Muller, float64)."""
    u1, u2 = uniform_pair(key, j)
    r = math.sqrt(-2.0 * math.log(u1))
    angle = _TWO_PI * u2
    return r * math.cos(angle), r * math.sin(angle)


@nb.njit(cache=True)
def _normals(seed, samples, indices, out):
    for a in range(samples.size):
        key = sample_key(seed, samples[a])
        for b in range(indices.size):
            z0, z1 = normal_pair(key, indices[b])
            out[a, b, 0] = z0
            out[a, b, 1] = z1


def normals(seed: int, samples, indices) -> np.ndarray:
    """The normal pairs of ``samples`` x ``indices`` under ``seed``: shape ``(S, J, 2)``.

    The same numbers the simulation kernel draws (a reference and test hook).

    Parameters
    ----------
    seed : int >= 0.
    samples, indices : non-negative integer sample and distractor indices
        (``TARGET_INDEX`` is the target's noise).
    """
    seed = positive_int("seed", seed, low=0)
    s = real_array("samples", samples, low=0).astype(np.int64).ravel()
    j = real_array("indices", indices, low=0, high=TARGET_INDEX).astype(np.int64).ravel()
    out = np.empty((s.size, j.size, 2))
    _normals(seed, s, j, out)
    return out


__all__ = ["GOLDEN", "TARGET_INDEX", "mix64", "sample_key", "uniform_pair", "normal_pair", "normals"]

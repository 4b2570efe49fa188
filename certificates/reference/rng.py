"""Reference counter-based normals and polynomial kernels, written from the documented algorithm.

An independent second route for the random numbers behind every Monte Carlo certificate (the
construction documented in the library's ``sim/rng`` module): SplitMix64 hashing in Python
integers, the uniforms as exact fractions and the Box-Muller transform in mpmath (30 digits).
Nothing here reads ``theorylab``.

Construction (all words 64-bit, arithmetic mod 2^64):

* ``mix64(z)``: ``z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB;
  z ^= z >> 31`` (the SplitMix64 output function, Steele, Lea & Flood 2014);
* ``key(seed, s) = mix64(mix64(seed ^ A) + s G)``, ``A = 0x5851F42D4C957F2D`` (Knuth's MMIX
  multiplier 6364136223846793005), ``G = 0x9E3779B97F4A7C15`` (2^64 / golden ratio);
* ``word(key, j) = mix64(key ^ (j G))``; its high half ``hi`` and low half ``lo`` give
  ``u1 = (hi + 1/2) 2^-32`` and ``u2 = lo 2^-32``;
* ``(z0, z1) = (r cos 2 pi u2, r sin 2 pi u2)``, ``r = sqrt(-2 ln u1)``.
"""
from __future__ import annotations

from functools import lru_cache

import mpmath
import numpy as np

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
SALT = 0x5851F42D4C957F2D
TARGET_INDEX = (1 << 32) - 1
DPS = 30


def mix64(z: int) -> int:
    """SplitMix64 output function of a 64-bit word (Python integers)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def unmix64(z: int) -> int:
    """The inverse of :func:`mix64` (undo each xor-shift by iteration, each product by the inverse multiplier)."""
    def unshift(x, k):
        y = x
        for _ in range(64 // k + 1):
            y = x ^ (y >> k)
        return y
    z = unshift(z, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & MASK
    z = unshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & MASK
    return unshift(z, 30)


def key(seed: int, s: int) -> int:
    """Key of sample ``s`` under ``seed``."""
    return mix64((mix64(seed ^ SALT) + s * GOLDEN) & MASK)


def word(k: int, j: int) -> int:
    """The 64-bit word of index ``j`` under key ``k``."""
    return mix64(k ^ ((j * GOLDEN) & MASK))


def halves(k: int, j: int) -> tuple[int, int]:
    """``(hi, lo)``: the two 32-bit halves of :func:`word`."""
    w = word(k, j)
    return w >> 32, w & 0xFFFFFFFF


def box_muller(hi, lo) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Box-Muller pair of the uniforms ``u1 = (hi + 1/2) 2^-32``, ``u2 = lo 2^-32`` (mpmath, 30 digits).

    ``hi`` and ``lo`` may be any reals (the float32 kernel rounds them to 24 bits first)."""
    with mpmath.workdps(DPS):
        u1 = (mpmath.mpf(hi) + mpmath.mpf(0.5)) * mpmath.mpf(2) ** -32
        u2 = mpmath.mpf(lo) * mpmath.mpf(2) ** -32
        r = mpmath.sqrt(-2 * mpmath.log(u1))
        t = 2 * mpmath.pi * u2
        return r * mpmath.cos(t), r * mpmath.sin(t)


@lru_cache(maxsize=65536)
def normal_pair(seed: int, s: int, j: int, *, round_to_float32: bool = False) -> tuple[float, float]:
    """The normal pair of index ``j`` of sample ``s`` under ``seed``, rounded to float64.

    ``round_to_float32``: the halves are first rounded to float32 (24 bits, nearest-even), as
    the float32 kernel's documented ``u1 = (fl32(hi) + 1/2) 2^-32``, ``u2 = fl32(lo) 2^-32``."""
    hi, lo = halves(key(seed, s), j)
    if round_to_float32:
        hi, lo = float(np.float32(hi)), float(np.float32(lo))
    z0, z1 = box_muller(hi, lo)
    return float(z0), float(z1)


def normal_cdf(x: float) -> float:
    """Standard normal CDF (mpmath ``ncdf``, 30 digits)."""
    with mpmath.workdps(DPS):
        return float(mpmath.ncdf(x))


def log_error(x: np.ndarray, got: np.ndarray) -> np.ndarray:
    """``|got - ln x|`` for each float ``x`` (mpmath, 30 digits)."""
    with mpmath.workdps(DPS):
        return np.array([float(abs(mpmath.mpf(float(g)) - mpmath.log(mpmath.mpf(float(v))))) for v, g in zip(x, got)])


def exp_relative_error(x: np.ndarray, got: np.ndarray) -> np.ndarray:
    """``|got / exp(x) - 1|`` for each float ``x`` (mpmath, 30 digits)."""
    with mpmath.workdps(DPS):
        return np.array([float(abs(mpmath.mpf(float(g)) / mpmath.exp(mpmath.mpf(float(v))) - 1))
                         for v, g in zip(x, got)])


def loadings(variant: str, g: float) -> tuple[float, float]:
    """Loadings ``(a, b)`` of a distractor's two normals, ``x = a z0 + b z1``, from its channels:
    T1 = z0, T3 = sqrt2 g z_(b), T4 = 2 g^2 z_(a) (t4-only) or sqrt2 g^2 (z0 + z1) (t3-inclusive,
    sharing p_k with T3 = sqrt2 g z0)."""
    r2 = 2.0 ** 0.5
    return {"t4-only": (2 * g * g, 0.0), "t3-inclusive": (r2 * (g + g * g), r2 * g * g),
            "key-only": (1.0, r2 * g), "symmetric-key-convention": (1.0, 2 * g * g)}[variant]


def per_sample_mass(variant: str, delta: float, g: float, m: int, seed: int, s: int, sigma0: float = 0.0) -> float:
    """Target mass ``1 / (1 + sum_{j < m} exp(a z0_j + b z1_j - Delta - sigma0 z_t))`` of sample ``s``:
    distractor j uses the pair of index j, the target noise ``z_t`` the first normal of index
    ``TARGET_INDEX`` (mpmath sum of the float64 reference draws)."""
    a, b = loadings(variant, g)
    zt = normal_pair(seed, s, TARGET_INDEX)[0] if sigma0 else 0.0
    with mpmath.workdps(DPS):
        acc = mpmath.mpf(0)
        for j in range(m):
            z0, z1 = normal_pair(seed, s, j)
            acc += mpmath.exp(a * mpmath.mpf(z0) + b * mpmath.mpf(z1) - delta - sigma0 * mpmath.mpf(zt))
        return float(1 / (1 + acc))


def per_sample_row(variant: str, delta: float, g: float, m: int, seed: int, s: int,
                   sigma0: float = 0.0, *, round_to_float32: bool = False) -> tuple[float, ...]:
    """Row statistics of sample ``s``: the softmax row of the target (score 0) and the m distractors
    (``a z0_j + b z1_j - Delta - sigma0 z_t``, reference draws, ``z_t`` the target noise of
    :func:`per_sample_mass`): target mass, entropy, the distractors' entropy among themselves, and
    ``sum p^2`` (NumPy float64). ``round_to_float32``: the distractors' draws of the float32 kernel
    (:func:`normal_pair`'s option; the target noise stays float64)."""
    a, b = loadings(variant, g)
    zt = normal_pair(seed, s, TARGET_INDEX)[0] if sigma0 else 0.0
    x = np.array([a * z0 + b * z1 - delta - sigma0 * zt
                  for z0, z1 in (normal_pair(seed, s, j, round_to_float32=round_to_float32) for j in range(m))])
    y = np.concatenate([[0.0], x])
    p = np.exp(y - y.max())
    p /= p.sum()
    q = np.exp(x - x.max())
    q /= q.sum()
    return float(p[0]), float(-np.sum(p * np.log(p))), float(-np.sum(q * np.log(q))), float(np.sum(p * p))


__all__ = ["mix64", "key", "word", "halves", "box_muller", "normal_pair", "normal_cdf", "log_error",
           "exp_relative_error", "loadings", "per_sample_mass", "per_sample_row", "TARGET_INDEX"]

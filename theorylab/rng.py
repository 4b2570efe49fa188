"""Counter-based random numbers: every draw is a pure function of (seed, sample, index).

The Monte Carlo of the reduced score model (:mod:`theorylab.psa.montecarlo`) needs
draws that do not depend on the order in which threads visit samples, so that

* the same seed gives bit-identical results for any ``NUMBA_NUM_THREADS``;
* the same draws serve every coupling g of a grid (common random numbers) and every
  call (a sample computed twice, in any chunk, is the same sample).

Construction (SplitMix64 finaliser used as a counter-based hash, Box-Muller):

* ``key(seed, s) = mix64(mix64(seed ^ A) + s * GOLDEN)``, ``A = 0x5851F42D4C957F2D``, names sample ``s``;
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
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from theorylab.errors import check_memory, integer_array, seed_int

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
    w = mix64(np.uint64(key) ^ (np.uint64(j) * GOLDEN))
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


@intrinsic
def bits_as_float(typingctx, bits):
    """Reinterpret an int32 (int64) as float32 (float64)."""
    if bits == types.int32:
        sig, llty = types.float32(types.int32), ir.FloatType()
    elif bits == types.int64:
        sig, llty = types.float64(types.int64), ir.DoubleType()
    else:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], llty)
    return sig, codegen


@intrinsic
def float_as_bits(typingctx, x):
    """Reinterpret a float32 (float64) as int32 (int64)."""
    if x == types.float32:
        sig, llty = types.int32(types.float32), ir.IntType(32)
    elif x == types.float64:
        sig, llty = types.int64(types.float64), ir.IntType(64)
    else:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], llty)
    return sig, codegen


_F = np.float32
_LOGP = tuple(_F(c) for c in (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
                              1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
                              3.3333331174e-1))
_SQRTH, _LN2A, _LN2B = _F(0.70710678118654752), _F(0.693359375), _F(-2.12194440e-4)
_SINP = tuple(_F(c) for c in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1))
_COSP = tuple(_F(c) for c in (2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2))
_HALF, _ONE, _TWO, _FOUR = _F(0.5), _F(1.0), _F(2.0), _F(4.0)
_QUARTER_PI, _TWO_M32F = _F(math.pi / 2.0), _F(2.0 ** -32)


@nb.njit(inline="always", cache=True, fastmath=True)
def log32(x):
    """Natural log of a positive normal float32 (Cephes logf; branch-free; rel. error <= 2^-23 on [2^-33, 1))."""
    bits = float_as_bits(x)
    e = np.float32((bits >> 23) - 127)
    f = bits_as_float(np.int32((bits & 0x7FFFFF) | 0x3F800000))  # mantissa in [1, 2)
    big = f > _SQRTH * _TWO
    f = f * _HALF if big else f
    e = e + _ONE if big else e
    f = f - _ONE
    z = f * f
    y = _LOGP[0]
    for c in _LOGP[1:]:
        y = y * f + c
    y = y * f * z + _LN2B * e - _HALF * z
    return f + y + _LN2A * e


@nb.njit(inline="always", cache=True, fastmath=True)
def normal_pair32(key, j):
    """float32 Box-Muller pair of index ``j``: the same uniforms as :func:`normal_pair`.

    Uses ``theta = 2 pi (u2 - 1/2)`` (the float64 angle minus pi, undone by negating
    both outputs) reduced to quarter turns, and branch-free log/sin/cos, so LLVM vectorises the loop over j.
    Exact to 4 float32 ulps of max(1, |z|) given ``u1 = (fl32(hi) + 1/2) 2^-32``, ``u2 = fl32(lo) 2^-32``.
    """
    w = mix64(np.uint64(key) ^ (np.uint64(j) * GOLDEN))
    u1 = (np.float32(np.int64(w >> _S32)) + _HALF) * _TWO_M32F
    r = math.sqrt(-_TWO * log32(u1))
    v = np.float32(np.int64(w & _LOW32)) * _TWO_M32F - _HALF   # in [-1/2, 1/2]
    qf = np.floor(v * _FOUR + _HALF)                             # quarter turns, in -2..2
    x = (v * _FOUR - qf) * _QUARTER_PI                          # in [-pi/4, pi/4]
    z = x * x
    sn = ((_SINP[0] * z + _SINP[1]) * z + _SINP[2]) * z * x + x
    cs = ((_COSP[0] * z + _COSP[1]) * z + _COSP[2]) * z * z - _HALF * z + _ONE
    # rotate (cos x, sin x) by qf quarter turns with selects only (LLVM vectorises selects)
    half_turn = (qf == _TWO) | (qf == -_TWO)
    c = -sn if qf == _ONE else (sn if qf == -_ONE else cs)
    s = cs if qf == _ONE else (-cs if qf == -_ONE else sn)
    c = -c if half_turn else c
    s = -s if half_turn else s
    return -r * c, -r * s


@nb.njit(cache=True, fastmath=True, boundscheck=True)
def fill_normals32(key, za, zb):
    """``za[j], zb[j] = normal_pair32(key, j)`` for every j (a vectorised loop; indices checked)."""
    for j in range(za.size):
        a, b = normal_pair32(key, j)
        za[j] = a
        zb[j] = b


_SQRT2 = math.sqrt(2.0)
_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
_MANT64, _ONE64_BITS = np.int64(0xFFFFFFFFFFFFF), np.int64(0x3FF0000000000000)
# polynomial coefficients, highest degree first (Horner): 2 atanh(s) = 2 sum s^(2k+1)/(2k+1), Taylor sin, cos
_ATANH_R = tuple(1.0 / (2 * k + 1) for k in range(11, -1, -1))
_SIN64_R = tuple((-1.0) ** k / math.factorial(2 * k + 1) for k in range(8, -1, -1))
_COS64_R = tuple((-1.0) ** k / math.factorial(2 * k) for k in range(9, -1, -1))


@nb.njit(inline="always", cache=True, fastmath=True, error_model="numpy")
def log64(x):
    """Natural log of a positive normal float64, branch-free: ``e ln2 + 2 atanh((f-1)/(f+1))``,
    f in [sqrt(1/2), sqrt(2)) (|s| <= 0.172, 12-term series; relative error ~1e-16)."""
    bits = float_as_bits(x)
    e = np.float64((bits >> 52) - 1023)
    f = bits_as_float((bits & _MANT64) | _ONE64_BITS)
    big = f > _SQRT2
    f = f * 0.5 if big else f
    e = e + 1.0 if big else e
    s = (f - 1.0) / (f + 1.0)
    z = s * s
    p = _ATANH_R[0]
    for c in _ATANH_R[1:]:
        p = p * z + c
    return e * _LN2_HI + (2.0 * s * p + e * _LN2_LO)


@nb.njit(inline="always", cache=True, fastmath=True, error_model="numpy")
def normal_pair64(key, j):
    """Branch-free float64 version of :func:`normal_pair` (same values to ~1e-14; vectorisable)."""
    w = mix64(np.uint64(key) ^ (np.uint64(j) * GOLDEN))
    u1 = (np.float64(np.int64(w >> _S32)) + 0.5) * _TWO_M32
    r = math.sqrt(-2.0 * log64(u1))
    v = np.float64(np.int64(w & _LOW32)) * _TWO_M32 - 0.5
    qf = np.floor(v * 4.0 + 0.5)
    x = (v * 4.0 - qf) * (math.pi / 2.0)
    z = x * x
    sn = _SIN64_R[0]
    for c in _SIN64_R[1:]:
        sn = sn * z + c
    sn = sn * x
    cs = _COS64_R[0]
    for c in _COS64_R[1:]:
        cs = cs * z + c
    half_turn = (qf == 2.0) | (qf == -2.0)
    c = -sn if qf == 1.0 else (sn if qf == -1.0 else cs)
    s = cs if qf == 1.0 else (-cs if qf == -1.0 else sn)
    c = -c if half_turn else c
    s = -s if half_turn else s
    return -r * c, -r * s


@nb.njit(cache=True, fastmath=True, error_model="numpy", boundscheck=True)
def fill_normals64(key, za, zb):
    """``za[j], zb[j] = normal_pair64(key, j)`` for every j (a vectorised loop; indices checked)."""
    for j in range(za.size):
        a, b = normal_pair64(key, j)
        za[j] = a
        zb[j] = b


@nb.njit(cache=True, boundscheck=True)
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
    seed : an integer in [0, 2^64) (passed to the kernel as ``np.uint64``).
    samples : non-negative integer sample indices (< 2^63).
    indices : distractor indices in [0, 2^32 - 1] (``TARGET_INDEX`` is the target's noise).
    """
    seed = np.uint64(seed_int("seed", seed))
    s = integer_array("samples", samples, allow_empty=True).ravel()
    j = integer_array("indices", indices, high=TARGET_INDEX, allow_empty=True).ravel()
    check_memory("samples, indices", 16 * s.size * j.size)
    out = np.empty((s.size, j.size, 2))
    _normals(seed, s, j, out)
    return out


__all__ = ["GOLDEN", "TARGET_INDEX", "mix64", "sample_key", "uniform_pair", "normal_pair", "normal_pair32",
           "normals", "fill_normals32", "fill_normals64", "normal_pair64", "log32", "log64", "bits_as_float", "float_as_bits"]

"""The Numba kernels of the PSA Monte Carlo (:mod:`theorylab.psa.montecarlo`): a vectorisable exp and the per-sample mass.

Unvalidated kernels (QuantEcon style): :func:`theorylab.psa.montecarlo.simulate_mass` and
:func:`~theorylab.psa.montecarlo.per_sample_mass` validate their input and call them.

``_kernel32(seed, start, out, m, a, b, delta, sigma0)`` fills ``out[i, k]`` (samples ``start + i``,
grid point ``k``) with the target mass ``1 / (1 + sum_j exp(a_k z_a,j + b_k z_b,j - delta_k - sigma0 z_t))``
of ``m`` distractors, their normals drawn from the counter-based stream of :mod:`theorylab.rng` keyed
by ``(seed, sample)``; ``_kernel64`` is the same in float64. Each sample is independent of the
others and of the thread that computes it (same seed, same numbers whatever the thread count).

The exp is branch-free with a clipped argument (``[-80, 60]`` in float32, ``[-700, 600]`` in float64)
so that LLVM vectorises it (the PyPI Numba has no SVML).
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

from theorylab.rng import TARGET_INDEX, fill_normals32, fill_normals64, normal_pair, sample_key
from theorylab.rng import bits_as_float as _bits_as_float

# --- vectorisable exp -------------------------------------------------------------

_F32 = np.float32
_LOG2E32, _HALF32 = _F32(1.4426950408889634), _F32(0.5)
_C1_32, _C2_32 = _F32(0.693359375), _F32(-2.12194440e-4)
_P32 = tuple(_F32(c) for c in (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3,
                                 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1))
_ONE32, _LO32, _HI32 = _F32(1.0), _F32(-80.0), _F32(60.0)


@nb.njit(inline="always", cache=True, fastmath=True)
def exp32(x):
    """exp of a float32 clipped to [-80, 60] (no subnormals) (Cephes expf polynomial; rel. error <= 3e-7)."""
    x = min(max(x, _LO32), _HI32)
    n = np.floor(x * _LOG2E32 + _HALF32)
    r = x - n * _C1_32 - n * _C2_32
    p = ((((_P32[0] * r + _P32[1]) * r + _P32[2]) * r + _P32[3]) * r + _P32[4]) * r + _P32[5]
    p = p * r * r + r + _ONE32
    return p * _bits_as_float(np.int32((np.int64(n) + 127) << 23))


_C1_64, _C2_64 = 6.93145751953125e-1, 1.42860682030941723212e-6
_INV_FACT_R = tuple(1.0 / math.factorial(k) for k in range(12, -1, -1))  # highest degree first


@nb.njit(inline="always", cache=True, fastmath=True)
def exp64(x):
    """exp of a float64 clipped to [-700, 600] (degree-12 Taylor; rel. error <= 3e-15 on [-80, 60], ~3e-17 ``|x|`` beyond)."""
    x = min(max(x, -700.0), 600.0)
    n = np.floor(x * 1.4426950408889634 + 0.5)
    r = x - n * _C1_64 - n * _C2_64
    p = _INV_FACT_R[0]
    for c in _INV_FACT_R[1:]:
        p = p * r + c
    return p * _bits_as_float((np.int64(n) + 1023) << 52)


# --- kernels ------------------------------------------------------------------------

@nb.njit(parallel=True, cache=True, fastmath=True, boundscheck=True)
def _kernel32(seed, start, out, m, a, b, delta, sigma0):
    n, G = out.shape
    for i in nb.prange(n):
        key = sample_key(seed, start + i)
        za = np.empty(m, np.float32)
        zb = np.empty(m, np.float32)
        fill_normals32(key, za, zb)
        shift = sigma0 * normal_pair(key, TARGET_INDEX)[0]
        for k in range(G):
            ak, bk, dk = np.float32(a[k]), np.float32(b[k]), np.float32(delta[k] + shift)
            acc = np.float32(0.0)
            if bk == 0:  # one-channel variants (t4-only): skip the second normal
                for j in range(m):
                    acc += exp32(ak * za[j] - dk)
            else:
                for j in range(m):
                    acc += exp32(ak * za[j] + bk * zb[j] - dk)
            out[i, k] = 1.0 / (1.0 + np.float64(acc))


@nb.njit(parallel=True, cache=True, fastmath=True, boundscheck=True)
def _kernel64(seed, start, out, m, a, b, delta, sigma0):
    n, G = out.shape
    for i in nb.prange(n):
        key = sample_key(seed, start + i)
        za = np.empty(m)
        zb = np.empty(m)
        fill_normals64(key, za, zb)
        shift = sigma0 * normal_pair(key, TARGET_INDEX)[0]
        for k in range(G):
            ak, bk, dk = a[k], b[k], delta[k] + shift
            acc = 0.0
            if bk == 0:
                for j in range(m):
                    acc += exp64(ak * za[j] - dk)
            else:
                for j in range(m):
                    acc += exp64(ak * za[j] + bk * zb[j] - dk)
            out[i, k] = 1.0 / (1.0 + acc)


__all__ = ["exp32", "exp64"]

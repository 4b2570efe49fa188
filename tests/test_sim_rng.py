"""Counter-based normal streams: purity, independence of order, moments, float32 path."""
import numba as nb
import numpy as np
import pytest

from theorylab.errors import ParameterError
from theorylab.rng import TARGET_INDEX, fill_normals32, fill_normals64, normal_pair, normals, sample_key


def test_each_draw_is_a_pure_function_of_seed_sample_index():
    block = normals(7, np.arange(20), np.arange(30))
    single = normals(7, [13], [21])
    # same code run twice: bitwise: a draw is a pure function of (seed, sample, index)
    assert np.array_equal(single[0, 0], block[13, 21])
    shuffled = normals(7, [19, 2, 13], [29, 0, 21])
    assert np.array_equal(shuffled[2, 2], block[13, 21])
    assert np.array_equal(shuffled[0, 0], block[19, 29])


def test_seeds_samples_and_target_index_give_different_draws():
    a = normals(1, np.arange(5), np.arange(5))
    assert not np.array_equal(a, normals(2, np.arange(5), np.arange(5)))
    assert not np.any(a[0] == a[1])
    target = normals(1, [0], [TARGET_INDEX])
    assert np.all(np.isfinite(target)) and not np.any(np.isin(target, a))


def test_moments_of_the_stream():
    z = normals(3, np.arange(400), np.arange(500)).reshape(-1, 2)  # 2e5 pairs
    n = z.shape[0]
    assert abs(z.mean()) < 4 / np.sqrt(2 * n)
    assert np.all(np.abs(z.var(axis=0) - 1) < 4 * np.sqrt(2 / n))
    assert abs(np.corrcoef(z.T)[0, 1]) < 4 / np.sqrt(n)
    # tails: P(|z| > 3) = 0.0027
    tail = np.mean(np.abs(z) > 3)
    assert abs(tail - 0.0026998) < 4 * np.sqrt(0.0027 / z.size)


@nb.njit
def _both(seed, s, m):
    key = sample_key(seed, s)
    za = np.empty(m, np.float32)
    zb = np.empty(m, np.float32)
    fill_normals32(key, za, zb)
    ref = np.empty((m, 2))
    for j in range(m):
        ref[j, 0], ref[j, 1] = normal_pair(key, j)
    return za, zb, ref


def test_float32_vectorised_pair_matches_the_float64_pair():
    for s in (0, 1154, 99999):
        za, zb, ref = _both(5, s, 4099)
        assert np.max(np.abs(za - ref[:, 0])) < 2e-5
        assert np.max(np.abs(zb - ref[:, 1])) < 2e-5


@nb.njit
def _both64(seed, s, m):
    key = sample_key(seed, s)
    za = np.empty(m)
    zb = np.empty(m)
    fill_normals64(key, za, zb)
    ref = np.empty((m, 2))
    for j in range(m):
        ref[j, 0], ref[j, 1] = normal_pair(key, j)
    return za, zb, ref


def test_float64_vectorised_pair_matches_the_scalar_pair():
    za, zb, ref = _both64(5, 3, 100_000)
    assert np.max(np.abs(za - ref[:, 0])) < 1e-13 and np.max(np.abs(zb - ref[:, 1])) < 1e-13


def test_bad_input_is_a_parameter_error():
    with pytest.raises(ParameterError, match="seed"):
        normals(-1, [0], [0])
    with pytest.raises(ParameterError, match="samples"):
        normals(0, [-2], [0])

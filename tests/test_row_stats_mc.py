"""Monte Carlo row statistics: agreement with quadrature, same draws as the mass kernel, exact derivatives."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from theorylab.errors import ParameterError
from theorylab.psa.scoremodel import VARIANTS
from theorylab.psa.montecarlo import per_sample_mass, simulate_mass
from theorylab.psa.row_stats import exact_row_stats
from theorylab.psa.row_stats_mc import STATS, per_sample_row_stats, simulate_row_stats

_MEANS = ("mass", "entropy", "distractor_entropy", "ipr")


@pytest.mark.parametrize("variant,dk,T", [("t4-only", 16, 64), ("t3-inclusive", 64, 128), ("key-only", 32, 16),
                                          ("symmetric-key-convention", 64, 15), ("t4-only", 128, 2048)])
def test_mc_within_four_standard_errors_of_exact(variant, dk, T):
    g = np.array([0.3, 0.7, 1.0, 1.3, 2.0])
    curve = simulate_row_stats(variant, dk, T, g, samples=4000, seed=5)
    exact = exact_row_stats(variant, dk, T, g)
    # Bhatia-Davis: Var <= (hi - mean)(mean - lo) for a statistic in [lo, hi]; it bounds the SE also in the
    # rare-event regime (mass within ~1e-5 of 1), where the sample SE underestimates it
    ranges = {"mass": (0, 1), "ipr": (0, 1), "entropy": (0, np.log(T - 1)), "distractor_entropy": (0, np.log(T - 2))}
    for name in _MEANS:
        lo, hi = ranges[name]
        mu = getattr(exact, name)
        se = np.maximum(curve.stat_se(name), np.sqrt(np.maximum((hi - mu) * (mu - lo), 0) / curve.samples))
        z = (curve.stat(name) - getattr(exact, name)) / se
        assert np.all(np.abs(z) < 4), (name, z)


def test_same_draws_as_the_mass_kernel():
    g = np.array([0.5, 0.9, 1.4])
    for variant in VARIANTS:
        a = per_sample_row_stats(variant, 48, 300, g, 7, 40, seed=3)[:, :, 0]
        b = per_sample_mass(variant, 48, 300, g, 7, 40, seed=3)
        assert np.max(np.abs(a - b) / np.maximum(b, 1e-300)) < 3e-6  # float32 rounding, not other draws
    c = simulate_row_stats("t4-only", 128, 512, g, samples=3000, seed=2)
    m = simulate_mass("t4-only", 128, 512, g, samples=3000, seed=2)
    assert np.max(np.abs(c.stat("mass") - m.mass)) < 1e-3 * np.min(m.se)


@pytest.mark.parametrize("variant", VARIANTS)
def test_per_sample_derivatives_are_the_derivatives(variant):
    g0, h = 0.9, 1e-4
    x = per_sample_row_stats(variant, 16, 64, [g0 - h, g0, g0 + h], 0, 30, seed=1, dtype="float64")
    for base in ("mass", "entropy", "distractor_entropy"):
        f = x[:, :, STATS.index(base)]
        d1, d2 = x[:, 1, STATS.index(f"d_{base}")], x[:, 1, STATS.index(f"d2_{base}")]
        scale = 1.0 + np.abs(d2)
        assert np.max(np.abs((f[:, 2] - f[:, 0]) / (2 * h) - d1) / scale) < 1e-6
        assert np.max(np.abs((f[:, 2] - 2 * f[:, 1] + f[:, 0]) / h**2 - d2) / scale) < 1e-4


def test_common_random_numbers_and_chunk_independence():
    g = np.array([0.6, 0.8, 1.0, 1.2])
    full = per_sample_row_stats("t3-inclusive", 64, 512, g, 0, 50, seed=4)
    sub = per_sample_row_stats("t3-inclusive", 64, 512, g[[2]], 17, 5, seed=4)
    # same code run twice: bitwise: the kernel computes each (sample, g) alone from counter-based draws
    assert np.array_equal(sub[:, 0], full[17:22, 2])
    a = simulate_row_stats("t3-inclusive", 64, 512, g, samples=3000, seed=4)
    b = simulate_row_stats("t3-inclusive", 64, 512, g[::-1], samples=3000, seed=4)
    assert np.array_equal(a.mean, b.mean[::-1]) and np.array_equal(a.se, b.se[::-1])


_THREADS = """
import json, numba
from theorylab.psa.row_stats_mc import simulate_row_stats
c = simulate_row_stats("t3-inclusive", 96, 300, [0.3, 0.5, 0.9], samples=3000, seed=9)
print(json.dumps({"threads": numba.get_num_threads(), "mean": c.mean.tolist(), "se": c.se.tolist()}))
"""


def test_identical_results_for_one_and_two_threads():
    out = []
    for threads in ("1", "2"):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads}
        res = subprocess.run([sys.executable, "-c", _THREADS], env=env, capture_output=True, text=True, check=True)
        out.append(json.loads(res.stdout))
    assert [o["threads"] for o in out] == [1, 2]
    assert out[0]["mean"] == out[1]["mean"] and out[0]["se"] == out[1]["se"]


def test_float32_changes_the_statistics_by_far_less_than_the_standard_error():
    g = np.array([0.7, 0.9, 1.1])
    a = simulate_row_stats("t4-only", 16, 512, g, samples=2000, seed=1)
    b = simulate_row_stats("t4-only", 16, 512, g, samples=2000, seed=1, dtype="float64")
    assert np.all(np.abs(a.mean - b.mean) <= 0.01 * a.se + 1e-12)


def test_finite_at_large_g_and_T_and_uniform_at_g_zero():
    g = np.array([0.0, 1.0, 5.0, 10.0])
    for variant in VARIANTS:
        c = simulate_row_stats(variant, 128, 100_000, g, samples=8, seed=0)
        assert np.all(np.isfinite(c.mean)), variant
        assert np.all((c.stat("entropy") > -1e-9) & (c.stat("entropy") <= np.log(99_999) + 1e-6))
    c = simulate_row_stats("t4-only", 128, 512, [0.0], samples=10, seed=0)
    assert np.allclose(c.stat("entropy"), np.log(511), rtol=1e-6)
    assert np.allclose(c.stat("distractor_entropy"), np.log(510), rtol=1e-6)
    assert np.allclose(c.stat("ipr"), 1 / 511, rtol=1e-6)


def test_bad_input():
    with pytest.raises(ParameterError, match="samples"):
        simulate_row_stats("t4-only", 16, 64, [1.0], samples=0)
    with pytest.raises(ParameterError, match="dtype"):
        simulate_row_stats("t4-only", 16, 64, [1.0], dtype="float16")
    with pytest.raises(ParameterError, match="statistic"):
        simulate_row_stats("t4-only", 16, 64, [1.0], samples=4).stat("entropie")

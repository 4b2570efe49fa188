"""Monte Carlo of the reduced score model: agreement with quadrature, CRN, threads, overflow, float32."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from theorylab.errors import ParameterError
from theorylab.psa.scoremodel import VARIANTS, score_model
from theorylab.psa.mc_crossing import mc_gamma_c, mc_gamma_c_cost
from theorylab.psa.montecarlo import loading_variance_poly, per_sample_mass, simulate_mass
from theorylab.psa.quadrature import exact_gamma_c, exact_mass


@pytest.mark.parametrize("variant", VARIANTS)
def test_loadings_reproduce_the_variance_polynomial(variant):
    want = np.asarray(score_model(variant).var_poly, float)
    got = loading_variance_poly(variant)
    n = max(want.size, got.size)
    assert np.allclose(np.pad(got, (0, n - got.size)), np.pad(want, (0, n - want.size)), rtol=0, atol=1e-14)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dk,T", [(128, 512), (48, 64)])
def test_mc_within_four_standard_errors_of_exact(variant, dk, T):
    gc = exact_gamma_c(variant, dk, T)
    g = gc * np.array([0.85, 1.0, 1.15])
    curve = simulate_mass(variant, dk, T, g, samples=4000, seed=11)
    exact = exact_mass(variant, dk, T, g)
    z = (curve.mass - exact) / curve.se
    assert np.all(curve.se > 0)
    assert np.all(np.abs(z) < 4), z


def test_target_noise_matches_quadrature():
    g = np.array([0.7, 0.8, 0.9])
    curve = simulate_mass("t4-only", 128, 512, g, samples=4000, seed=2, sigma0=1.5)
    exact = exact_mass("t4-only", 128, 512, g, sigma0=1.5)
    assert np.all(np.abs(curve.mass - exact) < 4 * curve.se)
    noiseless = exact_mass("t4-only", 128, 512, g)
    assert np.all(np.abs(exact - noiseless)[[0, 2]] > 5 * curve.se[[0, 2]])  # the noise matters


@settings(max_examples=8, deadline=None)
@given(variant=st.sampled_from(VARIANTS), dk=st.floats(16, 400), T=st.integers(3, 3000),
       g=st.floats(0.05, 3.0), seed=st.integers(0, 2**31))
def test_mc_agrees_with_exact_anywhere(variant, dk, T, g, seed):
    curve = simulate_mass(variant, dk, T, [g], samples=1000, seed=seed)
    exact = exact_mass(variant, dk, T, [g])[0]
    # the per-sample mass lies in [0, 1], so its variance is at most M(1 - M): this bounds the SE
    # also in the rare-event regime (M within ~1e-5 of 1), where the sample SE underestimates it
    se = max(curve.se[0], np.sqrt(exact * (1 - exact) / 1000))
    assert abs(curve.mass[0] - exact) <= 5 * se


def test_common_random_numbers_and_chunk_independence():
    g = np.array([0.6, 0.8, 1.0, 1.2])
    full = per_sample_mass("t3-inclusive", 64, 512, g, 0, 50, seed=4)
    sub = per_sample_mass("t3-inclusive", 64, 512, g[[2]], 17, 5, seed=4)
    # same code run twice: bitwise: the kernel computes each (sample, g) alone from counter-based draws
    assert np.array_equal(sub[:, 0], full[17:22, 2])
    a = simulate_mass("t3-inclusive", 64, 512, g, samples=3000, seed=4)
    b = simulate_mass("t3-inclusive", 64, 512, g[::-1], samples=3000, seed=4)
    assert np.array_equal(a.mass, b.mass[::-1]) and np.array_equal(a.se, b.se[::-1])
    assert np.isclose(a.batch_mass.mean(axis=0), a.mass, rtol=0, atol=1e-15).all()


_THREADS = """
import json, numpy as np, numba
from theorylab.psa.montecarlo import simulate_mass
c = simulate_mass("t3-inclusive", 96, 300, [0.3, 0.5, 0.9], samples=5000, seed=9)
print(json.dumps({"threads": numba.get_num_threads(), "mass": c.mass.tolist(), "se": c.se.tolist()}))
"""


def test_identical_results_for_one_and_two_threads():
    out = []
    for threads in ("1", "2"):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads}
        res = subprocess.run([sys.executable, "-c", _THREADS], env=env, capture_output=True, text=True, check=True)
        out.append(json.loads(res.stdout))
    assert [o["threads"] for o in out] == [1, 2]
    assert out[0]["mass"] == out[1]["mass"] and out[0]["se"] == out[1]["se"]


def test_float32_changes_the_mass_by_far_less_than_the_standard_error():
    g = np.array([0.7, 0.8, 0.9, 1.0])
    a = simulate_mass("t4-only", 128, 512, g, samples=2000, seed=1)
    b = simulate_mass("t4-only", 128, 512, g, samples=2000, seed=1, dtype="float64")
    assert np.all(np.abs(a.mass - b.mass) < 0.01 * a.se)


def test_no_overflow_at_large_g_and_T():
    g = np.array([0.0, 1.0, 5.0, 10.0])
    for variant in VARIANTS:
        c = simulate_mass(variant, 128, 100_000, g, samples=40, seed=0)
        assert np.all(np.isfinite(c.mass)) and np.all((c.mass >= 0) & (c.mass <= 1))
        assert np.all(np.isfinite(c.se))
    c = simulate_mass("t4-only", 128, 100_000, g, samples=40, seed=0, dtype="float64")
    assert np.all(np.isfinite(c.mass))


def test_g_zero_is_uniform_competition():
    c = simulate_mass("t4-only", 128, 512, [0.0], samples=10, seed=0)
    assert np.allclose(c.mass, 1 / 511, rtol=1e-6) and np.all(c.se < 1e-9)


@pytest.mark.parametrize("variant", ["t4-only", "key-only", "symmetric-key-convention"])
def test_mass_is_monotone_in_g_where_theory_says_so(variant):
    # quadrature: non-decreasing on [0, 4] (t3-inclusive is not: it peaks near g = 1.7)
    g = np.linspace(0, 4, 81)
    assert np.all(np.diff(exact_mass(variant, 64, 512, g)) >= -1e-12)
    # simulation on common random numbers, below the plateau region
    gc = exact_gamma_c(variant, 64, 512)
    gs = np.linspace(0.3, 1.3, 21) * gc
    c = simulate_mass(variant, 64, 512, gs, samples=3000, seed=3)
    assert np.all(np.diff(c.mass) > 0)


def test_t3_inclusive_mass_is_not_monotone():
    m = exact_mass("t3-inclusive", 32, 512, [1.6, 4.0])
    assert m[1] < m[0] - 0.1


def test_mc_gamma_c_brackets_the_exact_root():
    r = mc_gamma_c("t4-only", 128, 512, samples=4000, seed=5)
    gc = exact_gamma_c("t4-only", 128, 512)
    assert r.ci_low < r.gamma_c < r.ci_high
    width = r.ci_high - r.ci_low
    assert abs(r.gamma_c - gc) < 2 * width and width < 2e-3
    assert np.isnan(mc_gamma_c("t4-only", 16, 512, samples=500, seed=5).gamma_c)  # never reaches 1/2


@pytest.mark.parametrize("kwargs,match", [
    (dict(samples=0), "samples"), (dict(gammas=[]), "gamma"), (dict(gammas=[-0.1]), "gamma"),
    (dict(T=2), "T"), (dict(T=100.5), "T"), (dict(dk=0), "dk"), (dict(variant="x"), "variant"),
    (dict(seed=-1), "seed"), (dict(sigma0=-1), "sigma0"), (dict(dtype="float16"), "dtype")])
def test_bad_input(kwargs, match):
    args = dict(variant="t4-only", dk=128, T=512, gammas=[0.5], samples=10)
    args.update(kwargs)
    with pytest.raises(ParameterError, match=match):
        simulate_mass(args.pop("variant"), args.pop("dk"), args.pop("T"), args.pop("gammas"), **args)


@pytest.mark.slow
def test_batch_means_interval_covers_the_exact_root():
    gc = exact_gamma_c("t4-only", 128, 512)
    hits = [mc_gamma_c("t4-only", 128, 512, samples=2000, seed=1000 + s) for s in range(60)]
    coverage = np.mean([r.ci_low <= gc <= r.ci_high for r in hits])
    assert 0.85 <= coverage <= 1.0  # nominal 0.95; binomial sd 0.028 for 60 draws


def test_mc_gamma_c_refuses_an_oversized_fine_grid_before_running(monkeypatch):
    from theorylab.resources import ResourceError
    from theorylab.psa import montecarlo as competition

    def never(*args, **kwargs):
        raise AssertionError("simulated before the size was checked")

    monkeypatch.setattr(competition, "simulate_mass", never)
    with pytest.raises(ResourceError, match=r"^samples, fine_points, T too large: the call needs 45\.2 TiB of memory"):
        mc_gamma_c("t4-only", 64.0, 16, fine_points=10**9)           # was: allocate, then run out of memory
    monkeypatch.setenv("THEORYLAB_MAX_MEMORY", "1M")
    need = mc_gamma_c_cost(16, 20000, 4096).memory
    assert need > 2**20
    with pytest.raises(ResourceError, match="over the limit 1 MiB"):
        mc_gamma_c("t4-only", 64.0, 16, fine_points=4096)
    for bad, match in ((3, r"^fine_points must be an integer >= 4 \(got 3\)"), (2.5, "^fine_points must be an integer"),
                       ("32", "^fine_points must be an integer"), (10**400, "^fine_points|too large")):
        with pytest.raises(ParameterError, match=match):
            mc_gamma_c("t4-only", 64.0, 16, fine_points=bad)


def test_simulate_mass_counts_the_coupling_grid_in_its_memory_check(monkeypatch):
    from theorylab.resources import ResourceError

    monkeypatch.setenv("THEORYLAB_MAX_MEMORY", "1M")
    with pytest.raises(ResourceError, match="^samples, gammas, T too large"):
        simulate_mass("t4-only", 64.0, 16, np.linspace(0, 1, 100), samples=4096)   # a (2048, 100) block x 3
    assert simulate_mass("t4-only", 64.0, 16, [0.5, 1.0], samples=64).mass.shape == (2,)

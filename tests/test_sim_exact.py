"""Quadrature of the mean target mass: independent adaptive quadrature, node doubling, limits."""
import numpy as np
import pytest
from scipy.integrate import quad

from theorylab.errors import ParameterError
from theorylab.psa.scoremodel import VARIANTS
from theorylab.psa.transition import annealed_gamma_c, argmax_plateau
from theorylab.psa.quadrature import argmax_limit, exact_gamma_c, exact_mass, mass_given


def _adaptive_mass(delta, sigma, m):
    """M = int exp(t - e^t) phi(e^t)^m dt with nested adaptive quadrature (scipy.quad)."""
    def one_minus_phi(u):
        f = lambda x: -np.expm1(-u * np.exp(x - delta)) * np.exp(-x * x / (2 * sigma**2)) / (sigma * np.sqrt(2 * np.pi))
        return quad(f, -np.inf, np.inf, epsabs=0, epsrel=1e-13, limit=500)[0]
    f = lambda t: np.exp(t - np.exp(t) + m * np.log1p(-one_minus_phi(np.exp(t))))
    with np.errstate(over="ignore"):
        return quad(f, -45, 5, epsabs=1e-15, epsrel=1e-13, limit=200, points=[0])[0]


@pytest.mark.parametrize("delta,sigma,m", [
    (0.7863**2 * np.sqrt(128), 2 * 0.7863**2, 510),     # the t4-only crossing at (128, 512)
    (0.3 * np.sqrt(64), 0.3, 62),                       # small sigma (Gauss-Hermite branch)
    (2.245**2 * np.sqrt(128), 2 * 2.245**2, 510),       # the annealed band's upper edge
    (0.9**2 * np.sqrt(64), 2 * 0.9**2, 99_998)])         # T = 100,000
def test_quadrature_matches_adaptive_quadrature_to_1e_12(delta, sigma, m):
    assert abs(mass_given(delta, sigma, m) - _adaptive_mass(delta, sigma, m)) < 1e-12


@pytest.mark.parametrize("variant", VARIANTS)
def test_node_doubling_changes_nothing_up_to_g_10(variant):
    g = np.array([0.05, 0.3, 0.5, 0.8, 1.0, 2.0, 4.0, 10.0])
    a = exact_mass(variant, 100, 1000, g)
    b = exact_mass(variant, 100, 1000, g, refine=2)
    assert np.all(np.isfinite(a)) and np.max(np.abs(a - b)) < 1e-12


def test_limits():
    assert exact_mass("t4-only", 128, 512, 0.0) == pytest.approx(1 / 511, rel=1e-13)
    m = exact_mass("t4-only", 128, 512, 10.0)
    assert abs(m - argmax_plateau(128, 512)) < 1e-8
    assert np.allclose(argmax_limit("t4-only", [32, 64], 512), argmax_plateau([32, 64], 512), rtol=1e-14)
    assert np.all(np.isfinite(exact_mass("t4-only", 128, 100_000, [0, 1, 5, 10])))


def test_target_noise_is_an_average_over_the_gap():
    from theorylab.psa.quadrature import _target_rule
    z, w = _target_rule(1.5)                      # composite Gauss-Legendre beyond sigma0 = 1
    assert z.size == 10 * 14 and abs(w.sum() - 1) < 1e-14 and abs(w @ z**2 - 1) < 1e-13
    g, s0 = 0.8, 1.5
    delta, sigma = g * g * np.sqrt(128), 2 * g * g
    want = sum(wi * mass_given(delta + s0 * zi, sigma, 510) for zi, wi in zip(z, w))
    assert exact_mass("t4-only", 128, 512, g, sigma0=s0) == pytest.approx(want, abs=1e-15)


def test_exact_gamma_c_is_a_root_and_near_the_annealed_law_at_large_dk():
    gc = exact_gamma_c("t4-only", 128, 512)
    assert abs(exact_mass("t4-only", 128, 512, gc) - 0.5) < 1e-12
    assert exact_mass("t4-only", 128, 512, gc - 1e-3) < 0.5
    for variant in VARIANTS:
        e, a = exact_gamma_c(variant, 4096, 512), float(annealed_gamma_c(variant, 4096, 512))
        assert abs(e - a) / a < 0.01
    assert np.isnan(exact_gamma_c("t4-only", 16, 512))  # plateau Phi(2)^510 < 1/2


def test_bad_input():
    with pytest.raises(ParameterError, match="gamma"):
        exact_mass("t4-only", 128, 512, [-1.0])
    with pytest.raises(ParameterError, match="T"):
        exact_gamma_c("t4-only", 128, 2)
    with pytest.raises(ParameterError, match="sigma0"):
        exact_mass("t4-only", 128, 512, 1.0, sigma0=-1)


@pytest.mark.parametrize("call,name", [
    (lambda: exact_mass("t4-only", 128, 512.5, 1.0), "T must be an integer"),   # m = 510.5 distractors
    (lambda: exact_gamma_c("t4-only", 128, 512.5), "T must be an integer"),
    (lambda: exact_mass("t4-only", 128, 512, 1.0, refine=0), "refine"),
    (lambda: exact_mass("t4-only", 128, 512, 1.0, refine=1.5), "refine"),
    (lambda: exact_gamma_c("t4-only", 128, 512, xtol=0), "xtol"),
    (lambda: mass_given(1.0, -1.0, 10), "sigma"),
    (lambda: mass_given(1.0, 1.0, -1), "m "),
    (lambda: mass_given(np.nan, 1.0, 10), "delta"),
    (lambda: mass_given(1.0, 1.0, 10, refine=0), "refine")])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ParameterError, match=name):
        call()


def test_integer_context_length():
    from theorylab.psa.quadrature import integer_context_length
    assert integer_context_length(512.0) == 512 and isinstance(integer_context_length(np.int64(7)), int)
    with pytest.raises(ParameterError, match=r"<= 100 \(got 101\)"):
        integer_context_length(101, high=100)

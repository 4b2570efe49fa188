"""Exact row statistics (entropy, distractor entropy, sum p^2) against independent integration routes."""
import numpy as np
import pytest
from scipy.integrate import quad

from theorylab.errors import ParameterError
from theorylab.psa.scoremodel import VARIANTS
from theorylab.psa.quadrature import exact_mass
from theorylab.psa.row_stats import exact_distractor_entropy, exact_row_stats, row_moments_given


def _row(ys):
    """Entropy and sum p^2 of softmax rows (target score 0, distractor log-weights ys[..., j])."""
    s = np.concatenate([np.zeros(ys.shape[:-1] + (1,)), ys], axis=-1)
    c = s.max(axis=-1, keepdims=True)
    w = np.exp(s - c)
    Z = w.sum(axis=-1, keepdims=True)
    p = w / Z
    return (np.log(Z) + c)[..., 0] - (p * s).sum(axis=-1), (p * p).sum(axis=-1)


def _distractor_entropy(xs):
    c = xs.max(axis=-1, keepdims=True)
    w = np.exp(xs - c)
    Z = w.sum(axis=-1, keepdims=True)
    return (np.log(Z) + c)[..., 0] - (w / Z * xs).sum(axis=-1)


def _one_distractor(delta, sigma):
    """m = 1 by adaptive quadrature over y ~ N(-delta, sigma^2)."""
    dens = lambda y: np.exp(-0.5 * ((y + delta) / sigma) ** 2) / (sigma * np.sqrt(2 * np.pi))
    lo, hi = -delta - 12 * sigma, -delta + 12 * sigma
    pts = [0.0] if lo < 0 < hi else None
    return [quad(lambda y: _row(np.array([[y]]))[k][0] * dens(y), lo, hi, epsabs=1e-15, epsrel=1e-13,
                 limit=500, points=pts)[0] for k in (0, 1)]


def _gauss_product(delta, sigma, m, nodes):
    """Direct integration over the m-fold Gaussian: tensor-product Gauss-Hermite (m = 2, 3)."""
    z, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / np.sqrt(2 * np.pi)
    Z = np.stack(np.meshgrid(*[z] * m, indexing="ij"), axis=-1)
    W = np.prod(np.stack(np.meshgrid(*[w] * m, indexing="ij"), axis=-1), axis=-1)
    H, I = _row(sigma * Z - delta)
    return float((W * H).sum()), float((W * I).sum()), float((W * _distractor_entropy(sigma * Z)).sum())


@pytest.mark.parametrize("delta,sigma", [(0.0, 0.3), (1.0, 0.45), (2.0, 2.0), (5.0, 3.0), (0.5, 10.0),
                                         (100.0, 50.0), (3.0, 0.6)])
def test_one_distractor_matches_adaptive_quadrature(delta, sigma):
    r = row_moments_given(delta, sigma, 1)
    H, I = _one_distractor(delta, sigma)
    assert abs(r.entropy - H) < 1e-13 and abs(r.ipr - I) < 1e-13
    assert r.distractor_entropy == 0.0  # one distractor: a point mass


@pytest.mark.parametrize("delta,sigma,m,nodes", [(0.0, 0.3, 2, 80), (1.0, 0.45, 2, 80), (2.0, 1.2, 2, 200),
                                                 (3.0, 0.8, 3, 70)])
def test_few_distractors_match_direct_gaussian_integration(delta, sigma, m, nodes):
    r = row_moments_given(delta, sigma, m)
    H, I, Hd = _gauss_product(delta, sigma, m, nodes)
    assert abs(r.entropy - H) < 1e-11 and abs(r.ipr - I) < 1e-11 and abs(r.distractor_entropy - Hd) < 1e-11


@pytest.mark.parametrize("sigma", [0.3, 2.0, 12.0])
def test_two_distractor_entropy_is_a_one_dimensional_integral(sigma):
    # H_d of two distractors depends on d = x1 - x2 ~ N(0, 2 sigma^2) only
    s = np.sqrt(2) * sigma
    h = lambda d: np.logaddexp(0, d) - d * np.exp(d - np.logaddexp(0, d))
    want = quad(lambda d: h(d) * np.exp(-0.5 * (d / s) ** 2) / (s * np.sqrt(2 * np.pi)), -12 * s, 12 * s,
                epsabs=1e-15, epsrel=1e-13, points=[0.0], limit=400)[0]
    assert abs(row_moments_given(1.0, sigma, 2).distractor_entropy - want) < 1e-13


def test_zero_noise_closed_forms():
    T, m = 512, 510
    r = exact_row_stats("t4-only", 128, T, 0.0)
    assert r.entropy == pytest.approx(np.log(T - 1), abs=1e-12)
    assert r.distractor_entropy == pytest.approx(np.log(T - 2), abs=1e-12)
    assert r.ipr == pytest.approx(1 / (T - 1), rel=1e-12) and r.participation == pytest.approx(T - 1, rel=1e-12)
    # sigma = 0, gap d: p_0 = 1/(1 + m e^-d), the distractors share the rest equally
    d = 2.5
    q = 1 / (1 + m * np.exp(-d))
    H = -q * np.log(q) - (1 - q) * np.log((1 - q) / m)
    got = row_moments_given(d, 0.0, m)
    assert got.entropy == pytest.approx(H, abs=1e-12) and got.mass == pytest.approx(q, abs=1e-14)
    assert got.ipr == pytest.approx(q * q + (1 - q) ** 2 / m, abs=1e-14)


@pytest.mark.parametrize("variant", VARIANTS)
def test_node_doubling_changes_nothing_above_1e_10(variant):
    g = np.array([0.05, 0.3, 0.8, 1.5, 4.0, 10.0])
    for dk, T in [(16, 64), (100, 32768)]:
        a = exact_row_stats(variant, dk, T, g)
        b = exact_row_stats(variant, dk, T, g, refine=2)
        for k in ("mass", "entropy", "distractor_entropy", "ipr"):
            x, y = getattr(a, k), getattr(b, k)
            assert np.all(np.isfinite(x)) and np.max(np.abs(x - y)) < 1e-10, k


def test_mass_is_the_exact_module_mass_and_bounds_hold():
    g = np.linspace(0, 3, 13)
    r = exact_row_stats("t3-inclusive", 64, 200, g)
    # same code run twice: bitwise: both sum _mass_given over the same target nodes in the same order
    assert np.array_equal(r.mass, exact_mass("t3-inclusive", 64, 200, g))
    # 0 <= H <= ln(T - 1), 1/(T - 1) <= sum p^2 <= 1, sum p^2 >= M^2
    assert np.all((r.entropy > -1e-12) & (r.entropy <= np.log(199) + 1e-12))
    assert np.all((r.ipr >= 1 / 199 - 1e-14) & (r.ipr <= 1) & (r.ipr >= r.mass**2))
    assert np.allclose(exact_distractor_entropy("t3-inclusive", 64, 200, g), r.distractor_entropy, rtol=0, atol=0)


def test_distractor_entropy_ignores_the_gap():
    a = exact_row_stats("t4-only", 16, 300, [0.9]).distractor_entropy
    b = exact_row_stats("t4-only", 1024, 300, [0.9]).distractor_entropy
    assert a == b


def test_target_noise_is_an_average_over_the_gap():
    from theorylab.psa.quadrature import _target_rule
    z, w = _target_rule(1.5)                      # composite Gauss-Legendre beyond sigma0 = 1
    assert z.size == 10 * 14 and abs(w.sum() - 1) < 1e-14 and abs(w @ z**2 - 1) < 1e-13
    g, s0 = 0.8, 1.5
    delta, sigma = g * g * np.sqrt(128), 2 * g * g
    want = sum(wi * row_moments_given(delta + s0 * zi, sigma, 510).entropy for zi, wi in zip(z, w))
    assert exact_row_stats("t4-only", 128, 512, g, sigma0=s0).entropy == pytest.approx(want, abs=1e-13)


@pytest.mark.parametrize("call,name", [
    (lambda: exact_row_stats("t4-only", 128, 512.5, 1.0), "T must be an integer"),
    (lambda: exact_row_stats("t4", 128, 512, 1.0), "variant"),
    (lambda: exact_row_stats("t4-only", 128, 512, -1.0), "gamma"),
    (lambda: exact_row_stats("t4-only", 128, 512, 1.0, sigma0=-1), "sigma0"),
    (lambda: exact_row_stats("t4-only", 128, 512, 1.0, refine=0), "refine"),
    (lambda: row_moments_given(1.0, 1.0, 0.5), "m "),
    (lambda: row_moments_given(np.nan, 1.0, 3), "delta")])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ParameterError, match=name):
        call()

"""The PSA closed-form critical couplings reproduce every number the spec quotes."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from theorylab import ParameterError
from theorylab.psa import crossing as cr, transition as tr
from theorylab.psa.scoremodel import VARIANTS, log_count, score_model


def digits(x, n):
    """x rounded to n decimals (the paper's printed digits)."""
    return round(float(x), n)


def test_t4_two_branch_numbers():
    lower, upper = tr.t4_band(128, 512)
    assert digits(lower, 4) == 0.7867 and digits(upper, 3) == 2.245
    assert digits(tr.annealed_gamma_c("t4-only", 64, 512), 3) == 1.030
    assert digits(tr.annealed_gamma_c("t4-only", 64, 15), 3) == 0.602
    assert digits(tr.crossover_dk(512), 1) == 49.9


def test_other_variants_numbers():
    assert digits(tr.annealed_gamma_c("symmetric-key-convention", 64, 15), 3) == 0.664
    assert digits(tr.annealed_gamma_c("t3-inclusive", 128, 512), 4) == 0.4132
    assert digits(tr.annealed_gamma_c("t3-inclusive", 64, 512), 3) == 0.569


def test_t3_first_root_near_31_5():
    dk = np.arange(30.0, 33.0, 0.001)
    first = dk[np.isfinite(tr.annealed_gamma_c("t3-inclusive", dk, 512))][0]
    assert digits(first, 1) == 31.5


def test_l_convention_is_ln_t_minus_1():
    assert log_count(512) == pytest.approx(np.log(511), rel=1e-15)


def test_no_root_is_a_result_not_an_error():
    L = log_count(512)
    assert np.isnan(tr.annealed_gamma_c("t4-only", 8 * L - 0.01, 512))
    assert np.isnan(tr.annealed_gamma_c("key-only", 4 * L + 2 - 0.01, 512))
    assert np.isfinite(tr.annealed_gamma_c("key-only", 4 * L + 2 + 0.01, 512))
    law = tr.gamma_c("key-only", 10, 512)
    assert law.branch == "none" and np.isnan(law.gamma_c)


def test_above_one_interval_and_asymptotes():
    T = 512.0
    lo, hi = tr.t4_above_one_interval(T)
    inside = np.linspace(float(lo), float(hi), 50)[:-1]
    assert np.all(tr.annealed_gamma_c("t4-only", inside, T) > 1.0)
    assert tr.annealed_gamma_c("t4-only", float(hi) + 1e-6, T) < 1.0
    lo5, hi5 = tr.t4_above_one_interval(5)  # L = ln 4 < 2: empty, and gamma_c < 1 everywhere
    assert lo5 >= hi5 and np.nanmax(tr.annealed_gamma_c("t4-only", np.linspace(8, 400, 999), 5)) < 1.0
    dk = 1e10
    assert tr.annealed_gamma_c("t4-only", dk, T) / tr.t4_asymptote(dk, T) == pytest.approx(1, rel=1e-3)
    assert tr.annealed_gamma_c("t3-inclusive", dk, T) / tr.t3_asymptote(dk, T) == pytest.approx(1, rel=1e-3)


def test_closed_forms_agree_with_generic_polynomial_root():
    dk, T = np.meshgrid(np.geomspace(8, 1e5, 40), np.geomspace(3, 1e6, 30))
    for v in VARIANTS:
        closed = tr.annealed_gamma_c(v, dk, T)
        generic = cr.crossing_root(score_model(v), dk, T)
        # discrete (a root exists or not): no grid point lies within 1e-9 of the existence boundary
        assert np.array_equal(np.isnan(closed), np.isnan(generic)), v
        ok = np.isfinite(closed)
        np.testing.assert_allclose(closed[ok], generic[ok], rtol=1e-9)


def test_argmax_plateau_matches_direct_power():
    from scipy.stats import norm
    assert tr.argmax_plateau(128, 512) == pytest.approx(norm.cdf(np.sqrt(128) / 2) ** 510, rel=1e-12)


def test_argmax_probability_t4_is_the_plateau_at_every_g():
    g = np.array([0.1, 1.0, 7.0])
    np.testing.assert_allclose(tr.argmax_probability("t4-only", 64, 512, g), tr.argmax_plateau(64, 512), rtol=1e-13)


@pytest.mark.parametrize("variant", VARIANTS)
def test_argmax_probability_finite_g_and_its_limit(variant):
    from scipy.stats import norm
    model, dk, T = score_model(variant), 50.0, 300
    g = np.array([0.3, 2.0])
    snr = model.gap(g, dk) / np.sqrt(model.variance(g))
    np.testing.assert_allclose(tr.argmax_probability(variant, dk, T, g), norm.cdf(snr) ** (T - 2), rtol=1e-12)
    # the g = None limit is where finite g tends (relative gap shrinking like 1/g)
    far = [abs(float(tr.argmax_probability(variant, dk, T, G)) / float(tr.argmax_probability(variant, dk, T)) - 1)
           for G in (1e2, 1e4)]
    assert far[1] < 1e-3 and far[1] < far[0] or far == [0.0, 0.0]


def test_argmax_probability_limit_when_degrees_differ():
    from theorylab.psa.scoremodel import ScoreModel
    steep = ScoreModel("t4-only", (0.0, 0.0, 1.0), (1.0, 0.0, 2.0), "gap outgrows sigma")
    flat = ScoreModel("t4-only", (0.0, 1.0), (1.0, 0.0, 0.0, 0.0, 4.0), "sigma outgrows gap")
    assert tr.argmax_probability(steep, 64, 512) == 1.0
    assert tr.argmax_probability(flat, 64, 12) == pytest.approx(0.5 ** 10, rel=1e-14)   # rounding of Phi(0)^10


def test_argmax_probability_rejects_bad_g():
    with pytest.raises(ParameterError, match="^g must"):
        tr.argmax_probability("t4-only", 64, 512, g=0)


def test_key_only_threshold_is_where_the_root_appears():
    for T in (5, 512, 1e5):
        d = float(tr.key_only_threshold(T))
        assert d == pytest.approx(4 * float(log_count(T)) + 2, rel=1e-15)
        assert np.isnan(tr.annealed_gamma_c("key-only", d * (1 - 1e-9), T))
        assert np.isfinite(tr.annealed_gamma_c("key-only", d * (1 + 1e-9), T))
    with pytest.raises(ParameterError, match="^T must"):
        tr.key_only_threshold(2)


@pytest.mark.parametrize("steps", [-1, 1.5, "4"])
def test_crossing_root_rejects_bad_newton_steps(steps):
    with pytest.raises(ParameterError, match="^newton_steps must"):
        cr.crossing_root(score_model("t3-inclusive"), 64, 512, newton_steps=steps)


def test_crossing_root_without_polishing_is_the_eigenvalue_root():
    raw = cr.crossing_root(score_model("t4-only"), 128, 512, newton_steps=0)
    assert raw == pytest.approx(float(tr.annealed_gamma_c("t4-only", 128, 512)), rel=1e-10)


@pytest.mark.parametrize("bad", [{"dk": -1}, {"dk": 0}, {"dk": np.nan}, {"T": 2}, {"T": np.inf}, {"dk": "x"}])
def test_bad_input_names_the_parameter(bad):
    args = {"dk": 64, "T": 512, **bad}
    name = next(iter(bad))
    with pytest.raises(ParameterError, match=rf"^{name} must"):
        tr.gamma_c("t4-only", args["dk"], args["T"])


def test_bad_variant_and_c():
    with pytest.raises(ParameterError, match="variant must be one of"):
        tr.gamma_c("nope", 64, 512)
    with pytest.raises(ParameterError, match="^c must"):
        tr.gamma_c("t4-only", 64, 512, c=0)


dks = st.floats(1.0, 1e6, allow_nan=False)
Ts = st.floats(3.0, 1e7, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(dk=dks, T=Ts, variant=st.sampled_from(VARIANTS))
def test_every_root_satisfies_its_crossing_equation(dk, T, variant):
    g = tr.annealed_gamma_c(variant, dk, T)
    if np.isfinite(g):
        residual, scale = cr.crossing_residual(score_model(variant), g, dk, T)
        assert abs(residual) <= 1e-12 * scale


@settings(max_examples=100, deadline=None)
@given(dk=dks, T=Ts, step=st.floats(1.001, 2.0))
def test_t4_gamma_c_decreases_in_dk_and_increases_in_T(dk, T, step):
    """Within each branch. Across d*_k = 8L the law steps by the factor c (< 1), so
    the two-branch law as a whole is not monotone there (see docs/conventions.md)."""
    law = lambda d, t: tr.gamma_c("t4-only", d, t)
    here, wider, longer = law(dk, T), law(dk * step, T), law(dk, T * step)
    if wider.branch == here.branch:
        assert wider.gamma_c <= here.gamma_c
    if longer.branch == here.branch:
        assert longer.gamma_c >= here.gamma_c


def test_two_branch_law_steps_by_c_at_the_crossover():
    T, c = 512.0, 0.7
    dstar = float(tr.crossover_dk(T))
    above, below = tr.gamma_c("t4-only", dstar, T, c=c), tr.gamma_c("t4-only", dstar * (1 - 1e-12), T, c=c)
    assert (above.branch, below.branch) == ("mean-field", "condensed")
    assert above.gamma_c == pytest.approx(tr.freezing_coupling(T), rel=1e-5)  # root meets REM freezing
    assert below.gamma_c / above.gamma_c == pytest.approx(c, rel=1e-5)

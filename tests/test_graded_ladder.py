"""The selection ladder's offline side: designs, the pilot sample, the six arms, the pre-registration file."""
import json

import numpy as np
import pytest

from theorylab.errors import ParameterError
from theorylab.graded import grades, optimal
from theorylab.graded import ladder as lad
from theorylab.graded import prereg as pr

DESIGN = lad.geometric_design(0.6, 0.3, levels=4, d=16)


@pytest.fixture(scope="module")
def small_prereg():
    return pr.preregister(DESIGN, 4000, seed=3, bootstrap=40)


def test_design_conventions():
    assert DESIGN.dims.tolist() == [4, 4, 4, 4] and DESIGN.d == 16
    assert DESIGN.alpha.sum() == pytest.approx(1) and DESIGN.tau.sum() == pytest.approx(1)
    assert np.linalg.norm(DESIGN.target()) == pytest.approx(1)
    assert DESIGN.null_risk == pytest.approx(np.sum(DESIGN.alpha * DESIGN.tau))
    np.testing.assert_allclose(grades.reduce_levels(DESIGN.alpha, DESIGN.dims), DESIGN.a)


@pytest.mark.parametrize("kwargs, match", [
    ({"a": (0.5, 0.5), "s": (0.5, 0.5), "d": 15}, "multiple"),
    ({"a": (0.5, 0.4), "s": (0.5, 0.5)}, "sum to 1"),
    ({"a": (0.5, 0.5), "s": (0.5, 0.5), "C": 0.5}, "C must"),
    ({"a": (0.5, 0.5), "s": (0.5, 0.5), "sigma_xi": 0}, "sigma_xi"),
])
def test_design_validation(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        lad.profile_design(**kwargs)


def test_estimates_from_population_statistics_are_exact():
    n = 1000.0
    XtX = n * np.diag(DESIGN.tau)
    a_hat, s_hat = lad.estimate_levels(XtX, XtX @ DESIGN.target(), DESIGN.dims)
    np.testing.assert_allclose(a_hat, DESIGN.a, rtol=1e-12)
    np.testing.assert_allclose(s_hat, DESIGN.s, rtol=1e-12)


@pytest.mark.parametrize("n", [40, 6400])   # blocks drawn row by row (40/64 < d) and by Bartlett (100 >= d)
def test_pilot_statistics_have_the_model_moments(n):
    """E[X^T X] = n Sigma and E[X^T y] = n Sigma w*: averaged over pilots, within 4 standard errors."""
    pilots = [lad.draw_pilot(DESIGN, n, seed=s) for s in range(300)]
    XtX = np.array([p.XtX.sum(0) for p in pilots])
    Xty = np.array([p.Xty.sum(0) for p in pilots])
    for got, want in ((np.diagonal(XtX, axis1=1, axis2=2), n * DESIGN.tau),
                      (Xty, n * DESIGN.tau * DESIGN.target())):
        z = (got.mean(0) - want) / (got.std(0, ddof=1) / np.sqrt(len(pilots)))
        assert np.max(np.abs(z)) < 4.5
    # the variance of a diagonal entry of a Wishart(n, Sigma) is 2 n sigma^4
    var = np.diagonal(XtX, axis1=1, axis2=2).var(0, ddof=1)
    np.testing.assert_allclose(var / (2 * n * DESIGN.tau ** 2), 1, atol=0.35)


def test_pilot_is_reproducible_and_needs_more_rows_than_d():
    a, b = lad.draw_pilot(DESIGN, 500, seed=7), lad.draw_pilot(DESIGN, 500, seed=7)
    # same code run twice: bitwise (seed 7 twice)
    assert np.array_equal(a.XtX, b.XtX) and np.array_equal(a.Xty, b.Xty)
    assert not np.array_equal(a.XtX, lad.draw_pilot(DESIGN, 500, seed=8).XtX)
    with pytest.raises(ParameterError, match="n_pilot"):
        lad.draw_pilot(DESIGN, 16)


def test_arms_rules():
    pilot = lad.draw_pilot(DESIGN, 20000, seed=1)
    arms = {a.name: a for a in lad.build_arms(DESIGN, pilot, seed=5)}
    assert list(arms) == list(lad.ARMS)
    for arm in arms.values():
        assert arm.g.shape == (4,) and np.all(arm.g >= 1 - 1e-12) and np.all(arm.g <= DESIGN.C + 1e-12)
    # exact: the uniform arm is np.ones
    assert np.array_equal(arms["uniform"].g, np.ones(4))
    np.testing.assert_allclose(arms["taxonomic"].g, [1, 2 ** (1 / 3), 2 ** (2 / 3), 2])
    opt = optimal.clipped_grades(DESIGN.a, DESIGN.s, DESIGN.C)
    np.testing.assert_allclose(arms["oracle"].g, opt.g)
    a_hat, s_hat = lad.pilot_estimates(pilot, DESIGN.dims)
    np.testing.assert_allclose(arms["educated"].g, optimal.clipped_grades(a_hat, s_hat, DESIGN.C).g)
    np.testing.assert_allclose(arms["proxy"].g, optimal.clipped_grades(np.full(4, 0.25), s_hat, DESIGN.C).g)
    # same code run twice: bitwise (build_arms calls random_arm with seed 5)
    assert np.array_equal(lad.random_arm(DESIGN, 5).g, arms["random"].g)
    assert not np.array_equal(lad.random_arm(DESIGN, 6).g, arms["random"].g)


def test_uniform_inner_product_is_zero_for_any_profiles():
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, s = rng.dirichlet(np.ones(4), size=2)
        d = lad.profile_design(a, s, d=8)
        assert grades.admissibility(lad.q_of(lad.uniform_arm(d).g), a, s) == 0.0


def test_proxy_reads_only_the_data_statistics():
    """Same data profile, different target: the pilot's X^T X is the same draw, so the proxy's grades agree."""
    other = lad.profile_design(lad.PEAKED[0], DESIGN.s, d=16)
    p1, p2 = lad.draw_pilot(DESIGN, 3000, seed=2), lad.draw_pilot(other, 3000, seed=2)
    # same code run twice: bitwise: the pilot's X does not depend on the target profile
    assert np.array_equal(p1.XtX, p2.XtX)
    np.testing.assert_array_equal(lad.proxy_arm(DESIGN, p1).g, lad.proxy_arm(other, p2).g)
    assert not np.allclose(lad.educated_arm(DESIGN, p1).g, lad.educated_arm(other, p2).g)


def test_educated_approaches_oracle_with_a_large_pilot():
    lam_c = optimal.clipped_grades(DESIGN.a, DESIGN.s, DESIGN.C).Lambda
    excess = [float(grades.Lambda(lad.educated_arm(DESIGN, lad.draw_pilot(DESIGN, n, seed=4)).g, DESIGN.a, DESIGN.s))
              / lam_c - 1 for n in (2 ** 10, 2 ** 20)]
    assert excess[1] < 1e-3 and excess[1] < excess[0]


def test_preregistration_values(small_prereg):
    p = small_prereg
    names = [a.name for a in p.arms]
    assert names == list(lad.ARMS)
    for arm in p.arms:
        assert arm.ip_hat == pytest.approx(grades.admissibility(arm.q, p.a_hat, p.s_hat))
        assert arm.Lambda_hat == pytest.approx(float(grades.Lambda(np.array(arm.g), p.a_hat, p.s_hat)))
        assert arm.ip_true == pytest.approx(grades.admissibility(arm.q, DESIGN.a, DESIGN.s))
        assert 0 <= arm.sign_kept <= 1 and arm.ip_hat_ci[0] <= arm.ip_hat_ci[1]
    assert p.arm("uniform").ip_hat == 0 and p.arm("uniform").sign_kept == 1
    ranks = sorted(p.arms, key=lambda a: -a.ip_hat)
    assert [a.name for a in ranks] == p.predicted_order
    assert p.BC_hat_ci[0] <= p.BC_hat_ci[1] and p.Lambda_star_C_true == pytest.approx(
        optimal.clipped_grades(DESIGN.a, DESIGN.s, DESIGN.C).Lambda)


def test_preregistration_file_roundtrip_is_exact(small_prereg, tmp_path):
    path = str(tmp_path / "p.json")
    sha = pr.write(small_prereg, path)
    back, sha2 = pr.read(path)
    assert sha == sha2 and pr.to_json(back) == pr.to_json(small_prereg)
    assert back.predicted_order == small_prereg.predicted_order


@pytest.mark.parametrize("mutate, match", [
    (lambda b: "not json", "not valid JSON"),
    (lambda b: {**b, "format": "other/1"}, "not a ladder pre-registration"),
    (lambda b: {k: v for k, v in b.items() if k != "arms"}, "missing or malformed"),
    (lambda b: {**b, "arms": [{**b["arms"][0], "g": [1, 1, 1, 9]}] + b["arms"][1:]}, "grades in"),
    (lambda b: {**b, "arms": [{**b["arms"][0], "g": [1, 1]}] + b["arms"][1:]}, "grades in"),
    (lambda b: {**b, "arms": b["arms"][1:]}, "include 'uniform'"),
    (lambda b: {**b, "design": {**b["design"], "a": [0.5, 0.5, 0.5, 0.5]}}, "sum to 1"),
])
def test_malformed_preregistration_is_one_parameter_error(small_prereg, mutate, match):
    body = json.loads(pr.to_json(small_prereg))
    new = mutate(body)
    text = new if isinstance(new, str) else json.dumps(new)
    with pytest.raises(ParameterError, match=match) as info:
        pr.from_json(text)
    assert "\n" not in str(info.value)


def test_average_ranks_match_scipy():
    from scipy.stats import rankdata

    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(30, 7)).astype(float)       # many ties
    np.testing.assert_array_equal(pr.average_ranks(X), rankdata(X, axis=1))
    np.testing.assert_array_equal(pr.predicted_ranks([0.0, 0.5, 0.5, -1.0]), [3, 1.5, 1.5, 4])

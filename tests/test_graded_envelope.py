"""Minimax envelope (GLLM Lem. 3-4, Thm. 4.1) and the risk simulation of graded.risk_sim."""
import numpy as np
import pytest

from theorylab.errors import ParameterError
from theorylab.graded import envelope as env
from theorylab.graded import grades, optimal
from theorylab.graded import risk_sim as gr


def test_caps_envelope_and_window_formulas():
    model = env.stratified_model(0.6, 0.3, 4, 64, sigma_xi=1.0)
    a, s = grades.geometric_profiles(0.6, 0.3, 4)
    # m_sat = d^2 sigma^2 / (L^2 s_0) (Lem. 4) and cap_0^unif = (L/d) s_0
    assert model.m_sat == pytest.approx(64 ** 2 / (16 * s[0]), rel=1e-14)
    assert model.uniform.caps[0] == pytest.approx(4 / 64 * s[0], rel=1e-14)
    assert model.window == (4, int(np.floor(model.m_sat / 2)))
    # cap ratio = g_0^2 sum a g^-2 = cap_0^gr / cap_0^unif, and it is the max graded cap under the grade condition
    assert env.grade_condition(model.g, 0.6, 0.3)
    assert model.graded.caps.max() == pytest.approx(model.graded.caps[0])
    assert model.graded.caps[0] / model.uniform.caps[0] == pytest.approx(model.cap_ratio, rel=1e-13)
    # envelope at small m is sum of caps (S empty); at huge m it is d * eps^2
    assert env.envelope(model.uniform.caps, model.dims, 1.0, 4) == pytest.approx(model.uniform.caps.sum())
    big = 1e9
    assert env.envelope(model.uniform.caps, model.dims, 1.0, big) == pytest.approx(64 / big)
    assert not env.worth_estimating(model.uniform.caps, model.dims, 1.0, model.window[1]).any()


@pytest.mark.parametrize("nu,mu", optimal.TABLE3_PARAMETERS)
def test_theorem41_deterministic_factors(nu, mu):
    model = env.stratified_model(nu, mu, 4, 64)
    low, high = env.theorem41_factors(nu, mu)
    assert low * model.Lambda <= model.cap_ratio <= high * model.Lambda


def test_window_empty_and_bad_input():
    assert env.window(7.9) is None and env.window(8.0) == (4, 4)
    with pytest.raises(ParameterError):
        env.stratified_model(0.6, 0.3, 4, 63)
    with pytest.raises(ParameterError):
        env.stratified_model(0.6, 0.3, 0, 64)
    with pytest.raises(ParameterError):
        env.stratified_model(0.6, 0.3, 4, 64, sigma_xi=0)


def test_simulation_matches_exact_risk_and_sits_under_3M():
    model = env.stratified_model(0.6, 0.3, 4, 32, sigma_xi=1.0)
    ms = [4, int(model.m_sat // 2), 3 * int(model.m_sat), 10 * int(model.m_sat)]
    res = gr.simulate(model, ms, reps=150, seed=11)
    assert len(res.rows) == len(ms) * 2 * len(gr.TARGETS)
    z = [(r["risk_mc"] - r["risk_exact"]) / r["se"] for r in res.rows if r["S_levels"] != "-"]
    assert z and max(abs(x) for x in z) < 4.5
    for r in res.rows:
        assert r["upper_applies"] and r["upper_ok"]
        if r["lower_ok"] is not None:
            assert r["lower_ok"]
    inside = [r for r in res.ratio_rows if r["in_window"]]
    assert inside and all(r["ratio_exact"] == pytest.approx(model.cap_ratio, rel=1e-12) for r in inside)
    # reproducible: same seed, same numbers
    again = gr.simulate(model, ms, reps=150, seed=11)
    # same code run twice: bitwise
    assert [r["risk_mc"] for r in again.rows] == [r["risk_mc"] for r in res.rows]


def test_two_point_lower_bound_is_below_zero_estimator_and_envelope_scale():
    # for tiny m the bound approaches the cap (estimating 0 is nearly optimal); it never exceeds it
    cap = 0.04
    for m in [1, 4, 50, 1000]:
        lb = gr.two_point_lower_bound(cap, 1.0, m)
        assert 0 < lb <= cap
    assert gr.two_point_lower_bound(cap, 1.0, 1000) < gr.two_point_lower_bound(cap, 1.0, 4)


@pytest.mark.parametrize("call, fragment", [
    (lambda: env.theorem41_factors(0.3, 0.6), "0 < mu < nu < 1"),          # r > 1: lower factor negative
    (lambda: env.theorem41_factors(0.5, 0.5), "0 < mu < nu < 1"),          # r = 1: lower factor 0
    (lambda: env.theorem41_factors(1.0, 0.3), "0 < mu < nu < 1"),
    (lambda: env.grade_condition([1.0, 1.2], 0.0, 0.3), "0 < nu < 1 and 0 < mu < 1"),   # was ZeroDivisionError
    (lambda: env.grade_condition([1.0, 1.2], 0.6, 1.0), "0 < nu < 1 and 0 < mu < 1"),
    (lambda: env.stratified_model(1.5, 0.3, 4, 64), "0 < nu < 1 and 0 < mu < 1"),
    (lambda: env.caps([0.1, 0.2], [1.0, 1.0, 1.0], 1.0), "sigma2 and D"),  # was a numpy broadcast error
    (lambda: gr.two_point_lower_bound(0.04, 0.0, 10), "sigma_xi"),          # was NaN
    (lambda: gr.two_point_lower_bound(0.04, 1.0, 10, nodes=0), "nodes"),   # was NaN
])
def test_regime_and_shape_errors_are_parameter_errors(call, fragment):
    with pytest.raises(ParameterError) as exc:
        call()
    assert fragment in str(exc.value) and "\n" not in str(exc.value)


def test_theorem41_regime_edges_accepted():
    low, high = env.theorem41_factors(0.6, 0.3)
    assert low == pytest.approx(1 - np.sqrt(0.5)) and high == pytest.approx(1 / 0.7)
    # Lem. 4's predicate needs only Cor. 3's regime: (nu mu)^(-1/4) = 0.18^(-1/4) = 1.535
    assert env.grade_condition([1.0, 1.5], 0.3, 0.6) and not env.grade_condition([1.0, 1.6], 0.3, 0.6)

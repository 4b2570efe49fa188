"""Grades, Lambda, BC, optimal and clipped grades: Table 3 (GLLM §7.6) and Prop. 7-12."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theorylab.errors import ParameterError
from theorylab.graded import grades, optimal

# Table 3 of the paper, as printed: (nu, mu) -> Lambda*, Lambda*_C, token gain, g*_C
TABLE3 = {
    (0.5, 0.2): ("0.279", "0.424", "2.36", ("1.00", "1.31", "2.00", "2.00")),
    (0.6, 0.3): ("0.459", "0.531", "1.88", ("1.00", "1.30", "2.00", "2.00")),
    (0.7, 0.3): ("0.534", "0.582", "1.72", ("1.00", "1.32", "1.95", "2.00")),
    (0.8, 0.4): ("0.700", "0.708", "1.41", ("1.00", "1.27", "1.69", "2.00")),
}


def _printed(x: float, like: str) -> str:
    return f"{x:.{len(like.split('.')[1])}f}"


@pytest.mark.parametrize("nu,mu", list(TABLE3))
def test_table3_every_column_to_printed_digits(nu, mu):
    lam, lam_c, gain, g = TABLE3[(nu, mu)]
    row = optimal.table3_row(nu, mu, levels=4, C=2.0)
    assert _printed(row.Lambda_star, lam) == lam
    assert _printed(row.Lambda_star_C, lam_c) == lam_c
    assert _printed(row.token_gain, gain) == gain
    assert tuple(_printed(x, p) for x, p in zip(row.g_star_C, g)) == g


def test_prop10_bound_at_06_03():
    row = optimal.table3_row(0.6, 0.3, 4, 2.0)
    assert f"{row.bound:.3f}" == "0.459" and f"{row.Lambda_star_C:.3f}" == "0.531"
    for nu, mu in optimal.TABLE3_PARAMETERS:
        r = optimal.table3_row(nu, mu)
        assert r.bound <= r.Lambda_star_C


def test_closed_form_bc_matches_direct_sum():
    for nu, mu, L in [(0.5, 0.2, 4), (0.9, 0.1, 7), (0.3, 0.3, 5), (0.999, 0.5, 3), (0.4, 0.9, 6)]:
        a, s = grades.geometric_profiles(nu, mu, L)
        assert grades.bc_geometric(nu, mu, L) == pytest.approx(grades.bhattacharyya(a, s), rel=1e-13)


def test_level_reduction_prop11():
    a, s = grades.geometric_profiles(0.6, 0.3, 4)
    dims = [3, 5, 2, 6]
    alpha, tau = grades.expand_levels(a, dims), grades.expand_levels(s, dims)
    assert grades.bhattacharyya(alpha, tau) == pytest.approx(grades.bhattacharyya(a, s), rel=1e-14)
    full, reduced = optimal.clipped_grades(alpha, tau, 2.0), optimal.clipped_grades(a, s, 2.0)
    assert full.Lambda == pytest.approx(reduced.Lambda, rel=1e-12)
    np.testing.assert_allclose(full.g, np.repeat(reduced.g, dims), rtol=1e-10)
    np.testing.assert_allclose(grades.reduce_levels(alpha, dims), a, rtol=1e-14)
    lev, a2, s2 = optimal.level_program(alpha, tau, dims, 2.0)
    np.testing.assert_allclose(np.repeat(lev.g, dims), full.g, rtol=1e-10)
    np.testing.assert_allclose(a2, a, rtol=1e-14)
    with pytest.raises(ParameterError):
        optimal.level_program(np.array([0.1, 0.2, 0.3, 0.4]), np.full(4, 0.25), [2, 2], 2.0)


def test_clipped_solver_against_generic_convex_solver():
    from scipy.optimize import minimize

    rng = np.random.default_rng(7)
    for d, C in [(3, 1.5), (8, 2.0), (20, 4.0), (5, 1.0)]:
        a, t = rng.dirichlet(np.ones(d)), rng.dirichlet(np.ones(d))
        opt = optimal.clipped_grades(a, t, C)
        U = 2 * np.log(C)
        ref = minimize(lambda u: np.log(grades.Lambda(np.exp(u / 2), a, t)), np.full(d, U / 2),
                       bounds=[(0, U)] * d, method="L-BFGS-B", options={"ftol": 1e-15, "gtol": 1e-12})
        assert opt.Lambda <= np.exp(ref.fun) * (1 + 1e-9)
        assert opt.kkt_residual < 1e-10
        assert np.all((opt.g >= 1 - 1e-12) & (opt.g <= C + 1e-12)) and opt.g.min() == pytest.approx(1.0)


def test_unclipped_optimum_when_clip_is_wide():
    a, t = np.array([0.1, 0.2, 0.7]), np.array([0.5, 0.3, 0.2])
    gstar = optimal.optimal_grades(a, t)
    opt = optimal.clipped_grades(a, t, 10.0)
    np.testing.assert_allclose(opt.g, gstar, rtol=1e-10)
    assert grades.Lambda(gstar, a, t) == pytest.approx(grades.bhattacharyya(a, t) ** 2, rel=1e-14)


def test_admissibility_and_gradient_at_uniform_point():
    a, t = np.array([0.1, 0.2, 0.7]), np.array([0.5, 0.3, 0.2])
    q = np.array([0.0, 1.0, 2.0])
    assert grades.admissibility(q, a, t) == pytest.approx(0.9)
    assert grades.admissibility(q + 3.0, a, t) == pytest.approx(0.9)  # gauge invariant
    np.testing.assert_allclose(grades.gradient_u(np.zeros(3), a, t), t - a, atol=1e-15)
    # first order: a small step along an admissible q lowers Lambda below 1
    assert grades.Lambda_q(1e-3 * q, a, t) < 1.0
    assert grades.Lambda_q(-1e-3 * q, a, t) > 1.0


def test_boundary_polynomial_and_moment_maps():
    rng = np.random.default_rng(3)
    a, t = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(5))
    tt = rng.uniform(0.5, 3.0, size=(4, 5))
    np.testing.assert_allclose(grades.boundary_polynomial(tt, a, t) / np.prod(tt, axis=-1),
                               grades.Lambda(np.sqrt(tt), a, t) - 1, rtol=1e-12)
    u = 2 * np.log(optimal.optimal_grades(a, t))
    target = np.sqrt(a * t) / grades.bhattacharyya(a, t)
    np.testing.assert_allclose(grades.tilted(a, -u), target, rtol=1e-12)
    np.testing.assert_allclose(grades.tilted(t, u), target, rtol=1e-12)
    ma, mt = optimal.moment_maps(a, t, u)
    np.testing.assert_allclose(ma, mt, rtol=1e-12)
    v = np.array([0.3, -1.2, 0.7, 0.0, 0.1])
    slope = (grades.log_Lambda_u(800 * v, a, t) - grades.log_Lambda_u(400 * v, a, t)) / 400
    assert slope == pytest.approx(optimal.recession_slope(v), rel=1e-9)


def test_affine_increasing_level_grades_are_admissible_rem9():
    for nu, mu in optimal.TABLE3_PARAMETERS:
        a, s = grades.geometric_profiles(nu, mu, 4)
        for slope, icpt in [(1.0, 0.0), (0.1, 5.0), (3.0, -2.0)]:
            assert grades.admissibility(icpt + slope * np.arange(4), a, s) > 0


@pytest.mark.parametrize("call", [
    lambda: grades.profile("alpha", [0.5, 0.4]),            # sum != 1
    lambda: grades.profile("alpha", [0.0, 1.0]),            # zero entry
    lambda: grades.profile("alpha", [-0.5, 1.5]),
    lambda: grades.profiles([0.5, 0.5], [0.2, 0.3, 0.5]),   # length mismatch
    lambda: optimal.clipped_grades([0.5, 0.5], [0.5, 0.5], 0.9),  # C < 1
    lambda: optimal.clipped_grades([0.5, 0.5], [0.5, 0.5], -2),
    lambda: grades.geometric_profiles(0.5, 0.2, 0),          # levels < 1
    lambda: grades.geometric_profiles(-0.5, 0.2, 3),
    lambda: grades.geometric_profiles(1.5, 0.2, 3),          # nu >= 1: not Cor. 3's geometric profiles
    lambda: grades.geometric_profiles(0.5, 1.0, 3),          # mu >= 1
    lambda: grades.bc_geometric(0.5, 0.0, 3),
    lambda: grades.bc_geometric(float("nan"), 0.2, 3),
    lambda: optimal.table3_row(0.6, 1.0),
    lambda: grades.geometric_parameters(0.3, 0.6, ordered=True),   # Thm. 4.1 needs mu < nu
    lambda: grades.geometric_parameters("x", 0.6),
    lambda: grades.Lambda_q([0, 1], [0.5, 0.5], [0.5, 0.5], lam=1.0),
])
def test_bad_input_is_parameter_error(call):
    with pytest.raises(ParameterError) as exc:
        call()
    assert "\n" not in str(exc.value)


# ------------------------------------------------------------------ property tests (Prop. 7-8)
def _pair(d):
    vec = st.lists(st.floats(0.01, 1.0), min_size=d, max_size=d).map(lambda v: np.array(v) / np.sum(v))
    return st.tuples(vec, vec)


profiles_and_grades = st.integers(2, 6).flatmap(
    lambda d: st.tuples(_pair(d), st.lists(st.floats(-2.0, 2.0), min_size=d, max_size=d).map(np.array)))


@settings(max_examples=60, deadline=None)
@given(profiles_and_grades, st.floats(0.05, 20.0))
def test_lambda_scale_invariance(pg, c):
    (a, t), logg = pg
    g = np.exp(logg)
    assert grades.Lambda(c * g, a, t) == pytest.approx(grades.Lambda(g, a, t), rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 8).flatmap(_pair))
def test_lambda_at_one_and_minimum(pair):
    a, t = pair
    d = a.size
    assert grades.Lambda(np.ones(d), a, t) == pytest.approx(1.0, rel=1e-14)
    bc2 = grades.bhattacharyya(a, t) ** 2
    assert bc2 <= 1 + 1e-15
    assert grades.Lambda(optimal.optimal_grades(a, t), a, t) == pytest.approx(bc2, rel=1e-12)
    rng = np.random.default_rng(d)
    assert np.all(grades.Lambda(np.exp(rng.normal(size=(50, d))), a, t) >= bc2 * (1 - 1e-12))


@settings(max_examples=60, deadline=None)
@given(profiles_and_grades, st.floats(0.0, 1.0))
def test_log_lambda_convex_in_q(pg, s):
    (a, t), q1 = pg
    q2 = q1[::-1] * 1.7 - 0.3
    f = lambda q: np.log(grades.Lambda_q(q, a, t, lam=1.7))
    mid = f(s * q1 + (1 - s) * q2)
    assert mid <= s * f(q1) + (1 - s) * f(q2) + 1e-12


def test_geometric_parameters_one_validator_two_regimes():
    assert grades.geometric_parameters(0.3, 0.6) == (0.3, 0.6)            # Cor. 3: any order
    assert grades.geometric_parameters(0.6, 0.3, ordered=True) == (0.6, 0.3)
    with pytest.raises(ParameterError, match=r"^nu and mu must satisfy 0 < mu < nu < 1 .*\(got nu=0.3, mu=0.6\)$"):
        grades.geometric_parameters(0.3, 0.6, ordered=True)
    with pytest.raises(ParameterError, match=r"^nu and mu must satisfy 0 < nu < 1 and 0 < mu < 1 .*\(got nu=1.5"):
        grades.geometric_parameters(1.5, 0.3)


def test_lambda_star_is_bc_squared_prop7():
    a, t = [0.1, 0.2, 0.7], [0.5, 0.3, 0.2]
    assert grades.Lambda_star(a, t) == pytest.approx(grades.bhattacharyya(a, t) ** 2, rel=1e-15)
    assert grades.Lambda_star(a, t) == pytest.approx(float(grades.Lambda(optimal.optimal_grades(a, t), a, t)), rel=1e-12)

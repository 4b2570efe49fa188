"""PLGA operator (theorylab.plga.operator): forward pass, Gram variants and structural quantities."""
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import expm
from scipy.special import expit

from theorylab.errors import ParameterError
from theorylab.plga import operator as op
from theorylab.psa import rotary

DK = 8


def _q(seed, S=12, dk=DK, scale=1.0):
    return scale * np.random.default_rng(seed).standard_normal((S, dk))


def test_forward_shapes_and_positivity():
    p = op.init_params(DK, 0)
    st_ = op.plga_stages(_q(0), p)
    for name in ("D", "A", "U", "A_LM", "A_P", "G"):
        assert getattr(st_, name).shape == (DK, DK)
    assert np.all(st_.A_LM >= p.eps) and np.all(st_.A_P > 0)
    assert op.positivity_margins(st_, p.eps).positive


def test_g_lm_is_psi_of_the_gram():
    p, q = op.init_params(DK, 1), _q(1)
    # same code run twice: bitwise: g_lm is stages_from_density(q.T @ q)
    np.testing.assert_array_equal(op.g_lm(q, p), op.stages_from_density(q.T @ q, p).G)


def test_sdpa_point_gives_identity_operator_and_sdpa_scores():
    p, q, k = op.sdpa_params(op.init_params(DK, 2)), _q(2), _q(3)
    G = op.g_lm(q, p)
    np.testing.assert_array_equal(G, np.eye(DK))
    np.testing.assert_allclose(op.scores(q, k, G), q @ k.T / np.sqrt(DK), rtol=0, atol=1e-14)


def test_cumulative_gram_is_prefix_consistent_and_global_is_not():
    p, q = op.init_params(DK, 3), _q(4)
    Gc = op.g_lm_cumulative(q, p)
    for t in (2, 6, 11):
        np.testing.assert_allclose(Gc[t], op.g_lm(q[:t + 1], p), rtol=1e-10, atol=1e-12)
    # the last cumulative operator is the global one; earlier rows differ (Remark 4.9)
    np.testing.assert_allclose(Gc[-1], op.g_lm(q, p), rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(Gc[3] - op.g_lm(q, p))) > 1e-3
    # per-row scores use G^(t) on row t
    k = _q(5)
    E = op.scores(q, k, Gc)
    np.testing.assert_allclose(E[6], q[6] @ Gc[6] @ k.T / np.sqrt(DK), rtol=1e-12)


def test_mask_excludes_rows_from_the_cumulative_gram():
    q = _q(6)
    mask = np.ones(len(q))
    mask[4] = 0
    D = op.cumulative_density_operators(q, mask)
    np.testing.assert_allclose(D[-1], np.delete(q, 4, 0).T @ np.delete(q, 4, 0), atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.floats(-700, 700))
def test_iswiglu_nonnegative_and_accurate(u):
    f = float(op.iswiglu(u))
    ref = u * u * expit(u)
    assert f >= 0
    assert abs(f - ref) <= 1e-14 * abs(ref) + 1e-300


def test_sigmoid_tails():
    u = np.array([-700.0, -50.0, 0.0, 50.0, 800.0])
    np.testing.assert_allclose(op.sigmoid(u), expit(u), rtol=1e-15)


def test_layer_norm_invariances():
    D = op.density_operator(_q(7))
    for c in (1e-5, 7.0, 1e5):
        np.testing.assert_allclose(op.layer_norm(c * D, eps=0.0), op.layer_norm(D, eps=0.0), atol=1e-12)
    np.testing.assert_allclose(op.layer_norm(D + 3.0), op.layer_norm(D), atol=1e-12)   # shift, eps > 0
    assert np.max(np.abs(op.ln_scale_error(D, 12, eps=0.0))) < 1e-12
    typical = np.max(np.abs(op.ln_scale_error(D, 12)))
    tiny = np.max(np.abs(op.ln_scale_error(op.density_operator(_q(7, scale=1e-3)), 12)))
    assert tiny > 1e-3 and tiny > 100 * typical        # eps-LN is far from scale invariant for small rows


def test_perron_frobenius_and_rank_one():
    A = op.plga_stages(_q(8), op.init_params(DK, 8)).A_LM
    pf = op.perron_frobenius(A)
    lo, hi = op.collatz_wielandt_bounds(A)
    assert np.all(pf.vector > 0) and pf.rho > pf.second and lo <= pf.rho <= hi
    alpha = np.arange(1.0, DK + 1)
    pf1 = op.perron_frobenius(np.outer(np.ones(DK), alpha))
    assert pf1.rho == pytest.approx(alpha.sum(), rel=1e-13)


def test_notears_routes_agree_and_floor():
    rng = np.random.default_rng(9)
    W = rng.uniform(0.1, 1.0, (5, 5))
    assert op.notears_h(W).h == pytest.approx(np.trace(expm(W * W)) - 5, rel=1e-11)
    assert op.notears_h(W).method == "walk-series"
    big = 5 * W
    v = op.notears_h(big)
    assert v.method == "shifted-expm" and v.log_h == pytest.approx(np.log(np.trace(expm(big * big)) - 5), rel=1e-12)
    assert op.notears_h(np.triu(W, 1)).h == 0.0
    flat = np.full((64, 64), 1e-9)
    assert op.notears_h(flat).h == pytest.approx(float(op.dag_floor(64, 1e-9)), rel=1e-10)
    huge = op.notears_h(np.full((8, 8), 40.0))
    assert np.isinf(huge.h) and huge.log_h == pytest.approx(8 * 1600, rel=1e-12)


def test_walk_terms_are_log_trace_powers():
    W = np.random.default_rng(10).uniform(0, 1, (4, 4))
    M = W * W
    expected = [np.log(np.trace(np.linalg.matrix_power(M, k)) / np.prod(np.arange(1, k + 1))) for k in range(1, 6)]
    np.testing.assert_allclose(op.walk_terms(W, 5), expected, rtol=1e-12)


def test_commutant_projection_is_orthogonal_projection():
    rng = np.random.default_rng(11)
    G, H = rng.normal(size=(DK, DK)), rng.normal(size=(DK, DK))
    P = op.commutant_projection(G)
    np.testing.assert_allclose(op.commutant_projection(P), P, atol=1e-15)
    assert np.sum(P * H) == pytest.approx(np.sum(G * op.commutant_projection(H)), rel=1e-12)
    assert op.off_commutant_residual(P) == 0.0 and 0 < op.off_commutant_residual(G) < 1
    assert op.off_commutant_residual(np.zeros((DK, DK))) == 0.0
    R = op.plane_rotations(np.linspace(0.1, 1.0, DK // 2), [3])[0]
    np.testing.assert_allclose(P @ R, R @ P, atol=1e-14)


def test_plane_rotations_match_shear_rope_convention():
    freqs = rotary.rope_frequencies(DK)
    x = np.random.default_rng(12).normal(size=(5, DK))
    R = op.plane_rotations(freqs, np.arange(5))
    np.testing.assert_allclose(np.einsum("nij,nj->ni", R, x), rotary.rope(x, freqs), atol=1e-14)


def test_position_twirl_within_lemma_bound():
    freqs = rotary.rope_frequencies(DK, 10.0)
    M = np.random.default_rng(13).normal(size=(DK, DK))
    C = op.twirl_constant(freqs)
    for S in (50, 500):
        err = np.linalg.norm(op.position_twirl(M, freqs, S) - op.commutant_projection(M))
        assert err <= C / S * np.linalg.norm(M)
    assert op.twirl_constant([0.5, 0.5]) == np.inf          # resonant


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.floats(1e-200, 1e200))
def test_order_parameter_properties(seed, scale):
    rng = np.random.default_rng(seed)
    D1, D2 = rng.normal(size=(4, 4)), rng.normal(size=(4, 4))
    assert op.order_parameter(D1, D1) == 0.0
    m = op.order_parameter(D1, D2)
    assert m > 0 and m == pytest.approx(op.order_parameter(scale * D1, scale * D2), rel=1e-9)
    assert op.order_parameter(np.zeros(3), np.zeros(3)) == 0.0


def test_density_report_rank_and_psd():
    for S_, dk in ((3, 8), (8, 8), (20, 8)):
        r = op.density_report(_q(14, S_, dk))
        assert r.rank == r.rank_bound == min(S_, dk) and r.min_eigenvalue >= -r.tol and r.symmetry_error == 0


def test_zero_head_counterexample_a_zero():
    """a = 0, b_a = G*: the upstream tensors vary with the input, G_LM does not (Prop. 5.2 discussion)."""
    p = dataclasses.replace(op.init_params(DK, 15), a=np.zeros((DK, DK)), b_a=np.eye(DK) * 2)
    s1, s2 = op.plga_stages(_q(16), p), op.plga_stages(_q(17), p)
    assert op.order_parameter(s1.G, s2.G) == 0.0 and op.order_parameter(s1.A_P, s2.A_P) > 0


@pytest.mark.parametrize("call", [
    lambda: op.density_operator(np.zeros(3)),
    lambda: op.g_lm(np.zeros((4, 5)), op.init_params(DK, 0)),
    lambda: op.commutant_projection(np.zeros((3, 3))),
    lambda: op.order_parameter(np.zeros(3), np.zeros(4)),
    lambda: op.init_params(0),
    lambda: op.perron_frobenius(np.zeros((2, 3))),
    lambda: op.perron_frobenius(-np.eye(3)),                 # not nonnegative: no Perron pair to report
    lambda: op.perron_frobenius([[1.0, -1e-9], [0.5, 2.0]]),
    lambda: op.position_twirl(np.eye(4), [0.1, 0.2], 0),
    lambda: op.cumulative_density_operators(np.zeros((3, 2)), [1, 0]),
])
def test_bad_input_raises_parameter_error(call):
    with pytest.raises(ParameterError):
        call()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 12), st.floats(1e-12, 1e-3))
def test_dag_floor_holds_for_entries_at_least_eps(seed, d, eps):
    rng = np.random.default_rng(seed)
    W = eps + rng.exponential(eps * 10, (d, d)) * (rng.random((d, d)) < 0.5)
    assert op.notears_h(W).h >= float(op.dag_floor(d, eps)) * (1 - 1e-12)


def test_rms_refuses_an_empty_tensor():
    for empty in ([], np.zeros((0, 3)), np.zeros((2, 0))):
        with pytest.raises(ParameterError, match="^X must not be empty"):
            op.rms(empty)                                   # was 0.0: the mean of no entries is 0/0
    assert op.rms([3.0, -4.0]) == pytest.approx(np.sqrt(12.5), rel=1e-15)
    assert op.rms(np.zeros(3)) == 0.0
    assert op.rms([1e300, 1e300]) == pytest.approx(1e300, rel=1e-15)   # scaled: no overflow

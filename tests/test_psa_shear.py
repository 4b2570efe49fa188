"""Unit and property tests of theorylab.psa.shear and the modules beside it: symplectic, rotary, scores (numeric route)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from theorylab.errors import ParameterError
from theorylab.psa import shear as S
from theorylab.psa import rotary, scores, symplectic

RNG = np.random.default_rng(1)


def test_momentum_first_position_zero_and_first_difference():
    x = RNG.normal(size=(2, 6, 4))
    p = S.momentum(x)
    assert np.all(p[:, 0] == 0)
    np.testing.assert_array_equal(p[:, 1:], x[:, 1:] - x[:, :-1])


@settings(max_examples=25, deadline=None)
@given(st.floats(-3, 3))
def test_shear_is_two_tap_filter(g):
    x = RNG.normal(size=(7, 4))
    out = S.shear(x, g)
    b0, b1 = S.stream_taps(g)
    np.testing.assert_allclose(out[1:], b0 * x[1:] + b1 * x[:-1], atol=1e-12)
    np.testing.assert_array_equal(out[0], x[0])


def test_rope_preserves_norm_and_relative_position():
    x = RNG.normal(size=(5, 8))
    r = rotary.rope(x)
    np.testing.assert_allclose(np.linalg.norm(r, axis=1), np.linalg.norm(x, axis=1))
    q, k = RNG.normal(size=8), RNG.normal(size=8)
    a = rotary.rope(np.stack([q, k, q, k]), positions=[3, 1, 7, 5])
    np.testing.assert_allclose(a[0] @ a[1], a[2] @ a[3])


def test_placements_differ_by_coriolis_term():
    x = RNG.normal(size=(6, 4))
    freqs = rotary.rope_frequencies(4, 100.0)
    post = rotary.sheared_stream(x, 0.7, freqs)
    pre = rotary.sheared_stream(x, 0.7, freqs, placement="pre-rope")
    c = rotary.coriolis_term(x, 0.7, *rotary.rope_tables(6, freqs))
    np.testing.assert_allclose(post - pre, c, atol=1e-12)
    theta = freqs[0]
    np.testing.assert_allclose(np.linalg.norm(c[3, :2]), 0.7 * 2 * abs(np.sin(theta / 2)) * np.linalg.norm(x[2, :2]))


def test_score_channels_sum_to_sheared_score():
    q, k = RNG.normal(size=(5, 4)), RNG.normal(size=(5, 4))
    total = sum(scores.score_channels(q, k, 0.3, 0.8))
    np.testing.assert_allclose(total, S.shear(q, 0.3) @ S.shear(k, 0.8).T / 2.0, atol=1e-12)


def test_gain_dc_and_nyquist():
    assert S.stream_gain_sq(0.4, 1.0) == 1.0
    assert S.stream_gain_sq(0.4, -1.0) == pytest.approx(1.8 ** 2)


@pytest.mark.parametrize("call", [lambda: S.shear([[np.nan]], 1.0), lambda: S.shear(np.ones((3, 2)), np.inf),
                                  lambda: rotary.rope(np.ones((3, 3))), lambda: S.lattice_couplings("diag", 1.0),
                                  lambda: S.stream_gain_sq(1.0, 2.0), lambda: S.momentum(1.0),
                                  lambda: rotary.sheared_stream(np.ones((3, 2)), 1.0, placement="mid")])
def test_bad_input_raises_parameter_error(call):
    with pytest.raises(ParameterError):
        call()


def test_matrices_and_lattice():
    M = symplectic.upper_shear_matrix(0.5, 2)
    J = symplectic.symplectic_form(2)
    np.testing.assert_allclose(M.T @ J @ M, J)
    assert M.dtype == float and symplectic.upper_shear_matrix(2, 1).dtype.kind == "i"
    assert S.lattice_couplings("key-only", 0.7) == (0.0, 0.7)
    L = symplectic.lattice_matrix(0.3, 0.9, 1)
    np.testing.assert_allclose(L, [[1, .3, 0, 0], [0, 1, 0, 0], [0, 0, 1, .9], [0, 0, 0, 1]])
    low = symplectic.lower_shear_matrix(0.4, 1)
    np.testing.assert_allclose(low, [[1, 0], [0.4, 1]])
    assert symplectic.symplectic_shear_codimension(64) == 2016
    np.testing.assert_array_equal(symplectic.shear_jacobian(np.array([[1, 2], [3, 4]]))[:2, 2:], [[1, 2], [3, 4]])


def test_coupling_split_regroups_the_score():
    q, k = RNG.normal(size=(6, 4)), RNG.normal(size=(6, 4))
    parts = scores.coupling_split(q, k, 0.2, 0.9)
    np.testing.assert_allclose(sum(parts.values()), S.shear(q, 0.2) @ S.shear(k, 0.9).T, atol=1e-12)
    assert np.all(scores.coupling_split(q, k, 0.5, 0.5)["bias"] == 0)


def test_exact_route_keeps_integers_exact():
    x = np.array([[1], [3], [7]], dtype=object)
    out = S.shear(x, 2)
    assert out.dtype == object and list(out[:, 0]) == [1, 7, 15]


@pytest.mark.parametrize("call", [lambda: symplectic.shear_jacobian(np.ones((2, 3))), lambda: rotary.rope_frequencies(3),
                                  lambda: symplectic.symplectic_shear_codimension(0),
                                  lambda: scores.score_channels(np.ones((3, 2)), np.ones((3, 4)), 1.0, 1.0),
                                  lambda: rotary.rotate_pairs(np.ones((3, 2)), np.ones((2, 1)), np.ones((2, 1))),
                                  lambda: rotary.rope(np.ones((3, 2)), positions=[0, 1])])
def test_more_bad_input(call):
    with pytest.raises(ParameterError):
        call()


@settings(max_examples=25, deadline=None)
@given(st.floats(-0.45, 4.0))
def test_shear_step_is_the_shear_row_by_row_and_unshear_step_inverts_it(g):
    x = RNG.normal(size=(6, 4))
    rows = [x[0]] + [S.shear_step(x[t - 1], x[t], g) for t in range(1, 6)]
    np.testing.assert_allclose(np.array(rows), S.shear(x, g), rtol=0, atol=1e-12)
    back = [S.unshear_step(rows[t], x[t - 1], g) for t in range(1, 6)]
    np.testing.assert_allclose(np.array(back), x[1:], rtol=0, atol=1e-12)


def test_shear_step_exact_route_and_bad_input():
    import sympy as sp
    g = sp.Symbol("g")
    a = np.array([sp.Integer(1), sp.Integer(-2)], dtype=object)
    b = np.array([sp.Integer(3), sp.Integer(5)], dtype=object)
    y = S.shear_step(a, b, g)
    assert [sp.expand(v - w) for v, w in zip(y, [3 + 2 * g, 5 + 7 * g])] == [0, 0]
    assert [sp.cancel(v - w) for v, w in zip(S.unshear_step(y, a, g), b)] == [0, 0]
    with pytest.raises(ParameterError, match="same shape"):
        S.shear_step([1.0, 2.0], [1.0, 2.0, 3.0], 0.5)
    with pytest.raises(ParameterError, match="x must be a finite"):
        S.shear_step([1.0, 2.0], [1.0, np.nan], 0.5)
    with pytest.raises(ParameterError, match="g must not be -1"):
        S.unshear_step([1.0], [2.0], -1)

"""Canonical induction sequences and the hand-constructed PSA induction head (PSA §2.2, §6.8)."""
import numpy as np
import pytest

from theorylab import ParameterError
from theorylab.nn import tasks


def test_sequences_are_canonical():
    b = tasks.induction_sequences(200, 16, 40, seed=3)
    assert b.tokens.shape == (200, 16) and b.T == 16
    assert np.all((b.target >= 1) & (b.target <= 14))
    assert np.array_equal(b.tokens[np.arange(200), b.target - 1], b.tokens[:, -1])
    for row in b.tokens:                                                 # one repeat: the query token
        assert len(set(row)) == 15
    again = tasks.induction_sequences(200, 16, 40, seed=3)
    assert np.array_equal(again.tokens, b.tokens) and np.array_equal(again.target, b.target)


def test_sequences_validate():
    with pytest.raises(ParameterError, match="vocab"):
        tasks.induction_sequences(10, 16, 10)
    with pytest.raises(ParameterError, match="T"):
        tasks.induction_sequences(10, 3, 10)


def test_ties_share_credit():
    s = np.array([[1.0, 3.0, 3.0, 0.0], [5.0, 1.0, 1.0, 1.0]])
    np.testing.assert_allclose(tasks.induction_hits(s, np.array([1, 1])), [0.5, 0.0])


def test_wilson_interval_contains_the_estimate():
    lo, hi = tasks.wilson_interval(30, 1000)
    assert lo < 0.03 < hi and hi - lo < 0.04
    assert tasks.wilson_interval(0, 50)[0] == 0.0


def accuracy(member, g, n=1500, T=24, dk=64):
    batch = tasks.induction_sequences(n, T, 128, seed=5)
    E = tasks.embeddings(128, dk, seed=6)
    return tasks.induction_accuracy(tasks.induction_head(member, g, dk, T), E, batch)


def test_key_only_solves_induction_query_only_respects_the_ceiling():
    T, ceiling = 24, tasks.ceiling(24)
    key = accuracy("key-only", 2.0, T=T)
    assert tasks.wilson_interval(key.sum(), len(key))[0] > 10 * ceiling
    sym = accuracy("symmetric", 2.0, T=T)
    assert tasks.wilson_interval(sym.sum(), len(sym))[0] > 5 * ceiling
    for g in (0.5, 2.0):
        query = accuracy("query-only", g, T=T)
        assert tasks.wilson_interval(query.sum(), len(query))[0] <= ceiling


def test_slow_planes_need_a_slow_plane():
    with pytest.raises(ParameterError, match="plane"):
        tasks.slow_planes(2, 4096, base=10.0)


def test_key_side_order_zero_is_exact_for_query_only():
    """Query-only: a key's score ignores its predecessor exactly; key-only: it does not."""
    T, dk = 16, 32
    batch = tasks.induction_sequences(50, T, 64, seed=1)
    E = tasks.embeddings(64, dk, seed=2)
    for g in (0.5, 3.0):
        assert tasks.predecessor_sensitivity(tasks.induction_head("query-only", g, dk, T), E, batch, i=5) == 0.0
        assert tasks.predecessor_sensitivity(tasks.induction_head("key-only", g, dk, T), E, batch, i=5) > 1.0
    with pytest.raises(ParameterError, match="i must"):
        tasks.predecessor_sensitivity(tasks.induction_head("key-only", 1.0, dk, T), E, batch, i=T - 3)


def test_one_canonical_model_two_key_conventions():
    assert list(tasks.target_positions(8)) == [1, 2, 3, 4, 5, 6]                     # keys 0..T-1: j in 1..T-2
    assert list(tasks.target_positions(8, query_is_key=False)) == [1, 2, 3, 4, 5]    # keys 0..T-2: j in 1..T-3
    x = np.random.default_rng(0).normal(size=(400, 8, 3))
    for flag in (True, False):
        items, j = tasks.plant_induction(np.random.default_rng(1), x, query_is_key=flag)
        assert set(j) == set(tasks.target_positions(8, flag))                        # every position is drawn
        np.testing.assert_array_equal(items[:, -1], x[np.arange(400), j - 1])
        np.testing.assert_array_equal(items[:, :-1], x[:, :-1])                      # content untouched, copied
    with pytest.raises(ParameterError, match="T"):
        tasks.target_positions(3, query_is_key=False)


def test_query_only_head_answers_the_query_predecessor_so_j_is_T_minus_2_must_be_allowed():
    """With keys 0..T-1 the query-only head's credit comes from the sequences with j = T-2 (P10)."""
    T, batch = 12, tasks.induction_sequences(600, 12, 64, seed=2)
    credit = tasks.induction_accuracy(tasks.induction_head("query-only", 2.0, 64, T), tasks.embeddings(64, 64, 3),
                                      batch)
    at = batch.target == T - 2
    assert credit[at].mean() > 0.9 and credit[~at].mean() < 0.02       # without j = T-2 it would sit near 0

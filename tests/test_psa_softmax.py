"""The one softmax (theorylab.psa.softmax.softmax): masking as -inf, validation."""
import numpy as np
import pytest

from theorylab.errors import ParameterError
from theorylab.psa.softmax import softmax

RNG = np.random.default_rng(4)


def test_mask_acts_as_minus_infinity_and_ignores_masked_scores():
    s = RNG.normal(size=(3, 5)) * 10
    keep = np.tril(np.ones((3, 5), bool), k=2)                     # causal: row i keeps keys 0..i+2
    e = np.where(keep, np.exp(s - np.where(keep, s, -np.inf).max(-1, keepdims=True)), 0.0)
    expected = e / e.sum(-1, keepdims=True)
    p = softmax(s, mask=keep)
    np.testing.assert_allclose(p, expected, rtol=1e-15, atol=0)
    assert np.all(p[~keep] == 0.0) and np.allclose(p.sum(-1), 1.0)
    poisoned = np.where(keep, s, np.nan)                           # masked scores are never read
    # same code run twice: bitwise: masked scores are replaced by -inf before any arithmetic
    np.testing.assert_array_equal(softmax(poisoned, mask=keep), p)


def test_mask_broadcasts_along_axis_and_all_true_mask_changes_nothing():
    s = RNG.normal(size=(4, 6))
    # same code run twice: bitwise: an all-True mask leaves the scores' array unchanged
    np.testing.assert_array_equal(softmax(s, mask=np.ones(6, bool)), softmax(s))
    p = softmax(s, axis=0, mask=np.array([True, False, True, True])[:, None])
    assert np.all(p[1] == 0.0) and np.allclose(p.sum(0), 1.0)


@pytest.mark.parametrize("s, mask, match", [
    ([[1.0, 2.0], [3.0, 4.0]], np.array([[True, False], [False, False]]), "at least one"),
    ([1.0, 2.0], np.array([1, 0]), "boolean"),
    ([1.0, 2.0, 3.0], np.array([True, False]), "broadcast"),
    ([1.0, np.inf], np.array([True, True]), "finite"),
    ([1.0, np.nan], None, "finite"),
    (2.0, None, "scalar"),
])
def test_bad_input_is_a_parameter_error(s, mask, match):
    with pytest.raises(ParameterError, match=match):
        softmax(s, mask=mask)

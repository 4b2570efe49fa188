"""PSA §8 deployability numbers: extra state, FLOPs, INT8 headroom (theorylab.psa.deploy)."""
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from theorylab.errors import ParameterError
from theorylab.psa import deploy
from theorylab.psa import shear as psa


def test_extra_state_fraction_at_4096():
    assert round(100 * float(deploy.extra_state_fraction(4096)), 3) == 0.024
    assert deploy.extra_state_floats(512, 12) / deploy.kv_cache_floats(4096, 512, 12) == deploy.extra_state_fraction(4096)


def test_insertion_costs_6d_flops_per_token_per_layer():
    d, g = 96, 0.7
    rng = np.random.default_rng(0)
    per_stream = [deploy.count_flops(deploy.insert_sheared, rng.normal(size=d), rng.normal(size=d), g=g)
                  for _ in ("query", "key")]
    assert sum(per_stream) == deploy.shear_flops(d) == 6 * d
    assert deploy.count_flops(lambda a, b: a * b + a, np.ones(5), np.ones(5)) == 10


def test_insertion_kernel_is_the_last_row_of_the_shear():
    x = np.random.default_rng(1).normal(size=(5, 8))
    # exact: both apply _upper_shear to the same operands, elementwise and correctly rounded
    assert np.array_equal(deploy.insert_sheared(x[-2], x[-1], 0.3), psa.shear(x, 0.3)[-1])


def test_int8_bound_is_attained_exactly_by_an_alternating_stream():
    for g in (Fraction(0), Fraction(3, 10), Fraction(2)):
        stream = deploy.alternating_stream(6, 3, dtype=object) * Fraction(1)
        assert deploy.range_growth(stream, g) == 1 + 2 * g
    assert np.isclose(deploy.int8_headroom_bits(0.5), 1.0)


@settings(max_examples=40, deadline=None)
@given(g=st.floats(0, 5), seed=st.integers(0, 10_000))
def test_int8_bound_holds_for_any_stream(g, seed):
    stream = np.random.default_rng(seed).normal(size=(12, 4))
    assert deploy.range_growth(stream, g) <= (1 + 2 * g) * (1 + 1e-12)


def test_insertion_kernel_validates_its_input():
    np.testing.assert_array_equal(deploy.insert_sheared([1.0, 2.0], [3.0, 5.0], 0.5), [4.0, 6.5])   # lists are fine
    with pytest.raises(ParameterError, match="g must be a finite real number >= 0"):
        deploy.insert_sheared([1.0, 2.0], [3.0, 5.0], -0.1)                # int8_headroom_bits needs g >= 0
    with pytest.raises(ParameterError, match="g must be a single real number"):
        deploy.insert_sheared([1.0, 2.0], [3.0, 5.0], [0.1, 0.2])
    with pytest.raises(ParameterError, match="same shape"):
        deploy.insert_sheared([1.0, 2.0], [3.0, 5.0, 1.0], 0.5)
    with pytest.raises(ParameterError, match="x_prev must be a real number"):
        deploy.insert_sheared(["a", 2.0], [3.0, 5.0], 0.5)

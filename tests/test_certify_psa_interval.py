"""Interval (P14-P16) and softmax (P12) certificates: PASS on the library (their mutants are planted bugs)."""
import numpy as np
import pytest
from mpmath import mpf

from theorylab.certify import interval as I
from theorylab.certify import run_one, select
from theorylab.psa import softmax as sm
from theorylab.psa import transition as tr
from theorylab.psa.scoremodel import score_model


def _status(cid, **overrides):
    return run_one(select([cid])[0], **overrides).status


@pytest.mark.parametrize("cid", ["P11", "P12.symbolic", "P12.numeric", "P14", "P15", "P16"])
def test_library_passes(cid):
    assert _status(cid) == "PASS"


# Wrong score models (P11, P14-P16, P19.crossover), wrong laws, bands, thresholds, asymptotes and branches
# (P14-P16) and wrong softmax derivatives (P12), once passed to the certificates as test-only keyword arguments,
# are planted in the library: tests/planted/psa.py.


def test_enclosure_rounding_is_exact():
    assert I.Enclosure(mpf("0.78666"), mpf("0.78674")).rounds_to("0.7867")
    assert I.Enclosure(mpf("0.78666"), mpf("0.78674")).rounds_to("0.787")
    assert not I.Enclosure(mpf("0.78664"), mpf("0.7867")).rounds_to("0.7867")
    assert not I.Enclosure(mpf("0.7867"), mpf("0.78676")).rounds_to("0.7867")
    assert I.Enclosure(mpf("1.0300"), mpf("1.0304")).rounds_to("1.030")


def test_no_root_is_proven_below_crossover():
    model = score_model("t4-only")
    d = float(tr.crossover_dk(512))
    assert I.smallest_positive_root(model, d * (1 - 1e-6), 512) is None
    assert I.smallest_positive_root(model, d * (1 + 1e-6), 512) is not None


def test_tangent_root_is_undecided_not_passed():
    # f(g) = -(g - 1)^2 * 2 touches zero at g = 1: a double root cannot be certified simple
    f = I.Crossing(tuple(I.iv.mpf(c) for c in (-2, 4, -2)))
    with pytest.raises(I.Undecided):
        I.leftmost_root(f, 0, 3)


def test_softmax_shift_and_validation():
    s = np.array([[1.0, 2.0, 3.0]])
    np.testing.assert_allclose(sm.softmax(s + 700.0), sm.softmax(s))
    with pytest.raises(ValueError):
        sm.softmax_response([0.5, 0.5], [1.0])


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["t4-only", "t3-inclusive", "key-only", "symmetric-key-convention"]),
       st.floats(4.0, 4096.0), st.floats(5.0, 1e5))
def test_enclosure_agrees_with_library_everywhere(variant, dk, T):
    """Independent route vs the library on random grid points: same existence, value inside the enclosure."""
    lib = float(tr.annealed_gamma_c(variant, dk, T))
    try:
        enc = I.smallest_positive_root(score_model(variant), dk, T)
    except I.Undecided:  # a near-tangent root: undecidable is allowed, never a wrong answer
        return
    if enc is None:
        assert np.isnan(lib)
    else:
        assert enc.contains(lib, 1e-9 * max(1.0, lib))


def test_threshold_requires_a_bracket():
    with pytest.raises(I.Undecided):
        I.threshold(score_model("t4-only"), 512, 60.0, 64.0)

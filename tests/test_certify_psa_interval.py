"""Interval (P14-P16) and softmax (P12) certificates: PASS on the library, FAIL on mutants."""
import dataclasses

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


def _shifted_T(fn):
    """The mutation L = ln(T - 2): call the library with T - 1 in place of T."""
    return lambda *args: fn(*args[:-1], np.asarray(args[-1], float) - 1.0)


def _condensed_exponent_half(variant, dk, T, c=tr.CONDENSATION_C):
    """The two-branch law with the condensed branch c (L/2)^(1/2) instead of c (L/2)^(1/4)."""
    law = tr.gamma_c(variant, dk, T, c=c)
    wrong = c * np.sqrt(np.log(np.asarray(T, float) - 1) / 2)
    return dataclasses.replace(law, gamma_c=np.where(law.branch == "condensed", wrong, law.gamma_c))


# Wrong score models (P11, P14-P16, P19.crossover) and softmax derivatives (P12) are planted in the library:
# tests/planted/psa.py.
MUTANTS = {
    "P14: L = ln(T-2)": ("P14", dict(law=_shifted_T(tr.annealed_gamma_c))),
    "P14: band with L = ln(T-2)": ("P14", dict(band=_shifted_T(tr.t4_band))),
    "P14: band ends swapped": ("P14", dict(band=lambda dk, T: tr.t4_band(dk, T)[::-1])),
    "P14: crossover 8 ln(T-2)": ("P14", dict(crossover=lambda T: 8 * np.log(np.asarray(T, float) - 2))),
    "P14: asymptote (L/dk)^(1/4)": ("P14", dict(asymptote=lambda dk, T: (np.log(np.asarray(T, float) - 1) / dk) ** .25)),
    "P14: freezing coupling with L = ln(T-2)": ("P14", dict(freezing=_shifted_T(tr.freezing_coupling))),
    "P14: two-branch law picks the wrong branch": ("P14", dict(two_branch=lambda v, dk, T, **kw: tr.gamma_c(
        v, dk, np.asarray(T, float) * 1e3, **kw))),
    "P14: condensed branch ignores c": ("P14", dict(two_branch=lambda v, dk, T, c=tr.CONDENSATION_C: tr.gamma_c(
        v, dk, T))),
    "P14: condensed branch c (L/2)^(1/2)": ("P14", dict(two_branch=_condensed_exponent_half)),
    "P15: L = ln(T-2)": ("P15", dict(law=_shifted_T(tr.annealed_gamma_c))),
    "P15: asymptote with L = ln(T-2)": ("P15", dict(asymptote=_shifted_T(tr.t3_asymptote))),
    "P15: wrong gamma_c > 1 interval": ("P15", dict(above_one=lambda T: (8 * np.log(T - 1.), (np.log(T - 1.) + 1) ** 2))),
    "P16: L = ln(T-2)": ("P16", dict(law=_shifted_T(tr.annealed_gamma_c))),
    "P16: key-only law without the base term": ("P16", dict(law=lambda v, dk, T: tr.annealed_gamma_c(
        "t3-inclusive" if v == "key-only" else v, dk, T))),
    "P16: threshold 4L + 1": ("P16", dict(threshold=lambda T: tr.key_only_threshold(T) - 1)),
    "P16: threshold with L = ln(T-2)": ("P16", dict(threshold=_shifted_T(tr.key_only_threshold))),
}


@pytest.mark.parametrize("label", list(MUTANTS))
def test_mutant_fails(label):
    cid, overrides = MUTANTS[label]
    with np.errstate(all="ignore"):
        assert _status(cid, **overrides) == "FAIL"


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

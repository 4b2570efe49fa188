"""The one "rounds to the printed quote" rule (theorylab.certify.interval.rounds_to)."""
from fractions import Fraction

import pytest
from mpmath import iv, mpf

from theorylab.certify import interval as I
from theorylab.errors import ParameterError


def test_half_open_rule_ties_round_up():
    assert I.rounds_to((mpf("0.78666"), mpf("0.78674")), "0.7867")
    assert not I.rounds_to((mpf("0.78664"), mpf("0.7867")), "0.7867") and not I.rounds_to((0.7867, 0.78676), "0.7867")
    assert I.rounds_to((0.5, 0.5), "1") and not I.rounds_to(1.5, "1") and I.rounds_to(1.5, "2")
    assert I.rounds_to(-2.5, "-2") and I.rounds_to((31.46, 31.5), "31.5")   # ties toward +inf


def test_every_interval_form_gives_the_same_answer():
    lo, hi = mpf("1.0300"), mpf("1.0304")
    forms = [I.Enclosure(lo, hi), (lo, hi), iv.mpf([lo, hi])]
    assert all(I.rounds_to(x, "1.030") for x in forms) and all(I.rounds_to(x, "1.03") for x in forms)
    assert not any(I.rounds_to(x, "1.031") or I.rounds_to(x, "1.0302") for x in forms)
    assert I.Enclosure(lo, hi).rounds_to("1.030")


def test_comparison_is_exact_not_float():
    tie = 0.125                                                   # exactly q - h for q = "0.13"
    assert Fraction(tie) == Fraction("0.13") - Fraction(1, 200)
    assert I.rounds_to(tie, "0.13") and not I.rounds_to(tie, "0.12")
    just_below = float.fromhex("0x1.fffffffffffffp-4")            # the float below 0.125
    assert I.rounds_to(just_below, "0.12") and not I.rounds_to(just_below, "0.13")


@pytest.mark.parametrize("quote", ["", "1e-3", "abc", "1.", ".5"])
def test_bad_quote(quote):
    with pytest.raises(ParameterError):
        I.rounds_to(0.5, quote)

"""Planted bugs in theorylab/psa/montecarlo.py caught by P17's check of mc_gamma_c's two-pass search (round 3)."""
import pytest

from planted import assert_caught

COMPETITION = "theorylab/psa/montecarlo.py"
BUGS = {
    # the non-monotone coarse grid gives a decreasing fine grid: the search raises (ERROR) at level = M(6.5)
    "coarse grid's second piece from 2.125": ("np.linspace(4.25, 10.0, 24)", "np.linspace(2.125, 10.0, 24)",
                                               ("FAIL", "ERROR")),
    "coarse bracket by > instead of >=": ("above = coarse.mass >= level", "above = coarse.mass > level", ("FAIL",)),
}


@pytest.mark.slow
@pytest.mark.parametrize("label", list(BUGS))
def test_round3_competition_bug_makes_p17_fail(label):
    old, new, accept = BUGS[label]
    assert_caught(COMPETITION, old, new, "P17", accept=accept)

"""G10 (the selection ladder's ordering) PASSes on the library and FAILs with a bug planted in its source."""
import pytest

from planted import certify_with_bug

SIGN_FLIP = ("theorylab/graded/grades.py", "finite_result(\"q\", q @ (a - t))", "finite_result(\"q\", q @ (t - a))")
EDUCATED_READS_THE_TRUTH = ("theorylab/graded/ladder.py", "g = grades.clipped_grades(a_hat, s_hat, design.C).g",
                            "g = grades.clipped_grades(design.a, design.s, design.C).g")
BUDGET_WITH_G_NOT_1_OVER_G = ("theorylab/graded/ladder_sim.py", "c = obs * precision * g ", "c = obs * precision / g ")
RANKS_REVERSED = ("theorylab/graded/prereg.py", "return average_ranks(-real_array(\"values\", values))",
                  "return average_ranks(real_array(\"values\", values))")


def test_g10_passes_on_a_clean_copy():
    path, old, _ = SIGN_FLIP
    assert certify_with_bug(path, old, old, ["G10"]).status("G10") == "PASS"


@pytest.mark.parametrize("bug", [
    pytest.param(SIGN_FLIP, id="inner-product-sign"),
    pytest.param(EDUCATED_READS_THE_TRUTH, id="educated-uses-true-profiles"),
    pytest.param(BUDGET_WITH_G_NOT_1_OVER_G, id="fit-budget", marks=pytest.mark.slow),   # -m slow (a fresh
    pytest.param(RANKS_REVERSED, id="ranks-reversed", marks=pytest.mark.slow),          # interpreter each)
])
def test_g10_fails_with_a_planted_bug(bug):
    run = certify_with_bug(*bug, ["G10"])
    assert run.returncode == 1 and run.status("G10") == "FAIL", run.output

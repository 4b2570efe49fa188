"""Bugs planted in the graded library SOURCE (survivors of `theorylab mutate`) make G4, G6, G7, G8.numeric, G10 FAIL.

Each case copies ``theorylab/`` and ``certificates/`` (tests/planted.py), plants one representative mutant of the
code a strengthened check covers, and runs only that certificate.
"""
import pytest

from planted import certify_with_bug

GRADES, ENVELOPE = "theorylab/graded/grades.py", "theorylab/graded/envelope.py"
EMBEDDING, LADDER = "theorylab/graded/embedding.py", "theorylab/graded/ladder.py"

#: label -> (path, old, new, certificate that must FAIL); one per certificate runs by default, the rest with -m slow
FAST = ("clipped_grades bracket starts above the root", "orthogonality defect of one level is 1",
        "S drops the ties d_l eps^2 = cap_l")
BUGS = {
    "Lambda_q without centring q (overflows far from 0)": (
        GRADES, "g = lam ** (q - centre)", "g = lam ** q", "G4"),
    "log_Lambda_u summed over the batch axis": (
        GRADES, "logsumexp(np.log(a) - u, axis=-1) + logsumexp(np.log(t) + u, axis=-1)",
        "logsumexp(np.log(a) - u, axis=0) + logsumexp(np.log(t) + u, axis=0)", "G4"),
    "clipped_grades bracket starts above the root": (
        GRADES, "lo, hi = -rho.max() - 1.0,", "lo, hi = -rho.max() + 1.0,", "G6"),
    "clipped_grades gauge u + min u": (GRADES, "u = u - u.min()", "u = u + u.min()", "G6"),
    "KKT residual counts the lower bound's gradient": (
        GRADES, "np.where(at_lo & ~at_hi,", "np.where(at_lo & at_hi,", "G6"),
    "orthogonality defect of one level is 1": (EMBEDDING, "default=0.0)", "default=1.0)", "G7"),
    "S drops the ties d_l eps^2 = cap_l": (ENVELOPE, "dims * e2[..., None] <= cap", "dims * e2[..., None] < cap",
                                           "G8.numeric"),
    "Lem. 3(ii) regime m >= 2 sum_S d_l + 5": (
        ENVELOPE, "axis=-1) + 4", "axis=-1) + 5", "G8.numeric"),
    "TABLE3_PARAMETERS row (0.7, 0.6)": (GRADES, "(0.7, 0.3), (0.8", "(0.7, 0.6), (0.8", "G8.numeric"),
}

#: G10 runs its Monte Carlo (~5-10 s in a fresh interpreter): -m slow
SLOW_BUGS = {
    "Bartlett factor without its first sub-diagonal": (
        LADDER, "A = np.tril(rng.standard_normal((d, d)), -1)", "A = np.tril(rng.standard_normal((d, d)), -2)", "G10"),
    "row-by-row blocks get two extra rows each": (LADDER, "sizes[: n % sizes.size] += 1",
                                                  "sizes[: n % sizes.size] += 2", "G10"),
    "bootstrap block probabilities 1/(2K)": (LADDER, "np.full(K, 1.0 / K)", "np.full(K, 0.5 / K)", "G10"),
    "taxonomic arm at L = 1 divides by zero": (LADDER, "if L > 1 else np.ones(1)", "if L > 0 else np.ones(1)", "G10"),
    "bootstrap intervals at 90 % instead of 95 %": (
        "theorylab/graded/prereg.py", "lo = (1 - CI_LEVEL) / 2", "lo = (1 - CI_LEVEL)", "G10"),
    "predicted ranks counted from 0": ("theorylab/graded/prereg.py", "return less + (equal + 1) / 2.0",
                                       "return less + (equal - 1) / 2.0", "G10"),
}


def _assert_fails(path, old, new, cid):
    run = certify_with_bug(path, old, new, [cid])
    assert run.returncode == 1 and run.status(cid) == "FAIL", run.output[-2000:]


@pytest.mark.parametrize("label", [pytest.param(k, marks=() if k in FAST else pytest.mark.slow) for k in BUGS])
def test_planted_graded_bug_makes_certify_fail(label):
    _assert_fails(*BUGS[label])


@pytest.mark.slow
@pytest.mark.parametrize("label", list(SLOW_BUGS))
def test_planted_ladder_bug_makes_g10_fail(label):
    _assert_fails(*SLOW_BUGS[label])


def test_the_unplanted_copy_passes():
    """The same certificates PASS on an unmodified copy (G10's clean copy: tests/test_ladder_certificate.py)."""
    path, old, _, _ = BUGS["clipped_grades gauge u + min u"]
    run = certify_with_bug(path, old, old, ["G4", "G6", "G7", "G8.numeric"])
    assert run.returncode == 0, run.output[-2000:]

"""Bugs planted in the library source make the Monte Carlo certificates FAIL (tests/planted.py).

Each case copies theorylab/ and certificates/, replaces one exact text in one library file and
runs ``theorylab certify --only ...`` on the copy in a fresh interpreter with its own, empty Numba
cache. Cases that run the Numba simulation recompile its kernels from scratch (several seconds
each), so they are marked slow; the induction-ceiling case runs with ``-m planted``.
"""
import pytest

from planted import certify_with_bug

COMPETITION, EXACT, SCOREMODEL, TASKS = ("theorylab/psa/montecarlo.py", "theorylab/psa/quadrature.py",
                                         "theorylab/psa/scoremodel.py", "theorylab/nn/tasks.py")

# label: (file, old text, new text, certificate that must FAIL)
PLANTED = {
    "t3-inclusive loading loses a sqrt2 (b = g^2, Var T4 = 3g^4)":
        (COMPETITION, "(0.0, 0.0, _R2)),", "(0.0, 0.0, 1.0)),", "P17.variants"),
    "batch-means CI of gamma_c loses its 1/sqrt(B)":
        (COMPETITION, "ok.std(ddof=1) / np.sqrt(ok.size)", "ok.std(ddof=1)", "P17"),
    "distractors m = T - 1":
        (SCOREMODEL, "return T - 2.0     # m", "return T - 1.0     # m", "P17.variants"),
    "key-only variance drops its base term":
        (SCOREMODEL, '"key-only", (0.0, 1.0), (1.0, 0.0, 2.0)', '"key-only", (0.0, 1.0), (0.0, 0.0, 2.0)', "P17.variants"),
    "quadrature: wrong sign of E[exp(-e^Y); Y > 0]":
        (EXACT, "return (above - B + A + _left_tail", "return (above + B + A + _left_tail", "P17.variants"),
    "quadrature: outer window cut at t = 2 instead of 5":
        (EXACT, "_T_LO, _T_HI = -45.0, 5.0", "_T_LO, _T_HI = -45.0, 2.0", "P17"),
    "simulated mass standard error over B instead of n":
        (COMPETITION, "np.sqrt(var / samples)", "np.sqrt(var / BATCHES)", "P17.variants"),
    "target noise doubled in the float32 kernel":
        (COMPETITION, "np.float32(delta[k] + shift)", "np.float32(delta[k] + 2 * shift)", "P17.variants"),
    "float32 exp clipped at e^6 instead of e^60":
        (COMPETITION, "_F32(-80.0), _F32(60.0)", "_F32(-80.0), _F32(6.0)", "P17.variants"),
    "gamma_c CI with the one-sided t quantile":
        (COMPETITION, "student_t.ppf(0.5 + confidence / 2.0, ok.size - 1)", "student_t.ppf(confidence, ok.size - 1)",
         "P17"),
    "crossover batch-means SE loses its 1/sqrt(B)":
        ("theorylab/psa/compare.py", "per.std(axis=0, ddof=1) / np.sqrt(CROSSOVER_BATCHES)", "per.std(axis=0, ddof=1)",
         "P19.crossover"),
}


@pytest.mark.slow
@pytest.mark.parametrize("label", list(PLANTED))
def test_planted_bug_fails_its_certificate(label):
    path, old, new, cid = PLANTED[label]
    run = certify_with_bug(path, old, new, [cid])
    assert run.returncode == 1 and run.status(cid) == "FAIL", run.output


def test_induction_ceiling_of_one_over_t_minus_one_fails_p10():
    run = certify_with_bug(TASKS, 'low_inclusive=False) - 2)', 'low_inclusive=False) - 1)', ["P10"])
    assert run.returncode == 1 and run.status("P10") == "FAIL", run.output

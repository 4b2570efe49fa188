"""Planted bugs in the PSA simulation modules (quadrature, induction, observables, row statistics, PSA Monte Carlo) caught by
the round-4 checks: target noise other than 1, exact_gamma_c's scan end, the RoPE-matched model gaps, the Coriolis
gain beyond (0, 2 pi), the half-plateau level, the t grid's left extension, the row-statistics record and score
limit, and mc_gamma_c's coarse sample cap."""
import pytest

from planted import assert_caught

SIM = "theorylab/psa/"     # the PSA quadrature, row statistics, Monte Carlo, observables and induction
#: label -> (file, old, new, certificate that must FAIL)
BUGS = {
    "exact_mass reads the target noise as sigma0 = 1": (
        "quadrature.py", "_mass_given(d + sigma0 * zi,", "_mass_given(d + zi,", "P17.variants"),
    "exact_gamma_c scans to g = 20": (
        "quadrature.py", "np.linspace(4.25, 10.0, 24)", "np.linspace(4.25, 20.0, 24)", "P17"),
    "exact_gamma_c scans to g = 9.5": (
        "quadrature.py", "np.linspace(4.25, 10.0, 24)", "np.linspace(4.25, 9.5, 24)", "P17"),
    "comparison rows divide by the RoPE match": (
        "induction.py", '"gap_model_rope": gap_model * (rope', '"gap_model_rope": gap_model / (rope', "P19.crossover"),
    "half-plateau at a third of the plateau": (
        "observables.py", "return _argmax_probability(model, dk, T, None) / 2.0",
        "return _argmax_probability(model, dk, T, None) / 3.0", "P18.plateau"),
    "t grid's left extension without the 10 sigma tail": (
        "row_stats.py", "delta - _TAIL_Z * sigma - np.log", "delta - np.log", "P24.interval"),
    "row-statistics score limit reads only the target noise": (
        "row_stats_mc.py", "for p in _score_polynomials(variant, model, g, dk)) + 40.0 * sigma0",
        "for p in _score_polynomials(variant, model, g, dk)) * 0.0 + 40.0 * sigma0", "P17.rng"),
    "mc_gamma_c's coarse pass capped at 2001 samples": (
        "montecarlo.py", "samples=min(samples, 2000)", "samples=min(samples, 2001)", "P17"),
}


def test_coriolis_gain_without_abs_makes_p9_fail():
    assert_caught(SIM + "induction.py", "return 2.0 * np.abs(np.sin(0.5 * real_array(\"theta\", theta)))",
                  "return 2.0 * np.sin(0.5 * real_array(\"theta\", theta))", "P9.numeric")


@pytest.mark.slow
@pytest.mark.parametrize("label", list(BUGS))
def test_round4_sim_bug_makes_certificate_fail(label):
    path, old, new, catcher = BUGS[label]
    assert_caught(SIM + path, old, new, catcher)

"""Planted library bugs caught by the lead's checks: rounds 3-4 (channel moments, deploy defaults, diameter
rescaling, mc_gamma_c's record and confidence, the RoPE match factor), round 5 (crossing_root's Newton
safeguard) and round 6 (large-sigma distractor entropy)."""
import pytest

from planted import assert_caught

IND, COMP = "theorylab/psa/induction.py", "theorylab/psa/montecarlo.py"

BUGS = {
    "KV cache default of two layers": ("theorylab/psa/deploy.py", "def kv_cache_floats(T, d, layers=1):",
                                       "def kv_cache_floats(T, d, layers=2):", "P20.numeric"),
    "diameter scaled by max X, not max |X|": ("theorylab/plga/contraction.py", "np.frexp(np.max(np.abs(X)))",
                                              "np.frexp(np.max(X))", "A18"),
    "unsafeguarded Newton polish of crossing_root": ("theorylab/psa/transition.py",
                                                     "found & (np.abs(_polyval_rows(flat, trial)) < np.abs(f))",
                                                     "found", "P15"),
}
SLOW = {
    "channel means ignore the distractor mask": (IND, "mean = (C * w).sum(-1) / cnt", "mean = C.sum(-1) / cnt",
                                                 "P19.crossover"),
    "pre-RoPE offset T - j": (IND, "else (T - 1 - j)", "else (T - j)", "P19.crossover"),
    "mass curve records m + 1 keys": (COMP, "int(m + 2), samples", "int(m + 1), samples", "P17"),
    "mc_gamma_c's default confidence 0.9": (COMP, "confidence: float = 0.95, fine_points",
                                            "confidence: float = 0.9, fine_points", "P17"),
    "t panels of width sigma/2": ("theorylab/psa/row_stats.py", "width = max(1.0, sigma / 4.0)",
                                  "width = max(1.0, sigma / 2.0)", "P24.interval"),
}


@pytest.mark.parametrize("label", list(BUGS))
def test_lead_bug_makes_certify_fail(label):
    path, old, new, cid = BUGS[label]
    assert_caught(path, old, new, cid)


@pytest.mark.slow
@pytest.mark.parametrize("label", list(SLOW))
def test_lead_bug_makes_slow_certificate_fail(label):
    path, old, new, cid = SLOW[label]
    assert_caught(path, old, new, cid)

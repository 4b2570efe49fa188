"""Bugs planted in the PSA and PLGA library source make `theorylab certify` FAIL (issue 10, item 5, round 3).

Each entry plants one representative of a mutant that survived the round-2 sample in a function the
round-3 checks now hold against ``certificates/reference`` (or against the paper's table).
"""
import pytest

from planted import assert_caught

SHEAR, TRANSITION = "theorylab/psa/shear.py", "theorylab/psa/transition.py"
PARAMS = "theorylab/plga/params.py"
CHAIN = "theorylab/plga/chain.py"
NOTEARS = "theorylab/plga/notears.py"

#: label -> (path, old, new, certificates that must FAIL)
BUGS = {
    "eps_LN default doubled": (PARAMS, "EPS_LN: float = 1e-6", "EPS_LN: float = 2e-6", ["A11.numeric"]),
    "tiny-row LayerNorm without 1/sqrt(eps)": (CHAIN, "np.ldexp(centred, e) / np.sqrt(eps)", "np.ldexp(centred, e)",
                                               ["A11.numeric"]),
    "walk term -inf below a renormalised trace of 1": (NOTEARS, "np.log(np.trace(B)) + log_scale  ",
                                                       "(np.log(np.trace(B)) + log_scale if np.trace(B) > 1 else -np.inf)",
                                                       ["A5.numeric"]),
    "negative integers beyond 2^53 kept exact": (SHEAR, "abs(int(g)) <= 2 ** 53", "int(g) <= 2 ** 53", ["P1"]),
    "query coupling divides": (SHEAR, "return a * g, b * g", "return a / g, b * g", ["P1"]),
    "lower shear default width 0": (SHEAR, "def lower_shear_matrix(g, d: int = 1)", "def lower_shear_matrix(g, d: int = 0)",
                                    ["P1"], ("FAIL", "ERROR")),
    "RoPE default base 2e4": (SHEAR, "def rope(x, freqs=10000.0,", "def rope(x, freqs=20000.0,", ["P9.numeric"]),
    "Newton polish takes no step": (TRANSITION, "trial = g - np.divide(", "trial = g - 0 * np.divide(",
                                    ["P15"]),
}


@pytest.mark.parametrize("label", list(BUGS))
def test_planted_round3_bug_makes_certify_fail(label):
    path, old, new, catchers, *accept = BUGS[label]
    assert_caught(path, old, new, catchers, accept=accept[0] if accept else ("FAIL",))

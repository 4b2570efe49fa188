"""Round-6 mutant kills in psa/shear.py, psa/transition.py and plga/operator.py (issue 10, item 5): each new check
of a certificate FAILs (or ERRORs, where the planted bug raises) on a representative bug planted in the library source.
"""
import pytest

from planted import assert_caught

SHEAR, TRANSITION = "theorylab/psa/shear.py", "theorylab/psa/transition.py"
PARAMS = "theorylab/plga/params.py"
ROPE = "theorylab/plga/rope.py"

#: label -> (path, old, new, certificates that must FAIL or ERROR)
BUGS = {
    "nonlinear shear drops q: (q, p) -> (f(p), p)": (
        SHEAR, "    return q + fp, p", "    return fp, p", ["P8"]),
    "large-g limit takes the sign of the constant gap term": (
        TRANSITION, "np.copysign(np.inf, gap[-1])", "np.copysign(np.inf, gap[0])", ["P18.plateau"]),
    "large-g limit of a vanishing SNR is 1, not 0": (
        TRANSITION, "if 2 * p == q else 0.0", "if 2 * p == q else 1.0", ["P18.plateau"]),
    "Glorot-uniform limit sqrt(3 / (m + n))": (
        PARAMS, "lim = np.sqrt(6.0 / (m + n))", "lim = np.sqrt(3.0 / (m + n))", ["A2.metric"]),
    "twirl statistics report C_Theta * S as the bound": (
        ROPE, "twirl_constant(th) / S)", "twirl_constant(th) * S)", ["A12.standard"]),
    "twirl frequencies keep the sign of theta_a - theta_b": (
        ROPE, "return np.abs(np.concatenate(diffs))", "return np.concatenate(diffs)", ["A12.standard"]),
}


@pytest.mark.parametrize("label", list(BUGS))
def test_planted_round6_r6pp_bug_makes_certify_fail(label):
    path, old, new, catchers = BUGS[label]
    assert_caught(path, old, new, catchers, accept=("FAIL", "ERROR"))

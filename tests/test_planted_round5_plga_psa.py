"""Round-5 mutant kills in plga/operator.py, psa and symbolic/plga.py (issue 10, item 5): each new check of a
certificate FAILs (or ERRORs, where the planted bug raises) on a representative bug planted in the library source.
"""
import numpy as np
import pytest

from planted import assert_caught

SHEAR, DEPLOY, SYMB = "theorylab/psa/shear.py", "theorylab/psa/deploy.py", "theorylab/symbolic/plga.py"
CHAIN = "theorylab/plga/chain.py"
NOTEARS = "theorylab/plga/notears.py"
ROPE = "theorylab/plga/rope.py"
DIAGNOSTICS = "theorylab/plga/diagnostics.py"

#: label -> (path, old, new, certificates that must FAIL or ERROR)
BUGS = {
    "walk series truncated at 60 terms (misses cycles longer than 60)": (
        NOTEARS, "kmax = d + 60 ", "kmax = 60 ", ["A5.numeric"]),
    "exact LayerNorm divides a constant row by 0 at eps = 0": (
        CHAIN, "np.where(den == 0, 1, den)", "np.where(den == 1, 1, den)", ["A15.symbolic"]),
    "glu validates its rows against the hidden width": (
        CHAIN, "_unit_rows(x, g.W1.shape[0])", "_unit_rows(x, g.W1.shape[1])", ["A11.numeric"]),
    "off-commutant residual of G = 0 divides by 0": (
        ROPE, "out=np.zeros_like(num), where=den > 0)", "out=np.zeros_like(num), where=den >= 0)", ["A12.numeric"]),
    "twirl multiplier at a resonance divides by 0": (
        ROPE, "out=np.ones_like(den), where=den > 0)", "out=np.ones_like(den), where=den >= 0)", ["A12.standard"]),
    "eps-LN proxy scales rows by their largest entry, not |entry|": (
        DIAGNOSTICS, "e = np.frexp(np.max(np.abs(D), axis=-1))[1]", "e = np.frexp(np.max(D, axis=-1))[1]", ["A15.numeric"]),
    "glu subtracts its output bias": (
        CHAIN, "@ g.W3 + g.b3", "@ g.W3 - g.b3", ["A11.numeric"]),
    "float LayerNorm of a constant row at eps = 0 divides 0 by 0": (
        CHAIN, "out=np.zeros_like(centred), where=den > 0)", "out=np.zeros_like(centred), where=den >= 0)",
        ["A11.numeric"]),
    "twirl multiplier reduces omega mod pi": (
        ROPE, "np.remainder(real_array(\"omega\", omega), 2 * np.pi)", "np.remainder(real_array(\"omega\", omega), np.pi)",
        ["A12.standard"]),
    "walk series switches route below rho = 8": (
        NOTEARS, "if rho <= _SERIES_RHO:", "if rho < _SERIES_RHO:", ["A5.numeric"]),
    "crossing_root's near-real floor max(2, |g|)": (
        "theorylab/psa/transition.py", "1e-6 * np.maximum(1.0, np.abs(roots))", "1e-6 * np.maximum(2.0, np.abs(roots))",
        ["P15"]),
    "alternating stream repeated along positions": (
        DEPLOY, "np.repeat(signs[:, None], d, axis=1)", "np.repeat(signs[:, None], d, axis=0)", ["P20.exact"]),
    "commutant solution placed in a 3-row block": (
        SYMB, "M[2 * a:2 * a + 2, 2 * b:2 * b + 2]", "M[2 * a:3 * a + 2, 2 * b:2 * b + 2]", ["A6"]),
    "RoPE frequencies over odd indices": (
        SHEAR, "base ** (-np.arange(0, d, 2) / d)", "base ** (-np.arange(1, d, 2) / d)", ["P9.numeric"]),
}


@pytest.mark.parametrize("label", list(BUGS))
def test_planted_round5_bug_makes_certify_fail(label):
    path, old, new, catchers = BUGS[label]
    assert_caught(path, old, new, catchers, accept=("FAIL", "ERROR"))


def test_notears_sees_a_cycle_longer_than_60():
    """Library bug fixed in round 5: the walk series stopped at k = 60, so a directed 64-cycle had h = 0."""
    from math import factorial

    from theorylab.plga import operator as op

    W = np.roll(np.eye(64), 1, axis=1)
    value = op.notears_h(W)
    assert value.method == "walk-series"
    assert value.h == pytest.approx(64 / factorial(64), rel=1e-13)
    assert op.dag_loss(W) > 0

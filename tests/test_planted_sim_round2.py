"""Planted bugs in the PSA simulation modules caught by the round-2 checks (row-statistics derivatives, log64, two-point
lower bound, crossing, risk-ratio losses, first-cell gamma_c)."""
import pytest

from planted import assert_caught

BUGS = {
    "row-stats d2 gap sign": ("theorylab/psa/row_stats_mc.py", "b2d * zb[j] - d2d\n                Zd += w",
                              "b2d * zb[j] + d2d\n                Zd += w", "P17.rng"),
    "two-point sech^2(x/2)": ("theorylab/graded/risk_sim.py", "sech2 = 4 * np.exp(-2 * x)", "sech2 = 4 * np.exp(-1 * x)",
                              "G8"),
    "crossing without log": ("theorylab/graded/ladder_sim.py", "r = np.log(np.maximum(curves, 1e-300))",
                             "r = np.maximum(curves, 1e-300)", "G10"),
    "gamma_c first cell": ("theorylab/psa/quadrature.py", "prev_g, prev_f = _SCAN[0], f(_SCAN[0])",
                           "prev_g, prev_f = _SCAN[0], f(_SCAN[1])", "P17"),
}


@pytest.mark.slow
@pytest.mark.parametrize("label", list(BUGS))
def test_round2_sim_bug_makes_certify_fail(label):
    path, old, new, cid = BUGS[label]
    assert_caught(path, old, new, cid)

"""Planted bugs caught by the round-3 checks of the observables and row statistics (P17.rng, P24.interval).

Each case copies the library (tests/planted.py), plants one bug in its SOURCE and runs the certificate
that must catch it: the float32 row-statistics kernel with target noise and with a single distractor
against the reference rows, the exact peak search at the ends of its scan, the Gauss-Hermite side of
the bump integrals, the distractor entropy and the T = 3 row statistics against reference integrals.
"""
import pytest

from planted import assert_caught

ROW, MC, OBS = "theorylab/psa/row_stats.py", "theorylab/psa/row_stats_mc.py", "theorylab/psa/observables.py"

#: label -> (path, old, new, certificates that must FAIL or ERROR)
QUICK = {
    "peak accepted in the last scan cell": (OBS, "return i if 0 < i < values.size - 1 else -1",
                                            "return i if 0 < i <= values.size - 1 else -1", ["P24.interval"]),
    "Gauss-Hermite bump: exp(y + e)": (ROW, "return w @ np.exp(y - e), w @ np.exp(2.0 * y - e)",
                                       "return w @ np.exp(y + e), w @ np.exp(2.0 * y - e)", ["P24.interval"]),
    "distractor entropy: K1 - K2 divided by phi^(m-1)": (ROW, "float(w @ ((k1 - k2) * pm1))",
                                                         "float(w @ ((k1 - k2) / pm1))", ["P24.interval"]),
    "participation ratio halved": (ROW, "return 1.0 / self.ipr", "return 0.5 / self.ipr", ["P24.interval"]),
}

SLOW = {
    "float32 target noise divided": (MC, "shift = sigma0 * normal_pair(key, TARGET_INDEX)[0]\n        for k in range(G):\n"
                                         "            ak, bk, dk = np.float32(",
                                     "shift = sigma0 / normal_pair(key, TARGET_INDEX)[0]\n        for k in range(G):\n"
                                     "            ak, bk, dk = np.float32(", ["P17.rng"]),
    "float32 row maximum misses the last distractor": (
        MC, "            for j in range(m):\n                top = max(top, ak * za[j] + bk * zb[j] - dk)\n"
            "            Zd = A = Q = B1 = B2 = C1 = D = E = F = 0.0\n            a1d, b1d, d1d = ",
        "            for j in range(m - 1):\n                top = max(top, ak * za[j] + bk * zb[j] - dk)\n"
        "            Zd = A = Q = B1 = B2 = C1 = D = E = F = 0.0\n            a1d, b1d, d1d = ", ["P17.rng"]),
    "float32 moments read one distractor past the draws": (
        MC, "            for j in range(m):\n                ys = ak", "            for j in range(m + 1):\n                ys = ak",
        ["P17.rng"]),
}


@pytest.mark.slow
@pytest.mark.parametrize("label", list(QUICK))
def test_round3_bug_makes_certify_fail(label):
    path, old, new, catchers = QUICK[label]
    assert_caught(path, old, new, catchers, accept=("FAIL", "ERROR"))


@pytest.mark.slow
@pytest.mark.parametrize("label", list(SLOW))
def test_round3_kernel_bug_makes_p17_rng_fail(label):
    path, old, new, catchers = SLOW[label]
    assert_caught(path, old, new, catchers, accept=("FAIL", "ERROR"))

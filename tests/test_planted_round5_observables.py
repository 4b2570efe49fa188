"""Planted bugs caught by the round-5 checks of the observables (P24.interval, P24.mc).

Each case copies the library (tests/planted.py), plants one bug in its SOURCE and runs the certificate
that must catch it: the Monte Carlo crossing reader's nearest-crossing rule, the Monte Carlo peak's fine
grid, the exact peak search's wide bracket (skewed curves) and the confidence an exact measurement records.
"""
import pytest

from planted import assert_caught

OBS = "theorylab/psa/observables.py"

#: label -> (old, new, certificates that must FAIL or ERROR)
BUGS = {
    "crossing reader takes the first crossing, not the nearest": (
        "i = hits[np.argmin(np.abs(g[hits] - near))]", "i = hits[np.argmin(np.abs(g[hits]))]", ["P24.interval"]),
    "exact measurements record a 95 % confidence": (
        'confidence: float = float("nan")', "confidence: float = 0.95", ["P24.interval"]),
    "exact peak's wide bracket one scan cell narrower on the right": (
        "(u[max(i - 2, 0)], u[min(i + 2, u.size - 1)])", "(u[max(i - 2, 0)], u[min(i + 1, u.size - 1)])",
        ["P24.interval"]),
    "Monte Carlo peak's fine grid one scan cell narrower on the left": (
        "lo, hi = SCAN[max(i - 2, 0)], SCAN[min(i + 2, SCAN.size - 1)]",
        "lo, hi = SCAN[max(i - 1, 0)], SCAN[min(i + 2, SCAN.size - 1)]", ["P24.mc"]),
}


@pytest.mark.slow
@pytest.mark.parametrize("label", list(BUGS))
def test_round5_observables_bug_is_caught(label):
    old, new, catchers = BUGS[label]
    assert_caught(OBS, old, new, catchers, accept=("FAIL", "ERROR"))

"""Planted bugs in theorylab/psa/montecarlo.py and induction.py caught by the round-5 checks: exp64 / exp32 beyond
their documented clips (P17.rng), a Monte Carlo kernel reading past its g grid (bounds-checked: ERROR), the
dyadic-envelope window end and zero case (P13), first_crossing's default level 1/2 (P17)."""
import pytest

from planted import assert_caught

SIM = "theorylab/psa/"     # the PSA quadrature, row statistics, Monte Carlo, observables and induction
#: label -> (file, old, new, certificate that must FAIL or ERROR)
SLOW = {
    "exp64 clipped at -350 instead of -700": (
        "montecarlo.py", "x = min(max(x, -700.0), 600.0)", "x = min(max(x, -350.0), 600.0)", "P17.rng"),
    "exp64 clipped at 1200 instead of 600": (
        "montecarlo.py", "x = min(max(x, -700.0), 600.0)", "x = min(max(x, -700.0), 1200.0)", "P17.rng"),
    "exp32 clipped at 30 instead of 60": (
        "montecarlo.py", "_F32(-80.0), _F32(60.0)", "_F32(-80.0), _F32(30.0)", "P17.rng"),
    "float64 kernel reads one coupling past the grid": (
        "montecarlo.py", "for k in range(G):\n            ak, bk, dk = a[k], b[k], delta[k] + shift",
        "for k in range(G + 1):\n            ak, bk, dk = a[k], b[k], delta[k] + shift", "P17.rng"),
    "first_crossing's default level 1": (
        "montecarlo.py", "mass: np.ndarray, level: float = 0.5) -> float:",
        "mass: np.ndarray, level: float = 1.0) -> float:", "P17"),
}
FAST = {
    "envelope block includes the next block's first entry": (
        "induction.py", "env.append(a[lo - 1:2 * lo - 1].max())", "env.append(a[lo - 1:2 * lo].max())", "P13"),
    "envelope block skips its first entry": (
        "induction.py", "env.append(a[lo - 1:2 * lo - 1].max())", "env.append(a[lo:2 * lo - 1].max())", "P13"),
    "envelope slope -inf when a block maximum is 1": (
        "induction.py", "if np.any(env == 0):", "if np.any(env == 1):", "P13"),
}


@pytest.mark.parametrize("label", list(FAST))
def test_round5_envelope_bug_makes_p13_fail(label):
    path, old, new, catcher = FAST[label]
    assert_caught(SIM + path, old, new, catcher)


@pytest.mark.slow
@pytest.mark.parametrize("label", list(SLOW))
def test_round5_competition_bug_is_caught(label):
    path, old, new, catcher = SLOW[label]
    assert_caught(SIM + path, old, new, catcher, accept=("FAIL", "ERROR"))

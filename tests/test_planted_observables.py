"""Bugs planted in the row statistics, the observables or the condensed constant make P18.condensation / P24 FAIL.

Each case copies the library (tests/planted.py), plants one plausible bug in its SOURCE and runs the
certificates that must catch it: the exact peaks are held to an independent reference integral
(certificates/reference/row_entropy.py), the Monte Carlo to the exact peaks, the constant to the
calibration.
"""
import pytest

from planted import assert_caught, certify_with_bug

ROW, MC, OBS = "theorylab/psa/row_stats.py", "theorylab/psa/row_stats_mc.py", "theorylab/psa/observables.py"
TRANSITION = "theorylab/psa/transition.py"

#: label -> (path, old, new, certificates that must FAIL)
BUGS = {
    "Stein reduction loses the gap's sign (E[y k] = sigma^2 (K1 - K2) + Delta K1)": (
        ROW, "(sigma * sigma * (k1 - k2) - delta * k1)", "(sigma * sigma * (k1 - k2) + delta * k1)",
        ["P18.condensation", "P24.interval", "P24.mc"]),
    "Monte Carlo H'' drops the third central moment": (
        MC, "return -yb, -cov, -(var1 + cov2 + k3)", "return -yb, -cov, -(var1 + cov2)", ["P24.mc"]),
    "condensation constant set to the paper's 0.741": (
        TRANSITION, "CONDENSATION_C = 0.748\n", "CONDENSATION_C = 0.741\n", ["P18.condensation", "P24.interval"]),
}


#: the quick case (no Monte Carlo kernel to compile in the fresh copy), run by default
QUICK = ("entropy peak read in g instead of g^2",
         (OBS, '_Peak(name, True, -1.0, exact,', '_Peak(name, False, -1.0, exact,', ["P24.interval"]))


def _assert_caught(path, old, new, catchers):
    assert_caught(path, old, new, catchers)


def test_planted_bug_in_the_peak_definition_makes_p24_fail():
    _assert_caught(*QUICK[1])


def test_the_unplanted_copy_passes():
    path, old, *_ = QUICK[1]
    run = certify_with_bug(path, old, old, ["P24.interval"])
    assert run.returncode == 0 and run.status("P24.interval") == "PASS", run.output[-2000:]


@pytest.mark.slow
@pytest.mark.parametrize("label", list(BUGS))
def test_planted_bug_makes_the_observable_certificates_fail(label):
    _assert_caught(*BUGS[label])


@pytest.mark.slow
def test_the_unplanted_copy_passes_every_observable_certificate():
    path, old, *_ = BUGS["condensation constant set to the paper's 0.741"]
    run = certify_with_bug(path, old, old, ["P18.condensation", "P24.interval", "P24.mc"])
    assert run.returncode == 0, run.output[-2000:]

"""Planted bugs in theorylab/psa/quadrature.py caught by the round-5 checks: the Gauss-Hermite / Gauss-Legendre switch
of the quadrature moved to either side (the bump moments at t = 4, both sides of sigma = 0.5), and exact_gamma_c's
scan skipping its first cell (the noiseless hump probe whose only up-crossing lies in (0, 0.1]), and the target-noise
average kept on 40-node Gauss-Hermite up to sigma0 = 2 (P17.variants at sigma0 = 2)."""
import pytest

from planted import assert_caught

EXACT = "theorylab/psa/quadrature.py"


@pytest.mark.slow
@pytest.mark.parametrize("switch", ["0.25", "1.0"])
def test_quadrature_switch_moved_makes_p24_interval_fail(switch):
    assert_caught(EXACT, "_SWITCH = 0.5", f"_SWITCH = {switch}", "P24.interval")


@pytest.mark.slow
def test_gamma_c_scan_skipping_first_cell_makes_p17_fail():
    assert_caught(EXACT, "for g in _SCAN[1:]:", "for g in _SCAN[2:]:", "P17")


@pytest.mark.slow
def test_target_noise_on_gauss_hermite_up_to_sigma0_2_makes_p17_variants_fail():
    assert_caught(EXACT, "    if sigma0 <= 1.0:\n        return _gauss_hermite(_TARGET_NODES)",
                  "    if sigma0 <= 2.0:\n        return _gauss_hermite(_TARGET_NODES)", "P17.variants")

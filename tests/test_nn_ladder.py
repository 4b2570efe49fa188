"""gamma_c observables of an accuracy curve and the ladder slope (theorylab.nn.ladder), on synthetic curves
whose answers are known in closed form."""
from __future__ import annotations

import numpy as np
import pytest

from theorylab.errors import ParameterError
from theorylab.nn import ladder

G = np.array([0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0])


def piecewise(gc: float, low: float = 0.1, high: float = 0.9, width: float = 1.0, grid=G) -> np.ndarray:
    """A ramp from ``low`` to ``high`` centred on ``gc`` (linear in gamma, flat outside [gc - w/2, gc + w/2]).

    Linear interpolation between grid points reproduces it exactly where the ramp's ends are grid points
    (the defaults: 1.0 and 2.0) or lie at least one grid step away from the crossing."""
    return low + (high - low) * np.clip((grid - gc) / width + 0.5, 0, 1)


def test_plateau_midpoint_of_a_linear_ramp_is_its_centre():
    # the ramp is linear, so linear interpolation between grid points is exact: tolerance is rounding only
    assert ladder.plateau_midpoint(G, piecewise(1.5)) == pytest.approx(1.5, abs=1e-12)
    assert ladder.plateau_midpoint(G, np.full(G.size, 0.3)) is None      # a flat curve has no transition


def test_half_accuracy_is_where_the_curve_crosses_one_half_and_differs_from_the_midpoint():
    curve = piecewise(1.5, low=0.3, high=0.9)          # ramp 1.0 -> 2.0: midpoint level 0.6 at 1.5, 0.5 at 1 + 1/3
    assert ladder.half_accuracy(G, curve) == pytest.approx(1.0 + 0.2 / 0.6, abs=1e-12)
    assert ladder.plateau_midpoint(G, curve) == pytest.approx(1.5, abs=1e-12)
    assert ladder.half_accuracy(G, piecewise(1.5, high=0.45)) is None    # never reaches 50 %
    assert ladder.half_accuracy(G, curve, level=0.8) == pytest.approx(1.0 + 0.5 / 0.6, abs=1e-12)


def test_steepest_segment_is_the_centre_of_the_fastest_rise():
    curve = np.full(G.size, 0.1)
    curve[G >= 0.75] = 0.2
    curve[G >= 1.0] = 0.9          # the jump between 0.75 and 1.0 (rise 2.8 per unit) beats 0.5 -> 0.75 (0.4)
    assert ladder.steepest_segment(G, curve) == 0.875
    assert ladder.curve_gamma_c(G, curve, "steepest-segment") == 0.875
    assert ladder.steepest_segment(G, 1 - piecewise(1.5)) is None        # a falling curve has no rise


def test_a_power_law_ladder_gives_its_exponent():
    """gamma_c = 2 * dk^-0.75 exactly on every seed: the slope is -0.75 and the bootstrap interval collapses."""
    dks, fine = [8, 16, 32, 64], np.linspace(0, 3, 301)
    per_seed = [np.tile(piecewise(2.0 * dk ** -0.75, width=0.1, grid=fine), (3, 1)) for dk in dks]
    out = ladder.ladder_slope(dks, fine, per_seed, "plateau-midpoint", draws=50)
    # the ramp's ends lie >= 4 grid steps from each crossing: the interpolated crossing is exact (to rounding)
    np.testing.assert_allclose(out["gamma_c"], [2.0 * dk ** -0.75 for dk in dks], rtol=1e-10)
    assert out["slope"] == pytest.approx(-0.75, abs=1e-10)
    assert out["usable_draws"] == 50 and out["ci_low"] == pytest.approx(-0.75, abs=1e-10)


def test_seed_noise_gives_an_interval_that_covers_the_seed_mean_slope():
    rng = np.random.default_rng(7)
    dks = [8, 16, 32, 64]
    per_seed = [np.clip(np.array([piecewise(2.0 * dk ** -0.75 * (1 + 0.1 * rng.standard_normal()), width=0.3)
                                  for _ in range(4)]), 0, 1) for dk in dks]
    out = ladder.ladder_slope(dks, G, per_seed, "plateau-midpoint", draws=400, seed=1)
    assert out["ci_low"] < out["slope"] < out["ci_high"]
    assert out["ci_high"] - out["ci_low"] > 0.01


def test_undefined_gamma_c_leaves_no_slope_and_bad_input_is_refused():
    flat = [np.full((2, G.size), 0.2)] * 2
    assert ladder.ladder_slope([8, 16], G, flat, "half-accuracy", draws=5)["slope"] is None
    with pytest.raises(ParameterError, match="increasing grid starting at 0"):
        ladder.plateau_midpoint([0.1, 0.2], [0.1, 0.5])
    with pytest.raises(ParameterError, match="observable"):
        ladder.curve_gamma_c(G, piecewise(1.5), "inflection")
    with pytest.raises(ParameterError, match="per_seed"):
        ladder.ladder_slope([8, 16], G, [np.zeros((2, 3))] * 2, "half-accuracy")

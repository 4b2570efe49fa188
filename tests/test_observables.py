"""Named transition observables: registry, exact definitions, Monte Carlo agreement within the CI."""
import numpy as np
import pytest

from theorylab.errors import ParameterError
from theorylab.psa.quadrature import argmax_limit, exact_gamma_c, exact_mass
from theorylab.psa.observables import (DEFAULT_OBSERVABLE, OBSERVABLE_NAMES, OBSERVABLES, half_plateau, mass_half,
                                       measure, observable)
from theorylab.psa.peaks import entropy_peak, inflection
from theorylab.psa.row_stats import exact_row_stats


def test_registry():
    assert OBSERVABLE_NAMES == ("mass-half", "half-plateau", "inflection", "entropy-peak",
                                "distractor-entropy-peak")
    assert DEFAULT_OBSERVABLE == "mass-half" and observable("inflection") is inflection
    assert all(callable(f) for f in OBSERVABLES.values())
    with pytest.raises(ParameterError, match="observable must be one of"):
        observable("entropy")


def test_level_observables_are_the_exact_roots():
    assert mass_half("t4-only", 128, 512).gamma_c == exact_gamma_c("t4-only", 128, 512)
    level = float(argmax_limit("t4-only", 16, 64)) / 2
    hp = half_plateau("t4-only", 16, 64)
    assert hp.level == level and hp.gamma_c == exact_gamma_c("t4-only", 16, 64, level=level)
    assert np.isnan(mass_half("t4-only", 16, 64).gamma_c)           # plateau 0.24 < 1/2
    assert np.isnan(half_plateau("t4-only", 16, 512).gamma_c)       # M(0) = 1/511 is above half the plateau


def _stencil(f, u, h):
    return (f(u + h) - f(u - h)) / (2 * h)


@pytest.mark.parametrize("dk,T", [(16, 64), (128, 512)])
def test_exact_peaks_are_maxima_of_the_quadrature_slopes(dk, T):
    gi = inflection("t4-only", dk, T).gamma_c
    slope = lambda g: _stencil(lambda x: exact_mass("t4-only", dk, T, x), g, 1e-4)
    assert slope(gi) > slope(gi - 0.01) and slope(gi) > slope(gi + 0.01)
    ge = entropy_peak("t4-only", dk, T).gamma_c
    H = lambda x: exact_row_stats("t4-only", dk, T, np.sqrt(x), distractor=False).entropy
    fall = lambda x: -_stencil(H, x, 1e-5)
    x = ge * ge
    assert fall(x) > fall(x - 0.01) and fall(x) > fall(x + 0.01)
    # the zero of the second derivative to ~1e-6: a tenth of a thousandth either side is still below the peak
    assert fall(x) >= max(fall(x - 1e-3), fall(x + 1e-3))


def test_distractor_entropy_peak_does_not_depend_on_dk():
    a = measure("distractor-entropy-peak", "t4-only", 16, 64).gamma_c
    b = measure("distractor-entropy-peak", "t4-only", 256, 64).gamma_c
    assert a == pytest.approx(b, abs=1e-9)


@pytest.mark.parametrize("name", ["inflection", "entropy-peak"])
@pytest.mark.parametrize("T", [64, 512])
def test_monte_carlo_confirms_the_exact_peak_within_its_interval(name, T):
    e = measure(name, "t4-only", 16, T)
    m = measure(name, "t4-only", 16, T, method="mc", samples=4000, seed=7)
    assert m.method == "mc" and m.ci_low < m.gamma_c < m.ci_high and m.batch_gamma_c.size == 20
    assert m.ci_low <= e.gamma_c <= m.ci_high, (e.gamma_c, m.ci_low, m.ci_high)


def test_measurement_row_and_bad_input():
    row = entropy_peak("t4-only", 16, 64).row()
    assert set(row) >= {"observable", "variant", "dk", "T", "method", "gamma_c", "ci_low", "ci_high"}
    with pytest.raises(ParameterError, match="method"):
        entropy_peak("t4-only", 16, 64, method="quad")
    with pytest.raises(ParameterError, match="sigma0"):
        inflection("t4-only", 16, 64, sigma0=1.0)
    with pytest.raises(ParameterError, match="T must be an integer"):
        mass_half("t4-only", 16, 64.5)
    with pytest.raises(ParameterError, match="fine_points"):
        entropy_peak("t4-only", 16, 64, method="mc", fine_points=2)


@pytest.mark.parametrize("key", ["level", "fine_points", "bogus"])
def test_measure_refuses_a_keyword_the_observable_does_not_take(key):
    from theorylab.psa.observables import measure

    with pytest.raises(ParameterError, match=f"^{key} is not a parameter of observable mass-half"):
        measure("mass-half", "t4-only", 64.0, 16, **{key: float("nan")})   # was: TypeError from the call
    if key == "level":
        with pytest.raises(ParameterError, match=r"take a level in \(0, 1\)"):
            measure("half-plateau", "t4-only", 64.0, 16, level=0.3)
    with pytest.raises(ParameterError, match="^fine_points must be an integer >= 4"):
        measure("entropy-peak", "t4-only", 64.0, 16, method="mc", fine_points=float("nan"))

"""Numbers the papers quote from their laws and fits (theorylab.psa.laws, theorylab.graded.overhead) and
study (n), which sets each beside the paper's figure."""
from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from theorylab.errors import ParameterError
from theorylab.graded.overhead import PLANNED_CONFIGURATIONS, grading_overhead
from theorylab.psa import laws

ROOT = Path(__file__).resolve().parents[1]


def test_band_ends_are_the_condensed_branch_in_closed_form():
    band = laws.band_gamma_c(16, 25, 127, c=0.741)
    # c (L/2)^(1/4), L = ln(T - 1), by hand: two float routes, a few ulp apart
    for T, got in ((25, band.low), (127, band.high), (76, band.midpoint)):
        assert got == pytest.approx(0.741 * (math.log(T - 1) / 2) ** 0.25, rel=1e-14)
    assert band.branch == ("condensed",) * 3 and band.T_mid == 76.0


def test_band_refuses_a_reversed_band():
    with pytest.raises(ParameterError):
        laws.band_gamma_c(16, 127, 25)


def test_power_law_fit_recovers_an_exact_law_and_differs_from_the_loglog_fit_on_noisy_points():
    N = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    fit = laws.power_law_fit(N, 3.0 / N ** 0.6)
    # an exact law: both fits find it to solver precision (1e-10 is far above the 1e-15 stopping tolerances)
    assert (fit.prefactor, fit.exponent, fit.r_squared) == pytest.approx((3.0, 0.6, 1.0), abs=1e-10)
    g = np.array([4.0, 3.0, 1.25, 0.75])
    lin, log = laws.power_law_fit(N[:4], g), laws.loglog_fit(N[:4], g)
    assert (round(lin.prefactor, 2), round(lin.exponent, 2), round(lin.r_squared, 3)) == (4.17, 0.73, 0.947)
    assert (round(log.prefactor, 2), round(log.exponent, 2), round(log.r_squared, 3)) == (4.44, 0.85, 0.968)
    # the fit minimises the squared residual in y: a nudge of either parameter raises it
    sse = lambda A, a: float(np.sum((A / N[:4] ** a - g) ** 2))
    best = sse(lin.prefactor, lin.exponent)
    assert all(sse(lin.prefactor + dA, lin.exponent + da) > best for dA, da in ((1e-4, 0), (-1e-4, 0), (0, 1e-4),
                                                                                  (0, -1e-4)))


def test_fits_refuse_too_few_or_degenerate_points():
    for x, y in (([1, 2], [1, 2]), ([2, 2, 2], [1, 2, 3]), ([1, 2, 3], [1, 1, 1]), ([1, 2, 3], [1, 2])):
        with pytest.raises(ParameterError):
            laws.power_law_fit(x, y)


def test_out_of_sample_arithmetic():
    assert laws.implied_exponent(4.17, 0.80, 12) == pytest.approx(math.log(4.17 / 0.8) / math.log(12), rel=1e-14)
    assert laws.power_law(4.17, 1.0, 12) == pytest.approx(4.17 / 12, rel=1e-14)
    with pytest.raises(ParameterError):
        laws.implied_exponent(4.17, 0.8, 1.0)


def test_large_dk_exponents_approach_their_asymptotes():
    wide = [2.0 ** k for k in range(14, 19)]
    # the fitted slopes move toward -1/2 (T3) and -1/4 (T4-only) as the widths grow
    t3, t4 = (laws.large_dk_exponent(v, 512, wide) for v in ("t3-inclusive", "t4-only"))
    assert -0.5 < t3 < -0.47 and -0.252 < t4 < -0.25
    with pytest.raises(ParameterError):                    # no t3-inclusive root below dk ~ 31.5 at T = 512
        laws.large_dk_exponent("t3-inclusive", 512, [16.0, 64.0])


def test_gap_fraction_and_chance_multiple():
    assert laws.gap_fraction(-0.254, -0.461, -1.13) == pytest.approx(0.207 / 0.876, rel=1e-12)
    assert laws.chance_multiple(0.626, 24) == pytest.approx(15.024, rel=1e-14)
    with pytest.raises(ParameterError):
        laws.gap_fraction(1.0, 2.0, 1.0)


def test_grading_overhead_counts_and_refuses_a_width_not_split_by_the_heads():
    o = grading_overhead(**PLANNED_CONFIGURATIONS["GLLM-7B"])
    assert (o.projections, o.head_grades, o.level_grades, o.output_grades) == (4096 ** 2, 32 * 4096, 4096, 32000)
    assert o.total == 16944384 and round(100 * o.fraction, 2) == 0.24
    with pytest.raises(ParameterError):
        grading_overhead(d=100, layers=2, heads=3, vocab=10, params=1e6)


def _study():
    spec = importlib.util.spec_from_file_location("n_paper_numbers", ROOT / "simulations" / "n_paper_numbers.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "simulations"))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "simulations"))
    return module


def test_every_quoted_figure_is_reproduced_or_states_its_cause():
    rows, extra = _study().figures()
    differs = [r for r in rows if r["status"] == "differs"]
    assert sorted(r["figure"].split(" (")[0].split(":")[0] for r in differs) == ["analytic midpoint", "total", "total"]
    assert all(r["cause"] for r in differs)
    assert all(r["paper_value"] is None for r in rows if r["status"] == "ours only")
    assert len(extra["exponent_ranges"]) == 5


def test_the_script_writes_csv_and_json(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "simulations" / "n_paper_numbers.py"), "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    summary = json.loads((tmp_path / "n_paper_numbers.json").read_text())
    assert summary["differs"] == 3 and summary["figures"] == len(summary["rows"])
    assert (tmp_path / "n_paper_numbers.csv").read_text().count("\n") == summary["figures"] + 1
    # the committed results: the same figures, the numbers at their real precision (the exponents are OLS slopes of
    # Brent roots: another libm or Python version moves their last bits), strings and counts exactly
    assert _close(summary, json.loads((ROOT / "results" / "n_paper_numbers.json").read_text()))


def _close(a, b, rtol=1e-12) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], rtol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, rtol) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or abs(a - b) <= rtol * max(abs(a), abs(b))
    return a == b and type(a) is type(b)


def test_the_comparison_of_results_is_not_loose():
    assert _close({"x": [1.0, "a"]}, {"x": [1.0 + 1e-15, "a"]})
    assert not _close({"x": [1.0]}, {"x": [1.0 + 1e-9]}) and not _close({"x": 1}, {"x": 1.0})
    assert not _close({"x": "a"}, {"x": "b"}) and not _close({"x": 1.0}, {"y": 1.0})

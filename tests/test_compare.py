"""Prediction vs simulation: grid handling, statistics, the compare / simulate / gamma-c CLIs."""
import json

import numpy as np
import pytest

from theorylab.cli import main
from theorylab.psa.compare import (PAPER_GRID, PAPER_STATISTICS, band_edge_check, compare_grid, gap_crossover, pearson_r,
                               plateau_check, read_grid, relative_error, t3_t4_crossover, validate_grid)
from theorylab.errors import ParameterError
from theorylab.psa.scoremodel import ScoreModel, score_model
from theorylab.psa.transition import crossover_dk
from theorylab.psa.quadrature import exact_gamma_c


def test_paper_grid_is_nine_mean_field_points():
    assert len(PAPER_GRID) == 9 and len(set(PAPER_GRID)) == 9
    assert all(dk >= crossover_dk(T) for dk, T in PAPER_GRID)


def test_statistics():
    assert pearson_r([1, 2, 3, np.nan], [2, 4, 6.5, 1]) == pytest.approx(np.corrcoef([1, 2, 3], [2, 4, 6.5])[0, 1])
    assert np.isnan(pearson_r([1, 2], [1, 2]))
    assert np.allclose(relative_error([1.1, 2.0], [1.0, 2.5]), [0.1, 0.2])


@pytest.mark.parametrize("call", [lambda: pearson_r([1, 2, 3], [1, 2]), lambda: relative_error([1.0, 2.0], [1.0]),
                                  lambda: pearson_r(["a", "b", "c"], [1, 2, 3])])
def test_statistics_refuse_mismatched_or_non_numeric_input(call):
    with pytest.raises(ParameterError, match="same shape|real number"):
        call()


def test_paper_statistics_is_the_single_copy():
    assert PAPER_STATISTICS._asdict() == {"pearson_r": 0.9876, "median_rel_err": 0.026}


def test_gap_crossover_reads_the_degree_one_and_two_gap_terms():
    assert gap_crossover() == 1.0
    assert gap_crossover(ScoreModel("x", (0.0, 1.0, 2.0), (0.0,), "")) == 0.5
    assert np.isnan(gap_crossover(score_model("t4-only")))          # no degree-1 term: no crossing
    assert np.isnan(gap_crossover(ScoreModel("x", (0.0, 1.0, -1.0), (0.0,), "")))


def test_t3_t4_crossover_is_measured_at_the_vector_level():
    res = t3_t4_crossover(32, 64, samples=400, seed=5)
    assert res.closed_form == 1.0 and res.cov34_model == 2.0
    assert res.ci_low < res.measured < res.ci_high and res.batch_crossover.shape == (20,)
    assert abs(res.measured - 1.0) < 4 * res.se and abs(res.cov34 - 2.0) < 4 * res.cov34_se
    again = t3_t4_crossover(32, 64, samples=400, seed=5, model=ScoreModel("x", (0.0, 1.0, 2.0), (0.0,), ""))
    # same code run twice: bitwise: the measurement ignores the model
    assert again.measured == res.measured and again.closed_form == 0.5   # the model never enters the measurement


@pytest.mark.parametrize("kw,name", [({"dk": 63}, "dk"), ({"dk": -1.0}, "dk"), ({"T": 2}, "T"), ({"T": 64.5}, "T"),
                                     ({"samples": 39}, "samples"), ({"theta": 4.0}, "theta")])
def test_t3_t4_crossover_bad_input(kw, name):
    with pytest.raises(ParameterError, match=name):
        t3_t4_crossover(**{"dk": 32, "T": 64, "samples": 40, **kw})


def test_plateau_and_band_checks():
    rows = plateau_check(((16.0, 24),), samples=20000, seed=1)
    assert rows[0]["seed"] == 1 and abs(rows[0]["z"]) < 4 and abs(rows[0]["exact_minus_plateau"]) < 1e-4
    rows = band_edge_check(128.0, 512, (2.0, 3.0), samples=2000, seed=2)
    assert [r["above_upper_root"] for r in rows] == [False, True]
    assert rows[1]["annealed_mass"] < 0.5 < rows[1]["exact_mass"] and rows[1]["mc_mass"] > 0.999


def test_read_grid_csv_and_json(tmp_path):
    (tmp_path / "g.csv").write_text("dk,T\n64,512\n128,64\n")
    (tmp_path / "g.json").write_text(json.dumps([[64, 512], {"dk": 128, "T": 64}]))
    assert read_grid(str(tmp_path / "g.csv")) == read_grid(str(tmp_path / "g.json")) == [(64.0, 512), (128.0, 64)]
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ParameterError, match="dk and T"):
        read_grid(str(tmp_path / "bad.csv"))
    with pytest.raises(ParameterError, match="grid"):
        read_grid(str(tmp_path / "missing.csv"))
    with pytest.raises(ParameterError, match="T"):
        validate_grid([(64, 2)])


def test_compare_grid_rows_and_summary():
    res = compare_grid("t4-only", [(128, 512), (256, 64), (64, 512)], samples=3000, seed=3)
    assert [r["seed"] for r in res.rows] == [3, 4, 5]
    for r in res.rows:
        assert r["mc_ci_low"] < r["mc_gamma_c"] < r["mc_ci_high"]
        assert abs(r["exact_gamma_c"] - r["mc_gamma_c"]) <= r["mc_ci_high"] - r["mc_ci_low"]  # 2 half-widths
    assert res.exact_pearson_r > 0.999 and res.pearson_r > 0.99
    assert res.median_rel_err == pytest.approx(np.median([r["rel_err_law"] for r in res.rows]))
    assert res.observable == "mass-half" and res.summary()["law_exact_pearson_r"] > 0.99


def test_compare_grid_with_an_observable_and_without_monte_carlo():
    from theorylab.psa.observables import measure

    pts = [(16, 64), (16, 512), (128, 512)]
    res = compare_grid("t4-only", pts, observable="entropy-peak", monte_carlo=False)
    assert res.samples == 0 and np.isnan(res.pearson_r) and all(np.isnan(r["mc_gamma_c"]) for r in res.rows)
    assert [r["exact_gamma_c"] for r in res.rows] == [measure("entropy-peak", "t4-only", dk, T).gamma_c
                                                      for dk, T in pts]
    assert res.law_exact_max_rel_err == pytest.approx(max(r["rel_err_law_exact"] for r in res.rows))


def test_calibration_exact_only_and_its_refusals():
    from theorylab.psa.compare import CONDENSED_GRID, calibrate_condensation_c

    cal = calibrate_condensation_c([(16, 64), (16, 512)], observable="half-plateau", monte_carlo=False)
    assert cal.n == 1 and np.isnan(cal.mc_c) and cal.rows[0]["c_exact"] == pytest.approx(cal.c)  # T = 512: no root
    assert all(dk < 8 * np.log(T - 1) for dk, T in CONDENSED_GRID)
    with pytest.raises(ParameterError, match="condensed"):
        calibrate_condensation_c([(64, 64)], monte_carlo=False)
    with pytest.raises(ParameterError, match="observable"):
        calibrate_condensation_c([(16, 64)], observable="entropy", monte_carlo=False)


def _run(capsys, *argv):
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_simulate_cli(capsys):
    status, out, _ = _run(capsys, "simulate", "--dk", "128", "--T", "512", "--variant", "t4-only", "--gamma", "0.7",
                          "0.8", "0.9", "--samples", "2000", "--seed", "1", "--exact", "--format", "json")
    rows = json.loads(out)
    assert status == 0 and [r["gamma"] for r in rows] == [0.7, 0.8, 0.9]
    assert all({"gamma", "mass", "se", "exact_mass", "z"} <= set(r) for r in rows)
    assert all(abs(r["z"]) < 4 for r in rows)


def test_gamma_c_methods_cli(capsys):
    _, out, _ = _run(capsys, "gamma-c", "--dk", "128", "--T", "512", "--variant", "t4-only", "--format", "json")
    annealed = json.loads(out)[0]
    _, out, _ = _run(capsys, "gamma-c", "--dk", "128", "--T", "512", "--variant", "t4-only", "--method", "exact",
                     "--format", "json")
    exact = json.loads(out)[0]
    assert set(annealed) <= set(exact) and exact["method"] == "exact"
    assert exact["gamma_c"] == pytest.approx(exact_gamma_c("t4-only", 128, 512), abs=1e-12)
    assert exact["band_upper"] == annealed["band_upper"] and exact["branch"] == "mean-field"
    _, out, _ = _run(capsys, "gamma-c", "--dk", "128", "--T", "512", "--variant", "t4-only", "--method", "mc",
                     "--samples", "2000", "--seed", "3", "--format", "json")
    mc = json.loads(out)[0]
    assert mc["ci_low"] < exact["gamma_c"] < mc["ci_high"] and mc["samples"] == 2000 and mc["seed"] == 3
    _, out, _ = _run(capsys, "gamma-c", "--dk", "16", "--T", "512", "--variant", "t4-only", "--method", "exact",
                     "--format", "json")
    assert json.loads(out)[0]["gamma_c"] is None and json.loads(out)[0]["branch"] == "none"


def test_gamma_c_observable_cli(capsys):
    from theorylab.psa.observables import measure

    _, out, _ = _run(capsys, "gamma-c", "--dk", "16", "--T", "64", "512", "--variant", "t4-only", "--method", "exact",
                     "--observable", "entropy-peak", "--format", "json")
    exact = json.loads(out)
    assert [r["observable"] for r in exact] == ["entropy-peak"] * 2 and all(r["branch"] == "condensed" for r in exact)
    assert [r["gamma_c"] for r in exact] == [measure("entropy-peak", "t4-only", 16, T).gamma_c for T in (64, 512)]
    _, out, _ = _run(capsys, "gamma-c", "--dk", "16", "--T", "64", "--variant", "t4-only", "--method", "mc",
                     "--observable", "inflection", "--samples", "2000", "--seed", "4", "--format", "json")
    mc = json.loads(out)[0]
    ex = measure("inflection", "t4-only", 16, 64).gamma_c
    assert mc["observable"] == "inflection" and mc["ci_low"] < ex < mc["ci_high"]
    # the default stays mass-half, the same numbers as before the option existed
    _, out, _ = _run(capsys, "gamma-c", "--dk", "128", "--T", "512", "--variant", "t4-only", "--method", "exact",
                     "--format", "json")
    assert json.loads(out)[0]["observable"] == "mass-half"
    status, _, err = _run(capsys, "gamma-c", "--dk", "16", "--T", "64", "--observable", "inflection")
    assert status == 2 and "--observable" in err and err.count("\n") == 1
    status, _, err = _run(capsys, "gamma-c", "--dk", "16", "--T", "64.5", "--method", "exact",
                          "--observable", "entropy-peak")
    assert status == 2 and "T must be an integer" in err


def test_compare_cli_observable(capsys):
    status, out, _ = _run(capsys, "compare", "--variant", "t4-only", "--samples", "1000", "--observable", "entropy-peak",
                          "--format", "json")
    data = json.loads(out)
    assert status == 0 and data["observable"] == "entropy-peak" and len(data["rows"]) == 9
    assert all(r["observable"] == "entropy-peak" for r in data["rows"])
    assert data["law_exact_pearson_r"] > 0.98


def test_compare_cli_with_file_and_plot(capsys, tmp_path):
    grid = tmp_path / "grid.csv"
    grid.write_text("dk,T\n128,512\n256,64\n64,512\n")
    png = tmp_path / "out.png"
    status, out, _ = _run(capsys, "compare", "--variant", "t4-only", "--grid", str(grid), "--samples", "2000",
                          "--plot", str(png), "--format", "json")
    data = json.loads(out)
    assert status == 0 and len(data["rows"]) == 3
    assert {"rows", "pearson_r", "median_rel_err"} <= set(data)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv", [
    ["simulate", "--dk", "128", "--T", "512", "--gamma", "0.5", "--samples", "0"],
    ["simulate", "--dk", "128", "--T", "512", "--gamma"],
    ["simulate", "--dk", "128", "--T", "512", "--gamma", "-0.5"],
    ["simulate", "--dk", "128", "--T", "2", "--gamma", "0.5"],
    ["gamma-c", "--dk", "128", "--T", "512", "--method", "mc", "--samples", "0"],
    ["gamma-c", "--dk", "128", "--T", "512.5", "--method", "mc"],
    ["compare", "--grid", "no-such-file.csv"],
    ["compare", "--samples", "-3"],
    ["compare", "--plot", "out.txt"]])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, err = _run(capsys, *argv)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_bench_mc_reports_its_ratio(capsys):
    status, out, _ = _run(capsys, "bench", "mc", "--samples", "300", "--repeat", "1", "--no-cold", "--format", "json")
    data = json.loads(out)
    assert status == 0 and data["speedup_vs_numpy"] > 0 and data["cold_jit_seconds"] is None
    assert [r["implementation"] for r in data["rows"]] == ["numba float32", "numba float64", "numpy log-sum-exp float64"]


@pytest.mark.slow
def test_paper_grid_at_full_samples():
    res = compare_grid("t4-only", PAPER_GRID, samples=20000, seed=0)
    assert res.pearson_r > 0.999 and res.median_rel_err < 0.01
    for r in res.rows:
        assert r["mc_ci_low"] <= r["exact_gamma_c"] <= r["mc_ci_high"]


@pytest.mark.slow
def test_condensation_constant_reproduces_at_full_samples():
    from theorylab.psa.compare import calibrate_condensation_c
    from theorylab.psa.transition import CONDENSATION_C

    cal = calibrate_condensation_c(samples=20000, seed=100)
    assert cal.observable == "entropy-peak" and cal.n == 9
    assert abs(cal.c - CONDENSATION_C) < 5e-4                    # the constant is the quadrature calibration
    assert cal.ci_low <= cal.c <= cal.ci_high                      # which the Monte Carlo confirms


def test_relative_error_refuses_a_zero_simulated_value():
    np.testing.assert_allclose(relative_error([1.1, np.nan], [1.0, 2.0]), [0.1, np.nan], rtol=1e-12)  # NaN: missing
    with pytest.raises(ParameterError, match="^simulated must be nonzero"):
        relative_error([1.0, 2.0], [1.0, 0.0])                                       # was inf, silently
    with pytest.raises(ParameterError, match="^simulated must be nonzero"):
        relative_error(0.0, 0.0)                                                     # was NaN (0/0)
    with pytest.raises(ParameterError, match="overflows"):
        relative_error(1e300, 1e-300)                                                # was inf


def test_read_grid_refuses_a_quoted_field_spanning_lines(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text('dk,T\n"12\n8",64\n32,64\n')               # read line by line the field became dk = 128
    with pytest.raises(ParameterError) as info:
        read_grid(str(path))
    assert str(info.value) == (f"grid file {str(path)!r}: line 2: field '12\\n8' spans lines (a quoted line "
                               f"break); grid fields are single numbers")
    path.write_text('dk,T\n"64,16\n')                            # an unterminated quote
    with pytest.raises(ParameterError, match="is not a CSV grid .line 2: unexpected end of data"):
        read_grid(str(path))
    path.write_text('dk,T\n\n"64",16\n\n32,x\n')                  # quoted numbers are fine; lines count blanks
    with pytest.raises(ParameterError, match=r": line 5 must hold 2 fields .*got '32,x'"):
        read_grid(str(path))
    path.write_text('dk,T\r\n"64",16\r\n')
    assert read_grid(str(path)) == [(64.0, 16)]

"""CLI: theorylab grades / envelope / graded-sim (GLLM)."""
import json

import pytest

from theorylab.cli import main


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_grades_table3_row_json(capsys):
    row, = _json(capsys, ["grades", "--nu", "0.5", "--mu", "0.2", "--levels", "4", "--clip", "2", "--format", "json"])
    assert {"Lambda_star", "Lambda_star_C", "token_gain", "g_star_C", "BC"} <= set(row)
    assert (f"{row['Lambda_star']:.3f}", f"{row['Lambda_star_C']:.3f}", f"{row['token_gain']:.2f}") == \
        ("0.279", "0.424", "2.36")
    assert [f"{g:.2f}" for g in row["g_star_C"]] == ["1.00", "1.31", "2.00", "2.00"]


def test_grades_table3_flag(capsys):
    rows = _json(capsys, ["grades", "--table3", "--format", "json"])
    assert [f"{r['token_gain']:.2f}" for r in rows] == ["2.36", "1.88", "1.72", "1.41"]


def test_grades_user_profiles_from_files(tmp_path, capsys):
    (tmp_path / "a.json").write_text("[0.1, 0.2, 0.7]")
    (tmp_path / "t.txt").write_text("# data variance\n0.5, 0.3\n0.2\n")
    out = _json(capsys, ["grades", "--alpha", str(tmp_path / "a.json"), "--tau", str(tmp_path / "t.txt"),
                         "--q", "0,1,2", "--format", "json"])
    assert out["admissibility"] == pytest.approx(0.9) and out["admissible_first_order"] is True
    assert len(out["rows"]) == 3 and out["rows"][0]["g_star_C"] == pytest.approx(1.0)
    assert out["Lambda_star"] == pytest.approx(out["BC"] ** 2)


@pytest.mark.parametrize("argv", [
    ["grades", "--alpha", "0.2,0.2,0.2", "--tau", "0.5,0.3,0.2"],     # does not sum to 1
    ["grades", "--alpha", "0,0.5,0.5", "--tau", "0.5,0.3,0.2"],       # zero
    ["grades", "--nu", "0.5", "--mu", "0.2", "--clip", "-1"],          # negative clip
    ["grades", "--nu", "0.5", "--mu", "0.2", "--clip", "0.5"],         # C < 1
    ["grades", "--nu", "0.5", "--mu", "0.2", "--levels", "0"],         # levels < 1
    ["grades", "--nu", "0.5"],
    ["grades", "--alpha", "/no/such/file", "--tau", "0.5,0.5"],
    ["envelope", "--d", "63"],
    ["graded-sim", "--reps", "1"],
])
def test_bad_input_one_line_exit_2(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_envelope_json(capsys):
    out = _json(capsys, ["envelope", "--m", "4", "1000", "--format", "json"])
    assert out["window"][0] == 4 and out["m_sat"] > 8 and len(out["rows"]) == 4
    assert out["thm41_factor_low"] * out["Lambda"] <= out["cap_ratio"] <= out["thm41_factor_high"] * out["Lambda"]


def test_graded_sim_small_with_plot(tmp_path, capsys):
    png = tmp_path / "risk.png"
    out = _json(capsys, ["graded-sim", "--d", "16", "--m", "4", "200", "--reps", "20", "--seed", "3",
                         "--plot", str(png), "--no-progress", "--format", "json"])
    assert png.stat().st_size > 1000
    assert len(out["rows"]) == 8 and len(out["ratios"]) == 2 and out["seed"] == 3


def test_grades_level_program_dims(capsys):
    argv = ["grades", "--alpha", "0.05,0.05,0.1,0.1,0.35,0.35", "--tau", "0.3,0.3,0.15,0.15,0.05,0.05",
            "--format", "json"]
    full = _json(capsys, argv)
    levels = _json(capsys, argv + ["--dims", "2", "2", "2"])
    assert levels["Lambda_star_C"] == pytest.approx(full["Lambda_star_C"], rel=1e-12)
    assert [r["g_star_C"] for r in levels["rows"]] == pytest.approx([r["g_star_C"] for r in full["rows"]], rel=1e-10)
    assert levels["level_a"] == pytest.approx([0.1, 0.2, 0.7])


@pytest.mark.parametrize("argv, message", [
    (["grades", "--nu", "1.5", "--mu", "0.3"], "nu and mu must satisfy 0 < nu < 1 and 0 < mu < 1 (Cor. 3)"),
    (["grades", "--nu", "0.5", "--mu", "1"], "nu and mu must satisfy 0 < nu < 1 and 0 < mu < 1 (Cor. 3)"),
    (["envelope", "--mu", "1"], "nu and mu must satisfy 0 < mu < nu < 1"),
    (["envelope", "--nu", "0.3", "--mu", "0.6"], "nu and mu must satisfy 0 < mu < nu < 1"),   # factor_low was -0.414
    (["envelope", "--nu", "0"], "nu and mu must satisfy 0 < mu < nu < 1"),
    (["graded-sim", "--nu", "0.3", "--mu", "0.6"], "nu and mu must satisfy 0 < mu < nu < 1"),
    (["grades", "--table3", "--levels", "5"], "--levels cannot be used with --table3"),
    (["grades", "--table3", "--clip", "3"], "--clip cannot be used with --table3"),
    (["grades", "--alpha", "0.5,0.5", "--tau", "0.3,0.7", "--levels", "3"], "--levels cannot be used with --alpha"),
    (["grades", "--nu", "0.6", "--mu", "0.3", "--q", "0,1"], "--q cannot be used with --nu/--mu"),
    (["grades", "--nu", "0.6", "--mu", "0.3", "--dims", "2", "2"], "--dims cannot be used with --nu/--mu"),
    (["grades", "--alpha", "0.5,0.5", "--tau", "0.3,0.7", "--lam", "3"], "--lam is the base of Lambda(q): it needs --q"),
])
def test_regime_and_unused_options_refused(capsys, argv, message):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"theorylab {argv[0]}: error: {message}")


def test_grades_lambda_star_is_the_library_value(capsys):
    from theorylab.graded import grades

    out = _json(capsys, ["grades", "--alpha", "0.1,0.2,0.7", "--tau", "0.5,0.3,0.2", "--format", "json"])
    assert out["Lambda_star"] == grades.Lambda_star([0.1, 0.2, 0.7], [0.5, 0.3, 0.2])
    row, = _json(capsys, ["grades", "--nu", "0.3", "--mu", "0.6", "--format", "json"])   # Cor. 3: any order
    assert row["Lambda_star"] == pytest.approx(row["BC"] ** 2)

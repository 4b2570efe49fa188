"""CLI: theorylab ladder (GLLM selection ladder)."""
import csv
import io
import json
import os

import pytest

from theorylab.cli import main

SMALL = ["--d", "16", "--n-pilot", "3000", "--pilot-bootstrap", "20", "--reps", "40", "--bootstrap", "30",
         "--points", "12", "--no-progress"]


def _run(capsys, argv):
    assert main(argv) == 0
    return capsys.readouterr().out


def test_ladder_json_with_prereg_file_then_from_prereg(tmp_path, capsys):
    path = str(tmp_path / "prereg.json")
    out = json.loads(_run(capsys, ["ladder", "--nu", "0.5", "--mu", "0.2", "--prereg", path, *SMALL,
                                   "--format", "json"]))
    assert [r["arm"] for r in out["rows"]] == ["uniform", "random", "taxonomic", "proxy", "educated", "oracle"]
    assert out["prereg_unchanged"] is True and out["prereg_file"] == path
    for key in ("spearman_efficiency", "spearman_efficiency_ci", "predicted_order", "measured_order",
                "educated_gain", "oracle_gain", "inv_Lambda_star_C_true", "m_ref", "prereg_sha256"):
        assert key in out
    on_disk = json.load(open(path))
    assert on_disk["predicted_order"] == out["predicted_order"]
    # measuring the published file again, same seed: the same numbers
    again = json.loads(_run(capsys, ["ladder", "--from-prereg", path, "--reps", "40", "--bootstrap", "30",
                                     "--points", "12", "--no-progress", "--format", "json"]))
    # same code run twice: bitwise (the file's floats round-trip exactly)
    assert again["rows"] == out["rows"] and again["prereg_sha256"] == out["prereg_sha256"]


def test_ladder_table_and_csv(capsys):
    table = _run(capsys, ["ladder", "--a", "0.1,0.6,0.2,0.1", "--s", "0.4,0.3,0.2,0.1", *SMALL])
    assert "efficiency" in table and "predicted_order:" in table and "spearman_efficiency:" in table
    rows = list(csv.DictReader(io.StringIO(_run(capsys, ["ladder", *SMALL, "--format", "csv"]))))
    assert len(rows) == 6 and float(rows[0]["efficiency"]) == 1.0


def test_ladder_plot_and_degradation(tmp_path, capsys):
    png = tmp_path / "ladder.png"
    _run(capsys, ["ladder", *SMALL, "--plot", str(png)])
    assert png.stat().st_size > 10_000
    png2 = tmp_path / "deg.png"
    out = json.loads(_run(capsys, ["ladder", "--d", "16", "--degradation", "200", "2000", "20000", "--draws", "2",
                                   "--reps", "20", "--points", "10", "--no-progress", "--plot", str(png2),
                                   "--format", "json"]))
    assert [r["n_pilot"] for r in out["rows"]] == [200, 2000, 20000] and len(out["draws_detail"]) == 6
    assert "slope_excess_vs_error" in out and png2.stat().st_size > 10_000


@pytest.mark.parametrize("argv", [
    ["ladder", "--nu", "0.6"],                                   # --mu missing
    ["ladder", "--a", "0.5,0.5"],                                # --s missing
    ["ladder", "--a", "0.5,0.5", "--s", "0.5,0.5", "--nu", "0.6", "--mu", "0.3"],
    ["ladder", "--target", "0"],
    ["ladder", "--reps", "1"],
    ["ladder", "--n-pilot", "10"],                               # not more than d
    ["ladder", "--d", "30"],                                     # not a multiple of L
    ["ladder", "--clip", "0.5"],
    ["ladder", "--m", "10", "5"],
    ["ladder", "--draws", "3"],                                  # needs --degradation
    ["ladder", "--degradation", "100", "1000"],                 # fewer than 3 sizes
    ["ladder", "--degradation", "10", "100", "1000"],           # not more than d
    ["ladder", "--degradation", "100", "1000", "10000", "--prereg", "x.json"],
    ["ladder", "--from-prereg", "/no/such/file.json"],
    ["ladder", "--from-prereg", "x.json", "--nu", "0.6", "--mu", "0.3"],
    ["ladder", "--plot", "/no/such/folder/x.png"],
    ["ladder", "--prereg", "x.txt"],
    ["ladder", "--reps", "1e12"],                                # refused up front: memory estimate
])
def test_bad_input_one_line_exit_2(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_too_big_names_the_estimate_and_writes_nothing(tmp_path, capsys):
    path = tmp_path / "p.json"
    assert main(["ladder", "--reps", "1e12", "--prereg", str(path), "--plot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "of memory" in err and not os.listdir(tmp_path)


def test_malformed_prereg_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "theorylab-ladder-preregistration/1", "design": {}}')
    assert main(["ladder", "--from-prereg", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing or malformed" in err


@pytest.mark.parametrize("sigma", ["1e200", "1e308", "2e8"])
def test_sigma_xi_beyond_its_range_names_the_bound(capsys, sigma):
    """sigma_xi above 1.34e8 (2^27 rounded down) can be measured for no design (was an OverflowError from 1e154)."""
    assert main(["ladder", "--sigma-xi", sigma]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "sigma_xi must be a finite real number > 0 and <= 1.34e+08" in err


def test_sigma_xi_too_large_for_the_design_is_refused_before_the_prereg_is_written(tmp_path, capsys):
    """In range, but this design's m_sat/2 = (8^2 / s_0) sigma_xi^2 / 2 is beyond 2^53: refused with the sigma_xi it
    allows, before the offline step writes --prereg."""
    path = tmp_path / "p.json"
    assert main(["ladder", "--sigma-xi", "1.5e7", "--m", "1", "10", "100", "--n-pilot", "100", "--prereg",
                 str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "too large for this design" in err and "at most 1.408e+07 here" in err
    assert not path.exists()


def test_prereg_field_out_of_range_names_the_option_and_field(tmp_path, capsys):
    path = str(tmp_path / "p.json")
    assert main(["ladder", "--prereg", path, *SMALL, "--format", "csv"]) == 0
    body = json.load(open(path))
    for field, value, fragment in (("n_pilot", float("inf"), "n_pilot must be an integer"),
                                   ("BC_hat", 1e308, "BC_hat is 1e+308 but the recorded inputs give"),
                                   ("bootstrap", 1e308, "bootstrap must be an integer in [2, ")):
        bad = tmp_path / f"{field}.json"
        bad.write_text(json.dumps({**body, field: value}))
        capsys.readouterr()
        assert main(["ladder", "--from-prereg", str(bad)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"theorylab ladder: error: --from-prereg: {str(bad)!r}: ")
        assert fragment in err

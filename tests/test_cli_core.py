"""The CLI core: gamma-c output, one-line errors with exit 2, and the shared output helper."""
import json
import subprocess
import sys

import pytest

from theorylab.cli import main
from theorylab.cli._output import render


def run_cli(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_gamma_c_json_all_variants(capsys):
    status, out, _ = run_cli(capsys, "gamma-c", "--dk", "128", "--T", "512", "--variant", "all", "--format", "json")
    rows = {r["variant"]: r for r in json.loads(out)}
    assert status == 0 and set(rows) == {"t4-only", "t3-inclusive", "key-only", "symmetric-key-convention"}
    t4 = rows["t4-only"]
    assert round(t4["gamma_c"], 4) == 0.7867 and round(t4["band_upper"], 3) == 2.245
    assert t4["branch"] == "mean-field" and t4["dk"] == 128 and t4["T"] == 512
    assert round(rows["t3-inclusive"]["gamma_c"], 4) == 0.4132
    assert all({"dk", "T", "variant", "gamma_c", "branch", "L"} <= set(r) for r in rows.values())


def test_gamma_c_cross_product_and_null_roots(capsys):
    status, out, _ = run_cli(capsys, "gamma-c", "--dk", "10", "64", "--T", "15", "512", "--format", "json")
    rows = json.loads(out)
    assert len(rows) == 2 * 2 * 4
    key_only_small = [r for r in rows if r["variant"] == "key-only" and r["dk"] == 10 and r["T"] == 512][0]
    assert key_only_small["gamma_c"] is None and key_only_small["branch"] == "none"
    t4_small = [r for r in rows if r["variant"] == "t4-only" and r["dk"] == 10 and r["T"] == 512][0]
    assert t4_small["branch"] == "condensed" and t4_small["band_upper"] is None


@pytest.mark.parametrize("argv, needle", [
    (["--dk", "-1", "--T", "512"], "dk must"),
    (["--dk", "64", "--T", "2"], "T must"),
    (["--dk", "nan", "--T", "512"], "dk must"),
    (["--dk", "abc", "--T", "512"], "--dk"),
    (["--dk", "64", "--T", "512", "--variant", "t5"], "--variant"),
    (["--dk", "64", "--T", "512", "--c", "-0.5"], "c must"),
])
def test_bad_input_one_line_exit_2(capsys, argv, needle):
    status, out, err = run_cli(capsys, "gamma-c", *argv)
    assert status == 2 and out == ""
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_console_script_exit_code_and_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "theorylab", "gamma-c", "--dk", "0", "--T", "512"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_render_formats():
    rows = [{"a": 1, "b": float("nan")}, {"a": 2.5, "b": "x"}]
    assert json.loads(render(rows, "json")) == [{"a": 1, "b": None}, {"a": 2.5, "b": "x"}]
    assert render(rows, "csv").splitlines() == ["a,b", "1,", "2.5,x"]
    table = render(rows, "table").splitlines()
    assert table[0].split() == ["a", "b"] and table[2].split() == ["1", "-"]
    assert json.loads(render(rows, "json", summary={"r": 0.5}))["r"] == 0.5

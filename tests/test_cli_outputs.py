"""Output files of the CLI: every path option is checked before any computation (exit 2, one line,
nothing written, no folder created), results get ordinary permissions, machine formats parse."""
from __future__ import annotations

import csv
import io
import json
import os
import stat

import pytest

from theorylab._io import atomic_path, check_output_path, write_text_atomic
from theorylab.cli import main
from theorylab.errors import ParameterError

SPEC = """
[sweep]
name = "outputs"
seed = 1
compute = ["annealed"]
[grid]
variant = ["t4-only"]
dk = [64, 128]
T = [512]
"""

# (argv before the path, option, suffix the option wants); every command would compute for seconds or more
# (or need a store) if it did not refuse the path first
WRITERS = [
    (["certify", "--only", "G3", "--out"], "--out", ".json"),
    (["certify", "--only", "G3", "--docs"], "--docs", ".md"),
    (["compare", "--samples", "20000", "--plot"], "--plot", ".png"),
    (["induction", "--samples", "2000", "--plot"], "--plot", ".png"),
    (["graded-sim", "--reps", "200", "--no-progress", "--plot"], "--plot", ".png"),
    (["sweep", "export", "--store", "{store}", "--format", "csv", "-o"], "--out", ".csv"),
    (["sweep", "export", "--store", "{store}", "--format", "json", "--out"], "--out", ".json"),
    (["plot", "gamma-c", "--store", "{store}", "--out"], "--out", ".png"),
]


def _bad_paths(tmp_path, suffix):
    return {
        "missing folder": str(tmp_path / "no-such-folder" / f"x{suffix}"),
        "directory": str(tmp_path),
        "wrong suffix": str(tmp_path / ("x.txt" if suffix != ".txt" else "x.png")),
        "unwritable": f"/proc/x{suffix}",
    }


@pytest.fixture
def store(tmp_path_factory):
    """A small finished sweep store, outside the folder the bad-path tests inspect."""
    folder = tmp_path_factory.mktemp("store")
    (folder / "spec.toml").write_text(SPEC)
    path = str(folder / "s.db")
    assert main(["sweep", "run", str(folder / "spec.toml"), "--store", path, "--workers", "0", "--no-progress"]) == 0
    return path


@pytest.mark.parametrize("case", ["missing folder", "directory", "wrong suffix", "unwritable"])
@pytest.mark.parametrize("prefix, option, suffix", WRITERS, ids=[" ".join(w[0][:2]) + " " + w[1] for w in WRITERS])
def test_bad_output_path_exit_2_one_line_nothing_written(tmp_path, capsys, store, prefix, option, suffix, case):
    path = _bad_paths(tmp_path, suffix)[case]
    before = sorted(os.listdir(tmp_path))
    capsys.readouterr()
    status = main([a.replace("{store}", store) for a in prefix] + [path])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""                      # refused before anything ran or printed
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"theorylab {prefix[0]}: error: {option} ")
    assert sorted(os.listdir(tmp_path)) == before         # no file, no temporary, no folder created
    assert not os.path.exists(os.path.join(str(tmp_path), "no-such-folder"))


def test_sweep_run_store_in_missing_folder_is_refused(tmp_path, capsys):
    (tmp_path / "spec.toml").write_text(SPEC)
    status = main(["sweep", "run", str(tmp_path / "spec.toml"), "--store", str(tmp_path / "typo" / "s.db"),
                   "--workers", "0", "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("theorylab sweep: error: --store ") and err.count("\n") == 1
    assert not (tmp_path / "typo").exists()


def test_check_output_path_messages_name_option_and_valid_choice(tmp_path):
    with pytest.raises(ParameterError, match=r"^--plot must name a \.png file \(got '.*x\.txt'\)$"):
        check_output_path("--plot", str(tmp_path / "x.txt"), ".png")
    with pytest.raises(ParameterError, match="not a directory"):
        check_output_path("--out", str(tmp_path), ".json")
    with pytest.raises(ParameterError, match="existing folder"):
        check_output_path("--out", str(tmp_path / "a" / "r.json"), ".json")
    with pytest.raises(ParameterError, match="writable folder"):
        check_output_path("--out", "/proc/x.png", ".png")
    assert check_output_path("--out", str(tmp_path / "X.PNG"), ".png").endswith("X.PNG")   # case-insensitive
    assert check_output_path("--store", str(tmp_path / "s"), None).endswith("s")
    assert os.listdir(tmp_path) == []                     # the writability probe leaves nothing behind


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield 0o644
    os.umask(old)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_atomic_writes_get_ordinary_permissions_and_never_create_folders(tmp_path, umask_022):
    path = write_text_atomic(str(tmp_path / "r.txt"), "x\n")
    assert _mode(path) == umask_022 and open(path).read() == "x\n"
    os.umask(0o077)
    assert _mode(write_text_atomic(str(tmp_path / "private.txt"), "y")) == 0o600
    with pytest.raises(FileNotFoundError) as exc:
        write_text_atomic(str(tmp_path / "missing" / "r.txt"), "x")
    assert exc.value.filename == str(tmp_path / "missing" / "r.txt")      # the file asked for, not the temporary
    assert not (tmp_path / "missing").exists()
    with pytest.raises(RuntimeError):
        with atomic_path(str(tmp_path / "half.txt")) as tmp:
            open(tmp, "w").write("half")
            raise RuntimeError("interrupted")
    assert sorted(os.listdir(tmp_path)) == ["private.txt", "r.txt"]   # no half-written file, no temporary


def test_cli_results_have_ordinary_permissions(tmp_path, capsys, store, umask_022):
    files = {"report.json": ["certify", "--only", "G3", "--out"],
             "page.md": ["certify", "--only", "G3", "--docs"],
             "rows.csv": ["sweep", "export", "--store", store, "-o"],
             "fig.png": ["plot", "gamma-c", "--store", store, "--out"],
             "ind.png": ["induction", "--dk", "8", "--T", "16", "--samples", "50", "--gamma", "0.5", "--plot"]}
    for name, argv in files.items():
        assert main(argv + [str(tmp_path / name)]) == 0, name
        assert _mode(tmp_path / name) == umask_022, name
    capsys.readouterr()
    assert sorted(os.listdir(tmp_path)) == sorted(files)
    summary = json.loads((tmp_path / "report.json").read_text())["summary"]
    assert summary["total"] >= 1 and summary["PASS"] == summary["total"]
    assert (tmp_path / "ind.png").read_bytes()[:4] == b"\x89PNG"


def test_os_error_in_a_handler_is_one_line_exit_2(monkeypatch, capsys):
    def broken(args):
        raise PermissionError(13, "Permission denied", "/some/file\nwith a newline")

    monkeypatch.setattr("theorylab.cli.simulate.run", broken)
    status = main(["simulate", "--dk", "64", "--T", "512", "--gamma", "1"])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert err.startswith("theorylab simulate: error: [Errno 13] Permission denied")


def test_gamma_c_huge_T_is_a_float_not_a_301_digit_integer(capsys):
    assert main(["gamma-c", "--dk", "64", "--T", "1e300", "9007199254740991", "--variant", "t4-only",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["T"] == 1e300 and isinstance(rows[0]["T"], float)
    assert rows[1]["T"] == 2 ** 53 - 1 and isinstance(rows[1]["T"], int) and rows[1]["dk"] == 64
    assert main(["gamma-c", "--dk", "64", "--T", "1e300", "--variant", "t4-only"]) == 0
    assert max(len(w) for w in capsys.readouterr().out.split()) < 20


def _single_csv_table(text: str) -> list[dict]:
    assert "\n\n" not in text.strip()
    lines = list(csv.reader(io.StringIO(text)))
    assert len({len(r) for r in lines}) == 1                # one header, every row the same width
    return list(csv.DictReader(io.StringIO(text)))


def _count_emits(monkeypatch, module):
    import theorylab.cli._output as output

    calls = []

    def counted(*a, **k):
        calls.append(a[1] if len(a) > 1 else k.get("fmt"))
        output.emit(*a, **k)

    monkeypatch.setattr(f"theorylab.cli.{module}.emit", counted)
    return calls


def test_induction_csv_is_one_parseable_table(monkeypatch, capsys):
    calls = _count_emits(monkeypatch, "induction")
    argv = ["induction", "--dk", "8", "--T", "16", "--samples", "50", "--gamma", "0.5", "1.0"]
    assert main(argv + ["--format", "csv"]) == 0
    rows = _single_csv_table(capsys.readouterr().out)
    assert calls == ["csv"]                                   # the whole output is one emit call
    moments = [r for r in rows if r["table"] == "moments"]
    mass = [r for r in rows if r["table"] == "mass"]
    assert len(moments) == 2 * 5 and len(mass) == 2 and len(rows) == 12
    assert {r["channel"] for r in moments} == {"T1", "T2", "T3", "T4", "cov(T3,T4)"}
    assert all(r["variant"] == "symmetric" and float(r["target_mass"]) > 0 for r in mass)
    assert main(argv + ["--format", "json"]) == 0             # JSON unchanged: rows + mass + summary
    out = json.loads(capsys.readouterr().out)
    assert [r["gap"] for r in out["rows"]] == pytest.approx([float(r["gap"]) if r["gap"] else None
                                                             for r in moments])
    assert [r["target_mass"] for r in out["mass"]] == pytest.approx([float(r["target_mass"]) for r in mass])


def test_induction_table_summary_lines_come_from_emit(monkeypatch, capsys):
    calls = _count_emits(monkeypatch, "induction")
    assert main(["induction", "--dk", "8", "--T", "16", "--samples", "50", "--gamma", "0.5"]) == 0
    out = capsys.readouterr().out
    assert calls == ["table", "table"]
    assert "\nrope_match_factor: 1\n" in out and out.count("excess over bulk at ") == 4


def test_graded_sim_csv_is_one_parseable_table(capsys):
    assert main(["graded-sim", "--d", "16", "--m", "4", "200", "--reps", "20", "--no-progress",
                 "--format", "csv"]) == 0
    rows = _single_csv_table(capsys.readouterr().out)
    assert [r["table"] for r in rows] == ["risk"] * 8 + ["ratio"] * 2
    assert all(r["ratio_exact"] for r in rows[8:]) and all(r["risk_exact"] for r in rows[:8])

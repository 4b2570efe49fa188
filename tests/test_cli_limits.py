"""Bounded resources, refused up front; malformed files; options a mode does not read; exit codes."""
from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc

import pytest

from theorylab import resources
from theorylab._io import read_text
from theorylab.cli import main
from theorylab.cli._args import to_int
from theorylab.errors import ParameterError


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --------------------------------------------------------------------------- limits
def test_sizes_durations_and_precedence(monkeypatch):
    assert resources.parse_size("16G") == 16 * 2**30 and resources.parse_size("1.5GiB") == 1.5 * 2**30
    assert resources.parse_size("512m") == 512 * 2**20 and resources.parse_size("2e9") == 2e9
    assert resources.parse_duration("90") == 90 and resources.parse_duration("2h") == 7200
    assert resources.parse_duration("10min") == 600 and resources.parse_duration("1d") == 86400
    for bad in ("", "0", "-1G", "16Q", "nan", "inf", "1e400"):
        with pytest.raises(ParameterError):
            resources.parse_size(bad)
    monkeypatch.delenv(resources.MEMORY_ENV, raising=False)
    monkeypatch.delenv(resources.TIME_ENV, raising=False)
    default = resources.limits()
    assert default.seconds == resources.DEFAULT_MAX_SECONDS and 0 < default.memory
    monkeypatch.setenv(resources.MEMORY_ENV, "1G")
    monkeypatch.setenv(resources.TIME_ENV, "5m")
    assert resources.limits() == resources.Limits(2**30, 300.0, resources.MEMORY_ENV, resources.TIME_ENV)
    assert resources.limits(2.0**31, 60.0).memory == 2**31            # the option wins


def test_default_memory_limit_is_half_of_what_is_available(monkeypatch):
    monkeypatch.delenv(resources.MEMORY_ENV, raising=False)
    avail = resources.available_memory()
    if avail is None:
        assert resources.limits().memory == resources.FALLBACK_MEMORY
    else:
        assert resources.limits().memory == pytest.approx(avail / 2, rel=0.2)   # available memory moves


def test_refusal_names_estimate_limit_and_how_to_raise():
    limit = resources.Limits(2**30, 60.0)
    with pytest.raises(resources.ResourceError, match=r"about 2 GiB of memory \(x\).*1 GiB.*--max-memory"):
        resources.check(resources.Cost(2**31, 1.0, "x"), limit)
    with pytest.raises(resources.ResourceError, match=r"about 2 min.*limit of 1 min.*THEORYLAB_MAX_TIME"):
        resources.check(resources.Cost(1.0, 120.0), limit)
    with pytest.raises(resources.ResourceError, match="unbounded memory"):
        resources.check(resources.Cost(float("inf"), 0.0), limit)
    assert resources.check(resources.Cost(2**29, 59.0), limit).seconds == 59.0


def test_an_estimate_beyond_the_float_range_is_refused_in_one_line():
    """An exact int estimate too large for a float (dk = 1e300 squared) is refused, not an OverflowError."""
    from theorylab.errors import check_memory
    from theorylab.nn.tasks import induction_head

    assert resources.format_bytes(8 * 10 ** 600) == "unbounded"
    assert resources.format_seconds(10 ** 400) == "forever"
    with pytest.raises(resources.ResourceError, match="dk too large: the call needs unbounded memory"):
        check_memory("dk", 8 * 10 ** 600)
    with pytest.raises(resources.ResourceError, match="^dk too large"):
        induction_head("key-only", 1.0, dk=1e300, T=12)


@pytest.mark.parametrize("text, value", [("20000", 20000), ("2e4", 20000), ("1_000", 1000), (" 7 ", 7),
                                         (str(2**64 - 1), 2**64 - 1), ("1.5", None), ("nan", None),
                                         ("inf", None), ("0x10", None), ("", None), ("1e999999999", None)])
def test_integer_options_parse_exactly(text, value):
    assert to_int(text) == value


# The hostile cases, under the default limits: each is refused (or runs) at once, never a
# traceback or a MemoryError. Refusals happen before anything is allocated, so these run in-process.
@pytest.mark.parametrize("argv, needle", [
    (["simulate", "--dk", "64", "--T", "512", "--gamma", "1", "--samples", str(10**12)], "limit"),
    (["simulate", "--dk", "64", "--T", "512", "--gamma", "1", "--samples", "1e12"], "limit"),
    (["simulate", "--dk", "64", "--T", "2147483648", "--gamma", "1"], "limit"),
    (["simulate", "--dk", "64", "--T", "2147483649", "--gamma", "1"], "--T"),
    (["induction", "--T", "2147483648"], "limit"),
    (["induction", "--dk", "1000000000"], "limit"),
    (["graded-sim", "--d", "4096", "--no-progress"], "limit"),
    (["train", "induction", "--steps", str(10**12), "--no-progress"], "years"),
    (["train", "induction", "--seeds", "100000", "--no-progress"], "limit"),
    (["train", "induction", "--batch", str(10**8), "--no-progress"], "memory"),
    (["train", "induction", "--workers", str(10**30), "--no-progress"], "--workers"),
    (["graded-sim", "--levels", "1e9", "--d", "1e9"], "limit"),
    (["graded-sim", "--reps", "1e12", "--no-progress"], "limit"),
    (["graded-sim", "--points", "1e9", "--no-progress"], "limit"),
    (["graded-sim", "--sigma-xi", "1e200"], "--sigma-xi"),
    (["graded-sim", "--sigma-xi", "1e-320"], "--sigma-xi"),
    (["envelope", "--sigma-xi", "1e200"], "--sigma-xi"),
    (["grades", "--nu", "0.6", "--mu", "0.3", "--levels", "1e9"], "limit"),
    (["bench", "gamma-c", "--repeat", "1e9"], "limit"),
    (["bench", "mc", "--samples", "1e12", "--no-cold"], "limit"),
    (["bench", "certify", "--warm-repeat", "1e6"], "limit"),
    (["gamma-c", "--dk", *map(str, range(1, 2001)), "--T", *map(str, range(3, 2003))], "limit"),
    (["simulate", "--dk", "64", "--T", "64", "--gamma", "1", "--seed", str(2**64)], "--seed"),
    (["simulate", "--dk", "64", "--T", "64", "--gamma", "1", "--seed", "-1"], "--seed"),
    (["compare", "--seed", str(2**64 - 1)], "--seed"),
])
def test_hostile_requests_refused_in_one_line(capsys, argv, needle):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and needle in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_largest_seed_accepted_everywhere():
    """2^64 - 1 runs in every command that takes a seed. In a fresh interpreter, as the console
    script is: the Numba kernels' dispatch on a seed's integer type is the library's business."""
    top = str(2**64 - 1)
    calls = [["simulate", "--dk", "64", "--T", "16", "--gamma", "1", "--samples", "20", "--seed", top],
             ["induction", "--dk", "4", "--T", "9", "--samples", "4", "--seed", top],
             ["graded-sim", "--m", "20", "--reps", "2", "--no-progress", "--seed", top],
             ["gamma-c", "--dk", "64", "--T", "64", "--variant", "t4-only", "--method", "mc", "--samples", "20",
              "--seed", top]]
    code = f"import sys; from theorylab.cli import main; sys.exit(max(main(a) for a in {calls!r}))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-2000:]


def test_max_options_raise_and_lower_the_limits(capsys, monkeypatch):
    monkeypatch.delenv(resources.TIME_ENV, raising=False)
    base = ["simulate", "--dk", "64", "--T", "512", "--gamma", "1", "--samples", "4000"]
    assert run(capsys, *base, "--max-time", "0.01s")[0] == 2
    monkeypatch.setenv(resources.TIME_ENV, "0.01s")
    status, _, err = run(capsys, *base)
    assert status == 2 and "THEORYLAB_MAX_TIME" in err
    assert run(capsys, *base, "--max-time", "1h")[0] == 0             # the option wins over the variable
    status, _, err = run(capsys, *base, "--max-memory", "1K")
    assert status == 2 and "memory" in err and "1 KiB" in err


def test_memory_estimates_bound_the_measured_peak():
    """The estimates are upper bounds of what NumPy allocates (traced), for small real runs."""
    from theorylab.graded.envelope import stratified_model
    from theorylab.graded import risk_sim as graded_risk
    from theorylab.psa import induction
    from theorylab.psa import moments as psa_moments

    model = stratified_model(0.6, 0.3, 4, 32)
    cases = [(graded_risk.simulate_cost(model, [40, 300], 20), lambda: graded_risk.simulate(model, [40, 300], 20)),
             (induction.simulate_cost(8, 64, 100), lambda: induction.simulate(8, 64, 0.1, 100)),
             (psa_moments.moments_cost(64, 100), None)]
    for cost, fn in cases[:2]:
        tracemalloc.start()
        fn()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak <= cost.memory, (peak, cost)
    sample = induction.simulate(8, 64, 0.1, 100)
    tracemalloc.start()
    psa_moments.channel_moments(sample)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= cases[2][0].memory


# --------------------------------------------------------------------------- chunked graded risk
def test_graded_risk_draws_in_rows_without_changing_small_runs(monkeypatch):
    """Rows drawn in chunks (memory independent of m): the default grid is bitwise unchanged, and a
    run forced into 7-row draws still matches the exact risk (a different, equally valid stream)."""
    from theorylab.graded.envelope import stratified_model
    from theorylab.graded import risk_sim as gr

    model = stratified_model(0.6, 0.3, 4, 32)
    ms = [4, int(model.m_sat // 2), 3 * int(model.m_sat)]
    assert max(ms) <= gr.rows_per_draw(model.d)
    ref = gr.simulate(model, ms, reps=40, seed=5)
    monkeypatch.setattr(gr, "DRAW_ELEMENTS", 2**40)                   # one draw per block, as before
    assert [r["risk_mc"] for r in gr.simulate(model, ms, reps=40, seed=5).rows] == [r["risk_mc"] for r in ref.rows]
    monkeypatch.setattr(gr, "DRAW_ELEMENTS", gr.BLOCK * model.d * 7)  # 7 rows per draw
    assert gr.rows_per_draw(model.d) == 7
    res = gr.simulate(model, ms, reps=150, seed=11)
    z = [(r["risk_mc"] - r["risk_exact"]) / r["se"] for r in res.rows if r["S_levels"] != "-"]
    assert z and max(abs(x) for x in z) < 4.5
    assert [r["risk_mc"] for r in res.rows] != [r["risk_mc"] for r in ref.rows]


# --------------------------------------------------------------------------- files and options
def test_read_text_refuses_what_is_not_a_text_file(tmp_path):
    (tmp_path / "bin").write_bytes(b"\x00\x01")
    (tmp_path / "latin").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "bom").write_bytes("\ufeffdk,T".encode("utf-8"))
    assert read_text("--x", str(tmp_path / "bom")) == "dk,T"
    for name, needle in (("bin", "binary"), ("latin", "not UTF-8"), ("missing", "cannot read"), ("", "empty")):
        with pytest.raises(ParameterError, match=needle):
            read_text("--x", str(tmp_path / name) if name else "")
    with pytest.raises(ParameterError, match="directory"):
        read_text("--x", str(tmp_path))
    if hasattr(os, "mkfifo"):                        # a pipe is refused at once, never waited on
        os.mkfifo(tmp_path / "fifo")
        with pytest.raises(ParameterError, match="regular file"):
            read_text("--x", str(tmp_path / "fifo"))


def test_interrupted_write_leaves_neither_file_nor_temporary(tmp_path):
    from theorylab._io import atomic_path, write_text_atomic

    target = tmp_path / "out.json"
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(str(target)) as tmp:
            with open(tmp, "w") as fh:
                fh.write("half")
            raise KeyboardInterrupt
    assert os.listdir(tmp_path) == []
    write_text_atomic(str(target), "whole")
    assert os.listdir(tmp_path) == ["out.json"] and target.read_text() == "whole"


GRIDS = {"bin.csv": b"\x00\xff" * 50, "hdr.csv": b"a,b\n1,2\n", "short.csv": b"dk,T\n64\n", "obj.json": b'{"dk": 1}',
         "strs.json": b'[["64", "512"]]', "deep.json": b"[" * 50000 + b"]" * 50000, "empty.json": b"",
         "none.json": b"[]", "big.json": b"[[64, " + b"9" * 400 + b"]]"}


@pytest.mark.parametrize("name", sorted(GRIDS))
def test_malformed_grid_files(tmp_path, capsys, name):
    (tmp_path / name).write_bytes(GRIDS[name])
    status, out, err = run(capsys, "compare", "--grid", str(tmp_path / name))
    assert status == 2 and out == "" and "--grid" in err and len(err.strip().splitlines()) == 1


REPORTS = {"id.json": '{"certificates": [{"id": 5, "status": "PASS", "evidence": []}]}',
           "ev.json": '{"certificates": [{"id": "P11", "status": "PASS", "evidence": [3]}]}',
           "tol.json": '{"certificates": [{"id": "P11", "status": "PASS", "evidence": [{"name": "a", '
                       '"tolerance": "x"}]}]}',
           "env.json": '{"certificates": [], "environment": [1]}',
           "sha.json": '{"certificates": [{"id": "P11", "status": "PASS", "evidence": [], "array_sha256": 1}]}',
           "seed.json": '{"certificates": [], "seed": -1}', "list.json": "[]"}


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_malformed_reports(tmp_path, capsys, name):
    (tmp_path / name).write_text(REPORTS[name])
    status, out, err = run(capsys, "certify", "--verify", str(tmp_path / name))
    assert status == 2 and out == "" and "--verify" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, needle", [
    (["certify", "--out", ""], "--out"), (["certify", "--verify", ""], "--verify"),
    (["certify", "--docs", ""], "--docs"), (["compare", "--plot", ""], "--plot"),
    (["plot", "compare", "--store", "s.db", "--out", ""], "--out"),
    (["certify", "--list", "--out", "r.json"], "--out is not read with --list"),
    (["certify", "--verify", "r.json", "--only", "P11"], "--only is not read with --verify"),
    (["certify", "--only", "P11", "--max-time", "1h"], "--max-time is not read without --verify"),
    (["gamma-c", "--dk", "64", "--T", "512", "--samples", "10"], "--samples is not read with --method annealed"),
    (["gamma-c", "--dk", "64", "--T", "512", "--variant", "key-only", "--c", "1"], "--c"),
    (["gamma-c", "--dk", "64", "--T", "512", "--method", "exact", "--c", "1"], "--c"),
    (["compare", "--variant", "key-only", "--c", "1"], "--c"),
    (["envelope", "--g", "1", "1", "1", "1", "--clip", "3"], "--clip is not read with --g"),
    (["graded-sim", "--m", "20", "--points", "5"], "--points is not read with --m"),
    (["plot", "compare", "--store", "s.db", "--out", "f.png", "--title", "$x^$"], "--title"),
    (["plot", "compare", "--store", "s.db", "--out", "f.png", "--title", "a\tb"], "--title"),
])
def test_empty_paths_and_unread_options_refused(tmp_path, monkeypatch, capsys, argv, needle):
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and needle in err and len(err.strip().splitlines()) == 1
    assert os.listdir(tmp_path) == []

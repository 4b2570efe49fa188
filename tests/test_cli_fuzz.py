"""CLI fuzz: a few hundred generated hostile invocations of every command.

Each invocation must end with exit status 0 or 2 (130 for the interrupt), print no traceback,
print exactly one line on stderr when it fails, and leave nothing behind in the working
folder but the outputs a successful run was asked for (never a temporary). The generator is
seeded (same invocations every run). The run time is bounded by the commands' own resource
check, tightened here with THEORYLAB_MAX_TIME / THEORYLAB_MAX_MEMORY: a request estimated
over the limit must be refused up front, which is what this exercises for the expensive
commands (their validation still runs before the check); certify never reaches a full run
(its run mode is always given unknown ids).
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from theorylab.cli import main

N_IN_PROCESS = 320
SEED = 11
LIMITS = {"THEORYLAB_MAX_TIME": "1s", "THEORYLAB_MAX_MEMORY": "512M"}

INTS = ["0", "-1", "1", "2", "3", "1.5", "nan", "inf", "-inf", "", "abc", "1e12", str(10**12), str(2**31),
        str(2**63), str(2**64), str(2**64 - 1), "1e999999999", "9" * 60, "0x10", "1_000", " 7", "-0", "2e4",
        "1e9", "1e-3"]
FLOATS = ["nan", "inf", "-inf", "1e308", "1e-320", "-0", "0", "1e200", "-1e200", "", "abc", "1e400", "-1",
          "0.5", "3.2", "2", "1e100"]
CHOICES = ["", "x", "all", "t5", "\x00", "é", "--", "-1"]


def _files(folder) -> dict[str, str]:
    """Hostile input files (outside the working folder)."""
    os.makedirs(folder)
    out = {}

    def put(name, data):
        path = os.path.join(folder, name)
        with open(path, "wb") as fh:
            fh.write(data if isinstance(data, bytes) else data.encode())
        out[name] = path

    put("bin.json", bytes(range(256)) * 4)
    put("bin.csv", os.urandom(300))
    put("latin1.csv", "dk,T\n64,512\n\xe9,3\n".encode("latin-1"))
    put("utf16.json", "[[64, 512]]".encode("utf-16"))
    put("empty.json", b"")
    put("deep.json", "[" * 50000 + "]" * 50000)
    put("obj.json", '{"dk": 64, "T": 512}')
    put("strs.json", '[["a", "b"]]')
    put("nested.json", "[[[64, 512]]]")
    put("bigint.json", "[[64, " + "9" * 500 + "]]")
    put("huge.json", "[[1e308, 1e308]]")
    put("badhdr.csv", "a,b\n1,2\n")
    put("short.csv", "dk,T\n64\n")
    put("grid.csv", "dk,T\n64,16\n")
    put("prof.txt", "0.2 0.3 0.5")
    put("prof_bad.txt", "0.2 abc")
    put("prof_str.json", '["0.2", 0.8]')
    put("report_bad.json", '{"certificates": [{"id": 5, "status": "PASS", "evidence": []}]}')
    put("report_env.json", '{"certificates": [], "environment": [1]}')
    put("report_ev.json", '{"certificates": [{"id": "P11", "status": "PASS", "evidence": [{"name": "x", '
                          '"tolerance": "big"}]}]}')
    out["report_p11.json"] = os.path.join(folder, "report_p11.json")      # a complete report of one certificate
    assert main(["certify", "--only", "P11", "--out", out["report_p11.json"]]) == 0
    put("store.db", os.urandom(4096))
    os.mkdir(os.path.join(folder, "adir"))
    out["adir"] = os.path.join(folder, "adir")
    fifo = os.path.join(folder, "fifo.json")
    if hasattr(os, "mkfifo"):
        os.mkfifo(fifo)
        out["fifo.json"] = fifo
    out["missing.json"] = os.path.join(folder, "missing.json")
    return out


def _paths_in(files) -> list[str]:
    return sorted(files.values()) + ["", "/", "/dev/zero", "/dev/null", "nonexistent.csv"]


PATHS_OUT = ["", "out.png", "out.json", "out.md", "out.txt", "/proc/x.png", "/proc/x.json", "nofolder/out.png",
             "out.wrong", "."]


def _commands(files):
    """(base argv, {option: pool}) per command; the base is a cheap valid request."""
    ins = _paths_in(files)
    grid = [files["grid.csv"]] + ins + ["paper"]
    model = {"--nu": FLOATS + ["0.6"], "--mu": FLOATS + ["0.3"], "--levels": INTS, "--d": INTS,
             "--sigma-xi": FLOATS, "--clip": FLOATS, "--g": FLOATS, "--max-memory": ["", "0", "-1G", "1e400",
                                                                                    "16Q", "16G"],
             "--max-time": ["", "0", "-1s", "5x", "1s"]}
    return [
        (["gamma-c", "--dk", "64", "--T", "512"],
         {"--dk": FLOATS + INTS, "--T": FLOATS + INTS, "--variant": CHOICES, "--c": FLOATS,
          "--method": CHOICES + ["exact", "mc"], "--samples": INTS, "--seed": INTS, "--format": CHOICES,
          "--observable": CHOICES + ["entropy-peak"]}),
        (["simulate", "--dk", "64", "--T", "16", "--gamma", "1", "--samples", "50"],
         {"--dk": FLOATS, "--T": INTS, "--gamma": FLOATS, "--samples": INTS, "--seed": INTS, "--sigma0": FLOATS,
          "--dtype": CHOICES, "--variant": CHOICES, "--exact": None}),
        (["compare", "--grid", files["grid.csv"], "--samples", "20"],
         {"--grid": grid, "--samples": INTS, "--seed": INTS, "--c": FLOATS, "--plot": PATHS_OUT,
          "--variant": CHOICES, "--observable": CHOICES}),
        (["envelope"], {**model, "--m": INTS}),
        (["graded-sim", "--m", "20", "--reps", "2", "--no-progress"],
         {**model, "--m": INTS, "--points": INTS, "--reps": INTS, "--seed": INTS, "--plot": PATHS_OUT}),
        (["grades", "--nu", "0.6", "--mu", "0.3"],
         {"--nu": FLOATS, "--mu": FLOATS, "--levels": INTS, "--clip": FLOATS, "--table3": None,
          "--alpha": ins + ["0.2,0.8", "", "1,1"], "--tau": ins + ["0.5,0.5"], "--q": ins + ["0,1"],
          "--dims": INTS, "--lam": FLOATS}),
        (["induction", "--dk", "4", "--T", "8", "--samples", "4"],
         {"--dk": INTS, "--T": INTS, "--theta": FLOATS, "--rope-base": FLOATS, "--gamma": FLOATS,
          "--samples": INTS, "--seed": INTS, "--placement": CHOICES, "--variant": CHOICES, "--plot": PATHS_OUT}),
        (["plot", "compare", "--store", files["store.db"], "--out", "fig.png"],
         {"--store": ins, "--out": PATHS_OUT, "--title": ["$x^$", "$$", "$\\foo$", "a\tb", "", "ok"],
          "--variant": CHOICES, "--axis": CHOICES}),
        (["certify", "--only", "NOSUCH"],
         {"--only": ["", "P999", "x", "--list"], "--out": PATHS_OUT, "--docs": PATHS_OUT, "--verbose": None,
          "--fail-fast": None, "--max-time": ["1h", "", "x"]}),
        (["certify", "--verify", files["report_p11.json"]],
         {"--verify": ins, "--only": ["P11"], "--out": PATHS_OUT, "--max-time": ["1h", "", "x", "0"],
          "--max-memory": ["1G", "", "x"], "--list": None}),
        (["certify", "--list"], {"--only": ["P11"], "--verify": ins, "--max-time": ["1h"]}),
        (["bench", "gamma-c", "--points", "10", "--repeat", "1"],
         {"--points": INTS, "--repeat": INTS, "--max-time": ["", "1e9s"], "--format": CHOICES}),
        (["bench", "mc", "--samples", "10", "--repeat", "1", "--no-cold"],
         {"--samples": INTS, "--baseline-samples": INTS, "--repeat": INTS}),
        (["bench", "certify", "--only", "P11"], {"--warm-repeat": INTS, "--only": ["", "P999"]}),
        (["bench", "row-stats", "--samples", "10", "--repeat", "1"], {"--samples": INTS, "--repeat": INTS}),
        (["sweep", "status", "--store", files["missing.json"]], {"--store": [files["missing.json"], files["adir"],
                                                                            ""], "--format": CHOICES}),
    ]


def _invocations(files, n, rng):
    commands = _commands(files)
    for _ in range(n):
        base, pool = rng.choice(commands)
        argv = list(base)
        for option in rng.sample(sorted(pool), k=min(len(pool), rng.randint(1, 3))):
            values = pool[option]
            if values is None:
                argv.append(option)
            else:
                argv += [option, rng.choice(values)]
        roll = rng.random()
        if roll < 0.05:
            argv.append("--bogus-option")
        elif roll < 0.08:
            argv.append(rng.choice(sorted(pool)))           # an option without its value
        elif roll < 0.10:
            argv.insert(1, "junk-positional")
        yield argv


def _visible_lines(text: str) -> list[str]:
    """Lines as a terminal shows them (a progress bar redrawn with \\r counts as its last state)."""
    return [line.split("\r")[-1] for line in text.split("\n") if line.split("\r")[-1].strip()]


def _outputs(argv) -> set[str]:
    return {argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("--plot", "--out", "-o", "--docs", "--prereg")}


def _check(argv, status, out, err, before, cwd):
    shown = " ".join(repr(a) if not a or " " in a else a for a in argv)
    assert status in (0, 2), f"exit {status}: {shown}\n{err[-2000:]}"
    assert "Traceback" not in out + err, f"traceback: {shown}\n{err[-2000:]}"
    if status == 2:
        lines = _visible_lines(err)
        assert len(lines) == 1, f"not one line: {shown}\n{err[-2000:]}"
    new = set(os.listdir(cwd)) - before
    assert not [f for f in new if f.startswith(".theorylab")], f"temporary left: {shown}: {new}"
    left = new - (_outputs(argv) if status == 0 else set())
    assert not left, f"files left behind: {shown}: {left}"
    for f in new:
        os.remove(os.path.join(cwd, f))


@pytest.fixture
def arena(tmp_path, monkeypatch):
    files = _files(str(tmp_path / "inputs"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for k, v in LIMITS.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("COLUMNS", "100")
    return files, str(work)


def test_fuzz_in_process(arena):
    files, cwd = arena
    rng = random.Random(SEED)
    start = time.perf_counter()
    statuses = []
    for argv in _invocations(files, N_IN_PROCESS, rng):
        before = set(os.listdir(cwd))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as exc:        # --help / --version
                status = exc.code
        _check(argv, status, out.getvalue(), err.getvalue(), before, cwd)
        statuses.append(status)
    seconds = time.perf_counter() - start
    print(f"\n{len(statuses)} in-process invocations in {seconds:.1f} s: "
          f"{statuses.count(0)} exit 0, {statuses.count(2)} exit 2")
    assert statuses.count(2) > len(statuses) // 2 and statuses.count(0) > 10   # both paths exercised


def test_fuzz_subprocess_sample(arena):
    """A sample through the real console entry (`python -m theorylab`): exit status, stderr, files."""
    files, cwd = arena
    rng = random.Random(SEED + 1)
    sample = list(_invocations(files, 6, rng)) + [
        ["simulate", "--dk", "64", "--T", "512", "--gamma", "1", "--samples", str(10**12)],
        ["graded-sim", "--d", "4096", "--no-progress"],
        ["certify", "--verify", files["bin.json"]],
        ["compare", "--grid", files["deep.json"], "--plot", ""],
    ]
    env = {**os.environ, **LIMITS}
    for argv in sample:
        before = set(os.listdir(cwd))
        proc = subprocess.run([sys.executable, "-m", "theorylab", *argv], capture_output=True, text=True,
                              cwd=cwd, env=env, timeout=60)
        _check(argv, proc.returncode, proc.stdout, proc.stderr, before, cwd)

def _terminal_sigint() -> None:
    """Give the child SIGINT's default disposition, as a terminal's foreground job has: a test run started in the
    background of a script (``pytest &``) inherits SIGINT *ignored*, which a child Python keeps, so Ctrl-C would
    never reach the command under test."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_interrupt_mid_run_exits_130_without_partial_file(tmp_path):
    """SIGINT during a Monte Carlo run that would write a figure: one line, 130, no figure, no temporary."""
    if not hasattr(signal, "SIGINT") or sys.platform == "win32":
        pytest.skip("POSIX signals")
    proc = subprocess.Popen([sys.executable, "-m", "theorylab", "compare", "--samples", "2000000", "--plot",
                             "fig.png", "--max-time", "2h"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_terminal_sigint)
    time.sleep(4.0)                  # imports done, the Monte Carlo running
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert _visible_lines(err) == ["theorylab compare: interrupted"] and "Traceback" not in err
    assert os.listdir(tmp_path) == []


def test_fuzz_generator_is_deterministic(tmp_path):
    files = _files(str(tmp_path / "in"))
    a = list(_invocations(files, 50, random.Random(SEED)))
    b = list(_invocations(files, 50, random.Random(SEED)))
    assert a == b and json.dumps(a)


def test_an_interrupt_before_parsing_still_names_the_command(monkeypatch, capsys):
    """Ctrl-C while the subcommands are imported (a busy machine) names the command argv asks for."""
    import theorylab.cli as cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["compare", "--samples", "5"]) == 130
    assert cli.main(["--max-time", "2h"]) == 130                   # no command word: the bare name
    assert cli.main(["no-such-command"]) == 130
    assert capsys.readouterr().err.splitlines() == ["theorylab compare: interrupted", "theorylab: interrupted",
                                                    "theorylab: interrupted"]

"""Hostile conditions around processes, signals, read-only places and unencodable text.

The contract (docs/cli.md, "Errors and exit status"): exit 0, 2 or 130, exactly one line on
stderr for a refusal or an interrupt, no traceback from any process, nothing half-written.

* Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while every command that
  starts worker processes is starting or running them: 130, one line, no output from the
  workers, none of them left running.
* A ``TMPDIR`` of 100 characters for those commands (a ``multiprocessing.Manager`` binds an
  AF_UNIX socket there, whose path is limited to 108 bytes).
* A worker that fails -- its run raises, or its process is killed -- is one line naming the run.
* A store in a read-only folder can be read (status, export, plot), and reading writes nothing.
* An argument holding bytes that are not UTF-8, in every free-text or name option: refused in
  one line; in a path it stays usable, and is echoed escaped.

The commands run in fresh interpreters whose ``theorylab`` is this checkout (PYTHONPATH).
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from theorylab.cli import build_parser, main
from theorylab.cli._args import path as path_type
from theorylab.cli._args import text

REPO = Path(__file__).resolve().parents[1]
POSIX = pytest.mark.skipif(sys.platform == "win32" or not os.path.isdir("/proc"),
                           reason="POSIX signals and /proc to follow worker processes")
SPEC = """
[sweep]
name = "hostile"
seed = 5
samples = 2000
compute = ["annealed", "mc"]
chunk_size = 2
[grid]
variant = ["t4-only", "key-only"]
dk = [32, 64, 128]
T = [16, 64]
"""
TINY_SPEC = SPEC.replace('dk = [32, 64, 128]\nT = [16, 64]', 'dk = [32]\nT = [16, 64]')
LONG_SPEC = SPEC.replace("samples = 2000", "samples = 200000")
"""About 8 s of work on 2 cores (SPEC is done in 2 s once compiled): an interrupt 2 s in lands while it runs."""


def _env(tmpdir: str | None = None, pythonpath: tuple = (), **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("THEORYLAB_")}
    env["PYTHONPATH"] = os.pathsep.join([*map(str, pythonpath), str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    if tmpdir is not None:
        env["TMPDIR"] = tmpdir
    env.update(extra)
    return env


def _cli(argv, *, env=None, cwd=None, timeout=300, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "theorylab", *argv], capture_output=True, text=True,
                          env=env or _env(), cwd=cwd, timeout=timeout, **kw)


def _one_line(err: str) -> str:
    assert err.count("\n") == 1 and err.endswith("\n"), f"not one line on stderr: {err[-2000:]!r}"
    assert "Traceback" not in err
    return err.strip()


# ------------------------------------------------------------------ commands that start workers
def _train(tmp: Path, seeds=4, steps=3000) -> list:
    return ["train", "induction", "--init", "gamma-aware", "--steps", str(steps), "--seeds", str(seeds), "--eval-size", "64", "--batch", "16",
            "--no-progress", "--max-time", "2h"]


def _sweep(tmp: Path, spec=SPEC) -> list:
    (tmp / "spec.toml").write_text(spec)
    return ["sweep", "run", str(tmp / "spec.toml"), "--store", str(tmp / "s.db"), "--workers", "2", "--no-progress"]


def _cluster(tmp: Path, spec=SPEC) -> list:
    (tmp / "spec.toml").write_text(spec)
    return ["sweep", "run", str(tmp / "spec.toml"), "--store", str(tmp / "s.db"), "--local-cluster", "2",
            "--no-progress"]


def _mutate(tmp: Path, isolation="fork") -> list:
    return ["mutate", "--file", "theorylab/psa/scoremodel.py", "--max-mutants", "2", "--certificates", "P14",
            "--workers", "1", "--isolation", isolation, "--no-progress", "--out", str(tmp / "m.json")]


def _bench(tmp: Path) -> list:
    return ["bench", "certify", "--only", "P14", "--format", "json"]


def _has_dask() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


WORKER_COMMANDS = {
    "train induction": (_train, "theorylab train: interrupted"),
    "sweep run --workers 2": (lambda tmp: _sweep(tmp, LONG_SPEC), "theorylab sweep: interrupted"),
    "sweep run --local-cluster 2": (lambda tmp: _cluster(tmp, LONG_SPEC), "theorylab sweep: interrupted"),
    "mutate (fork)": (_mutate, "theorylab mutate: interrupted"),
    "mutate (exec)": (lambda tmp: _mutate(tmp, "exec"), "theorylab mutate: interrupted"),
    "bench certify": (_bench, "theorylab bench: interrupted"),
}
"""Every command that starts processes (ProcessPoolExecutor, multiprocessing, subprocess, Dask):
its arguments, and the start of the one line it prints when interrupted."""


def _terminal_sigint() -> None:
    """Give the child SIGINT's default disposition, as a terminal's foreground job has: a test run started in the
    background of a script (``pytest &``) inherits SIGINT *ignored*, which a child Python keeps, so Ctrl-C would
    never reach the command under test."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _descendants(pid: int) -> set[int]:
    """Every living descendant of ``pid`` (from /proc; zombies excluded)."""
    parent = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != "Z":
                parent[int(entry)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@POSIX
@pytest.mark.parametrize("moment", ["starting", "running"])
@pytest.mark.parametrize("name", list(WORKER_COMMANDS))
def test_ctrl_c_with_workers_is_one_line_130_and_no_worker_output(name, moment, tmp_path):
    """SIGINT to the process group once the first worker exists (its interpreter still starting) or 2 s later
    (working): exit 130, the command's one line, no traceback from any process, no worker left, no output file."""
    if "cluster" in name and not _has_dask():
        pytest.skip("Dask is not installed")
    argv, first_line = WORKER_COMMANDS[name]
    child = subprocess.Popen([sys.executable, "-m", "theorylab", *argv(tmp_path)], cwd=tmp_path, env=_env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                             preexec_fn=_terminal_sigint)
    try:
        deadline = time.monotonic() + 120
        while not _descendants(child.pid) and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert child.poll() is None, f"{name} ended before it started a worker: {child.communicate()[1][-2000:]}"
        time.sleep(0.3 if moment == "starting" else 2.0)
        workers = _descendants(child.pid)
        assert child.poll() is None, f"{name} ended before the interrupt: {child.communicate()[1][-2000:]}"
        os.killpg(child.pid, signal.SIGINT)          # what Ctrl-C in a terminal sends
        _, err = child.communicate(timeout=90)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    assert child.returncode == 130, err[-2000:]
    assert _one_line(err).startswith(first_line)
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in workers if _alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    assert not left, f"worker processes left running: {left}"
    assert not (tmp_path / "m.json").exists()


# ------------------------------------------------------------------ a TMPDIR of 100 characters
def _long_tmpdir(tmp_path: Path, length: int = 100) -> str:
    base = str(tmp_path)
    assert len(base) < length - 1, base
    folder = Path(base) / ("t" * (length - len(base) - 1))
    folder.mkdir()
    assert len(str(folder)) == length
    return str(folder)


SHUTDOWN_INTERRUPTED = """
import os, signal, threading, time
from multiprocessing.util import Finalize


def slow_exit(seconds):
    Finalize(None, time.sleep, (seconds,), exitpriority=1)     # this worker takes that long to exit


if __name__ == "__main__":
    from theorylab._workers import WorkerPool
    from theorylab.cli import exit_interrupted

    pool = WorkerPool(2)
    futures = [pool.submit(f"slow exit {i}", slow_exit, 2.0) for i in range(2)]
    pool.wait(futures)
    while not all(f.done() for f in futures):
        time.sleep(0.01)
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
    try:
        pool.shutdown()             # every task done: waits for the workers to exit, and is interrupted
    except KeyboardInterrupt:
        exit_interrupted()
    raise SystemExit("the interrupt did not land in the shutdown")
"""


@POSIX
def test_an_interrupt_while_a_pool_shuts_down_leaks_nothing(tmp_path):
    """Ctrl-C while the command waits for its workers to exit (its work done, the pool shutting down): exit 130
    and nothing on stderr -- the multiprocessing resource tracker reports no leaked semaphore."""
    script = tmp_path / "shutdown_interrupted.py"
    script.write_text(SHUTDOWN_INTERRUPTED)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=_env(), timeout=120,
                          preexec_fn=_terminal_sigint)
    assert proc.returncode == 130, proc.stderr[-2000:]
    assert proc.stderr == ""


@POSIX
def test_train_with_a_100_character_tmpdir(tmp_path):
    proc = _cli([*_train(tmp_path, seeds=2, steps=20), "--format", "json"], env=_env(_long_tmpdir(tmp_path)))
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert [len(out["runs"]), out["rows"][0]["seeds"]] == [2, 2] and 0.0 <= out["rows"][0]["mean"] <= 1.0


@POSIX
def test_sweep_workers_with_a_100_character_tmpdir(tmp_path):
    proc = _cli([*_sweep(tmp_path, TINY_SPEC), "--format", "json"], env=_env(_long_tmpdir(tmp_path)))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)[0]["computed"] == 4


@POSIX
@pytest.mark.slow
def test_mutate_with_a_100_character_tmpdir(tmp_path):
    proc = _cli(_mutate(tmp_path), env=_env(_long_tmpdir(tmp_path)), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads((tmp_path / "m.json").read_text())
    assert len(result["mutants"]) == 2 and all(m["status"] in ("killed", "survived", "not-covered", "equivalent")
                                               for m in result["mutants"])


# ------------------------------------------------------------------ a worker that fails
PLANT = '''
import os, sys
if "--multiprocessing-fork" in sys.argv:            # in spawned workers only, never in the command itself
    how = os.environ["THEORYLAB_TEST_PLANT"]
    if how.startswith("train"):
        import theorylab.nn.train as module
        real = module.train
        def train(config, seed, **kw):
            if seed == 1:
                if how.endswith("kill"):
                    os.kill(os.getpid(), 9)
                raise FloatingPointError("planted failure")
            return real(config, seed, **kw)
        module.train = train
    else:
        import theorylab.sweep.tasks as module
        real = module.compute_chunk
        def compute_chunk(spec, chunk):
            if any(p.index == 5 for p in chunk):
                if how.endswith("kill"):
                    os.kill(os.getpid(), 9)
                raise ZeroDivisionError("planted failure")
            return real(spec, chunk)
        compute_chunk.describe_task = real.describe_task
        module.compute_chunk = compute_chunk
'''


@POSIX
@pytest.mark.parametrize("how, expected", [
    ("train-raise", r"training run 2 of 3 \(variant key-only, gamma 2, task recall, seed 1\) failed in its worker "
                    r"process: FloatingPointError: planted failure$"),
    ("train-kill", r"training run 2 of 3 \(variant key-only, gamma 2, task recall, seed 1\) failed: its worker "
                   r"process was killed by SIGKILL \(out of memory, or killed\)$"),
    ("sweep-raise", r"sweep 'hostile' task of points 4, 5 \(t4-only\|dk=128\.0\|T=16\.0\|gamma=None, \.\.\.\) "
                    r"failed in its worker process: ZeroDivisionError: planted failure$"),
    ("sweep-kill", r"sweep 'hostile' task of points 4, 5 \(t4-only\|dk=128\.0\|T=16\.0\|gamma=None, \.\.\.\) "
                   r"failed: its worker process was killed by SIGKILL \(out of memory, or killed\)$"),
    ("cluster-raise", r"sweep 'hostile' task of points 4, 5 \(t4-only\|dk=128\.0\|T=16\.0\|gamma=None, \.\.\.\) "
                      r"failed on a Dask worker: ZeroDivisionError: planted failure$"),
])
def test_a_failing_worker_is_one_line_naming_its_run(how, expected, tmp_path):
    """A run that raises in its worker, or whose worker is killed (SIGKILL, as the OOM killer does): exit 2 and
    one line naming that run -- variant, gamma and seed, or the sweep's points -- and nothing else."""
    import re

    if how.startswith("cluster") and not _has_dask():
        pytest.skip("Dask is not installed")
    plant = tmp_path / "plant"
    plant.mkdir()
    (plant / "sitecustomize.py").write_text(PLANT)
    argv = (_train(tmp_path, seeds=3, steps=40) if how.startswith("train") else
            _cluster(tmp_path) if how.startswith("cluster") else _sweep(tmp_path))
    proc = _cli(argv, env=_env(pythonpath=(plant,), THEORYLAB_TEST_PLANT=how), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr[-2000:]
    line = _one_line(proc.stderr)
    assert re.search(expected, line.removeprefix(f"theorylab {argv[0]}: error: ")), line
    assert proc.stdout == ""


# ------------------------------------------------------------------ read-only places
@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("store")
    (folder / "spec.toml").write_text(TINY_SPEC)
    assert main(["sweep", "run", str(folder / "spec.toml"), "--store", str(folder / "s.db"), "--workers", "0",
                 "--no-progress"]) == 0
    return folder / "s.db"


@contextmanager
def _read_only(folder: Path):
    """``folder`` read-only even for root (who ignores permission bits): the immutable attribute, else
    (not root) the permission bits."""
    if os.geteuid() != 0:
        os.chmod(folder, 0o555)
        try:
            yield
        finally:
            os.chmod(folder, 0o755)
        return
    if subprocess.run(["chattr", "+i", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("cannot make a folder read-only for root here (chattr +i failed)")
    try:
        assert not os.access(folder, os.W_OK) or _cannot_create(folder)
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def _cannot_create(folder: Path) -> bool:
    try:
        (folder / "probe").touch()
    except OSError:
        return True
    (folder / "probe").unlink()
    return False


def _snapshot(folder: Path) -> dict:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}


@POSIX
@pytest.mark.parametrize("argv", [["sweep", "status", "--format", "json"], ["sweep", "export", "--format", "csv"],
                                  ["plot", "compare"]])
def test_a_store_in_a_read_only_folder_can_be_read(argv, store, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "s.db").write_bytes(store.read_bytes())
    before = _snapshot(folder)
    extra = ["--out", str(tmp_path / "f.png")] if argv[0] == "plot" else []
    with _read_only(folder):
        proc = _cli([*argv, "--store", str(folder / "s.db"), *extra])
        assert _snapshot(folder) == before                  # nothing written, nothing created beside the store
    assert proc.returncode == 0, proc.stderr[-2000:]
    if argv[1:2] == ["status"]:
        assert json.loads(proc.stdout)[0]["points_done"] == 4
    elif argv[1:2] == ["export"]:
        assert len(proc.stdout.strip().splitlines()) == 1 + 4
    else:
        assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@POSIX
def test_a_store_with_an_unmerged_log_in_a_read_only_folder_is_one_line(store, tmp_path):
    """A store copied with its write-ahead log (changes not yet in the file) but not the log's index, into a
    read-only folder: it cannot be read without creating the index, and says so in one line (exit 2)."""
    import sqlite3

    live = tmp_path / "live"
    live.mkdir()
    (live / "s.db").write_bytes(store.read_bytes())
    conn = sqlite3.connect(live / "s.db", isolation_level=None)
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE extra (x)")                      # a change, in the log only
    folder = tmp_path / "ro"
    folder.mkdir()
    for name in ("s.db", "s.db-wal"):
        (folder / name).write_bytes((live / name).read_bytes())
    conn.close()
    assert (folder / "s.db-wal").stat().st_size > 0
    with _read_only(folder):
        proc = _cli(["sweep", "status", "--store", str(folder / "s.db")])
    assert proc.returncode == 2
    assert "holds changes not yet in the file" in _one_line(proc.stderr)


def test_reading_a_store_writes_nothing_beside_it(store, tmp_path):
    """In a writable folder too: a reader opens the store read-only (immutable, no log left behind)."""
    from theorylab import sweep

    folder = tmp_path / "rw"
    folder.mkdir()
    (folder / "s.db").write_bytes(store.read_bytes())
    before = _snapshot(folder)
    assert sweep.store_status(str(folder / "s.db"))["points_done"] == 4
    assert len(sweep.export_rows(str(folder / "s.db"))) == 4
    assert _snapshot(folder) == before


# ------------------------------------------------------------------ unencodable text
def _options(parser: argparse.ArgumentParser, prefix=()):
    """(command words, option) for every option of every subcommand that takes a value."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for word, sub in action.choices.items():
                yield from _options(sub, (*prefix, word))
        elif action.nargs != 0 and not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            yield prefix, action


PATHS = {"--store", "--out", "--prereg", "--from-prereg", "--plot", "--equivalent", "--a", "--s", "spec"}
"""Options without a type whose value is a file name (--a/--s: a file or inline numbers): any name the system
allows (the options of type ``path`` are file names too)."""


def _free_text():
    return [(words, action) for words, action in _options(build_parser()) if action.type is text]


def test_every_text_option_is_free_text_or_a_path():
    """A free-text or name option must take the ``text`` type; the options left without a type (plain str) are
    file names. A new option of either kind that forgets it fails here."""
    untyped = sorted({(" ".join(w), a.option_strings[0] if a.option_strings else a.dest)
                      for w, a in _options(build_parser())
                      if a.type in (None, str) and a.choices is None})
    assert [u for u in untyped if u[1] not in PATHS] == []
    names = {(" ".join(w), a.option_strings[0]) for w, a in _free_text()}
    assert {("plot", "--title"), ("plot", "--variant"), ("certify", "--only"), ("bench certify", "--only"),
            ("mutate", "--package"), ("mutate", "--mutant"), ("mutate", "--certificates"), ("mutate", "--file"),
            ("sweep run", "--scheduler")} <= names


REQUIRED = {("plot",): ["compare", "--store", "x.db", "--out", "x.png"], ("sweep", "run"): ["spec.toml", "--store", "x.db"]}


@pytest.mark.parametrize("words, option", [(w, a.option_strings[0]) for w, a in _free_text()],
                         ids=lambda x: " ".join(x) if isinstance(x, tuple) else x)
def test_unencodable_text_is_refused_in_one_line(words, option, capsys, tmp_path, monkeypatch):
    """'\\udcff' is what ``$'\\xff'`` on the command line becomes (surrogateescape): exit 2, one line naming the
    option, nothing written."""
    monkeypatch.chdir(tmp_path)
    argv = [*words, *REQUIRED.get(tuple(words), []), option, "A\udcffB"]
    assert main(argv) == 2
    captured = capsys.readouterr()
    line = _one_line(captured.err)
    assert f"argument {option}" in line and "must be text that can be encoded as UTF-8" in line and "\\udcff" in line
    assert captured.out == "" and os.listdir(tmp_path) == []


@POSIX
def test_an_undecodable_title_byte_on_the_real_command_line(tmp_path):
    """The bytes themselves in argv (as a shell passes ``--title $'\\xff'``): refused before any work."""
    proc = subprocess.run([sys.executable, "-m", "theorylab", "plot", "compare", "--store", "x.db", "--out",
                           "f.png", "--title", b"\xff"], capture_output=True, env=_env(), cwd=tmp_path)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert _one_line(err) == ("theorylab plot: error: argument --title: must be text that can be encoded as UTF-8 "
                              "(got '\\udcff', which holds bytes that are not UTF-8)")
    assert os.listdir(tmp_path) == []


def test_the_figure_text_check_refuses_unencodable_text():
    from theorylab import ParameterError
    from theorylab.plots import check_text

    with pytest.raises(ParameterError, match=r"^--title must be text that can be encoded as UTF-8 \(got '\\udcff'\)$"):
        check_text("--title", "\udcff")


@POSIX
def test_an_undecodable_file_name_is_usable_and_echoed_escaped(store, tmp_path):
    """A path may hold any bytes the system allows: the figure is written there, and the report naming it is
    printed with the byte escaped, also where standard output is strict UTF-8 (PYTHONIOENCODING=utf-8)."""
    out = os.fsencode(str(tmp_path)) + b"/\xfd.png"
    for fmt in ("table", "json"):
        proc = subprocess.run([sys.executable, "-m", "theorylab", "plot", "compare", "--store", str(store), "--out",
                               out, "--format", fmt], capture_output=True, env=_env(PYTHONIOENCODING="utf-8"))
        assert proc.returncode == 0 and proc.stderr == b"", proc.stderr.decode()[-2000:]
        if fmt == "table":
            assert os.fsencode(str(tmp_path)) + b"/\\udcfd.png" in proc.stdout
        else:
            assert json.loads(proc.stdout)[0]["figure"] == os.fsdecode(out)
    assert os.path.exists(out) and os.listdir(tmp_path) == ["\udcfd.png"]
    assert path_type("\udcfd.png") == "\udcfd.png"


def test_text_type_keeps_encodable_text():
    assert text("γ_c — 1/(T−2) $\\alpha$") == "γ_c — 1/(T−2) $\\alpha$"
    with pytest.raises(argparse.ArgumentTypeError, match="must be text that can be encoded as UTF-8"):
        text("\ud800")

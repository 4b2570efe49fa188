"""Crash and resume: a sweep killed mid-run (SIGKILL) and restarted loses and repeats nothing."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing

import pytest

from theorylab.cli import main
from theorylab import sweep
from test_sweep_specs import RESULT_FIELDS, small_spec_text

# The child runs the real CLI with the serial executor; each task is slowed down by a
# sleep so that the parent can kill it between (or during) chunk writes.
CHILD = """
import sys, time
import theorylab.sweep.run as sw  # run_sweep looks compute_chunk up here
real = sw.compute_chunk
def slow(spec, chunk):
    time.sleep(0.12)
    return real(spec, chunk)
sw.compute_chunk = slow
from theorylab.cli import main
sys.exit(main(["sweep", "run", sys.argv[1], "--store", sys.argv[2], "--workers", "0", "--no-progress"]))
"""


def _count(store: str) -> int:
    """Points stored so far (0 before the store exists; never creates the file: a store is
    only created at a path that does not exist)."""
    if not os.path.exists(store):
        return 0
    with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)) as conn, conn:
        return conn.execute("SELECT COUNT(*) FROM points").fetchone()[0]


def test_killed_sweep_resumes_without_loss_or_repeat(tmp_path, capsys):
    spec_path = tmp_path / "spec.toml"
    spec_path.write_text(small_spec_text())
    spec = sweep.load_spec(str(spec_path))
    total = spec.n_points()
    store = str(tmp_path / "killed.db")

    child = subprocess.Popen([sys.executable, "-c", CHILD, str(spec_path), store], start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while _count(store) < 4 and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    before = _count(store)
    assert child.returncode == -signal.SIGKILL, child.stderr.read().decode()[-500:]
    assert 0 < before < total, f"kill landed outside the run ({before}/{total} points stored)"
    assert before % 2 == 0, "a chunk (two points, one transaction) was stored in part"

    assert main(["sweep", "run", str(spec_path), "--store", store, "--workers", "0", "--no-progress",
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)[0]
    assert report["already_done"] == before and report["computed"] == total - before

    reference = str(tmp_path / "reference.db")
    sweep.run_sweep(spec, reference, executor=sweep.SerialExecutor(), progress=False)
    with closing(sqlite3.connect(store)) as conn, conn:
        assert conn.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM points").fetchone() == (total, total)
    resumed = {r["key"]: [r[c] for c in RESULT_FIELDS] for r in sweep.export_rows(store)}
    uninterrupted = {r["key"]: [r[c] for c in RESULT_FIELDS] for r in sweep.export_rows(reference)}
    assert resumed.keys() == {p.key for p in sweep.points(spec)}
    # same code run twice: bitwise: the same chunks computed by the same code
    assert resumed == uninterrupted


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:  # a zombie is dead
        return fh.read().split(")")[-1].split()[0] != "Z"


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc and pgrep to follow worker processes")
def test_killed_process_pool_leaves_no_workers_and_resumes(tmp_path):
    spec_path = tmp_path / "spec.toml"
    spec_path.write_text(small_spec_text(samples=20000))
    spec = sweep.load_spec(str(spec_path))
    store = str(tmp_path / "pool.db")
    child = subprocess.Popen([sys.executable, "-m", "theorylab", "sweep", "run", str(spec_path), "--store", store,
                              "--workers", "2", "--no-progress"], start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _count(store) < 2 and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    workers = [p for p in _children(child.pid)]
    os.kill(child.pid, signal.SIGKILL)  # the coordinator only: its workers must notice and exit
    child.wait()
    before = _count(store)
    assert 0 < before < spec.n_points(), f"kill landed outside the run ({before} points stored)"
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    leftover = [p for p in workers if _alive(p)]
    for p in leftover:
        os.kill(p, signal.SIGKILL)
    assert not leftover, f"orphaned worker processes {leftover}"
    # whole chunks only (two points per transaction), each row complete
    rows = sweep.export_rows(store)
    assert len(rows) % 2 == 0 and all(r["finished_at"] and r["law_gamma_c"] is not None for r in rows)

def _terminal_sigint() -> None:
    """Give the child SIGINT's default disposition, as a terminal's foreground job has: a test run started in the
    background of a script (``pytest &``) inherits SIGINT *ignored*, which a child Python keeps, so Ctrl-C would
    never reach the command under test."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_with_one_line_and_exit_130(tmp_path):
    spec_path = tmp_path / "spec.toml"
    spec_path.write_text(small_spec_text())
    store = str(tmp_path / "interrupted.db")
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(spec_path), store], start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             preexec_fn=_terminal_sigint)
    deadline = time.monotonic() + 120
    while _count(store) < 2 and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(child.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends
    err = child.communicate(timeout=60)[1]
    assert child.returncode == 130, err[-500:]
    assert err.count("\n") == 1 and "interrupted with" in err and "resume" in err
    assert _count(store) % 2 == 0

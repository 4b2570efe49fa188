"""The sweep store's concurrency contract (docs/sweeps.md, "The store"): atomic binding, damaged
files refused and left untouched, chunk claims that divide the work between processes."""
from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing

import numpy as np
import pytest

from theorylab.cli import main
from theorylab import sweep
from test_sweep_specs import RESULT_FIELDS, small_spec_text, spec_of

# -- 1. atomic binding: two processes racing to bind different specs on a new store -------------

# One driver process forks the pairs (imports paid once). Both children of a round wait at a
# start gate (a pipe the driver writes to once both exist), then run the real CLI on the same
# new store with different specs; each reports on a pipe when it builds a store (so the test
# knows both really raced to create it).
RACE_DRIVER = r"""
import json, os, sys
import theorylab.sweep.store as st
from theorylab.cli import main

rounds, folder, specs = int(sys.argv[1]), sys.argv[2], sys.argv[3:5]
argv = lambda spec, store: ["sweep", "run", spec, "--store", store, "--workers", "0", "--no-progress"]
main(argv(specs[0], os.path.join(folder, "warm-up.db")))  # pay imports and first calls before racing
real_create, out = st._create, []
for i in range(rounds):
    store = os.path.join(folder, f"race{i}.db")
    gate_r, gate_w = os.pipe()
    note_r, note_w = os.pipe()
    sys.stdout.flush(); sys.stderr.flush()
    pids = []
    for k, spec in enumerate(specs):
        pid = os.fork()
        if pid == 0:
            os.close(gate_w); os.close(note_r)
            err = os.open(os.path.join(folder, f"err{i}-{k}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(err, 2); os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            def create(*a):
                os.write(note_w, b"c")
                return real_create(*a)
            st._create = create
            os.read(gate_r, 1)  # the start gate
            code = main(argv(spec, store))
            sys.stderr.flush()
            os._exit(code)
        pids.append(pid)
    os.close(gate_r); os.close(note_w)
    os.write(gate_w, b"gg")  # release both children at once
    codes = [os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in pids]
    creators = len(os.read(note_r, 16))
    os.close(gate_w); os.close(note_r)
    errs = []
    for k in range(2):
        with open(os.path.join(folder, f"err{i}-{k}")) as fh:
            errs.append(fh.read())
    out.append({"codes": codes, "errs": errs, "creators": creators})
print(json.dumps(out))
"""


def _race(tmp_path, rounds: int) -> None:
    specs = []
    for seed in (1, 2):
        path = tmp_path / f"spec{seed}.toml"
        path.write_text(f'[sweep]\nname = "race{seed}"\nseed = {seed}\n[grid]\ndk = [64]\nT = [15]\n')
        specs.append(str(path))
    hashes = [sweep.load_spec(s).hash for s in specs]
    done = subprocess.run([sys.executable, "-c", RACE_DRIVER, str(rounds), str(tmp_path), *specs],
                          capture_output=True, text=True, timeout=60 + rounds)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    one_won, both_created = 0, 0
    for i, r in enumerate(results):
        winner = r["codes"].index(0) if r["codes"].count(0) == 1 else None
        assert winner is not None and sorted(r["codes"]) == [0, 2], r
        loser = r["errs"][1 - winner]
        assert loser.count("\n") == 1 and "belongs to a different sweep" in loser and "Traceback" not in loser
        status = sweep.store_status(str(tmp_path / f"race{i}.db"))
        assert status["spec_sha256"] == hashes[winner] and status["points_done"] == status["points_total"] == 1
        one_won += 1
        both_created += r["creators"] == 2
    assert one_won == rounds
    assert both_created >= 1, "the two processes never raced to create the store"
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".theorylab")], "temporary store left behind"
    print(f"\nstore race: exactly one of two processes bound the store in {one_won}/{rounds} rounds; "
          f"both built a store (raced to create it) in {both_created}/{rounds}")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the race driver forks")
def test_racing_binds_of_different_specs_exactly_one_wins(tmp_path):
    _race(tmp_path, 20)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="the race driver forks")
def test_racing_binds_200_rounds(tmp_path):
    _race(tmp_path, 200)


def test_existing_file_is_never_made_a_store(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(small_spec_text(compute=("annealed",)))
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    assert main(["sweep", "run", str(spec), "--store", str(empty), "--workers", "0", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "empty file" in err and empty.read_bytes() == b""
    assert sorted(os.listdir(tmp_path)) == ["empty.db", "spec.toml"]


# -- 2. damaged stores: every sweep and plot command exits 2 (or 0 on intact data), file untouched ---

DAMAGE_SPEC = small_spec_text(compute=("annealed",)).replace("dk = [32, 64, 128, 256]",
                                                               "dk = {start = 16, stop = 1024, num = 15}")


@pytest.fixture(scope="module")
def healthy(tmp_path_factory):
    """A complete annealed-only store (90 points over several data pages), its spec and its rows."""
    folder = tmp_path_factory.mktemp("healthy")
    spec = folder / "spec.toml"
    spec.write_text(DAMAGE_SPEC)
    store = folder / "store.db"
    sweep.run_sweep(sweep.load_spec(str(spec)), str(store), executor=sweep.SerialExecutor(), progress=False)
    return spec, store.read_bytes(), sweep.export_rows(str(store))


def _page_size(data: bytes) -> int:
    size = int.from_bytes(data[16:18], "big")
    return 65536 if size == 1 else size


def _overwrite(data: bytes, offset: int, junk: bytes) -> bytes:
    return data[:offset] + junk + data[offset + len(junk):]


def _invert(data: bytes, offset: int, n: int) -> bytes:
    """``n`` bytes from ``offset`` with every bit flipped: a change whatever they held (zeros in a page's
    free space included)."""
    return _overwrite(data, offset, bytes(b ^ 0xFF for b in data[offset:offset + n]))


def _random_overwrite(seed: int):
    def damage(data: bytes) -> bytes:
        rng = np.random.default_rng(seed)
        offset = int(rng.integers(0, len(data) - 16))
        return _overwrite(data, offset, rng.bytes(int(rng.integers(1, 17))))
    return damage


def _bit_flip(seed: int):
    def damage(data: bytes) -> bytes:
        rng = np.random.default_rng(seed)
        offset = int(rng.integers(0, len(data)))
        return _overwrite(data, offset, bytes([data[offset] ^ (1 << int(rng.integers(0, 8)))]))
    return damage


def _sql(*statements, spec_text: str | None = None):
    """Damage by SQL on a copy: a well-formed SQLite file whose content breaks the contract."""
    def damage(path: str) -> None:
        with closing(sqlite3.connect(path)) as conn, conn:
            if spec_text is not None:
                conn.execute("UPDATE meta SET value = ? WHERE key = 'spec'", (spec_text,))
                conn.execute("UPDATE meta SET value = ? WHERE key = 'spec_hash'",
                             (hashlib.sha256(spec_text.encode()).hexdigest(),))
            for sql in statements:
                conn.execute(sql)
        conn.close()
    return damage


def _foreign(path: str) -> None:
    os.remove(path)
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("CREATE TABLE t (x)")
        conn.execute("INSERT INTO t VALUES (1)")
    conn.close()


# Byte-level damage (bytes -> bytes), then SQL-level damage (a function of the copy's path).
# MUST_REFUSE: damage the store cannot survive; the others may land in unused bytes, and then a
# command may succeed -- but only with the original data.
BYTE_DAMAGE = {
    "empty file (0 bytes)": lambda d: b"",
    "truncated to 100 bytes": lambda d: d[:100],
    "truncated to half": lambda d: d[:len(d) // 2],
    "last page cut off": lambda d: d[:-_page_size(d)],
    "not SQLite (text)": lambda d: b"hello, this is not a database\n" * 40,
    "not SQLite (random bytes)": lambda d: np.random.default_rng(7).bytes(len(d)),
    "header: magic string zeroed": lambda d: _overwrite(d, 0, bytes(16)),
    "header: page size garbled": lambda d: _overwrite(d, 16, b"\x00\x03"),
    "header: file format bytes": lambda d: _overwrite(d, 18, b"\x07\x07"),
    "header: text encoding": lambda d: _overwrite(d, 56, b"\x00\x00\x00\x02"),
    "schema page: cell content": lambda d: _overwrite(d, _page_size(d) - 300, b"\xff" * 64),
    "schema page: b-tree header": lambda d: _overwrite(d, 100, b"\x0d\xff\xff\xff\xff\xff\xff\xff"),
    "data page 2: b-tree header": lambda d: _overwrite(d, _page_size(d), b"\xff" * 12),
    "last data page: middle": lambda d: _invert(d, len(d) - _page_size(d) // 2, 48),
    **{f"random overwrite (seed {s})": _random_overwrite(s) for s in range(12)},
    **{f"bit flip (seed {s})": _bit_flip(100 + s) for s in range(6)},
}
SQL_DAMAGE = {
    "SQLite, not a theorylab store": _foreign,
    "no spec record": _sql("DELETE FROM meta WHERE key = 'spec'"),
    "spec record not JSON": _sql(spec_text='{"name": "x", '),
    "spec record JSON, not a spec": _sql(spec_text='{"name": "x"}'),
    "spec record altered (hash kept)": _sql("UPDATE meta SET value = replace(value, '\"seed\":11', '\"seed\":12') "
                                            "WHERE key = 'spec'"),
    "store format from the future": _sql("UPDATE meta SET value = '9' WHERE key = 'format'"),
    "points table dropped": _sql("DROP TABLE points"),
    "a stored value altered": _sql("UPDATE points SET law_gamma_c = law_gamma_c * 1.01 WHERE idx = 3"),
    "a stored value of the wrong type": _sql("UPDATE points SET dk = 'wide' WHERE idx = 5"),
    "a row's checksum removed": _sql("UPDATE points SET checksum = NULL WHERE idx = 7"),
}
MAY_SURVIVE = {k for k in BYTE_DAMAGE if k.startswith(("random", "bit flip", "header: file format",
                                                         "last data page"))}


def _commands(spec, store, out):
    return {
        "sweep run": ["sweep", "run", str(spec), "--store", store, "--workers", "0", "--no-progress"],
        "sweep status": ["sweep", "status", "--store", store],
        "sweep export": ["sweep", "export", "--store", store],
        "sweep export -o": ["sweep", "export", "--store", store, "--format", "json", "--out", str(out / "x.json")],
        "plot gamma-c": ["plot", "gamma-c", "--store", store, "--out", str(out / "g.png")],
        "plot compare": ["plot", "compare", "--store", store, "--out", str(out / "c.png")],
    }


@pytest.mark.parametrize("kind", list(BYTE_DAMAGE) + list(SQL_DAMAGE))
def test_damaged_store_is_refused_and_left_untouched(kind, healthy, tmp_path, capsys):
    spec, data, original_rows = healthy
    folder = tmp_path / "store"
    folder.mkdir()
    store = str(folder / "damaged.db")
    if kind in BYTE_DAMAGE:
        damaged = BYTE_DAMAGE[kind](data)
        assert damaged != data
        with open(store, "wb") as fh:
            fh.write(damaged)
    else:
        with open(store, "wb") as fh:
            fh.write(data)
        SQL_DAMAGE[kind](store)
    before = open(store, "rb").read()
    out = tmp_path / "out"
    out.mkdir()
    codes = {}
    for name, argv in _commands(spec, store, out).items():
        code = main(argv)
        stdout, err = capsys.readouterr()
        codes[name] = code
        assert code in (0, 2), (kind, name, code, err)
        assert open(store, "rb").read() == before, f"{kind}: {name} changed the file"
        assert os.listdir(folder) == ["damaged.db"], f"{kind}: {name} left {os.listdir(folder)}"
        if code == 2:
            assert err.count("\n") == 1 and "Traceback" not in err and "--store" in err, err
            assert not os.listdir(out), f"{kind}: {name} wrote {os.listdir(out)} and failed"
        else:
            assert kind in MAY_SURVIVE, f"{kind}: {name} succeeded on a damaged store"
            for f in os.listdir(out):
                os.remove(out / f)
    if any(c == 0 for c in codes.values()):  # undetected damage must have spared every value
        assert sweep.export_rows(store) == original_rows, f"{kind}: data changed but the store was accepted"
    print(f"\n{kind}: " + " ".join(f"{name}={code}" for name, code in codes.items()))


def test_integrity_check_catches_what_the_row_checks_would_not(healthy, tmp_path, capsys):
    """A page whose b-tree structure is broken is refused by PRAGMA integrity_check itself."""
    spec, data, _ = healthy
    store = tmp_path / "s.db"
    store.write_bytes(BYTE_DAMAGE["data page 2: b-tree header"](data))
    assert main(["sweep", "status", "--store", str(store)]) == 2
    assert "damaged" in capsys.readouterr().err


# -- 3. chunk claims: two runs of one spec on one store divide the work ------------------------

# A CLI run whose compute is slowed (so that two runs overlap) and which records every point it
# computes; it starts when the file GO exists, so the two runs really start together.
CLAIM_CHILD = r"""
import json, os, sys, time
import theorylab.sweep.run as sw
spec, store, log, go, delay = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
real = sw.compute_chunk
def slow(spec_, chunk):
    with open(log, "a") as fh:
        fh.write("".join(json.dumps(p.key) + "\n" for p in chunk))
    time.sleep(delay)
    return real(spec_, chunk)
sw.compute_chunk = slow
from theorylab.cli import main
open(log, "w").close()
while not os.path.exists(go):
    time.sleep(0.005)
sys.exit(main(["sweep", "run", spec, "--store", store, "--workers", "0", "--no-progress", "--format", "json"]))
"""


def _start_runs(tmp_path, n: int, delay: float):
    spec = tmp_path / "spec.toml"
    spec.write_text(small_spec_text(compute=("annealed",)))
    store, go = str(tmp_path / "shared.db"), tmp_path / "go"
    runs = []
    for k in range(n):
        log = tmp_path / f"computed{k}.jsonl"
        proc = subprocess.Popen([sys.executable, "-c", CLAIM_CHILD, str(spec), store, str(log), str(go), str(delay)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        runs.append((proc, log))
    deadline = time.monotonic() + 120
    while not all(log.exists() for _, log in runs) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()
    return spec, store, runs


def _computed(log) -> list[str]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _serial_reference(spec, tmp_path):
    ref = str(tmp_path / "serial.db")
    sweep.run_sweep(sweep.load_spec(str(spec)), ref, executor=sweep.SerialExecutor(), progress=False)
    return {r["key"]: [r[c] for c in RESULT_FIELDS] for r in sweep.export_rows(ref)}


def test_two_runs_on_one_store_divide_the_work(tmp_path):
    spec, store, runs = _start_runs(tmp_path, 2, delay=0.25)
    reports = []
    for proc, _ in runs:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err[-1000:]
        reports.append(json.loads(out)[0])
    computed = [_computed(log) for _, log in runs]
    total = sweep.load_spec(str(spec)).n_points()
    duplicates = set(computed[0]) & set(computed[1])
    print(f"\ntwo runs on one store: points computed {len(computed[0])} + {len(computed[1])} = "
          f"{len(computed[0]) + len(computed[1])} of {total}; duplicates {len(duplicates)}")
    assert not duplicates and all(len(set(c)) == len(c) for c in computed)
    assert len(computed[0]) + len(computed[1]) == total and all(computed), "the work was not divided"
    assert [r["computed"] for r in reports] == [len(c) for c in computed]
    rows = {r["key"]: [r[c] for c in RESULT_FIELDS] for r in sweep.export_rows(store)}
    assert rows == _serial_reference(spec, tmp_path)
    with closing(sqlite3.connect(store)) as conn, conn:
        assert conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0  # every claim released
        workers = {w for (w,) in conn.execute("SELECT DISTINCT worker FROM points")}
    conn.close()
    assert len(workers) == 2


def test_killed_run_leaves_its_chunks_to_the_other(tmp_path):
    """kill -9 one of two runs sharing a store: its claims lapse at once (its process is gone) and
    the survivor stores every point."""
    spec, store, runs = _start_runs(tmp_path, 2, delay=0.3)
    (victim, victim_log), (survivor, survivor_log) = runs
    deadline = time.monotonic() + 120
    while len(_computed(victim_log)) < 3 and victim.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(victim.pid, signal.SIGKILL)
    victim.communicate()
    out, err = survivor.communicate(timeout=180)
    assert survivor.returncode == 0, err[-1000:]
    total = sweep.load_spec(str(spec)).n_points()
    rows = {r["key"]: [r[c] for c in RESULT_FIELDS] for r in sweep.export_rows(store)}
    assert len(rows) == total and rows == _serial_reference(spec, tmp_path)


def _bound_store(tmp_path, text: str):
    spec = spec_of(text)
    path = str(tmp_path / "claims.db")
    sweep.SweepStore(path, spec.canonical_json(), spec.hash).close()
    return spec, path


def _claim_for(path: str, keys, host: str, pid: int, expires: float) -> None:
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.executemany("INSERT INTO claims VALUES (?, ?, ?, ?, ?)",
                         [(k, f"{host}:{pid}:x", host, pid, expires) for k in keys])
    conn.close()


def test_claims_of_a_live_owner_wait_for_their_lease(tmp_path):
    spec, path = _bound_store(tmp_path, small_spec_text(compute=("annealed",)))
    held = [p.key for p in sweep.points(spec)[:4]]
    _claim_for(path, held, "another-host", 1, time.time() + 1.5)  # a live owner elsewhere
    t0 = time.monotonic()
    report = sweep.run_sweep(spec, path, executor=sweep.SerialExecutor(), progress=False, poll=0.05)
    waited = time.monotonic() - t0
    assert report.computed == spec.n_points() and waited >= 1.0  # the claimed points waited for the lease
    assert len(sweep.export_rows(path)) == spec.n_points()


def test_claims_of_a_dead_owner_on_this_host_lapse_at_once(tmp_path):
    import socket
    spec, path = _bound_store(tmp_path, small_spec_text(compute=("annealed",)))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    _claim_for(path, [p.key for p in sweep.points(spec)[:4]], socket.gethostname(), gone.pid, time.time() + 3600)
    t0 = time.monotonic()
    report = sweep.run_sweep(spec, path, executor=sweep.SerialExecutor(), progress=False, poll=0.05)
    assert report.computed == spec.n_points() and time.monotonic() - t0 < 60


def test_lease_is_renewed_while_held_and_released_after(tmp_path):
    spec, path = _bound_store(tmp_path, small_spec_text(compute=("annealed",)))
    owner, other = sweep.Owner(lease=0.6), sweep.Owner(lease=0.6)
    with sweep.SweepStore(path, spec.canonical_json(), spec.hash) as store:
        pending = sweep.points(spec)
        mine = store.claim(pending, lambda c, p: True, 5, owner)
        with store.holding(owner):
            time.sleep(1.5)  # two and a half leases: only renewal keeps the claims
            rest = sweep.points(spec)
            theirs = store.claim(rest, lambda c, p: True, 100, other)
            assert not {p.key for p in mine} & {p.key for p in theirs}
            assert len(theirs) == spec.n_points() - 5
        with closing(sqlite3.connect(path)) as conn, conn:
            left = {o for (o,) in conn.execute("SELECT DISTINCT owner FROM claims")}
        conn.close()
    assert left == {other.name}  # leaving holding() released owner's claims


def test_store_of_an_older_theorylab_is_read_and_resumed(tmp_path, capsys):
    """A format-1 store (no checksums, no claims table, no format record) is still read, and
    running its spec again brings it up to date: new rows carry checksums."""
    spec_path = tmp_path / "spec.toml"
    spec_path.write_text(small_spec_text(compute=("annealed",)))
    spec = sweep.load_spec(str(spec_path))
    store = str(tmp_path / "old.db")
    sweep.run_sweep(spec, store, executor=sweep.SerialExecutor(), progress=False)
    with closing(sqlite3.connect(store)) as conn, conn:
        conn.execute("DELETE FROM points WHERE idx >= 10")
        conn.execute("DROP TABLE claims")
        conn.execute("ALTER TABLE points DROP COLUMN checksum")
        conn.execute("DELETE FROM meta WHERE key = 'format'")
    conn.close()
    assert len(sweep.export_rows(store)) == 10
    assert main(["sweep", "run", str(spec_path), "--store", store, "--workers", "0", "--no-progress",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["computed"] == spec.n_points() - 10
    with closing(sqlite3.connect(store)) as conn, conn:
        sums = conn.execute("SELECT idx >= 10, COUNT(checksum) FROM points GROUP BY idx >= 10").fetchall()
        assert conn.execute("SELECT COUNT(*) FROM claims").fetchone() == (0,)
    conn.close()
    assert sums == [(0, 0), (1, spec.n_points() - 10)]
    assert len(sweep.export_rows(store)) == spec.n_points()

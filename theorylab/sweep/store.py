"""The SQLite result store of a parameter sweep: one row per grid point.

Concurrency contract (docs/sweeps.md, "The store"):

* **Created whole, bound atomically.** A store is built complete (schema and spec record,
  in one immediate transaction) in a temporary file beside its path and published with
  a hard link, which fails if the path exists: a store never exists without its spec,
  an existing file (even an empty one) is never turned into a store, and of two
  processes creating one path exactly one wins. Opening a store for a run re-reads the
  spec record and re-checks its SHA-256 in one ``BEGIN IMMEDIATE`` transaction; a store
  bound to another spec raises :class:`~theorylab.errors.ParameterError`.
* **Checked on open.** ``PRAGMA integrity_check``, the schema, the spec record (valid
  JSON whose SHA-256 is the recorded hash) and every row (column types and a per-row
  checksum) are verified before anything is read or written. Any failure is one
  :class:`~theorylab.errors.ParameterError` line, and the file is left byte for byte as
  it was (nothing is written before the checks pass).
* **Chunk claims.** Processes sharing a store claim points in a ``claims`` table (owner,
  host, pid, lease expiry) inside immediate transactions, so two runs of one spec divide
  the work. A claim lapses when its lease expires (the owner renews it while it works)
  or at once when its owner, on this host, is no longer running.
* **One transaction per chunk.** A chunk of rows is inserted (``INSERT OR IGNORE`` on the
  point key) and its claims dropped in one transaction, so a sweep killed at any moment
  leaves only whole chunks behind. WAL journal, ``synchronous=FULL``.

The tables and columns are those of the spec's task (:mod:`theorylab.sweep.schema`); a store
finds its task from its spec record.
"""
from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import tempfile
import time
import urllib.parse
from contextlib import contextmanager
from typing import Iterable, Mapping

from theorylab.errors import ParameterError
from theorylab.sweep.registry import DEFAULT_TASK
from theorylab.sweep.schema import FORMAT, MAGIC, StoreLayout, layout, row_checksum, utc_now

LEASE_SECONDS = 120.0
"""How long a claim on a chunk lasts unless its owner renews it (it renews every LEASE/6 s)."""
_GENERIC = {"key", "idx", "seed"}
"""Columns of ``points`` in every store, whatever its task."""


class SweepStore:
    """An open, verified result store bound to one spec (see the module docstring).

    Parameters
    ----------
    path : the SQLite file.
    spec_json : canonical JSON of the sweep spec to run: the store is created if ``path``
        does not exist, else bound (spec hash re-checked in an immediate transaction).
        ``None`` opens an existing store for reading (status, export, plots): read-only, so
        a store in a read-only folder can be read, and nothing is written or created beside
        it (a store with no write-ahead log is opened ``immutable``).
    spec_hash : SHA-256 of the spec; with ``spec_json=None`` it is only compared.

    Raises
    ------
    ParameterError
        One line: no such store, not a regular file, empty, not SQLite, failed integrity
        check, not a theorylab store, malformed spec record or row, or a different spec.
    """

    def __init__(self, path: str, spec_json: str | None = None, spec_hash: str | None = None):
        self.path = path
        self.conn = self._rows = None
        if spec_json is not None and path and not os.path.lexists(path):
            _create(path, spec_json, spec_hash, layout(json.loads(spec_json).get("task", DEFAULT_TASK)))
        self._check_file()
        try:
            self.conn = (sqlite3.connect(path, timeout=60.0, isolation_level=None) if spec_json is not None
                         else self._connect_read_only())
            self.conn.execute("PRAGMA query_only=ON")  # nothing is written until every check has passed
            self.conn.execute("PRAGMA cell_size_check=ON")
            self._verify()
            if spec_hash is not None:
                self._check_hash(spec_hash)
            if spec_json is not None:
                self.conn.execute("PRAGMA query_only=OFF")
                self.conn.execute("PRAGMA synchronous=FULL")
                self._bind(spec_hash)
                self._rows = None  # a store open for writing is read afresh
        except sqlite3.Error as exc:
            self.close()
            raise self._refused(_reason(exc)) from None
        except BaseException:
            self.close()
            raise

    # -- opening ---------------------------------------------------------------------------
    def _refused(self, why: str, unchanged: bool = True) -> ParameterError:
        return ParameterError(f"--store: {self.path!r} {why}" + ("; the file was left unchanged" if unchanged else ""))

    def _check_file(self) -> None:
        if not self.path:
            raise ParameterError("--store must name a store file (got an empty path)")
        if not os.path.lexists(self.path):
            raise ParameterError(f"--store: no such store {self.path!r}")
        if not os.path.isfile(self.path):
            raise ParameterError(f"--store: {self.path!r} is not a sweep store (not a regular file)")
        with open(self.path, "rb") as fh:
            head = fh.read(len(MAGIC))
        if not head:
            raise self._refused("is an empty file, not a sweep store (a store is only created at a path "
                                "that does not exist)")
        if head != MAGIC:
            raise self._refused("is not a sweep store (not an SQLite database)")

    def _connect_read_only(self) -> sqlite3.Connection:
        """Read-only (``mode=ro``: a store in a read-only folder can be read). A store with no log
        beside it (closed cleanly: the file holds every row) is opened ``immutable``: no
        ``-wal``/``-shm`` is created, no lock taken. One with a log (a run may be writing it) is
        read through it; if that cannot be (a read-only folder), only an empty log is passed by."""
        uri = "file:" + urllib.parse.quote(os.path.abspath(self.path))
        logs = [self.path + end for end in ("-wal", "-journal") if os.path.lexists(self.path + end)]
        try:
            return _probe(sqlite3.connect(uri + ("?mode=ro" if logs else "?mode=ro&immutable=1"), uri=True,
                                          timeout=60.0, isolation_level=None))
        except sqlite3.OperationalError as exc:      # SQLITE_CANTOPEN or _READONLY (no code before Python 3.11)
            code = getattr(exc, "sqlite_errorcode", 14 if "unable to open" in str(exc) else None)
            if not logs or code is None or code & 0xFF not in (8, 14):
                raise
            if all(os.path.isfile(log) and os.path.getsize(log) == 0 for log in logs):
                return _probe(sqlite3.connect(uri + "?mode=ro&immutable=1", uri=True, isolation_level=None))
            raise self._refused(f"cannot be read here: its log {os.path.basename(logs[0])!r} holds changes not "
                                f"yet in the file, which cannot be read without creating files beside it (a "
                                f"read-only folder?); open it once where its folder can be written") from None

    def _verify(self) -> None:
        """Integrity check, schema, spec record and every row (see the module docstring)."""
        problems = [r[0] for r in self.conn.execute("PRAGMA integrity_check(5)")]
        if problems != ["ok"]:
            text = "".join(c if c.isprintable() else "?" for c in "; ".join(map(str, problems)))
            raise self._refused(f"is damaged (integrity check: {text[:160]})")
        present = {name for (name,) in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        tables = {name: {r[1] for r in self.conn.execute(f"PRAGMA table_info({name})")}
                  for name in ("meta", "points", "claims") if name in present}
        for name in ("meta", "points"):
            if name not in tables:
                raise self._refused(f"is not a theorylab sweep store (no table {name!r})")
        generic = StoreLayout((), ()).required
        self._check_columns(tables, {**generic, "points": _GENERIC})
        meta = {}
        for key, value in self.conn.execute("SELECT key, value FROM meta"):
            if not isinstance(key, str) or not isinstance(value, str):
                raise self._refused("is damaged (a meta record is not text)")
            meta[key] = value
        if not {"spec", "spec_hash", "created_at"} <= set(meta):
            raise self._refused("holds no sweep (no spec record)")
        try:
            spec = json.loads(meta["spec"])
        except (ValueError, RecursionError) as exc:
            raise self._refused(f"is damaged (its spec record is not valid JSON: {str(exc)[:80]})") from None
        if not isinstance(spec, dict) or hashlib.sha256(meta["spec"].encode()).hexdigest() != meta["spec_hash"]:
            raise self._refused("is damaged (its spec record does not match its recorded SHA-256)")
        if meta.get("format", "1") not in ("1", FORMAT):
            raise self._refused(f"was written by a newer theorylab (store format {meta['format']!r})")
        task = spec.get("task", DEFAULT_TASK)
        try:
            if not isinstance(task, str):
                raise ParameterError("a task is named by text")
            self.layout = layout(task)
        except ParameterError:
            raise self._refused(f"holds a sweep of the task {str(task)[:40]!r}, which this theorylab does not "
                                f"know") from None
        self._check_columns(tables, self.layout.required)
        self.columns = [c for c in self.layout.columns if c in tables["points"]]
        self.has_checksum = "checksum" in tables["points"]
        self.has_claims = "claims" in tables
        self.meta = meta
        self._rows = self._read_rows()

    def _check_columns(self, tables: Mapping, required: Mapping) -> None:
        for name, cols in tables.items():
            if not required[name] <= cols:
                raise self._refused(f"is not a theorylab sweep store (table {name!r} lacks "
                                    f"{', '.join(sorted(required[name] - cols))})")

    def _read_rows(self) -> list[dict]:
        """Every row, ordered by point index, each checked: column types and (format 2) checksum."""
        need_sum = self.meta.get("format", "1") == FORMAT
        cols = self.columns + (["checksum"] if self.has_checksum else [])
        types = self.layout.types
        checks = [(i, name, self.layout.python_type(name), "NOT NULL" in types.get(name, "")
                   or (name == "checksum" and need_sum)) for i, name in enumerate(cols)]
        complete = self.columns == list(self.layout.columns)
        rows = []
        for values in self.conn.execute(f"SELECT {', '.join(cols)} FROM points ORDER BY idx"):
            for i, name, kind, required in checks:
                if values[i] is None:
                    if required:
                        raise self._refused(f"is damaged (a row has no {name})")
                elif type(values[i]) is not kind:
                    raise self._refused(f"is damaged (a row's {name} is a {type(values[i]).__name__})")
            row = dict(zip(cols, values))
            checksum = row.pop("checksum", None)
            if checksum is not None and checksum != row_checksum(row):
                raise self._refused(f"is damaged (the row {row['key']!r} does not match its checksum)")
            rows.append(row if complete else {c: row.get(c) for c in self.layout.columns})
        return rows

    def _check_hash(self, spec_hash: str) -> None:
        if self.meta["spec_hash"] != spec_hash:
            name = self.spec.get("name", "?")
            raise ParameterError(
                f"--store: {self.path!r} belongs to a different sweep ({name!r}, spec sha256 "
                f"{self.meta['spec_hash'][:12]}, this spec {spec_hash[:12]}); use a new --store or the same spec")

    def _bind(self, spec_hash: str) -> None:
        """Re-read the spec record and re-check its hash in one immediate transaction; bring a
        store written by an older theorylab up to date (new columns, claims table)."""
        with self.transaction():
            stored = self.conn.execute("SELECT value FROM meta WHERE key = 'spec_hash'").fetchone()
            if stored is None or stored[0] != self.meta["spec_hash"]:
                raise self._refused("changed while it was being opened (its spec record differs)")
            self._check_hash(spec_hash)
            have = set(self.columns) | ({"checksum"} if self.has_checksum else set())
            for name, kind in list(self.layout.types.items()) + [("checksum", "TEXT")]:
                if name not in have:
                    self.conn.execute(f"ALTER TABLE points ADD COLUMN {name} {kind.replace(' NOT NULL', '')}")
            if not self.has_claims:
                self.conn.execute(self.layout.schema["claims"])
        self.columns, self.has_checksum, self.has_claims = list(self.layout.columns), True, True

    # -- transactions ----------------------------------------------------------------------
    @contextmanager
    def transaction(self):
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any exception."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # -- reading ---------------------------------------------------------------------------
    @property
    def spec(self) -> dict:
        """The stored spec (a plain dict)."""
        return json.loads(self.meta["spec"])

    def rows(self) -> list[dict]:
        """Every stored row as a dict (every column of its layout), ordered by point index, verified:
        for a store opened for reading, the rows verified when it was opened."""
        if self._rows is None:
            return self._guard(self._read_rows)
        return self._rows

    def done_keys(self) -> set[str]:
        """Keys of every point already stored."""
        return self._guard(lambda: {k for (k,) in self.conn.execute("SELECT key FROM points")})

    def count(self) -> int:
        """Number of stored points."""
        return self._guard(lambda: self.conn.execute("SELECT COUNT(*) FROM points").fetchone()[0])

    def provenance(self) -> dict:
        """Points stored, first start and last finish time, and the distinct code versions
        (comma-separated) that computed them."""
        row = self._guard(lambda: self.conn.execute(
            "SELECT COUNT(*), MIN(started_at), MAX(finished_at), GROUP_CONCAT(DISTINCT code_version) "
            "FROM points").fetchone())
        return dict(zip(("points_done", "first_started", "last_finished", "code_versions"), row))

    def _guard(self, fn):
        try:
            return fn()
        except sqlite3.Error as exc:
            raise self._refused(_reason(exc), unchanged=False) from None

    # -- writing ---------------------------------------------------------------------------
    def write_chunk(self, rows: Iterable[Mapping], owner: "Owner | None" = None) -> int:
        """Insert one chunk of rows and drop ``owner``'s claims on them, in one transaction;
        return the number inserted.

        Rows whose key is already present are ignored (a retried task cannot duplicate a point).
        """
        columns = self.layout.columns
        rows = [self.layout.normalised(r) for r in rows]
        cols = columns + ("checksum",)
        sql = f"INSERT OR IGNORE INTO points ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})"

        def write():
            with self.transaction():
                before = self.conn.total_changes
                self.conn.executemany(sql, [tuple(r.get(c) for c in columns) + (row_checksum(r),) for r in rows])
                inserted = self.conn.total_changes - before
                if owner is not None:
                    self.conn.executemany("DELETE FROM claims WHERE key = ? AND owner = ?",
                                          [(r["key"], owner.name) for r in rows])
                return inserted
        return self._guard(write)

    # -- chunk claims ----------------------------------------------------------------------
    def claim(self, pending: list, fits, size: int, owner: "Owner", key=lambda p: p.key) -> list:
        """Claim the next chunk of ``pending`` (points in canonical order) for ``owner``.

        In one immediate transaction: drop lapsed claims (expired lease, or an owner on this
        host that is no longer running), then walk ``pending`` in order, skipping points
        already stored or claimed by another owner, and take up to ``size`` points, stopping
        at the first one ``fits(chunk, point)`` rejects. ``pending`` is updated in place:
        stored and taken points leave it, points claimed elsewhere stay (their claim may
        lapse). Returns the claimed points ([] if none).
        """
        def take():
            with self.transaction():
                now = time.time()
                self.conn.execute("DELETE FROM claims WHERE expires < ?", (now,))
                for other, host, pid in self.conn.execute(
                        "SELECT DISTINCT owner, host, pid FROM claims WHERE owner != ?", (owner.name,)).fetchall():
                    if host == owner.host and not _running(pid):
                        self.conn.execute("DELETE FROM claims WHERE owner = ?", (other,))
                elsewhere = {k for (k,) in self.conn.execute("SELECT key FROM claims WHERE owner != ?",
                                                             (owner.name,))}
                chunk, keep = [], []
                for i, p in enumerate(pending):
                    if len(chunk) == size or (chunk and not fits(chunk, p)):
                        keep.extend(pending[i:])
                        break
                    if key(p) in elsewhere:
                        keep.append(p)
                    elif not self.conn.execute("SELECT 1 FROM points WHERE key = ?", (key(p),)).fetchone():
                        chunk.append(p)
                pending[:] = keep
                self.conn.executemany("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?)",
                                      [(key(p), owner.name, owner.host, owner.pid, now + owner.lease)
                                       for p in chunk])
                return chunk
        return self._guard(take)

    @contextmanager
    def holding(self, owner: "Owner"):
        """While inside, a thread renews every claim of ``owner`` each ``lease / 6`` seconds (on
        its own connection, so the lease holds while the caller waits for workers); on exit
        the claims are dropped, so unfinished chunks become claimable at once."""
        import threading

        stop = threading.Event()

        def renew() -> None:
            conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None)
            try:
                while not stop.wait(owner.lease / 6):
                    conn.execute("UPDATE claims SET expires = ? WHERE owner = ?", (time.time() + owner.lease,
                                                                                 owner.name))
            except sqlite3.Error:
                pass  # the coordinator meets the same error on its next write
            finally:
                conn.close()

        thread = threading.Thread(target=renew, name="theorylab-claim-lease", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join(timeout=5.0)
            try:
                self._guard(lambda: self.conn.execute("DELETE FROM claims WHERE owner = ?", (owner.name,)))
            except ParameterError:
                pass  # a lapsed claim is also taken over once its lease expires

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Owner:
    """Who holds a claim: this process (host, pid, a random token) and its lease length."""

    def __init__(self, lease: float = LEASE_SECONDS):
        self.host, self.pid, self.lease = socket.gethostname(), os.getpid(), float(lease)
        self.name = f"{self.host}:{self.pid}:{os.urandom(6).hex()}"


def _create(path: str, spec_json: str, spec_hash: str, store_layout: StoreLayout) -> None:
    """Build a complete store in a temporary file beside ``path`` and publish it with a hard
    link (which never replaces an existing file). Losing a race to another creator is not an
    error: the caller then opens, and checks, what the winner published."""
    from theorylab._io import _umask

    if hashlib.sha256(spec_json.encode()).hexdigest() != spec_hash:
        raise ValueError("spec_hash is not the SHA-256 of spec_json")
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".theorylab-store-", suffix=".db")
    os.close(fd)
    try:
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("BEGIN IMMEDIATE")
            for sql in store_layout.schema.values():
                conn.execute(sql)
            conn.executemany("INSERT INTO meta VALUES (?, ?)", {
                "spec": spec_json, "spec_hash": spec_hash, "created_at": utc_now(), "format": FORMAT}.items())
            conn.execute("COMMIT")
        finally:
            conn.close()
        os.chmod(tmp, 0o666 & ~_umask())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError as exc:
            raise ParameterError(f"--store: cannot create {path!r} ({exc.strerror or exc}; a store needs a "
                                 f"folder on a filesystem with hard links)") from None
    finally:
        for leftover in (tmp, tmp + "-wal", tmp + "-shm"):
            if os.path.exists(leftover):
                os.remove(leftover)


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists on this host (a zombie counts as gone)."""
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    try:
        with open(f"/proc/{int(pid)}/stat") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _probe(conn: sqlite3.Connection) -> sqlite3.Connection:
    """``conn`` once it has read the schema (SQLite opens the file and its log lazily)."""
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except BaseException:
        conn.close()
        raise
    return conn


def _reason(exc: sqlite3.Error) -> str:
    """The one-line reason for an SQLite error met while using a store (printable, short: the
    error may quote bytes of a damaged file)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if "decode" in text:
        return "is damaged (it holds text that is not UTF-8)"
    text = "".join(c if c.isprintable() else "?" for c in text)[:120]
    if any(word in text for word in ("malformed", "not a database", "corrupt")):
        return f"is damaged or not a sweep store ({text})"
    return f"cannot be used ({text})"

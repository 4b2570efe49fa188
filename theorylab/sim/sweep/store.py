"""The SQLite result store of a parameter sweep: one row per grid point.

A store belongs to exactly one sweep spec. Its ``meta`` table records the spec (as
canonical JSON) and its SHA-256; opening the store with a different spec raises
:class:`~theorylab.errors.ParameterError` with a one-line message, so results of two
different sweeps never mix.

Every chunk of points is written in **one transaction** (``INSERT OR IGNORE`` on the
point key), so a sweep killed at any moment leaves only whole chunks behind and a
restart recomputes exactly the missing points. Only the coordinating process writes;
workers return rows. Columns: the point's parameters (variant, dk, T, gamma), its
seed, every estimate and standard error the sweep computes (NULL when not computed),
the code version, the worker, and ISO-8601 UTC timestamps.
"""
from __future__ import annotations

import json
import os
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Iterable, Mapping

from theorylab.errors import ParameterError

PARAMETER_COLUMNS = (("idx", "INTEGER NOT NULL"), ("variant", "TEXT NOT NULL"), ("dk", "REAL NOT NULL"),
                     ("T", "REAL NOT NULL"), ("gamma", "REAL"), ("seed", "INTEGER NOT NULL"))
RESULT_COLUMNS = (
    ("law_gamma_c", "REAL"),       # the law the variant is quoted with (transition.gamma_c)
    ("law_branch", "TEXT"),        # mean-field | condensed | none
    ("exact_gamma_c", "REAL"),     # root of the exact (quadrature) mean mass = 1/2
    ("mc_gamma_c", "REAL"),        # root of the Monte Carlo mean mass = 1/2
    ("mc_ci_low", "REAL"),
    ("mc_ci_high", "REAL"),
    ("exact_mass", "REAL"),        # mass sweeps: exact mean target mass M(g)
    ("mc_mass", "REAL"),           # mass sweeps: Monte Carlo M(g)
    ("mc_se", "REAL"),             # its standard error
    ("mc_samples", "INTEGER"),
    ("level", "REAL"),             # gamma_c sweeps: the mass level whose crossing defines gamma_c
)
RECORD_COLUMNS = (("code_version", "TEXT"), ("worker", "TEXT"), ("started_at", "TEXT"),
                  ("finished_at", "TEXT"), ("elapsed_s", "REAL"))
COLUMNS = ("key",) + tuple(n for n, _ in PARAMETER_COLUMNS + RESULT_COLUMNS + RECORD_COLUMNS)


def utc_now() -> str:
    """The current UTC time as an ISO-8601 string (second resolution)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class SweepStore:
    """An open result store bound to one spec (see the module docstring).

    Parameters
    ----------
    path : the SQLite file (created if missing).
    spec_json : canonical JSON of the sweep spec, or None to open an existing store
        read-only in spirit (status, export) without checking a spec.
    spec_hash : SHA-256 of ``spec_json``.
    """

    def __init__(self, path: str, spec_json: str | None = None, spec_hash: str | None = None):
        if spec_json is None and not os.path.exists(path):
            raise ParameterError(f"--store: no such store {path!r}")
        self.path = path
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        try:
            self.conn = sqlite3.connect(path, timeout=60.0, isolation_level=None)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self._create()
        except sqlite3.DatabaseError as exc:
            raise ParameterError(f"--store: {path!r} is not a theorylab sweep store ({exc})") from None
        self.meta = self._bind(spec_json, spec_hash)

    def _create(self) -> None:
        cols = ", ".join(f"{n} {t}" for n, t in PARAMETER_COLUMNS + RESULT_COLUMNS + RECORD_COLUMNS)
        with self._transaction():
            self.conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            self.conn.execute(f"CREATE TABLE IF NOT EXISTS points (key TEXT PRIMARY KEY, {cols})")
            have = {row[1] for row in self.conn.execute("PRAGMA table_info(points)")}
            for name, kind in PARAMETER_COLUMNS + RESULT_COLUMNS + RECORD_COLUMNS:
                if name not in have:  # a store written by an older theorylab: add the new column
                    self.conn.execute(f"ALTER TABLE points ADD COLUMN {name} {kind.replace(' NOT NULL', '')}")

    @contextmanager
    def _transaction(self):
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any exception."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def _bind(self, spec_json: str | None, spec_hash: str | None) -> dict:
        meta = dict(self.conn.execute("SELECT key, value FROM meta"))
        if spec_json is None:
            if "spec_hash" not in meta:
                raise ParameterError(f"--store: {self.path!r} holds no sweep yet")
            return meta
        if "spec_hash" in meta:
            if meta["spec_hash"] != spec_hash:
                name = json.loads(meta["spec"]).get("name", "?")
                raise ParameterError(
                    f"--store: {self.path!r} belongs to a different sweep ({name!r}, spec sha256 "
                    f"{meta['spec_hash'][:12]}, this spec {spec_hash[:12]}); use a new --store or the same spec")
            return meta
        meta = {"spec": spec_json, "spec_hash": spec_hash, "created_at": utc_now()}
        with self._transaction():
            self.conn.executemany("INSERT OR IGNORE INTO meta VALUES (?, ?)", meta.items())
        return dict(self.conn.execute("SELECT key, value FROM meta"))

    @property
    def spec(self) -> dict:
        """The stored spec (a plain dict)."""
        return json.loads(self.meta["spec"])

    def done_keys(self) -> set[str]:
        """Keys of every point already stored."""
        return {k for (k,) in self.conn.execute("SELECT key FROM points")}

    def write_chunk(self, rows: Iterable[Mapping]) -> int:
        """Insert one chunk of rows in a single transaction; returns the number inserted.

        Rows whose key is already present are ignored (a retried task cannot duplicate a point).
        """
        rows = list(rows)
        unknown = {k for r in rows for k in r} - set(COLUMNS)
        if unknown:
            raise KeyError(f"unknown store columns: {sorted(unknown)}")
        sql = (f"INSERT OR IGNORE INTO points ({', '.join(COLUMNS)}) "
               f"VALUES ({', '.join('?' for _ in COLUMNS)})")
        with self._transaction():
            before = self.conn.total_changes
            self.conn.executemany(sql, [tuple(r.get(c) for c in COLUMNS) for r in rows])
            return self.conn.total_changes - before

    def rows(self) -> list[dict]:
        """Every stored row as a dict, ordered by point index."""
        cur = self.conn.execute(f"SELECT {', '.join(COLUMNS)} FROM points ORDER BY idx")
        return [dict(zip(COLUMNS, r)) for r in cur]

    def count(self) -> int:
        """Number of stored points."""
        return self.conn.execute("SELECT COUNT(*) FROM points").fetchone()[0]

    def provenance(self) -> dict:
        """Points stored, first start and last finish time, and the distinct code versions
        (comma-separated) that computed them."""
        row = self.conn.execute("SELECT COUNT(*), MIN(started_at), MAX(finished_at), "
                                "GROUP_CONCAT(DISTINCT code_version) FROM points").fetchone()
        return dict(zip(("points_done", "first_started", "last_finished", "code_versions"), row))

    def close(self) -> None:
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

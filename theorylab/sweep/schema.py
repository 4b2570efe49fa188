"""The format of a sweep store: its tables and columns (per task), row checksums and normalisation.

Columns of ``points``: ``key``, ``idx``, the task's parameter columns, ``seed``, the task's
result columns (NULL when not computed), then the record columns (code version, worker,
ISO-8601 UTC timestamps, elapsed seconds) and the row ``checksum``. The task's columns are its
``PARAMETER_COLUMNS`` and ``RESULT_COLUMNS`` (:mod:`theorylab.sweep.registry`).
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
from datetime import datetime, timezone
from typing import Mapping

RECORD_COLUMNS = (("code_version", "TEXT"), ("worker", "TEXT"), ("started_at", "TEXT"),
                  ("finished_at", "TEXT"), ("elapsed_s", "REAL"))
FORMAT = "2"
"""Store format: 2 = every row carries a checksum (format-1 stores, without one, are still read)."""
MAGIC = b"SQLite format 3\x00"
"""The first bytes of every SQLite file."""
_PYTHON = {"TEXT": str, "REAL": float, "INTEGER": int}


class StoreLayout:
    """The tables and columns of the store of one task.

    Parameters
    ----------
    parameter_columns, result_columns : sequence of (name, SQL type)
        The task's ``PARAMETER_COLUMNS`` and ``RESULT_COLUMNS``.

    Attributes
    ----------
    columns : tuple of str
        Every column of ``points`` but ``checksum``, in table order.
    types : dict
        Column name -> SQL type (with ``NOT NULL`` where required).
    schema : dict
        Table name -> ``CREATE TABLE`` statement.
    required : dict
        Table name -> the columns a store's table must have.
    """

    def __init__(self, parameter_columns, result_columns):
        parameters = (("idx", "INTEGER NOT NULL"), *parameter_columns, ("seed", "INTEGER NOT NULL"))
        declared = parameters + tuple(result_columns) + RECORD_COLUMNS
        self.columns = ("key",) + tuple(n for n, _ in declared)
        self.types = {"key": "TEXT NOT NULL", **dict(declared)}
        self.schema = {
            "meta": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "points": ("CREATE TABLE points (key TEXT PRIMARY KEY, "
                       + ", ".join(f"{n} {t}" for n, t in declared) + ", checksum TEXT)"),
            "claims": ("CREATE TABLE claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, host TEXT NOT NULL, "
                       "pid INTEGER NOT NULL, expires REAL NOT NULL)"),
        }
        self.required = {"meta": {"key", "value"}, "points": {"key"} | {n for n, _ in parameters},
                         "claims": {"key", "owner", "host", "pid", "expires"}}

    def python_type(self, column: str) -> type:
        """The Python type SQLite returns for ``column`` (an unknown column is text)."""
        return _PYTHON[self.types.get(column, "TEXT").split()[0]]

    def normalised(self, row: Mapping) -> dict:
        """A row with every value in the Python type SQLite returns for its column (so the
        checksum written equals the checksum read back); NaN becomes NULL."""
        unknown = set(row) - set(self.columns)
        if unknown:
            raise KeyError(f"unknown store columns: {sorted(unknown)}")
        out = {}
        for name in self.columns:
            value = row.get(name)
            if value is not None:
                value = self.python_type(name)(value)
                if isinstance(value, float) and math.isnan(value):
                    value = None
            out[name] = value
        return out


@functools.lru_cache(maxsize=None)
def layout(task_name: str) -> StoreLayout:
    """The store layout of the registered task ``task_name`` (imports the task)."""
    from theorylab.sweep.registry import task

    module = task(task_name)
    return StoreLayout(module.PARAMETER_COLUMNS, module.RESULT_COLUMNS)


def store_columns(spec) -> tuple[str, ...]:
    """Every column of a store of ``spec`` but the checksum, in table order (an export's columns).

    Examples
    --------
    The first columns of a PSA store:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> sweep.store_columns(spec)[:6]
    ('key', 'idx', 'variant', 'dk', 'T', 'gamma')
    """
    return layout(spec.task).columns


def utc_now() -> str:
    """The current UTC time as an ISO-8601 string (second resolution).

    Examples
    --------
    An ISO-8601 UTC time:

    >>> import theorylab.sweep as sweep
    >>> sweep.utc_now().endswith('+00:00')
    True
    """
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def row_checksum(row: Mapping) -> str:
    """BLAKE2b-128 of a row's non-NULL columns (canonical JSON; ``checksum`` itself excluded).

    NULL columns are left out so that a column added by a later format leaves the checksum
    of older rows unchanged.

    Examples
    --------
    The checksum ignores NULL columns:

    >>> import theorylab.sweep as sweep
    >>> sweep.row_checksum({'a': 1, 'b': None}) == sweep.row_checksum({'a': 1})
    True
    >>> len(sweep.row_checksum({'a': 1}))
    32
    """
    values = {k: v for k, v in row.items() if v is not None and k != "checksum"}
    text = json.dumps(values, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

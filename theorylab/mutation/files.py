"""The files ``theorylab mutate`` reads: the equivalent-mutant listing (``--equivalent``, TOML) and
the journal of an interrupted run (``--resume``, one JSON verdict per line).

Both go through :func:`theorylab._io.read_text` (a regular UTF-8 file of bounded size, checked before
any read: a pipe is refused, never waited on), and their shape and field types are checked here, so a
damaged or foreign file is one :class:`~theorylab.errors.ParameterError` line naming the option.
Re-exported by :mod:`theorylab.mutation.run`.
"""
from __future__ import annotations

import os
import re

from theorylab.errors import ParameterError

STATUSES = ("killed", "timeout", "survived", "not-covered", "equivalent")
EQUIVALENT_MAX_BYTES = 1 << 22
"""Largest equivalent file read (the committed one is a few kilobytes)."""
MUTANT_ID = re.compile(r"theorylab/[A-Za-z0-9_/]+\.py::(<module>|[A-Za-z_][A-Za-z0-9_.]*)::\S+::[0-9a-f]{8}\.[0-9]+")
"""The form of a mutant id, ``file::scope::operator::statement.k`` (:mod:`theorylab.mutation.mutants`) with
the file inside the library (no ``..``)."""


def load_equivalent(path) -> dict[str, str]:
    """``{mutant id: reason}`` from the equivalent file ``path`` (a path that does not exist: none).

    The file is read by :func:`theorylab._io.read_text` (a regular UTF-8 file, at most
    ``EQUIVALENT_MAX_BYTES``; a pipe is refused, never waited on) and must be a TOML document holding
    exactly one table, ``[equivalent]``, of ``"mutant id" = "reason"`` pairs: ids of the form
    ``MUTANT_ID``, reasons non-empty strings.

    Raises
    ------
    ParameterError
        One line naming ``--equivalent``, the file and what is wrong.
    """
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    from theorylab._io import read_text

    if not path or not os.path.lexists(path):
        return {}
    text = read_text("--equivalent", str(path), EQUIVALENT_MAX_BYTES)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ParameterError(f"--equivalent must be a TOML file with an [equivalent] table ({path}: "
                             f"{' '.join(str(exc).split())})") from None
    table = data.get("equivalent")
    if set(data) != {"equivalent"} or not isinstance(table, dict):
        got = (f"its 'equivalent' is {type(table).__name__} data, not a table" if set(data) == {"equivalent"} else
               f"it holds {', '.join(repr(k)[:40] for k in sorted(data)[:3]) or 'nothing'}")
        raise ParameterError(f"--equivalent must hold exactly one table, [equivalent] (\"mutant id\" = \"reason\"); "
                             f"{path}: {got}")
    bad = [k for k in table if not MUTANT_ID.fullmatch(k)]
    if bad:
        raise ParameterError(f"--equivalent: keys must be mutant ids file::scope::operator::statement.k of a library file "
                             f"({path}: {', '.join(repr(k)[:80] for k in bad[:3])})")
    bad = [k for k, v in table.items() if not isinstance(v, str) or not v.strip()]
    if bad:
        raise ParameterError(f"--equivalent: every mutant needs a reason string ({path}: {', '.join(bad[:3])})")
    return dict(table)


JOURNAL_MAX_BYTES = 1 << 28
"""Largest journal read by ``--resume`` (a verdict is a few hundred bytes; a full run has ~10^4)."""
JOURNAL_MAX_SECONDS = 1e9
"""Largest wall time (s) a journal record may state, for ``seconds`` and ``elapsed`` (1e9 s is 32 years:
longer is not a recorded time, and the sessions' sum stays finite)."""


def read_journal(path) -> tuple[dict[str, dict], float, int]:
    """Verdicts of a journal (``{id: record}``), the wall seconds of its sessions, the next session number.

    The journal is read by :func:`theorylab._io.read_text` (a regular UTF-8 file of at most
    ``JOURNAL_MAX_BYTES``; a pipe is refused, never waited on); every line must be one record as
    :func:`theorylab.mutation.run.run` writes it (an object: ``id``, ``status`` one of ``STATUSES``, ``seconds`` and ``elapsed`` in
    [0, ``JOURNAL_MAX_SECONDS``], ``session`` an integer >= 0, ``certificates`` a list of ids, text fields).

    Raises
    ------
    ParameterError
        One line naming ``--resume``, the journal, the line and what is wrong (not JSON -- e.g. a line
        cut short --, not a record, a field of the wrong type or out of range).
    """
    from theorylab._io import parse_json, read_text

    rows, sessions = {}, {}
    text = read_text("--resume journal", str(path), JOURNAL_MAX_BYTES)
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"--resume: journal {str(path)!r} line {n}"
        d = _journal_record(parse_json(line, where), where)
        rows[d["id"]] = d
        sessions[d.get("session", 0)] = max(sessions.get(d.get("session", 0), 0.0), d.get("elapsed", 0.0))
    return rows, sum(sessions.values()), max(sessions, default=-1) + 1


def _journal_record(d, where: str) -> dict:
    """One journal record checked (a verdict as :meth:`MutantResult.as_dict` plus ``session``, ``elapsed``)."""
    from theorylab.errors import positive_int, real_scalar

    try:
        if not isinstance(d, dict) or not isinstance(d.get("id"), str):
            raise ParameterError("must be a verdict record (a JSON object with a mutant id string)")
        if d.get("status") not in STATUSES:
            raise ParameterError(f"status must be one of {', '.join(STATUSES)} (got {str(d.get('status'))[:40]!r})")
        for key in ("seconds", "elapsed"):
            real_scalar(key, d.get(key, 0.0), low=0.0, high=JOURNAL_MAX_SECONDS)
        positive_int("session", d.get("session", 0), low=0, high=2 ** 63 - 1)
        certs = d.get("certificates", [])
        if not isinstance(certs, list) or not all(isinstance(c, str) for c in certs) or not all(
                isinstance(d.get(k, ""), str) for k in ("killed_by", "listed_equivalent", "before", "after", "scope",
                                                     "location")):
            raise ParameterError("certificates must be a list of ids and killed_by, before, after, scope, location "
                                 "strings")
    except ParameterError as exc:
        raise ParameterError(f"{where}: {exc}") from None
    return d

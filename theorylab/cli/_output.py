"""The one helper through which every CLI table is printed (table, csv or json)."""
from __future__ import annotations

import csv
import io
import json
import math
import sys
from typing import Any, Iterable, Mapping

FORMATS = ("table", "csv", "json")
ROW_BYTES = 2500
"""Peak bytes per output row: the row's dict and its rendered text (measured: json 2.4 KB, table 1.4 KB)."""
ROW_SECONDS = 4e-4
"""Seconds to build and render one row of about ten columns (measured on a shared 2-core machine)."""


def rows_cost(n_rows: float):
    """Peak memory and run time of building and printing ``n_rows`` output rows (:func:`render`)."""
    from theorylab.resources import Cost, as_float

    n = as_float(n_rows)
    return Cost(n * ROW_BYTES, n * ROW_SECONDS, f"{n:.3g} output rows")


def add_format_option(parser, default: str = "table") -> None:
    """Add the shared ``--format table|csv|json`` option."""
    parser.add_argument("--format", choices=FORMATS, default=default,
                        help="output format: aligned table (default), csv, or json")


def jsonable(value: Any) -> Any:
    """Convert NumPy scalars/arrays and NaN (-> null) to plain JSON values."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "tolist"):
        return jsonable(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _cell(value: Any) -> str:
    value = jsonable(value)
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def render(rows: Iterable[Mapping[str, Any]], fmt: str, summary: Mapping[str, Any] | None = None,
           columns: list[str] | None = None) -> str:
    """Render rows (and an optional summary) as a string in ``fmt``.

    JSON is the list of rows, or ``{"rows": [...], **summary}`` when a summary is given.
    """
    rows = [dict(r) for r in rows]
    columns = columns or list(dict.fromkeys(k for r in rows for k in r))
    if fmt == "json":
        payload = rows if summary is None else {"rows": rows, **summary}
        return json.dumps(jsonable(payload), indent=2, allow_nan=False)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        for r in rows:
            writer.writerow(["" if jsonable(r.get(c)) is None else jsonable(r.get(c)) for c in columns])
        return buf.getvalue().rstrip("\n")
    cells = [[_cell(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(columns, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells]
    if summary:
        lines.append("")
        lines += [f"{k}: {_cell(v)}" for k, v in summary.items()]
    return "\n".join(lines)


def emit(rows, fmt: str, summary=None, columns=None, stream=None) -> None:
    """Print :func:`render` output to ``stream`` (stdout by default)."""
    print(render(rows, fmt, summary, columns), file=stream or sys.stdout)

"""Shape of public results: Python scalars for scalar input, rows and DataFrames for tables.

The rule of the per-paper packages (``theorylab.psa``, ``graded``, ``plga``, ``nn``): a function
called with scalar input returns Python scalars (``float``, ``int``, ``bool``, ``str``), called with
arrays it returns arrays. :func:`scalar_output` applies it to a function's result;
:func:`scalar_fields` to a result record (a dataclass of arrays).

A result with rows becomes a table one way: ``record.rows()`` (a list of dicts, no dependency) and
``record.to_frame()`` (a ``pandas.DataFrame``; pandas is the optional extra ``theorylab[pandas]`` and
is imported only by that call). :func:`grid_rows` and :func:`to_frame` are their shared bodies.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

__all__ = ["scalar_output", "scalar_value", "scalar_fields", "grid_rows", "to_frame"]


def scalar_value(value):
    """``value`` as a Python scalar if it is a 0-d array or a NumPy scalar; tuples entry by entry;
    anything else unchanged."""
    if isinstance(value, tuple):
        return tuple(scalar_value(v) for v in value)
    if isinstance(value, (np.ndarray, np.generic)) and value.ndim == 0 and value.dtype != object:
        return value.item()
    if isinstance(value, np.ndarray) and value.ndim == 0:      # object 0-d: its element (a str, a Fraction)
        return value[()]
    return value


def scalar_output(fn):
    """Decorator: the result of ``fn`` through :func:`scalar_value` (scalar input, Python scalars)."""
    @functools.wraps(fn)
    def scalars(*args, **kwargs):
        return scalar_value(fn(*args, **kwargs))
    return scalars


def scalar_fields(record):
    """A copy of the dataclass ``record`` whose 0-d array fields are Python scalars."""
    changes = {f.name: scalar_value(getattr(record, f.name)) for f in dataclasses.fields(record)
               if isinstance(getattr(record, f.name), (np.ndarray, np.generic))}
    return dataclasses.replace(record, **changes) if changes else record


def grid_rows(columns: dict, constants: dict | None = None) -> list[dict]:
    """One dict per grid point of the broadcast ``columns`` (name -> array), Python scalars, in C order;
    ``constants`` (name -> value) are repeated in every row, first."""
    names = list(columns)
    arrays = np.broadcast_arrays(*(np.asarray(columns[n]) for n in names))
    const = dict(constants or {})
    return [{**const, **{n: scalar_value(a[idx]) for n, a in zip(names, arrays)}}
            for idx in np.ndindex(arrays[0].shape if arrays else ())]


def to_frame(rows: list[dict]):
    """``rows`` as a ``pandas.DataFrame`` (pandas: the optional extra ``theorylab[pandas]``)."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("to_frame needs pandas: pip install 'theorylab[pandas]' (or use rows(), a list of dicts)") from None
    return pd.DataFrame(rows)

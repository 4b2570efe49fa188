"""Input validation shared by every public function.

One rule for the whole library: bad input raises :class:`ParameterError` (a
``ValueError``) whose message is one line naming the parameter, the valid range
and the value received. The CLI prints that line and exits with status 2.
"""
from __future__ import annotations

import numpy as np


class ParameterError(ValueError):
    """A parameter lies outside its valid range (the message names both)."""


def real_array(name: str, value, *, low: float | None = None, high: float | None = None,
               low_inclusive: bool = True, high_inclusive: bool = True,
               allow_empty: bool = False) -> np.ndarray:
    """Return ``value`` as a float64 array after checking it is finite and in range.

    Parameters
    ----------
    name : parameter name used in the error message.
    value : scalar or array-like of reals.
    low, high : optional bounds; ``*_inclusive`` says whether the bound itself is valid.
    allow_empty : whether an empty array is acceptable.

    Raises
    ------
    ParameterError
        On non-numeric, non-finite, empty (unless allowed) or out-of-range values.
    """
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a real number{_range(low, high, low_inclusive, high_inclusive)} "
                             f"(got {value!r})") from None
    if arr.size == 0 and not allow_empty:
        raise ParameterError(f"{name} must not be empty")
    bad = ~np.isfinite(arr)
    if low is not None:
        bad |= (arr < low) if low_inclusive else (arr <= low)
    if high is not None:
        bad |= (arr > high) if high_inclusive else (arr >= high)
    if np.any(bad):
        first = arr[bad].flat[0] if arr.ndim else arr.item()
        raise ParameterError(f"{name} must be a finite real number{_range(low, high, low_inclusive, high_inclusive)} "
                             f"(got {first:g})")
    return arr


def positive_int(name: str, value, *, low: int = 1) -> int:
    """Return ``value`` as an int ``>= low`` or raise :class:`ParameterError`."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        if not (isinstance(value, (float, np.floating)) and float(value).is_integer()):
            raise ParameterError(f"{name} must be an integer >= {low} (got {value!r})")
    if int(value) < low:
        raise ParameterError(f"{name} must be an integer >= {low} (got {int(value)})")
    return int(value)


def choice(name: str, value: str, options) -> str:
    """Return ``value`` if it is one of ``options``, else raise :class:`ParameterError`."""
    if value not in options:
        raise ParameterError(f"{name} must be one of {', '.join(options)} (got {value!r})")
    return value


def _range(low, high, low_inclusive, high_inclusive) -> str:
    parts = []
    if low is not None:
        parts.append(f"{'>=' if low_inclusive else '>'} {low:g}")
    if high is not None:
        parts.append(f"{'<=' if high_inclusive else '<'} {high:g}")
    return (" " + " and ".join(parts)) if parts else ""

"""Input validation shared by every public function.

One rule for the whole library: bad input raises :class:`ParameterError` (a
``ValueError``) whose message is one line naming the parameter, the valid range
and the value received. The CLI prints that line and exits with status 2.

What counts as a number (the contract of docs/api.md):

* a **real number** is a Python ``int`` or ``float``, a NumPy integer or floating
  scalar, or an array of them (any shape the function documents). Booleans, complex
  numbers, strings (``"1.5"`` is refused, not converted), bytes, ``None`` and object
  arrays are not real numbers; NaN and infinities are refused unless a function
  documents them. Integers too large for a float become ``inf`` and are refused.
* an **integer** (a count, a size, an index) is a Python or NumPy integer, or a
  float with an integral value (``3.0``); booleans are refused.
* a **seed** is an integer in ``[0, 2^64)`` (:func:`seed_int`): every seed-taking
  entry point accepts exactly this range.
* a call whose arrays would exceed the memory limit (:func:`memory_limit`; the
  ``THEORYLAB_MAX_MEMORY`` environment variable) is refused before allocating
  (:func:`check_memory`).
"""
from __future__ import annotations

import dataclasses
import functools
import math
import numbers
import sys

import numpy as np


class ParameterError(ValueError):
    """A parameter lies outside its valid range (the message names both)."""


class WorkerError(RuntimeError):
    """A run given to a worker process failed there, or its worker died (killed, out of memory).

    The message is one line naming the run (its variant, seed, points, ...) and the cause;
    the CLI prints it with exit status 2, like bad input: the command could not be carried out.
    """


SEED_BOUND = 2 ** 64
"""Seeds are integers in ``[0, SEED_BOUND)``, i.e. any unsigned 64-bit word."""


def describe(value) -> str:
    """A short one-line description of a rejected value for the error message."""
    if isinstance(value, np.ndarray) and value.ndim:
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = " ".join(repr(value).split())
    return text if len(text) <= 60 else text[:57] + "..."


def _as_float_array(value) -> np.ndarray | str:
    """``value`` as a float64 array, or a string saying why it is not an array of reals."""
    if value is None:
        return "None"
    if isinstance(value, (bool, np.bool_)):
        return f"a boolean {value!r}"
    if isinstance(value, (str, bytes)):
        return f"a string {describe(value)}"
    if isinstance(value, numbers.Integral) and not isinstance(value, np.integer):
        try:                                       # a Python int of any size: inf if beyond float range
            return np.asarray(float(value))
        except OverflowError:
            return np.asarray(np.inf if value > 0 else -np.inf)
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        return f"{describe(value)}, not an array of numbers of one shape"
    kind = arr.dtype.kind
    if kind == "O" and not isinstance(value, np.ndarray):   # a list of Python ints beyond int64
        flat = arr.ravel()
        if flat.size and all(isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
                             for v in flat):
            return np.array([_as_float_array(int(v)) for v in flat], dtype=float).reshape(arr.shape)
    if kind not in "iuf":
        what = {"O": "an object", "b": "a boolean", "c": "a complex", "U": "a string", "S": "a bytes"}.get(kind, "a")
        return (f"{what} value {describe(value)}" if arr.ndim == 0 else
                f"{describe(arr)}" + ("" if isinstance(value, np.ndarray) else f" from {type(value).__name__}"))
    with np.errstate(over="ignore"):
        return arr.astype(float, copy=False)


def real_array(name: str, value, *, low: float | None = None, high: float | None = None,
               low_inclusive: bool = True, high_inclusive: bool = True,
               allow_empty: bool = False, allow_nan: bool = False) -> np.ndarray:
    """Return ``value`` as a float64 array after checking it holds finite reals in range.

    Parameters
    ----------
    name : parameter name used in the error message.
    value : a real number or array-like of real numbers (see the module docstring: booleans,
        complex numbers, strings, ``None`` and object arrays are refused, never converted).
    low, high : optional bounds; ``*_inclusive`` says whether the bound itself is valid.
    allow_empty : whether an empty array is acceptable.
    allow_nan : whether NaN entries are acceptable (they mark missing values; infinities never are).

    Raises
    ------
    ParameterError
        On non-real, non-finite, empty (unless allowed) or out-of-range values.
    """
    arr = _as_float_array(value)
    if isinstance(arr, str):
        raise ParameterError(f"{name} must be a real number{_range(low, high, low_inclusive, high_inclusive)} "
                             f"(got {arr})")
    if arr.size == 0 and not allow_empty:
        raise ParameterError(f"{name} must not be empty")
    bad = ~np.isfinite(arr)
    if allow_nan:
        bad &= ~np.isnan(arr)
    if low is not None:
        bad |= (arr < low) if low_inclusive else (arr <= low)
    if high is not None:
        bad |= (arr > high) if high_inclusive else (arr >= high)
    if np.any(bad):
        first = arr[bad].flat[0] if arr.ndim else arr.item()
        raise ParameterError(f"{name} must be a finite real number{_range(low, high, low_inclusive, high_inclusive)} "
                             f"(got {first:g})")
    return arr


def single(name: str, value: np.ndarray) -> float:
    """The one number of a validated array: refuse arrays (``[3]`` is not the number 3)."""
    if np.ndim(value):
        raise ParameterError(f"{name} must be a single real number (got an array of shape {np.shape(value)})")
    return float(value)


def real_scalar(name: str, value, **bounds) -> float:
    """:func:`real_array` for a single number: a float in range, or :class:`ParameterError`."""
    return single(name, real_array(name, value, **bounds))


def is_exact(value) -> bool:
    """Whether ``value`` is for the exact route: a NumPy object array or a SymPy expression."""
    sympy = sys.modules.get("sympy")
    return (isinstance(value, np.ndarray) and value.dtype == object) or (
        sympy is not None and isinstance(value, sympy.Basic))


def exact_array(name: str, value) -> np.ndarray:
    """Return an object array for the exact route after checking every entry.

    Entries must be finite real numbers (``int``, ``Fraction``, ``mpmath.mpf``, floats; not
    booleans) or SymPy expressions without infinities or NaN; strings, ``None``, complex
    numbers and other objects are refused.
    """
    arr = np.asarray(value, dtype=object)
    sympy = sys.modules.get("sympy")
    for v in arr.flat:
        if isinstance(v, (bool, np.bool_)):
            ok = False
        elif sympy is not None and isinstance(v, sympy.Basic):
            ok = not v.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan)
        elif isinstance(v, numbers.Integral):
            ok = True
        elif isinstance(v, numbers.Real):
            ok = math.isfinite(float(v))
        else:
            ok = False
        if not ok:
            raise ParameterError(f"{name} must hold finite real numbers or SymPy expressions (got {describe(v)})")
    return arr


def real_or_exact(name: str, value, *, allow_empty: bool = False):
    """Input of a function with an exact route: object arrays are checked entrywise
    (:func:`exact_array`), a SymPy expression is checked and returned as is, anything else must
    be finite reals (:func:`real_array`)."""
    if isinstance(value, np.ndarray) and value.dtype == object:
        return exact_array(name, value)
    if is_exact(value):
        exact_array(name, np.array([value], dtype=object))
        return value
    return real_array(name, value, allow_empty=allow_empty)


def positive_int(name: str, value, *, low: int = 1, high: int | None = None) -> int:
    """Return ``value`` as an int in ``[low, high]`` or raise :class:`ParameterError`.

    Accepts Python and NumPy integers and floats with an integral value; refuses booleans,
    strings, complex numbers and everything else.
    """
    where = f">= {low}" if high is None else f"in [{low}, {high}]"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        if not (isinstance(value, (float, np.floating)) and float(value).is_integer()):
            raise ParameterError(f"{name} must be an integer {where} (got {describe(value)})")
    v = int(value)
    if v < low or (high is not None and v > high):
        raise ParameterError(f"{name} must be an integer {where} (got {v if abs(v) < 10 ** 16 else _g(v)})")
    return v


def integer_array(name: str, value, *, low: int = 0, high: int = 2 ** 63 - 1, allow_empty: bool = False) -> np.ndarray:
    """Return ``value`` as an int64 array of integers in ``[low, high]`` (indices, counts, ids).

    Accepts integer arrays and float arrays with integral values; refuses booleans, complex
    numbers, strings, ``None`` and object arrays (as :func:`real_array`).
    """
    where = f"in [{low}, {high}]"
    try:
        arr = np.asarray(value) if not isinstance(value, (bool, np.bool_)) else None
    except (TypeError, ValueError, OverflowError):
        arr = None
    if arr is None or arr.dtype.kind not in "iu":                # floats, or refused with the reason
        arr = _as_float_array(value)
    if isinstance(arr, str):
        raise ParameterError(f"{name} must hold integers {where} (got {arr})")
    if arr.size == 0 and not allow_empty:
        raise ParameterError(f"{name} must not be empty")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if np.any(bad):
            raise ParameterError(f"{name} must hold integers {where} (got {arr[bad].flat[0]:g})")
    if arr.size and (arr.min() < low or arr.max() > high or (arr.dtype.kind == "f" and arr.max() >= 2.0 ** 63)):
        raise ParameterError(f"{name} must hold integers {where} (got {arr.min() if arr.min() < low else arr.max():g})")
    return arr.astype(np.int64)


def seed_int(name: str, value) -> int:
    """Return a seed: an integer in ``[0, 2^64)`` (Python or NumPy integer; not a float or a bool).

    Every entry point that takes a seed validates it here, so the valid range is the same
    everywhere; kernels then receive it as one fixed type (``np.uint64``).
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ParameterError(f"{name} must be an integer in [0, 2^64) (got {describe(value)})")
    v = int(value)
    if not 0 <= v < SEED_BOUND:
        raise ParameterError(f"{name} must be an integer in [0, 2^64) (got {v})")
    return v


def derived_seed(seed: int, offset: int) -> int:
    """``(seed + offset) mod 2^64``: the seed of item ``offset`` of a run started at ``seed``
    (point i of a grid uses ``derived_seed(seed, i)``), so every seed in [0, 2^64) is a valid start."""
    return (seed + offset) % SEED_BOUND


def check_memory(names: str, nbytes: float) -> None:
    """Refuse, before allocating, a call whose arrays need more than the memory limit in force.

    ``names`` are the parameters that set the size (named in the message); ``nbytes`` the
    estimate (a Python number: products of validated ints never overflow). The limit is
    :func:`theorylab.resources.limits`'s: ``THEORYLAB_MAX_MEMORY`` (which the CLI's
    ``--max-memory`` sets for its process), else half the available memory.
    """
    from theorylab import resources

    limit = resources.limits()
    if not nbytes <= limit.memory:
        need = resources.format_bytes(nbytes)
        raise resources.ResourceError(
            f"{names} too large: the call needs {need + ' of' if need[-1] == 'B' else need} memory, over the limit "
            f"{resources.format_bytes(limit.memory)} ({limit.memory_source}; set {resources.MEMORY_ENV} or "
            f"--max-memory to change it)")


def finite_result(names: str, result):
    """Return ``result`` (an array or number) if it is finite, else raise :class:`ParameterError`:
    finite inputs named by ``names`` were so large that the result overflows the float range."""
    if not np.all(np.isfinite(result)):
        raise ParameterError(f"{names} out of range: the result overflows the float range")
    return result


def _overflowed(value) -> bool:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(_overflowed(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, (tuple, list)):
        return any(_overflowed(v) for v in value)
    if isinstance(value, dict):
        return any(_overflowed(v) for v in value.values())
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fc" and not np.all(np.isfinite(value))
    if isinstance(value, (float, np.floating, np.complexfloating)):
        return not np.isfinite(value)
    return False


def finite_output(names: str):
    """Decorator for a public function whose result is finite for every finite input that does not
    overflow: a non-finite numeric result (arrays, numbers, tuples, dicts or dataclasses of them) raises
    :class:`ParameterError` naming ``names``; object arrays (the exact route) pass unchecked.
    """
    def wrap(fn):
        @functools.wraps(fn)
        def checked(*args, **kwargs):
            with np.errstate(over="ignore", invalid="ignore"):
                out = fn(*args, **kwargs)
            if _overflowed(out):
                raise ParameterError(f"{names} out of range: the result of {fn.__name__} overflows the float range")
            return out
        return checked
    return wrap


def choice(name: str, value: str, options) -> str:
    """Return ``value`` if it is one of ``options`` (strings), else raise :class:`ParameterError`."""
    options = tuple(options)
    if not isinstance(value, str) or value not in options:
        raise ParameterError(f"{name} must be one of {', '.join(options)} (got {describe(value)})")
    return value


def _range(low, high, low_inclusive, high_inclusive) -> str:
    parts = []
    if low is not None:
        parts.append(f"{'>=' if low_inclusive else '>'} {_g(low)}")
    if high is not None:
        parts.append(f"{'<=' if high_inclusive else '<'} {_g(high)}")
    return (" " + " and ".join(parts)) if parts else ""


def _g(x) -> str:
    """``x`` in ``%g`` form (integers beyond the float range as they are)."""
    try:
        return f"{x:g}"
    except OverflowError:
        return str(x)

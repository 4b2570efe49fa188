"""Resource estimates and limits: a request is sized before anything is allocated.

Every function that allocates or computes in proportion to its arguments has a cost function
beside it (e.g. :func:`theorylab.psa.montecarlo.simulate_cost` beside ``simulate_mass``) that
returns a :class:`Cost`: the peak working memory in bytes and the estimated run time. The CLI
checks each request's cost against :class:`Limits` with :func:`check` and refuses, in one line,
what exceeds them -- before allocating.

Conventions (docs/cli.md, "Resource limits"):

* ``memory`` counts the arrays and Python objects the request allocates (not the interpreter
  and its imports, about 200 MB). Estimates are upper bounds where the exact peak depends
  on NumPy's temporaries.
* ``seconds`` is estimated from rates measured on a shared 2-core machine (each rate is a
  named constant beside its cost function); a faster machine finishes sooner.
* Default limits: memory, half of the memory available when the command starts (Linux:
  ``MemAvailable`` of /proc/meminfo, or a smaller cgroup limit; elsewhere half of the
  available or, failing that, a quarter of the physical pages; 4 GiB when nothing is
  known); time, :data:`DEFAULT_MAX_SECONDS`. Raised by ``--max-memory`` / ``--max-time`` or
  the environment variables :data:`MEMORY_ENV` / :data:`TIME_ENV`.
"""
from __future__ import annotations

import math
import os
import re
import time
from dataclasses import dataclass

import numpy as np

from theorylab.errors import ParameterError, positive_int

MEMORY_ENV = "THEORYLAB_MAX_MEMORY"
TIME_ENV = "THEORYLAB_MAX_TIME"
DEFAULT_MAX_SECONDS = 600.0
"""Default limit on the estimated run time of one command (10 minutes)."""
FALLBACK_MEMORY = 4 * 2**30
"""Default memory limit where the machine's memory cannot be read."""

_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "p": 2**50}
_DURATION = {"": 1, "s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class Cost:
    """What a request needs: peak working memory (bytes) and estimated run time (seconds).

    Floats, not ints: a hostile request may need more than 2^63 bytes. ``what`` says in a
    few words what the numbers count (shown in the refusal).
    """

    memory: float = 0.0
    seconds: float = 0.0
    what: str = ""

    def then(self, other: "Cost") -> "Cost":
        """``other`` run after this one: peak memory is the larger, seconds add; ``what`` is this
        step's (the request's main size) unless it has none.

        (Whatever the first step keeps alive must be counted in ``other.memory``.)"""
        return Cost(max(self.memory, other.memory), self.seconds + other.seconds, self.what or other.what)

    def times(self, n: float) -> "Cost":
        """``n`` runs one after another (memory is not held across runs)."""
        return Cost(self.memory, self.seconds * n, self.what if n == 1 or not self.what else f"{n:g} x ({self.what})")


@dataclass(frozen=True)
class Limits:
    """Memory (bytes) and time (seconds) limits, each with where it came from."""

    memory: float
    seconds: float
    memory_source: str = "default"
    seconds_source: str = "default"


def format_bytes(n: float) -> str:
    """``1536 -> '1.5 KiB'`` (binary units; ``inf`` for overflowed estimates)."""
    try:
        n = float(n)
    except OverflowError:             # an exact product of validated ints beyond the float range (dk = 1e300)
        return "unbounded"
    if not math.isfinite(n):
        return "unbounded"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if abs(n) < 1024 or unit == "EiB":
            return f"{n:.0f} B" if unit == "B" else f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} EiB"  # pragma: no cover


def format_seconds(s: float) -> str:
    """``90 -> '1.5 min'``; days and years for hostile estimates."""
    try:
        s = float(s)
    except OverflowError:
        return "forever"
    if not math.isfinite(s):
        return "forever"
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if s >= size:
            return f"{s / size:.3g} {unit}"
    return f"{s:.2g} s"


def parse_size(text: str, name: str = "--max-memory") -> float:
    """A memory size: ``16G``, ``512M``, ``1.5GiB``, ``2e9`` (bytes); units are powers of 1024."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKmMgGtTpP]?)(?:i?[bB])?\s*", str(text))
    value = float(m.group(1)) * _UNITS[m.group(2).lower()] if m else math.nan
    if not (math.isfinite(value) and value > 0):
        raise ParameterError(f"{name} must be a positive size such as 512M, 16G or 1.5T (got {text!r})")
    return value


def parse_duration(text: str, name: str = "--max-time") -> float:
    """A duration: ``90``, ``90s``, ``10m``/``10min``, ``2h``, ``1d`` (seconds)."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(s|m|min|h|d|)\s*", str(text))
    value = float(m.group(1)) * _DURATION[m.group(2)] if m else math.nan
    if not (math.isfinite(value) and value > 0):
        raise ParameterError(f"{name} must be a positive duration such as 90s, 10m, 2h or 1d (got {text!r})")
    return value


def _read_int(path: str) -> int | None:
    try:
        with open(path) as fh:
            text = fh.read().strip()
        return int(text)
    except (OSError, ValueError):
        return None


def available_memory() -> float | None:
    """Bytes of memory this process can still use, or None where the OS does not say.

    Linux: ``MemAvailable`` of /proc/meminfo, capped by the cgroup (v2 or v1) limit minus its
    current usage. Elsewhere: ``SC_AVPHYS_PAGES`` pages, or a quarter of ``SC_PHYS_PAGES``."""
    avail = None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    avail = float(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        avail = None
    for limit_path, usage_path in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        limit, usage = _read_int(limit_path), _read_int(usage_path)
        if limit is not None and usage is not None and limit < 2**60:
            room = max(float(limit - usage), 0.0)
            avail = room if avail is None else min(avail, room)
            break
    if avail is not None:
        return avail
    try:
        return float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        pass
    try:
        return float(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")) / 2
    except (AttributeError, ValueError, OSError):
        return None


_READING_SECONDS = 1.0
"""How long :func:`limits` reuses a reading of :func:`available_memory` (checked before every large
allocation, thousands of times in a training run; reading /proc and the cgroup files each time cost
about 0.1 ms a call)."""
_reading: list = [-math.inf, None]         # [time.monotonic() of the reading, its value]


def _recent_available_memory() -> float | None:
    """:func:`available_memory`, read at most :data:`_READING_SECONDS` ago."""
    now = time.monotonic()
    if now - _reading[0] > _READING_SECONDS:
        _reading[:] = [now, available_memory()]
    return _reading[1]


def limits(max_memory: float | str | None = None, max_time: float | str | None = None) -> Limits:
    """The limits in force: the option if given (bytes / seconds, or text for :func:`parse_size` /
    :func:`parse_duration`), else the environment variable, else the default."""
    env_memory, env_time = os.environ.get(MEMORY_ENV), os.environ.get(TIME_ENV)
    if max_memory is not None:
        memory, msrc = parse_size(str(max_memory)), "--max-memory"
    elif env_memory:
        memory, msrc = parse_size(env_memory, MEMORY_ENV), MEMORY_ENV
    else:
        avail = _recent_available_memory()
        memory, msrc = ((avail / 2, "default: half of the available memory") if avail
                        else (FALLBACK_MEMORY, "default"))
    if max_time is not None:
        seconds, tsrc = parse_duration(str(max_time)), "--max-time"
    elif env_time:
        seconds, tsrc = parse_duration(env_time, TIME_ENV), TIME_ENV
    else:
        seconds, tsrc = DEFAULT_MAX_SECONDS, "default"
    return Limits(memory, seconds, msrc, tsrc)


class ResourceError(ParameterError):
    """A request whose estimated memory or run time exceeds the limits (one line, names both)."""


def check(cost: Cost, limit: Limits) -> Cost:
    """Return ``cost`` if it fits ``limit``, else raise :class:`ResourceError` (estimate, limit, how to raise)."""
    what = f" ({cost.what})" if cost.what else ""
    if not cost.memory <= limit.memory:        # NaN counts as too much
        raise ResourceError(f"this request needs {_about(format_bytes(cost.memory))} memory{what}, over the limit "
                            f"of {format_bytes(limit.memory)} ({limit.memory_source}); raise it with "
                            f"--max-memory SIZE or {MEMORY_ENV}=SIZE, or ask for less")
    if not cost.seconds <= limit.seconds:
        raise ResourceError(f"this request would take {_about(format_seconds(cost.seconds))}{what}, over the "
                            f"limit of {format_seconds(limit.seconds)} ({limit.seconds_source}); raise it with "
                            f"--max-time DURATION or {TIME_ENV}=DURATION, or ask for less")
    return cost


def _about(amount: str) -> str:
    return amount if amount in ("unbounded", "forever") else f"about {amount}" + (" of" if amount[-1] == "B" else "")


def bytes_of(*shape: float, itemsize: int = 8) -> float:
    """Bytes of an array of ``shape`` (as a float: never overflows).

    Parameters
    ----------
    *shape : sizes: integers >= 0 (Python or NumPy ints, or integral floats), or ``inf`` for a size
        beyond the float range (what :func:`count` returns for one; it costs ``inf``, which every limit refuses).
    itemsize : bytes per entry, an integer >= 1.

    Raises
    ------
    ParameterError
        For a negative, fractional or NaN size, or one that is not a number (a string, a boolean, None).
    """
    n = float(positive_int("itemsize", itemsize))
    for s in shape:
        n *= _size(s)
    return n


def _size(s) -> float:
    """One dimension of :func:`bytes_of`: an integer >= 0 or ``+inf``, as a float."""
    if isinstance(s, (float, np.floating)) and s == math.inf:
        return math.inf
    return count("shape entries", s)


def as_float(x) -> float:
    """``float(x)``, or ``inf`` for an integer beyond the float range (hostile sizes)."""
    try:
        return float(x)
    except OverflowError:
        return math.inf


def count(name: str, value) -> float:
    """A size argument of a cost estimate, validated: an integer >= 0 (booleans, strings, 1.5 are refused), as a
    float -- ``inf`` beyond the float range (a hostile size costs more than any limit, which refuses it)."""
    return as_float(positive_int(name, value, low=0))

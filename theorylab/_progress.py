"""Progress bars on stderr (tqdm, optional) that an interrupt or an error clears.

A bar left on the terminal when Ctrl-C stops a run would sit above the CLI's one-line
"interrupted" message; :func:`progress` closes the bar without leaving it whenever the block
raises, so that line stands alone. A bar is only drawn on a terminal: when stderr is a file or a
pipe (a log, a CI job) there is none, whatever ``enabled`` says.
"""
from __future__ import annotations

import contextlib
import sys
from typing import Iterator


@contextlib.contextmanager
def progress(total: int, desc: str, unit: str, enabled: bool = True, leave: bool = False,
             delay: float = 0.0) -> Iterator:
    """Yield a tqdm bar of ``total`` steps (None when disabled, when stderr is not a terminal or tqdm is
    missing); closed on exit, and cleared (never left) when the block raises."""
    bar = None
    if enabled and stderr_is_terminal():
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover - tqdm is optional
            pass
        else:
            bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=leave, delay=delay)
    try:
        yield bar
    except BaseException:
        if bar is not None:
            bar.leave = False
        raise
    finally:
        if bar is not None:
            bar.close()


def stderr_is_terminal() -> bool:
    """Whether standard error is a terminal (False for a file, a pipe, or a closed or detached stream)."""
    isatty = getattr(sys.stderr, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):
        return False

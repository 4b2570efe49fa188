"""File output: check an output path up front, then write atomically (complete or absent).

Conventions: output folders are never created here (a typo in a path is an error, not
a new folder; callers that own a results folder create it themselves), and a result
file gets the permissions of an ordinary new file (``0o666 & ~umask``), not the 0600
of the temporary file it was written to.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Iterator

from theorylab.errors import ParameterError


def check_output_path(name: str, path: str, suffix: str | tuple[str, ...] | None) -> str:
    """Validate an output path before any computation; return it unchanged.

    Parameters
    ----------
    name : the option or parameter named in the error message (e.g. ``"--plot"``).
    path : where the file will be written.
    suffix : the required file suffix (e.g. ``".png"``), a tuple of accepted suffixes
        (compared case-insensitively), or None for any name (e.g. a SQLite store).

    Raises
    ------
    ParameterError
        When the path is empty or an existing directory, its suffix is not one of
        ``suffix``, its folder does not exist, or no file can be created in the folder
        (checked by creating and removing a probe file there).
    """
    suffixes = ("",) if suffix is None else (suffix,) if isinstance(suffix, str) else tuple(suffix)
    want = "file" if suffix is None else " or ".join(suffixes) + " file"
    if not path:
        raise ParameterError(f"{name} must name a {want} (got an empty path)")
    if os.path.isdir(path):
        raise ParameterError(f"{name} must name a {want}, not a directory (got {path!r})")
    if not path.lower().endswith(tuple(s.lower() for s in suffixes)):
        raise ParameterError(f"{name} must name a {want} (got {path!r})")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ParameterError(f"{name} must be in an existing folder (no folder {folder!r}; got {path!r})")
    try:  # a real probe: os.access answers "yes" for root even on /proc
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".theorylab-probe-")
        os.close(fd)
        os.remove(probe)
    except OSError as exc:
        raise ParameterError(f"{name} must be in a writable folder (cannot write in {folder!r}: "
                             f"{exc.strerror or exc}; got {path!r})") from None
    return path


def _umask() -> int:
    """The process umask, read without changing it where the OS allows (Linux)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str, suffix: str = ".tmp") -> Iterator[str]:
    """Yield a temporary path beside ``path``; on success give it mode ``0o666 & ~umask`` and
    rename it to ``path``, else remove it.  The folder of ``path`` must already exist."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".theorylab-", suffix=suffix)
    except OSError as exc:  # name the file asked for, not the temporary
        raise type(exc)(exc.errno, exc.strerror, path) from None
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_text_atomic(path: str, text: str) -> str:
    """Write ``text`` to ``path`` atomically (temporary file + rename); return ``path``."""
    with atomic_path(path) as tmp:
        with open(tmp, "w") as fh:
            fh.write(text)
    return path

"""File input and output at the edges of the library.

Output: check an output path up front, then write atomically (complete or absent).
Conventions: output folders are never created here (a typo in a path is an error, not
a new folder; callers that own a results folder create it themselves), and a result
file gets the permissions of an ordinary new file (``0o666 & ~umask``), not the 0600
of the temporary file it was written to. An interrupted write (Ctrl-C) leaves neither the
file nor its temporary.

Input: every file the library or the CLI reads from a user-given path goes through
:func:`read_bytes` (and :func:`read_text` for text), which reads it or says in one line, naming
the option, why it cannot: empty path, missing, a directory or another non-regular file (a pipe
is never waited on), unreadable, too large, binary, not UTF-8; :func:`parse_json` then parses.
"""
from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from typing import Iterator

from theorylab.errors import ParameterError
from theorylab.resources import Cost


def read_bytes(name: str, path: str, max_bytes: int | None = None) -> bytes:
    """The bytes of the regular file ``path``, checked before any byte is read.

    Parameters
    ----------
    name : the option or parameter named in the error message (e.g. ``"--grid"``).
    path : the file to read.
    max_bytes : the largest size accepted (None: any); a larger file is refused from its size,
        unread.

    Raises
    ------
    ParameterError
        Naming ``name``: empty path, no such file, a directory, a pipe/device/socket (never
        waited on: the file is opened non-blocking and its type checked before reading),
        unreadable, or larger than ``max_bytes``.
    """
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str) or not path:
        got = "an empty path" if isinstance(path, str) else f"a {type(path).__name__}"
        raise ParameterError(f"{name} must name a file (got {got})")
    try:    # O_NONBLOCK: opening a FIFO returns at once (and is refused below) instead of waiting
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        if os.path.isdir(path):
            raise ParameterError(f"{name} must name a file, not a directory (got {path!r})") from None
        raise ParameterError(f"{name}: cannot read {path!r} ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise ParameterError(f"{name} must name a file, not a directory (got {path!r})")
        if not stat.S_ISREG(st.st_mode):
            raise ParameterError(f"{name} must name a regular file, not a pipe, device or socket (got {path!r})")
        if max_bytes is not None and st.st_size > max_bytes:
            raise ParameterError(f"{name}: {path!r} is larger than {max_bytes} bytes ({st.st_size} bytes)")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read() if max_bytes is None else fh.read(max_bytes + 1)
    except OSError as exc:
        raise ParameterError(f"{name}: cannot read {path!r} ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if max_bytes is not None and len(data) > max_bytes:      # grew while being read
        raise ParameterError(f"{name}: {path!r} is larger than {max_bytes} bytes")
    return data


def decode_text(name: str, path: str, data: bytes) -> str:
    """``data`` (the bytes of the file ``path``) as UTF-8 text, a leading byte-order mark dropped.

    Raises
    ------
    ParameterError
        Naming ``name`` and ``path``: binary (NUL bytes) or not UTF-8 text.
    """
    if b"\x00" in data:
        raise ParameterError(f"{name}: {path!r} is a binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParameterError(f"{name}: {path!r} is not UTF-8 text (byte {exc.start}: "
                             f"{data[exc.start:exc.start + 1]!r})") from None


def read_text(name: str, path: str, max_bytes: int | None = None) -> str:
    """The UTF-8 text of the regular file ``path`` (a leading byte-order mark is dropped):
    :func:`read_bytes` then :func:`decode_text`.

    Raises
    ------
    ParameterError
        Naming ``name`` (the option, e.g. ``"--grid"``): empty path, no such file, a directory,
        a pipe/device/socket, unreadable, larger than ``max_bytes``, binary (NUL bytes), or not
        UTF-8 text.
    """
    return decode_text(name, path, read_bytes(name, path, max_bytes))


def parse_json(text: str, where: str) -> object:
    """The JSON value of ``text``, or one :class:`ParameterError` line: ``WHERE is not valid JSON (why)``
    (also for text that is not a string, and nesting too deep for the parser)."""
    if not isinstance(text, str):
        raise ParameterError(f"{where} must be JSON text (got {type(text).__name__})")
    try:
        return json.loads(text)
    except RecursionError:
        raise ParameterError(f"{where} is not valid JSON (nested too deeply)") from None
    except ValueError as exc:
        msg = str(getattr(exc, "msg", exc))
        if isinstance(exc, json.JSONDecodeError):     # "Expecting value at ...", "... starting at line 1, column 8"
            msg += f"{'' if msg.endswith(' at') else ' at'} line {exc.lineno}, column {exc.colno}"
        raise ParameterError(f"{where} is not valid JSON ({msg})") from None


def input_cost(path: str, bytes_per_byte: float, seconds_per_byte: float = 2e-7) -> Cost:
    """Memory and time of parsing the file ``path`` into Python objects, ``bytes_per_byte`` times
    its size (zero when ``path`` is not a regular file: :func:`read_text` then refuses it)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return Cost()
    if not stat.S_ISREG(st.st_mode):
        return Cost()
    return Cost(st.st_size * bytes_per_byte, st.st_size * seconds_per_byte, f"a {st.st_size}-byte input file")


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
    probe = None
    try:  # a real probe: os.access answers "yes" for root even on /proc
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".theorylab-probe-")
        os.close(fd)
    except OSError as exc:
        raise ParameterError(f"{name} must be in a writable folder (cannot write in {folder!r}: "
                             f"{exc.strerror or exc}; got {path!r})") from None
    finally:
        if probe is not None:
            os.remove(probe)
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
    tmp = None
    try:
        try:
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".theorylab-", suffix=suffix)
        except OSError as exc:  # name the file asked for, not the temporary
            raise type(exc)(exc.errno, exc.strerror, path) from None
        os.close(fd)
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    finally:          # also on KeyboardInterrupt: no temporary is left behind
        if tmp is not None and os.path.exists(tmp):
            os.remove(tmp)


def write_text_atomic(path: str, text: str) -> str:
    """Write ``text`` to ``path`` atomically (temporary file + rename); return ``path``."""
    with atomic_path(path) as tmp:
        with open(tmp, "w") as fh:
            fh.write(text)
    return path

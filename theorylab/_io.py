"""Atomic file output: a result file is either complete or absent, never half-written."""
from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Iterator


@contextlib.contextmanager
def atomic_path(path: str, suffix: str = ".tmp") -> Iterator[str]:
    """Yield a temporary path beside ``path``; on success rename it to ``path``, else remove it."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".theorylab-", suffix=suffix)
    os.close(fd)
    try:
        yield tmp
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

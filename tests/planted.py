"""Plant a bug in a copy of the library source and run certificates on it.

The proof that a certificate works is a bug planted in the *library source* (not a
wrong function passed in as an argument) that makes it FAIL. :func:`certify_with_bug`
copies ``theorylab/`` and ``certificates/`` to a temporary folder, replaces one exact
occurrence of ``old`` by ``new`` in one file of the copy, and runs
``theorylab certify --only ...`` there in a fresh interpreter (its own Numba cache),
so nothing of the checkout or of the running test process is touched.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("theorylab", "certificates")


@dataclass(frozen=True)
class PlantedRun:
    """What ``theorylab certify`` printed on the mutated copy, and its exit status."""

    returncode: int
    output: str

    def status(self, cid: str) -> str | None:
        """The status printed for certificate ``cid`` (None if it did not run)."""
        for line in self.output.splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[1] == cid and parts[0] in ("PASS", "FAIL", "ERROR", "SKIP"):
                return parts[0]
        return None


def plant(dest: Path, path: str, old: str, new: str, also=()) -> None:
    """Copy the packages into ``dest`` and replace the single occurrence of ``old`` in ``path``.

    ``also``: further ``(path, old, new)`` replacements making up the same bug (e.g. one formula
    changed the same way in two modules), each of them also required to occur exactly once.
    """
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, dest / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    for path_, old_, new_ in ((path, old, new), *also):
        target = dest / path_
        source = target.read_text()
        count = source.count(old_)
        if count != 1:
            raise AssertionError(f"{path_}: the text to replace occurs {count} times (need exactly 1): {old_!r}")
        target.write_text(source.replace(old_, new_))


def certify_with_bug(path: str, old: str, new: str, only, *, also=(), timeout: float = 600) -> PlantedRun:
    """Run ``theorylab certify --only ONLY`` on a copy of the library with one planted bug (see :func:`plant`)."""
    only = [only] if isinstance(only, str) else list(only)
    with tempfile.TemporaryDirectory(prefix="theorylab-planted-") as tmp:
        dest = Path(tmp)
        plant(dest, path, old, new, also)
        env = {**os.environ, "PYTHONPATH": str(dest), "NUMBA_CACHE_DIR": str(dest / ".numba-cache"),
               "PYTHONDONTWRITEBYTECODE": "1"}
        code = ("import sys, theorylab; "
                f"assert theorylab.__file__.startswith({str(dest)!r}), theorylab.__file__; "
                "from theorylab.cli import main; sys.exit(main(sys.argv[1:]))")
        proc = subprocess.run([sys.executable, "-c", code, "certify", "--only", *only], cwd=dest, env=env,
                              capture_output=True, text=True, timeout=timeout)
        return PlantedRun(proc.returncode, proc.stdout + proc.stderr)

"""Run the certificates on a copy of the library, optionally with one bug planted in its source.

The proof that a certificate works is a bug planted in the *library source* (not a wrong
function passed in as an argument) that makes it FAIL. :func:`copy_library` copies
``theorylab/`` and ``certificates/`` to a folder; :func:`run_certify` runs
``theorylab certify ARGS`` there in a fresh interpreter whose ``theorylab`` is the copy (it
asserts so) and whose Numba cache is its own, so nothing of the checkout or of the calling
process is touched. :func:`certify_with_bug` does both with one exact text replacement
(``tests/planted.py``); ``theorylab mutate`` plants generated mutants the same way.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

PACKAGES = ("theorylab", "certificates")
IGNORE = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc")


def library_root() -> Path:
    """The folder holding the ``theorylab`` and ``certificates`` packages in use."""
    import theorylab

    return Path(theorylab.__file__).resolve().parents[1]


@dataclass(frozen=True)
class PlantedRun:
    """What ``theorylab certify`` printed on the copy, and its exit status (None: timed out)."""

    returncode: int | None
    output: str

    def status(self, cid: str) -> str | None:
        """The status printed for certificate ``cid`` (None if it did not run)."""
        for line in self.output.splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[1] == cid and parts[0] in ("PASS", "FAIL", "ERROR", "SKIP"):
                return parts[0]
        return None

    @property
    def failed(self) -> list[str]:
        """Ids printed FAIL or ERROR, in order."""
        from theorylab.certify.record import METHODS

        return [p[1] for p in (ln.split() for ln in self.output.splitlines())
                if len(p) >= 3 and p[0] in ("FAIL", "ERROR") and p[2] in METHODS]


def copy_library(dest: Path, root: Path | None = None) -> None:
    """Copy ``theorylab/`` and ``certificates/`` of ``root`` (default: the library in use) into ``dest``.

    File times are kept (``copy2``), so byte-code and Numba caches of the copy stay valid
    for every file that is not changed afterwards.
    """
    root = library_root() if root is None else Path(root)
    for pkg in PACKAGES:
        shutil.copytree(root / pkg, Path(dest) / pkg, ignore=IGNORE)


def replace_once(target: Path, old: str, new: str, label: str = "") -> None:
    """Replace the single occurrence of ``old`` in file ``target`` by ``new``."""
    source = target.read_text()
    count = source.count(old)
    if count != 1:
        raise AssertionError(f"{label or target}: the text to replace occurs {count} times (need exactly 1): {old!r}")
    target.write_text(source.replace(old, new))


def plant(dest: Path, path: str, old: str, new: str) -> None:
    """Copy the packages into ``dest`` and replace the single occurrence of ``old`` in ``path``."""
    copy_library(dest)
    replace_once(Path(dest) / path, old, new, path)


def child_environment(dest: Path, numba_cache: Path, *, threads: int | None = None,
                      bytecode: bool = False) -> dict:
    """Environment of an interpreter that runs the copy in ``dest``."""
    env = {**os.environ, "PYTHONPATH": str(dest), "NUMBA_CACHE_DIR": str(numba_cache)}
    if not bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    if threads is not None:
        env.update({k: str(threads) for k in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                              "MKL_NUM_THREADS")})
    return env


def runner_code(dest: Path, entry: str = "from theorylab.cli import main; sys.exit(main(sys.argv[1:]))") -> str:
    """Python source that checks the imported ``theorylab`` is the copy in ``dest``, then runs ``entry``."""
    return ("import sys, theorylab; "
            f"assert theorylab.__file__.startswith({str(dest)!r}), theorylab.__file__; " + entry)


def run_certify(dest: Path, args: list[str], *, numba_cache: Path | None = None, timeout: float = 600,
                threads: int | None = None, bytecode: bool = False) -> PlantedRun:
    """Run ``theorylab certify ARGS`` on the copy in ``dest`` in a fresh interpreter.

    ``numba_cache`` defaults to ``dest/.numba-cache``; ``threads`` pins the Numba/BLAS thread
    count; ``bytecode`` lets the interpreter write ``__pycache__`` into the copy. A run that
    exceeds ``timeout`` seconds is killed and reported with ``returncode`` None.
    """
    dest = Path(dest)
    env = child_environment(dest, numba_cache or dest / ".numba-cache", threads=threads, bytecode=bytecode)
    try:
        proc = subprocess.run([sys.executable, "-c", runner_code(dest), "certify", *args], cwd=dest, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return PlantedRun(None, out + "\n[timed out]")
    return PlantedRun(proc.returncode, proc.stdout + proc.stderr)


def certify_with_bug(path: str, old: str, new: str, only, *, timeout: float = 600) -> PlantedRun:
    """Run ``theorylab certify --only ONLY`` on a copy of the library with one planted bug."""
    only = [only] if isinstance(only, str) else list(only)
    with tempfile.TemporaryDirectory(prefix="theorylab-planted-") as tmp:
        dest = Path(tmp)
        plant(dest, path, old, new)
        return run_certify(dest, ["--only", *only], timeout=timeout)

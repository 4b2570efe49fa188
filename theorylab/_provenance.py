"""Which theorylab ran: the git commit of theorylab's own source checkout, never a user's repository.

A commit is recorded only when the folder holding the imported ``theorylab`` package is
theorylab's source tree -- it holds a ``pyproject.toml`` whose project is named ``theorylab``
-- and that folder is the top level of a git work tree. A theorylab installed into (or copied
into) another project's repository is not that project's commit: there the installed version
is the record (setuptools-scm puts the commit of the checkout it was built from into it).
"""
from __future__ import annotations

import subprocess
from pathlib import Path

SOURCE_PATHS = ("theorylab", "certificates", "pyproject.toml")
"""What ``certify`` and the sweeps run: a change here (tracked or untracked) makes the tree dirty."""


def library_root() -> Path:
    """The folder holding the imported ``theorylab`` package (a checkout, or site-packages)."""
    return Path(__file__).resolve().parents[1]


def is_source_tree(root: Path) -> bool:
    """True when ``root`` holds a ``pyproject.toml`` of the project ``theorylab`` and its package."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return project.get("name") == "theorylab" and (root / "theorylab" / "__init__.py").is_file()


def checkout_state(root=None) -> dict:
    """The git commit of theorylab's source checkout at ``root`` and whether it is dirty.

    Parameters
    ----------
    root : path-like, optional
        The source tree to describe; default :func:`library_root`, the tree of the imported package.

    Returns
    -------
    dict
        ``{"commit": <40 hex digits>, "dirty": bool}`` when ``root`` is theorylab's source tree
        (:func:`is_source_tree`) and the top level of its git work tree; ``dirty`` is True when
        :data:`SOURCE_PATHS` differ from the commit (tracked changes or untracked files).
        Otherwise -- not theorylab's tree, a tree inside another repository, no git -- both are
        None, never an error.
    """
    root = Path(root) if root is not None else library_root()
    unknown = {"commit": None, "dirty": None}
    if not is_source_tree(root):
        return unknown
    try:
        def git(*args):
            return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=20,
                                  check=True).stdout.strip()

        if Path(git("rev-parse", "--show-toplevel")).resolve() != root.resolve():
            return unknown      # theorylab's tree lies inside another repository: not its commit
        commit = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--", *SOURCE_PATHS))
    except (OSError, subprocess.SubprocessError):
        return unknown
    return {"commit": commit, "dirty": dirty}

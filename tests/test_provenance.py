"""Provenance: theorylab's commit is recorded only from theorylab's own source checkout.

A theorylab copied (or installed) into another project's git repository must not record that
repository's commit: there the installed version (setuptools-scm's, carrying the commit it was
built from) is the record -- in certify's report (``environment.git``) and in a sweep store's
``code_version``.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from theorylab._provenance import checkout_state, is_source_tree

ROOT = Path(__file__).resolve().parents[1]
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")

if shutil.which("git") is None:
    pytest.skip("git is not installed", allow_module_level=True)


def _git(repo: Path, *args) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                          capture_output=True, text=True, check=True).stdout.strip()


def _repo(path: Path, project: str | None) -> Path:
    """A fresh git repository holding a copy of the theorylab package, with a pyproject.toml of
    ``project`` (none if None), committed."""
    path.mkdir(parents=True)
    shutil.copytree(ROOT / "theorylab", path / "theorylab", ignore=IGNORE)
    if project is not None:
        (path / "pyproject.toml").write_text(f'[project]\nname = "{project}"\nversion = "1.0"\n')
    _git(path, "init", "-q")
    _git(path, "add", ".")
    _git(path, "commit", "-q", "-m", "initial")
    return path


def _recorded_from(root: Path) -> dict:
    """certify's git state and the sweep's code_version in an interpreter importing theorylab from ``root``."""
    code = ("import json; import theorylab; from theorylab.certify.runner import git_state; "
            "from theorylab.sweep.tasks import code_version; "
            "print(json.dumps({'file': theorylab.__file__, 'version': theorylab.__version__, 'git': git_state(), "
            "'code_version': code_version()}))")
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, "-c", code], cwd=root.parent, env=env, capture_output=True, text=True,
                         check=True, timeout=120).stdout
    recorded = json.loads(out.splitlines()[-1])
    assert Path(recorded["file"]).resolve() == (root / "theorylab" / "__init__.py").resolve()  # the copy ran
    return recorded


def test_this_checkout_records_its_commit():
    assert is_source_tree(ROOT)
    state = checkout_state(ROOT)
    assert state["commit"] == _git(ROOT, "rev-parse", "HEAD") and isinstance(state["dirty"], bool)


@pytest.mark.parametrize("project", ["other-project", None])
def test_theorylab_inside_another_repository_records_no_commit(tmp_path, project):
    repo = _repo(tmp_path / "other", project)
    assert not is_source_tree(repo)
    assert checkout_state(repo) == {"commit": None, "dirty": None}
    recorded = _recorded_from(repo)
    assert recorded["git"] == {"commit": None, "dirty": None}
    assert recorded["code_version"] == recorded["version"]      # the installed version, not the repo's commit
    assert _git(repo, "rev-parse", "--short=12", "HEAD") not in recorded["code_version"]


def test_a_theorylab_source_tree_inside_another_repository_records_no_commit(tmp_path):
    outer = _repo(tmp_path / "outer", "other-project")
    inner = outer / "vendor"
    inner.mkdir()
    shutil.copytree(ROOT / "theorylab", inner / "theorylab", ignore=IGNORE)
    shutil.copy(ROOT / "pyproject.toml", inner / "pyproject.toml")
    _git(outer, "add", ".")
    _git(outer, "commit", "-q", "-m", "vendor theorylab")
    assert is_source_tree(inner)
    assert checkout_state(inner) == {"commit": None, "dirty": None}


def test_a_theorylab_source_checkout_records_its_commit_and_dirt(tmp_path):
    repo = _repo(tmp_path / "theorylab-checkout", "theorylab")
    head = _git(repo, "rev-parse", "HEAD")
    assert checkout_state(repo) == {"commit": head, "dirty": False}
    recorded = _recorded_from(repo)
    assert recorded["git"] == {"commit": head, "dirty": False}
    assert recorded["code_version"] == f"{recorded['version'].split('+')[0]}+g{head[:12]}"
    (repo / "theorylab" / "new_module.py").write_text("x = 1\n")          # untracked: changes what runs
    assert checkout_state(repo) == {"commit": head, "dirty": True}
    assert _recorded_from(repo)["code_version"].endswith(f"+g{head[:12]}.dirty")
    (repo / "theorylab" / "new_module.py").unlink()
    (repo / "notes.txt").write_text("outside the sources\n")
    assert checkout_state(repo)["dirty"] is False


def test_an_unreadable_pyproject_is_not_theorylabs(tmp_path):
    (tmp_path / "theorylab").mkdir()
    (tmp_path / "theorylab" / "__init__.py").write_text("")
    (tmp_path / "pyproject.toml").write_bytes(b"[project\nname = \xff")
    assert not is_source_tree(tmp_path)

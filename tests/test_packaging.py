"""The distribution: one top-level package, the certificates inside theorylab's namespace, the
licence and the type-hint marker; the version comes from git (setuptools-scm), never typed by hand."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest

import theorylab

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _config() -> dict:
    return _pyproject()["tool"]["setuptools"]


def _git(*args) -> str | None:
    """Output of a git command in the source tree; None outside a checkout."""
    try:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """The wheel of this checkout as it stands (uncommitted edits included), built from a copy: a build
    in the checkout would rewrite its ``theorylab.egg-info``, which importlib.metadata may then read
    instead of the installed distribution's metadata (another test compares the two)."""
    out, src = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("source") / "theorylab"
    shutil.copytree(ROOT, src, symlinks=True, ignore=shutil.ignore_patterns(
        ".venv*", ".ci-venv*", "__pycache__", "*.egg-info", "build", "dist", "_build", ".pytest_cache"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(src)],
                   check=True, capture_output=True)
    (path,) = out.glob("theorylab-*.whl")
    return zipfile.ZipFile(path)


def test_the_package_list_names_every_package_folder():
    """pyproject.toml lists the packages by hand (a find cannot remap certificates/): none may be missing."""
    config = _config()
    mapped = {v: k for k, v in config["package-dir"].items()}
    found = set()
    for init in list(ROOT.glob("theorylab/**/__init__.py")) + list(ROOT.glob("certificates/**/__init__.py")):
        rel = init.parent.relative_to(ROOT).as_posix()
        top = rel.split("/")[0]
        name = mapped[top] + rel[len(top):].replace("/", ".") if top in mapped else rel.replace("/", ".")
        found.add(name)
    assert set(config["packages"]) == found


def test_the_wheel_holds_one_top_level_package(wheel):
    names = wheel.namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"theorylab"}
    assert "theorylab/certificates/reference/score_model.py" in names
    assert not any(n.startswith("certificates/") for n in names)


def _wheel_metadata(wheel):
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    return Parser().parsestr(wheel.read(name).decode())


def test_the_wheel_holds_the_licence_and_the_type_hint_marker(wheel):
    names = wheel.namelist()
    assert "theorylab/py.typed" in names
    (licence,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert wheel.read(licence).decode().startswith("MIT License")
    meta = _wheel_metadata(wheel)
    assert meta["License-Expression"] == "MIT" and meta.get_all("License-File") == ["LICENSE"]


def test_the_version_is_nowhere_typed_by_hand():
    project = _pyproject()["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    assert any(r.startswith("setuptools-scm") for r in _pyproject()["build-system"]["requires"])
    assert not re.search(r"__version__\s*=\s*['\"]", (ROOT / "theorylab" / "__init__.py").read_text())


def test_the_wheel_version_comes_from_git(wheel):
    """Built from a commit without a tag, the version names that commit (setuptools-scm's +g<hash>);
    from a tagged commit it is the tag."""
    head = _git("rev-parse", "HEAD")
    if head is None:
        pytest.skip("not a git checkout: the build needs SETUPTOOLS_SCM_PRETEND_VERSION")
    version = _wheel_metadata(wheel)["Version"]
    tag = _git("describe", "--tags", "--exact-match", "HEAD")
    if tag is not None and not _git("status", "--porcelain", "--untracked-files=no"):
        assert version == tag.removeprefix("v")
    else:
        local = re.search(r"\+g([0-9a-f]{7,})", version)
        assert local and head.startswith(local.group(1)), version


def test_version_reads_the_installed_metadata(capsys):
    from theorylab.cli import main

    assert theorylab.__version__ == metadata.version("theorylab")
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"theorylab {metadata.version('theorylab')}"


def test_a_source_tree_without_metadata_has_the_unknown_version(monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    assert theorylab._installed_version() == "0+unknown"


def test_the_citation_names_the_release_and_the_licence():
    """CITATION.cff cites the latest release tag ("unreleased" before the first) under the
    pyproject's licence (its schema validity is checked by ``cffconvert --validate``)."""
    text = (ROOT / "CITATION.cff").read_text()
    fields = dict(re.findall(r'^([a-z-]+): "?([^"\n]*)"?$', text, flags=re.MULTILINE))
    assert fields["cff-version"] == "1.2.0" and fields["license"] == _pyproject()["project"]["license"]
    if _git("rev-parse", "HEAD") is None:
        pytest.skip("not a git checkout")
    tag = _git("describe", "--tags", "--abbrev=0")
    assert fields["version"] == (tag.removeprefix("v") if tag else "unreleased")
    assert text.count("arXiv:") == 3      # the three papers theorylab implements

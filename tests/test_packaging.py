"""The distribution: one top-level package, the certificates inside theorylab's namespace."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


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


def test_the_wheel_holds_one_top_level_package(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True)
    (wheel,) = tmp_path.glob("theorylab-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"theorylab"}
    assert "theorylab/certificates/reference/score_model.py" in names
    assert not any(n.startswith("certificates/") for n in names)

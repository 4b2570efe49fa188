"""The API reference of the documentation site (docs/apiref.py, run by docs/conf.py at each build) lists
every public name: each name of the __all__ of theorylab.psa, graded, plga, nn and theorylab.certify has
exactly one autodoc entry, under the package's public path, so a new public name cannot be left out.
The generator needs only the standard library: this runs without the docs extra."""
from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAPER_PACKAGES = ("theorylab.psa", "theorylab.graded", "theorylab.plga", "theorylab.nn", "theorylab.certify")
ENTRY = re.compile(r"^\.\. (autofunction|autoclass|autodata):: (\S+)$")
CURRENT = re.compile(r"^\.\. currentmodule:: (\S+)$")


def _apiref():
    spec = importlib.util.spec_from_file_location("apiref", ROOT / "docs" / "apiref.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


APIREF = _apiref()


def _entries(text: str) -> list[tuple[str, str, str]]:
    """(current module, directive, name) of every autodoc entry of a generated page."""
    current, out = None, []
    for line in text.splitlines():
        if m := CURRENT.match(line):
            current = m.group(1)
        elif m := ENTRY.match(line):
            out.append((current, m.group(1), m.group(2)))
    return out


def test_every_paper_package_has_a_page():
    assert set(APIREF.PACKAGES) == set(PAPER_PACKAGES)
    toctree = APIREF.index().split(".. toctree::")[1].split()
    assert [p.split(".")[-1] for p in PAPER_PACKAGES if p.split(".")[-1] not in toctree] == []
    assert "reference/index" in (ROOT / "docs" / "index.md").read_text()


@pytest.mark.parametrize("package", PAPER_PACKAGES)
def test_every_public_name_has_one_entry(package):
    names = importlib.import_module(package).__all__
    entries = _entries(APIREF.page(package))
    listed = [name for _, _, name in entries]
    assert sorted(set(names) - set(listed)) == [], f"{package}: names of __all__ missing from the reference"
    assert sorted(set(listed) - set(names)) == [], f"{package}: entries that are not in __all__"
    assert len(listed) == len(set(listed)), f"{package}: a name listed twice"
    assert {current for current, _, _ in entries} == {package}, "entries are documented under the public path"


def test_entry_kinds_follow_the_objects():
    entries = {name: kind for _, kind, name in _entries(APIREF.page("theorylab.psa"))}
    assert entries["gamma_c"] == "autofunction"
    assert entries["ScoreModel"] == "autoclass"
    assert entries["PAPER_GRID"] == "autodata"


def test_constant_entries_carry_their_attribute_docstring():
    # transition.py documents CONDENSATION_OBSERVABLE by the string literal after its assignment
    from theorylab.psa import transition

    doc = APIREF._top_level_assignments(transition.__name__)["CONDENSATION_OBSERVABLE"]
    assert doc, "the observable of the condensation constant has an attribute docstring in transition.py"
    text = APIREF.page("theorylab.psa")
    block = text.split(".. autodata:: CONDENSATION_OBSERVABLE\n", 1)[1].split("\n.. ", 1)[0]
    assert doc[0] in block


def test_a_name_added_to_all_is_listed(monkeypatch):
    import theorylab.certify as certify
    from theorylab.certify import record

    monkeypatch.setattr(certify, "__all__", [*certify.__all__, "Evidence_alias"], raising=True)
    monkeypatch.setattr(certify, "Evidence_alias", record.Evidence, raising=False)
    listed = [name for _, _, name in _entries(APIREF.page("theorylab.certify"))]
    assert "Evidence_alias" in listed

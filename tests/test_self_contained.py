"""A clone is self-contained: no tracked file names a path outside the repository.

Team notes, machine paths and sibling folders are not in a user's clone, so docs,
docstrings and scripts may not point to them; every relative link of the docs must
land on a file of the repository.
"""
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = re.compile(r"shared/(spec|papers|hooks)|(?<![\w.])/(work|home|root|mnt|Users)/|(?<![\w/])\.\./(shared|spec|papers)\b")
"""Names of places a clone lacks: the team's notes and home or workspace folders of one machine."""
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = [ROOT / name for name in out.splitlines()]
    return [f for f in files if f.is_file() and f.suffix not in {".png", ".db"} and b"\0" not in f.read_bytes()[:4096]]


def test_no_tracked_file_names_a_path_outside_the_repository():
    offenders = [f"{f.relative_to(ROOT)}:{n}: {line.strip()[:100]}"
                 for f in tracked_text_files() if f.name != Path(__file__).name
                 for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1) if OUTSIDE.search(line)]
    assert not offenders, "paths outside the repository:\n" + "\n".join(offenders)


def test_every_relative_link_of_the_docs_lands_inside_the_repository():
    broken = []
    for page in [f for f in tracked_text_files() if f.suffix == ".md"]:
        for target in LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target):                 # http:, https:, mailto:
                continue
            resolved = (page.parent / target).resolve()
            if not resolved.is_relative_to(ROOT) or not resolved.exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, "links leaving the repository or to missing files:\n" + "\n".join(broken)


@pytest.mark.parametrize("line, outside", [
    ("see shared/spec/claims.md", True), ("paper in ../papers/psa.md", True), ("cd /work/main", True),
    ("![a](../results/a.png)", False), ("theorylab certify --out /tmp/r.json", False),
    ("#!/usr/bin/env bash", False), ("the sheared/spec table", False),
])
def test_the_pattern_tells_outside_paths(line, outside):
    assert bool(OUTSIDE.search(line)) is outside

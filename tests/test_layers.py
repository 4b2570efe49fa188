"""The layering rules of pyproject.toml's import-linter contracts hold (data flows one way; papers
apart; shared modules import no paper; the mutation harness stands apart)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_are_kept():
    code = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True, no_logo=True))"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_a_broken_layer_is_caught(tmp_path):
    """The contracts can fail: a copy of the package in which the closed forms import the Monte Carlo."""
    import shutil

    shutil.copytree(ROOT / "theorylab", tmp_path / "theorylab",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "theorylab" / "psa" / "transition.py"
    target.write_text(target.read_text() + "\nfrom theorylab.psa import montecarlo  # noqa: E402,F401\n")
    code = ("import sys; sys.path.insert(0, '.'); from importlinter.cli import lint_imports; "
            "sys.exit(lint_imports(no_cache=True, no_logo=True))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "theorylab.psa.transition -> theorylab.psa.montecarlo" in proc.stdout, proc.stdout

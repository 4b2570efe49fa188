"""The reference routes of the certificates share no code with the library.

Every module of ``certificates/reference`` may import only the standard library, NumPy, SciPy,
SymPy, mpmath, ``fractions`` and its own package; of ``theorylab`` only ``theorylab.errors``.
"""
import ast
import sys
from pathlib import Path

import pytest

REFERENCE = Path(__file__).resolve().parents[1] / "certificates" / "reference"
ALLOWED = {"numpy", "scipy", "sympy", "mpmath", "fractions", "theorylab.certificates.reference", "theorylab.errors"}
STDLIB = set(sys.stdlib_module_names) - {"importlib", "runpy", "pkgutil"}     # no back doors to other code


def foreign_imports(source: str) -> list[str]:
    """Imported modules of ``source`` outside the allowed set (relative imports count as the package)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append("theorylab.certificates.reference" if node.level else node.module)
    return [m for m in found
            if m.split(".")[0] not in STDLIB
            and not any(m == a or m.startswith(a + ".") for a in ALLOWED)]


MODULES = sorted(REFERENCE.glob("*.py"))


def test_the_reference_package_has_modules():
    assert {p.name for p in MODULES} >= {"__init__.py", "transformer.py", "plga.py", "graded.py"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_reference_module_imports_nothing_from_the_library(path):
    assert foreign_imports(path.read_text()) == []


@pytest.mark.parametrize("line", ["from theorylab.nn import decoder", "import theorylab.plga.operator",
                                  "from theorylab import nn", "from theorylab.psa.rotary import rope",
                                  "import theorylab.certificates.nn.deploy"])
def test_a_library_import_is_caught(line):
    assert foreign_imports((REFERENCE / "transformer.py").read_text() + "\n" + line + "\n") != []


def test_the_package_init_is_a_docstring_only():
    body = ast.parse((REFERENCE / "__init__.py").read_text()).body
    assert len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)

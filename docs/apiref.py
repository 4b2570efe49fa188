"""The API reference pages (``docs/reference/*.rst``), generated from each package's ``__all__``.

``docs/conf.py`` writes them at the start of every build, so the reference lists every public name of
``theorylab.psa``, ``graded``, ``plga``, ``nn`` and ``theorylab.certify`` and no list is kept by hand;
``tests/test_docs_reference.py`` checks that each name of each ``__all__`` gets an autodoc entry. The
pages are build output (``docs/reference/`` is gitignored). Stand-alone::

    python docs/apiref.py docs/reference

One page per package: its docstring, then one section per defining module (the module's docstring
and an ``autofunction`` / ``autoclass`` / ``autodata`` entry per name, documented under the package's
public path, e.g. ``theorylab.psa.gamma_c``). A constant's description is its attribute
docstring in the defining module (the string literal after the assignment, read from the source:
a re-exported constant carries no docstring of its own). Needs only the standard library, so the
test runs without the docs extra.
"""
from __future__ import annotations

import ast
import functools
import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

PACKAGES = ("theorylab.psa", "theorylab.graded", "theorylab.plga", "theorylab.nn", "theorylab.certify")
TITLES = {
    "theorylab.psa": "Phase Space Attention (PSA)",
    "theorylab.graded": "Graded LLMs (GLLM)",
    "theorylab.plga": "Power Law Graph Attention (PLGA)",
    "theorylab.nn": "The NumPy transformer",
    "theorylab.certify": "The certificate framework",
}


def _submodules(package) -> list:
    """The package's modules (private ones included: a public name may be defined in one)."""
    out = []
    for info in pkgutil.iter_modules(package.__path__):
        out.append(importlib.import_module(f"{package.__name__}.{info.name}"))
    return out


@functools.cache
def _top_level_assignments(module_name: str) -> dict[str, list[str]]:
    """The names a module's source assigns at top level, each with the lines of its attribute
    docstring (the string literal right after the assignment; empty if none)."""
    module = importlib.import_module(module_name)
    body = ast.parse(Path(module.__file__).read_text(encoding="utf-8")).body
    out: dict[str, list[str]] = {}
    for statement, following in zip(body, [*body[1:], None]):
        if isinstance(statement, ast.Assign):
            targets = [n.id for t in statement.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            targets = [statement.target.id]
        else:
            continue
        doc = []
        if (isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)):
            doc = inspect.cleandoc(following.value.value).splitlines()
        for name in targets:
            out[name] = doc
    return out


def defining_module(package, name: str, submodules: list) -> str:
    """The module of ``package`` that defines the public ``name``."""
    obj = getattr(package, name)
    module = getattr(obj, "__module__", None) if (inspect.isclass(obj) or callable(obj)) else None
    if isinstance(module, str) and module.startswith(package.__name__ + "."):
        return module
    for sub in submodules:
        if name in vars(sub) and vars(sub)[name] is obj and name in _top_level_assignments(sub.__name__):
            return sub.__name__
    for sub in submodules:   # imported there from elsewhere, and listed in its __all__
        if vars(sub).get(name) is obj and name in getattr(sub, "__all__", ()):
            return sub.__name__
    raise LookupError(f"{package.__name__}.{name}: no module of the package defines it")


def _kind(obj) -> str:
    if inspect.isclass(obj):
        return "autoclass"
    if callable(obj):
        return "autofunction"
    return "autodata"


def _heading(text: str, char: str) -> list[str]:
    return [text, char * len(text), ""]


def page(package_name: str) -> str:
    """The reST source of the reference page of one package."""
    package = importlib.import_module(package_name)
    submodules = _submodules(package)
    sections: dict[str, list[str]] = {}
    for name in package.__all__:
        sections.setdefault(defining_module(package, name, submodules), []).append(name)
    lines = _heading(f"{TITLES[package_name]}: ``{package_name}``", "=")
    lines += [f".. automodule:: {package_name}", ""]
    for module, names in sections.items():
        lines += _heading(f"``{module}``", "-")
        lines += [f".. automodule:: {module}", "   :no-index:", "", f".. currentmodule:: {package_name}", ""]
        for name in names:
            kind = _kind(getattr(package, name))
            lines.append(f".. {kind}:: {name}")
            if kind == "autoclass":
                lines.append("   :members:")
            lines.append("")
            if kind == "autodata":
                doc = _top_level_assignments(module)[name]
                lines += [f"   {line}".rstrip() for line in doc] + ([""] if doc else [])
    return "\n".join(lines).rstrip() + "\n"


def index() -> str:
    lines = _heading("API reference", "=")
    lines += ["One page per package, generated from its ``__all__`` (every public name, under its public",
              "path, grouped by the module that defines it).", "",
              ".. toctree::", "   :maxdepth: 1", "", *(f"   {p.split('.')[-1]}" for p in PACKAGES), ""]
    return "\n".join(lines)


def write(outdir: str | Path) -> list[Path]:
    """Write ``index.rst`` and one page per package into ``outdir``; a file is rewritten only when its
    text changes (so that Sphinx rebuilds only what changed)."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    pages = {"index.rst": index(), **{f"{p.split('.')[-1]}.rst": page(p) for p in PACKAGES}}
    written = []
    for filename, text in pages.items():
        path = outdir / filename
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "reference"):
        print(path)

"""Static facts about the library source that ``theorylab mutate`` needs to attribute mutants.

Line coverage cannot see two kinds of code: Numba-compiled functions (they run no Python
frames) and module-level definitions (they run once, at import). For them the mutation
tool asks this module *who uses what*:

* :func:`analyse` resolves, for every top-level function and module-level name of the
  library files (``theorylab/`` and ``certificates/``), the units that load it: a Python
  function (with its body lines), a Numba-compiled function, or module level (``None``).
  Names are resolved through ``from M import x as y`` and ``import M as m`` / ``m.x``.
* Numba functions reached from Python code are *entry kernels*; the rest of the compiled
  code is reached from them through the static call graph (:meth:`Analysis.closure`).
  :mod:`theorylab.mutation.linecov` records which certificate calls which entry kernel.

Dynamic access (``getattr(module, "name")``, ``globals()``) is not seen; the library uses
none on the module-level names this is asked about (the tool falls back to "every
certificate that touches the file or an importer" whenever a name is used at module level).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

NUMBA_DECORATORS = ("jit", "intrinsic", "overload", "vectorize", "stencil")


def is_numba(fn) -> bool:
    """Whether a function definition is compiled (or typed) by Numba (``njit``, ``intrinsic``, ...)."""
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if any(k in name for k in NUMBA_DECORATORS):
            return True
    return False


def module_name(rel: str) -> str:
    """``theorylab/psa/shear.py`` -> ``theorylab.psa.shear``; a checkout's ``certificates/plga.py`` ->
    ``theorylab.certificates.plga`` (the package it installs as)."""
    name = rel[:-3].replace("/", ".").removesuffix(".__init__")
    return "theorylab." + name if name == "certificates" or name.startswith("certificates.") else name


def bound_names(stmt) -> tuple[str, ...]:
    """Names a module-level statement binds (assignments, definitions); () if it binds none."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (stmt.name,)
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
        stmt, (ast.AnnAssign, ast.AugAssign)) else []
    return tuple(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))


@dataclass(frozen=True)
class Unit:
    """Code that loads a name: a top-level function or method (``name``), or module level (``name`` None)."""

    file: str
    name: str | None
    numba: bool = False
    lines: tuple[int, int] = (0, 0)


@dataclass
class Analysis:
    """Who uses what, over the library files (see the module docstring)."""

    uses: dict[tuple[str, str], set[Unit]] = field(default_factory=dict)
    numba: dict[tuple[str, str], Unit] = field(default_factory=dict)
    reexports: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    """``(file, local name) -> (file, name)`` of each module-level ``from M import name [as local]``: a
    load of ``pkg.J2`` (the package's re-export) is a load of the ``J2`` its defining module binds."""
    star_imports: dict[str, set[str]] = field(default_factory=dict)
    """``{file: files it star-imports at module level}`` (``from M import *`` re-exports M's names)."""

    def entries(self) -> set[tuple[str, str]]:
        """Numba functions loaded by Python code or at module level (called from the interpreter)."""
        return {key for key in self.numba if any(not u.numba for u in self.uses.get(key, ()))}

    def callees(self, key) -> set[tuple[str, str]]:
        return {k for k, users in self.uses.items() if k in self.numba and
                any(u.numba and (u.file, u.name) == key for u in users)}

    def closure(self, entry) -> set[tuple[str, str]]:
        """The Numba functions compiled into ``entry`` (itself included)."""
        seen, todo = set(), [entry]
        while todo:
            key = todo.pop()
            if key not in seen:
                seen.add(key)
                todo += self.callees(key)
        return seen

    def users(self, file: str, names) -> set[Unit] | None:
        """Units loading any of ``names`` of ``file`` -- None when one is loaded at module level (or
        nothing is known), so that the caller falls back to a file-wide attribution."""
        keys = {(file, name) for name in names}
        todo = list(keys)
        while todo:                                     # every re-export of the names, transitively
            key = todo.pop()
            aliases = [a for a, source in self.reexports.items() if source == key]
            aliases += [(f, key[1]) for f, sources in self.star_imports.items() if key[0] in sources]
            for alias in aliases:
                if alias not in keys:
                    keys.add(alias)
                    todo.append(alias)
        found = set()
        for key in keys:
            for u in self.uses.get(key, ()):
                if u.name is None:
                    return None
                found.add(u)
        return found if names else None


def library_modules(root: Path) -> dict[str, str]:
    """``{module name: file}`` of ``theorylab/`` and its certificates under ``root`` (a checkout's
    top-level ``certificates/`` is the package ``theorylab.certificates``)."""
    root = Path(root)
    found = {module_name(p.relative_to(root).as_posix()): p.relative_to(root).as_posix()
             for p in sorted((root / "theorylab").rglob("*.py"))}
    found.update({module_name(p.relative_to(root).as_posix()): p.relative_to(root).as_posix()
                  for p in sorted((root / "certificates").rglob("*.py"))})
    return found


def _aliases(tree, rel: str, modules: dict[str, str]):
    """Local name -> (file, name) for ``from M import x as y``; local name -> file for modules
    (``import M as m``, ``from pkg import mod``); also the set of library files imported at all."""
    package = module_name(rel) if rel.endswith("__init__.py") else module_name(rel).rpartition(".")[0]
    names, mods, imported = {}, {}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            if base in modules:
                imported.add(modules[base])
            for a in node.names:
                local = a.asname or a.name
                if f"{base}.{a.name}" in modules:
                    mods[local] = modules[f"{base}.{a.name}"]
                    imported.add(modules[f"{base}.{a.name}"])
                elif base in modules:
                    names[local] = (modules[base], a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in modules:
                    imported.add(modules[a.name])
                    if a.asname:
                        mods[a.asname] = modules[a.name]
    return names, mods, imported


def importers(root: Path) -> dict[str, set[str]]:
    """``{file: library files that import it}`` (static, one level)."""
    modules = library_modules(root)
    out: dict[str, set[str]] = {f: set() for f in modules.values()}
    for rel in modules.values():
        for f in _aliases(ast.parse((Path(root) / rel).read_text()), rel, modules)[2] - {rel}:
            out[f].add(rel)
    return out


def analyse(root: Path) -> Analysis:
    """Resolve every load of a module-level name in ``theorylab/`` and ``certificates/`` of ``root``."""
    root = Path(root)
    modules = library_modules(root)
    out = Analysis()
    for rel in modules.values():
        tree = ast.parse((root / rel).read_text())
        defined = {n for stmt in tree.body for n in bound_names(stmt)}
        names, mods, _ = _aliases(tree, rel, modules)

        def resolve(node):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id in names:
                    return names[node.id]
                if node.id in defined:
                    return rel, node.id
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in mods:
                return mods[node.value.id], node.attr
            return None

        def record(unit, nodes):
            for sub in nodes:
                for node in ast.walk(sub):
                    key = resolve(node)
                    if key is not None:
                        out.uses.setdefault(key, set()).add(unit)

        for stmt in tree.body:
            if isinstance(stmt, ast.ImportFrom):
                if stmt.names[0].name == "*" and not stmt.level and stmt.module in modules:
                    out.star_imports.setdefault(rel, set()).add(modules[stmt.module])
                for a in stmt.names:
                    if (a.asname or a.name) in names:
                        out.reexports[(rel, a.asname or a.name)] = names[a.asname or a.name]
            functions = [(stmt, stmt.name)] if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) else [
                (f, f"{stmt.name}.{f.name}") for f in stmt.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            ] if isinstance(stmt, ast.ClassDef) else []
            for fn, name in functions:
                unit = Unit(rel, name, is_numba(fn), (fn.body[0].lineno, fn.end_lineno))
                if unit.numba:
                    out.numba[(rel, name)] = unit
                record(unit, fn.body)
                record(Unit(rel, None), fn.decorator_list + fn.args.defaults + [d for d in fn.args.kw_defaults if d])
            if isinstance(stmt, ast.ClassDef):
                record(Unit(rel, None), [s for s in stmt.body if not isinstance(s, (ast.FunctionDef,
                                                                                     ast.AsyncFunctionDef))])
                record(Unit(rel, None), stmt.bases + stmt.decorator_list)
            elif not functions:
                record(Unit(rel, None), [stmt])
    return out

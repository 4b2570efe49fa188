"""No library or certificate code evaluates a string (or unpickles data, or imports by a computed name
without a stated reason).

An AST scan of every ``.py`` file under ``theorylab/`` and ``certificates/`` (not a grep: comments,
docstrings and string literals are not code, and a method that happens to be called ``eval`` -- SymPy's
``Poly.eval`` -- is not the builtin). It flags:

* the builtins ``eval``, ``exec``, ``compile`` and ``__import__``: any reference to the name (a call, or
  ``f = eval``) where the name is not bound in the file (a parameter or variable called ``compile`` is not
  the builtin), ``builtins.eval`` and the like, and ``getattr(builtins, "eval")``;
* SymPy's string parsers: ``sympify`` / ``S(...)`` / ``parse_expr`` / ``parse_latex`` (``sympify`` parses and
  evaluates a string as Python code: ``sympify("__import__('os').getpid()")`` runs the call) and
  ``lambdify`` (which compiles Python source it generates);
* deserialisers that run code: ``pickle`` / ``marshal`` / ``dill`` / ``shelve`` loads, ``numpy.load`` with
  ``allow_pickle=True``, ``yaml.load`` without ``Loader=SafeLoader`` (or ``CSafeLoader``), ``yaml.unsafe_load``,
  ``yaml.full_load``;
* imports by a computed name: ``importlib.import_module``.

:data:`ALLOWED` lists the uses proven safe, each with a one-line reason; an entry that no longer matches
any use fails too, so the list stays exact. The scanner itself is tested on synthetic snippets: it must
catch ``eval(x)`` and friends and must not flag the look-alikes above.

The library's guard against strings reaching SymPy through the functions that sympify their arguments
silently (``sp.Matrix``, ``subs``, ``expand``, ``together``, ...) is the converter of
:mod:`theorylab.symbolic.exact` (``exact`` / ``matrix``), which converts by type and refuses strings;
tests/test_api_adversarial.py passes code strings to every driven function and checks none is evaluated.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("theorylab", "certificates")

BUILTINS = {"eval", "exec", "compile", "__import__"}
PARSERS = {"sympify", "parse_expr", "parse_latex", "lambdify"}
"""Called by name or as an attribute (``sp.sympify``); ``S`` only when called (``sp.S.Zero`` is a constant)."""
PICKLERS = {"pickle", "cPickle", "_pickle", "marshal", "dill", "shelve", "cloudpickle", "joblib"}
YAML_SAFE = {"SafeLoader", "CSafeLoader", "BaseLoader"}

ALLOWED: dict[tuple[str, str, str], str] = {
    ("theorylab/certify/registry.py", "certificate_modules", "importlib.import_module('theorylab.certificates')"):
        "a constant: theorylab's own certificates package",
    ("theorylab/certify/_warm.py", "_preload", "importlib.import_module(f'theorylab.{name}')"):
        "names from the module's constant PACKAGES: theorylab's own paper packages and certificates",
    ("theorylab/certify/_warm.py", "_preload", "importlib.import_module(info.name)"):
        "names found by pkgutil.walk_packages inside those packages' own folders (theorylab's installed files)",
    ("theorylab/certify/registry.py", "discover", "importlib.import_module(name)"):
        "names from certificate_modules: pkgutil's listing of the theorylab.certificates package itself",
    ("theorylab/certify/docs.py", "_imported", "importlib.import_module(module)"):
        "a theorylab module named by an import statement of a certificate's own code (its bytecode), for the docs page",
    ("theorylab/certify/docs.py", "_imported", "importlib.import_module(f'{module}.{name}')"):
        "a theorylab submodule named by an import statement of a certificate's own code (its bytecode)",
    ("theorylab/_lazy.py", "lazy_exports.__getattr__", "importlib.import_module(f'{package}.{module}')"):
        "a module of the package's own static export table (a name looked up there, never a caller's string)",
    ("theorylab/_moved.py", "_AliasFinder.create_module", "importlib.import_module(new)"):
        "the new home of a moved module, a constant of the MOVED table",
    ("theorylab/_moved.py", "moved_names.__getattr__", "importlib.import_module(new)"):
        "the new home of a name moved out of a module, a constant of that module's own table (an attribute "
        "name not in the table raises AttributeError, never imports)",
    ("theorylab/sweep/__init__.py", "__getattr__", "importlib.import_module(_MOVED[name])"):
        "the module a moved PSA sweep name lives in now, a constant of the _MOVED table",
    ("theorylab/sweep/registry.py", "task", "importlib.import_module(TASKS[name])"):
        "a registered sweep task's module, a constant of the TASKS table (a spec names the task, not a module)",
    ("theorylab/cli/__init__.py", "build_parser", "importlib.import_module(f'{__name__}.{info.name}')"):
        "names from pkgutil's listing of the theorylab.cli package itself",
    ("theorylab/cli/bench.py", "register", "importlib.import_module(f'{benches.__name__}.{info.name}')"):
        "names from pkgutil's listing of the theorylab.bench package itself",
    ("theorylab/mutation/linecov.py", "wrap_entry_kernels", "importlib.import_module(module_name(file))"):
        "a module of the library tree being measured (module_name maps one of its files to the dotted name)",
    ("certificates/psa/symplectic.py", "_shear_map_matches", "sp.lambdify([p], fs, 'sympy')"):
        "fs are SymPy expressions the certificate builds from symbols; lambdify prints them, no string reaches it",
    ("certificates/psa/score_model.py", "linearisation_numeric",
     "sp.lambdify(list(u) + list(dd), list(sm.derivative(u, dd, 2)))"):
        "the library's symbolic derivative of symbols it made; lambdify prints it, no string reaches it",
}
"""``(file, enclosing function, call source) -> reason`` for each use proven safe."""


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for a Name/Attribute chain, else ''."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _bindings(scope: ast.AST) -> set[str]:
    """Names bound directly in ``scope`` (a module, function or lambda): parameters, assignments, imports,
    definitions -- not inside the functions nested in it."""
    out = set()
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        out |= {a.arg for a in ast.walk(scope.args) if isinstance(a, ast.arg)}
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, ast.arguments)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
        todo.extend(ast.iter_child_nodes(node))
    return out


DANGEROUS_IMPORTS = {"sympy": PARSERS | {"S"}, "builtins": BUILTINS, "importlib": {"import_module"},
                     **{m: {"load", "loads", "Unpickler", "open"} for m in PICKLERS},
                     "yaml": {"load", "load_all", "unsafe_load", "full_load", "unsafe_load_all", "full_load_all"}}
"""``from MODULE import NAME``: the local name then stands for the dangerous function."""


def _imported(tree: ast.AST) -> dict[str, str]:
    """Local names bound by ``from sympy import S``, ``from pickle import loads``, ...: ``{local: 'module.name'}``."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            top = (node.module or "").split(".")[0]
            for alias in node.names:
                if alias.name in DANGEROUS_IMPORTS.get(top, ()):
                    out[alias.asname or alias.name] = f"{top}.{alias.name}"
    return out


def _why(node: ast.AST, bound: bool, imported: dict[str, str]) -> str | None:
    """What is dangerous about ``node`` (None if nothing); ``bound``: whether a Name node's name is bound by
    the code around it (then it is not the builtin)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        if node.id in imported:
            origin = imported[node.id]
            if origin in ("yaml.load", "yaml.load_all"):
                return None                                         # judged at the call (its Loader)
            return f"{origin} (imported as {node.id})"
        if not bound and node.id in BUILTINS:
            return f"the builtin {node.id}"
        if not bound and node.id in PARSERS:
            return f"SymPy's string parser {node.id}"
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        base = _dotted(node.value)
        if base in ("builtins", "__builtins__") and node.attr in BUILTINS:
            return f"builtins.{node.attr}"
        if node.attr in PARSERS:
            return f"{node.attr} (parses strings)"
        if base.split(".")[0] in PICKLERS and node.attr in ("load", "loads", "open", "Unpickler"):
            return f"{base}.{node.attr} (deserialises code)"
        if base == "yaml" and node.attr in ("unsafe_load", "full_load", "unsafe_load_all", "full_load_all"):
            return f"yaml.{node.attr}"
        if _dotted(node) == "importlib.import_module":
            return "importlib.import_module (import by a computed name)"
    if isinstance(node, ast.Call):
        func = _dotted(node.func)
        if func in ("sp.S", "sympy.S"):
            return f"{func}(...) (sympify)"
        if func in ("yaml.load", "yaml.load_all") or imported.get(func) in ("yaml.load", "yaml.load_all"):
            loader = [k.value for k in node.keywords if k.arg == "Loader"] or node.args[1:2]
            if not loader or _dotted(loader[0]).split(".")[-1] not in YAML_SAFE:
                return f"{func} without Loader=SafeLoader"
        if func in ("np.load", "numpy.load"):
            for k in node.keywords:
                if k.arg == "allow_pickle" and not (isinstance(k.value, ast.Constant) and k.value.value is False):
                    return f"{func}(allow_pickle=...) (unpickles)"
        if func == "getattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and node.args[1].value in BUILTINS:
            return f"getattr(..., {node.args[1].value!r})"
    return None


SCOPES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def scan_source(source: str, path: str = "<snippet>") -> list[tuple[str, int, str, str, str]]:
    """``(path, line, enclosing function, source of the flagged expression, why)`` for every flagged use."""
    tree = ast.parse(source, path)
    imported = _imported(tree)
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    bindings: dict[ast.AST, set[str]] = {}

    def enclosing(node: ast.AST) -> list[ast.AST]:
        chain = []
        while node in parents:
            node = parents[node]
            chain.append(node)
        return chain

    def is_bound(node: ast.AST) -> bool:
        if not (isinstance(node, ast.Name) and node.id in BUILTINS | PARSERS):
            return False
        for scope in enclosing(node):
            if isinstance(scope, SCOPES):
                if scope not in bindings:
                    bindings[scope] = _bindings(scope)
                if node.id in bindings[scope]:
                    return True
        return False

    found = []
    for node in ast.walk(tree):
        why = _why(node, is_bound(node), imported)
        if why is None:
            continue
        chain = enclosing(node)
        parent = parents.get(node)
        if isinstance(parent, ast.Attribute) and not isinstance(node, ast.Call):
            continue                                              # reported at the outer attribute
        target = parent if isinstance(parent, ast.Call) and parent.func is node else node   # the whole call
        scope = ".".join(s.name for s in reversed(chain)
                         if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
        found.append((path, node.lineno, scope or "<module>", ast.unparse(target), why))
    return sorted(set(found), key=lambda f: (f[0], f[1], f[3]))


def scan_tree() -> list[tuple[str, int, str, str, str]]:
    found = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            found += scan_source(path.read_text(encoding="utf-8"), rel)
    return found


def test_no_library_or_certificate_code_evaluates_strings():
    found = scan_tree()
    flagged = [f for f in found if (f[0], f[2], f[3]) not in ALLOWED]
    assert not flagged, "code that evaluates strings, unpickles or imports by name (file:line: call -- why); " \
                        "remove it, or prove it safe and add it to ALLOWED with a reason:\n" + \
                        "\n".join(f"{p}:{line}: {src} -- {why} (in {scope})" for p, line, scope, src, why in flagged)
    used = {(f[0], f[2], f[3]) for f in found}
    stale = [k for k in ALLOWED if k not in used]
    assert not stale, f"ALLOWED entries that match no use any more (remove them): {stale}"
    assert all(reason.strip() for reason in ALLOWED.values())


@pytest.mark.parametrize("snippet", [
    "def f(x):\n    return eval(x)\n",
    "exec('print(1)')\n",
    "code = compile(src, 'f', 'exec')\n",
    "m = __import__(name)\n",
    "run = eval\n",
    "import builtins\nbuiltins.eval(s)\n",
    "import builtins\ngetattr(builtins, 'exec')(s)\n",
    "import sympy as sp\nsp.sympify(v)\n",
    "import sympy as sp\nsp.sympify(v, strict=True)\n",
    "import sympy as sp\nsp.S(v)\n",
    "from sympy import S\nS(v)\n",
    "from sympy import sympify as conv\nconv(v)\n",
    "from sympy.parsing.sympy_parser import parse_expr\nparse_expr(text)\n",
    "import sympy as sp\nsp.parsing.sympy_parser.parse_expr(text)\n",
    "import sympy as sp\nf = sp.lambdify(x, e)\n",
    "import sympy as sp\nxs = list(map(sp.sympify, values))\n",
    "import pickle\npickle.loads(blob)\n",
    "import pickle\nwith open(p, 'rb') as fh:\n    pickle.load(fh)\n",
    "import marshal\nmarshal.loads(b)\n",
    "import yaml\nyaml.load(fh)\n",
    "import yaml\nyaml.load(fh, Loader=yaml.FullLoader)\n",
    "import yaml\nyaml.unsafe_load(fh)\n",
    "import numpy as np\nnp.load(p, allow_pickle=True)\n",
    "import importlib\nimportlib.import_module(name)\n",
])
def test_scanner_catches(snippet):
    assert scan_source(snippet), f"the scanner missed:\n{snippet}"


@pytest.mark.parametrize("snippet", [
    "def f(compile):\n    return compile(x)\n",                  # a parameter called compile is not the builtin
    "import sympy as sp\np = sp.Poly(x**2, x)\np.eval(2)\n",       # Poly.eval evaluates a polynomial at a point
    "import sympy as sp\nz = sp.S.Zero + sp.S.Half\n",             # constants, no call of S
    "import yaml\nyaml.load(fh, Loader=yaml.SafeLoader)\n",
    "import yaml\nyaml.safe_load(fh)\n",
    "import numpy as np\nnp.load(p)\n",
    "import json\njson.loads(text)\n",
    "s = 'eval(x) exec(y) sympify(z)'\n",                        # a string is not a call
    "# eval(x)\nx = 1\n",
    "def evaluate(x):\n    return x\nevaluate(1)\n",
])
def test_scanner_ignores_look_alikes(snippet):
    assert not scan_source(snippet), f"the scanner flagged harmless code:\n{snippet}"


def test_scanner_reports_file_line_and_call():
    found = scan_source("x = 1\n\ndef g(v):\n    return eval(v)\n", "pkg/mod.py")
    assert found == [("pkg/mod.py", 4, "g", "eval(v)", "the builtin eval")]

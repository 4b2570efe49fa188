"""Names moved out of a module split along its seams still import from the old module for one release:
the new module's own object, with a DeprecationWarning naming the new path (theorylab._moved.MOVED_NAMES)."""
import importlib
import warnings

import pytest

from theorylab._moved import MOVED_NAMES

MOVED = [(old, name, new) for old, names in MOVED_NAMES.items() for name, new in names.items()]


@pytest.mark.parametrize("old, name, new", MOVED, ids=[f"{o.rsplit('.', 1)[1]}.{n}" for o, n, _ in MOVED])
def test_a_moved_name_is_the_new_object_with_a_deprecation_warning(old, name, new):
    module = importlib.import_module(old)
    assert name not in vars(module), f"{old} still binds {name}: no warning would be given"
    assert name not in getattr(module, "__all__", ())
    with pytest.warns(DeprecationWarning, match=rf"^{old}\.{name} moved to {new}\.{name};"):
        obj = getattr(module, name)
    assert obj is getattr(importlib.import_module(new), name)


def test_from_import_of_a_moved_name_works():
    with pytest.warns(DeprecationWarning, match="theorylab.psa.rotary.rope"):
        from theorylab.psa.shear import rope
    from theorylab.psa.rotary import rope as new
    assert rope is new


def test_names_that_did_not_move_raise_attribute_error():
    module = importlib.import_module("theorylab.psa.shear")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="module 'theorylab.psa.shear' has no attribute 'not_a_name'"):
            module.not_a_name  # noqa: B018
        assert module.shear.__module__ == "theorylab.psa.shear"      # a name that stayed: no warning


def test_the_library_reaches_no_moved_name_through_its_old_module():
    """Importing every psa module and the packages that use them gives no DeprecationWarning (library code
    imports from the new modules)."""
    import pkgutil
    import subprocess
    import sys

    import theorylab.psa as psa

    names = [f"theorylab.psa.{m.name}" for m in pkgutil.iter_modules(psa.__path__)]
    names += ["theorylab.nn.attention", "theorylab.nn.tasks", "theorylab.nn.train", "theorylab.plga.rope",
              "theorylab.cli.induction"]
    code = "import importlib\n" + "".join(f"importlib.import_module({n!r})\n" for n in names)
    out = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr[-2000:]


def test_no_code_reaches_a_moved_name_through_its_old_module():
    """Static: no module of the library or of the certificates names a moved name through its old module,
    by ``from old import name`` or by ``old_alias.name`` at any call site (the import-time check above sees
    only imports)."""
    import ast
    from pathlib import Path

    from theorylab._moved import MOVED_NAMES

    root = Path(__file__).resolve().parents[1]
    found = []
    for path in sorted([*root.glob("theorylab/**/*.py"), *root.glob("certificates/**/*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if node.module in MOVED_NAMES and a.name in MOVED_NAMES[node.module]:
                        found.append(f"{path.relative_to(root)}:{node.lineno}: from {node.module} import {a.name}")
                    if f"{node.module}.{a.name}" in MOVED_NAMES:
                        aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and node.attr in MOVED_NAMES[aliases[node.value.id]]):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {node.value.id}.{node.attr}")
    assert not found, found

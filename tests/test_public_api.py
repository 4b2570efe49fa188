"""The per-paper packages as a library: lazy re-exports with __all__, and Python scalars for scalar input."""
from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("theorylab.psa", "theorylab.graded", "theorylab.plga", "theorylab.nn")
# module names of a package that a function of the same name would shadow: the module stays
SHADOWED = {"theorylab.psa": {"shear", "softmax"}, "theorylab.graded": {"envelope"}, "theorylab.nn": {"train"}}


def _modules(package: str) -> list[str]:
    pkg = importlib.import_module(package)
    return [f"{package}.{info.name}" for info in pkgutil.iter_modules(pkg.__path__)]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_module_has_an_all_naming_only_its_attributes(package):
    for name in _modules(package):
        if name.rsplit(".", 1)[1].startswith("_"):
            continue
        mod = importlib.import_module(name)
        assert isinstance(getattr(mod, "__all__", None), list), f"{name} has no __all__"
        missing = [n for n in mod.__all__ if not hasattr(mod, n)]
        assert not missing, f"{name}.__all__ names what it lacks: {missing}"


@pytest.mark.parametrize("package", PACKAGES)
def test_package_reexports_are_the_module_objects(package):
    pkg = importlib.import_module(package)
    assert len(pkg.__all__) == len(set(pkg.__all__)) > 20
    for name in pkg.__all__:
        obj = getattr(pkg, name)
        homes = [m for m in _modules(package) if name in getattr(importlib.import_module(m), "__all__", ())]
        assert homes and any(getattr(importlib.import_module(m), name) is obj for m in homes), name
    for module in SHADOWED.get(package, ()):
        assert module not in pkg.__all__
        assert importlib.import_module(f"{package}.{module}") is getattr(pkg, module)   # still the module


def test_unknown_names_raise_attribute_error():
    import theorylab.psa as psa

    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        psa.not_a_name  # noqa: B018


def test_importing_a_package_imports_none_of_its_modules():
    code = ("import sys, theorylab.psa, theorylab.graded, theorylab.nn; "
            "print(sorted(m for m in sys.modules if m.startswith(('theorylab.psa.', 'theorylab.graded.', "
            "'theorylab.nn.')) or m in ('numba', 'sympy', 'scipy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_gamma_c_of_scalars_is_python_scalars():
    import theorylab.psa as psa

    law = psa.gamma_c("t4-only", 128, 512)
    assert type(law.gamma_c) is float and type(law.dk) is float and type(law.T) is float
    assert type(law.L) is float and type(law.band_upper) is float and type(law.branch) is str
    assert law.branch == "mean-field" and round(law.gamma_c, 4) == 0.7867      # PSA §6.7: 0.787
    below = psa.gamma_c("key-only", 10, 512)
    assert below.branch == "none" and np.isnan(below.gamma_c)


def test_gamma_c_of_arrays_is_arrays_and_rows():
    import theorylab.psa as psa

    law = psa.gamma_c("t4-only", [8.0, 128.0], 512)
    assert isinstance(law.gamma_c, np.ndarray) and law.gamma_c.shape == (2,)
    assert list(law.branch) == ["condensed", "mean-field"]
    rows = law.rows()
    assert [r["branch"] for r in rows] == ["condensed", "mean-field"] and [r["dk"] for r in rows] == [8.0, 128.0]
    assert all(type(r["gamma_c"]) is float and r["variant"] == "t4-only" for r in rows)
    assert rows[1]["gamma_c"] == law.gamma_c[1] and "band_upper" in rows[0]
    assert "band_upper" not in psa.gamma_c("key-only", 64, 512).rows()[0]


@pytest.mark.parametrize("name, args", [
    ("annealed_gamma_c", ("t4-only", 64, 512)), ("crossover_dk", (512,)), ("freezing_coupling", (512,)),
    ("condensed_gamma_c", (512,)), ("t4_asymptote", (128, 512)), ("argmax_plateau", (128, 512)),
    ("argmax_probability", ("t4-only", 128, 512, 0.5)), ("key_only_threshold", (512,)),
])
def test_transition_scalars_in_scalars_out(name, args):
    import theorylab.psa as psa

    fn = getattr(psa, name)
    assert type(fn(*args)) is float
    array_args = tuple(np.array([a, a]) if not isinstance(a, str) else a for a in args)
    out = fn(*array_args)
    assert isinstance(out, np.ndarray) and out.shape == (2,) and out[0] == fn(*args)


def test_t4_band_of_scalars_is_two_floats():
    import theorylab.psa as psa

    lower, upper = psa.t4_band(128, 512)
    assert type(lower) is float and type(upper) is float
    assert (round(lower, 3), round(upper, 3)) == (0.787, 2.245)      # PSA §6.7, the docstring's example


def test_to_frame_without_pandas_names_the_extra(monkeypatch):
    import theorylab.psa as psa

    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"theorylab\[pandas\]"):
        psa.gamma_c("t4-only", 128, 512).to_frame()


API_HEADING = "## Public names per package"


def api_listing() -> str:
    """The section of docs/api.md listing each package's ``__all__`` by module (regenerate it with
    ``python tests/test_public_api.py``)."""
    lines = [API_HEADING, "",
             "Generated from the packages' `__all__` (`python tests/test_public_api.py` rewrites this section);",
             "each name is importable from its package and from the module it is listed under.", ""]
    for package in PACKAGES:
        pkg = importlib.import_module(package)
        by_module: dict[str, list[str]] = {}
        for name in pkg.__all__:
            home = next(m for m in _modules(package)
                        if name in getattr(importlib.import_module(m), "__all__", ()) and m.rsplit(".", 1)[1] != "operator")
            by_module.setdefault(home.rsplit(".", 1)[1], []).append(name)
        lines.append(f"**`{package}`** ({len(pkg.__all__)} names)")
        lines.append("")
        lines += [f"* `{module}`: " + ", ".join(f"`{n}`" for n in names) for module, names in by_module.items()]
        lines.append("")
    return "\n".join(lines)


def test_api_md_lists_the_packages_all():
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert API_HEADING in text, "docs/api.md lacks its generated section: run python tests/test_public_api.py"
    assert text[text.index(API_HEADING):].rstrip("\n") == api_listing().rstrip("\n"), \
        "docs/api.md is stale: run python tests/test_public_api.py"


if __name__ == "__main__":
    path = ROOT / "docs" / "api.md"
    text = path.read_text(encoding="utf-8")
    head = text[:text.index(API_HEADING)] if API_HEADING in text else text.rstrip("\n") + "\n\n"
    path.write_text(head + api_listing().rstrip("\n") + "\n", encoding="utf-8")


# names that moved out of a module that stays (issue 20 item 7): (old module, new module, names)
MOVED_NAMES = [
    ("theorylab.nn.attention", "theorylab.nn.specs", ("GRAMS", "SDPA", "PSA", "TwoTap", "Graded", "PLGA", "HeadSpec",
                                                      "grading_diag")),
    ("theorylab.nn.transformer", "theorylab.nn.prefix", ("prefix_logits", "PrefixConsistency", "prefix_consistency",
                                                         "prefix_consistency_gap")),
    ("theorylab.nn.transformer", "theorylab.nn.compiled", ("compile_grading", "collapse_invariant_plga")),
    ("theorylab.nn.grad", "theorylab.nn.params", ("parameters", "with_parameters")),
    ("theorylab.nn.train", "theorylab.nn.evaluation", ("EVAL_CHUNK", "batch_of", "answers", "Evaluation", "evaluate")),
    ("theorylab.graded.grades", "theorylab.graded.optimal", ("optimal_grades", "ClippedOptimum", "clip_bound", "clipped_grades",
                                                             "level_program", "moment_maps", "recession_slope",
                                                             "clipped_lower_bound", "GradeRow", "table3_row",
                                                             "TABLE3_PARAMETERS")),
    ("theorylab.graded.ladder_sim", "theorylab.graded.pilot_cost", ("Degradation", "profile_error", "degradation")),
]


@pytest.mark.parametrize("old, new, names", MOVED_NAMES, ids=[f"{old}->{new}" for old, new, _ in MOVED_NAMES])
def test_moved_names_import_from_their_old_module_with_a_deprecation_warning(old, new, names):
    module, target = importlib.import_module(old), importlib.import_module(new)
    for name in names:
        with pytest.warns(DeprecationWarning, match=f"{old}.{name} moved to {new}.{name}"):
            value = getattr(module, name)
        assert value is getattr(target, name)
        assert name not in module.__all__ and name in target.__all__
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        module.not_a_name  # noqa: B018

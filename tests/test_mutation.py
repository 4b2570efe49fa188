"""``theorylab mutate``: mutant generation, skipping rules, selection by coverage, scoring, a 3-mutant run."""
import ast
import json
import re
import textwrap

import pytest

from theorylab.mutation import run as mutation
from theorylab.mutation.mutants import generate
from theorylab.mutation.planting import library_root
from theorylab.cli import main

SRC = textwrap.dedent('''\
    """Module docstring 1 + 2."""
    import numba as nb
    import numpy as np
    from theorylab.errors import ParameterError, real_array

    RATE = 2.0


    def f(x, dk, n, base=10000.0, seed=3, *, tol=1e-9):
        """Docstring: 1 + 2."""
        x = real_array("x", x, low=0)
        if dk < 1:
            raise ParameterError(f"dk must be >= 1 (got {dk + 1})")
        y = np.sqrt(dk) * x + 2 ** x - (-x)
        for i in range(len(x) - 1):
            y = y[1:n] if (dk > 3 and n) else y
        print(x + 1)
        assert n > 0
        return y <= 0.5, f"{x + 1}"


    def __repr__(self):
        return 1 + 2


    @nb.njit(cache=True)
    def kernel(a):
        return a * 2.0
    ''')


def _key(m) -> str:
    """``line:col:operator`` of a mutant (its display position; the id is position-free)."""
    return f"{m.line}:{m.col}:{m.operator}"


def _line(src: str, text: str) -> int:
    return next(i for i, ln in enumerate(src.splitlines(), 1) if text in ln)


@pytest.fixture(scope="module")
def mutants():
    return {_key(m): m for m in generate("theorylab/x.py", SRC)}


def test_operators_are_generated_with_deterministic_ids(mutants):
    y = _line(SRC, "y = np.sqrt")
    expected = {f"{y}:9:call(np.sqrt)", f"{y}:21:arith(*->/)", f"{y}:21:drop(*,left)", f"{y}:21:drop(*,right)",
                f"{y}:25:arith(+->-)", f"{y}:29:arith(**->*)", f"{y}:34:arith(-->+)", f"{y}:34:drop(-,right)",
                f"{y}:37:unary(-)", f"{y}:27:const(2->3)", f"{y}:27:const(2->1)", f"{y}:25:drop(+,left)"}
    assert expected <= set(mutants)
    assert f"{y}:34:drop(-,left)" not in mutants     # a chain a + b - c drops one term at a time
    loop, body, ret = _line(SRC, "for i in"), _line(SRC, "y = y[1:n]"), _line(SRC, "return y <= 0.5")
    assert {f"{loop}:20:range(stop+1)", f"{loop}:20:range(stop-1)", f"{loop}:29:const(1->2)",
            f"{body}:17:slice(upper+1)", f"{body}:15:const(1->0)", f"{body}:31:bool(and->or)",
            f"{body}:27:cmp(>->>=)", f"{ret}:14:cmp(<=-><)", f"{ret}:17:const(0.5->1.0)"} <= set(mutants)
    again = {_key(m): m.id for m in generate("theorylab/x.py", SRC)}
    assert again == {k: m.id for k, m in mutants.items()}
    assert mutants[f"{y}:21:arith(*->/)"].id.startswith("theorylab/x.py::f::arith(*->/)::")
    assert mutants[f"{_line(SRC, 'RATE')}:8:const(2.0->4.0)"].id.startswith("theorylab/x.py::<module>::const(2.0->4.0)::")
    sig = _line(SRC, "def f(")
    assert mutants[f"{sig}:22:const(10000.0->20000.0)"].id.startswith("theorylab/x.py::f::")   # a default: its function


def test_every_mutant_parses_and_changes_the_tree(mutants):
    original = ast.dump(ast.parse(SRC))
    for m in mutants.values():
        assert ast.dump(ast.parse(m.apply(SRC))) != original, m.id
        line = SRC.splitlines()[m.line - 1]
        assert line[m.col - 1:].startswith(m.before[:1]) or m.operator.startswith(("arith", "drop", "cmp", "bool"))


def test_skipping_rules(mutants):
    skipped_lines = [_line(SRC, t) for t in ('"""Module', '"""Docstring', 'real_array("x"', "if dk < 1",
                                             "raise ParameterError", "print(x + 1)", "assert n > 0",
                                             "return 1 + 2")]
    assert not [i for i in mutants if int(i.split(":")[0]) in skipped_lines]
    sig = _line(SRC, "def f(")
    on_signature = {i for i in mutants if int(i.split(":")[0]) == sig}
    assert on_signature == {f"{sig}:22:const(10000.0->20000.0)", f"{sig}:22:const(10000.0->5000.0)"}  # not seed/tol
    ret = _line(SRC, "return y <= 0.5")
    assert not [i for i in mutants if i.startswith(f"{ret}:") and int(i.split(":")[1]) > 25]       # f-string


def test_resource_estimates_are_not_mutated():
    src = ("STEP_SECONDS = 3e-8\n"
           "def train_cost(n):\n    return 8 * n * STEP_SECONDS\n"
           "def memory_estimate(n):\n    return 8 * n * n\n"
           "def f(x, m):\n    check_memory('m', 16 * m * 2)\n    return x * 2\n")
    ms = generate("theorylab/x.py", src)
    assert ms and all(m.line == 8 for m in ms), [m.id for m in ms]      # only ``return x * 2`` is mutated


def test_scopes(mutants):
    sig, body_end = _line(SRC, "def f("), _line(SRC, "return y <= 0.5")
    assert mutants[f"{sig}:22:const(10000.0->20000.0)"].scope == "function"
    assert mutants[f"{sig}:22:const(10000.0->20000.0)"].lines == (sig + 1, body_end)
    assert mutants[f"{_line(SRC, 'RATE')}:8:const(2.0->4.0)"].scope == "module"
    loop = _line(SRC, "for i in")
    assert mutants[f"{loop}:29:const(1->2)"].scope == "line" and mutants[f"{loop}:29:const(1->2)"].lines == (loop, loop)
    k = _line(SRC, "return a * 2.0")
    assert mutants[f"{k}:14:arith(*->/)"].scope == "numba"


def test_library_mutants_are_unique_and_the_exclusions_hold():
    root = library_root()
    files = mutation.library_files(root)
    assert not [f for f in files if f.startswith("theorylab/sweep/") or f == "theorylab/graded/io.py"]
    assert {f.split("/")[1].removesuffix(".py") for f in files} == set(mutation.PACKAGES)
    sample = mutation.collect(root, max_mutants=50, seed=3)
    assert len(sample) == 50 and sample == mutation.collect(root, max_mutants=50, seed=3)
    assert mutation.numba_files(root, files) == {"theorylab/psa/mc_kernels.py", "theorylab/rng.py",
                                                 "theorylab/psa/row_stats_mc.py"}


def test_numba_code_reads_only_numba_modules():
    """Mutants outside the Numba files reuse a warm Numba cache: sound only if compiled code reads no
    name from another library module (it would be frozen into the cached machine code)."""
    root = library_root()
    numba = mutation.numba_files(root, mutation.library_files(root))
    for f in numba:
        tree = ast.parse((root / f).read_text())
        imported = {a.asname or a.name: node.module for node in tree.body if isinstance(node, ast.ImportFrom)
                    for a in node.names}
        for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and any("jit" in ast.dump(d) for d in n.decorator_list)):
            names = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
            foreign = {n for n in names if imported.get(n, "").startswith("theorylab")
                       and imported[n].replace(".", "/") + ".py" not in numba}
            assert not foreign, (f, fn.name, foreign)


def test_coverage_selects_certificates_by_scope():
    from theorylab.mutation.callgraph import Analysis, Unit

    m = {_key(x): x for x in generate("theorylab/x.py", SRC)}
    loop, sig, ret = _line(SRC, "for i in"), _line(SRC, "def f("), _line(SRC, "return y <= 0.5")
    f_unit, k_unit = Unit("theorylab/x.py", "f", False, (sig + 1, ret)), Unit("theorylab/x.py", "kernel", True, (1, 1))
    analysis = Analysis(uses={("theorylab/x.py", "kernel"): {f_unit}, ("theorylab/x.py", "RATE"): {f_unit}},
                        numba={("theorylab/x.py", "kernel"): k_unit})
    cov = mutation.Coverage(lines={"C1": {"theorylab/x.py": [loop]}, "C2": {"theorylab/x.py": [sig + 3]},
                                   "C3": {"theorylab/y.py": [1]}},
                            touched={"C1": ["theorylab/x.py"], "C2": ["theorylab/x.py"], "C3": ["theorylab/y.py"],
                                     "C4": ["theorylab/z.py"]},
                            import_lines={}, order=["C3", "C2", "C1", "C4"],
                            importers={"theorylab/x.py": {"theorylab/y.py"}}, kernels={"C4": ["theorylab/x.py:kernel"]},
                            analysis=analysis)
    rate = m[f"{_line(SRC, 'RATE')}:8:const(2.0->4.0)"]
    assert rate.scope == "module" and rate.names == ("RATE",)
    assert cov.certificates(m[f"{loop}:29:const(1->2)"]) == ["C1"]
    assert cov.certificates(m[f"{sig}:22:const(10000.0->20000.0)"]) == ["C2", "C1"]   # the body ran
    assert cov.certificates(rate) == ["C2", "C1"]                                       # f loads RATE
    analysis.uses[("theorylab/x.py", "RATE")].add(Unit("theorylab/y.py", None))        # a module-level use:
    assert cov.certificates(rate) == ["C3", "C2", "C1"]                                 # file + importers
    kernel = m[f"{_line(SRC, 'return a * 2.0')}:14:arith(*->/)"]
    assert kernel.names == ("kernel",) and cov.certificates(kernel) == ["C4"]           # called the kernel
    assert cov.certificates(m[f"{_line(SRC, 'y = np.sqrt')}:9:call(np.sqrt)"]) == []    # not covered


def test_numba_call_graph_of_the_library():
    from theorylab.mutation.callgraph import analyse

    a = analyse(library_root())
    comp, rng = "theorylab/psa/mc_kernels.py", "theorylab/rng.py"
    assert {(comp, "_kernel32"), (comp, "_kernel64")} <= a.entries()
    k32 = {n for f, n in a.closure((comp, "_kernel32"))}
    assert {"exp32", "log32", "normal_pair32", "mix64", "bits_as_float"} <= k32 and not {"log64", "exp64"} & k32
    assert a.users(rng, ("_LOGP",)) == {u for u in a.users(rng, ("_LOGP",)) if u.name == "log32" and u.numba}


def test_scores_and_equivalent_file(tmp_path):
    ms = generate("theorylab/psa/x.py", SRC)[:5] + generate("theorylab/nn/x.py", SRC)[:2]
    statuses = ["killed", "timeout", "survived", "not-covered", "equivalent", "killed", "survived"]
    results = [mutation.MutantResult(m, s) for m, s in zip(ms, statuses)]
    rows = {r["package"]: r for r in mutation.score_table(results)}
    assert rows["psa"] == {"package": "psa", "mutants": 5, "equivalent": 1, "killed": 1, "timeout": 1,
                           "survived": 1, "not_covered": 1, "score_percent": 50.0}
    assert rows["nn"]["score_percent"] == 50.0 and rows["total"]["score_percent"] == round(100 * 3 / 6, 1)
    good = tmp_path / "eq.toml"
    good.write_text(f'[equivalent]\n"{ms[0].id}" = "only sizes a progress bar"\n')
    assert mutation.load_equivalent(good) == {ms[0].id: "only sizes a progress bar"}
    bad = tmp_path / "bad.toml"
    bad.write_text(f'[equivalent]\n"{ms[0].id}" = ""\n')
    with pytest.raises(mutation.ParameterError, match="reason"):
        mutation.load_equivalent(bad)


@pytest.mark.planted                 # plants its mutants through `theorylab mutate` (tests/conftest.py)
def test_three_mutant_run_end_to_end(tmp_path, capsys):
    """One mutant P14 kills (L = ln(T - 2)), one no selected certificate executes, one listed equivalent."""
    path = "theorylab/psa/scoremodel.py"
    src = (library_root() / path).read_text()
    by_id = {m.id: m for m in generate(path, src)}
    log, dis = _line(src, "return np.log(T - 1.0)     # L"), _line(src, "return T - 2.0     # m")
    killed = next(i for i, m in by_id.items() if m.line == log and m.operator == "const(1.0->2.0)")
    uncovered = next(i for i, m in by_id.items() if m.line == dis and m.operator == "const(2.0->1.0)")
    listed = next(i for i, m in by_id.items() if m.scope == "module" and "key-only" in src.splitlines()[m.line - 1])
    eq = tmp_path / "eq.toml"
    eq.write_text(f'[equivalent]\n"{listed}" = "test listing: P14 reads only the t4-only model"\n')
    out = tmp_path / "m.json"
    assert main(["mutate", "--mutant", killed, uncovered, listed, "--certificates", "P14", "--workers", "1",
                 "--equivalent", str(eq), "--out", str(out), "--no-progress"]) == 0
    result = json.loads(out.read_text())
    status = {m["id"]: m for m in result["mutants"]}
    assert status[killed]["status"] == "killed" and status[killed]["killed_by"] == "P14"
    assert status[uncovered]["status"] == "not-covered"
    assert status[listed]["status"] == "equivalent" and status[listed]["certificates"] == ["P14"]
    psa = result["scores"][0]
    assert (psa["package"], psa["mutants"], psa["equivalent"], psa["killed"], psa["score_percent"]) == \
        ("psa", 3, 1, 1, 50.0)
    assert "not_covered" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["mutate", "--package", "plots"], ["mutate", "--file", "theorylab/sweep/run.py"],
                                  ["mutate", "--mutant", "theorylab/psa/shear.py:1:1:const(0->1)"],
                                  ["mutate", "--workers", "0"], ["mutate", "--equivalent", "/nonexistent.toml"]])
def test_bad_input_exit_2(argv, capsys):
    assert main(argv) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_docs_section_reads_the_committed_results(tmp_path):
    from theorylab.certify.docs import mutation_section

    assert "No committed mutation result found." in mutation_section(tmp_path)
    (tmp_path / "results").mkdir()
    results = [mutation.MutantResult(m, s) for m, s in zip(generate("theorylab/psa/x.py", SRC)[:4],
                                                            ["killed", "timeout", "survived", "equivalent"])]
    summary = mutation.summarise(results, {}, seconds=7200, git={"commit": "a" * 40, "dirty": False})
    (tmp_path / "results" / "mutation-baseline.json").write_text(mutation.dumps(summary))
    page = mutation_section(tmp_path)
    assert "**baseline** (`results/mutation-baseline.json`, library commit aaaaaaa, 2.0 h)" in page
    assert "| psa | 4 (1) | 2 (1) | 1 (0) | 66.7 % |" in page and "theorylab mutate --out" in page


def test_journal_round_trip_for_resume(tmp_path):
    ms = generate("theorylab/psa/x.py", SRC)[:3]
    journal = tmp_path / "m.json.partial.jsonl"
    rows = [{**mutation.MutantResult(ms[0], "killed", ("P1",), "P1", 2.0).as_dict(), "session": 0, "elapsed": 50.0},
            {**mutation.MutantResult(ms[1], "survived", ("P1", "P2"), "", 3.0).as_dict(), "session": 0, "elapsed": 80.0},
            {**mutation.MutantResult(ms[2], "not-covered").as_dict(), "session": 1, "elapsed": 20.0}]
    journal.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got, seconds, session = mutation.read_journal(journal)
    assert set(got) == {m.id for m in ms} and seconds == 100.0 and session == 2
    back = mutation.from_record(ms[1], got[ms[1].id], {ms[1].id: "reason"})
    assert back.status == "equivalent" and back.certificates == ("P1", "P2")
    assert mutation.from_record(ms[0], got[ms[0].id], {}).killed_by == "P1"


def test_sampled_scores_weight_the_total_by_package_population():
    rows = [{"package": "psa", "mutants": 10, "equivalent": 0, "killed": 9, "timeout": 0},
            {"package": "sim", "mutants": 10, "equivalent": 0, "killed": 5, "timeout": 0},
            {"package": "total", "mutants": 20, "equivalent": 0, "killed": 14, "timeout": 0}]
    out = {r["package"]: r for r in mutation.sampled_scores(rows, {"psa": 100, "sim": 300})}
    assert out["total"]["score_percent"] == 60.0                     # 0.25 * 90 % + 0.75 * 50 %, not 70 %
    assert out["total"]["population"] == 400 and out["psa"]["population"] == 100
    lo, hi = out["psa"]["score_ci95"]
    assert lo < 90.0 < hi and hi < 100.0
    lo, hi = out["total"]["score_ci95"]
    assert lo < 60.0 < hi


@pytest.mark.parametrize("text, fragment", [
    ('[equivalent]\n"../../etc/passwd:1:1:x" = "r"\n', "keys must be mutant ids"),
    ('[equivalent]\n"theorylab/psa/x.py::f::const(1->2)::0123abcd.0" = 5\n', "reason string"),
    ('[equivalent]\n"theorylab/psa/x.py:1:2:const(1->2)" = "r"\n', "keys must be mutant ids"),   # the former form
    ('equivalent = 5\n', "exactly one table"),
    ('[other]\nx = 1\n', "exactly one table"),
    ('[equivalent\n', "must be a TOML file"),
])
def test_equivalent_file_of_the_wrong_shape_is_one_parameter_error(tmp_path, text, fragment):
    path = tmp_path / "eq.toml"
    path.write_text(text)
    with pytest.raises(mutation.ParameterError, match=re.escape(fragment)) as info:
        mutation.load_equivalent(path)
    assert "--equivalent" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("text, fragment", [
    ('{"id": "a", "status": "killed", "seconds": 1.0}\n{"id": "b", "sta', "line 2 is not valid JSON"),
    ('[1, 2]\n', "line 1: must be a verdict record"),
    ('{"id": "a", "status": "dead"}\n', "status must be one of"),
    ('{"id": "a", "status": "killed", "elapsed": 1e308}\n', "elapsed must be a finite real number >= 0 and <= 1e+09"),
    ('{"id": "a", "status": "killed", "certificates": "P1"}\n', "certificates must be a list"),
])
def test_journal_of_the_wrong_shape_is_one_parameter_error(tmp_path, text, fragment):
    path = tmp_path / "m.json.partial.jsonl"
    path.write_text(text)
    with pytest.raises(mutation.ParameterError, match=re.escape(fragment)) as info:
        mutation.read_journal(path)
    assert str(info.value).startswith("--resume") and "\n" not in str(info.value)


def _by_scope(mutants) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for m in mutants:
        out.setdefault(m.qualname, set()).add(m.id)
    return out


def test_ids_stay_the_same_when_other_lines_move():
    """Lines inserted at the top of a copy of shear.py and into one of its functions: every mutant of the
    other functions (and of module level) keeps its id though its line moved; the edited function keeps the
    ids of its old mutants and gains only those of the new statement."""
    path = "theorylab/psa/shear.py"
    src = (library_root() / path).read_text()
    before = generate(path, src)
    tree = ast.parse(src)
    fns = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    edited = max(fns, key=lambda f: sum(m.qualname == f.name for m in before))
    first = edited.body[1] if isinstance(edited.body[0], ast.Expr) and isinstance(
        getattr(edited.body[0], "value", None), ast.Constant) else edited.body[0]
    lines = src.split("\n")
    lines.insert(first.lineno - 1, " " * first.col_offset + "_pad = 7 * 3 + 1")
    top = ["# a comment", "_EXTRA = 2.0 * 5", ""]
    moved = "\n".join(lines[:1] + top + lines[1:]) if not lines[0].startswith('"""') else "\n".join(top + lines)
    after = generate(path, moved)
    old, new = _by_scope(before), _by_scope(after)
    assert {m.line for m in after if m.qualname != "<module>"} != {m.line for m in before if m.qualname != "<module>"}
    for scope, ids in old.items():
        if scope not in (edited.name, "<module>"):
            assert new[scope] == ids, scope
    assert old[edited.name] < new[edited.name]
    added = {i.split("::")[2] for i in new[edited.name] - old[edited.name]}
    assert added == {"const(7->8)", "const(7->6)", "const(3->4)", "const(3->2)", "const(1->2)", "const(1->0)",
                     "arith(*->/)", "arith(+->-)", "drop(*,left)", "drop(*,right)", "drop(+,left)", "drop(+,right)"}, added
    assert {i.split("::")[2] for i in new["<module>"] - old["<module>"]} == {"const(2.0->4.0)", "const(2.0->1.0)",
                                                                            "const(5->6)", "const(5->4)", "arith(*->/)",
                                                                            "drop(*,left)", "drop(*,right)"}
    assert old["<module>"] <= new["<module>"]
    line_before = {m.id: m.line for m in before}
    shifts = {m.line - line_before[m.id] for m in after if m.id in line_before}
    assert shifts == {3, 4}, shifts          # 3 lines above every mutant, one more above those below the insertion


def test_ids_ignore_formatting_and_count_repeats():
    from theorylab.mutation.mutants import normalised, statement_digest

    assert normalised(ast.parse("x = (1 +  2)  # c")) == normalised(ast.parse("x = 1 + 2"))
    assert statement_digest(ast.parse("if a < 1:\n    y = 1\n").body[0]) == \
        statement_digest(ast.parse("if a < 1:  # other body\n    z = 3\n").body[0])     # a header's digest
    src = "def f(a):\n    a = a + 1\n    a = a + 1\n    return a\n"
    plus = sorted((m.line, m.id) for m in generate("theorylab/x.py", src) if m.operator == "arith(+->-)")
    assert [i.rsplit(".", 1)[1] for _, i in plus] == ["0", "1"] and len({i.rsplit(".", 1)[0] for _, i in plus}) == 1


def test_line_maps_from_coverage_contexts(tmp_path, monkeypatch):
    """coverage.py's contexts give the lines a certificate ran, and the function lines run on import."""
    coverage = pytest.importorskip("coverage")
    from theorylab.mutation import linecov

    pkg = tmp_path / "covpkg_mutation_test"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text("def table():\n    return [i * 2 for i in range(3)]\n\n\nTABLE = table()\n\n\n"
                                "def late(x):\n    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    recorder = linecov.Recorder(str(tmp_path))
    cov = coverage.Coverage(data_file=None, config_file=False, source=[recorder.root])
    cov.start()
    imports = linecov._ImportContexts(cov, recorder)
    try:
        recorder.current = "C1"
        cov.switch_context("C1")
        from covpkg_mutation_test import mod
        recorder.current = "C2"
        cov.switch_context("C2")
        assert mod.late(1) == 2
        cov.switch_context(linecov.SETUP)
    finally:
        imports.close()
        cov.stop()
    maps = linecov._maps(cov.get_data(), recorder)
    rel = "covpkg_mutation_test/mod.py"
    assert maps["import_lines"] == {rel: [2]}
    assert maps["lines"] == {"C1": {rel: [2]}, "C2": {rel: [9]}}
    assert rel in maps["touched"]["C1"] and maps["touched"]["C2"] == [rel]


def test_help_names_exactly_the_mutated_packages():
    """The help text and the --package default list the packages of ``PACKAGES``, each an existing
    folder or shared module of the library (a moved package, such as the old ``sim``, is not named)."""
    from theorylab.cli import mutate as cli_mutate
    root = library_root()
    for pkg in mutation.PACKAGES:
        assert (root / "theorylab" / pkg).is_dir() or (root / "theorylab" / f"{pkg}.py").is_file(), pkg
    named = re.search(r"library packages\s+(.*?) --", cli_mutate.HELP, re.S).group(1)
    assert re.findall(r"\w+", named.replace("and the shared module", "")) == list(mutation.PACKAGES)
    parser = __import__("argparse").ArgumentParser()
    cli_mutate.register(parser.add_subparsers())
    action = next(a for a in parser._subparsers._group_actions[0].choices["mutate"]._actions
                  if "--package" in a.option_strings)
    assert action.help.endswith(f"(default: all of {' '.join(mutation.PACKAGES)})")


def test_certificate_paths_of_the_copy_are_named_as_in_the_checkout():
    """The coverage run's copy holds the certificates at theorylab/certificates/, the checkout's static
    analysis at certificates/: a module constant only a certificate reads is attributed to it."""
    raw = {"lines": {"G8": {"theorylab/certificates/graded/envelope_minimax.py": [180], "theorylab/graded/optimal.py": [3]}},
           "touched": {"G8": ["theorylab/certificates/graded/envelope_minimax.py", "theorylab/graded/optimal.py"]},
           "import_lines": {"theorylab/certificates/graded/envelope_minimax.py": [5]},
           "kernels": {}, "unwrapped": []}
    root = library_root()
    assert (root / "certificates").is_dir()                          # the tests run from a checkout
    cov = mutation.coverage_from(raw, root, ["G8"])
    assert cov.lines == {"G8": {"certificates/graded/envelope_minimax.py": [180], "theorylab/graded/optimal.py": [3]}}
    assert cov.touched == {"G8": ["certificates/graded/envelope_minimax.py", "theorylab/graded/optimal.py"]}
    assert cov.import_lines == {"certificates/graded/envelope_minimax.py": [5]}
    table3 = next(m for m in generate("theorylab/graded/optimal.py", (root / "theorylab/graded/optimal.py").read_text())
                  if m.scope == "module" and m.before == "0.8" and "TABLE3_PARAMETERS" in m.names)
    users = cov.analysis.users(table3.file, table3.names)
    g8 = next(u for u in users if u.file == "certificates/graded/envelope_minimax.py" and u.name == "g8_numeric")
    raw["lines"]["G8"]["theorylab/certificates/graded/envelope_minimax.py"] = [g8.lines[0] + 1]
    assert mutation.coverage_from(raw, root, ["G8"]).certificates(table3) == ["G8"]


def test_a_constant_reexported_by_a_package_star_import_is_traced_to_its_readers():
    """``theorylab.plga`` star-imports ``rope``: a certificate reading ``plga.J2`` reads rope's J2."""
    from theorylab.mutation.callgraph import analyse
    users = analyse(library_root()).users("theorylab/plga/rope.py", ["J2"])
    assert users is not None
    assert any(u.file == "certificates/plga/inference.py" and u.name == "collapse" for u in users)

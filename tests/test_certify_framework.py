"""The certificate framework: records, registry, runner, --list, --verify, docs, import hygiene."""
import copy
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from theorylab.certify import (Outcome, Skip, bound, certificate, computed, proxy, run, run_one, select)
from theorylab.certify.docs import coverage, markdown, without_status
from theorylab.certify.registry import REGISTRY, CertificateSpec
from theorylab.certify.verify import compare, environment_differences, report_problems
from theorylab.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _spec(fn, cid="X1", method="numeric"):
    return CertificateSpec(cid, "t", "paper", "claim", method, fn)


def test_runner_statuses_and_hashes():
    arr = np.arange(6.0).reshape(2, 3)
    ok = run_one(_spec(lambda: Outcome(True, (computed("a", 1.0, tolerance=0.1),), arrays={"x": arr}, seeds={"s": 3})))
    assert ok.status == "PASS" and ok.seeds == {"s": 3} and len(ok.array_sha256["x"]) == 64
    again = run_one(_spec(lambda: Outcome(True, arrays={"x": arr.copy()})))
    # same code run twice: bitwise (the same array hashed again)
    assert again.array_sha256["x"] == ok.array_sha256["x"]
    changed = run_one(_spec(lambda: Outcome(True, arrays={"x": arr + 1e-16 * 0 + np.eye(2, 3) * 1e-12})))
    assert changed.array_sha256["x"] != ok.array_sha256["x"]
    assert run_one(_spec(lambda: Outcome(False))).status == "FAIL"
    assert run_one(_spec(lambda: 1 / 0)).status == "ERROR"
    assert run_one(_spec(lambda: True)).status == "ERROR"          # not an Outcome: never PASS

    def skip():
        raise Skip("extra missing")
    assert run_one(_spec(skip)).status == "SKIP"


def test_fail_fast_stops():
    specs = [_spec(lambda: Outcome(False), "X1"), _spec(lambda: Outcome(True), "X2")]
    assert [c.id for c in run(specs, fail_fast=True)] == ["X1"]
    assert len(run(specs)) == 2


def test_registry_rejects_bad_method_and_duplicates():
    with pytest.raises(ValueError):
        certificate("X9", title="t", paper="p", claim="c", method="guess")
    with pytest.raises(ValueError):
        proxy("p", 1.0, formula="f").__class__("n", 1, kind="estimate")
    def first():
        return Outcome(True)

    def second():
        return Outcome(True)

    certificate("ZZ1", title="t", paper="p", claim="c", method="exact")(first)
    try:
        with pytest.raises(ValueError):
            certificate("ZZ1", title="t", paper="p", claim="c", method="exact")(second)
    finally:
        REGISTRY.pop("ZZ1", None)


def test_registry_duplicate_detection_compares_the_module():
    def check():
        return Outcome(True)

    def twin():  # same qualified name, different module: a real duplicate
        return Outcome(True)

    twin.__qualname__, twin.__module__ = check.__qualname__, "theorylab.certificates.elsewhere"
    certificate("ZZ2", title="t", paper="p", claim="c", method="exact")(check)
    try:
        certificate("ZZ2", title="t", paper="p", claim="c", method="exact")(check)  # re-import: accepted
        with pytest.raises(ValueError, match="ZZ2 registered twice .*theorylab.certificates.elsewhere"):
            certificate("ZZ2", title="t", paper="p", claim="c", method="exact")(twin)
    finally:
        REGISTRY.pop("ZZ2", None)


def _entry(**changes):
    base = {"id": "P0", "status": "PASS", "method": "numeric", "seeds": {"rng": 1},
            "evidence": [computed("x", 1.0, tolerance=1e-6).as_dict(), bound("b", [0.1, 0.2], "f").as_dict()],
            "array_sha256": {"a": "ab" * 32}}
    base.update(changes)
    return base


def test_compare_reports_each_kind_of_difference():
    rec = _entry()
    assert compare(rec, copy.deepcopy(rec)) == ()
    fresh = copy.deepcopy(rec)
    fresh["evidence"][0]["value"] = 1.0 + 5e-7           # within tolerance
    assert compare(rec, fresh) == ()
    fresh["evidence"][0]["value"] = 1.0 + 5e-6           # beyond tolerance
    fresh["evidence"][1]["value"] = [0.1, 0.2000001]     # exact evidence changed
    fresh["status"], fresh["seeds"], fresh["array_sha256"] = "FAIL", {"rng": 2}, {"a": "cd" * 32}
    diffs = "\n".join(compare(rec, fresh))
    for needle in ("status PASS -> FAIL", "'x'", "'b'", "SHA-256", "seeds"):
        assert needle in diffs
    fresh = copy.deepcopy(rec)
    fresh["evidence"] = fresh["evidence"][:1]
    assert any("missing" in d for d in compare(rec, fresh))


def test_report_problems_and_environment():
    report = {"certificates": [_entry(), _entry(id="P1", status="FAIL")], "summary": {"PASS": 2, "FAIL": 0, "total": 2}}
    problems = report_problems(report)
    assert any("PASS" in p for p in problems) and any("FAIL" in p for p in problems)
    diffs = environment_differences({"python": "3.9", "versions": {"numpy": "1.0"}, "seeds": {"P1": {}}},
                                    {"python": "3.11", "versions": {"numpy": "1.0"}})
    assert diffs == ("python: '3.9' (report) vs '3.11' (here)",)


def test_cli_json_and_verify_roundtrip(tmp_path, capsys):
    path = tmp_path / "r.json"
    assert main(["certify", "--only", "P11", "P16", "P12.numeric", "--out", str(path)]) == 0
    report = json.loads(path.read_text())
    assert {c["id"] for c in report["certificates"]} == {"P11", "P16", "P12.numeric"}
    assert report["summary"]["PASS"] == 3 and "versions" in report["environment"]
    assert report["environment"]["seeds"] == {"P12.numeric": {"rng": 12}}
    capsys.readouterr()
    assert main(["certify", "--verify", str(path)]) == 0
    assert "3/3 certificates reproduced: report verified" in capsys.readouterr().out
    report["certificates"][1]["evidence"][-1]["value"] = 0.5   # tamper one number
    path.write_text(json.dumps(report))
    assert main(["certify", "--verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "DIFFERS" in out and "report NOT verified" in out


@pytest.mark.parametrize("argv", [["certify", "--verify", "/nonexistent/r.json"],
                                  ["certify", "--only", "P99"],
                                  ["certify", "--only", "P11", "--out", "/nonexistent/dir/r.json"],
                                  ["certify", "--only", "P11", "--docs", "/nonexistent/dir/c.md"]])
def test_cli_bad_input_exit_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1


def test_verify_rejects_malformed_report(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"certificates": [{"id": "P11"}]}')
    assert main(["certify", "--verify", str(bad)]) == 2


def test_list_shows_every_row_with_a_precise_state(capsys):
    assert main(["certify", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out if line and line[0] in "PAG" and line.split()[0][1:].isdigit()]
    from theorylab.certify.catalogue import CATALOGUE

    assert [line.split()[0] for line in rows] == list(CATALOGUE)
    for line in rows:
        state = line.split()[1]
        assert state in ("covered", "partial", "pending")
        if state != "covered":
            assert "[" in line  # a reason is given
    cov = {r["id"]: r for r in coverage()}
    assert cov["P14"]["status"] == "covered" and cov["P9"]["status"] in ("covered", "partial")


def test_docs_page_is_current():
    committed = open(os.path.join(ROOT, "docs", "certificates.md")).read()
    assert without_status(markdown()) == without_status(committed), \
        "docs/certificates.md is stale: run `theorylab certify --docs docs/certificates.md`"


def test_docs_name_library_functions():
    page = markdown({"A3": "PASS"})
    assert "`theorylab.plga.perron.perron_frobenius`" in page and "| PASS |" in page
    assert "`theorylab.plga.perron.collatz_wielandt_bounds`" in page


def test_import_paths_stay_free_of_sympy():
    code = ("import sys, theorylab, theorylab.psa.shear, theorylab.psa.softmax, theorylab.psa.transition, "
            "theorylab.certify, theorylab.certify.interval, theorylab.certify.verify, theorylab.certify.docs, "
            "theorylab.cli; from theorylab.cli import build_parser; build_parser(); "
            "print('sympy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"


def test_building_the_parser_imports_no_heavy_library():
    """Every command parses its arguments first: the parser's imports (each command module's ``register``) load
    none of scipy, numba, sympy or matplotlib (scipy.stats alone took 0.7 s of every command's start)."""
    code = ("import sys; from theorylab.cli import build_parser; build_parser(); "
            "print(sorted(m for m in ('scipy', 'numba', 'sympy', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_bench_certify_smoke(capsys):
    """The benchmark runs and reports cold and warm seconds (timings are measured, never asserted)."""
    assert main(["bench", "certify", "--only", "P11", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in out["rows"]] == ["P11"] and out["rows"][0]["status"] == "PASS"
    for key in ("cold_wall_seconds", "cold_wall_seconds_with_numba_disk_cache", "warm_wall_seconds",
                "baseline_python_import_theorylab_seconds"):
        assert out[key] > 0


def test_listing_the_certificates_does_not_import_sympy():
    """`theorylab certify --list` imports every certificate module; SymPy loads only when a check runs."""
    code = ("import sys; from theorylab.certify.docs import coverage; coverage(); "
            "print(sorted(m for m in ('sympy', 'theorylab.symbolic.exact') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


def test_the_docs_page_lists_a_symbolic_route_imported_inside_a_certificate():
    from theorylab.certify.docs import library_functions

    assert "theorylab.symbolic.plga.trace_power" in library_functions(select(["A5.symbolic"])[0])


def test_catalogue_library_names_current_modules():
    """Every catalogue row names the library modules it checks, each importable and none a deprecated
    re-export path (theorylab.plga.operator is one)."""
    import importlib

    from theorylab.certify.catalogue import CATALOGUE, LIBRARY

    assert set(LIBRARY) == set(CATALOGUE)
    for cid, modules in LIBRARY.items():
        for name in modules:
            doc = importlib.import_module(name).__doc__ or ""
            assert not doc.startswith("Deprecated"), f"{cid}: {name} is a deprecated import path"

"""``theorylab certify --verify``: a report is complete, unaltered and reproduces, or it is rejected."""
import json
import re

import pytest

from theorylab.certify import select
from theorylab.certify.runner import git_state
from theorylab.certify.verify import completeness_problems
from theorylab.cli import main

FAST = ["P11", "P13", "P16"]          # P13 is numeric with raw arrays


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("verify") / "r.json"
    assert main(["certify", "--only", *FAST, "--out", str(path)]) == 0
    return json.loads(path.read_text())


def _verify(tmp_path, report, capsys):
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(report))
    capsys.readouterr()
    code = main(["certify", "--verify", str(path)])
    return code, capsys.readouterr().out


def test_report_records_selection_identity_and_git(report):
    assert report["selection"] == {"only": FAST, "exact": False, "fail_fast": False}
    p13 = next(c for c in report["certificates"] if c["id"] == "P13")
    spec = next(s for s in select(["P13"]))
    assert (p13["title"], p13["paper"], p13["claim"]) == (spec.title, spec.paper, spec.claim)
    assert p13["array_sha256"] and all(re.fullmatch("[0-9a-f]{64}", h) for h in p13["array_sha256"].values())
    git = report["environment"]["git"]
    assert re.fullmatch("[0-9a-f]{40}", git["commit"]) and isinstance(git["dirty"], bool)


def test_git_state_outside_a_checkout_is_none(tmp_path):
    assert git_state(tmp_path) == {"commit": None, "dirty": None}


def test_clean_report_verifies(tmp_path, report, capsys):
    code, out = _verify(tmp_path, report, capsys)
    assert code == 0 and "3/3 certificates reproduced: report verified" in out


def test_deleted_certificate_fails(tmp_path, report, capsys):
    edited = json.loads(json.dumps(report))
    edited["certificates"] = [c for c in edited["certificates"] if c["id"] != "P16"]
    edited["summary"].update(PASS=2, total=2)
    code, out = _verify(tmp_path, edited, capsys)
    assert code == 1 and "missing from the report: P16" in out and "report NOT verified" in out


def test_report_without_selection_must_list_the_whole_registry(tmp_path, report, capsys):
    edited = json.loads(json.dumps(report))
    del edited["selection"]                 # pretend it was a full run: 3 of the registry listed
    code, out = _verify(tmp_path, edited, capsys)
    n_missing = len(select()) - len(FAST)
    assert code == 1 and f"{n_missing} certificate(s) of the registry missing" in out


def test_listed_but_not_selected_fails(tmp_path, report, capsys):
    edited = json.loads(json.dumps(report))
    edited["selection"]["only"] = ["P11", "P13"]
    code, out = _verify(tmp_path, edited, capsys)
    assert code == 1 and "listed but not selected by the report's --only: P16" in out


@pytest.mark.parametrize("key", ["claim", "title", "paper"])
def test_edited_identity_fails(tmp_path, report, capsys, key):
    edited = json.loads(json.dumps(report))
    edited["certificates"][0][key] += " (always)"
    code, out = _verify(tmp_path, edited, capsys)
    assert code == 1 and f"{key} altered" in out


def test_tampered_array_hash_fails(tmp_path, report, capsys):
    edited = json.loads(json.dumps(report))
    p13 = next(c for c in edited["certificates"] if c["id"] == "P13")
    name = sorted(p13["array_sha256"])[0]
    p13["array_sha256"][name] = "0" * 64
    code, out = _verify(tmp_path, edited, capsys)
    assert code == 1 and f"array '{name}' SHA-256 000000000000..." in out


def test_fail_fast_report_may_stop_at_its_first_failure():
    ids = ["P1", "P2", "P3", "P4"]
    entries = [{"id": "P1", "status": "PASS"}, {"id": "P2", "status": "FAIL"}]
    stopped = {"selection": {"only": None, "fail_fast": True}, "certificates": entries}
    assert completeness_problems(stopped, ids) == ()
    passed = {"selection": {"only": None, "fail_fast": True}, "certificates": entries[:1]}
    assert "P2, P3, P4" in completeness_problems(passed, ids)[0]     # no failure: the whole run is due
    full = {"selection": {"only": None, "fail_fast": False}, "certificates": entries}
    assert "P3, P4" in completeness_problems(full, ids)[0]


ARRAYS_PENDING_REWRITE: set[str] = set()      # emptied after the ref and mc merges; it must stay empty


def _hashed() -> list[str]:
    return [s.id for s in select() if s.method in ("numeric", "monte-carlo") and s.id not in ARRAYS_PENDING_REWRITE]


def test_the_numeric_and_monte_carlo_certificates_are_many():
    registered = {s.id for s in select()}
    assert ARRAYS_PENDING_REWRITE <= registered, sorted(ARRAYS_PENDING_REWRITE - registered)
    assert len(_hashed()) >= 8


@pytest.mark.parametrize("cert_id", _hashed())
def test_numeric_and_monte_carlo_certificates_hash_their_raw_arrays(cert_id):
    """Rule: a numeric or monte-carlo certificate returns at least one raw array (Outcome.arrays), so a
    report records the SHA-256 behind its evidence; the hashes reproduce run to run."""
    from theorylab.certify import run_one

    [spec] = [s for s in select() if s.id == cert_id]
    first, again = run_one(spec), run_one(spec)
    assert first.status == "PASS" and first.array_sha256, f"{spec.id} ({spec.method}) returns no raw arrays"
    # same code run twice: bitwise
    assert again.array_sha256 == first.array_sha256, f"{spec.id}: array hashes differ between two runs"


def test_exact_selection_is_recorded_and_respected(tmp_path, capsys):
    assert [s.id for s in select(["A10"], exact=True)] == ["A10"]
    assert {"A10", "A10.stability"} <= {s.id for s in select(["A10"])}
    path = tmp_path / "exact.json"
    assert main(["certify", "--only", "A10", "--exact", "--out", str(path)]) == 0
    report = json.loads(path.read_text())
    assert report["selection"]["exact"] is True and [c["id"] for c in report["certificates"]] == ["A10"]
    capsys.readouterr()
    assert main(["certify", "--verify", str(path)]) == 0
    report["selection"]["exact"] = False            # now A10 names the row: A10.stability is due
    code, out = _verify(tmp_path, report, capsys)
    assert code == 1 and "missing from the report:" in out and "A10.stability" in out


@pytest.mark.parametrize("edit, fragment", [
    (lambda r: {**r, "selection": {"only": [1, 2], "exact": False, "fail_fast": False}}, "selection must be null or"),
    (lambda r: {**r, "selection": {"only": [None], "exact": False, "fail_fast": False}}, "selection must be null or"),
    (lambda r: {**r, "selection": {"only": ["P11"], "exact": 3}}, "selection must be null or"),
    (lambda r: {**r, "selection": [1]}, "selection must be null or"),
    (lambda r: {**r, "certificates": [{**r["certificates"][0], "seconds": float("inf")}]}, "finite non-negative seconds"),
    (lambda r: {**r, "certificates": [{**r["certificates"][0], "evidence": [
        {**r["certificates"][0]["evidence"][0], "tolerance": float("nan")}]}]}, "finite non-negative tolerance"),
])
def test_malformed_report_fields_are_one_line_before_any_rerun(tmp_path, report, capsys, edit, fragment):
    """A selection of integers or nulls (was a TypeError traceback), inf seconds, a nan tolerance: exit 2."""
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(edit(report)))
    capsys.readouterr()
    assert main(["certify", "--verify", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and fragment in captured.err
    assert "--verify report" in captured.err and "Traceback" not in captured.err


def test_a_recorded_nan_is_reproduced_by_a_nan_and_only_by_one():
    """Evidence without a tolerance must agree exactly; a NaN (e.g. "the curve does not cross") is such a value,
    and NaN != NaN in Python, so a report holding one could never verify against its own re-run."""
    from theorylab.certify.verify import compare

    def entry(value):
        return {"id": "X", "status": "PASS", "evidence": [{"name": "root", "value": value, "tolerance": None}],
                "array_sha256": {}, "seeds": {}}

    recorded = json.loads(json.dumps(entry([1.0, float("nan")])))          # as a report file holds it
    assert compare(recorded, entry([1.0, float("nan")])) == ()
    assert compare(recorded, entry([1.0, 2.0])) != ()
    assert compare(json.loads(json.dumps(entry(float("nan")))), entry(0.5)) != ()
    assert compare(json.loads(json.dumps(entry(0.5))), entry(float("nan"))) != ()

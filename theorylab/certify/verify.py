"""Check a published certificate report by re-running it (``theorylab certify --verify REPORT.json``).

A report is trusted only as far as it reproduces and is complete:

* every certificate of this installation's registry must be listed -- or, when the report
  was made with ``--only`` (recorded in its ``selection`` block), every certificate that
  selection names; with ``--fail-fast``, every one up to the first FAIL or ERROR. A
  certificate missing from the report, or listed without being selected, fails it;
* every listed certificate is re-run here and compared field by field: its title, paper
  reference, claim and method must be the registry's (an edited claim fails); the status
  must be the same; every evidence item must come back with the same name, kind and
  formula, and a value equal to the recorded one (exactly when its ``tolerance`` is None,
  else within that absolute tolerance, elementwise for lists); the SHA-256 of every raw
  array and every seed must match;
* the report's own summary must agree with its certificate list.

Differences of environment (Python, platform, library versions, the git commit the report
was made from) are listed but do not by themselves make the verification fail: they are
what a reader needs to judge a difference.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from theorylab.errors import ParameterError, describe


@dataclass(frozen=True)
class CertificateCheck:
    """The verdict on one listed certificate: ``same`` or the list of what differs."""

    id: str
    recorded: str
    rerun: str | None
    differences: tuple[str, ...] = ()

    @property
    def same(self) -> bool:
        return not self.differences


@dataclass(frozen=True)
class Verification:
    """Result of :func:`verify`: per-certificate checks, report-level problems, environment diff."""

    checks: tuple[CertificateCheck, ...]
    report_problems: tuple[str, ...] = ()
    environment_differences: tuple[str, ...] = field(default_factory=tuple)

    @property
    def reproduced(self) -> bool:
        return not self.report_problems and all(c.same for c in self.checks)


def load_report(path: str) -> dict:
    """Read and shape-check a report written by ``theorylab certify --out``.

    Everything :func:`verify` reads is checked here, so a malformed report (not a regular file,
    binary, not UTF-8, not JSON, or a field of the wrong type: the selection, ids, statuses,
    evidence, tolerances and seconds -- finite and >= 0 -- and the seed) is one
    :class:`ParameterError` naming ``--verify``, the file and the first problem -- never an
    exception later."""
    from theorylab._io import parse_json, read_text

    report = parse_json(read_text("--verify", path), f"--verify report {path!r}")
    if not isinstance(report, dict) or not isinstance(report.get("certificates"), list):
        raise ParameterError(f"--verify report must hold a 'certificates' list ({path})")
    for key, kinds in (("environment", (dict, type(None))), ("summary", (dict, type(None)))):
        if not isinstance(report.get(key), kinds):
            raise ParameterError(f"--verify report's '{key}' must be an object ({path})")
    seed = report.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64):
        raise ParameterError(f"--verify report's 'seed' must be null or an integer in [0, 2^64) ({path})")
    problem = _selection_problem(report.get("selection"))
    if problem:
        raise ParameterError(f"--verify report's selection {problem} ({path})")
    for i, entry in enumerate(report["certificates"]):
        problem = _entry_problem(entry)
        if problem:
            raise ParameterError(f"--verify report entry {i} {problem} ({path})")
    return report


def _finite_or_null(x) -> bool:
    """None, or a finite number >= 0 (a tolerance, a time)."""
    return x is None or (isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x < math.inf)


SELECTION = 'must be null or {"only": null or a list of id strings, "exact": true/false, "fail_fast": true/false}'


def _selection_problem(sel) -> str | None:
    """What is wrong with a report's ``selection`` block (None: nothing; a missing block is the whole registry)."""
    if sel is None:
        return None
    only = sel.get("only") if isinstance(sel, dict) else None
    if not isinstance(sel, dict) or not (only is None or (isinstance(only, list) and all(isinstance(i, str)
                                                                                          for i in only))) \
            or not all(isinstance(sel.get(k, False), bool) for k in ("exact", "fail_fast")):
        return f"{SELECTION} (got {describe(sel)})"
    return None


def _entry_problem(entry) -> str | None:
    """What is wrong with one listed certificate entry, or None."""
    if not isinstance(entry, dict) or not {"id", "status", "evidence"} <= set(entry):
        return "lacks id, status or evidence"
    if not isinstance(entry["id"], str) or not isinstance(entry["status"], str):
        return "must have a string id and status"
    if not isinstance(entry["evidence"], list):
        return "must have an evidence list"
    for j, e in enumerate(entry["evidence"]):
        if not isinstance(e, dict) or not isinstance(e.get("name"), str):
            return f"evidence {j} must be an object with a string name"
        if not _finite_or_null(e.get("tolerance")):
            return f"evidence {j} must have a null or finite non-negative tolerance (got {describe(e.get('tolerance'))})"
    if not _finite_or_null(entry.get("seconds")):
        return f"must have null or finite non-negative seconds (got {describe(entry.get('seconds'))})"
    if not isinstance(entry.get("array_sha256", {}), dict):
        return "must have an object array_sha256"
    return None


def _values_match(old, new, tol) -> bool:
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(_values_match(a, b, tol) for a, b in zip(old, new))
    if tol is None or isinstance(old, (str, bool)) or isinstance(new, (str, bool)) or old is None or new is None:
        return old == new or _both_nan(old, new)           # NaN is a value a certificate may record (no crossing)
    try:
        a, b = float(old), float(new)
    except (TypeError, ValueError):
        return old == new
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= tol


def _both_nan(a, b) -> bool:
    return isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)


def _normalise(value):
    """JSON round trip, so a fresh value compares like a recorded one (tuples -> lists, numpy -> Python)."""
    return json.loads(json.dumps(value, default=str))


IDENTITY = ("title", "paper", "claim", "method")
"""Fields that say what a certificate checks: a report must carry them as the registry has them."""


def compare(recorded: dict, fresh: dict) -> tuple[str, ...]:
    """What differs between a recorded certificate entry and a fresh one (both ``Certificate.as_dict()``)."""
    diffs = []
    for key in IDENTITY:
        if key in fresh and recorded.get(key) != fresh[key]:
            diffs.append(f"{key} altered: report says {recorded.get(key)!r}, the registry {fresh[key]!r}")
    if recorded["status"] != fresh["status"]:
        diffs.append(f"status {recorded['status']} -> {fresh['status']}")
    old_ev = {e["name"]: e for e in recorded["evidence"]}
    new_ev = {e["name"]: e for e in _normalise(fresh["evidence"])}
    for name in old_ev.keys() - new_ev.keys():
        diffs.append(f"evidence '{name}' missing in the re-run")
    for name in new_ev.keys() - old_ev.keys():
        diffs.append(f"evidence '{name}' not in the report")
    for name in old_ev.keys() & new_ev.keys():
        o, n = old_ev[name], new_ev[name]
        for key in ("kind", "formula", "tolerance"):
            if o.get(key) != n.get(key):
                diffs.append(f"evidence '{name}': {key} {o.get(key)!r} -> {n.get(key)!r}")
        if not _values_match(o.get("value"), n.get("value"), o.get("tolerance")):
            tol = "exactly" if o.get("tolerance") is None else f"within {o.get('tolerance')}"
            diffs.append(f"evidence '{name}': {o.get('value')!r} -> {n.get('value')!r} (must agree {tol})")
    old_h, new_h = recorded.get("array_sha256", {}), fresh.get("array_sha256", {})
    for key in sorted(old_h.keys() | new_h.keys()):
        if old_h.get(key) != new_h.get(key):
            diffs.append(f"array '{key}' SHA-256 {str(old_h.get(key))[:12]}... -> {str(new_h.get(key))[:12]}...")
    if _normalise(recorded.get("seeds", {})) != _normalise(fresh.get("seeds", {})):
        diffs.append(f"seeds {recorded.get('seeds')} -> {fresh.get('seeds')}")
    return tuple(diffs)


def environment_differences(recorded: dict | None, current: dict) -> tuple[str, ...]:
    """Keys of the environment block that differ (flattened, e.g. ``versions.numpy``).

    The report's ``seeds`` entry is skipped here: seeds are compared per certificate.
    """
    def flat(d, prefix=""):
        out = {}
        for k, v in (d or {}).items():
            if isinstance(v, dict):
                out.update(flat(v, f"{prefix}{k}."))
            else:
                out[f"{prefix}{k}"] = v
        return out

    old, new = flat({k: v for k, v in (recorded or {}).items() if k != "seeds"}), flat(current)
    return tuple(f"{k}: {old.get(k)!r} (report) vs {new.get(k)!r} (here)"
                 for k in sorted(old.keys() | new.keys()) if old.get(k) != new.get(k))


def selection(report: dict) -> tuple[list[str] | None, bool, bool]:
    """``(only, exact, fail_fast)`` the report was made with (a report without the block: the whole registry)."""
    sel = report.get("selection")
    problem = _selection_problem(sel)
    if problem:
        raise ParameterError(f"--verify report's selection {problem}")
    if sel is None:
        return None, False, False
    return sel.get("only"), sel.get("exact", False), sel.get("fail_fast", False)


def completeness_problems(report: dict, registry_ids: list[str], selected_ids: list[str] | None = None
                          ) -> tuple[str, ...]:
    """Certificates the report should list but does not, and listed ones it should not.

    ``registry_ids``: every registered id, in catalogue order; ``selected_ids``: those the
    report's ``--only`` selects (None: all). With ``--fail-fast`` the report may stop after
    its first FAIL or ERROR.
    """
    only, _, fail_fast = selection(report)
    expected = list(registry_ids if selected_ids is None else selected_ids)
    listed = [c["id"] for c in report["certificates"]]
    if fail_fast:
        stops = [i for i, c in enumerate(report["certificates"]) if c["status"] in ("FAIL", "ERROR")]
        if stops:
            stop_id = listed[stops[0]]
            expected = expected[: expected.index(stop_id) + 1] if stop_id in expected else expected
    problems = []
    missing = [i for i in expected if i not in listed]
    if missing:
        scope = "the registry" if only is None else f"the report's selection --only {' '.join(only)}"
        problems.append(f"{len(missing)} certificate(s) of {scope} missing from the report: {', '.join(missing)}")
    extra = [i for i in listed if i in registry_ids and i not in expected]
    if extra:
        problems.append(f"listed but not selected by the report's --only: {', '.join(extra)}")
    return tuple(problems)


def report_problems(report: dict) -> tuple[str, ...]:
    """Internal consistency of the report: summary counts and duplicate ids."""
    problems = []
    ids = [c["id"] for c in report["certificates"]]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        problems.append(f"duplicate certificate ids in the report: {', '.join(dupes)}")
    summary = report.get("summary")
    if isinstance(summary, dict):
        for status in ("PASS", "FAIL", "ERROR", "SKIP"):
            n = sum(c["status"] == status for c in report["certificates"])
            if status in summary and summary[status] != n:
                problems.append(f"summary says {summary[status]} {status}, the list holds {n}")
        if "total" in summary and summary["total"] != len(ids):
            problems.append(f"summary total {summary['total']} != {len(ids)} listed certificates")
    else:
        problems.append("report has no summary block")
    return tuple(problems)


def verify(report: dict, on_check=None) -> Verification:
    """Re-run every certificate ``report`` lists and compare (see the module docstring)."""
    from theorylab.certify.registry import discover, select
    from theorylab.certify.runner import environment, run_one

    registry = discover()
    only, exact, _ = selection(report)
    try:
        selected = None if only is None else [s.id for s in select(only, exact=exact)]
        completeness = completeness_problems(report, [s.id for s in select()], selected)
    except ParameterError as exc:
        completeness = (f"the report's selection cannot be reproduced here: {exc}",)
    checks = []
    for entry in report["certificates"]:
        spec = registry.get(entry["id"])
        if spec is None:
            check = CertificateCheck(entry["id"], entry["status"], None, ("not registered in this installation",))
        else:
            fresh = run_one(spec, seed=report.get("seed")).as_dict()
            check = CertificateCheck(entry["id"], entry["status"], fresh["status"], compare(entry, fresh))
        checks.append(check)
        if on_check:
            on_check(check)
    return Verification(tuple(checks), completeness + report_problems(report),
                        environment_differences(report.get("environment"), environment()))

"""``theorylab certify``: run, list, verify and document the certificates of the claims catalogue."""
from __future__ import annotations

import argparse
import json

from theorylab._io import check_output_path, write_text_atomic

HELP = """\
Run every registered certificate (or those named by --only) and print one line per
certificate with its status (PASS, FAIL, ERROR, SKIP), method and seconds, then a
summary. Exit status 0 only if nothing FAILed or ERRORed.

--list shows catalogue coverage (covered / partial / pending, and why).
--json PATH writes the machine-readable report (the selection --only/--fail-fast;
certificates with id, title, paper, claim, method, status, seconds, evidence, array
SHA-256 and seeds; summary; environment with versions and the git commit of the
library when run from a checkout, and whether its tree was dirty).
--verify REPORT re-runs the certificates a report lists and says what differs
(title, paper or claim altered; status, evidence beyond its stated tolerance, array
hashes, seeds; environment and versions are listed) and fails when a certificate of
the registry -- or of the report's --only selection -- is missing from the report;
exit 0 only if the report is complete and everything reproduces.
--docs PATH writes the generated page docs/certificates.md (claim -> library function
-> certificate -> method -> status) from this run.
--json and --docs are checked before anything runs: the folder must exist and be
writable, the path must not be a directory, and the suffix must be .json / .md."""


def register(sub) -> None:
    p = sub.add_parser("certify", help="run the certificates of the claims catalogue",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", nargs="+", metavar="ID", help="certificate ids or catalogue rows (e.g. P14 G3)")
    p.add_argument("--exact", action="store_true", help="--only names certificate ids only (A1 without A1.symbolic)")
    p.add_argument("--list", action="store_true", help="show catalogue coverage and exit")
    p.add_argument("--json", metavar="PATH", help="write the machine-readable report to PATH")
    p.add_argument("--verify", metavar="REPORT", help="re-run the certificates of a JSON report and compare")
    p.add_argument("--docs", metavar="PATH", help="write the generated certificates page (Markdown) to PATH")
    p.add_argument("--fail-fast", action="store_true", help="stop at the first FAIL or ERROR")
    p.add_argument("--verbose", "-v", action="store_true", help="print the evidence of every certificate")
    p.set_defaults(handler=run)


def run(args) -> int:
    from theorylab.certify import environment, select
    from theorylab.certify import run as run_all

    if args.json:
        check_output_path("--json", args.json, ".json")
    if args.docs:
        check_output_path("--docs", args.docs, ".md")
    if args.list:
        return _list()
    if args.verify:
        return _verify(args.verify)
    specs = select(args.only, exact=args.exact)

    def show(cert):
        print(f"{cert.status:5s} {cert.id:16s} {cert.method:11s} {cert.seconds:7.2f}s  {cert.title}", flush=True)
        if args.verbose or cert.status in ("FAIL", "ERROR"):
            for e in cert.evidence:
                label = f" [{e.kind}{': ' + e.formula if e.formula else ''}]"
                print(f"        {e.name} = {e.value}{label}")
            if cert.note:
                print("        " + cert.note.strip().replace("\n", "\n        "))

    results = run_all(specs, fail_fast=args.fail_fast, on_result=show)
    counts = {s: sum(r.status == s for r in results) for s in ("PASS", "FAIL", "ERROR", "SKIP")}
    total = sum(r.seconds for r in results)
    print(f"\n{len(results)} certificates: " + ", ".join(f"{n} {s}" for s, n in counts.items())
          + f" in {total:.1f}s")
    if args.json:
        env = environment()
        env["seeds"] = {r.id: r.seeds for r in results if r.seeds}
        report = {"selection": {"only": args.only, "exact": args.exact, "fail_fast": args.fail_fast},
                  "certificates": [r.as_dict() for r in results],
                  "summary": {**counts, "total": len(results), "seconds": round(total, 3)},
                  "environment": env}
        write_text_atomic(args.json, json.dumps(report, indent=2, default=str) + "\n")
        print(f"report written to {args.json}")
    if args.docs:
        from theorylab.certify.docs import markdown

        write_text_atomic(args.docs, markdown({r.id: r.status for r in results}).rstrip("\n") + "\n")
        print(f"certificates page written to {args.docs}")
    return 0 if counts["FAIL"] == counts["ERROR"] == 0 else 1


def _list() -> int:
    from theorylab.certify.docs import coverage

    rows = coverage()
    for row in rows:
        certs = ", ".join(f"{s.id} ({s.method})" for s in row["certificates"])
        detail = "  ".join(x for x in (certs, row["reason"] and f"[{row['reason']}]") if x)
        print(f"{row['id']:4s} {row['status']:8s} {detail}")
    n = {k: sum(r["status"] == k for r in rows) for k in ("covered", "partial", "pending")}
    print(f"\n{n['covered']} covered, {n['partial']} partial, {n['pending']} pending of {len(rows)} catalogue rows")
    return 0


def _verify(path: str) -> int:
    from theorylab.certify.verify import load_report, verify

    report = load_report(path)

    def show(check):
        verdict = "SAME" if check.same else "DIFFERS"
        print(f"{verdict:7s} {check.id:16s} {check.recorded} -> {check.rerun or '-'}", flush=True)
        for d in check.differences:
            print(f"        {d}")

    result = verify(report, on_check=show)
    for problem in result.report_problems:
        print(f"REPORT  {problem}")
    if result.environment_differences:
        print("\nenvironment differs from the report's (listed for judgement; not a failure by itself):")
        for d in result.environment_differences:
            print(f"        {d}")
    else:
        print("\nenvironment identical to the report's")
    n_same = sum(c.same for c in result.checks)
    print(f"{n_same}/{len(result.checks)} certificates reproduced"
          + ("" if not result.report_problems else f"; {len(result.report_problems)} report problem(s)")
          + (": report verified" if result.reproduced else ": report NOT verified"))
    return 0 if result.reproduced else 1


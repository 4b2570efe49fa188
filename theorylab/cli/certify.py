"""``theorylab certify``: run the certificates of the claims catalogue."""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

HELP = """\
Run every registered certificate (or those named by --only) and print one line per
certificate with its status (PASS, FAIL, ERROR, SKIP), method and seconds, then a
summary. Exit status 0 only if nothing FAILed or ERRORed."""


def register(sub) -> None:
    p = sub.add_parser("certify", help="run the certificates of the claims catalogue",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", nargs="+", metavar="ID", help="certificate ids or catalogue rows (e.g. P14 G3)")
    p.add_argument("--list", action="store_true", help="show catalogue coverage and exit")
    p.add_argument("--json", metavar="PATH", help="write the machine-readable report to PATH")
    p.add_argument("--fail-fast", action="store_true", help="stop at the first FAIL or ERROR")
    p.add_argument("--verbose", "-v", action="store_true", help="print the evidence of every certificate")
    p.set_defaults(handler=run)


def run(args) -> int:
    from theorylab.certify import environment, run as run_all, select

    if args.list:
        return _list()
    specs = select(args.only)
    if args.json:
        _check_writable(args.json)

    def show(cert):
        print(f"{cert.status:5s} {cert.id:12s} {cert.method:11s} {cert.seconds:7.2f}s  {cert.title}", flush=True)
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
        report = {"certificates": [r.as_dict() for r in results],
                  "summary": {**counts, "total": len(results), "seconds": round(total, 3)},
                  "environment": environment()}
        _write_atomic(args.json, json.dumps(report, indent=2, default=str))
        print(f"report written to {args.json}")
    return 0 if counts["FAIL"] == counts["ERROR"] == 0 else 1


def _list() -> int:
    from theorylab.certify import select
    from theorylab.certify.catalogue import CATALOGUE, PENDING_WHERE

    by_row: dict[str, list] = {}
    for spec in select():
        by_row.setdefault(spec.claim_id, []).append(spec)
    for cid, (claim, method) in CATALOGUE.items():
        specs = by_row.get(cid)
        if specs:
            where = ", ".join(f"{s.id} ({s.method})" for s in specs)
            print(f"{cid:4s} covered  {where}")
        else:
            print(f"{cid:4s} pending  {PENDING_WHERE[cid[0]]}")
    covered = sum(cid in by_row for cid in CATALOGUE)
    print(f"\n{covered}/{len(CATALOGUE)} catalogue rows have certificates")
    return 0


def _check_writable(path: str) -> None:
    from theorylab.errors import ParameterError

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ParameterError(f"--json must be a path in an existing folder (no folder {folder})")


def _write_atomic(path: str, text: str) -> None:
    """Write via a temporary file and rename, so nothing half-written is left on disk."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".theorylab-", suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        fh.write(text + "\n")
    os.replace(tmp, path)

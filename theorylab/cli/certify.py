"""``theorylab certify``: run, list, verify and document the certificates of the claims catalogue."""
from __future__ import annotations

import argparse
import json
import sys

from theorylab._io import check_output_path, write_text_atomic
from theorylab.cli._args import (add_out_option, add_resource_options, check_cost, deprecated, integer, path, reads_file,
                                 refuse_unread, seed, text, writes_file)

HELP = """\
Run every registered certificate (or those named by --only) and print one line per
certificate with its status (PASS, FAIL, ERROR, SKIP), method and seconds, then a
summary. Exit status 0 only if nothing FAILed or ERRORed, and exit status 1 with one line
when the registry is empty or lacks a row of the claims catalogue (nothing, or not
everything, would be checked).

--workers N runs the certificates on N processes (default: every usable core). Lines are
printed, and the report written, in catalogue order whatever N, and every verdict,
evidence value, seed and array hash is the one a serial run (--workers 1) gives.

--seed N re-runs every Monte Carlo certificate with other draws: certificate ID gets the
base seed derived from (N, ID) (same N, same numbers; N an integer in [0, 2^64)); without
it the certificates use their fixed default seeds. The seed is recorded in the report.

--list shows catalogue coverage (covered / partial / pending, and why) and the
false-failure budget: the probability that each Monte Carlo certificate FAILs a correct
library, and their total.
-o/--out PATH writes the machine-readable report (the selection --only/--exact/--fail-fast;
certificates with id, title, paper, claim, method, status, seconds, evidence, array
SHA-256 and seeds; summary; --seed; environment with versions and the git commit of the
library when run from a checkout, and whether its tree was dirty).
--verify REPORT re-runs the certificates a report lists and says what differs
(title, paper or claim altered; status, evidence beyond its stated tolerance, array
hashes, seeds; environment and versions are listed) and fails when a certificate of
the registry -- or of the report's --only selection -- is missing from the report;
exit 0 only if the report is complete and everything reproduces.
--format json prints that report on standard output instead of the lines (table, the
default, prints the lines).
--docs PATH writes the generated page docs/certificates.md (claim -> library function
-> certificate -> method -> status) from this run.
--out and --docs are checked before anything runs: the folder must exist and be
writable, the path must not be a directory, and the suffix must be .json / .md.
--list reads no other option; --verify reads only the resource limits (the re-run is
estimated from the report's recorded seconds, at least 0.1 s per listed certificate)."""


def register(sub) -> None:
    p = sub.add_parser("certify", help="run the certificates of the claims catalogue",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", nargs="+", metavar="ID", type=text, help="certificate ids or catalogue rows (e.g. P14 G3)")
    p.add_argument("--exact", action="store_true", help="--only names certificate ids only (A1 without A1.symbolic)")
    p.add_argument("--list", action="store_true", help="show catalogue coverage and exit")
    deprecated(p, "--json", add_out_option(p, "the machine-readable report (JSON) to PATH"))
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="table: one line per certificate and a summary (default); json: the report on stdout")
    reads_file(p.add_argument("--verify", metavar="REPORT", type=path,
                              help="re-run the certificates of a JSON report and compare"), "report")
    writes_file(p.add_argument("--docs", metavar="PATH", type=path,
                               help="write the generated certificates page (Markdown) to PATH"))
    p.add_argument("--seed", metavar="N", type=seed, help="re-run the Monte Carlo certificates with other draws "
                   "(integer in [0, 2^64); default: their fixed seeds)")
    p.add_argument("--fail-fast", action="store_true", help="stop at the first FAIL or ERROR")
    deprecated(p, "--jobs", p.add_argument(
        "--workers", metavar="N", type=integer(1, 256), default=None,
        help="processes to run the certificates on (default: every usable core); the report, its order, "
             "verdicts, seeds and hashes do not depend on N"))
    p.add_argument("--verbose", "-v", action="store_true", help="print the evidence of every certificate")
    add_resource_options(p)
    p.set_defaults(handler=run)


def _refuse_unread(args) -> None:
    """--list reads no other option; --verify only the resource limits, which nothing else reads."""
    given = {"--only": args.only is not None, "--out": args.out is not None, "--docs": args.docs is not None,
             "--fail-fast": args.fail_fast, "--verbose": args.verbose, "--verify": args.verify is not None,
             "--seed": args.seed is not None, "--exact": args.exact, "--workers": args.workers is not None,
             "--format": args.format != "table",
             "--max-memory": args.max_memory is not None, "--max-time": args.max_time is not None}
    if args.list:
        reads, mode = {"--list"}, "with --list"
    elif args.verify is not None:
        reads, mode = {"--verify", "--max-memory", "--max-time"}, "with --verify"
    else:
        reads, mode = ({"--only", "--exact", "--out", "--docs", "--fail-fast", "--verbose", "--seed", "--workers",
                       "--format"},
                      "without --verify")
    refuse_unread({k: v for k, v in given.items() if k not in reads}, mode)


def run(args) -> int:
    from theorylab.certify import environment, select
    from theorylab.certify import run as run_all
    _refuse_unread(args)
    seed = args.seed
    if args.out is not None:
        check_output_path("--out", args.out, ".json")
    if args.docs is not None:
        check_output_path("--docs", args.docs, ".md")
    if args.list:
        return _list()
    jobs = args.workers if args.workers is not None else usable_cores()
    if args.verify is None and (not args.only or len(args.only) > 1):   # several certificates: workers are used
        from theorylab.certify.runner import start_worker_server

        start_worker_server(jobs)       # its imports overlap ours (discovery below)
    if not _registry_complete():
        return 1
    if args.verify is not None:
        return _verify(args)
    specs = select(args.only, exact=args.exact)
    lines = args.format == "table"

    def show(cert):
        print(f"{cert.status:5s} {cert.id:16s} {cert.method:11s} {cert.seconds:7.2f}s  {cert.title}", flush=True)
        if args.verbose or cert.status in ("FAIL", "ERROR"):
            for e in cert.evidence:
                label = f" [{e.kind}{': ' + e.formula if e.formula else ''}]"
                print(f"        {e.name} = {e.value}{label}")
            if cert.note:
                print("        " + cert.note.strip().replace("\n", "\n        "))

    if seed is not None and lines:
        print(f"Monte Carlo certificates under --seed {seed}", flush=True)
    results = run_all(specs, fail_fast=args.fail_fast, on_result=show if lines else None, seed=seed,
                      jobs=jobs)
    counts = {s: sum(r.status == s for r in results) for s in ("PASS", "FAIL", "ERROR", "SKIP")}
    total = sum(r.seconds for r in results)
    if lines:
        print(f"\n{len(results)} certificates: " + ", ".join(f"{n} {s}" for s, n in counts.items())
              + f" in {total:.1f}s")
    if args.out is not None or not lines:
        env = environment()
        env["seeds"] = {r.id: r.seeds for r in results if r.seeds}
        report = {"selection": {"only": args.only, "exact": args.exact, "fail_fast": args.fail_fast},
                  "certificates": [r.as_dict() for r in results],
                  "summary": {**counts, "total": len(results), "seconds": round(total, 3)},
                  "seed": seed, "environment": env}
        text = json.dumps(report, indent=2, default=str) + "\n"
        if not lines:
            sys.stdout.write(text)
        if args.out is not None:
            write_text_atomic(args.out, text)
            if lines:
                print(f"report written to {args.out}")
    if args.docs is not None:
        from theorylab.certify.docs import markdown

        write_text_atomic(args.docs, markdown({r.id: r.status for r in results}).rstrip("\n") + "\n")
        if lines:
            print(f"certificates page written to {args.docs}")
    return 0 if counts["FAIL"] == counts["ERROR"] == 0 else 1


def usable_cores() -> int:
    """The processors this process may run on (its affinity mask where the platform has one)."""
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _registry_complete() -> bool:
    """Whether every catalogue row has a registered certificate; if not, say so in one line (exit 1).

    The main job must not pass with nothing (or less than the catalogue) checked."""
    from theorylab.certify.registry import IncompleteRegistry, check_complete, discover

    try:
        check_complete(discover())
    except IncompleteRegistry as exc:
        print(f"theorylab certify: {exc}", file=sys.stderr)
        return False
    return True


REPORT_BYTES_PER_BYTE = 50.0
"""Peak bytes of a parsed JSON report per byte of the file."""


def _seconds(value) -> float:
    """A recorded ``seconds`` field as a float (0 when it is not a finite non-negative number)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < float("inf")
    return float(value) if ok else 0.0


def _list() -> int:
    from theorylab.certify.docs import coverage

    rows = coverage()
    for row in rows:
        certs = ", ".join(f"{s.id} ({s.method})" for s in row["certificates"])
        detail = "  ".join(x for x in (certs, row["reason"] and f"[{row['reason']}]") if x)
        print(f"{row['id']:4s} {row['status']:8s} {detail}")
    n = {k: sum(r["status"] == k for r in rows) for k in ("covered", "partial", "pending")}
    print(f"\n{n['covered']} covered, {n['partial']} partial, {n['pending']} pending of {len(rows)} catalogue rows")
    print("\n" + false_failure_lines())
    return 0


def false_failure_lines() -> str:
    """The false-failure budget: each Monte Carlo certificate's probability of failing a correct library."""
    from theorylab.certify.montecarlo import FALSE_FAILURE_BUDGET
    from theorylab.certify.registry import false_failure_total, select

    mc = [s for s in select() if s.method == "monte-carlo"]
    lines = [f"  {s.id:16s} {s.false_failure:.1e}" for s in mc]
    return ("false-failure probability of each Monte Carlo certificate (FAIL on a correct library):\n"
            + "\n".join(lines) + f"\ntotal {false_failure_total(mc):.1e} (budget {FALSE_FAILURE_BUDGET:g}) "
            f"over {len(mc)} Monte Carlo certificates")


VERIFY_FLOOR_SECONDS = 0.1
"""Least seconds counted per listed (registered) certificate when estimating a --verify re-run."""


def _verify(args) -> int:
    from theorylab._io import input_cost
    from theorylab.certify.registry import discover
    from theorylab.certify.verify import load_report, verify
    from theorylab.resources import Cost

    check_cost(args, input_cost(args.verify, REPORT_BYTES_PER_BYTE))
    report = load_report(args.verify)
    registry = discover()
    listed = [e for e in report["certificates"] if e["id"] in registry]
    seconds = sum(max(_seconds(e.get("seconds")), VERIFY_FLOOR_SECONDS) for e in listed)
    check_cost(args, Cost(0.0, seconds, f"re-running {len(listed)} listed certificates"))

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


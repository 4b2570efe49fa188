"""``theorylab mutate``: mutation testing of the library by its certificates."""
from __future__ import annotations

import argparse
import os
from collections import Counter

from theorylab._io import check_output_path, write_text_atomic
from theorylab.cli._args import (add_out_option, add_progress_option, add_resource_options, deprecated, integer,
                                 reads_file, seed, show_progress, text)
from theorylab.cli._output import add_format_option, emit

HELP = """\
Plant plausible one-line mutants (operator swaps, constants, comparison flips, dropped
terms, removed wrappers, off-by-one bounds, and/or) in a copy of the library packages
psa, graded, plga, nn, symbolic and the shared module rng -- one at a time -- and run
`theorylab certify` on the copy: a mutant is killed when certify FAILs or ERRORs (or times out). Only the certificates
that execute the mutated line run (per-certificate line coverage, measured once), with
--fail-fast; a mutant no certificate executes survives as "not covered".
Prints the score per package (killed / non-equivalent mutants) and the survivors.

The full run takes hours on two cores (run it under `nice -n 10`):
    theorylab mutate --out results/mutation.json
Quick looks: --package, --file, --mutant, --max-mutants N --seed S. An estimate of every
package's score in a fraction of the time: --per-package N (a seeded sample of N mutants
per package; the scores then carry 95 % Wilson intervals).
Mutants listed with a reason in --equivalent (TOML table [equivalent], "id" = "reason")
leave the score when they survive. Exit status 0 unless the run could not start."""


def register(sub) -> None:
    p = sub.add_parser("mutate", help="mutation testing of the library by its certificates (slow)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--package", nargs="+", metavar="PKG", type=text,
                   help="library packages to mutate (default: all of psa graded plga nn symbolic rng)")
    p.add_argument("--file", nargs="+", metavar="PATH", type=text, help="library files to mutate (e.g. theorylab/psa/shear.py)")
    p.add_argument("--mutant", nargs="+", metavar="ID", type=text, help="run exactly these mutant ids (file::scope::operator::statement.k, as --list prints them)")
    p.add_argument("--max-mutants", type=int, metavar="N", help="run a seeded sample of N mutants")
    p.add_argument("--per-package", type=int, metavar="N",
                   help="run a seeded sample of N mutants of each package (scores then carry 95%% intervals)")
    p.add_argument("--seed", type=seed, default=0,
                   help="seed of the --max-mutants / --per-package sample, an integer in [0, 2^64) (default 0)")
    p.add_argument("--workers", type=int, default=2, help="parallel workers (default 2)")
    p.add_argument("--certificates", nargs="+", metavar="ID", type=text,
                   help="consider only these certificates (quick runs; the score is then partial)")
    reads_file(p.add_argument("--equivalent", default=None, metavar="PATH",
                              help="equivalent-mutant file (default: results/mutation-equivalent.toml of the "
                                   "checkout)"), "equivalent")
    p.add_argument("--isolation", choices=("fork", "exec"), default="fork",
                   help="fork each run from a pre-imported interpreter (default) or exec a new one")
    deprecated(p, "--json", add_out_option(p, "the full result (every mutant) to PATH (JSON); verdicts are "
                                              "journalled to PATH.partial.jsonl while the run goes on"))
    reads_file(p.add_argument("--resume", action="store_true",
                              help="keep the verdicts of PATH.partial.jsonl (an interrupted --out run) and run "
                                   "the rest"), "journal", beside=("--out", ".partial.jsonl"))
    p.add_argument("--list", action="store_true", help="list the mutants that would run and exit")
    p.add_argument("--show-survivors", action="store_true", help="print every survivor (default: counts by file)")
    add_progress_option(p)
    add_format_option(p)
    add_resource_options(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    from theorylab.mutation import run as mutation
    from theorylab.mutation.planting import library_root
    from theorylab.certify.registry import select
    from theorylab.errors import ParameterError

    if args.out:
        check_output_path("--out", args.out, ".json")
    if args.workers < 1 or any(n is not None and n < 1 for n in (args.max_mutants, args.per_package)):
        raise ParameterError("--workers, --max-mutants and --per-package must be integers >= 1")
    bad = [p for p in args.package or () if p not in mutation.PACKAGES]
    if bad:
        raise ParameterError(f"--package must be among {', '.join(mutation.PACKAGES)} (got {', '.join(bad)})")
    if args.certificates:
        args.certificates = [s.id for s in select(args.certificates)]
    root = library_root()
    eq_path = args.equivalent or str(root / mutation.DEFAULT_EQUIVALENT)
    if args.equivalent and not os.path.lexists(args.equivalent):
        raise ParameterError(f"--equivalent must name an existing TOML file (no file {args.equivalent})")
    equivalent = mutation.load_equivalent(eq_path)
    packages = args.package or mutation.PACKAGES
    mutants = mutation.collect(root, packages, args.file, args.mutant, args.max_mutants, args.seed,
                               args.per_package)
    if args.list:
        emit([{"id": m.id, "location": m.location, "scope": m.scope, "before": m.before, "after": m.after}
              for m in mutants], args.format)
        return 0
    _require_coverage()
    journal = args.out and args.out + ".partial.jsonl"
    prior, prior_seconds, session = [], 0.0, 0
    if args.resume:
        if not journal or not os.path.lexists(journal):
            raise ParameterError("--resume needs --out PATH of an interrupted run (no PATH.partial.jsonl found)")
        rows, prior_seconds, session = mutation.read_journal(journal)
        prior = [mutation.from_record(m, rows[m.id], equivalent) for m in mutants if m.id in rows]
        mutants = [m for m in mutants if m.id not in rows]
        print(f"resuming: {len(prior)} verdicts kept from {journal}, {len(mutants)} mutants to run")
    elif journal and os.path.exists(journal):
        os.remove(journal)
    try:
        result = mutation.run(mutants, root=root, workers=args.workers, certificates=args.certificates,
                              equivalent=equivalent, isolation=args.isolation, progress=show_progress(args),
                              journal=journal, prior=prior, prior_seconds=prior_seconds, session=session)
    except mutation.BaselineFailed as exc:
        print(f"theorylab mutate: {exc}")
        return 1
    result["settings"].update(packages=args.package or list(mutation.PACKAGES), files=args.file,
                              max_mutants=args.max_mutants, per_package=args.per_package, seed=args.seed,
                              sessions=session + 1,
                              equivalent_file=os.path.relpath(eq_path, root) if eq_path.startswith(str(root)) else eq_path)
    if args.max_mutants is not None or args.per_package is not None:
        population = Counter(m.package for m in mutation.collect(root, packages, args.file, args.mutant))
        result["scores"] = mutation.sampled_scores(result["scores"], population)
    if args.out:
        write_text_atomic(args.out, mutation.dumps(result))
        if os.path.exists(args.out + ".partial.jsonl"):
            os.remove(args.out + ".partial.jsonl")
    _print(result, args)
    return 0


def _require_coverage() -> None:
    """One line naming the install when coverage.py (the per-certificate line coverage) is missing."""
    from importlib.util import find_spec

    from theorylab.errors import ParameterError
    from theorylab.mutation.linecov import INSTALL_HINT

    if find_spec("coverage") is None:
        raise ParameterError(INSTALL_HINT)


def _print(result: dict, args) -> None:
    columns = ["package", "mutants", "equivalent", "killed", "timeout", "survived", "not_covered", "score_percent"]
    emit(result["scores"], args.format, columns=columns + (["population", "score_ci95"]
                                                           if "score_ci95" in result["scores"][0] else []))
    if args.format != "table":
        return
    survivors = [m for m in result["mutants"] if m["status"] in ("survived", "not-covered")]
    print(f"\n{len(survivors)} survivors; run {result['seconds']:.0f}s (setup {result['setup_seconds']:.0f}s)")
    if args.show_survivors:
        for m in survivors:
            print(f"  {m['status']:11s} {m['id']}  ({m.get('location', '')})  {m['before']} -> {m['after']}")
    else:
        for file, n in sorted(Counter(m["id"].split(":")[0] for m in survivors).items()):
            print(f"  {n:4d}  {file}")
    for key, label in (("wrongly_listed_equivalent", "listed as equivalent but killed"),
                       ("stale_equivalent_ids", "listed as equivalent but no longer generated")):
        if result[key]:
            print(f"\n{label}: " + ", ".join(result[key]))
    if args.out:
        print(f"\nresult written to {args.out}")

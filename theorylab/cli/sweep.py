"""``theorylab sweep run|status|export``: resumable parameter sweeps into a SQLite store."""
from __future__ import annotations

import argparse

from theorylab._io import check_output_path, write_text_atomic
from theorylab.cli._args import (add_out_option, add_progress_option, add_resource_options, deprecated, reads_file,
                                 show_progress, text)
from theorylab.cli._output import add_format_option, emit

HELP = """\
Resumable parameter sweeps of the PSA reduced score model (docs/sweeps.md).

  theorylab sweep run SPEC.toml --store results.db [--workers N | --scheduler tcp://host:port | --local-cluster N]
  theorylab sweep status --store results.db
  theorylab sweep export --store results.db --format csv|json [--out FILE]

A store holds one spec: re-running the same spec resumes (finished points are never
recomputed); a different spec on the same store is refused (exit 2). Several runs of one spec
on one store divide the work (chunks are claimed in the store). A store is checked when it is
opened (integrity, schema, spec record, every row): a damaged one is refused (exit 2) and left
unchanged; a store is only created at a path that does not exist. Output paths are checked
before any work: the folder must exist and be writable (it is never created), the path
must not be a directory, and an export file must end in .csv, .json or .txt to match
--format csv, json or table."""

EXPORT_SUFFIX = {"csv": ".csv", "json": ".json", "table": ".txt"}
STORE_BYTES_PER_BYTE = 25.0
"""Peak bytes of a store's rows read into Python and rendered, per byte of the SQLite file (measured with
tracemalloc on an 8000-point store of 2.8 MB: 10.7 as a table, 12.8 as csv, 20.5 as json)."""


def check_store_cost(args) -> None:
    """Refuse, before the store is read, a store whose rows would exceed --max-memory / --max-time."""
    from theorylab._io import input_cost
    from theorylab.cli._args import check_cost

    check_cost(args, input_cost(args.store, STORE_BYTES_PER_BYTE))


def register(sub) -> None:
    p = sub.add_parser("sweep", help="resumable parameter sweeps (local or Dask) into a SQLite store",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    ss = p.add_subparsers(dest="sweep_command", metavar="ACTION", parser_class=type(p))
    ss.required = True

    r = ss.add_parser("run", help="compute every missing point of a spec")
    reads_file(r.add_argument("spec", metavar="SPEC.toml", help="the sweep spec (TOML)"), "spec")
    reads_file(r.add_argument("--store", required=True,
                              help="SQLite result store: created if the path does not exist (in an existing "
                                   "folder), else resumed; several runs of one spec may share it"), "store")
    where = r.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, default=None,
                       help="local process pool size, 0 to 4 x CPU count (default: CPU count; 0 = run in this "
                            "process)")
    where.add_argument("--scheduler", metavar="tcp://HOST:PORT", type=text, help="run on an existing Dask scheduler")
    where.add_argument("--local-cluster", type=int, metavar="N",
                       help="run on a fresh Dask LocalCluster of N workers (1 to 4 x CPU count)")
    add_progress_option(r)
    add_format_option(r)
    add_resource_options(r)
    r.set_defaults(handler=run)

    s = ss.add_parser("status", help="points done / total and provenance of a store")
    reads_file(s.add_argument("--store", required=True, help="SQLite sweep store"), "store")
    add_format_option(s)
    add_resource_options(s)
    s.set_defaults(handler=status)

    e = ss.add_parser("export", help="every stored point as CSV or JSON")
    reads_file(e.add_argument("--store", required=True, help="SQLite sweep store"), "store")
    deprecated(e, "--output", add_out_option(
        e, "to PATH (atomically; .csv/.json/.txt to match --format) instead of stdout"))
    add_format_option(e, default="csv")
    add_resource_options(e)
    e.set_defaults(handler=export)


def run(args) -> int:
    import os

    from theorylab import sweep

    check_output_path("--store", args.store, None)
    spec = sweep.load_spec(args.spec)
    sweep.check_executor_options(scheduler=args.scheduler, local_cluster=args.local_cluster, workers=args.workers)
    if args.scheduler is None:  # local workers: their tasks must fit in this machine's memory
        local = 1 if args.workers == 0 else args.local_cluster or args.workers or os.cpu_count() or 1
        sweep.check_memory(spec, local)
    # refuse a damaged store, or one bound to another spec, before starting any worker; a new
    # store is created only once the executor is up (a failed --scheduler leaves no file behind)
    if os.path.lexists(args.store):
        sweep.read_store(args.store, spec_hash=spec.hash)
    executor = sweep.make_executor(scheduler=args.scheduler, local_cluster=args.local_cluster, workers=args.workers)
    try:
        report = sweep.run_sweep(spec, args.store, executor=executor, progress=show_progress(args))
    except KeyboardInterrupt:
        import sys

        done = 0
        if os.path.lexists(args.store):
            with sweep.SweepStore(args.store) as store:
                done = store.count()
        print(f"theorylab sweep: interrupted with {done} of {spec.n_points()} points stored; "
              f"run the same command to resume", file=sys.stderr)
        return 130
    finally:
        executor.close()
    emit([{"name": spec.name, "points_total": report.total, "already_done": report.already_done,
           "computed": report.computed, "chunks": report.chunks, "seconds": round(report.seconds, 3),
           "executor": report.executor}], args.format)
    return 0


def status(args) -> int:
    from theorylab import sweep

    check_store_cost(args)
    emit([sweep.store_status(args.store)], args.format)
    return 0


def export(args) -> int:
    from theorylab.cli._output import render
    from theorylab import sweep

    if args.out is not None:
        check_output_path("--out", args.out, EXPORT_SUFFIX[args.format])
    check_store_cost(args)
    spec, rows, _ = sweep.read_store(args.store)
    text = render(rows, args.format, columns=list(sweep.store_columns(spec)))
    if args.out is not None:
        write_text_atomic(args.out, text + "\n")
    else:
        print(text)
    return 0

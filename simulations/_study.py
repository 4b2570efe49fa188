"""Shared plumbing of the study scripts: options, running a sweep, writing CSV/PNG/JSON.

Every study builds a sweep spec (the same TOML-shaped dict a user would write), runs it
with :func:`theorylab.sweep.run_sweep` into a store ``results/<study>-<hash>.db``
(so an interrupted study resumes and a re-run is instant), then writes a small CSV, a
PNG and a JSON summary into ``results/`` and prints the summary. The output folder is
created here, explicitly (:func:`output_folder`): the atomic writers of theorylab never
create folders.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys

from theorylab._io import write_text_atomic
from theorylab.cli._output import emit, jsonable, render
from theorylab.psa.compare import relative_error
from theorylab.errors import ParameterError
from theorylab import sweep

RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results")


def parser(description: str, samples: int, paper_samples: int) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--samples", type=int, default=None,
                   help=f"Monte Carlo draws per point (default {samples}; --paper-scale: {paper_samples})")
    p.add_argument("--paper-scale", action="store_true", help=f"paper-scale run ({paper_samples} draws per point)")
    p.add_argument("--seed", type=int, default=1, help="sweep seed (default 1)")
    p.add_argument("--out", default=RESULTS, help="output folder (default: results/ of the repository)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, default=None, help="local processes (0 = this process)")
    where.add_argument("--scheduler", help="Dask scheduler tcp://host:port")
    where.add_argument("--local-cluster", type=int, metavar="N", help="fresh Dask LocalCluster of N workers")
    p.add_argument("--no-progress", action="store_true")
    add_figure_only(p)
    p.set_defaults(default_samples=samples, paper_samples=paper_samples)
    return p


def add_figure_only(p: argparse.ArgumentParser) -> None:
    """The ``--figure-only`` option every study has: redraw its figures from its stored results."""
    p.add_argument("--figure-only", action="store_true",
                   help="only redraw the figures from the stored <study>.csv/.json in --out (no simulation)")


def stored(study: str, folder: str) -> tuple[list[dict], dict]:
    """The rows of ``<folder>/<study>.csv`` (numbers, booleans and empty cells as None restored) and the
    summary ``<folder>/<study>.json`` a previous run wrote; a missing file is a ParameterError."""
    paths = [os.path.join(folder, f"{study}.{ext}") for ext in ("csv", "json")]
    for path in paths:
        if not os.path.isfile(path):
            raise ParameterError(f"--figure-only: no stored results {path!r} (run the study first)")
    with open(paths[0], newline="") as fh:
        rows = [{k: _cell(v) for k, v in r.items()} for r in csv.DictReader(fh)]
    with open(paths[1]) as fh:
        return rows, json.load(fh)


def _cell(text: str):
    """A CSV cell as written by :func:`write_csv`: '' -> None, True/False -> bool, numbers -> int/float."""
    if text == "":
        return None
    if text in ("True", "False"):
        return text == "True"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def write_png(folder: str, name: str, plot, *args, **kwargs) -> str:
    """Draw ``plot(*args, **kwargs)`` and write it to ``<folder>/<name>.png`` in the house style
    (:func:`theorylab.plots.write_figure`)."""
    from theorylab.plots import write_figure

    return write_figure(os.path.join(folder, f"{name}.png"), plot, *args, **kwargs)


def samples_of(args) -> int:
    if args.samples is not None:
        return args.samples
    return args.paper_samples if args.paper_scale else args.default_samples


def run(study: str, spec_dict: dict, args) -> tuple[sweep.SweepSpec, list[dict]]:
    """Run (or resume) the sweep of ``study``; return the spec and its stored rows."""
    spec = sweep.spec_from_dict(spec_dict, source=study)
    store = os.path.join(output_folder(args.out), f"{study}-{spec.hash[:12]}.db")
    executor = sweep.make_executor(scheduler=args.scheduler, local_cluster=args.local_cluster,
                                   workers=0 if args.workers is None and spec.n_points() <= 4 else args.workers)
    try:
        report = sweep.run_sweep(spec, store, executor=executor, progress=not args.no_progress)
    finally:
        executor.close()
    print(f"{study}: {report.total} points ({report.computed} computed now, {report.already_done} from the "
          f"store {os.path.relpath(store)}) in {report.seconds:.1f} s on {report.executor}")
    return spec, sweep.export_rows(store)


def output_folder(path: str = RESULTS) -> str:
    """Create the study output folder ``path`` (and its parents) if missing; return it."""
    os.makedirs(path, exist_ok=True)
    return path


def write_csv(path: str, rows: list[dict], columns: list[str]) -> str:
    write_text_atomic(path, render(rows, "csv", columns=columns) + "\n")
    return path


def write_summary(path: str, summary: dict) -> None:
    write_text_atomic(path, json.dumps(jsonable(summary), indent=2, allow_nan=False) + "\n")


def report(title: str, rows: list[dict], columns: list[str], summary: dict) -> None:
    print(f"\n{title}")
    emit(rows, "table", columns=columns)
    print()
    for k, v in summary.items():
        if not isinstance(v, (dict, list)):
            print(f"{k}: {v:.4g}" if isinstance(v, float) else f"{k}: {v}")


def rel_err(a, b):
    """:func:`theorylab.psa.compare.relative_error` of two optional numbers (None if either is missing)."""
    return None if a is None or b is None else float(relative_error(a, b))


def main(fn) -> None:
    """Run a study's ``fn()`` (after creating the default ``results/`` folder); a ParameterError or
    an OSError (e.g. an --out folder that cannot be written) is one line on stderr and exit 2."""
    output_folder(RESULTS)
    try:
        fn()
    except (ParameterError, OSError) as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        sys.exit(2)

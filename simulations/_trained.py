"""Shared plumbing of the trained-model studies (f_, g_, h_): options, running the jobs, writing results/.

Runs go through ``theorylab.nn.runner.run_many`` (spawned workers, BLAS pinned to one
thread; same seed, same numbers). Each study writes ``results/<study>.csv`` (one row per
run), ``results/<study>.json`` (summary + rows) and ``results/<study>.png``, and prints its
wall-clock time and the CPU time summed over runs (the figure that does not depend on how
busy the machine is).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import _study
from theorylab.cli.train import summary_rows
from theorylab.nn.runner import default_workers, run_many

RESULTS = _study.RESULTS


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--steps", type=int, default=None, help="override the training steps of every run")
    p.add_argument("--seeds", type=int, default=None, help="override the number of seeds")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: min(2, CPUs))")
    p.add_argument("--out", default=RESULTS, help="output folder (default: results/ of the repository)")
    p.add_argument("--no-progress", action="store_true")
    _study.add_figure_only(p)
    return p


def run(study: str, jobs: list, args) -> tuple[list, dict]:
    """Run ``jobs`` ((config, seed) pairs) with a progress bar; return results and timing."""
    bar = None
    if not args.no_progress:
        from tqdm import tqdm
        bar = tqdm(total=sum(c.steps for c, _ in jobs), unit="step", file=sys.stderr, desc=study, leave=False)
    start = time.perf_counter()
    try:
        results = run_many(jobs, args.workers, progress=None if bar is None else bar.update)
    finally:
        if bar is not None:
            bar.close()
    wall = time.perf_counter() - start
    timing = {"runs": len(jobs), "steps": sum(c.steps for c, _ in jobs), "wall_seconds": wall,
              "cpu_seconds": sum(r.cpu_seconds for r in results), "workers": args.workers or default_workers()}
    print(f"{study}: {len(jobs)} runs in {wall:.0f} s wall, {timing['cpu_seconds']:.0f} s CPU "
          f"on {timing['workers']} workers")
    return results, timing


def grouped(configs, results) -> list[dict]:
    """Seed summaries per config (the CLI's table rows)."""
    return summary_rows(configs, results)


def write(study: str, args, runs: list[dict], columns: list[str], summary: dict, figure) -> None:
    """Write ``<study>.csv`` (the runs), ``<study>.json`` (summary + runs) and ``<study>.png``, drawn by
    ``figure(summary)`` from what the JSON holds (so ``--figure-only`` redraws the same figure)."""
    folder = _study.output_folder(args.out)
    _study.write_csv(os.path.join(folder, f"{study}.csv"), runs, columns)
    stored = {**summary, "runs": runs}
    _study.write_summary(os.path.join(folder, f"{study}.json"), stored)
    _study.write_png(folder, study, figure, json.loads(json.dumps(_study.jsonable(stored))))


def redraw(study: str, args, figure) -> None:
    """``--figure-only``: ``<study>.png`` from the stored ``<study>.json`` (no training)."""
    _, summary = _study.stored(study, args.out)
    print(_study.write_png(args.out, study, figure, summary))


def report_table(rows: list[dict], columns: list[str] | None = None) -> None:
    """Print a table (default: the seed-summary columns present in ``rows``)."""
    from theorylab.cli._output import emit
    print()
    default = ("part", "dk", "variant", "gamma", "seeds", "mean", "sd", "t_low", "t_high", "attention", "paper")
    emit(rows, "table", columns=columns or [c for c in default if any(c in r for r in rows)])
main = _study.main

"""Shared plumbing of the trained-model studies (f_, i_, j_, l_, m_): specs, running them through the sweep engine,
writing results/.

Every study builds one spec of the sweep task ``train`` (:mod:`theorylab.nn.sweep`: one point = one run of
``theorylab.nn.train.train(config, seed)``, seeds 0..n-1 as ``theorylab train`` numbers them) and runs it with
:func:`theorylab.sweep.run_sweep` into a store ``results/stores/<study>-<hash>.db`` (or ``--store``): a killed
study resumes where it stopped, a re-run is instant, and the runs spread over the executor's workers (a local
process pool, BLAS pinned to one thread per worker, or Dask with ``--scheduler``). Each study then writes
``results/<study>.csv`` (one row per run), ``results/<study>.json`` (summary, table, runs) and
``results/<study>.png``, and prints its wall time and the CPU time summed over its runs.

Fields another theorylab may not have yet (``init``, ``loss``, ``padding_placement``, the ``asymmetric``
variant): :func:`available` drops the parts of a spec this ``TrainConfig`` cannot express and the summary
lists them under ``not_run``, so a study runs today and runs whole once the fields exist.
"""
from __future__ import annotations

import argparse
import copy
import itertools
import json
import os
import sys
import time

import _study
from theorylab import sweep
from theorylab.errors import ParameterError
from theorylab.nn.train import TrainConfig

RESULTS = _study.RESULTS
FIELDS = set(TrainConfig.__dataclass_fields__)
INIT = {"init": "gamma-aware", "dtype": "float32"}
"""Every study's initialisation (the new default of TrainConfig, stated so that the record names it) and float
type: float32, the arithmetic of the paper's GPU runs and 1.6x faster here than float64 (``theorylab bench
train``); its gradients agree with float64 to ~2e-6 relative (tests/test_nn_speed.py); training amplifies rounding, so a
float32 run leaves the float64 run of the same seed after ~50 steps: it is another sample of the same protocol."""


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--steps", type=int, default=None, help="override the training steps of every run (smoke runs)")
    p.add_argument("--seeds", type=int, default=None, help="override the number of seeds")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, default=None, help="local worker processes (default: min(2, CPUs); "
                                                                 "0 = this process)")
    where.add_argument("--scheduler", help="Dask scheduler tcp://host:port (workers need OPENBLAS_NUM_THREADS=1)")
    p.add_argument("--store", default=None, help="sweep store (default: <out>/stores/<study>-<spec hash>.db)")
    p.add_argument("--out", default=RESULTS, help="output folder (default: results/ of the repository)")
    p.add_argument("--no-progress", action="store_true")
    _study.add_figure_only(p)
    return p


def spec_dict(name: str, train: dict, grids: list[dict], seeds: int, args=None) -> dict:
    """A ``train`` sweep spec (the TOML tables as dicts); ``args.steps``/``args.seeds`` override the budget."""
    train = {**INIT, **train}
    if args is not None and args.steps:
        train["steps"] = args.steps
        train["warmup"] = min(train.get("warmup", TrainConfig.warmup), max(args.steps // 4, 0))
    seeds = args.seeds if args is not None and args.seeds else seeds
    return {"sweep": {"task": "train", "name": name, "seeds": seeds}, "train": train, "grid": grids}


def _valid(train: dict, grid: dict) -> str | None:
    """Why ``grid`` (with ``train``) cannot run on this TrainConfig, or None."""
    missing = sorted((set(train) | set(grid)) - FIELDS)
    if missing:
        return f"TrainConfig has no field {', '.join(missing)}"
    names = list(grid)
    for values in itertools.product(*([v] if not isinstance(v, list) else v for v in grid.values())):
        try:
            TrainConfig(**{**train, **dict(zip(names, values))})
        except ParameterError as exc:
            return " ".join(str(exc).split())
    return None


def available(data: dict) -> tuple[dict, list[dict]]:
    """The part of spec ``data`` this theorylab can run, and the grid tables left out (with the reason).

    A ``[train]`` field TrainConfig lacks is dropped from ``[train]`` (its grid tables that need it stay
    out); a grid table is left out when it names a missing field or a value TrainConfig refuses (e.g. the
    variant ``asymmetric`` before it exists)."""
    data = copy.deepcopy(data)
    train = data["train"]
    dropped = {k: train.pop(k) for k in sorted(set(train) - FIELDS)}
    kept, skipped = [], [{"train": {k: v}, "why": f"TrainConfig has no field {k}"} for k, v in dropped.items()]
    for grid in data["grid"]:
        why = _valid(train, grid)
        (skipped.append({"grid": grid, "why": why}) if why else kept.append(grid))
    if not kept:
        raise ParameterError(f"{data['sweep']['name']}: nothing of this study runs on this theorylab "
                             f"({'; '.join(s['why'] for s in skipped)})")
    data["grid"] = kept
    return data, skipped


def make_executor(args):
    """The executor of ``args``: Dask with ``--scheduler``, this process with ``--workers 0``, else a local pool
    of ``--workers`` (default min(2, CPUs)) processes."""
    from theorylab.nn.runner import default_workers

    workers = args.workers if args.workers is not None or args.scheduler else default_workers()
    return sweep.make_executor(scheduler=args.scheduler, workers=workers)


def store_path(study: str, spec, args) -> str:
    if args.store:
        return args.store
    return os.path.join(_study.output_folder(os.path.join(args.out, "stores")), f"{study}-{spec.hash[:12]}.db")


def run(study: str, data: dict, args, executor=None) -> tuple[sweep.SweepSpec, list[dict], dict]:
    """Run (or resume) the sweep of ``data`` on ``executor`` (default :func:`make_executor`); its spec, stored
    rows and timing."""
    spec = sweep.spec_from_dict(data, source=study)
    store = store_path(study, spec, args)
    own = executor is None
    executor = executor or make_executor(args)
    start = time.perf_counter()
    try:
        report = sweep.run_sweep(spec, store, executor=executor, progress=not args.no_progress)
    finally:
        if own:
            executor.close()
    rows = sweep.export_rows(store)
    wall = time.perf_counter() - start
    timing = {"runs": report.total, "computed_now": report.computed, "from_store": report.already_done,
              "wall_seconds": wall, "cpu_seconds": sum(r["cpu_seconds"] for r in rows),
              "executor": report.executor, "store": os.path.relpath(store)}
    print(f"{study}: {report.total} runs ({report.computed} now, {report.already_done} from {timing['store']}) in "
          f"{wall:.0f} s wall, {timing['cpu_seconds']:.0f} s CPU on {report.executor}")
    return spec, rows, timing


def config_of(spec, row: dict) -> TrainConfig:
    """The TrainConfig of a stored run: the spec's fixed fields with the row's varied ones."""
    return TrainConfig(**{**dict(spec.train), **{k: row[k] for k in spec.varied}})


def table(spec, rows: list[dict], paper=None) -> list[dict]:
    """Seed summaries per configuration (the varied fields), with the paper's number where ``paper(config)``
    has one and the prediction's chance and ceiling."""
    from theorylab.nn.trainstats import seed_summary

    groups: dict = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in spec.varied), []).append(r)
    out = []
    for key, runs in groups.items():
        config = config_of(spec, runs[0])
        acc = [r["accuracy"] for r in runs]
        n = config.eval_size
        att = [r["attention_accuracy"] for r in runs if r["attention_accuracy"] is not None]
        ptr = [r["pointer_accuracy"] for r in runs if r.get("pointer_accuracy") is not None]
        out.append({**dict(zip(spec.varied, key)), **seed_summary(acc, round(sum(acc) * n), n * len(acc)),
                    "attention": sum(att) / len(att) if att else None,
                    "pointer": sum(ptr) / len(ptr) if ptr else None,
                    "chance": config.chance, "ceiling": config.ceiling,
                    "paper": paper(config) if paper else None})
    return out


RUN_COLUMNS = ["run", "seed", "accuracy", "attention_accuracy", "pointer_accuracy", "final_loss", "eval_loss",
               "step0_score_std", "step0_max_weight", "q_b0", "q_b1", "k_b0", "k_b1", "cpu_seconds"]


def runs_of(spec, rows: list[dict]) -> tuple[list[dict], list[str]]:
    """The CSV rows (varied fields, then :data:`RUN_COLUMNS`) and their columns."""
    columns = list(spec.varied) + RUN_COLUMNS
    return [{k: r.get(k) for k in columns} for r in rows], columns


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
    default = ("part", "dk", "variant", "init", "loss", "padding_placement", "pairs", "gamma", "seeds", "mean", "sd",
               "t_low", "t_high", "attention", "pointer", "paper")
    emit(rows, "table", columns=columns or [c for c in default if any(c in r for r in rows)])


def not_run(skipped: list[dict]) -> None:
    """Say loudly which parts of a study this theorylab could not run."""
    for s in skipped:
        print(f"NOT RUN: {json.dumps(s.get('grid', s.get('train')))}: {s['why']}", file=sys.stderr)


def study_main(module) -> None:
    """The ``main`` of a study module with ``STUDY``, ``spec(args)``, ``summarise(spec, rows, timing, skipped)``
    and ``figure(summary)``: parse, run, write, print."""
    args = parser(module.__doc__.splitlines()[0]).parse_args()
    if args.figure_only:
        return redraw(module.STUDY, args, module.figure)
    finish(module, args, *start(module, args))


def start(module, args, executor=None):
    data, skipped = available(module.spec(args))
    not_run(skipped)
    spec, rows, timing = run(module.STUDY, data, args, executor)
    return spec, rows, timing, skipped


def finish(module, args, spec, rows, timing, skipped) -> dict:
    summary = module.summarise(spec, rows, timing, skipped)
    summary.update({"study": module.STUDY, "spec": spec.record(), "timing": timing, "not_run": skipped})
    runs, columns = runs_of(spec, rows)
    write(module.STUDY, args, runs, columns, summary, module.figure)
    report_table(summary["table"], getattr(module, "TABLE_COLUMNS", None))
    return summary


main = _study.main

"""Declarative, resumable parameter sweeps (local or Dask): the engine, shared by every paper.

A sweep is a TOML file (see docs/sweeps.md) with a ``[sweep]`` table (``name``, ``seed``,
``samples``, ``chunk_size`` and the task's own keys), a ``[grid]`` and the task's other tables.
What a sweep computes is its *task*, named by ``sweep.task`` (default ``"psa"``, PSA's reduced
score model: :mod:`theorylab.psa.sweep`) and found through :mod:`~theorylab.sweep.registry`
without this package importing any paper. The engine reads and checks the spec, splits its
points into chunks, runs them on an executor, stores every row in a verified SQLite store and
resumes an interrupted run; results never depend on chunking, worker count or order (seeds
are per point, :func:`~theorylab.sweep.tasks.point_seed`).

Modules (every public name is re-exported here):

* :mod:`~theorylab.sweep.registry` -- the registered tasks (name -> module, imported on use);
* :mod:`~theorylab.sweep.spec` -- loading a spec, its hash, and the readers every task's
  validator shares (name, seed, samples, chunk size, grid axes, tables);
* :mod:`~theorylab.sweep.tasks` -- points, seeds, chunks, memory, and computing one chunk on a worker;
* :mod:`~theorylab.sweep.executors` -- :class:`SerialExecutor`, :class:`ProcessExecutor`
  (the default) and :class:`DaskExecutor`;
* :mod:`~theorylab.sweep.schema` -- a store's tables and columns (per task), row checksums;
* :mod:`~theorylab.sweep.store` -- the SQLite :class:`SweepStore` (one row per point): created
  whole, bound atomically, verified on open, chunk claims with leases;
* :mod:`~theorylab.sweep.run` -- :func:`run_sweep`: claim, compute and store the missing points,
  one transaction per chunk (several runs of one spec on one store divide the work);
* :mod:`~theorylab.sweep.results` -- status, spec and rows of a store (rows as a DataFrame: :func:`to_frame`;
  over the grid axes as an ``xarray.Dataset``: :func:`to_dataset`).
"""
from theorylab.sweep.executors import (DaskExecutor, ProcessExecutor, SerialExecutor, check_executor_options,
                                       make_executor, max_workers, worker_count)
from theorylab.sweep.registry import DEFAULT_TASK, TASKS, task, task_of
from theorylab.sweep.results import (export_rows, read_store, spec_of_record, spec_of_store, store_status, to_dataset,
                                     to_frame)
from theorylab.sweep.run import SweepReport, run_sweep
from theorylab.sweep.schema import StoreLayout, row_checksum, store_columns, utc_now
from theorylab.sweep.spec import SweepSpec, load_spec, spec_from_canonical, spec_from_dict
from theorylab.sweep.store import LEASE_SECONDS, Owner, SweepStore
from theorylab.sweep.tasks import (check_memory, check_rows, chunk_size, chunks, code_version, compute_chunk, fits,
                                   point_seed, points, task_memory)

__all__ = ["TASKS", "DEFAULT_TASK", "task", "task_of", "SweepSpec", "load_spec", "spec_from_dict",
           "spec_from_canonical", "point_seed", "points", "chunk_size", "fits", "chunks", "check_rows",
           "compute_chunk", "code_version", "task_memory", "check_memory", "SerialExecutor", "ProcessExecutor",
           "DaskExecutor", "make_executor", "check_executor_options", "max_workers", "worker_count",
           "StoreLayout", "store_columns", "SweepStore", "Owner", "LEASE_SECONDS", "row_checksum", "utc_now",
           "SweepReport", "run_sweep", "read_store", "spec_of_record", "spec_of_store", "store_status",
           "export_rows", "to_frame", "to_dataset"]

_MOVED = dict.fromkeys(("COMPUTE", "HALF_PLATEAU", "Point", "compute_point", "compute_curve", "point_level", "ROUTES",
                        "agreement", "compare_rows"), "theorylab.psa.sweep")
"""PSA's names this package re-exported before they moved to PSA's task: name -> their module now. Kept
for callers outside the library (``simulations/d_key_only.py`` imports ``compare_rows`` from here);
they are resolved on use, so this package still imports no paper."""


def __getattr__(name: str):
    """A name of :data:`_MOVED`, from its module now (imported on first use)."""
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_MOVED[name]), name)

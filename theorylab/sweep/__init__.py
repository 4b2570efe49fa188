"""Declarative, resumable parameter sweeps of the PSA reduced score model (local or Dask).

A sweep is a TOML file (see docs/sweeps.md)::

    [sweep]
    name = "mean-field grid"
    seed = 1                           # the sweep seed; every point derives its own
    samples = 20000                    # Monte Carlo draws per point
    compute = ["annealed", "exact", "mc"]
    chunk_size = 2                     # points per task (execution detail, not in the hash)
    # c = 0.741                        # condensation constant of the t4-only law (default: the library's)
    # level = 0.5                      # gamma_c = first g where the mean target mass reaches this level,
    #                                  # or "half-plateau": half the argmax plateau of each point
    # observable = "entropy-peak"      # the transition observable (theorylab.psa.observables; default
    #                                  # "mass-half", the only one that takes a level)

    [grid]
    variant = ["t4-only"]              # or "all"
    dk = [64, 128, 256]                # a list, or {start=, stop=, num=, spacing="linear"|"log"}
    T = [32, 128, 512]
    # gamma = [0.5, 0.6, 0.7]          # present => a *mass* sweep: M(g) per (variant, dk, T, g)

    [mc]                               # optional keyword options of the Monte Carlo functions
    # dtype = "float64"

Two kinds of sweep:

* **gamma_c sweep** (no ``gamma`` axis): one point per (variant, dk, T); ``annealed``
  stores the law the variant is quoted with (:func:`theorylab.psa.transition.gamma_c`:
  the two-branch law for t4-only, the annealed root otherwise), ``exact`` the root of
  the exact mean target mass M(g) = 1/2, ``mc`` the Monte Carlo root with its CI.
* **mass sweep** (``gamma`` axis): one point per (variant, dk, T, g); ``exact`` and
  ``mc`` store M(g) (and its standard error). ``annealed`` has no mass and is refused.

Seeds are per point, a hash of (sweep seed, variant, dk, T), so results never depend on
chunking, worker count or order (:mod:`~theorylab.sweep.tasks`).

Modules (every public name is re-exported here):

* :mod:`~theorylab.sweep.spec` -- the TOML spec, validated into a :class:`SweepSpec`;
* :mod:`~theorylab.sweep.tasks` -- points, seeds, chunks, and computing one chunk on a worker;
* :mod:`~theorylab.sweep.executors` -- :class:`SerialExecutor`, :class:`ProcessExecutor`
  (the default) and :class:`DaskExecutor`;
* :mod:`~theorylab.sweep.store` -- the SQLite :class:`SweepStore` (one row per point): created
  whole, bound atomically, verified on open, chunk claims with leases;
* :mod:`~theorylab.sweep.run` -- :func:`run_sweep`: claim, compute and store the missing points,
  one transaction per chunk (several runs of one spec on one store divide the work);
* :mod:`~theorylab.sweep.results` -- status, spec and rows of a store, agreement of two routes.
"""
from theorylab.sweep.executors import (DaskExecutor, ProcessExecutor, SerialExecutor, check_executor_options,
                                           make_executor, max_workers, worker_count)
from theorylab.sweep.results import (ROUTES, agreement, compare_rows, export_rows, read_store, spec_of_record,
                                         spec_of_store, store_status)
from theorylab.sweep.run import SweepReport, run_sweep
from theorylab.sweep.spec import COMPUTE, HALF_PLATEAU, SweepSpec, load_spec, spec_from_canonical, spec_from_dict
from theorylab.sweep.store import LEASE_SECONDS, Owner, SweepStore, row_checksum, utc_now
from theorylab.sweep.tasks import (Point, check_memory, check_rows, chunk_size, chunks, code_version,
                                       compute_chunk, compute_curve, compute_point, fits, point_level,
                                       point_seed, points, task_memory)

__all__ = ["COMPUTE", "HALF_PLATEAU", "SweepSpec", "load_spec", "spec_from_dict", "spec_from_canonical",
           "Point", "point_seed", "points", "chunk_size", "fits", "chunks", "check_rows", "point_level",
           "compute_point", "compute_curve", "compute_chunk", "code_version", "task_memory",
           "check_memory", "SerialExecutor", "ProcessExecutor", "DaskExecutor", "make_executor",
           "check_executor_options", "max_workers", "worker_count", "SweepStore", "Owner", "LEASE_SECONDS",
           "row_checksum", "utc_now", "SweepReport", "run_sweep", "read_store", "spec_of_record", "spec_of_store",
           "store_status", "export_rows", "ROUTES", "agreement", "compare_rows"]

"""Many training runs in worker processes with BLAS pinned to one thread (``theorylab.nn.train``).

Why worker processes: each run is a long chain of small matrix products. Multi-threaded
BLAS gains nothing at these sizes and, on a shared machine, loses a great deal (measured
on two busy cores: 520 ms per step with two OpenBLAS threads against 75 ms with one), so
every run executes in a freshly spawned interpreter whose environment sets
``OPENBLAS_NUM_THREADS = OMP_NUM_THREADS = MKL_NUM_THREADS = 1`` before NumPy loads. Runs
are independent and deterministic (``train.train``), so the results do not depend on the
number of workers or on the order in which runs finish. The workers are those of
:class:`theorylab._workers.WorkerPool`: silent on Ctrl-C (the command stops them), no socket,
and a run that fails is reported as one line naming it.
"""
from __future__ import annotations

import os
from typing import Callable, Sequence

from theorylab._workers import WorkerPool, report
from theorylab.errors import positive_int
from theorylab.nn.train import TrainConfig, TrainResult, train

BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
TICK = 10
"""Workers report progress every TICK steps."""


def _job(config: TrainConfig, seed: int, ticks: bool, keep_model: bool) -> TrainResult:
    done = [0]

    def progress(n: int) -> None:
        done[0] += n
        if done[0] % TICK == 0:
            report(TICK)

    result = train(config, seed, progress=progress if ticks else None, keep_model=keep_model)
    if done[0] % TICK:                              # without progress no step is counted: done stays 0
        report(done[0] % TICK)
    return result


def _label(config: TrainConfig, seed: int, index: int, total: int) -> str:
    return (f"training run {index + 1} of {total} (variant {config.variant}, gamma {config.gamma:g}, "
            f"task {config.task}, seed {seed})")


def default_workers() -> int:
    """Worker processes by default: the CPUs this process may use, at most 2."""
    return max(1, min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def run_many(jobs: Sequence[tuple[TrainConfig, int]], workers: int | None = None,
             progress: Callable[[int], None] | None = None, keep_model: bool = False) -> list[TrainResult]:
    """Train every ``(config, seed)`` of ``jobs``; results in the order of ``jobs``.

    Parameters
    ----------
    jobs : sequence of (TrainConfig, int)
        The runs: a configuration and a seed each.
    workers : int, optional
        Spawned worker processes (default :func:`default_workers`), each with BLAS pinned
        to one thread.
    progress : callable, optional
        Called in this process with the number of steps done since its last call.
    keep_model : bool
        Keep the trained parameters in each result.

    Returns
    -------
    list of TrainResult

    Raises
    ------
    theorylab.errors.WorkerError
        A run failed in its worker, or its worker died: one line naming the run (variant,
        gamma, task, seed). The other workers are stopped at once, as on Ctrl-C.
    """
    workers = positive_int("workers", workers if workers is not None else default_workers())
    if not jobs:
        return []
    env = {k: "1" for k in BLAS_THREAD_VARIABLES}                     # read when NumPy loads in a worker
    with WorkerPool(min(workers, len(jobs)), env=env, on_report=progress) as pool:
        futures = [pool.submit(_label(c, s, i, len(jobs)), _job, c, s, progress is not None, keep_model)
                   for i, (c, s) in enumerate(jobs)]
        pending = set(futures)
        while pending:
            done, pending = pool.wait(pending, timeout=0.2)
            for fut in done:
                pool.result(fut)                                      # the first failure stops the pool
        return [pool.result(f) for f in futures]


__all__ = ["BLAS_THREAD_VARIABLES", "default_workers", "run_many"]

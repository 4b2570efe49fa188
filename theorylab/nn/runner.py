"""Many training runs in worker processes with BLAS pinned to one thread (``theorylab.nn.train``).

Why worker processes: each run is a long chain of small matrix products. Multi-threaded
BLAS gains nothing at these sizes and, on a shared machine, loses a great deal (measured
on two busy cores: 520 ms per step with two OpenBLAS threads against 75 ms with one), so
every run executes in a freshly spawned interpreter whose environment sets
``OPENBLAS_NUM_THREADS = OMP_NUM_THREADS = MKL_NUM_THREADS = 1`` before NumPy loads. Runs
are independent and deterministic (``train.train``), so the results do not depend on the
number of workers or on the order in which runs finish.
"""
from __future__ import annotations

import multiprocessing
import os
import queue
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Callable, Sequence

from theorylab.errors import positive_int
from theorylab.nn.train import TrainConfig, TrainResult, train

BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
TICK = 10
"""Workers report progress every TICK steps."""


def _job(config: TrainConfig, seed: int, ticks, keep_model: bool) -> TrainResult:
    done = [0]

    def progress(n: int) -> None:
        done[0] += n
        if done[0] % TICK == 0:
            ticks.put(TICK)

    result = train(config, seed, progress=progress if ticks is not None else None, keep_model=keep_model)
    if done[0] % TICK:                              # without a queue no progress is counted: done stays 0
        ticks.put(done[0] % TICK)
    return result


def default_workers() -> int:
    """Worker processes by default: the CPUs this process may use, at most 2."""
    return max(1, min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def run_many(jobs: Sequence[tuple[TrainConfig, int]], workers: int | None = None,
             progress: Callable[[int], None] | None = None, keep_model: bool = False) -> list[TrainResult]:
    """Train every ``(config, seed)`` of ``jobs``; results in the order of ``jobs``.

    ``workers`` spawned processes (default :func:`default_workers`), each with BLAS pinned to
    one thread; ``progress`` is called in this process with the number of steps done.
    """
    workers = positive_int("workers", workers if workers is not None else default_workers())
    if not jobs:
        return []
    saved = {k: os.environ.get(k) for k in BLAS_THREAD_VARIABLES}
    os.environ.update({k: "1" for k in BLAS_THREAD_VARIABLES})        # read by the spawned interpreters
    try:
        ctx = multiprocessing.get_context("spawn")
        with ctx.Manager() as manager, ProcessPoolExecutor(min(workers, len(jobs)), mp_context=ctx) as pool:
            ticks = manager.Queue() if progress is not None else None
            futures = [pool.submit(_job, c, s, ticks, keep_model) for c, s in jobs]
            pending = set(futures)
            while pending:
                _, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                _drain(ticks, progress)
            _drain(ticks, progress)
            return [f.result() for f in futures]
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _drain(ticks, progress) -> None:
    if ticks is None:
        return
    while True:
        try:
            progress(ticks.get_nowait())
        except queue.Empty:
            return


__all__ = ["BLAS_THREAD_VARIABLES", "default_workers", "run_many"]

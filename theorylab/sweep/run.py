"""Running a sweep: claim, compute and store the points missing from its store, one
transaction per chunk; several processes running one spec on one store divide the work."""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass

from theorylab.sweep.executors import ProcessExecutor
from theorylab.sweep.spec import SweepSpec
from theorylab.sweep.store import LEASE_SECONDS, Owner, SweepStore
from theorylab.sweep.tasks import check_memory, check_rows, chunk_size, compute_chunk, fits, points


@dataclass(frozen=True)
class SweepReport:
    """What one :func:`run_sweep` call did (``computed``: points this call computed and stored;
    points stored meanwhile by other processes on the same store count in neither field)."""

    total: int
    already_done: int
    computed: int
    chunks: int
    seconds: float
    executor: str


def run_sweep(spec: SweepSpec, store_path: str, executor=None, progress: bool = True, *,
              lease: float = LEASE_SECONDS, poll: float = 0.5) -> SweepReport:
    """Compute every point of ``spec`` missing from the store at ``store_path``; return when
    every point is stored.

    Chunks are claimed in the store before they are computed (lease ``lease`` seconds,
    renewed while the call runs), so other processes running the same spec on the same
    store take other chunks; when the only points left are claimed elsewhere, the call
    polls every ``poll`` seconds until they are stored or their claims lapse. Finished
    chunks are written one transaction each, so the call can be killed at any moment and
    repeated. A store bound to a different spec, or damaged, and a request whose tasks
    would not fit in memory (:func:`check_memory`, local executors) are refused
    (:class:`ParameterError`) before anything is written. ``executor`` defaults to a
    :class:`ProcessExecutor`; it is closed only if created here.

    Examples
    --------
    Run a two-point sweep into a store in a temporary directory, then resume it (nothing left to do):

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> store = os.path.join(tmp.name, 'tiny.sqlite')
    >>> report = sweep.run_sweep(spec, store, sweep.SerialExecutor(), progress=False)
    >>> report.total, report.computed
    (2, 2)
    >>> sweep.run_sweep(spec, store, sweep.SerialExecutor(), progress=False).computed
    0
    >>> tmp.cleanup()
    """
    from tqdm import tqdm

    t0 = time.perf_counter()
    workers = (os.cpu_count() or 1) if executor is None else getattr(executor, "local_workers", None)
    if workers:  # before the store is created: a request that cannot fit writes nothing
        check_memory(spec, workers)
    with SweepStore(store_path, spec.canonical_json(), spec.hash) as store:
        rows = store.rows()
        check_rows(spec, rows, store_path)
        allpoints = points(spec)
        done = {r["key"] for r in rows}
        pending = [p for p in allpoints if p.key not in done]
        already = len(allpoints) - len(pending)
        if not pending:
            return SweepReport(len(allpoints), already, 0, 0, time.perf_counter() - t0, "none")
        own = executor is None
        executor = executor or ProcessExecutor()
        owner, size = Owner(lease), chunk_size(spec)
        counts = {"computed": 0, "tasks": 0}

        def claimed():
            while chunk := store.claim(pending, lambda c, p: fits(spec, c, p), size, owner):
                counts["tasks"] += 1
                yield spec, chunk

        bar = tqdm(total=len(allpoints), initial=already, unit="pt", desc=spec.name, disable=not progress,
                   file=sys.stderr, dynamic_ncols=True)
        try:
            with store.holding(owner):
                while pending:
                    for rows in executor.map_unordered(compute_chunk, claimed()):
                        bar.update(store.write_chunk(rows, owner))
                        counts["computed"] += len(rows)
                    if pending:  # the rest is claimed by other processes: wait for it, or for a claim to lapse
                        time.sleep(poll)
                        bar.update(store.count() - bar.n)
        finally:
            bar.close()
            if own:
                executor.close()
        return SweepReport(len(allpoints), already, counts["computed"], counts["tasks"],
                           time.perf_counter() - t0, executor.description)

"""Running a sweep: compute the points missing from its store, one transaction per chunk."""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass

from theorylab.sim.sweep.executors import ProcessExecutor
from theorylab.sim.sweep.spec import SweepSpec
from theorylab.sim.sweep.store import SweepStore
from theorylab.sim.sweep.tasks import chunks, compute_chunk, points


@dataclass(frozen=True)
class SweepReport:
    """What one :func:`run_sweep` call did."""

    total: int
    already_done: int
    computed: int
    chunks: int
    seconds: float
    executor: str


def run_sweep(spec: SweepSpec, store_path: str, executor=None, progress: bool = True) -> SweepReport:
    """Compute every point of ``spec`` missing from the store at ``store_path``.

    Finished chunks are written one transaction each, so the call can be killed at any
    moment and repeated: it then recomputes only the missing points. A store bound to a
    different spec is refused (:class:`ParameterError`). ``executor`` defaults to a
    :class:`ProcessExecutor`; it is closed only if created here.
    """
    from tqdm import tqdm

    t0 = time.perf_counter()
    with SweepStore(store_path, spec.canonical_json(), spec.hash) as store:
        done = store.done_keys()
        allpoints = points(spec)
        todo = [p for p in allpoints if p.key not in done]
        tasks = chunks(spec, todo)
        if not tasks:
            return SweepReport(len(allpoints), len(allpoints) - len(todo), 0, 0, time.perf_counter() - t0, "none")
        own = executor is None
        executor = executor or ProcessExecutor()
        computed = 0
        bar = tqdm(total=len(allpoints), initial=len(allpoints) - len(todo), unit="pt", desc=spec.name,
                   disable=not progress, file=sys.stderr, dynamic_ncols=True)
        try:
            for rows in executor.map_unordered(compute_chunk, [(spec, c) for c in tasks]):
                computed += store.write_chunk(rows)
                bar.update(len(rows))
        finally:
            bar.close()
            if own:
                executor.close()
        return SweepReport(len(allpoints), len(allpoints) - len(todo), computed, len(tasks),
                           time.perf_counter() - t0, executor.description)

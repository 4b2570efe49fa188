"""Points, seeds and tasks of a sweep, and the computation of one task (runs on a worker).

What the points are, and how a group of them is computed, is the spec's task's
(:mod:`theorylab.sweep.registry`); this module chunks them, checks stored rows against them,
bounds a task's memory, and assembles a task's store rows (results plus seed, code version,
worker and timestamps).

Seeds: every point's seed is a pure function of the sweep seed and the point's parameters
(:func:`point_seed`) -- never of its position in a queue -- so results do not depend on
chunking, worker count or order.

:func:`compute_chunk` is what executors run: it must stay importable and picklable.
"""
from __future__ import annotations

import functools
import hashlib
import os
import socket
import time
from typing import Sequence

from theorylab.sweep.registry import task_of
from theorylab.sweep.schema import utc_now

_SEED_MAX = 2**31 - 1


def point_seed(sweep_seed: int, *parameters) -> int:
    """Seed of a point with these parameters: BLAKE2b of the sweep seed and the parameters (text
    as it is, numbers as ``repr(float(x))``).

    A pure function of its arguments (never of scheduling), in ``[0, 2**31 - 1)``.

    Examples
    --------
    A point's seed depends on the sweep seed and the parameters only (the same on every machine):

    >>> import theorylab.sweep as sweep
    >>> sweep.point_seed(0, 't4-only', 16.0, 64.0), sweep.point_seed(1, 't4-only', 16.0, 64.0)
    (1248081829, 115158332)
    """
    parts = [p if isinstance(p, str) else repr(float(p)) for p in parameters]
    text = "|".join(["theorylab-sweep", str(int(sweep_seed)), *parts])
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") % _SEED_MAX


def points(spec) -> list:
    """Every point of ``spec`` in canonical order (its task's ``points``).

    Examples
    --------
    The points of a spec in canonical order:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> [(p.variant, p.dk, p.T) for p in sweep.points(spec)]
    [('t4-only', 16.0, 64.0), ('t4-only', 64.0, 64.0)]
    """
    return task_of(spec).points(spec)


def chunk_size(spec) -> int:
    """Points per task: ``spec.chunk_size``, or the task's ``default_chunk_size``.

    Examples
    --------
    Points per task: the PSA task's default for a law-only sweep, and a spec's own ``chunk_size``:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> sweep.chunk_size(spec)
    512
    >>> sweep.chunk_size(sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed'], 'chunk_size': 1},
    ...                                        'grid': {'dk': [16, 64], 'T': [64]}}))
    1
    """
    return spec.chunk_size if spec.chunk_size is not None else task_of(spec).default_chunk_size(spec)


def fits(spec, chunk: Sequence, p) -> bool:
    """Whether ``p`` may join the (non-empty) ``chunk`` (the task's ``fits``).

    Examples
    --------
    Whether a point may join a chunk:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> first, second = sweep.points(spec)
    >>> sweep.fits(spec, [first], second)
    True
    """
    return task_of(spec).fits(spec, chunk, p)


def chunks(spec, todo: Sequence) -> list[list]:
    """Split ``todo`` into tasks of at most :func:`chunk_size` points that :func:`fits` accepts.

    Examples
    --------
    Two points in one task, or one task each with ``chunk_size = 1``:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> [len(c) for c in sweep.chunks(spec, sweep.points(spec))]
    [2]
    >>> one = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed'], 'chunk_size': 1},
    ...                             'grid': {'dk': [16, 64], 'T': [64]}})
    >>> [len(c) for c in sweep.chunks(one, sweep.points(one))]
    [1, 1]
    """
    size, kind = chunk_size(spec), task_of(spec)
    out: list[list] = []
    for p in todo:
        if out and len(out[-1]) < size and kind.fits(spec, out[-1], p):
            out[-1].append(p)
        else:
            out.append([p])
    return out


def check_rows(spec, rows: Sequence[dict], store_path: str) -> None:
    """Raise :class:`ParameterError` unless every row of the store at ``store_path`` is a point
    of ``spec`` (key, index, parameters and seed as :func:`points` gives them).

    Examples
    --------
    A store's rows pass (None) when they are the spec's points:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> store = os.path.join(tmp.name, 'tiny.sqlite')
    >>> _ = sweep.run_sweep(spec, store, sweep.SerialExecutor(), progress=False)
    >>> _, rows, _ = sweep.read_store(store)
    >>> sweep.check_rows(spec, rows, store) is None
    True
    >>> tmp.cleanup()
    """
    from theorylab.errors import ParameterError

    expected = {p.key: p for p in points(spec)}
    for r in rows:
        p = expected.get(r["key"])
        if p is None or (r["idx"], r["seed"]) != (p.index, p.seed) or any(
                r[k] != v for k, v in p.parameters().items()):
            raise ParameterError(f"--store: {store_path!r} is damaged (the row {r['key']!r} is not a point of "
                                 f"its spec); the file was left unchanged")


def task_memory(spec, threads: int) -> int:
    """Upper estimate, in bytes, of what one task of ``spec`` allocates on a worker running
    ``threads`` Numba threads (the task's ``task_memory``).

    Examples
    --------
    Bytes one task of the spec may allocate on a one-thread worker:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> sweep.task_memory(spec, 1) // 2**20      # MiB
    64
    """
    return task_of(spec).task_memory(spec, threads)


def check_memory(spec, workers: int) -> None:
    """Refuse (:class:`theorylab.resources.ResourceError`) a sweep whose ``workers`` concurrent tasks would
    need more memory than the limits in force (:func:`theorylab.resources.limits`: half the available
    memory, or ``THEORYLAB_MAX_MEMORY``); each worker runs ``cpu_count // workers`` threads.

    Examples
    --------
    Two workers fit this small sweep (None: no refusal):

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> sweep.check_memory(spec, 2) is None
    True
    """
    from theorylab import resources

    workers = max(workers, 1)
    threads = max(1, (os.cpu_count() or 1) // workers)
    what = f"{workers} worker(s) x one task: {task_of(spec).describe_request(spec)}"
    resources.check(resources.Cost(float(workers * task_memory(spec, threads)), 0.0, what), resources.limits())


def compute_chunk(spec, chunk: Sequence) -> list[dict]:
    """Compute one task: store rows (parameters, results, seed, code version, timestamps).

    The chunk's points are computed a group at a time (the task's ``compute_group``; points of
    one group share a start time and an equal share of its elapsed time). Runs on a worker
    (process pool or Dask); must stay importable and picklable.

    Examples
    --------
    Compute one chunk's rows without a store:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> rows = sweep.compute_chunk(spec, sweep.points(spec)[:1])
    >>> rows[0]['law_branch'], round(rows[0]['law_gamma_c'], 4)
    ('condensed', 0.8974)
    """
    kind = task_of(spec)
    rows = []
    groups: dict[tuple, list] = {}
    for p in chunk:
        groups.setdefault(p.group, []).append(p)
    for group in groups.values():
        started, t0 = utc_now(), time.perf_counter()
        results = kind.compute_group(spec, group)
        elapsed = (time.perf_counter() - t0) / len(group)
        for p, res in zip(group, results):
            rows.append({"key": p.key, "idx": p.index, **p.parameters(), "seed": p.seed, **res,
                         "code_version": code_version(), "worker": _worker(), "started_at": started,
                         "finished_at": utc_now(), "elapsed_s": elapsed})
    return rows


def _describe_chunk(spec, chunk: Sequence) -> str:
    """How a task of :func:`compute_chunk` is named when it fails: its sweep, points and first point."""
    idx = [p.index for p in chunk]
    shown = ", ".join(map(str, idx[:4])) + (", ..." if len(idx) > 4 else "")
    first = f" ({chunk[0].key}{', ...' if len(chunk) > 1 else ''})" if chunk else ""
    return f"sweep {spec.name!r} task of point{'s' if len(idx) != 1 else ''} {shown}{first}"


compute_chunk.describe_task = _describe_chunk   # read by the executors (executors.task_label)


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """Which theorylab computed a row: the installed version, with the commit of its source checkout.

    Returns
    -------
    str
        Run from theorylab's own git checkout (:func:`theorylab._provenance.checkout_state`): the
        version's public part plus ``+g`` and the first 12 hex digits of the checkout's commit,
        ``.dirty`` if its sources differ from that commit (the install-time version of an editable
        install can be older than the checkout). Otherwise -- an installed wheel, a theorylab
        inside another project's repository -- the installed version, which setuptools-scm makes
        carry the commit it was built from; never the commit of a repository that merely holds it.
    """
    import theorylab
    from theorylab._provenance import checkout_state

    version = theorylab.__version__
    state = checkout_state()
    if state["commit"] is None:
        return version
    return f"{version.split('+')[0]}+g{state['commit'][:12]}{'.dirty' if state['dirty'] else ''}"


def _worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"

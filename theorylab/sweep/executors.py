"""Where the tasks of a sweep run: this process, a local process pool, or Dask.

An executor has ``description`` (one line for reports), ``map_unordered(fn, tasks)``
(results as tasks finish, with a bounded number in flight) and ``close()``.
Every worker runs Numba with ``cpu_count // workers`` threads and BLAS with one
(:func:`worker_environment`) so the machine is not oversubscribed; results never depend on the
executor (seeds are per point).
"""
from __future__ import annotations

import os
from typing import Callable, Iterable, Iterator

from theorylab.errors import ParameterError, WorkerError
from theorylab.sweep.spec import one_line


class SerialExecutor:
    """Run every task in this process, in order (debugging, tests, tiny sweeps)."""

    description = "serial (this process)"
    local_workers = 1

    def map_unordered(self, fn: Callable, tasks: Iterable[tuple]) -> Iterator:
        for args in tasks:
            yield fn(*args)

    def close(self) -> None:
        pass


BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""Environment variables that pin BLAS to one thread in a worker (read when NumPy loads there)."""


def _threads_per_worker(workers: int) -> int:
    return max(1, (os.cpu_count() or 1) // workers)


def worker_environment(workers: int) -> dict:
    """The environment of each of ``workers`` local worker processes.

    Numba gets ``cpu_count // workers`` threads; BLAS gets one (:data:`BLAS_THREAD_VARIABLES`): the
    pool already divides the CPUs among processes, and the small matrix products of a training run
    lose far more to a second BLAS thread on a busy machine than they gain (``theorylab.nn.runner``).

    Parameters
    ----------
    workers : int
        Worker processes of the pool or cluster.

    Returns
    -------
    dict
        Variable name -> value.
    """
    return {"NUMBA_NUM_THREADS": str(_threads_per_worker(workers)), **{k: "1" for k in BLAS_THREAD_VARIABLES}}


def task_label(fn: Callable, args: tuple, number: int) -> str:
    """How a task is named when it fails (in :class:`~theorylab.errors.WorkerError`).

    Parameters
    ----------
    fn : callable
        The task function; ``fn.describe_task(*args)`` names the task where ``fn`` has it
        (:func:`~theorylab.sweep.tasks.compute_chunk`: its sweep and points).
    args : tuple
        The task's arguments.
    number : int
        Its position among the tasks submitted, used where ``fn`` cannot name it.

    Returns
    -------
    str
    """
    describe = getattr(fn, "describe_task", None)
    return describe(*args) if describe is not None else f"task {number} ({getattr(fn, '__name__', 'a function')})"


class ProcessExecutor:
    """A local process pool (the default). Each of ``workers`` processes runs Numba with
    ``cpu_count // workers`` threads, so the machine is not oversubscribed.

    The workers are those of :class:`theorylab._workers.WorkerPool`: silent on Ctrl-C (this
    process stops them), gone when this process dies (even by SIGKILL), and a task that fails
    in one, or a worker that dies, is :class:`~theorylab.errors.WorkerError` naming the task.
    """

    def __init__(self, workers: int | None = None):
        from theorylab._workers import WorkerPool

        self.workers = worker_count("--workers", workers if workers is not None else (os.cpu_count() or 1))
        threads = _threads_per_worker(self.workers)
        self.pool = WorkerPool(self.workers, env=worker_environment(self.workers))
        self.description = f"local process pool ({self.workers} workers x {threads} threads)"
        self.local_workers = self.workers

    def map_unordered(self, fn: Callable, tasks: Iterable[tuple]) -> Iterator:
        """Results as tasks finish, with at most ``4 x workers`` tasks in flight; on any
        exception (a failed task, an interrupt) the workers are terminated."""
        tasks = iter(tasks)
        pending: set = set()
        number = 0
        try:
            while True:
                for args in tasks:
                    number += 1
                    pending.add(self.pool.submit(task_label(fn, args, number), fn, *args))
                    if len(pending) >= 4 * self.workers:
                        break
                if not pending:
                    return
                done, pending = self.pool.wait(pending)
                for fut in done:
                    yield self.pool.result(fut)
        except BaseException:
            self.pool.terminate()
            raise

    def close(self) -> None:
        """Shut the pool down (terminated at once if tasks are still outstanding)."""
        self.pool.shutdown()


class DaskExecutor:
    """Dask distributed: an existing scheduler (``tcp://host:port``), a fresh
    ``LocalCluster`` of ``n_workers`` processes, or a given ``Client``.

    Tasks are submitted with ``pure=False`` (their arguments already carry the seeds;
    nothing is merged or cached by key) and collected as they complete.
    """

    def __init__(self, scheduler: str | None = None, local_cluster: int | None = None, client=None,
                 processes: bool = True):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ParameterError("--scheduler/--local-cluster need Dask: pip install -e '.[distributed]'") from None
        self.cluster = None
        self._owns_client = client is None
        if client is not None:
            self.client = client
        elif scheduler is not None:
            try:
                self.client = Client(scheduler, timeout="10s")
            except (OSError, TimeoutError) as exc:
                raise ParameterError(f"--scheduler: cannot connect to {scheduler!r} ({one_line(exc)})") from None
        else:
            from theorylab._workers import environment, interrupt_deferred, sigint_blocked

            n = worker_count("--local-cluster", local_cluster)
            with interrupt_deferred() as interrupted:   # a Ctrl-C while it starts: start, close, then stop
                # its event loop thread, so the processes it starts, ignore the terminal's Ctrl-C; they log only
                # what is critical: a cluster closed with tasks in flight (Ctrl-C) makes them warn and report
                # lost heartbeats, while a task's own failure reaches this process (WorkerError) anyway
                with sigint_blocked(), environment({"DASK_LOGGING__DISTRIBUTED": "critical"}):
                    self.cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=processes,
                                                dashboard_address=None,
                                                env=worker_environment(n))
                    self.client = Client(self.cluster)
                if interrupted:
                    self.close()
        self.description = f"dask ({self.client.scheduler.address})"
        self.local_workers = None  # memory of (possibly remote) Dask workers is not checked here

    def map_unordered(self, fn: Callable, tasks: Iterable[tuple]) -> Iterator:
        """Results as tasks finish; at most ``4 x (worker threads)`` (>= 8) tasks in flight,
        so a sweep of any size keeps the scheduler's queue short."""
        from distributed import as_completed

        tasks = iter(tasks)
        threads = sum(self.client.nthreads().values()) or 1
        limit = max(8, 4 * threads)
        labels = {}

        def submit(args):
            fut = self.client.submit(fn, *args, pure=False)
            labels[fut.key] = task_label(fn, args, len(labels) + 1)
            return fut

        queue = as_completed([submit(args) for _, args in zip(range(limit), tasks)])
        try:
            for fut in queue:
                try:
                    result = fut.result()
                except Exception as exc:
                    text = " ".join(str(exc).split())
                    raise WorkerError(f"{labels[fut.key]} failed on a Dask worker: {type(exc).__name__}"
                                      f"{': ' + text if text else ''}") from None
                yield result
                fut.release()
                nxt = next(tasks, None)
                if nxt is not None:
                    queue.add(submit(nxt))
        finally:
            queue.clear()

    def close(self) -> None:
        """Close the client and the cluster this executor started; a cluster closed with tasks in
        flight (Ctrl-C) kills its busy workers without logging a warning per worker."""
        import logging

        log = logging.getLogger("distributed")
        level = log.level
        if self.cluster is not None:
            log.setLevel(logging.ERROR)
        try:
            if self._owns_client:
                self.client.close()
            if self.cluster is not None:
                self.cluster.close()
        finally:
            log.setLevel(level)


def max_workers() -> int:
    """The largest worker count accepted for a local pool or cluster: 4 per CPU.

    Examples
    --------
    At least four workers are always accepted:

    >>> import theorylab.sweep as sweep
    >>> sweep.max_workers() >= 4
    True
    """
    return 4 * (os.cpu_count() or 1)


def worker_count(name: str, value, *, low: int = 1) -> int:
    """``value`` as a worker count in ``[low, max_workers()]``, else :class:`ParameterError`.

    Examples
    --------
    A worker count, validated:

    >>> import theorylab.sweep as sweep
    >>> sweep.worker_count('--workers', 2)
    2
    """
    import operator

    top = max_workers()
    try:
        count = operator.index(value) if not isinstance(value, bool) else None
    except TypeError:
        count = None
    if count is None or not low <= count <= top:
        raise ParameterError(f"{name} must be an integer in [{low}, {top}] (at most 4 per CPU; got {value!r})")
    return count


def check_executor_options(*, scheduler: str | None = None, local_cluster: int | None = None,
                           workers: int | None = None) -> None:
    """Refuse an executor choice before anything starts: at most one of the three options,
    worker counts in range (:func:`worker_count`), a scheduler address ``tcp://host:port``.

    Examples
    --------
    A scheduler and a local cluster together are refused:

    >>> import theorylab.sweep as sweep
    >>> sweep.check_executor_options(workers=2) is None
    True
    >>> try:
    ...     sweep.check_executor_options(scheduler='tcp://host:8786', local_cluster=2)
    ... except Exception as exc:
    ...     print(type(exc).__name__)
    ParameterError
    """
    given = [n for n, v in (("--workers", workers), ("--scheduler", scheduler), ("--local-cluster", local_cluster))
             if v is not None]
    if len(given) > 1:
        raise ParameterError(f"{given[0]} and {given[1]} are exclusive (one executor per run)")
    if workers is not None:
        worker_count("--workers", workers, low=0)
    if local_cluster is not None:
        worker_count("--local-cluster", local_cluster)
    if scheduler is not None:
        import re
        if not isinstance(scheduler, str) or not re.fullmatch(r"(tcp|tls|inproc|ucx|ws|wss)://\S+", scheduler):
            raise ParameterError(f"--scheduler must be a Dask scheduler address such as tcp://host:8786 "
                                 f"(got {scheduler!r})")


def make_executor(*, scheduler: str | None = None, local_cluster: int | None = None,
                  workers: int | None = None):
    """The executor the CLI options select: Dask if a scheduler or local cluster is named,
    serial if ``workers == 0``, else a local process pool (``workers`` processes). The
    options are checked first (:func:`check_executor_options`).

    Examples
    --------
    Without options, the local process pool:

    >>> import theorylab.sweep as sweep
    >>> type(sweep.make_executor(workers=1)).__name__
    'ProcessExecutor'
    """
    check_executor_options(scheduler=scheduler, local_cluster=local_cluster, workers=workers)
    if scheduler is not None or local_cluster is not None:
        return DaskExecutor(scheduler=scheduler, local_cluster=local_cluster)
    if workers == 0:
        return SerialExecutor()
    return ProcessExecutor(workers)

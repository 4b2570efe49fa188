"""Worker processes for the commands that compute in parallel: quiet on Ctrl-C, one line on failure.

Ctrl-C in a terminal sends SIGINT to the whole foreground process group: the command *and* every
worker process it started. The command handles it (one line, exit status 130, :mod:`theorylab.cli`)
and stops its workers; a worker must print nothing, not even while its interpreter is still
starting. A worker that fails must reach the command as one line naming the run it was doing.

:class:`WorkerPool` is a process pool (multiprocessing "spawn": a fresh interpreter per worker)
that does both:

* its workers are started with SIGINT *blocked* (:func:`sigint_blocked` around the submissions
  that start them: the signal mask is inherited across fork and exec), and their initializer
  ignores SIGINT before unblocking it, so a Ctrl-C that arrived while they started is discarded;
  the pool is closed on any exception (an interrupt, a failure) by terminating its workers
  (SIGTERM, which Python obeys without a word) rather than by waiting for their tasks;
* every task runs under a label; a task that raises, or a worker that dies (killed, out of
  memory), surfaces as :class:`~theorylab.errors.WorkerError` naming the label;
* a worker exits when the process that started it dies (even by SIGKILL): no orphans;
* nothing binds a socket (a ``multiprocessing.Manager`` binds an AF_UNIX socket under ``TMPDIR``,
  which fails once that path is longer than about 100 bytes): tasks, results and progress
  reports travel through pipes.

Subprocesses that are not pool workers (``theorylab mutate``'s interpreters) start in a session
of their own instead, so the terminal's SIGINT does not reach them, and are killed by the command
(:mod:`theorylab.mutation.planting`).
"""
from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future
from concurrent.futures import wait as wait_futures
from typing import Callable, Iterable

from theorylab.errors import WorkerError

_EVENTS = None
"""In a worker: the queue to the parent (task starts, :func:`report` values); None elsewhere."""


@contextlib.contextmanager
def sigint_blocked():
    """While inside, SIGINT is blocked in this thread, so processes started here begin with it blocked.

    A SIGINT that arrives meanwhile stays pending and is delivered on exit (Python raises
    KeyboardInterrupt then): nothing is lost. Where signal masks do not exist, does nothing.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()      # first: starting it unblocks SIGINT in the calling thread
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextlib.contextmanager
def interrupt_deferred():
    """Hold Ctrl-C back while inside (main thread only) and raise KeyboardInterrupt on leaving if
    one came. For a setup that cannot be abandoned half-way (a Dask cluster starting): the block
    runs to its end, and closes what it built if the list it is given is not empty."""
    if threading.current_thread() is not threading.main_thread():
        yield []
        return
    came: list = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))
    try:
        yield came
    finally:
        signal.signal(signal.SIGINT, previous)
    if came:
        raise KeyboardInterrupt


@contextlib.contextmanager
def environment(env: dict[str, str]):
    """While inside, ``os.environ`` also holds ``env`` (read by the processes started meanwhile)."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)                                   # read by the interpreters spawned here
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _init_worker(parent: int, events) -> None:
    global _EVENTS
    signal.signal(signal.SIGINT, signal.SIG_IGN)            # Ctrl-C is the parent's to handle ...
    if hasattr(signal, "pthread_sigmask"):                  # ... and one pending since the start is dropped
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _EVENTS = events

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="theorylab-parent-watch", daemon=True).start()


def _run(task: int, fn: Callable, args: tuple):
    _EVENTS.put(("start", task, os.getpid()))
    return fn(*args)


def report(value) -> None:
    """In a task run by a :class:`WorkerPool`: pass ``value`` to the pool's ``on_report`` in the
    parent (progress counts). Outside a worker, does nothing."""
    if _EVENTS is not None:
        _EVENTS.put(("report", value))


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _terminate_workers(pool) -> None:
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        if proc.exitcode is None:
            with contextlib.suppress(OSError, AttributeError, ValueError):
                proc.terminate()


class WorkerPool:
    """A pool of ``workers`` spawned interpreters; see the module docstring.

    Parameters
    ----------
    workers : int
        Number of worker processes (started as tasks are submitted).
    env : dict, optional
        Environment variables the workers start with (e.g. thread counts read when NumPy or
        Numba loads); this process's environment is unchanged outside the submissions.
    on_report : callable, optional
        Called in this process with each value a task passes to :func:`report`.

    Used as a context manager: on a normal exit the pool is shut down, on an exception its
    workers are terminated. A closed pool starts afresh on the next submission.
    """

    def __init__(self, workers: int, *, env: dict[str, str] | None = None, on_report: Callable | None = None):
        self.workers, self.env, self.on_report = int(workers), dict(env or {}), on_report
        self._pool = self._events = None
        self._tasks: dict[Future, int] = {}
        self._labels: dict[int, str] = {}
        self._started: dict[int, int] = {}      # task -> pid of the worker that began it
        self._processes: dict = {}              # pid -> multiprocessing process, as started

    def _start(self) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        ctx = multiprocessing.get_context("spawn")
        self._events = ctx.SimpleQueue()
        self._pool = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_init_worker,
                                         initargs=(os.getpid(), self._events))
        self._tasks, self._labels, self._started, self._processes = {}, {}, {}, {}

    def submit(self, label: str, fn: Callable, *args) -> Future:
        """Run ``fn(*args)`` in a worker under ``label`` (named if it fails); a future of its result."""
        from concurrent.futures.process import BrokenProcessPool

        if self._pool is None:
            self._start()
        task = len(self._labels)
        self._labels[task] = label
        try:
            with sigint_blocked(), environment(self.env):
                fut = self._pool.submit(_run, task, fn, args)
        except BrokenProcessPool:
            raise self._died(label) from None
        self._processes.update(getattr(self._pool, "_processes", None) or {})
        self._tasks[fut] = task
        return fut

    def wait(self, futures: Iterable[Future], timeout: float | None = None) -> tuple[set, set]:
        """``(done, pending)`` once one of ``futures`` is done or ``timeout`` seconds passed;
        meanwhile the reports of the tasks are passed on (``on_report``)."""
        done, pending = wait_futures(futures, timeout=timeout, return_when=FIRST_COMPLETED)
        self.drain()
        return done, pending

    def result(self, fut: Future):
        """The result of a finished task, or :class:`WorkerError` naming it (the pool is then closed)."""
        from concurrent.futures.process import BrokenProcessPool

        try:
            return fut.result()
        except BrokenProcessPool:
            raise self._died(self._labels.get(self._tasks.get(fut), "a task")) from None
        except Exception as exc:                # raised by the task in its worker (and re-raised here)
            text = " ".join(str(exc).split())
            why = "out of memory" if isinstance(exc, MemoryError) else \
                f"{type(exc).__name__}{': ' + text if text else ''}"
            raise WorkerError(f"{self._labels[self._tasks[fut]]} failed in its worker process: {why}") from None

    def drain(self) -> None:
        """Read what the workers sent so far: task starts, and reports (passed to ``on_report``)."""
        events = self._events
        while events is not None and not events.empty():
            kind, *data = events.get()
            if kind == "start":
                self._started[data[0]] = data[1]
                if data[1] not in self._processes:      # a worker the pool started after the last submission
                    self._processes.update(getattr(self._pool, "_processes", None) or {})
            elif self.on_report is not None:
                self.on_report(data[0])

    def _died(self, fallback: str) -> WorkerError:
        """The error for a worker that died: the run it was doing, and how it ended."""
        try:
            self.drain()
        except (OSError, EOFError):
            pass
        finished = {t for f, t in self._tasks.items() if f.done() and not f.cancelled() and f.exception() is None}
        running = {t: pid for t, pid in self._started.items() if t not in finished}
        # the pool ends the others (SIGTERM): wait to tell them apart; a loaded machine can take seconds to
        # reap a killed worker (2 s was too short with the load average at 10), and only a failure waits
        codes, deadline = {}, time.monotonic() + 15.0
        for pid in running.values():
            proc = self._processes.get(pid)
            with contextlib.suppress(AssertionError, AttributeError, ValueError, OSError):
                proc.join(max(0.0, deadline - time.monotonic()))
            codes[pid] = getattr(proc, "exitcode", None)
            # the pool's own thread may be reaping the same process (then our wait sees no status): its
            # status reaches the shared process object a moment later
            while codes[pid] is None and proc is not None and time.monotonic() < deadline:
                time.sleep(0.05)
                codes[pid] = getattr(proc, "exitcode", None)
        culprits = [t for t, pid in running.items() if codes[pid] not in (None, -signal.SIGTERM)] or list(running)
        if not culprits:
            return WorkerError(f"a worker process ended before it began any run (while {fallback} waited); "
                               f"it may have been killed or run out of memory")
        code = codes[running[culprits[0]]]
        how = ("ended abruptly (killed, or out of memory)" if code is None else
               "was killed by SIGKILL (out of memory, or killed)" if code == -getattr(signal, "SIGKILL", 9) else
               f"was killed by {_signal_name(-code)}" if code < 0 else f"exited with status {code}")
        names = "; ".join(self._labels[t] for t in sorted(culprits))
        return WorkerError(f"{names} failed: {'its worker process' if len(culprits) == 1 else 'a worker process'} "
                           f"{how}")

    def outstanding(self) -> bool:
        """Whether a submitted task has not finished."""
        return any(not f.done() for f in self._tasks)

    def terminate(self) -> None:
        """Stop at once: terminate every worker (SIGTERM), then release the pool."""
        self._release(kill=True)

    def shutdown(self) -> None:
        """Wait for the workers to finish and release them; terminated instead if a task is
        outstanding (its result would never be read)."""
        self._release(kill=self.outstanding())

    def _release(self, kill: bool) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        try:
            if kill:
                _terminate_workers(pool)
            pool.shutdown(wait=True)
        except BaseException:       # Ctrl-C while waiting: stop the workers, then release (no leaked queues)
            _terminate_workers(pool)
            pool.shutdown(wait=True)
            raise
        finally:
            self._processes = {}            # a process object holds the pool's queues (its arguments)
            self._close_events()

    def _close_events(self) -> None:
        events, self._events = self._events, None
        if events is not None:
            with contextlib.suppress(OSError, AttributeError):
                events.close()

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is None:
            self.shutdown()
        else:
            self.terminate()

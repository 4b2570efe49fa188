"""Run certificates: time each, catch errors, hash raw arrays, record the environment."""
from __future__ import annotations

import hashlib
import os
import platform
import sys
import time
import traceback
from importlib import metadata

import numpy as np

from theorylab._provenance import checkout_state
from theorylab.certify.costs import longest_first
from theorylab.certify.montecarlo import derived_seed
from theorylab.certify.record import Certificate, Outcome, Skip
from theorylab.certify.registry import CertificateSpec


def sha256_array(arr) -> str:
    """SHA-256 of an array's dtype, shape and C-ordered bytes."""
    arr = np.ascontiguousarray(arr)
    h = hashlib.sha256(f"{arr.dtype.str}{arr.shape}".encode())
    h.update(arr.tobytes())
    return h.hexdigest()


def run_one(spec: CertificateSpec, *, seed: int | None = None, **overrides) -> Certificate:
    """Run one certificate (``overrides`` replace the library functions under test).

    ``seed`` (``theorylab certify --seed``): a Monte Carlo certificate then draws from the base
    seed :func:`~theorylab.certify.montecarlo.derived_seed` ``(seed, spec.id)`` instead of its
    defaults; other methods ignore it.
    """
    if seed is not None and spec.method == "monte-carlo":
        overrides["seed"] = derived_seed(seed, spec.id)
    start = time.perf_counter()
    try:
        outcome = spec.check(**overrides)
        if not isinstance(outcome, Outcome):
            raise TypeError(f"certificate {spec.id} returned {type(outcome).__name__}, not Outcome")
        status = "PASS" if outcome.passed else "FAIL"
        note = outcome.note
    except Skip as exc:
        outcome, status, note = Outcome(False), "SKIP", str(exc)
    except Exception as exc:  # an undecidable or crashing check is ERROR, never PASS
        outcome, status = Outcome(False), "ERROR"
        note = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"
    return Certificate(spec.id, spec.title, spec.paper, spec.claim, spec.method, status,
                       tuple(outcome.evidence), time.perf_counter() - start,
                       {k: sha256_array(v) for k, v in outcome.arrays.items()}, dict(outcome.seeds), note)


def run(specs: list[CertificateSpec], fail_fast: bool = False, on_result=None,
        seed: int | None = None, jobs: int = 1) -> list[Certificate]:
    """Run ``specs`` (Monte Carlo ones under ``seed``, see :func:`run_one`) on ``jobs`` processes.

    Results come back, and ``on_result(cert)`` is called (for live printing), in the order of
    ``specs`` whatever ``jobs``: a certificate's verdict, evidence, seeds and array hashes do
    not depend on which process ran it or when (each draws from its own seeded streams). With
    ``fail_fast`` the list ends at the first FAIL or ERROR in that order, as a serial run would.
    """
    results = []
    for cert in (_serial(specs, seed) if jobs <= 1 or len(specs) <= 1 else _parallel(specs, seed, jobs)):
        results.append(cert)
        if on_result:
            on_result(cert)
        if fail_fast and cert.status in ("FAIL", "ERROR"):
            break
    return results


def _serial(specs, seed):
    for spec in specs:
        yield run_one(spec, seed=seed)


def _parallel(specs, seed, jobs):
    """Run ``specs`` on a pool of ``jobs`` worker processes and yield their results in order.

    The workers start from a fresh server process (``forkserver``, which imports the certificate modules
    before it forks them -- importing runs no kernel, so the server never starts an OpenMP thread pool;
    ``spawn`` where there is none),
    never as forks of this one: a process that has already run OpenMP-threaded Numba kernels cannot
    fork safely (Numba terminates such a child), and a notebook or a test session has usually done
    so. Each spec travels by reference to its check function, whose certificate module the worker
    imports. A worker that dies (killed, out of memory) makes its certificate, and every one not yet
    finished, an ERROR naming the cause: the run never passes on what did not run."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from theorylab._workers import environment

    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    order = longest_first([s.id for s in specs])   # measured costs: the workers finish together
    workers = min(jobs, len(specs))
    context = multiprocessing.get_context(method)
    if method == "forkserver":      # the server imports the certificates (and the library) once; workers fork warm
        context.set_forkserver_preload([*sorted({s.check.__module__ for s in specs}), _WARM])   # unless running
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_quiet_worker)
    try:
        with environment(_thread_limits(workers)):      # read by the server and workers started here
            futures = {i: pool.submit(run_one, specs[i], seed=seed) for i in order}
        for i, spec in enumerate(specs):
            try:
                yield futures[i].result()
            except BrokenProcessPool as exc:
                yield _lost(spec, f"the worker process running it died ({exc or 'killed'})")
    except BaseException:       # Ctrl-C, or the caller stopped early: no worker outlives the run
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


_WARM = "theorylab.certify._warm"
"""Preloaded by the server after the certificates: the workers' one-time set-up, done once (its docstring)."""


def start_worker_server(jobs: int) -> None:
    """Start the server that :func:`run` forks its ``jobs`` workers from, now, importing every certificate module.

    ``theorylab certify`` calls this before it imports the certificates itself (to list and select them),
    so that the server's imports run on another core at the same time instead of after; :func:`run` then
    uses the running server. Does nothing for ``jobs <= 1`` or where there is no ``forkserver``.
    """
    import multiprocessing
    from multiprocessing import forkserver

    from theorylab._workers import environment
    from theorylab.certify.registry import certificate_modules

    if jobs <= 1 or "forkserver" not in multiprocessing.get_all_start_methods():
        return
    multiprocessing.get_context("forkserver").set_forkserver_preload([*certificate_modules(), _WARM])
    with environment(_thread_limits(jobs)):
        forkserver.ensure_running()


def _thread_limits(workers: int) -> dict[str, str]:
    """Threads per worker so that ``workers`` processes do not oversubscribe the cores: Numba's
    parallel kernels and the BLAS get ``cores // workers`` each (results do not depend on it)."""
    threads = str(max(1, (os.cpu_count() or 1) // workers))
    return {name: threads for name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                       "MKL_NUM_THREADS")}


def _quiet_worker() -> None:
    """Ctrl-C is the parent's to handle (it stops the pool); a worker prints nothing of its own."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _lost(spec: CertificateSpec, why: str) -> Certificate:
    return Certificate(spec.id, spec.title, spec.paper, spec.claim, spec.method, "ERROR", (), 0.0, {}, {}, why)


def git_state(root=None) -> dict:
    """The git commit of theorylab's own source checkout, and whether it is dirty.

    ``dirty`` is True when ``theorylab/``, ``certificates/`` or ``pyproject.toml`` differ from
    the commit (tracked changes or untracked files there: both change what ``certify`` runs).
    Recorded only when ``root`` (default: the folder of the imported package) holds theorylab's
    ``pyproject.toml`` and is the top level of its checkout (:func:`theorylab._provenance.checkout_state`);
    otherwise -- an install, a copy inside another repository, no git -- both are None, never an
    error, and the report's ``versions.theorylab`` is the record.
    """
    return checkout_state(root)


def environment() -> dict:
    """Versions, platform and the library's git state (:func:`git_state`) recorded with every report."""
    versions = {}
    for pkg in ("theorylab", "numpy", "scipy", "sympy", "numba", "mpmath", "matplotlib"):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    return {"python": sys.version.split()[0], "platform": platform.platform(),
            "machine": platform.machine(), "versions": versions, "git": git_state()}

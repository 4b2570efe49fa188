"""Points, seeds and tasks of a sweep, and the computation of one task (runs on a worker).

Seeds: every point's seed is a hash of (sweep seed, variant, dk, T) -- never of its
position in a queue -- so results do not depend on chunking, worker count or order.
The seed deliberately omits g: all g of one (variant, dk, T) share their draws
(common random numbers, as in :func:`theorylab.psa.montecarlo.simulate_mass`).

:func:`compute_chunk` is what executors run: it must stay importable and picklable
(the Numba kernels it calls live in :mod:`theorylab.psa.montecarlo`).
"""
from __future__ import annotations

import functools
import hashlib
import math
import os
import socket
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from theorylab.sweep.spec import DEFAULT_OBSERVABLE, HALF_PLATEAU, SweepSpec
from theorylab.sweep.store import utc_now

_SEED_MAX = 2**31 - 1


@dataclass(frozen=True)
class Point:
    """One grid point of a sweep, with its index in the canonical order and its seed."""

    index: int
    variant: str
    dk: float
    T: float
    gamma: float | None
    seed: int

    @property
    def key(self) -> str:
        """Unique text key of the point (the store's primary key)."""
        return f"{self.variant}|dk={self.dk!r}|T={self.T!r}|gamma={self.gamma!r}"

    @property
    def curve(self) -> tuple:
        """Points of one curve share (variant, dk, T) and their draws."""
        return (self.variant, self.dk, self.T)


def point_seed(sweep_seed: int, variant: str, dk: float, T: float) -> int:
    """Seed of the (variant, dk, T) point: BLAKE2b of the sweep seed and the parameters.

    A pure function of its arguments (never of scheduling), in ``[0, 2**31 - 1)``.
    """
    text = f"theorylab-sweep|{int(sweep_seed)}|{variant}|{float(dk)!r}|{float(T)!r}"
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") % _SEED_MAX


def points(spec: SweepSpec) -> list[Point]:
    """Every point of ``spec`` in canonical order: variant, dk, T, then gamma (fastest)."""
    out = []
    for variant in spec.variants:
        for dk in spec.dk:
            for T in spec.T:
                seed = point_seed(spec.seed, variant, dk, T)
                for g in (spec.gamma or (None,)):
                    out.append(Point(len(out), variant, dk, T, g, seed))
    return out


def chunk_size(spec: SweepSpec) -> int:
    """Points per task: ``spec.chunk_size``, or automatically 512 for annealed-only sweeps,
    one curve for mass sweeps, one point for exact/MC gamma_c sweeps."""
    if spec.chunk_size is not None:
        return spec.chunk_size
    return 512 if spec.compute == ("annealed",) else (len(spec.gamma) if spec.gamma else 1)


def fits(spec: SweepSpec, chunk: Sequence[Point], p: Point) -> bool:
    """Whether ``p`` may join the (non-empty) ``chunk``: a mass-sweep task never spans two curves."""
    return spec.kind == "gamma_c" or chunk[-1].curve == p.curve


def chunks(spec: SweepSpec, todo: Sequence[Point]) -> list[list[Point]]:
    """Split ``todo`` into tasks of at most :func:`chunk_size` points that :func:`fits` accepts."""
    size = chunk_size(spec)
    out: list[list[Point]] = []
    for p in todo:
        if out and len(out[-1]) < size and fits(spec, out[-1], p):
            out[-1].append(p)
        else:
            out.append([p])
    return out


def check_rows(spec: SweepSpec, rows: Sequence[dict], store_path: str) -> None:
    """Raise :class:`ParameterError` unless every row of the store at ``store_path`` is a point
    of ``spec`` (key, index, parameters and seed as :func:`points` gives them)."""
    from theorylab.errors import ParameterError

    expected = {p.key: p for p in points(spec)}
    for r in rows:
        p = expected.get(r["key"])
        if p is None or (r["idx"], r["variant"], r["dk"], r["T"], r["gamma"], r["seed"]) != (
                p.index, p.variant, p.dk, p.T, p.gamma, p.seed):
            raise ParameterError(f"--store: {store_path!r} is damaged (the row {r['key']!r} is not a point of "
                                 f"its spec); the file was left unchanged")


def task_memory(spec: SweepSpec, threads: int) -> int:
    """Upper estimate, in bytes, of what one task of ``spec`` allocates on a worker running
    ``threads`` Numba threads.

    Only the Monte Carlo route grows with the request: about 32 bytes of batch bookkeeping
    per sample, two draws of ``m = T - 2`` normals per thread, and ``CHUNK x G`` masses
    (G couplings: the mass sweep's gamma axis, or the larger of the coarse scan and
    ``fine_points`` for gamma_c) (:func:`theorylab.psa.montecarlo.simulate_mass`); a peak
    observable (:mod:`theorylab.psa.observables`) keeps ten row statistics per sample and coupling
    (:func:`theorylab.psa.row_stats_mc.simulate_row_stats`), ten times the masses. The law and
    quadrature routes need a few MB, counted in a fixed 64 MiB.
    """
    import inspect

    base = 64 << 20
    if "mc" not in spec.compute:
        return base
    from theorylab.psa import montecarlo as competition

    mc = dict(spec.mc)
    fine = mc.get("fine_points", inspect.signature(competition.mc_gamma_c).parameters["fine_points"].default)
    G = len(spec.gamma) if spec.gamma else max(len(competition._COARSE), int(fine))
    itemsize = 8 if mc.get("dtype") == "float64" else 4
    m = int(max(spec.T)) - 2
    from theorylab.psa.observables import PEAK_OBSERVABLES
    from theorylab.psa.row_stats_mc import STATS

    stats = len(STATS) if spec.observable in PEAK_OBSERVABLES else 1
    return (base + 32 * spec.samples + 16 * stats * (competition.CHUNK + competition.BATCHES) * G
            + 2 * threads * m * itemsize)


def check_memory(spec: SweepSpec, workers: int) -> None:
    """Refuse (:class:`theorylab.resources.ResourceError`) a sweep whose ``workers`` concurrent tasks would
    need more memory than the limits in force (:func:`theorylab.resources.limits`: half the available
    memory, or ``THEORYLAB_MAX_MEMORY``); each worker runs ``cpu_count // workers`` threads."""
    from theorylab import resources

    workers = max(workers, 1)
    threads = max(1, (os.cpu_count() or 1) // workers)
    what = f"{workers} worker(s) x one task: samples={spec.samples}, T up to {max(spec.T):g}"
    resources.check(resources.Cost(float(workers * task_memory(spec, threads)), 0.0, what), resources.limits())


def point_level(spec: SweepSpec, variant: str, dk: float, T: float) -> float:
    """The mass level whose first upward crossing defines gamma_c at this point."""
    if spec.level == HALF_PLATEAU:
        from theorylab.psa.quadrature import argmax_limit
        return float(argmax_limit(variant, dk, T)) / 2.0
    return float(spec.level)


def compute_point(spec: SweepSpec, point: Point, seed: int) -> dict:
    """The results of one point (store columns): estimates and standard errors.

    ``seed`` is explicit (normally ``point.seed``) so that the result is a pure function
    of (spec, point, seed).
    """
    if spec.kind == "mass":
        return compute_curve(spec, point.variant, point.dk, point.T, [point.gamma], seed)[0]
    return _gamma_c_point(spec, point.variant, point.dk, point.T, seed)


def _gamma_c_point(spec: SweepSpec, variant: str, dk: float, T: float, seed: int) -> dict:
    out: dict[str, Any] = {}
    if "annealed" in spec.compute:
        from theorylab.psa.transition import gamma_c
        law = gamma_c(variant, dk, T, c=spec.c)
        out["law_gamma_c"] = _float(law.gamma_c)
        out["law_branch"] = str(law.branch)
    if spec.observable != DEFAULT_OBSERVABLE:
        return {**out, **_observable_point(spec, variant, dk, T, seed)}
    level = point_level(spec, variant, dk, T) if {"exact", "mc"} & set(spec.compute) else None
    if level is not None:
        out["level"] = level
    if "exact" in spec.compute:
        from theorylab.psa.quadrature import exact_gamma_c
        out["exact_gamma_c"] = _float(exact_gamma_c(variant, dk, T, level=level))
    if "mc" in spec.compute:
        from theorylab.psa.montecarlo import mc_gamma_c
        est = mc_gamma_c(variant, dk, T, samples=spec.samples, seed=seed, level=level, progress=False,
                         **dict(spec.mc))
        out.update(mc_gamma_c=_float(est.gamma_c), mc_ci_low=_float(est.ci_low),
                   mc_ci_high=_float(est.ci_high), mc_samples=spec.samples)
    return out


def _observable_point(spec: SweepSpec, variant: str, dk: float, T: float, seed: int) -> dict:
    """Exact and Monte Carlo gamma_c of ``spec.observable`` (:mod:`theorylab.psa.observables`)."""
    from theorylab.psa.observables import measure

    out: dict[str, Any] = {}
    if "exact" in spec.compute:
        est = measure(spec.observable, variant, dk, int(T))
        out["exact_gamma_c"] = _float(est.gamma_c)
        if np.isfinite(est.level):
            out["level"] = est.level
    if "mc" in spec.compute:
        est = measure(spec.observable, variant, dk, int(T), method="mc", samples=spec.samples, seed=seed,
                      progress=False, **dict(spec.mc))
        out.update(mc_gamma_c=_float(est.gamma_c), mc_ci_low=_float(est.ci_low),
                   mc_ci_high=_float(est.ci_high), mc_samples=spec.samples)
        if np.isfinite(est.level):
            out["level"] = est.level
    return out


def compute_curve(spec: SweepSpec, variant: str, dk: float, T: float, gammas: Sequence[float],
                  seed: int) -> list[dict]:
    """Mass-sweep results at several g of one (variant, dk, T).

    Every value is read off the curve over the spec's **whole** gamma axis (one set of
    draws: common random numbers), so a point's result is bit-for-bit the same whichever
    chunk it is computed in.
    """
    axis = list(spec.gamma)
    where = [axis.index(float(g)) for g in gammas]
    rows: list[dict] = [{} for _ in gammas]
    mc = dict(spec.mc)
    if "exact" in spec.compute:
        from theorylab.psa.quadrature import exact_mass
        kw = {"sigma0": mc["sigma0"]} if "sigma0" in mc else {}
        mass = np.atleast_1d(exact_mass(variant, dk, T, axis, **kw))
        for row, i in zip(rows, where):
            row["exact_mass"] = _float(mass[i])
    if "mc" in spec.compute:
        from theorylab.psa.montecarlo import simulate_mass
        curve = simulate_mass(variant, dk, T, axis, samples=spec.samples, seed=seed, progress=False, **mc)
        for row, i in zip(rows, where):
            row.update(mc_mass=_float(curve.mass[i]), mc_se=_float(curve.se[i]), mc_samples=spec.samples)
    return rows


def compute_chunk(spec: SweepSpec, chunk: Sequence[Point]) -> list[dict]:
    """Compute one task: store rows (parameters, results, seed, code version, timestamps).

    Runs on a worker (process pool or Dask); must stay importable and picklable.
    """
    rows = []
    groups: dict[tuple, list[Point]] = {}
    for p in chunk:
        groups.setdefault(p.curve if spec.kind == "mass" else (p.index,), []).append(p)
    for group in groups.values():
        started, t0 = utc_now(), time.perf_counter()
        if spec.kind == "mass":
            first = group[0]
            results = compute_curve(spec, first.variant, first.dk, first.T, [p.gamma for p in group], first.seed)
        else:
            results = [compute_point(spec, group[0], group[0].seed)]
        elapsed = (time.perf_counter() - t0) / len(group)
        for p, res in zip(group, results):
            rows.append({"key": p.key, "idx": p.index, "variant": p.variant, "dk": p.dk, "T": p.T,
                         "gamma": p.gamma, "seed": p.seed, **res, "code_version": code_version(),
                         "worker": _worker(), "started_at": started, "finished_at": utc_now(),
                         "elapsed_s": elapsed})
    return rows


def _describe_chunk(spec: SweepSpec, chunk: Sequence[Point]) -> str:
    """How a task of :func:`compute_chunk` is named when it fails: its sweep, points and first point."""
    idx = [p.index for p in chunk]
    shown = ", ".join(map(str, idx[:4])) + (", ..." if len(idx) > 4 else "")
    first = f" ({chunk[0].key}{', ...' if len(chunk) > 1 else ''})" if chunk else ""
    return f"sweep {spec.name!r} task of point{'s' if len(idx) != 1 else ''} {shown}{first}"


compute_chunk.describe_task = _describe_chunk   # read by the executors (executors.task_label)


def _float(x) -> float | None:
    """A Python float, or None for NaN (stored as SQL NULL = "no root")."""
    x = float(np.asarray(x, dtype=float).reshape(()))
    return x if math.isfinite(x) else None


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """``theorylab`` version plus the git commit of the source tree (``.dirty`` if tracked files of the
    package are modified)."""
    import subprocess

    import theorylab
    here = os.path.dirname(os.path.abspath(theorylab.__file__))  # the theorylab package
    try:
        commit = subprocess.run(["git", "-C", here, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "--untracked-files=no", "--", "."],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return theorylab.__version__
    if not commit:
        return theorylab.__version__
    return f"{theorylab.__version__}+g{commit}{'.dirty' if dirty else ''}"


def _worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"

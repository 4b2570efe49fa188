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

Seeds: every point's seed is a hash of (sweep seed, variant, dk, T) -- never of its
position in a queue -- so results do not depend on chunking, worker count or order.
The seed deliberately omits g: all g of one (variant, dk, T) share their draws
(common random numbers, as in :func:`theorylab.sim.competition.simulate_mass`).

Execution: :func:`run_sweep` splits the missing points into chunks, runs them on an
executor (:class:`SerialExecutor`, :class:`ProcessExecutor` -- the default -- or
:class:`DaskExecutor`) and writes each finished chunk to the
:class:`~theorylab.sim.store.SweepStore` in one transaction.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import socket
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from theorylab.errors import ParameterError, choice, positive_int, real_array
from theorylab.sim.store import SweepStore, utc_now

COMPUTE = ("annealed", "exact", "mc")
_SECTIONS = {
    "sweep": {"name", "seed", "samples", "compute", "chunk_size", "c", "level"},
    "grid": {"variant", "dk", "T", "gamma"},
    "mc": None,  # validated against the Monte Carlo functions' signatures
}
_SEED_MAX = 2**31 - 1


# ----------------------------------------------------------------------------- spec


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep: the grid, what to compute, samples and the sweep seed.

    Attributes
    ----------
    name : free text.
    variants, dk, T : grid axes (variant names; head widths > 0; context lengths >= 3).
    gamma : coupling axis of a mass sweep, or ``None`` for a gamma_c sweep.
    compute : subset of :data:`COMPUTE`.
    samples : Monte Carlo draws per point.
    seed : the sweep seed.
    c : condensation constant used by the t4-only two-branch law (resolved at load time,
        so a later change of the library default cannot mix two laws in one store).
    level : mass level defining the exact and Monte Carlo gamma_c (default 1/2), or
        ``"half-plateau"``: per point half the argmax plateau
        (:func:`theorylab.sim.exact.argmax_limit`), the observable theorylab calibrates the
        condensation constant with (:class:`theorylab.compare.Calibration`).
    mc : extra keyword options of the Monte Carlo functions, as sorted (key, value) pairs.
    chunk_size : points per task, or ``None`` for the automatic choice (not hashed:
        chunking never changes results).
    """

    name: str
    variants: tuple[str, ...]
    dk: tuple[float, ...]
    T: tuple[float, ...]
    gamma: tuple[float, ...] | None
    compute: tuple[str, ...]
    samples: int
    seed: int
    c: float
    level: float | str = 0.5
    mc: tuple[tuple[str, Any], ...] = ()
    chunk_size: int | None = field(default=None, compare=False)

    @property
    def kind(self) -> str:
        """``"gamma_c"`` or ``"mass"``."""
        return "gamma_c" if self.gamma is None else "mass"

    def canonical(self) -> dict:
        """Everything that determines the results, as a plain JSON-able dict."""
        d = asdict(self)
        d.pop("chunk_size")
        d["mc"] = dict(self.mc)
        d["kind"] = self.kind
        return d

    def canonical_json(self) -> str:
        return json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))

    @property
    def hash(self) -> str:
        """SHA-256 of :meth:`canonical_json` (what a store is bound to)."""
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()

    def n_points(self) -> int:
        return len(self.variants) * len(self.dk) * len(self.T) * (len(self.gamma) if self.gamma else 1)


def load_spec(path: str) -> SweepSpec:
    """Read and validate a TOML sweep spec (one-line :class:`ParameterError` on any problem)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ParameterError(f"spec {path}: cannot read ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ParameterError(f"spec {path}: invalid TOML: {_one_line(exc)}") from None
    return spec_from_dict(data, source=f"spec {path}")


def spec_from_dict(data: Mapping, *, source: str = "spec") -> SweepSpec:
    """Validate a parsed spec (the TOML tables as nested dicts) into a :class:`SweepSpec`."""
    from theorylab.psa.scoremodel import VARIANTS
    from theorylab.psa.transition import CONDENSATION_C

    try:
        _check_keys(data, source)
        sweep, grid = data.get("sweep", {}), data.get("grid", {})
        if "dk" not in grid or "T" not in grid:
            raise ParameterError("[grid] needs dk and T")
        variants = _names("grid.variant", grid.get("variant", ["t4-only"]))
        if "all" in variants:
            variants = list(VARIANTS)
        variants = tuple(dict.fromkeys(choice("grid.variant", v, VARIANTS + ("all",)) for v in variants))
        if not variants:
            raise ParameterError("grid.variant must not be empty")
        compute = _names("sweep.compute", sweep.get("compute", ["annealed"]))
        compute = tuple(c for c in COMPUTE if c in {choice("sweep.compute", c, COMPUTE) for c in compute})
        if not compute:
            raise ParameterError("sweep.compute must name at least one of annealed, exact, mc")
        gamma = _axis("grid.gamma", grid["gamma"], low=0.0) if "gamma" in grid else None
        if gamma is not None and "annealed" in compute:
            raise ParameterError("sweep.compute: 'annealed' gives gamma_c only; drop it or the grid.gamma axis")
        spec = SweepSpec(
            name=str(sweep.get("name", "sweep")),
            variants=variants,
            dk=_axis("grid.dk", grid["dk"], low=0.0, low_inclusive=False),
            T=_axis("grid.T", grid["T"], low=3.0),
            gamma=gamma,
            compute=compute,
            samples=positive_int("sweep.samples", sweep.get("samples", 20000)),
            seed=positive_int("sweep.seed", sweep.get("seed", 0), low=0),
            c=float(real_array("sweep.c", sweep.get("c", CONDENSATION_C), low=0, low_inclusive=False)),
            level=_level_option(sweep.get("level", 0.5)),
            mc=tuple(sorted(_mc_options(data.get("mc", {}), gamma is None).items())),
            chunk_size=None if sweep.get("chunk_size") is None else positive_int("sweep.chunk_size",
                                                                                 sweep["chunk_size"]),
        )
        if {"exact", "mc"} & set(compute) and not all(float(t).is_integer() for t in spec.T):
            raise ParameterError("grid.T must be integers when computing exact or mc (m = T - 2 distractors)")
        if spec.kind == "gamma_c" and "exact" in compute and dict(spec.mc).get("sigma0", 0):
            raise ParameterError("mc.sigma0: the exact gamma_c has no target noise; drop 'exact' or sigma0")
    except ParameterError as exc:
        raise ParameterError(f"{source}: {exc}") from None
    return spec


HALF_PLATEAU = "half-plateau"


def _level_option(value) -> float | str:
    if isinstance(value, str):
        return choice("sweep.level", value, (HALF_PLATEAU,))
    return float(real_array("sweep.level", value, low=0, high=1, low_inclusive=False, high_inclusive=False))


def point_level(spec: "SweepSpec", variant: str, dk: float, T: float) -> float:
    """The mass level whose first upward crossing defines gamma_c at this point."""
    if spec.level == HALF_PLATEAU:
        from theorylab.sim.exact import argmax_limit
        return float(argmax_limit(variant, dk, T)) / 2.0
    return float(spec.level)


def _names(key: str, value) -> list[str]:
    """A name or a list of names."""
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ParameterError(f"{key} must be a name or a list of names (got {value!r})")
    return values


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _check_keys(data: Mapping, source: str) -> None:
    if not isinstance(data, Mapping):
        raise ParameterError("a spec is a TOML document with [sweep] and [grid] tables")
    for section, value in data.items():
        if section not in _SECTIONS:
            raise ParameterError(f"unknown table [{section}] (expected one of [sweep], [grid], [mc])")
        if not isinstance(value, Mapping):
            raise ParameterError(f"{section} must be a table ([{section}])")
        allowed = _SECTIONS[section]
        extra = sorted(set(value) - allowed) if allowed is not None else []
        if extra:
            raise ParameterError(f"unknown key {section}.{extra[0]} (expected one of {', '.join(sorted(allowed))})")


def _axis(name: str, value, **bounds) -> tuple[float, ...]:
    """A grid axis: a number, a list, or ``{start, stop, num, spacing}`` (linear|log)."""
    if isinstance(value, Mapping):
        extra = sorted(set(value) - {"start", "stop", "num", "spacing"})
        if extra or not {"start", "stop", "num"} <= set(value):
            raise ParameterError(f"{name} range needs start, stop, num (and optional spacing = 'linear'|'log')")
        start, stop = (float(real_array(name, value[k], **bounds)) for k in ("start", "stop"))
        num = positive_int(f"{name}.num", value["num"])
        spacing = choice(f"{name}.spacing", value.get("spacing", "linear"), ("linear", "log"))
        if spacing == "log" and min(start, stop) <= 0:
            raise ParameterError(f"{name}: a log range needs start, stop > 0")
        values = np.geomspace(start, stop, num) if spacing == "log" else np.linspace(start, stop, num)
    else:
        if isinstance(value, (str, bool)) or (isinstance(value, list) and any(isinstance(v, (str, bool))
                                                                           for v in value)):
            raise ParameterError(f"{name} must be numbers (got {value!r})")
        values = real_array(name, value, **bounds).ravel()
    return tuple(dict.fromkeys(float(f"{v:.12g}") for v in values))


def _mc_options(options: Mapping, gamma_c_sweep: bool) -> dict:
    """Check ``[mc]`` keys against the Monte Carlo function the sweep will call."""
    import inspect

    reserved = {"variant", "dk", "T", "gammas", "samples", "seed", "progress", "level"}
    bad = sorted(set(options) & reserved)
    if bad:
        raise ParameterError(f"mc.{bad[0]} is set by the sweep itself (use [sweep]/[grid])")
    if not options:
        return {}
    fn = _mc_function(gamma_c_sweep)
    accepted = {p.name for p in inspect.signature(fn).parameters.values()
                if p.kind is p.KEYWORD_ONLY or p.default is not p.empty} - reserved
    extra = sorted(set(options) - accepted)
    if extra:
        raise ParameterError(f"unknown key mc.{extra[0]} (expected one of {', '.join(sorted(accepted))})")
    try:  # a tiny dry run (one distractor, two samples) checks the values before any worker starts
        if gamma_c_sweep:
            fn("t4-only", 64.0, 3, samples=2, seed=0, progress=False, **options)
        else:
            fn("t4-only", 64.0, 3, [0.5], samples=2, seed=0, progress=False, **options)
    except ParameterError as exc:
        raise ParameterError(f"[mc] {exc}") from None
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"[mc] options rejected: {_one_line(exc)}") from None
    return dict(options)


def _mc_function(gamma_c_sweep: bool) -> Callable:
    from theorylab.sim import competition
    return competition.mc_gamma_c if gamma_c_sweep else competition.simulate_mass


# ----------------------------------------------------------------------------- points and seeds


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


def chunks(spec: SweepSpec, todo: Sequence[Point]) -> list[list[Point]]:
    """Split ``todo`` into tasks of at most ``chunk_size`` points; mass sweeps never split
    across curves. Automatic size: 512 for annealed-only sweeps, one curve for mass
    sweeps, one point for exact/MC gamma_c sweeps."""
    size = spec.chunk_size
    if size is None:
        size = 512 if spec.compute == ("annealed",) else (len(spec.gamma) if spec.gamma else 1)
    out: list[list[Point]] = []
    for p in todo:
        if out and len(out[-1]) < size and out[-1][-1].curve == p.curve:
            out[-1].append(p)
        elif out and len(out[-1]) < size and spec.kind == "gamma_c":
            out[-1].append(p)
        else:
            out.append([p])
    return out


# ----------------------------------------------------------------------------- computing


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
    level = point_level(spec, variant, dk, T) if {"exact", "mc"} & set(spec.compute) else None
    if level is not None:
        out["level"] = level
    if "annealed" in spec.compute:
        from theorylab.psa.transition import gamma_c
        law = gamma_c(variant, dk, T, c=spec.c)
        out["law_gamma_c"] = _float(law.gamma_c)
        out["law_branch"] = str(law.branch)
    if "exact" in spec.compute:
        from theorylab.sim.exact import exact_gamma_c
        out["exact_gamma_c"] = _float(exact_gamma_c(variant, dk, T, level=level))
    if "mc" in spec.compute:
        from theorylab.sim.competition import mc_gamma_c
        est = mc_gamma_c(variant, dk, T, samples=spec.samples, seed=seed, level=level, progress=False,
                         **dict(spec.mc))
        out.update(mc_gamma_c=_float(est.gamma_c), mc_ci_low=_float(est.ci_low),
                   mc_ci_high=_float(est.ci_high), mc_samples=spec.samples)
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
        from theorylab.sim.exact import exact_mass
        kw = {"sigma0": mc["sigma0"]} if "sigma0" in mc else {}
        mass = np.atleast_1d(exact_mass(variant, dk, T, axis, **kw))
        for row, i in zip(rows, where):
            row["exact_mass"] = _float(mass[i])
    if "mc" in spec.compute:
        from theorylab.sim.competition import simulate_mass
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


def _float(x) -> float | None:
    """A Python float, or None for NaN (stored as SQL NULL = "no root")."""
    x = float(np.asarray(x, dtype=float).reshape(()))
    return x if math.isfinite(x) else None


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """``theorylab`` version plus the git commit of the source tree (``.dirty`` if tracked files of the
    package are modified)."""
    import subprocess

    from theorylab import __version__
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the theorylab package
    try:
        commit = subprocess.run(["git", "-C", here, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                                text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "--untracked-files=no", "--", "."],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return __version__
    if not commit:
        return __version__
    return f"{__version__}+g{commit}{'.dirty' if dirty else ''}"


def _worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


# ----------------------------------------------------------------------------- executors


class SerialExecutor:
    """Run every task in this process, in order (debugging, tests, tiny sweeps)."""

    description = "serial (this process)"

    def map_unordered(self, fn: Callable, tasks: Iterable[tuple]) -> Iterator:
        for args in tasks:
            yield fn(*args)

    def close(self) -> None:
        pass


def _init_worker(threads: int, parent: int) -> None:
    """Pool-worker setup: Numba thread count, and exit if the coordinator dies (even by
    SIGKILL), so a killed sweep leaves no orphaned workers behind."""
    import signal
    import threading

    os.environ["NUMBA_NUM_THREADS"] = str(threads)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's to handle

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="theorylab-parent-watch", daemon=True).start()


class ProcessExecutor:
    """A local process pool (the default). Each of ``workers`` processes runs Numba with
    ``cpu_count // workers`` threads, so the machine is not oversubscribed."""

    def __init__(self, workers: int | None = None):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        cpus = os.cpu_count() or 1
        self.workers = positive_int("--workers", workers if workers is not None else cpus)
        threads = max(1, cpus // self.workers)
        self.pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_init_worker, initargs=(threads, os.getpid()))
        self.description = f"local process pool ({self.workers} workers x {threads} threads)"

    def map_unordered(self, fn: Callable, tasks: Iterable[tuple]) -> Iterator:
        """Results as tasks finish, with at most ``4 x workers`` tasks in flight."""
        from concurrent.futures import FIRST_COMPLETED, wait

        tasks = iter(tasks)
        pending: set = set()
        try:
            while True:
                for args in tasks:
                    pending.add(self.pool.submit(fn, *args))
                    if len(pending) >= 4 * self.workers:
                        break
                if not pending:
                    return
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
        finally:
            for fut in pending:
                fut.cancel()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


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
                raise ParameterError(f"--scheduler: cannot connect to {scheduler!r} ({_one_line(exc)})") from None
        else:
            n = positive_int("--local-cluster", local_cluster)
            threads = max(1, (os.cpu_count() or 1) // n)
            self.cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=processes,
                                        dashboard_address=None, env={"NUMBA_NUM_THREADS": str(threads)})
            self.client = Client(self.cluster)
        self.description = f"dask ({self.client.scheduler.address})"

    def map_unordered(self, fn: Callable, tasks: Iterable[tuple]) -> Iterator:
        """Results as tasks finish; at most ``4 x (worker threads)`` (>= 8) tasks in flight,
        so a sweep of any size keeps the scheduler's queue short."""
        from distributed import as_completed

        tasks = iter(tasks)
        threads = sum(self.client.nthreads().values()) or 1
        limit = max(8, 4 * threads)
        queue = as_completed([self.client.submit(fn, *args, pure=False) for _, args in zip(range(limit), tasks)])
        try:
            for fut in queue:
                yield fut.result()
                fut.release()
                nxt = next(tasks, None)
                if nxt is not None:
                    queue.add(self.client.submit(fn, *nxt, pure=False))
        finally:
            queue.clear()

    def close(self) -> None:
        if self._owns_client:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make_executor(*, scheduler: str | None = None, local_cluster: int | None = None,
                  workers: int | None = None):
    """The executor the CLI options select: Dask if a scheduler or local cluster is named,
    serial if ``workers == 0``, else a local process pool (``workers`` processes)."""
    if scheduler is not None and local_cluster is not None:
        raise ParameterError("--scheduler and --local-cluster are exclusive")
    if scheduler is not None or local_cluster is not None:
        return DaskExecutor(scheduler=scheduler, local_cluster=local_cluster)
    if workers == 0:
        return SerialExecutor()
    return ProcessExecutor(workers)


# ----------------------------------------------------------------------------- running


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


def store_status(store_path: str) -> dict:
    """Summary of a store: spec name and hash, points done / total, code versions, times."""
    from theorylab.sim.store import SweepStore

    with SweepStore(store_path) as store:
        spec = spec_from_dict(_toml_shape(store.spec), source=f"store {store_path}")
        rows = store.conn.execute("SELECT COUNT(*), MIN(started_at), MAX(finished_at), "
                                  "GROUP_CONCAT(DISTINCT code_version) FROM points").fetchone()
        total = spec.n_points()
        return {"name": spec.name, "kind": spec.kind, "spec_sha256": store.meta["spec_hash"],
                "created_at": store.meta["created_at"], "points_done": rows[0], "points_total": total,
                "complete": rows[0] == total, "first_started": rows[1], "last_finished": rows[2],
                "code_versions": rows[3], "compute": ",".join(spec.compute), "samples": spec.samples,
                "seed": spec.seed}


def _toml_shape(canonical: Mapping) -> dict:
    """Rebuild the TOML-shaped dict from a stored canonical spec."""
    sweep = {k: canonical[k] for k in ("name", "seed", "samples", "compute", "c", "level")}
    grid = {"variant": canonical["variants"], "dk": canonical["dk"], "T": canonical["T"]}
    if canonical.get("gamma") is not None:
        grid["gamma"] = canonical["gamma"]
    out = {"sweep": sweep, "grid": grid}
    if canonical.get("mc"):
        out["mc"] = canonical["mc"]
    return out


def spec_of_store(store_path: str) -> SweepSpec:
    """The spec a store is bound to."""
    with SweepStore(store_path) as store:
        return spec_from_dict(_toml_shape(store.spec), source=f"store {store_path}")


def export_rows(store_path: str) -> list[dict]:
    """Every stored row (parameters, estimates, errors, seed, code version, timestamps)."""
    with SweepStore(store_path) as store:
        rows = store.rows()
    for r in rows:
        for k in ("dk", "T"):
            if r[k] is not None and float(r[k]).is_integer():
                r[k] = int(r[k])
    return rows


# ----------------------------------------------------------------------------- comparison

ROUTES = {"law": "law_gamma_c", "exact": "exact_gamma_c", "mc": "mc_gamma_c"}


def agreement(predicted, simulated) -> dict:
    """Agreement of predicted with simulated gamma_c over the points where both exist.

    Returns ``n`` (points used), ``pearson_r`` and the median and maximum relative error
    ``|predicted - simulated| / simulated`` (the paper's statistics, PSA §7.9-7.10),
    computed by :func:`theorylab.compare.pearson_r` and :func:`theorylab.compare.relative_error`.
    """
    from theorylab.compare import pearson_r, relative_error

    p = np.asarray([np.nan if v is None else v for v in predicted], float)
    s = np.asarray([np.nan if v is None else v for v in simulated], float)
    ok = np.isfinite(p) & np.isfinite(s) & (s != 0)
    rel = relative_error(p[ok], s[ok])
    n = int(ok.sum())
    return {"n": n, "pearson_r": pearson_r(p[ok], s[ok]),
            "median_rel_err": float(np.median(rel)) if n else float("nan"),
            "max_rel_err": float(rel.max()) if n else float("nan")}


def compare_rows(rows: Sequence[Mapping], predicted: str = "law", simulated: str = "mc") -> dict:
    """:func:`agreement` of two stored routes (``law``, ``exact`` or ``mc``)."""
    p, s = (ROUTES[choice(name, v, tuple(ROUTES))] for name, v in (("predicted", predicted),
                                                                  ("simulated", simulated)))
    return agreement([r.get(p) for r in rows], [r.get(s) for r in rows])

"""Mutation testing of the library by its certificates (``theorylab mutate``).

A mutant (:mod:`theorylab.mutation.mutants`) is planted, one at a time, in a *copy* of the
library source, and ``theorylab certify --only IDS --fail-fast`` runs on that copy in a new
process. The mutant is **killed** when certify exits non-zero (a FAIL or an ERROR, or a
crash on import) or exceeds its time limit (**timeout**, counted as killed and listed
separately); it **survived** when every certificate that ran PASSed. Only the certificates
that execute the mutated code run (per-certificate line coverage, measured once on the clean
copy by coverage.py, :mod:`theorylab.mutation.linecov`); a mutant that no certificate executes is a survivor
**not covered**. Mutants listed in the equivalent file (TOML, table ``[equivalent]``,
``"mutant id" = "reason"``) that survive are **equivalent** and leave the score; a listed
mutant that is killed is reported (the listing is wrong).

Score per package: ``(killed + timeout) / (total - equivalent)``.

Which certificates run: :class:`Coverage` (line coverage for code in functions; the static
uses of :mod:`theorylab.mutation.callgraph` plus the entry kernels each certificate calls for
Numba-compiled and module-level code).

Isolation and speed (2 cores): each worker owns a copy of ``theorylab/`` and
``certificates/`` (:class:`theorylab.mutation.planting.Worker`), warmed once -- the first by a
clean ``certify`` run, which must PASS and gives each certificate's time, the last by the
coverage run -- which writes its byte-code and its own Numba cache. A mutant edits one file
of the worker's copy (with a later file time, so stale byte-code is never used; nothing is
written back), runs, and the file is restored. Runs are forks of a per-worker interpreter
that has imported the heavy dependencies but never ``theorylab`` (``--isolation fork``,
the default: saves the ~2 s start-up of every run) or new interpreters (``--isolation
exec``, the pattern of ``tests/planted.py``). Mutants of a file with Numba-compiled
functions run with an empty Numba cache of their own (the kernels are recompiled from the
mutated source); other mutants reuse the worker's warm cache, which only ever holds
compilations of unmutated Numba source (``tests/test_mutation.py`` checks that compiled
code reads no name of another library module). Every run pins Numba/BLAS to one thread
(results do not depend on the thread count) and has a generous time limit
(:func:`timeout_for`).
"""
from __future__ import annotations

import ast
import json
import math
import random
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import CancelledError, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from theorylab.mutation.callgraph import Analysis, analyse, importers, is_numba
from theorylab.mutation.mutants import Mutant, generate
from theorylab.mutation.files import STATUSES, load_equivalent, read_journal  # noqa: F401 (the module's API)
from theorylab.mutation.planting import Worker, child_environment, library_root, run_process, runner_code
from theorylab.certify.runner import git_state
from theorylab.errors import ParameterError, WorkerError

PACKAGES = ("psa", "graded", "plga", "nn", "symbolic", "rng")
"""The paper packages, the NumPy transformer, the SymPy routes and the shared counter RNG
(a package here is a folder ``theorylab/NAME/`` or a shared module ``theorylab/NAME.py``)."""
EXCLUDED = {
    "theorylab/sweep/": "storage and executor infrastructure of parameter sweeps (SQLite store, process and "
                            "Dask executors, resume): checked by tests/test_sweep*.py; certificates check the "
                            "mathematics, not the plumbing",
    "theorylab/psa/sweep.py": "the PSA sweep task's spec fields, store columns and result readers (plumbing of the "
                              "sweep engine): checked by tests/test_sweep*.py",
    "theorylab/psa/sweep_compute.py": "the PSA sweep task's dispatch of a group of points to the library routes "
                                      "(which the certificates check): checked by tests/test_sweep*.py",
    "theorylab/graded/io.py": "file input (grade vectors from .json/.csv/.txt): I/O, checked by tests/test_graded_cli.py",
}
"""Files of the packages left out, with the reason."""
DEFAULT_EQUIVALENT = "results/mutation-equivalent.toml"


class BaselineFailed(RuntimeError):
    """The clean copy does not PASS every selected certificate: no mutant can be judged."""


# ------------------------------------------------------------------------------------ mutants
def library_files(root: Path, packages=PACKAGES) -> list[str]:
    """Python files of ``packages`` (relative to ``root``, ``/``-separated) minus :data:`EXCLUDED`."""
    out = []
    for pkg in packages:
        folder = Path(root) / "theorylab" / pkg
        for path in sorted(folder.rglob("*.py")) if folder.is_dir() else [folder.with_suffix(".py")]:
            rel = path.relative_to(root).as_posix()
            if not any(rel.startswith(x) for x in EXCLUDED):
                out.append(rel)
    return out


def collect(root: Path, packages=PACKAGES, files=None, ids=None, max_mutants=None, seed=0,
            per_package=None) -> list[Mutant]:
    """The mutants to run: of ``files`` (default: every file of ``packages``), or exactly ``ids``,
    then a seeded sample of ``max_mutants`` in all, or of ``per_package`` from each package
    (stratified: every package's score is then estimated from the same number of mutants);
    sorted by file, line, column, operator."""
    pool = library_files(root, packages)
    if files:
        bad = [f for f in files if f not in library_files(root)]
        if bad:
            raise ParameterError(f"--file must name library files of {', '.join(PACKAGES)} (not excluded; "
                                 f"relative to the library root, e.g. theorylab/psa/shear.py); got {', '.join(bad)}")
        pool = [f for f in library_files(root) if f in files]
    if ids:
        pool = sorted({i.split("::", 1)[0] for i in ids})
        if any(f not in library_files(root) for f in pool):
            raise ParameterError(f"--mutant ids must start with a library file of {', '.join(PACKAGES)} (got "
                                 f"{', '.join(f for f in pool if f not in library_files(root))})")
    mutants = [m for f in pool for m in generate(f, (Path(root) / f).read_text())]
    if ids:
        known = {m.id for m in mutants}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise ParameterError(f"--mutant ids must be generated mutants, file::scope::operator::statement.k as "
                                 f"--list prints them (unknown: {', '.join(unknown[:5])})")
        mutants = [m for m in mutants if m.id in set(ids)]
    if max_mutants is not None and max_mutants < len(mutants):
        mutants = random.Random(seed).sample(mutants, max_mutants)
    if per_package is not None:
        rng = random.Random(seed)
        groups = [[m for m in mutants if m.package == p] for p in PACKAGES]
        mutants = [m for g in groups for m in rng.sample(g, min(per_package, len(g)))]
    return sorted(mutants, key=lambda m: (m.file, m.line, m.col, m.operator))


# ----------------------------------------------------------------------------------- coverage
def numba_files(root: Path, files) -> set[str]:
    """Files among ``files`` that define a Numba-compiled function."""
    return {f for f in files if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_numba(n)
                                    for n in ast.walk(ast.parse((Path(root) / f).read_text())))}


COPY_CERTIFICATES = "theorylab/certificates/"
"""Where a copy of the library (the coverage run's root) holds the certificates."""


def _checkout_paths(raw: dict, root: Path) -> dict:
    """``raw`` with the copy's certificate paths (``theorylab/certificates/...``) renamed as the static
    analysis of ``root`` names them: ``certificates/...`` in a checkout (unchanged for a root in the
    installed layout). Without it no certificate function that loads a library constant would ever be
    found to run, and a mutant of a constant only certificates read was "not covered"."""
    if not (Path(root) / "certificates").is_dir() or (Path(root) / COPY_CERTIFICATES).is_dir():
        return raw

    def name(f: str) -> str:
        return f.removeprefix("theorylab/") if f.startswith(COPY_CERTIFICATES) else f

    return {**raw, "lines": {c: {name(f): ls for f, ls in fs.items()} for c, fs in raw["lines"].items()},
            "touched": {c: [name(f) for f in fs] for c, fs in raw["touched"].items()},
            "import_lines": {name(f): ls for f, ls in raw["import_lines"].items()}}


def coverage_from(raw: dict, root: Path, order: list[str]) -> Coverage:
    """A :class:`Coverage` from the output of :mod:`theorylab.mutation.linecov` (run on a copy of the
    library) and the source under ``root``."""
    raw = _checkout_paths(raw, root)
    return Coverage(raw["lines"], raw["touched"], raw["import_lines"], order, importers(root), raw["kernels"],
                    raw["unwrapped"], analyse(root))


def stale_equivalents(root: Path, equivalent: dict[str, str]) -> list[str]:
    """Listed equivalent ids that no longer name a generated mutant (the code moved or changed)."""
    files = {i.split("::", 1)[0] for i in equivalent}
    known = {m.id for f in files if (Path(root) / f).is_file() for m in generate(f, (Path(root) / f).read_text())}
    return sorted(set(equivalent) - known)


@dataclass
class Coverage:
    """Which certificates execute which lines and call which entry kernels (from
    :mod:`theorylab.mutation.linecov`), and the static facts (:mod:`theorylab.mutation.callgraph`)
    used for code that is not traced line by line.

    Attribution by scope (see :mod:`theorylab.mutation.mutants`): ``line`` -- the certificates
    that executed one of the lines (widened to ``module`` when the lines also ran during an
    import); ``function`` (a default) -- those that executed the function's body; ``numba`` --
    those that called an entry kernel into which the function is compiled; ``module`` -- those
    that executed a function (or called a kernel) that loads one of the names the statement
    binds, or, when a name is also loaded at module level or the statement is in a class body,
    every certificate that touched the file or a file importing it.
    """

    lines: dict[str, dict[str, list[int]]]
    touched: dict[str, list[str]]
    import_lines: dict[str, list[int]]
    order: list[str]
    importers: dict[str, set[str]] = field(default_factory=dict)
    kernels: dict[str, list[str]] = field(default_factory=dict)
    unwrapped: list[str] = field(default_factory=list)
    analysis: Analysis = field(default_factory=Analysis)

    def _by_file(self, files) -> set[str]:
        return {c for c, fs in self.touched.items() if set(fs) & set(files)}

    def _by_lines(self, file, a, b) -> set[str]:
        return {c for c, fs in self.lines.items() if any(a <= ln <= b for ln in fs.get(file, ()))}

    def _by_kernels(self, nodes) -> set[str]:
        entries = {f"{f}:{n}" for f, n in self.analysis.entries() if self.analysis.closure((f, n)) & set(nodes)}
        chosen = {c for c, ks in self.kernels.items() if set(ks) & entries}
        for key in entries & set(self.unwrapped):
            file = key.split(":")[0]
            chosen |= self._by_file({file} | self.importers.get(file, set()))
        return chosen

    def _by_units(self, units) -> set[str]:
        chosen = set()
        for u in units:
            chosen |= self._by_kernels({(u.file, u.name)}) if u.numba else self._by_lines(u.file, *u.lines)
        return chosen

    def certificates(self, m: Mutant) -> list[str]:
        """Certificates that can see mutant ``m``, in catalogue order."""
        a, b = m.lines
        module = {m.file} | self.importers.get(m.file, set())
        if m.scope == "numba":
            chosen = self._by_kernels({(m.file, n) for n in m.names})
        elif m.scope == "module":
            users = self.analysis.users(m.file, m.names)
            chosen = self._by_file(module) if users is None else self._by_units(users)
        else:
            chosen = self._by_lines(m.file, a, b)
            if any(a <= ln <= b for ln in self.import_lines.get(m.file, ())):
                chosen |= self._by_file(module)
        return [c for c in self.order if c in chosen]


# -------------------------------------------------------------------------------------- run
@dataclass(frozen=True)
class MutantResult:
    """The verdict on one mutant."""

    mutant: Mutant
    status: str
    certificates: tuple[str, ...] = ()
    killed_by: str = ""
    seconds: float = 0.0
    listed_equivalent: str = ""
    """The reason given in the equivalent file, kept when the mutant is killed after all."""

    def as_dict(self) -> dict:
        d = {"id": self.mutant.id, "location": self.mutant.location, "status": self.status,
             "seconds": round(self.seconds, 1)}
        if self.killed_by:
            d["killed_by"] = self.killed_by
        if self.status not in ("killed", "timeout") or self.listed_equivalent:
            d.update(before=self.mutant.before, after=self.mutant.after, scope=self.mutant.scope,
                     certificates=list(self.certificates))
        if self.listed_equivalent:
            d["listed_equivalent"] = self.listed_equivalent
        return d


def timeout_for(certificates, seconds: dict[str, float]) -> float:
    """Time limit of one run: generous (load on a shared machine, Numba recompilation)."""
    return 120.0 + 10.0 * sum(seconds.get(c, 1.0) for c in certificates)


def _warm(worker: Worker, only: list[str] | None, timeout: float) -> dict:
    report = worker.dest.parent / f"{worker.dest.name}-clean.json"
    args = (["--only", *only, "--exact"] if only else []) + ["--out", str(report)]
    run = worker.certify(args, timeout, bytecode=True)
    if run.returncode != 0 or not report.exists():
        raise BaselineFailed("the clean copy does not pass its certificates, so no mutant can be judged "
                             f"(exit {run.returncode}): {', '.join(run.failed) or run.output[-500:]}")
    return json.loads(report.read_text())


def _measure_coverage(worker: Worker, only: list[str] | None, timeout: float) -> dict:
    out = worker.dest.parent / "coverage.json"
    env = child_environment(worker.dest, worker.cache, threads=1, bytecode=True)   # also warms this copy
    env["NUMBA_JIT_COVERAGE"] = "0"      # Numba must not report compiled lines into the certificates' contexts
    code = runner_code(worker.dest, "from theorylab.mutation.linecov import main; sys.exit(main(sys.argv[1:]))")
    status, _, err = run_process([sys.executable, "-c", code, str(worker.dest), str(out), *(only or [])],
                                 cwd=worker.dest, env=env, timeout=timeout, holder=worker)
    if status != 0:
        raise BaselineFailed(f"the coverage run failed ({'timed out' if status is None else f'exit {status}'}): "
                             f"{err[-500:]}")
    return json.loads(out.read_text())


def run(mutants: list[Mutant], *, root: Path | None = None, workers: int = 2, certificates: list[str] | None = None,
        equivalent: dict[str, str] | None = None, isolation: str = "fork", workdir: str | None = None,
        progress: bool = True, log=print, journal: str | None = None, prior=(), prior_seconds: float = 0.0,
        session: int = 0) -> dict:
    """Run ``mutants`` and return the result (see :func:`summarise`).

    ``journal``: a file to which each mutant's verdict is appended (one JSON line) as it comes,
    so that a long run that is interrupted leaves what it found; ``prior`` are the verdicts of
    earlier sessions (:func:`read_journal`), merged into the result, whose ``seconds`` then
    include ``prior_seconds``.
    """
    root = Path(root or library_root())
    equivalent = equivalent or {}
    start, git = time.perf_counter(), git_state(root)   # the state that is copied
    base = Path(tempfile.mkdtemp(prefix="theorylab-mutate-", dir=workdir))
    pool = []
    try:
        pool = [Worker(base, i, root, isolation) for i in range(max(1, workers))]
        log(f"warming {len(pool)} worker copies: a clean certify run (times) and a coverage run ...")
        jobs = [lambda: _warm(pool[0], certificates, 3600)] + [lambda: _measure_coverage(pool[-1], certificates, 7200)]
        jobs += [(lambda w: lambda: _warm(w, certificates, 3600))(w) for w in pool[1:-1]]
        with ThreadPoolExecutor(len(pool)) as ex:
            futures = [ex.submit(job) for job in jobs]
            try:
                done = [f.result() for f in futures]
            except BaseException:        # Ctrl-C or a failure: kill the runs in progress, do not wait for them
                for w in pool:
                    w.interrupt()
                raise
        warm, cov_raw = done[0], done[1]
        seconds = {c["id"]: c["seconds"] for c in warm["certificates"]}
        order = [c["id"] for c in warm["certificates"]]
        files = sorted({m.file for m in mutants})
        bad = {c: s for c, s in cov_raw["status"].items() if s not in ("PASS", "SKIP")}
        if bad:
            raise BaselineFailed(f"certificates do not pass under the coverage tracer: {bad}")
        cov = coverage_from(cov_raw, root, order)
        numba = numba_files(root, library_files(root))
        setup = time.perf_counter() - start
        log(f"setup {setup:.0f}s; {len(mutants)} mutants in {len(files)} files, {len(pool)} workers ({isolation})")
        results = _dispatch(mutants, pool, cov, numba, seconds, equivalent, progress, journal, session, start)
        results = sorted([*prior, *results], key=lambda r: (r.mutant.file, r.mutant.line, r.mutant.col,
                                                             r.mutant.operator))
    finally:
        for w in pool:
            w.close()
        shutil.rmtree(base, ignore_errors=True)
    return summarise(results, equivalent, seconds=prior_seconds + time.perf_counter() - start, setup=setup,
                     settings={"workers": workers, "isolation": isolation, "certificates": certificates or "all"},
                     git=git, stale=stale_equivalents(root, equivalent))


def _dispatch(mutants, pool, cov, numba, seconds, equivalent, progress, journal=None, session=0,
              start=0.0) -> list[MutantResult]:
    from tqdm import tqdm

    free = list(pool)
    lock = threading.Condition()
    stop = threading.Event()
    bar = tqdm(total=len(mutants), unit="mutant", disable=not progress, file=sys.stderr, smoothing=0.02)
    counts = {s: 0 for s in STATUSES}

    def plant(m, certs):
        with lock:
            lock.wait_for(lambda: free)
            worker = free.pop()
        try:
            if stop.is_set():
                raise CancelledError
            try:
                out = worker.run(m, certs, timeout_for(certs, seconds), numba)
            except (RuntimeError, OSError, ValueError):   # a zygote that died: restart it once
                if stop.is_set():
                    raise CancelledError from None
                worker.close()
                worker.zygote = None
                try:
                    out = worker.run(m, certs, timeout_for(certs, seconds), numba)
                except (RuntimeError, OSError, ValueError) as exc:     # twice: one line naming the mutant
                    if stop.is_set():
                        raise CancelledError from None
                    raise WorkerError(f"mutant {m.id} could not be run: {' '.join(str(exc).split())}") from None
            if stop.is_set():            # a run killed by the interrupt is no verdict: journal nothing
                raise CancelledError
            return out
        finally:
            with lock:
                free.append(worker)
                lock.notify()

    def one(m: Mutant) -> MutantResult:
        certs = cov.certificates(m)
        listed = equivalent.get(m.id, "")
        if not certs:
            res = MutantResult(m, "equivalent" if listed else "not-covered")
        else:
            t0 = time.perf_counter()
            out = plant(m, certs)
            dt = time.perf_counter() - t0
            if out.returncode is None:
                res = MutantResult(m, "timeout", tuple(certs), "", dt, listed)
            elif out.returncode != 0:
                res = MutantResult(m, "killed", tuple(certs), (out.failed or [f"(exit {out.returncode})"])[0], dt,
                                   listed)
            else:
                res = MutantResult(m, "equivalent" if listed else "survived", tuple(certs), "", dt)
        with lock:
            counts[res.status] += 1
            bar.set_postfix({k[:4]: v for k, v in counts.items() if v}, refresh=False)
            bar.update()
            if journal:
                with open(journal, "a") as fh:
                    fh.write(json.dumps({**res.as_dict(), "session": session,
                                         "elapsed": round(time.perf_counter() - start, 1)}) + "\n")
        return res

    ex = ThreadPoolExecutor(len(pool))
    try:
        futures = [ex.submit(one, m) for m in mutants]
        return [f.result() for f in futures]
    except BaseException:          # Ctrl-C or a failure: stop at once, kill the runs in progress
        stop.set()
        for w in pool:
            w.interrupt()
        raise
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
        bar.close()


def from_record(m: Mutant, d: dict, equivalent: dict[str, str]) -> MutantResult:
    """A verdict read back from a journal record, with today's equivalent listing applied."""
    listed, status = equivalent.get(m.id, ""), d["status"]
    if status == "equivalent" and not listed:
        status = "survived" if d.get("certificates") else "not-covered"
    if status in ("survived", "not-covered") and listed:
        status = "equivalent"
    return MutantResult(m, status, tuple(d.get("certificates", ())), d.get("killed_by", ""), d.get("seconds", 0.0),
                        listed if status in ("killed", "timeout") else "")


def score_table(results: list[MutantResult]) -> list[dict]:
    """One row per package, and a total: counts by status and the score."""
    rows = []
    groups = {p: [r for r in results if r.mutant.package == p] for p in PACKAGES}
    groups = {p: rs for p, rs in groups.items() if rs}
    for name, rs in list(groups.items()) + [("total", results)]:
        n = {s: sum(r.status == s for r in rs) for s in STATUSES}
        judged = len(rs) - n["equivalent"]
        killed = n["killed"] + n["timeout"]
        rows.append({"package": name, "mutants": len(rs), "equivalent": n["equivalent"], "killed": n["killed"],
                     "timeout": n["timeout"], "survived": n["survived"], "not_covered": n["not-covered"],
                     "score_percent": round(100.0 * killed / judged, 1) if judged else None})
    return rows


def sampled_scores(scores: list[dict], population: dict[str, int]) -> list[dict]:
    """The score rows of a *sampled* run, each with the number of mutants its package generates and a
    95 % interval for the score of all of them.

    A package row: Wilson interval (killed ~ binomial over its judged sample). The total row: the
    packages' scores weighted by their populations (the sample is stratified by package, so the
    plain pooled fraction would over-weight small packages), with the normal interval of that
    stratified estimate. The finite-population correction is left out, which only widens them.
    """
    from theorylab.stats import wilson_interval

    z = 1.959964
    out, strata = [], []
    for r in scores:
        judged = r["mutants"] - r["equivalent"]
        killed = r["killed"] + r["timeout"]
        if r["package"] != "total":
            lo, hi = wilson_interval(killed, judged, z=z) if judged else (None, None)
            if judged:
                strata.append((population.get(r["package"], 0) * judged / r["mutants"], killed / judged, judged))
            out.append({**r, "population": population.get(r["package"], 0),
                        "score_ci95": None if lo is None else [round(100 * lo, 1), round(100 * hi, 1)]})
            continue
        weight = sum(w for w, _, _ in strata)
        est = sum(w * p for w, p, _ in strata) / weight if weight else None
        se = math.sqrt(sum((w / weight) ** 2 * p * (1 - p) / n for w, p, n in strata)) if weight else 0.0
        out.append({**r, "population": sum(population.values()),
                    "score_percent": None if est is None else round(100 * est, 1),
                    "score_ci95": None if est is None else [round(100 * max(0.0, est - z * se), 1),
                                                            round(100 * min(1.0, est + z * se), 1)]})
    return out


def summarise(results: list[MutantResult], equivalent: dict[str, str], *, seconds: float = 0.0, setup: float = 0.0,
              settings: dict | None = None, git: dict | None = None, stale=()) -> dict:
    """The JSON result: settings, per-package scores, survivors, every mutant's verdict."""
    return {"tool": "theorylab mutate", "git": git or {}, "settings": settings or {},
            "seconds": round(seconds, 1), "setup_seconds": round(setup, 1),
            "excluded": EXCLUDED, "scores": score_table(results),
            "wrongly_listed_equivalent": [r.mutant.id for r in results if r.listed_equivalent],
            "stale_equivalent_ids": list(stale),
            "mutants": [r.as_dict() for r in results]}


def dumps(result: dict) -> str:
    """The result as JSON text: readable header, one line per mutant (diff-friendly)."""
    head = json.dumps({k: v for k, v in result.items() if k != "mutants"}, indent=1)
    rows = ",\n".join("  " + json.dumps(m) for m in result["mutants"])
    return head[:-2] + ',\n "mutants": [\n' + rows + "\n ]\n}\n"

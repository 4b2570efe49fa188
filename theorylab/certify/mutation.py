"""Mutation testing of the library by its certificates (``theorylab mutate``).

A mutant (:mod:`theorylab.certify.mutants`) is planted, one at a time, in a *copy* of the
library source, and ``theorylab certify --only IDS --fail-fast`` runs on that copy in a new
process. The mutant is **killed** when certify exits non-zero (a FAIL or an ERROR, or a
crash on import) or exceeds its time limit (**timeout**, counted as killed and listed
separately); it **survived** when every certificate that ran PASSed. Only the certificates
that execute the mutated code run (per-certificate line coverage, measured once on the clean
copy, :mod:`theorylab.certify.linecov`); a mutant that no certificate executes is a survivor
**not covered**. Mutants listed in the equivalent file (TOML, table ``[equivalent]``,
``"mutant id" = "reason"``) that survive are **equivalent** and leave the score; a listed
mutant that is killed is reported (the listing is wrong).

Score per package: ``(killed + timeout) / (total - equivalent)``.

Isolation and speed (2 cores): each worker owns a copy of ``theorylab/`` and
``certificates/`` (file times kept), warmed once by a clean ``certify`` run (which must
PASS) that writes its byte-code and its own Numba cache. A mutant edits one file of the
worker's copy (with a later file time, so stale byte-code is never used; nothing is written
back), runs, and the file is restored. The process that runs it is, by default, forked from
a per-worker "zygote" interpreter that has imported numpy, scipy, sympy, mpmath and numba but
never ``theorylab`` (``--isolation fork``: saves the ~2 s start-up of every run), or a new
interpreter (``--isolation exec``, the pattern of ``tests/planted.py``). Mutants of a file
with Numba-compiled functions run with an empty Numba cache of their own (the kernels are
recompiled from the mutated source); other mutants reuse the worker's warm cache, which
only ever holds compilations of unmutated Numba source. Every run pins Numba/BLAS to one
thread (results do not depend on the thread count).
"""
from __future__ import annotations

import ast
import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import CancelledError, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from theorylab.certify.callgraph import Analysis, analyse, is_numba
from theorylab.certify.mutants import Mutant, generate
from theorylab.certify.planting import (PlantedRun, child_environment, copy_library, library_root, run_certify,
                                        runner_code)
from theorylab.certify.runner import git_state
from theorylab.errors import ParameterError

PACKAGES = ("psa", "graded", "plga", "nn", "sim", "symbolic")
EXCLUDED = {
    "theorylab/sim/sweep/": "storage and executor infrastructure of parameter sweeps (SQLite store, process and "
                            "Dask executors, resume): checked by tests/test_sweep*.py; certificates check the "
                            "mathematics, not the plumbing",
    "theorylab/graded/io.py": "file input (grade vectors from .json/.csv/.txt): I/O, checked by tests/test_graded_cli.py",
}
"""Files of the six packages left out, with the reason."""
STATUSES = ("killed", "timeout", "survived", "not-covered", "equivalent")
DEFAULT_EQUIVALENT = "results/mutation-equivalent.toml"
ZYGOTE_IMPORTS = ("numpy", "scipy", "scipy.optimize", "scipy.special", "scipy.stats", "scipy.linalg",
                  "scipy.integrate", "scipy.interpolate", "sympy", "mpmath", "numba", "llvmlite")


class BaselineFailed(RuntimeError):
    """The clean copy does not PASS every selected certificate: no mutant can be judged."""


# ------------------------------------------------------------------------------------ mutants
def library_files(root: Path, packages=PACKAGES) -> list[str]:
    """Python files of ``packages`` (relative to ``root``, ``/``-separated) minus :data:`EXCLUDED`."""
    out = []
    for pkg in packages:
        for path in sorted((Path(root) / "theorylab" / pkg).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if not any(rel.startswith(x) for x in EXCLUDED):
                out.append(rel)
    return out


def collect(root: Path, packages=PACKAGES, files=None, ids=None, max_mutants=None, seed=0) -> list[Mutant]:
    """The mutants to run: of ``files`` (default: every file of ``packages``), or exactly ``ids``,
    then a seeded sample of ``max_mutants`` (sorted by file, line, column, operator)."""
    pool = library_files(root, packages)
    if files:
        bad = [f for f in files if f not in library_files(root)]
        if bad:
            raise ParameterError(f"--file must name library files of {', '.join(PACKAGES)} (not excluded; "
                                 f"relative to the library root, e.g. theorylab/psa/shear.py); got {', '.join(bad)}")
        pool = [f for f in library_files(root) if f in files]
    if ids:
        pool = sorted({i.split(":", 1)[0] for i in ids})
        if any(f not in library_files(root) for f in pool):
            raise ParameterError(f"--mutant ids must start with a library file of {', '.join(PACKAGES)} (got "
                                 f"{', '.join(f for f in pool if f not in library_files(root))})")
    mutants = [m for f in pool for m in generate(f, (Path(root) / f).read_text())]
    if ids:
        known = {m.id for m in mutants}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise ParameterError(f"--mutant ids must be generated mutants (unknown: {', '.join(unknown[:5])})")
        mutants = [m for m in mutants if m.id in set(ids)]
    if max_mutants is not None and max_mutants < len(mutants):
        mutants = random.Random(seed).sample(mutants, max_mutants)
    return sorted(mutants, key=lambda m: (m.file, m.line, m.col, m.operator))


def load_equivalent(path) -> dict[str, str]:
    """``{mutant id: reason}`` from the equivalent file (missing file: none)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    if not path or not os.path.exists(path):
        return {}
    with open(path, "rb") as fh:
        try:
            table = tomllib.load(fh).get("equivalent", {})
        except tomllib.TOMLDecodeError as exc:
            raise ParameterError(f"--equivalent must be a TOML file with an [equivalent] table ({path}: {exc})") from None
    bad = [k for k, v in table.items() if not isinstance(v, str) or not v.strip()]
    if bad:
        raise ParameterError(f"--equivalent: every mutant needs a reason string ({path}: {', '.join(bad[:3])})")
    return dict(table)


# ----------------------------------------------------------------------------------- coverage
def _module_name(rel: str) -> str:
    return rel[:-3].replace("/", ".").removesuffix(".__init__")


def importers(root: Path) -> dict[str, set[str]]:
    """``{file: files that import it}`` over ``theorylab/`` and ``certificates/`` (static, one level)."""
    files = [p.relative_to(root).as_posix() for pkg in ("theorylab", "certificates")
             for p in sorted((Path(root) / pkg).rglob("*.py"))]
    by_module = {_module_name(f): f for f in files}
    out: dict[str, set[str]] = {f: set() for f in files}
    for f in files:
        package = _module_name(f) if f.endswith("__init__.py") else _module_name(f).rpartition(".")[0]
        for node in ast.walk(ast.parse((Path(root) / f).read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                names = [base] + [f"{base}.{a.name}" for a in node.names]
            for name in names:
                if name in by_module and by_module[name] != f:
                    out[by_module[name]].add(f)
    return out


def numba_files(root: Path, files) -> set[str]:
    """Files among ``files`` that define a Numba-compiled function."""
    return {f for f in files if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_numba(n)
                                    for n in ast.walk(ast.parse((Path(root) / f).read_text())))}


def coverage_from(raw: dict, root: Path, order: list[str]) -> Coverage:
    """A :class:`Coverage` from the output of :mod:`theorylab.certify.linecov` and the source under ``root``."""
    return Coverage(raw["lines"], raw["touched"], raw["import_lines"], order, importers(root), raw["kernels"],
                    raw["unwrapped"], analyse(root))


def stale_equivalents(root: Path, equivalent: dict[str, str]) -> list[str]:
    """Listed equivalent ids that no longer name a generated mutant (the code moved or changed)."""
    files = {i.split(":", 1)[0] for i in equivalent}
    known = {m.id for f in files if (Path(root) / f).is_file() for m in generate(f, (Path(root) / f).read_text())}
    return sorted(set(equivalent) - known)


@dataclass
class Coverage:
    """Which certificates execute which lines and call which entry kernels (from
    :mod:`theorylab.certify.linecov`), and the static facts (:mod:`theorylab.certify.callgraph`)
    used for code that is not traced line by line.

    Attribution by scope (see :mod:`theorylab.certify.mutants`): ``line`` -- the certificates
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


# ------------------------------------------------------------------------------------ workers
ZYGOTE = r"""
import json, os, sys, traceback
for name in sys.argv[1:]:
    __import__(name)
import numba.core.config
assert "theorylab" not in sys.modules
for line in sys.stdin:
    req = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setpgid(0, 0)
            fd = os.open(req["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1); os.dup2(fd, 2)
            sys.stdin = open(os.devnull)
            os.environ["NUMBA_CACHE_DIR"] = req["cache"]
            numba.core.config.reload_config()
            sys.dont_write_bytecode = not req["bytecode"]
            os.chdir(req["dest"]); sys.path.insert(0, req["dest"])
            try:
                exec(req["code"], {"__name__": "__main__"})
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os._exit(code)
    print(json.dumps({"pid": pid}), flush=True)
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"code": os.waitstatus_to_exitcode(status)}), flush=True)
"""


class Worker:
    """One copy of the library and (fork isolation) its zygote interpreter."""

    def __init__(self, base: Path, index: int, root: Path, isolation: str):
        self.dest = base / f"w{index}"
        self.cache = base / f"w{index}-numba"
        self.scratch = base / f"w{index}-scratch"
        self.isolation = isolation
        self.dest.mkdir(parents=True)
        copy_library(self.dest, root)
        self.zygote = None
        self.child = None

    def _start_zygote(self):
        env = child_environment(self.dest, self.cache, threads=1)
        env.pop("PYTHONPATH")  # the zygote must not see the copy: only its children do
        self.zygote = subprocess.Popen([sys.executable, "-c", ZYGOTE, *ZYGOTE_IMPORTS], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True, env=env, cwd=self.dest)

    def certify(self, args: list[str], timeout: float, cache: Path | None = None,
                bytecode: bool = False) -> PlantedRun:
        """Run ``theorylab certify ARGS`` on this worker's copy."""
        cache = cache or self.cache
        if self.isolation == "exec":
            return run_certify(self.dest, args, numba_cache=cache, timeout=timeout, threads=1, bytecode=bytecode)
        if self.zygote is None or self.zygote.poll() is not None:
            self._start_zygote()
        log = self.dest.parent / f"{self.dest.name}.log"
        code = runner_code(self.dest, "from theorylab.cli import main; sys.exit(main(" + repr(["certify", *args]) + "))")
        self.zygote.stdin.write(json.dumps({"dest": str(self.dest), "cache": str(cache), "log": str(log),
                                            "bytecode": bytecode, "code": code}) + "\n")
        self.zygote.stdin.flush()
        self.child = pid = json.loads(self._read())["pid"]
        ready, _, _ = select.select([self.zygote.stdout], [], [], timeout)
        timed_out = not ready
        if timed_out:
            self._kill_child()
        returncode = json.loads(self._read())["code"]
        self.child = None
        output = log.read_text(errors="replace")
        return PlantedRun(None if timed_out else returncode, output + ("\n[timed out]" if timed_out else ""))

    def run(self, m: Mutant, certificates: list[str], timeout: float, numba_files: set[str]) -> PlantedRun:
        """Plant ``m`` in the copy, run ``certificates`` with --fail-fast, restore the file."""
        target = self.dest / m.file
        original, stat = target.read_text(), target.stat()
        cache = None
        try:
            target.write_text(m.apply(original))
            os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10 * 10**9))
            if m.file in numba_files:
                cache = self.scratch
                shutil.rmtree(cache, ignore_errors=True)
            return self.certify(["--only", *certificates, "--fail-fast"], timeout, cache=cache)
        finally:
            target.write_text(original)
            os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            if cache is not None:
                shutil.rmtree(cache, ignore_errors=True)

    def _read(self) -> str:
        line = self.zygote.stdout.readline()
        if not line:
            raise RuntimeError(f"the zygote interpreter of worker {self.dest.name} exited "
                               f"(status {self.zygote.poll()})")
        return line

    def _kill_child(self):
        for kill in (os.killpg, os.kill):
            try:
                kill(self.child, signal.SIGKILL)
                return
            except (ProcessLookupError, PermissionError):
                continue

    def interrupt(self):
        """Kill the run in progress (fork isolation; an exec run finishes or times out)."""
        if self.child is not None:
            self._kill_child()

    def close(self):
        if self.child is not None:
            self._kill_child()
        if self.zygote is not None and self.zygote.poll() is None:
            self.zygote.stdin.close()
            try:
                self.zygote.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.zygote.kill()
                self.zygote.wait()


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
        d = {"id": self.mutant.id, "status": self.status, "seconds": round(self.seconds, 1)}
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
    args = (["--only", *only] if only else []) + ["--json", str(report)]
    run = worker.certify(args, timeout, bytecode=True)
    if run.returncode != 0 or not report.exists():
        raise BaselineFailed("the clean copy does not pass its certificates, so no mutant can be judged "
                             f"(exit {run.returncode}): {', '.join(run.failed) or run.output[-500:]}")
    return json.loads(report.read_text())


def _measure_coverage(worker: Worker, only: list[str] | None, timeout: float) -> dict:
    out = worker.dest.parent / "coverage.json"
    env = child_environment(worker.dest, worker.cache, threads=1, bytecode=True)   # also warms this copy
    code = runner_code(worker.dest, "from theorylab.certify.linecov import main; sys.exit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", code, str(worker.dest), str(out), *(only or [])], cwd=worker.dest,
                          env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise BaselineFailed(f"the coverage run failed: {proc.stderr[-500:]}")
    return json.loads(out.read_text())


def run(mutants: list[Mutant], *, root: Path | None = None, workers: int = 2, certificates: list[str] | None = None,
        equivalent: dict[str, str] | None = None, isolation: str = "fork", workdir: str | None = None,
        progress: bool = True, log=print, journal: str | None = None) -> dict:
    """Run ``mutants`` and return the result (see :func:`summarise`).

    ``journal``: a file to which each mutant's verdict is appended (one JSON line) as it comes,
    so that a long run that is interrupted leaves what it found.
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
            done = [f.result() for f in [ex.submit(job) for job in jobs]]
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
        results = _dispatch(mutants, pool, cov, numba, seconds, equivalent, progress, journal)
    finally:
        for w in pool:
            w.close()
        shutil.rmtree(base, ignore_errors=True)
    return summarise(results, equivalent, seconds=time.perf_counter() - start, setup=setup,
                     settings={"workers": workers, "isolation": isolation, "certificates": certificates or "all"},
                     git=git, stale=stale_equivalents(root, equivalent))


def _dispatch(mutants, pool, cov, numba, seconds, equivalent, progress, journal=None) -> list[MutantResult]:
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
                return worker.run(m, certs, timeout_for(certs, seconds), numba)
            except (RuntimeError, OSError, ValueError):   # a zygote that died: restart it once
                if stop.is_set():
                    raise CancelledError from None
                worker.close()
                worker.zygote = None
                return worker.run(m, certs, timeout_for(certs, seconds), numba)
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
                    fh.write(json.dumps(res.as_dict()) + "\n")
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

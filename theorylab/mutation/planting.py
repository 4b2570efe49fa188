"""Run the certificates on a copy of the library, optionally with one bug planted in its source.

The proof that a certificate works is a bug planted in the *library source* (not a wrong
function passed in as an argument) that makes it FAIL. :func:`copy_library` copies
``theorylab/`` and its certificates (``theorylab/certificates/`` in the copy, as in an installed
wheel) to a folder; :func:`run_certify` runs
``theorylab certify ARGS`` there in a fresh interpreter whose ``theorylab`` is the copy (it
asserts so) and whose Numba cache is its own, so nothing of the checkout or of the calling
process is touched. :func:`certify_with_bug` does both with one exact text replacement
(``tests/planted.py``).

:class:`Worker` is the same, kept for many runs (``theorylab mutate``): one copy, warmed
once, in which a mutant is planted, run and removed again. Its runs are either new
interpreters (``exec``) or forks of a per-worker *zygote* that has imported the heavy
dependencies but never ``theorylab`` (``fork``: no ~2 s start-up per run); each fork gets
the copy on ``sys.path``, its own Numba cache directory and its own output file, and is
killed (by its process id) when it exceeds its time limit.
"""
from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

IGNORE = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc")


def library_root() -> Path:
    """The folder holding the ``theorylab`` package in use (a checkout, a copy or site-packages)."""
    import theorylab

    return Path(theorylab.__file__).resolve().parents[1]


def certificates_dir(root: Path) -> Path:
    """The folder of the ``theorylab.certificates`` package under ``root``.

    A checkout keeps it at top level (``certificates/``, installed into theorylab's namespace by
    ``pyproject.toml``); a copy made by :func:`copy_library` and an installed wheel hold it at
    ``theorylab/certificates/``.
    """
    root = Path(root)
    inside = root / "theorylab" / "certificates"
    return inside if (inside / "__init__.py").is_file() else root / "certificates"


@dataclass(frozen=True)
class PlantedRun:
    """What ``theorylab certify`` printed on the copy, and its exit status (None: timed out)."""

    returncode: int | None
    output: str

    def status(self, cid: str) -> str | None:
        """The status printed for certificate ``cid`` (None if it did not run)."""
        for line in self.output.splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[1] == cid and parts[0] in ("PASS", "FAIL", "ERROR", "SKIP"):
                return parts[0]
        return None

    @property
    def failed(self) -> list[str]:
        """Ids printed FAIL or ERROR, in order."""
        from theorylab.certify.record import METHODS

        return [p[1] for p in (ln.split() for ln in self.output.splitlines())
                if len(p) >= 3 and p[0] in ("FAIL", "ERROR") and p[2] in METHODS]


def copy_library(dest: Path, root: Path | None = None) -> None:
    """Copy ``theorylab/`` of ``root`` (default: the library in use) into ``dest``, with its
    certificates at ``dest/theorylab/certificates/`` (the installed layout).

    File times are kept (``copy2``), so byte-code and Numba caches of the copy stay valid
    for every file that is not changed afterwards.
    """
    root = library_root() if root is None else Path(root)
    shutil.copytree(root / "theorylab", Path(dest) / "theorylab", ignore=IGNORE)
    if not (Path(dest) / "theorylab" / "certificates").exists():
        shutil.copytree(certificates_dir(root), Path(dest) / "theorylab" / "certificates", ignore=IGNORE)


def replace_once(target: Path, old: str, new: str, label: str = "") -> None:
    """Replace the single occurrence of ``old`` in file ``target`` by ``new``."""
    source = target.read_text()
    count = source.count(old)
    if count != 1:
        raise AssertionError(f"{label or target}: the text to replace occurs {count} times (need exactly 1): {old!r}")
    target.write_text(source.replace(old, new))


def plant(dest: Path, path: str, old: str, new: str, also=()) -> None:
    """Copy the packages into ``dest`` and replace the single occurrence of ``old`` in ``path``.

    ``also``: further ``(path, old, new)`` replacements making up the same bug (e.g. one formula
    changed the same way in two modules), each of them also required to occur exactly once.
    """
    copy_library(dest)
    for path_, old_, new_ in ((path, old, new), *also):
        replace_once(Path(dest) / path_, old_, new_, path_)


def child_environment(dest: Path, numba_cache: Path, *, threads: int | None = None,
                      bytecode: bool = False) -> dict:
    """Environment of an interpreter that runs the copy in ``dest``."""
    env = {**os.environ, "PYTHONPATH": str(dest), "NUMBA_CACHE_DIR": str(numba_cache)}
    if not bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    if threads is not None:
        env.update({k: str(threads) for k in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                              "MKL_NUM_THREADS")})
    return env


def runner_code(dest: Path, entry: str = "from theorylab.cli import main; sys.exit(main(sys.argv[1:]))") -> str:
    """Python source that checks the imported ``theorylab`` is the copy in ``dest``, then runs ``entry``."""
    return ("import sys, theorylab; "
            f"assert theorylab.__file__.startswith({str(dest)!r}), theorylab.__file__; " + entry)


def run_certify(dest: Path, args: list[str], *, numba_cache: Path | None = None, timeout: float = 600,
                threads: int | None = None, bytecode: bool = False) -> PlantedRun:
    """Run ``theorylab certify ARGS`` on the copy in ``dest`` in a fresh interpreter.

    ``numba_cache`` defaults to ``dest/.numba-cache``; ``threads`` pins the Numba/BLAS thread
    count; ``bytecode`` lets the interpreter write ``__pycache__`` into the copy. A run that
    exceeds ``timeout`` seconds is killed and reported with ``returncode`` None. The interpreter
    runs in a session of its own (:func:`run_process`): Ctrl-C is this process's to handle.
    """
    return _run_certify(dest, args, numba_cache=numba_cache, timeout=timeout, threads=threads, bytecode=bytecode)


def _run_certify(dest: Path, args: list[str], *, numba_cache: Path | None = None, timeout: float = 600,
                 threads: int | None = None, bytecode: bool = False, holder=None) -> PlantedRun:
    dest = Path(dest)
    env = child_environment(dest, numba_cache or dest / ".numba-cache", threads=threads, bytecode=bytecode)
    code, out, err = run_process([sys.executable, "-c", runner_code(dest), "certify", *args], cwd=dest, env=env,
                                 timeout=timeout, holder=holder)
    if code is None:
        return PlantedRun(None, out + "\n[timed out]")
    return PlantedRun(code, out + err)


def run_process(argv: list[str], *, cwd, env: dict, timeout: float, holder=None) -> tuple[int | None, str, str]:
    """Run ``argv`` with its output captured, killable from another thread.

    The process starts in a session of its own, so the terminal's Ctrl-C (SIGINT to the
    foreground process group) does not reach it and it prints no traceback of its own; it is
    killed with everything it started (its process group) on a timeout or on any exception
    here, such as KeyboardInterrupt.

    Parameters
    ----------
    argv : list of str
        The command.
    cwd, env
        Its folder and environment.
    timeout : float
        Seconds after which it is killed.
    holder : Worker, optional
        Holds the process while it runs (``holder.processes``), so that
        :meth:`Worker.interrupt` can kill it; a stopped holder's process is killed at once.

    Returns
    -------
    (int or None, str, str)
        Exit status (None: killed after ``timeout``), stdout, stderr.
    """
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True)
    if holder is not None:
        holder.processes.add(proc)
        if holder.stopped:                       # interrupted while this was starting
            _kill_group(proc)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, err = proc.communicate()
        return None, out or "", err or ""
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    finally:
        if holder is not None:
            holder.processes.discard(proc)
    return proc.returncode, out, err


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the process group of ``proc`` (its own session: it and everything it started)."""
    for kill, target in ((os.killpg, proc.pid), (os.kill, proc.pid)):
        try:
            kill(target, signal.SIGKILL)
            return
        except (ProcessLookupError, PermissionError):
            continue


def certify_with_bug(path: str, old: str, new: str, only, *, also=(), timeout: float = 600) -> PlantedRun:
    """Run ``theorylab certify --only ONLY`` on a copy of the library with one planted bug (see :func:`plant`)."""
    only = [only] if isinstance(only, str) else list(only)
    with tempfile.TemporaryDirectory(prefix="theorylab-planted-") as tmp:
        dest = Path(tmp)
        plant(dest, path, old, new, also)
        return run_certify(dest, ["--only", *only], timeout=timeout)


ZYGOTE_IMPORTS = ("numpy", "scipy", "scipy.optimize", "scipy.special", "scipy.stats", "scipy.linalg",
                  "scipy.integrate", "scipy.interpolate", "sympy", "mpmath", "numba", "llvmlite")
"""What a zygote imports before it forks: every heavy dependency, never ``theorylab``."""
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
    """One copy of the library and (fork isolation) its zygote interpreter.

    Every interpreter a worker starts runs in a session of its own, so the terminal's Ctrl-C
    reaches only the command, which calls :meth:`interrupt` (from any thread): the run in
    progress is killed and no other starts.
    """

    def __init__(self, base: Path, index: int, root: Path, isolation: str):
        self.dest = base / f"w{index}"
        self.cache = base / f"w{index}-numba"
        self.scratch = base / f"w{index}-scratch"
        self.isolation = isolation
        self.zygote = None
        self.child = None
        self.processes = set()       # the interpreters run_process runs for it now (exec runs, coverage)
        self.stopped = False
        self.dest.mkdir(parents=True)
        copy_library(self.dest, root)

    def _start_zygote(self):
        env = child_environment(self.dest, self.cache, threads=1)
        env.pop("PYTHONPATH")  # the zygote must not see the copy: only its children do
        self.zygote = subprocess.Popen([sys.executable, "-c", ZYGOTE, *ZYGOTE_IMPORTS], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True, env=env, cwd=self.dest,
                                       start_new_session=True)

    def certify(self, args: list[str], timeout: float, cache: Path | None = None,
                bytecode: bool = False) -> PlantedRun:
        """Run ``theorylab certify ARGS`` on this worker's copy."""
        cache = cache or self.cache
        if self.stopped:
            raise RuntimeError(f"worker {self.dest.name} was interrupted")
        if self.isolation == "exec":
            return _run_certify(self.dest, args, numba_cache=cache, timeout=timeout, threads=1, bytecode=bytecode,
                                holder=self)
        if self.zygote is None or self.zygote.poll() is not None:
            self._start_zygote()
        log = self.dest.parent / f"{self.dest.name}.log"
        code = runner_code(self.dest, "from theorylab.cli import main; sys.exit(main(" + repr(["certify", *args]) + "))")
        self.zygote.stdin.write(json.dumps({"dest": str(self.dest), "cache": str(cache), "log": str(log),
                                            "bytecode": bytecode, "code": code}) + "\n")
        self.zygote.stdin.flush()
        self.child = json.loads(self._read())["pid"]
        if self.stopped:                         # interrupted while the run was starting
            self._kill_child()
        ready, _, _ = select.select([self.zygote.stdout], [], [], timeout)
        timed_out = not ready
        if timed_out:
            self._kill_child()
        returncode = json.loads(self._read())["code"]
        self.child = None
        output = log.read_text(errors="replace")
        return PlantedRun(None if timed_out else returncode, output + ("\n[timed out]" if timed_out else ""))

    def run(self, m, certificates: list[str], timeout: float, numba_files: set[str]) -> PlantedRun:
        """Plant mutant ``m`` (:class:`theorylab.mutation.mutants.Mutant`) in the copy, run
        ``certificates`` with --fail-fast, restore the file. A mutant of a file in ``numba_files``
        gets an empty Numba cache of its own."""
        target = self.dest / m.file
        original, stat = target.read_text(), target.stat()
        cache = None
        try:
            target.write_text(m.apply(original))
            os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10 * 10**9))
            if m.file in numba_files:
                cache = self.scratch
                shutil.rmtree(cache, ignore_errors=True)
            return self.certify(["--only", *certificates, "--exact", "--fail-fast"], timeout, cache=cache)
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
        """Kill the run in progress (a zygote's fork or an exec interpreter) and start no other."""
        self.stopped = True
        if self.child is not None:
            self._kill_child()
        elif self.zygote is not None and self.zygote.poll() is None:
            self.zygote.kill()                   # idle, or still importing: its reader sees EOF
        for process in list(self.processes):
            _kill_group(process)

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
        if self.zygote is not None:
            for stream in (self.zygote.stdin, self.zygote.stdout):
                if stream is not None and not stream.closed:
                    stream.close()

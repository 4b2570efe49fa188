"""The ``theorylab`` command line: parse, call the library, print.

Each subcommand lives in its own module of this package and exposes
``register(subparsers)``; modules are discovered, so adding a command touches one
file. Heavy imports (numba, sympy, matplotlib) happen inside the handlers, never here.

Exit status (docs/cli.md, "Errors and exit status"): 0 success; 1 a verdict that failed
(a FAILing certificate, a report that does not reproduce); 2 bad input -- a
:class:`theorylab.ParameterError` (including a request over the resource limits), a usage
error or an ``OSError`` (a file that cannot be read or written) -- and a run that could not be
carried out (:class:`theorylab.errors.WorkerError`: a run in a worker process failed, or its
worker died; the line names the run), printed as one line on stderr with no traceback; 130
interrupted (Ctrl-C): one line, and no partial output file (every file is written through
:mod:`theorylab._io`, whose temporaries are removed); worker processes print nothing.
"""
from __future__ import annotations

import _thread
import argparse
import contextlib
import os
import importlib
import pkgutil
import signal
import sys
import threading
import warnings

from theorylab import __version__


class UsageError(Exception):
    """Raised by :class:`Parser` instead of printing usage and exiting."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage dump) and which takes no abbreviation:
    every option must be spelled in full (``--var`` is refused, never read as ``--variant``), so that
    adding an option can never change what an existing command line means."""

    def __init__(self, *args, **kwargs):
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # noqa: D401 - argparse API
        raise UsageError(f"{self.prog}: error: {message}")


def build_parser() -> argparse.ArgumentParser:
    """The full parser with every discovered subcommand."""
    parser = Parser(prog="theorylab", description=(
        "Compute, simulate and certify the claims of Phase Space Attention, "
        "Power Law Graph Attention and Graded LLMs."))
    parser.add_argument("--version", action="version", version=f"theorylab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}").register(sub)
    return parser


def _command_named(argv: list[str]) -> str | None:
    """The subcommand ``argv`` names (its first word, when a command module of that name exists), read without
    parsing: a Ctrl-C during the imports still says which command it interrupted."""
    words = [a for a in argv if not a.startswith("-")]
    names = {m.name.replace("_", "-") for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")}
    return words[0] if words and words[0] in names else None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``theorylab`` console script; returns the exit status."""
    args = None
    try:
        with _interruptible(), _warnings_unless_error(), _escaping_stdout():
            import theorylab.errors  # noqa: F401  (NumPy loads here, where Ctrl-C is already handled)

            parser = build_parser()
            args = parser.parse_args(argv)
            if not getattr(args, "handler", None):
                parser.print_help()
                return 2
            with _resource_limits(getattr(args, "max_memory", None), getattr(args, "max_time", None)):
                status = args.handler(args)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        command = getattr(args, "command", None) or _command_named(sys.argv[1:] if argv is None else argv)
        print(f"theorylab{' ' + command if command else ''}: interrupted", file=sys.stderr)
        return 130
    except MemoryError:      # only past a raised --max-memory: the estimate said it would fit
        print(f"theorylab {getattr(args, 'command', '')}: error: out of memory; this machine cannot hold the "
              f"request (lower --max-memory or ask for less)", file=sys.stderr)
        return 2
    except Exception as exc:
        if not _bad_input(exc):
            raise
        prefix = "" if isinstance(exc, UsageError) else f"theorylab {getattr(args, 'command', '')}: error: "
        print(f"{prefix}{_one_line(exc)}", file=sys.stderr)
        return 2
    return int(status or 0)


def exit_interrupted() -> None:
    """End this process at once with status 130 (interrupted), after what a normal exit releases.

    Under ``python -m``, CPython kills itself with SIGINT at exit if the interrupt was first raised
    inside code a C extension ran through PyRun_String (as Cython modules do while importing),
    whatever ``main`` returned; so the documented status needs ``os._exit``. Before it, the named
    semaphores of the worker pools' queues are released as a normal exit releases them
    (multiprocessing's exit hook, exit priority >= 0): an interrupt that lands while a pool shuts
    down leaves its queue threads running, which keep the queues alive, and the multiprocessing
    resource tracker would report their semaphores as leaked, on stderr, once this process is gone.
    """
    mp_util = sys.modules.get("multiprocessing.util")
    if mp_util is not None:
        mp_util._run_finalizers(0)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


@contextlib.contextmanager
def _resource_limits(max_memory: float | None, max_time: float | None):
    """While the command runs, a ``--max-memory`` / ``--max-time`` given on its command line is also the
    process's ``THEORYLAB_MAX_MEMORY`` / ``THEORYLAB_MAX_TIME``, so the library's own up-front checks (and
    worker processes) apply the limits the command was given; the variables are restored afterwards."""
    from theorylab.resources import MEMORY_ENV, TIME_ENV

    given = {name: f"{value:.17g}" for name, value in ((MEMORY_ENV, max_memory), (TIME_ENV, max_time))
             if value is not None}
    before = {name: os.environ.get(name) for name in given}
    os.environ.update(given)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def _escaping_stdout():
    """While the command runs, text that standard output cannot encode is written as backslash
    escapes: a file name of bytes that are not UTF-8 (a path argument, which stays usable as a
    path) echoed in a report must not end the command in a UnicodeEncodeError once its work is
    done. Free-text options refuse such text outright (``theorylab.cli._args.text``)."""
    stream = sys.stdout
    before = getattr(stream, "errors", None)
    if before != "strict" or not hasattr(stream, "reconfigure"):
        yield
        return
    try:
        stream.reconfigure(errors="backslashreplace")
    except (ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(ValueError, OSError):
            stream.reconfigure(errors=before)


@contextlib.contextmanager
def _warnings_unless_error():
    """Hold the warnings a command raises (NumPy's overflow warnings on extreme input) and show
    them only if it succeeds: a refusal or an interrupt stays one line."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        yield
    for w in caught:
        warnings.showwarning(w.message, w.category, w.filename, w.lineno)


@contextlib.contextmanager
def _interruptible():
    """Ctrl-C raises KeyboardInterrupt as usual, except inside llvmlite's ctypes callbacks (Numba
    compiling or loading a kernel), where ctypes would print and swallow it: there it is delivered
    again 0.1 s later. Installed only in the main thread over Python's default handler."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return

    def handler(signum, frame):
        if frame is not None and "llvmlite" in frame.f_code.co_filename:
            timer = threading.Timer(0.1, _thread.interrupt_main)
            timer.daemon = True
            timer.start()
            return
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _bad_input(exc: Exception) -> bool:
    """A usage error, a ParameterError, an OSError or a WorkerError: one line with exit status 2."""
    errors = sys.modules.get("theorylab.errors")
    return isinstance(exc, (UsageError, OSError)) or (
        errors is not None and isinstance(exc, (errors.ParameterError, errors.WorkerError)))


def _one_line(exc: Exception) -> str:
    """The message of ``exc`` on one line (an OSError names its file: "[Errno 2] ...: 'x'")."""
    return " ".join(str(exc).split()) or type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())

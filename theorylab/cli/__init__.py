"""The ``theorylab`` command line: parse, call the library, print.

Each subcommand lives in its own module of this package and exposes
``register(subparsers)``; modules are discovered, so adding a command touches one
file. Heavy imports (numba, sympy, matplotlib) happen inside the handlers, never here.

Exit status (docs/cli.md, "Errors and exit status"): 0 success; 1 a verdict that failed
(a FAILing certificate, a report that does not reproduce); 2 bad input -- a
:class:`theorylab.ParameterError` (including a request over the resource limits), a usage
error or an ``OSError`` (a file that cannot be read or written) -- printed as one line on
stderr with no traceback; 130 interrupted (Ctrl-C): one line, and no partial output file
(every file is written through :mod:`theorylab._io`, whose temporaries are removed).
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from theorylab import __version__
from theorylab.errors import ParameterError


class UsageError(Exception):
    """Raised by :class:`Parser` instead of printing usage and exiting."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage dump)."""

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


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``theorylab`` console script; returns the exit status."""
    args = None
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "handler", None):
            parser.print_help()
            return 2
        status = args.handler(args)
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        command = getattr(args, "command", None)
        print(f"theorylab{' ' + command if command else ''}: interrupted", file=sys.stderr)
        return 130
    except (UsageError, ParameterError, OSError) as exc:
        prefix = "" if isinstance(exc, UsageError) else f"theorylab {getattr(args, 'command', '')}: error: "
        print(f"{prefix}{_one_line(exc)}", file=sys.stderr)
        return 2
    return int(status or 0)


def _one_line(exc: Exception) -> str:
    """The message of ``exc`` on one line (an OSError names its file: "[Errno 2] ...: 'x'")."""
    return " ".join(str(exc).split()) or type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())

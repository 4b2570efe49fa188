"""``theorylab bench NAME``: benchmarks, discovered from ``theorylab.bench``."""
from __future__ import annotations

import importlib
import pkgutil


def register(sub) -> None:
    import theorylab.bench as benches

    p = sub.add_parser("bench", help="benchmarks (measured, not asserted)",
                       description="Run a benchmark; each prints its figures and, where it has one, "
                                   "a ratio against a baseline measured in the same run.")
    inner = p.add_subparsers(dest="bench", metavar="NAME", parser_class=type(p))
    for info in sorted(pkgutil.iter_modules(benches.__path__), key=lambda m: m.name):
        importlib.import_module(f"{benches.__name__}.{info.name}").register(inner)
    p.set_defaults(handler=lambda args: (p.print_help(), 2)[1])

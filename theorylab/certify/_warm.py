"""One-time set-up of the certificate workers, done once in the server that forks them.

:func:`theorylab.certify.runner.start_worker_server` preloads this module after the certificate modules.
Importing it does, once in the server, what every worker would otherwise repeat at its first
certificate:

- import the library modules that the certificates import lazily (SymPy and the exact-arithmetic
  helpers, the row statistics, the training runner, the reference routes);
- fill Numba's CPU typing and target registries, which the first call of any cached kernel in a
  process otherwise fills (about 0.3 s).

Nothing here runs a kernel or starts a thread pool. The server forks its workers, and a process
that has started Numba's OpenMP pool cannot fork safely. A worker's results do not depend on this
module: it saves time only.
"""
from __future__ import annotations

import importlib
import pkgutil

PACKAGES = ("psa", "plga", "graded", "nn", "symbolic", "certificates")
"""The subpackages of theorylab whose every module the workers get preloaded (not the CLI, not the
mutation harness)."""


def _preload() -> None:
    for name in PACKAGES:
        package = importlib.import_module(f"theorylab.{name}")
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(info.name)
    from numba.core.registry import cpu_target

    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()


_preload()

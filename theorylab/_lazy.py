"""Lazy re-exports of a package's public names (PEP 562), so that importing one module of a paper's
package (as the certificates and the CLI do) does not import all of them.

A package lists its names per module, statically (its ``__all__``; ``tests/test_public_api.py`` checks
the lists against the modules' own ``__all__``); a name is imported from its module on first access.
"""
from __future__ import annotations

import importlib

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: dict[str, tuple[str, ...]], namespace: dict):
    """``(__all__, __getattr__, __dir__)`` for ``package``, whose public names are ``exports``
    (module name -> names); ``namespace`` is the package's ``globals()``, where each name is cached."""
    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str):
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return list(where), __getattr__, __dir__

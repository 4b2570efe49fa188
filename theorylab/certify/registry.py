"""The certificate registry: a decorator, discovery of ``certificates/``, selection."""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass
from typing import Callable

from theorylab.certify.montecarlo import FALSE_FAILURE_BUDGET
from theorylab.certify.record import METHODS, Outcome
from theorylab.errors import ParameterError


@dataclass(frozen=True)
class CertificateSpec:
    """A registered certificate: catalogue id, metadata and the check function."""

    id: str
    title: str
    paper: str
    claim: str
    method: str
    check: Callable[..., Outcome]
    false_failure: float | None = None

    @property
    def claim_id(self) -> str:
        """The catalogue row (``P9`` for ``P9.numeric``)."""
        return self.id.split(".")[0]


REGISTRY: dict[str, CertificateSpec] = {}


def certificate(id: str, *, title: str, paper: str, claim: str, method: str, false_failure: float | None = None):
    """Register the decorated function as certificate ``id``.

    ``id`` is a catalogue id (``P14``), optionally with a part (``P9.numeric``) when a
    row has several certificates. ``method`` is one of ``exact``, ``interval``,
    ``numeric``, ``monte-carlo``. A ``monte-carlo`` certificate must declare
    ``false_failure``, the probability that it FAILs a correct library (its thresholds are
    set from it; :mod:`theorylab.certify.montecarlo`), and take a ``seed`` keyword
    (None: its default draws; ``theorylab certify --seed N`` passes another base seed).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)} (got {method!r})")
    if (method == "monte-carlo") != (false_failure is not None):
        raise ValueError(f"certificate {id}: false_failure is required for method monte-carlo and only there")
    if false_failure is not None and not 0.0 < false_failure <= FALSE_FAILURE_BUDGET:
        raise ValueError(f"certificate {id}: false_failure must lie in (0, {FALSE_FAILURE_BUDGET:g}] "
                         f"(got {false_failure!r})")

    def decorate(fn):
        if method == "monte-carlo" and "seed" not in inspect.signature(fn).parameters:
            raise ValueError(f"certificate {id}: a monte-carlo check must take a seed keyword")
        if id in REGISTRY and _origin(REGISTRY[id].check) != _origin(fn):  # re-import of one module is fine
            raise ValueError(f"certificate {id} registered twice ({'.'.join(_origin(REGISTRY[id].check))} "
                             f"and {'.'.join(_origin(fn))})")
        REGISTRY[id] = CertificateSpec(id, title, paper, claim, method, fn, false_failure)
        return fn

    return decorate


def _origin(fn) -> tuple[str, str]:
    """Where a check is defined: ``(module, qualified name)``."""
    return fn.__module__, fn.__qualname__


def discover() -> dict[str, CertificateSpec]:
    """Import every module of ``theorylab.certificates`` (and of its subpackages, one per paper) so that
    each registers its checks; the independent routes of ``reference`` are imported by the certificates
    that use them.

    The package lives in theorylab's own namespace (a checkout's top-level ``certificates/``
    installs as ``theorylab.certificates``), so no other package of the name ``certificates``
    -- one in the working folder, or the distribution of that name -- is ever imported.
    """
    for name in certificate_modules():
        importlib.import_module(name)
    return REGISTRY


def certificate_modules() -> list[str]:
    """The names of the modules :func:`discover` imports (every module of ``theorylab.certificates`` but the
    independent routes of ``reference``), found without importing them (only the subpackages are imported)."""
    package = importlib.import_module("theorylab.certificates")
    return [info.name for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
            if not info.name.startswith(f"{package.__name__}.reference")]      # routes, not certificates


class IncompleteRegistry(Exception):
    """The registry does not cover the claims catalogue (``theorylab certify`` exits 1)."""


def check_complete(registry: dict[str, CertificateSpec]) -> None:
    """Raise :class:`IncompleteRegistry` unless every catalogue row has a registered certificate.

    A run that checks nothing (an empty registry) or that silently lacks a claim of the
    catalogue must not pass: the main job's PASS means every claim was checked.
    """
    from theorylab.certify.catalogue import CATALOGUE

    if not registry:
        raise IncompleteRegistry("no certificates are registered (theorylab.certificates holds none): "
                                 "nothing would be checked")
    missing = sorted(set(CATALOGUE) - {spec.claim_id for spec in registry.values()}, key=_order)
    if missing:
        raise IncompleteRegistry(f"the registry lacks certificates for {len(missing)} catalogue "
                                 f"row(s): {', '.join(missing)}")


def false_failure_total(specs: list[CertificateSpec] | None = None) -> float:
    """Summed false-failure probability of the Monte Carlo certificates (all registered by default)."""
    specs = select() if specs is None else specs
    return float(sum(s.false_failure or 0.0 for s in specs))


def select(only: list[str] | None = None, exact: bool = False) -> list[CertificateSpec]:
    """Registered certificates in catalogue order, filtered by id or catalogue row.

    ``only`` names certificate ids or catalogue rows (``A1`` selects A1 and A1.symbolic);
    with ``exact`` it names certificate ids only (``A1`` selects A1 alone).
    """
    specs = sorted(discover().values(), key=lambda s: _order(s.id))
    if not only:
        return specs
    chosen = [s for s in specs if s.id in only or (s.claim_id in only and not exact)]
    unknown = [o for o in only if not any(s.id == o or (s.claim_id == o and not exact) for s in specs)]
    if unknown:
        raise ParameterError(f"--only must name registered certificate ids (unknown: {', '.join(unknown)}; "
                             f"see theorylab certify --list)")
    return chosen


def _order(cid: str) -> tuple:
    row, _, part = cid.partition(".")
    return ("PAG".index(row[0]) if row[0] in "PAG" else 9, int(row[1:]) if row[1:].isdigit() else 0, part)

"""The records a certificate produces: labelled evidence, an outcome, a certificate."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

METHODS = ("exact", "interval", "numeric", "monte-carlo")
STATUSES = ("PASS", "FAIL", "ERROR", "SKIP")
KINDS = ("computed", "bound", "proxy")


@dataclass(frozen=True)
class Evidence:
    """One labelled number behind a verdict.

    ``kind`` is ``computed`` (the named quantity itself), ``bound`` (a rigorous
    enclosure or inequality) or ``proxy`` (a stand-in, with its ``formula``).
    ``tolerance`` is the absolute tolerance within which a re-run must reproduce
    ``value`` (``theorylab certify --verify``); None means exactly.
    """

    name: str
    value: Any
    kind: str = "computed"
    formula: str = ""
    tolerance: float | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"evidence kind must be one of {', '.join(KINDS)} (got {self.kind!r})")

    def as_dict(self) -> dict:
        value = self.value.tolist() if hasattr(self.value, "tolist") else self.value
        return {"name": self.name, "value": value, "kind": self.kind, "formula": self.formula,
                "tolerance": self.tolerance}


def computed(name: str, value, tolerance: float | None = None, formula: str = "") -> Evidence:
    """Evidence that is the named quantity computed directly."""
    return Evidence(name, value, "computed", formula, tolerance)


def bound(name: str, value, formula: str = "", tolerance: float | None = None) -> Evidence:
    """Evidence that is a rigorous bound or enclosure (say which in ``formula``)."""
    return Evidence(name, value, "bound", formula, tolerance)


def proxy(name: str, value, formula: str, tolerance: float | None = None) -> Evidence:
    """Evidence that stands in for the named quantity; ``formula`` says how."""
    return Evidence(name, value, "proxy", formula, tolerance)


@dataclass(frozen=True)
class Outcome:
    """What a certificate function returns.

    ``passed`` is the verdict; ``evidence`` the labelled numbers behind it;
    ``arrays`` the raw Monte Carlo (or other) arrays whose SHA-256 the report records;
    ``seeds`` the random seeds used.
    """

    passed: bool
    evidence: tuple[Evidence, ...] = ()
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    seeds: dict[str, int] = field(default_factory=dict)
    note: str = ""


class Skip(Exception):
    """Raise from a certificate when it cannot run here (e.g. an optional extra is missing)."""


@dataclass(frozen=True)
class Certificate:
    """The record of one certificate run (one line of ``theorylab certify``)."""

    id: str
    title: str
    paper: str
    claim: str
    method: str
    status: str
    evidence: tuple[Evidence, ...]
    seconds: float
    array_sha256: dict[str, str] = field(default_factory=dict)
    seeds: dict[str, int] = field(default_factory=dict)
    note: str = ""

    def as_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "paper": self.paper, "claim": self.claim,
                "method": self.method, "status": self.status, "seconds": round(self.seconds, 4),
                "evidence": [e.as_dict() for e in self.evidence], "array_sha256": self.array_sha256,
                "seeds": self.seeds, "note": self.note}

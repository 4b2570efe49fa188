"""Measured run times of the certificates, used to deal the work to ``theorylab certify``'s workers.

The workers take certificates from one queue in the order they were submitted, so submitting the
longest first (the classical longest-processing-time rule) keeps the last worker from finishing
alone with a long certificate. The numbers change no result, only when each certificate starts.
"""
from __future__ import annotations

# Seconds per certificate as a worker of a warm two-worker run reports them (``theorylab certify --format json``,
# each certificate's ``seconds``), rounded; certificates under 0.25 s are left out.
# Re-measure after a certificate's cost changes a lot (the first certificate to import a heavy
# module carries the import: A2.metric, the first transformer one, here).
COST_SECONDS: dict[str, float] = {
    "P19.crossover": 1.5, "A1.symbolic": 1.3, "P17": 1.0, "P17.variants": 0.9, "P22": 0.8, "P18.condensation": 0.7,
    "P24.interval": 0.7, "P24.mc": 0.5, "G10": 0.5, "P21.grad": 0.4, "P21.training": 0.4, "P8": 0.4, "G8": 0.4,
    "P21": 0.4, "P10": 0.4, "P12.symbolic": 0.3, "A6": 0.3, "P6": 0.3,
}

UNMEASURED_SECONDS = 0.1
"""The cost assumed for a certificate not in :data:`COST_SECONDS` (most take well under 0.25 s)."""


def cost_hint(certificate_id: str) -> float:
    """Expected seconds of certificate ``certificate_id`` (:data:`COST_SECONDS`, else :data:`UNMEASURED_SECONDS`)."""
    return COST_SECONDS.get(certificate_id, UNMEASURED_SECONDS)


def longest_first(ids: list[str]) -> list[int]:
    """Indices of ``ids`` in decreasing expected cost, ties in the given order (deterministic)."""
    return sorted(range(len(ids)), key=lambda i: (-cost_hint(ids[i]), i))

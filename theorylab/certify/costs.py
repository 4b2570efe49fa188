"""Measured run times of the certificates, used to deal the work to ``theorylab certify``'s workers.

The workers take certificates from one queue in the order they were submitted, so submitting the
longest first (the classical longest-processing-time rule) keeps the last worker from finishing
alone with a long certificate. The numbers change no result, only when each certificate starts.
"""
from __future__ import annotations

# Seconds per certificate as a worker of a warm two-worker run reports them (``theorylab certify --format json``,
# each certificate's ``seconds``), rounded; certificates under 0.25 s are left out.
# Re-measure after a certificate's cost changes a lot (the workers' server preloads the library,
# SymPy and Numba's registries, so no certificate carries their import: theorylab.certify._warm).
COST_SECONDS: dict[str, float] = {
    "P19.crossover": 1.7, "P24.interval": 1.4, "A1.symbolic": 1.4, "P17": 1.0, "P22": 0.9, "P18.condensation": 0.8,
    "P17.variants": 0.8, "P24.mc": 0.7, "G10": 0.7, "P21.grad": 0.7, "P10": 0.6, "P6": 0.5, "P21": 0.4, "G8": 0.4,
    "P21.training": 0.4, "P12.symbolic": 0.4, "P8": 0.4, "A6": 0.4, "G4": 0.3, "G6": 0.3,
}

UNMEASURED_SECONDS = 0.1
"""The cost assumed for a certificate not in :data:`COST_SECONDS` (most take well under 0.25 s)."""


def cost_hint(certificate_id: str) -> float:
    """Expected seconds of certificate ``certificate_id`` (:data:`COST_SECONDS`, else :data:`UNMEASURED_SECONDS`)."""
    return COST_SECONDS.get(certificate_id, UNMEASURED_SECONDS)


def longest_first(ids: list[str]) -> list[int]:
    """Indices of ``ids`` in decreasing expected cost, ties in the given order (deterministic)."""
    return sorted(range(len(ids)), key=lambda i: (-cost_hint(ids[i]), i))

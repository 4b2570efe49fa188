"""Measured run times of the certificates, used to deal the work to ``theorylab certify``'s workers.

The workers take certificates from one queue in the order they were submitted, so submitting the
longest first (the classical longest-processing-time rule) keeps the last worker from finishing
alone with a long certificate. The numbers change no result, only when each certificate starts.
"""
from __future__ import annotations

# CPU seconds per certificate, one serial run (``--workers 1``, numbers from ``time.process_time``
# around each check, Numba cache warm), rounded; certificates under 0.25 s are left out.
# Re-measure after a certificate's cost changes a lot.
COST_SECONDS: dict[str, float] = {
    "A1.symbolic": 4.8, "P22": 3.3, "P8": 2.5, "P24.interval": 2.5, "P17.variants": 2.5,
    "P18.condensation": 2.2, "G10": 2.2, "P17": 2.1, "P19.crossover": 1.8, "P12.symbolic": 1.6, "G8": 1.4,
    "P21": 1.1, "P10": 1.1, "P18.plateau": 1.0, "P17.rng": 0.9, "P24.mc": 0.9, "P21.grad": 0.7, "P1": 0.6,
    "P6": 0.5, "P21.training": 0.5, "A6": 0.4, "P12.numeric": 0.4, "G4": 0.4, "A13.numeric": 0.3,
    "A2.metric": 0.3, "G6": 0.3, "P9.symbolic": 0.3, "P15": 0.3, "A13.dl": 0.3, "A9": 0.3,
}

UNMEASURED_SECONDS = 0.1
"""The cost assumed for a certificate not in :data:`COST_SECONDS` (most take well under 0.25 s)."""


def cost_hint(certificate_id: str) -> float:
    """Expected seconds of certificate ``certificate_id`` (:data:`COST_SECONDS`, else :data:`UNMEASURED_SECONDS`)."""
    return COST_SECONDS.get(certificate_id, UNMEASURED_SECONDS)


def longest_first(ids: list[str]) -> list[int]:
    """Indices of ``ids`` in decreasing expected cost, ties in the given order (deterministic)."""
    return sorted(range(len(ids)), key=lambda i: (-cost_hint(ids[i]), i))

"""Measured run times of the certificates, used to deal the work to ``theorylab certify``'s workers.

The workers take certificates from one queue in the order they were submitted, so submitting the
longest first (the classical longest-processing-time rule) keeps the last worker from finishing
alone with a long certificate. The numbers change no result, only when each certificate starts.
"""
from __future__ import annotations

# CPU seconds per certificate, one serial run (``--workers 1``, numbers from ``time.process_time``
# around each check, Numba cache warm), rounded; certificates under 0.25 s are left out.
# Re-measure after a certificate's cost changes a lot (the first certificate to import a heavy
# module carries the import: A2.metric, the first transformer one, here).
COST_SECONDS: dict[str, float] = {
    "A1.symbolic": 4.7, "P22": 2.3, "A2.metric": 2.0, "P19.crossover": 1.9, "P17.variants": 1.7, "G8": 1.7,
    "P18.condensation": 1.6, "P17": 1.6, "P12.symbolic": 1.5, "P24.interval": 1.3, "G10": 1.3, "P10": 1.3,
    "P8": 1.1, "P21": 1.0, "P18.plateau": 1.0, "P24.mc": 0.8, "P17.rng": 0.7, "P21.grad": 0.6, "P1": 0.5,
    "P12.numeric": 0.5, "P6": 0.5, "A6": 0.4, "A13.numeric": 0.4, "G6": 0.4, "G4": 0.4, "P9.symbolic": 0.3,
    "A9": 0.3, "P15": 0.3, "A13.dl": 0.3, "A5.numeric": 0.3, "A16": 0.3, "P23.observables": 0.3,
    "P21.training": 1.0,        # trains in processes of its own, whose CPU time process_time does not see: wall
}

UNMEASURED_SECONDS = 0.1
"""The cost assumed for a certificate not in :data:`COST_SECONDS` (most take well under 0.25 s)."""


def cost_hint(certificate_id: str) -> float:
    """Expected seconds of certificate ``certificate_id`` (:data:`COST_SECONDS`, else :data:`UNMEASURED_SECONDS`)."""
    return COST_SECONDS.get(certificate_id, UNMEASURED_SECONDS)


def longest_first(ids: list[str]) -> list[int]:
    """Indices of ``ids`` in decreasing expected cost, ties in the given order (deterministic)."""
    return sorted(range(len(ids)), key=lambda i: (-cost_hint(ids[i]), i))

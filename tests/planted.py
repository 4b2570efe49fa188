"""Plant a bug in a copy of the library source and run certificates on it.

The harness lives in :mod:`theorylab.certify.planting` (``theorylab mutate`` plants its
mutants with it too); this module re-exports it for the tests.
"""
from theorylab.certify.planting import PlantedRun, certify_with_bug, plant

__all__ = ["PlantedRun", "certify_with_bug", "plant"]

"""Plant a bug in a copy of the library source and run certificates on it.

The harness lives in :mod:`theorylab.mutation.planting` (``theorylab mutate`` plants its
mutants with it too); this module re-exports it for the tests, with the one assertion they share.
"""
from theorylab.mutation.planting import PlantedRun, certify_with_bug, plant


def assert_caught(path: str, old: str, new: str, catchers, *, also=(), accept=("FAIL",)) -> PlantedRun:
    """Plant the bug, run ``catchers`` on the copy and assert certify exits 1 with every catcher in ``accept``."""
    catchers = [catchers] if isinstance(catchers, str) else list(catchers)
    run = certify_with_bug(path, old, new, catchers, also=also)
    statuses = {cid: run.status(cid) for cid in catchers}
    assert run.returncode == 1 and all(s in accept for s in statuses.values()), (statuses, run.output[-2000:])
    return run


__all__ = ["PlantedRun", "assert_caught", "certify_with_bug", "plant"]

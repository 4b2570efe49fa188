"""Every planted bug of the tables in tests/planted/ makes its catchers FAIL (or ERROR, where accepted).

The proof that a certificate works is a bug planted in the library source that makes it FAIL. The
bugs run in one warm copy of the library (:class:`theorylab.mutation.planting.Worker`): the copy is
made once and warmed by a clean run of every selected bug's catchers (which must PASS, so a FAIL
below is the bug's doing); each bug is then planted in the copy, run in a fork of the worker's
zygote interpreter (heavy dependencies imported once, ``theorylab`` imported fresh from the copy)
and removed again (:func:`planted.run_bug`). Ids are ``table:description``.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from planted import Bug, check_caught, numba_files_of, run_bug, tables
from theorylab.mutation.planting import Worker, library_root

pytestmark = pytest.mark.planted

PARAMS = [pytest.param(bug, id=f"{name}:{bug.what}", marks=[pytest.mark.slow] if bug.slow else [])
          for name, bugs in tables().items() for bug in bugs]


class WarmWorker:
    """A :class:`Worker` copy of the library, its clean run of the catchers and its Numba files."""

    def __init__(self, worker: Worker, clean, catchers: list[str], numba: set[str]):
        self.worker, self.clean, self.catchers, self.numba = worker, clean, catchers, numba


@pytest.fixture(scope="session")
def warm_worker(request):
    """One worker for the session, warmed by a clean run of the catchers of every selected bug."""
    bugs = [item.callspec.params["bug"] for item in request.session.items
            if isinstance(getattr(item, "callspec", None) and item.callspec.params.get("bug"), Bug)]
    catchers = sorted({cid for bug in bugs for cid in bug.catchers})
    with tempfile.TemporaryDirectory(prefix="theorylab-planted-") as tmp:
        worker = Worker(Path(tmp), 0, library_root(), "fork")
        try:
            numba = numba_files_of(worker.dest, sorted({f for bug in bugs for f in bug.files}))
            clean = worker.certify(["--only", *catchers], 3600, bytecode=True) if catchers else None
            yield WarmWorker(worker, clean, catchers, numba)
            changed = [f for f in sorted({f for bug in bugs for f in bug.files})
                       if (worker.dest / f).read_text() != (library_root() / f).read_text()]
            assert not changed, f"planted bugs left in the worker's copy: {changed}"
        finally:
            worker.close()


@pytest.mark.parametrize("bug", PARAMS)
def test_planted_bug_is_caught(bug, warm_worker):
    run = run_bug(warm_worker.worker, bug, warm_worker.numba)
    check_caught(run, bug.catchers, bug.accept)


def test_the_unplanted_copy_passes_every_catcher(warm_worker):
    """The worker's clean copy PASSes every catcher of the selected bugs (the warm-up run)."""
    if not warm_worker.catchers:
        pytest.skip("no planted bug selected")
    run = warm_worker.clean
    statuses = {cid: run.status(cid) for cid in warm_worker.catchers}
    assert run.returncode == 0 and all(s == "PASS" for s in statuses.values()), (statuses, run.output[-2000:])

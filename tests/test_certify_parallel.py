"""``theorylab certify --jobs N``: the same report, in the same order, whatever N."""
from __future__ import annotations

import pytest

from theorylab.certify.registry import select
from theorylab.certify.runner import run

SUBSET = ["P1", "P10", "P11", "P13", "A3", "G5", "P12.numeric"]   # exact, Monte Carlo, numeric


def _fields(cert) -> tuple:
    return (cert.id, cert.status, cert.evidence, cert.array_sha256, cert.seeds)


def test_a_parallel_run_reproduces_the_serial_one():
    """Same code run on the same seeds in another process: verdicts, evidence, seeds and hashes
    are bitwise those of the serial run (the order of the report too)."""
    specs = select(SUBSET, exact=True)
    serial = run(specs, jobs=1)
    parallel = run(specs, jobs=2)
    assert [c.id for c in parallel] == [s.id for s in specs]
    assert [_fields(c) for c in parallel] == [_fields(c) for c in serial]
    assert all(c.status == "PASS" for c in parallel)


def test_on_result_is_called_in_catalogue_order():
    specs = select(SUBSET, exact=True)
    seen = []
    run(specs, jobs=2, on_result=lambda c: seen.append(c.id))
    assert seen == [s.id for s in specs]


def test_fail_fast_stops_where_a_serial_run_would(monkeypatch):
    specs = select(SUBSET, exact=True)
    broken = specs[2]
    # A spec is frozen: a failing twin registered under the same id for this run only (the
    # forked workers look certificates up by id, so they see it too).
    import dataclasses

    from theorylab.certify import registry
    from theorylab.certify.record import Outcome

    failing = dataclasses.replace(broken, check=lambda **_: Outcome(False))
    monkeypatch.setitem(registry.REGISTRY, broken.id, failing)
    out = run([*specs[:2], failing, *specs[3:]], jobs=2, fail_fast=True)
    assert [c.id for c in out] == [s.id for s in specs[:3]]
    assert out[-1].status == "FAIL"


@pytest.mark.parametrize("jobs", ["0", "-1", "257", "1.5", "x"])
def test_jobs_is_validated(jobs, capsys):
    from theorylab.cli import main

    assert main(["certify", "--jobs", jobs]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--jobs" in err[0]

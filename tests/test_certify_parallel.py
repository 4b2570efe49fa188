"""``theorylab certify --workers N``: the same report, in the same order, whatever N."""
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


def _always_fails(**_):
    """A check that fails (module level, so a worker process can import it by reference)."""
    from theorylab.certify.record import Outcome

    return Outcome(False)


def test_fail_fast_stops_where_a_serial_run_would():
    import dataclasses

    specs = select(SUBSET, exact=True)
    failing = dataclasses.replace(specs[2], check=_always_fails)
    out = run([*specs[:2], failing, *specs[3:]], jobs=2, fail_fast=True)
    assert [c.id for c in out] == [s.id for s in specs[:3]]
    assert out[-1].status == "FAIL"


def test_workers_do_not_fork_a_process_that_ran_openmp_kernels():
    """After OpenMP-threaded Numba code ran here (a fork of this process would be killed), the
    workers still run: they start from a fresh server process."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import numba, numpy as np
        numba.config.THREADING_LAYER = "omp"
        @numba.njit(parallel=True, cache=False)
        def total(x):
            s = 0.0
            for i in numba.prange(x.size):
                s += x[i]
            return s
        try:
            assert total(np.ones(1000)) == 1000.0
        except Exception:          # no OpenMP runtime on this machine: nothing to show
            print("no-omp"); raise SystemExit(0)
        from theorylab.certify.registry import select
        from theorylab.certify.runner import run
        out = run(select(["P11", "P19.band"], exact=True), jobs=2)      # P19.band runs parallel kernels
        print([c.status for c in out])
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    if "no-omp" in proc.stdout:
        pytest.skip("Numba's OpenMP threading layer is not available here")
    assert "['PASS', 'PASS']" in proc.stdout, proc.stdout + proc.stderr[-2000:]


@pytest.mark.parametrize("jobs", ["0", "-1", "257", "1.5", "x"])
def test_workers_is_validated(jobs, capsys):
    from theorylab.cli import main

    assert main(["certify", "--workers", jobs]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--workers" in err[0]


def test_the_servers_warm_up_runs_no_kernel_and_fills_numbas_registries():
    """``theorylab.certify._warm`` (preloaded by the worker server, which then forks) imports the library and
    fills Numba's CPU registries, but never starts Numba's thread pool: a fork after it is safe."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import sys
        import theorylab.certify._warm
        import numba.np.ufunc.parallel as parallel
        from numba.core.registry import cpu_target
        print(parallel._is_initialized, "sympy" in sys.modules, "theorylab.symbolic.exact" in sys.modules,
              "theorylab.mutation" in sys.modules, "theorylab.cli" in sys.modules,
              bool(cpu_target.target_context._registries), bool(cpu_target.typing_context._registries))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.stdout.split() == ["False", "True", "True", "False", "False", "True", "True"], proc.stdout + proc.stderr

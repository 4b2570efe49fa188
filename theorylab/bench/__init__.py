"""Benchmarks (``theorylab bench NAME``): measured, never asserted in tests.

Each module here exposes ``register(subparsers)`` for one benchmark. A benchmark
prints its figures and, where it has one, a ratio against a baseline measured in
the same run.
"""
import time


def timed(fn) -> float:
    """Wall-clock seconds of one call ``fn()``."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start

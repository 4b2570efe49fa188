"""Benchmarks (``theorylab bench NAME``): measured, never asserted in tests.

Each module here exposes ``register(subparsers)`` for one benchmark. A benchmark
prints its figures and, where it has one, a ratio against a baseline measured in
the same run.
"""

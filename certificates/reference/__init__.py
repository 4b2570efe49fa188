"""Independent reference routes for the certificates, written from the papers' equations.

Nothing here imports ``theorylab`` except ``theorylab.errors``; only NumPy, SciPy, SymPy, mpmath
and ``fractions`` (``tests/test_reference_independence.py`` enforces it). A certificate holds the
library against these routes, so a bug in the library's code cannot be repeated on both sides.
"""

"""Mutation testing of the library by its certificates: maintainer machinery, apart from the library.

``theorylab mutate`` plants small changes (mutants) in a copy of the library source and runs the
certificates that execute each one (:mod:`theorylab.mutation.run`); a mutant is *killed* when a
certificate FAILs or ERRORs. The planted-bug tests use the same copy-and-run harness
(:mod:`theorylab.mutation.planting`). No module of the library imports this package (an
import-linter contract checks it): only the ``theorylab mutate`` command and the tests do. It ships
inside the package so that ``theorylab mutate`` runs from an installed wheel too.
"""

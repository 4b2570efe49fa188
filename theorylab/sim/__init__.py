"""Deprecated: the modules of ``theorylab.sim`` moved to the package of their paper.

``theorylab.sim.exact`` is now :mod:`theorylab.psa.quadrature`, ``competition`` is
:mod:`theorylab.psa.montecarlo`, ``ladder`` and ``graded_risk`` are
:mod:`theorylab.graded.ladder_sim` and :mod:`theorylab.graded.risk_sim`, ``rng`` is
:mod:`theorylab.rng` and ``sweep`` is :mod:`theorylab.sweep` (the full list:
:data:`theorylab._moved.MOVED`). The old names still import, with a ``DeprecationWarning``.
"""

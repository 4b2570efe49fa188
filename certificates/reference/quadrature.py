"""Composite Gauss-Legendre rules shared by the reference integrals (NumPy only)."""
from __future__ import annotations

import numpy as np

NODES = 10
"""Gauss-Legendre nodes per panel."""


def composite(lo: float, hi: float, panel: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of :data:`NODES`-point Gauss-Legendre on ``ceil((hi - lo) / panel)`` equal panels of [lo, hi]."""
    x, w = np.polynomial.legendre.leggauss(NODES)
    n = max(1, int(np.ceil((hi - lo) / panel)))
    edges = np.linspace(lo, hi, n + 1)
    half, mid = np.diff(edges) / 2.0, (edges[:-1] + edges[1:]) / 2.0
    return (mid[:, None] + half[:, None] * x).ravel(), (half[:, None] * w).ravel()

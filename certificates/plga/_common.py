"""Shared sizes, tolerances and small helpers of the PLGA certificates (no certificate lives here).

The certificates call the library functions under test directly; the helpers below only build inputs
(seeded Gaussian queries, object arrays for the exact routes) or measure differences. SymPy and the exact
routes (``theorylab.symbolic``) are imported inside the checks, so `theorylab certify --list` does not load SymPy.
"""
from __future__ import annotations

import numpy as np


DK, S = 16, 32
"""Head width and sequence length of the certificates' default random heads and queries."""
STAGE_RTOL = 1e-11
"""Library vs reference PLGA tensors, relative per entry (A_LM, A_P) or to max|G|: two float64 routes; entries of A_LM
near 1e-6 come out of iSwiGLU deep in its left tail, where the routes differ by up to 7e-14 (measured)."""
RANK_RTOL = 64 * float(np.finfo(np.float32).eps)
"""The authors' numerical-rank tolerance (audit ``numrank``): singular values above ``64 eps_float32 s_1`` count."""


def _queries(seed: int, S: int = S, dk: int = DK, scale: float = 1.0) -> np.ndarray:
    return scale * np.random.default_rng(seed).standard_normal((S, dk))


def _obj(a) -> np.ndarray:
    out = np.empty(np.shape(a), dtype=object)
    out[...] = a
    return out


def _rel(a, b) -> float:
    """max |a - b| / max |b| (NaN propagates)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


def _stage_errors(lib, reference) -> dict[str, float]:
    """Relative differences of the library's A_LM, A_P (entrywise) and G_LM (to max |G|) from the reference's."""
    return {"A_LM": float(np.max(np.abs(lib.A_LM / reference["A_LM"] - 1))),
            "A_P": float(np.max(np.abs(lib.A_P / reference["A_P"] - 1))),
            "G": float(np.max(np.abs(lib.G - reference["G"])) / np.max(np.abs(reference["G"])))}

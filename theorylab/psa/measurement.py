"""One measured critical coupling of the PSA reduced score model, and the validation every named
observable shares (PSA §6.7, §7.9-7.10).

:class:`Measurement` is the result record of every observable of :mod:`theorylab.psa.observables`
(the level observables there, the peak observables of :mod:`theorylab.psa.peaks`): the coupling,
how it was measured (``"exact"`` quadrature or ``"mc"`` Monte Carlo, :data:`METHODS`) and, for the
Monte Carlo, its batch-means interval and the curve it was read from. ``_check`` validates one
point ``(variant, dk, T)`` and the method's options once, at the observables' public boundary.

Convention: NaN for a coupling means the observable does not exist at the point (a result, not
an error); fields that do not apply to a method are NaN (intervals of exact measurements) or 0.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from theorylab._results import to_frame
from theorylab.errors import ParameterError, choice, positive_int, real_scalar, seed_int, single
from theorylab.psa.scoremodel import _head_width, resolve_model

__all__ = ["METHODS", "Measurement"]


METHODS: tuple[str, ...] = ("exact", "mc")


@dataclass(frozen=True)
class Measurement:
    """One observable's critical coupling at one (variant, dk, T).

    Attributes
    ----------
    observable, variant, dk, T, method : what was measured, and how ("exact" or "mc").
    gamma_c : the coupling (NaN where the observable does not exist).
    ci_low, ci_high : Monte Carlo batch-means confidence interval (NaN for exact).
    confidence : the interval's nominal coverage (NaN where no interval is computed: exact measurements).
    samples, seed : Monte Carlo draws and stream (0 for exact).
    level : the mass level for level observables (NaN for peaks).
    batch_gamma_c : per-batch values (Monte Carlo; empty for exact).
    curve : the fine-grid curve the value was read from (Monte Carlo), else None.

    Notes
    -----
    :meth:`row` is the scalar fields as a dict, :meth:`to_frame` a one-row table; measurements of many
    points are one table as ``pandas.DataFrame([m.row() for m in measurements])``.
    """

    observable: str
    variant: str
    dk: float
    T: int
    method: str
    gamma_c: float
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    confidence: float = float("nan")
    samples: int = 0
    seed: int = 0
    level: float = float("nan")
    batch_gamma_c: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0))
    curve: object = field(repr=False, default=None)

    def row(self) -> dict:
        """A flat dict (no arrays) for tables and JSON."""
        return {"observable": self.observable, "variant": self.variant, "dk": self.dk, "T": self.T,
                "method": self.method, "gamma_c": self.gamma_c, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "samples": self.samples, "seed": self.seed, "level": self.level}

    def to_frame(self):
        """:meth:`row` as a one-row ``pandas.DataFrame`` (pandas: the optional extra ``theorylab[pandas]``)."""
        return to_frame([self.row()])


# --- validation ----------------------------------------------------------------------

def _check(variant, dk, T, method, samples, seed, confidence, sigma0, dtype):
    from theorylab.psa.montecarlo import DTYPES
    from theorylab.psa.quadrature import integer_context_length

    model = resolve_model(variant)
    choice("dtype", dtype, DTYPES)
    dk = single("dk", _head_width(dk))
    T = integer_context_length(T)
    method = choice("method", method, METHODS)
    samples = positive_int("samples", samples)
    seed = seed_int("seed", seed)
    confidence = real_scalar("confidence", confidence, low=0, high=1, low_inclusive=False, high_inclusive=False)
    sigma0 = real_scalar("sigma0", sigma0, low=0)
    if method == "exact" and sigma0 > 0:
        raise ParameterError("sigma0 > 0 needs method='mc' (the exact observables have no target noise)")
    return model, dk, T, method, samples, seed, confidence, sigma0

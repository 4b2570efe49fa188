"""Prediction vs simulation for the PSA reduced score model (PSA §6.7 "two-branch law vs Monte Carlo").

Per grid point (dk, T) three routes to the critical coupling:

* the **law** the paper quotes (:func:`theorylab.psa.transition.gamma_c`: two-branch
  law for t4-only, annealed root otherwise) and the plain annealed root;
* the **exact** reduced-model root of ``M(g) = 1/2`` by quadrature
  (:func:`theorylab.sim.exact.exact_gamma_c`);
* the **Monte Carlo** root with its batch-means confidence interval
  (:func:`theorylab.sim.competition.mc_gamma_c`); point ``i`` of a grid uses seed
  ``seed + i`` so the points are independent.

Across the grid: Pearson r and the median relative error ``|law - MC| / MC`` (the
paper's r = 0.9876, median 2.6 %), and the same for exact vs MC.
"""
from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass

import numpy as np

from theorylab.errors import ParameterError, choice, positive_int
from theorylab.psa import transition
from theorylab.psa.scoremodel import VARIANTS, context_length, head_width, log_count

PAPER_GRID: tuple[tuple[float, int], ...] = tuple((dk, T) for T in (64, 512, 2048) for dk in (64, 128, 256))
"""Our nine mean-field points (dk >= 8L at each): dk in {64, 128, 256} x T in {64, 512, 2048}.

8L is 33.1, 49.9 and 61.0 at T = 64, 512, 2048, so every point is on the mean-field branch.
The paper's own grid is not in its summary; this one is ours (docs/simulation.md)."""


@dataclass(frozen=True)
class Comparison:
    """Prediction vs simulation over a grid.

    Attributes
    ----------
    variant, samples, seed : what was simulated.
    rows : one dict per point (dk, T, L, branch, law_gamma_c, annealed_gamma_c,
        exact_gamma_c, mc_gamma_c, mc_ci_low, mc_ci_high, rel_err_law, rel_err_exact).
    pearson_r, median_rel_err : law vs MC across the grid.
    exact_pearson_r, exact_median_rel_err : exact quadrature vs MC across the grid.
    """

    variant: str
    samples: int
    seed: int
    rows: tuple[dict, ...]
    pearson_r: float
    median_rel_err: float
    exact_pearson_r: float
    exact_median_rel_err: float

    def summary(self) -> dict:
        return {"variant": self.variant, "samples": self.samples, "seed": self.seed,
                "pearson_r": self.pearson_r, "median_rel_err": self.median_rel_err,
                "exact_pearson_r": self.exact_pearson_r, "exact_median_rel_err": self.exact_median_rel_err}


def pearson_r(x, y) -> float:
    """Pearson correlation of the finite pairs (NaN with fewer than 3)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return float("nan")
    return float(np.corrcoef(x[ok], y[ok])[0, 1])


def relative_error(predicted, simulated) -> np.ndarray:
    """``|predicted - simulated| / |simulated|`` (NaN where either is missing)."""
    p, s = np.asarray(predicted, float), np.asarray(simulated, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.abs(p - s) / np.abs(s)


def _median(values) -> float:
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    return float(np.median(v)) if v.size else float("nan")


def validate_grid(points) -> list[tuple[float, int]]:
    """Check a grid of (dk, T) pairs: dk > 0, T an integer >= 3, at least one point."""
    pts = [tuple(p) for p in points]
    if not pts or any(len(p) != 2 for p in pts):
        raise ParameterError("grid must be a non-empty list of (dk, T) pairs")
    out = []
    for dk, T in pts:
        dk, T = float(head_width(dk)), float(context_length(T))
        if not T.is_integer():
            raise ParameterError(f"T must be an integer >= 3 (got {T:g})")
        out.append((dk, int(T)))
    return out


def read_grid(path: str) -> list[tuple[float, int]]:
    """Read a grid file: CSV with columns ``dk`` and ``T`` (header row), or JSON ``[[dk, T], ...]``
    / ``[{"dk": .., "T": ..}, ...]``."""
    if not os.path.isfile(path):
        raise ParameterError(f"grid must be 'paper' or an existing CSV/JSON file (got {path!r})")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    try:
        if path.lower().endswith(".json"):
            data = json.loads(text)
            pts = [(d["dk"], d["T"]) if isinstance(d, dict) else tuple(d) for d in data]
        else:
            pts = [(r["dk"], r["T"]) for r in csv.DictReader(text.splitlines())]
    except (KeyError, TypeError, ValueError, json.JSONDecodeError) as exc:
        raise ParameterError(f"grid file {path!r} must hold columns dk and T ({type(exc).__name__})") from None
    return validate_grid([(float(dk), float(T)) for dk, T in pts])


def compare_grid(variant: str, points=PAPER_GRID, *, samples: int = 20000, seed: int = 0,
                 c: float | None = None, progress: bool | None = None) -> Comparison:
    """Law, annealed, exact and Monte Carlo gamma_c over ``points``; r and median relative error.

    Parameters
    ----------
    variant : score-model variant.  points : iterable of (dk, T).
    samples : Monte Carlo samples per point.  seed : point i uses ``seed + i``.
    c : condensation constant for the t4-only condensed branch (default: the library's).
    """
    from theorylab.sim.competition import mc_gamma_c
    from theorylab.sim.exact import exact_gamma_c

    choice("variant", variant, VARIANTS)
    pts = validate_grid(points)
    samples = positive_int("samples", samples)
    seed = positive_int("seed", seed, low=0)
    kwargs = {} if c is None else {"c": c}
    rows = []
    for i, (dk, T) in enumerate(pts):
        law = transition.gamma_c(variant, dk, T, **kwargs)
        mc = mc_gamma_c(variant, dk, T, samples=samples, seed=seed + i, progress=progress)
        exact = exact_gamma_c(variant, dk, T)
        row = {"dk": dk, "T": T, "L": float(log_count(T)), "branch": str(law.branch),
               "law_gamma_c": float(law.gamma_c), "annealed_gamma_c": float(transition.annealed_gamma_c(variant, dk, T)),
               "exact_gamma_c": exact, "mc_gamma_c": mc.gamma_c, "mc_ci_low": mc.ci_low,
               "mc_ci_high": mc.ci_high, "seed": seed + i}
        row["rel_err_law"] = float(relative_error(row["law_gamma_c"], mc.gamma_c))
        row["rel_err_exact"] = float(relative_error(exact, mc.gamma_c))
        rows.append(row)
    law_v = [r["law_gamma_c"] for r in rows]
    mc_v = [r["mc_gamma_c"] for r in rows]
    ex_v = [r["exact_gamma_c"] for r in rows]
    return Comparison(variant, samples, seed, tuple(rows), pearson_r(law_v, mc_v),
                      _median([r["rel_err_law"] for r in rows]), pearson_r(ex_v, mc_v),
                      _median([r["rel_err_exact"] for r in rows]))


__all__ = ["PAPER_GRID", "Comparison", "compare_grid", "pearson_r", "relative_error", "read_grid",
           "validate_grid"]

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


# --- findings beyond the paper (docs/simulation.md) ---------------------------------

CALIBRATION_GRID: tuple[tuple[float, int], ...] = (
    tuple((16.0, T) for T in (12, 16, 24, 32, 48, 64)) + tuple((32.0, T) for T in (128, 256, 512)))
"""Nine condensed points (dk < 8L) for the condensation constant: dk = 16 x T in
{12, 16, 24, 32, 48, 64} and dk = 32 x T in {128, 256, 512}; the argmax plateau is >= 0.20
at each, so the half-plateau observable is well defined."""


def annealed_mass(variant: str, dk, T, gammas) -> np.ndarray:
    """The annealed mass ``1 / (1 + (T-1) exp(sigma^2/2 - Delta))``: its 1/2-level is the annealed crossing.

    (The annealed partition function replaces sum_j e^(x_j) by its mean, with the
    log-count L = ln(T - 1) of the closed forms.)
    """
    from theorylab.psa.scoremodel import score_model

    model = score_model(choice("variant", variant, VARIANTS))
    g = np.asarray(gammas, float)
    expo = log_count(T) + model.variance(g) / 2.0 - model.gap(g, dk)
    return np.exp(-np.logaddexp(0.0, expo))


@dataclass(frozen=True)
class Calibration:
    """The condensation constant c calibrated by simulation on condensed points.

    Observable (ours; the paper's is not in its summary): the **half-plateau coupling**
    g_half, the smallest g at which the t4-only mean target mass reaches half its
    argmax plateau ``P = Phi(sqrt(dk)/2)^m``; per point ``c_i = g_half / (L/2)^(1/4)``.
    ``c`` is the mean of c_i; ``ci_low, ci_high`` its 95 % statistical interval (from the
    per-point batch-means intervals); ``spread`` the standard deviation of c_i across
    points (the observable's own drift, which dominates); ``exact_c`` the same mean
    from the quadrature roots.
    """

    c: float
    ci_low: float
    ci_high: float
    spread: float
    exact_c: float
    rows: tuple[dict, ...]
    samples: int
    seed: int


def calibrate_condensation_c(points=CALIBRATION_GRID, *, samples: int = 20000, seed: int = 0,
                             simulate=None) -> Calibration:
    """Calibrate c on condensed points (see :class:`Calibration`); point i uses seed + i."""
    from theorylab.sim.competition import mc_gamma_c
    from theorylab.sim.exact import argmax_limit, exact_gamma_c

    simulate = simulate or mc_gamma_c
    pts = validate_grid(points)
    samples = positive_int("samples", samples)
    seed = positive_int("seed", seed, low=0)
    rows = []
    for i, (dk, T) in enumerate(pts):
        if dk >= float(transition.crossover_dk(T)):
            raise ParameterError(f"calibration points must be condensed, dk < 8L (got dk={dk:g}, T={T})")
        plateau = float(argmax_limit("t4-only", dk, T))
        gf = float(transition.freezing_coupling(T))
        mc = simulate("t4-only", dk, T, samples=samples, seed=seed + i, level=plateau / 2.0)
        ex = exact_gamma_c("t4-only", dk, T, level=plateau / 2.0)
        rows.append({"dk": dk, "T": T, "plateau": plateau, "g_freeze": gf, "mc_g_half": mc.gamma_c,
                     "mc_ci_low": mc.ci_low, "mc_ci_high": mc.ci_high, "exact_g_half": ex,
                     "c_mc": mc.gamma_c / gf, "c_exact": ex / gf, "seed": seed + i})
    c_i = np.array([r["c_mc"] for r in rows])
    half = np.array([(r["mc_ci_high"] - r["mc_ci_low"]) / 2.0 / r["g_freeze"] for r in rows])
    c = float(np.mean(c_i))
    hw = float(np.sqrt(np.sum(half**2)) / len(rows))
    return Calibration(c, c - hw, c + hw, float(np.std(c_i, ddof=1)),
                       float(np.mean([r["c_exact"] for r in rows])), tuple(rows), samples, seed)


def band_edge_check(dk: float = 128.0, T: int = 512, gammas=(2.0, 2.245, 2.5, 3.0, 3.5, 4.0), *,
                    samples: int = 20000, seed: int = 0, simulate=None) -> list[dict]:
    """Above the annealed band's upper root: annealed vs exact vs simulated mass at each g.

    The t4-only annealed mass falls back below 1/2 above ``t4_band(dk, T)[1]``
    (2.245 at (128, 512)); the quenched model (quadrature, simulation) says otherwise.
    """
    from theorylab.sim.competition import simulate_mass
    from theorylab.sim.exact import exact_mass

    simulate = simulate or simulate_mass
    g = np.asarray(gammas, float)
    curve = simulate("t4-only", dk, T, g, samples=samples, seed=seed)
    exact = exact_mass("t4-only", dk, T, g)
    ann = annealed_mass("t4-only", dk, T, g)
    upper = float(transition.t4_band(dk, T)[1])
    return [{"gamma": float(gi), "above_upper_root": bool(gi >= upper), "annealed_mass": float(a),
             "exact_mass": float(e), "mc_mass": float(m), "se": float(se)}
            for gi, a, e, m, se in zip(g, ann, exact, curve.mass, curve.se)]


def plateau_check(points=((16.0, 64), (32.0, 512), (40.0, 512), (64.0, 512)), *, g: float = 10.0,
                  samples: int = 200_000, seed: int = 0, plateau=None, simulate=None) -> list[dict]:
    """Argmax plateau ``Phi(sqrt(dk)/2)^m`` vs the simulated (and exact) mass at large g (t4-only)."""
    from theorylab.sim.competition import simulate_mass
    from theorylab.sim.exact import exact_mass

    plateau = plateau or transition.argmax_plateau
    simulate = simulate or simulate_mass
    rows = []
    for i, (dk, T) in enumerate(validate_grid(points)):
        p = float(plateau(dk, T))
        curve = simulate("t4-only", dk, T, [g], samples=samples, seed=seed + i)
        rows.append({"dk": dk, "T": T, "gamma": g, "plateau": p,
                     "exact_mass": float(exact_mass("t4-only", dk, T, g)), "mc_mass": float(curve.mass[0]),
                     "se": float(curve.se[0]), "mc_minus_plateau": float(curve.mass[0]) - p, "seed": seed + i})
    return rows


@dataclass(frozen=True)
class Crossover:
    """Where the T3 (degree-1) channel's measured score gap is overtaken by the T4 (degree-2) one."""

    closed_form: float
    mc: float
    ci_low: float
    ci_high: float
    cov_ratio: float
    cov_ratio_se: float
    batch_sd: float
    batches: int


def t3_t4_crossover(dk: float = 64.0, T: int = 512, *, samples: int = 2000, seed: int = 0,
                    model=None) -> Crossover:
    """T3 -> T4 crossover of the t3-inclusive model (PSA §10; the paper's C7 quotes g ~ 0.97).

    Closed form: the g where the model's degree-1 gap term equals its degree-2 term
    (``gap_poly[1] / gap_poly[2]``, 1 for the spec). Simulation: on the counter-based
    draws, each channel's *measured* gap is its target score minus the mean of its
    distractor scores (T3_j = sqrt2 g z_a, T4_j = sqrt2 g^2 (z_a + z_b), the
    t3-inclusive loadings split by degree); the crossover is where the two measured
    gap curves meet (batch means over 20 batches for the interval). Also returned: the
    measured Cov(T3, T4) / (2 g^3) at g = 1 (1 if the channels are correlated as the
    spec says) with its standard error, and the batch roots' standard deviation.
    """
    from scipy.stats import t as student_t

    from theorylab.psa.scoremodel import score_model
    from theorylab.sim.competition import LOADINGS
    from theorylab.sim.rng import normals

    model = model or score_model("t3-inclusive")
    samples = positive_int("samples", samples)
    m = int(T) - 2
    z = normals(seed, np.arange(samples), np.arange(m))          # (samples, m, 2)
    a, b = LOADINGS["t3-inclusive"]
    t3 = a[1] * z[..., 0] + (b[1] if len(b) > 1 else 0.0) * z[..., 1]   # per unit g
    t4 = a[2] * z[..., 0] + b[2] * z[..., 1]                              # per unit g^2
    closed = model.gap_poly[1] / model.gap_poly[2]
    sq = np.sqrt(dk)
    batches = np.array_split(np.arange(samples), 20)
    roots = []
    for idx in [np.arange(samples)] + batches:
        m3, m4 = t3[idx].mean(), t4[idx].mean()
        # g (c1 sqrt(dk) - m3) = g^2 (c2 sqrt(dk) - m4)  =>  g = (c1 sqrt(dk) - m3) / (c2 sqrt(dk) - m4)
        roots.append((model.gap_poly[1] * sq - m3) / (model.gap_poly[2] * sq - m4))
    root, br = roots[0], np.array(roots[1:])
    half = student_t.ppf(0.975, br.size - 1) * br.std(ddof=1) / np.sqrt(br.size)
    prod = (t3 - t3.mean()) * (t4 - t4.mean())
    cov, cov_se = float(prod.mean() / 2.0), float(prod.std() / np.sqrt(prod.size) / 2.0)
    return Crossover(float(closed), float(root), float(root - half), float(root + half), cov, cov_se,
                     float(br.std(ddof=1)), int(br.size))


__all__ = ["PAPER_GRID", "Comparison", "compare_grid", "pearson_r", "relative_error", "read_grid",
           "validate_grid", "CALIBRATION_GRID", "Calibration", "calibrate_condensation_c", "annealed_mass",
           "band_edge_check", "plateau_check", "Crossover", "t3_t4_crossover"]

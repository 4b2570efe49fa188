"""Prediction vs simulation for the PSA reduced score model (PSA §6.7 "two-branch law vs Monte Carlo").

Per grid point (dk, T) three routes to the critical coupling:

* the **law** the paper quotes (:func:`theorylab.psa.transition.gamma_c`: two-branch
  law for t4-only, annealed root otherwise) and the plain annealed root;
* the **exact** reduced-model root of ``M(g) = 1/2`` by quadrature
  (:func:`theorylab.sim.exact.exact_gamma_c`);
* the **Monte Carlo** root with its batch-means confidence interval
  (:func:`theorylab.sim.competition.mc_gamma_c`); point ``i`` of a grid uses seed
  ``(seed + i) mod 2^64`` so the points are independent (any seed in [0, 2^64) is valid).

Across the grid: Pearson r and the median relative error ``|law - MC| / MC`` (the
paper's :data:`PAPER_STATISTICS`), and the same for exact vs MC.
"""
from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from theorylab.errors import ParameterError, choice, derived_seed, positive_int, real_array, seed_int, single
from theorylab.psa import transition
from theorylab.psa.scoremodel import VARIANTS, ScoreModel, context_length, head_width, log_count


class PaperStatistics(NamedTuple):
    """Agreement statistics the paper quotes for the two-branch law vs Monte Carlo."""

    pearson_r: float
    median_rel_err: float


PAPER_STATISTICS = PaperStatistics(pearson_r=0.9876, median_rel_err=0.026)
"""PSA §7.9: on nine mean-field points the two-branch law predicts the simulated gamma_c with
Pearson r = 0.9876 and median relative error 2.6 % (the single copy of these numbers)."""

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


def _paired(x, y, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """Two float arrays of the same shape (NaN allowed: it marks a missing value)."""
    x, y = (real_array(name, v, allow_empty=True, allow_nan=True) for name, v in zip(names, (x, y)))
    if x.shape != y.shape:
        raise ParameterError(f"{names[0]} and {names[1]} must have the same shape (got {x.shape} and {y.shape})")
    return x, y


def pearson_r(x, y) -> float:
    """Pearson correlation of the finite pairs (NaN with fewer than 3); x and y of the same shape."""
    x, y = _paired(x, y, ("x", "y"))
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return float("nan")
    return float(np.corrcoef(x[ok], y[ok])[0, 1])


def relative_error(predicted, simulated) -> np.ndarray:
    """``|predicted - simulated| / |simulated|`` (NaN where either is missing); same shapes."""
    p, s = _paired(predicted, simulated, ("predicted", "simulated"))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.abs(p - s) / np.abs(s)


def _median(values) -> float:
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    return float(np.median(v)) if v.size else float("nan")


def validate_grid(points) -> list[tuple[float, int]]:
    """Check a grid of (dk, T) pairs: dk > 0, T an integer >= 3, at least one point."""
    try:
        pts = [tuple(p) for p in points]
    except TypeError:
        pts = []
    if not pts or any(len(p) != 2 for p in pts):
        raise ParameterError("grid must be a non-empty list of (dk, T) pairs")
    out = []
    for dk, T in pts:
        dk, T = single("dk", head_width(dk)), single("T", context_length(T))
        if not T.is_integer():
            raise ParameterError(f"T must be an integer >= 3 (got {T:g})")
        out.append((dk, int(T)))
    return out


def read_grid(path: str) -> list[tuple[float, int]]:
    """Read a grid file: CSV with columns ``dk`` and ``T`` (header row), or JSON ``[[dk, T], ...]``
    / ``[{"dk": .., "T": ..}, ...]`` (JSON values must be numbers; CSV cells are parsed as numbers)."""
    if not isinstance(path, str) or not path or not os.path.isfile(path):
        raise ParameterError(f"grid must be 'paper' or an existing CSV/JSON file (got {path!r})")
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise ParameterError(f"grid file {path!r} cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ParameterError(f"grid file {path!r} is not UTF-8 text") from None
    try:
        if path.lower().endswith(".json"):
            data = json.loads(text)
            pts = [(d["dk"], d["T"]) if isinstance(d, dict) else tuple(d) for d in data]
            if any(isinstance(v, (bool, str)) or not isinstance(v, (int, float)) for p in pts for v in p):
                raise TypeError("values must be numbers")
        else:
            pts = [(r["dk"], r["T"]) for r in csv.DictReader(text.splitlines())]
        pts = [(float(dk), float(T)) for dk, T in pts]
    except (KeyError, TypeError, ValueError, RecursionError, csv.Error) as exc:
        raise ParameterError(f"grid file {path!r} must hold columns dk and T of numbers "
                             f"({type(exc).__name__})") from None
    return validate_grid(pts)


def compare_grid(variant: str, points=PAPER_GRID, *, samples: int = 20000, seed: int = 0,
                 c: float | None = None, progress: bool | None = None) -> Comparison:
    """Law, annealed, exact and Monte Carlo gamma_c over ``points``; r and median relative error.

    Parameters
    ----------
    variant : score-model variant.  points : iterable of (dk, T).
    samples : Monte Carlo samples per point.  seed : in [0, 2^64); point i uses ``(seed + i) mod 2^64``.
    c : condensation constant for the t4-only condensed branch (default: the library's).
    """
    from theorylab.sim.competition import mc_gamma_c
    from theorylab.sim.exact import exact_gamma_c

    choice("variant", variant, VARIANTS)
    pts = validate_grid(points)
    samples = positive_int("samples", samples)
    seed = seed_int("seed", seed)
    kwargs = {} if c is None else {"c": c}
    rows = []
    for i, (dk, T) in enumerate(pts):
        law = transition.gamma_c(variant, dk, T, **kwargs)
        mc = mc_gamma_c(variant, dk, T, samples=samples, seed=derived_seed(seed, i), progress=progress)
        exact = exact_gamma_c(variant, dk, T)
        row = {"dk": dk, "T": T, "L": float(log_count(T)), "branch": str(law.branch),
               "law_gamma_c": float(law.gamma_c), "annealed_gamma_c": float(transition.annealed_gamma_c(variant, dk, T)),
               "exact_gamma_c": exact, "mc_gamma_c": mc.gamma_c, "mc_ci_low": mc.ci_low,
               "mc_ci_high": mc.ci_high, "seed": derived_seed(seed, i)}
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
    g = real_array("gammas", gammas, low=0)
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
    """Calibrate c on condensed points (see :class:`Calibration`); point i uses seed + i (mod 2^64)."""
    from theorylab.sim.competition import mc_gamma_c
    from theorylab.sim.exact import exact_gamma_c

    simulate = simulate or mc_gamma_c
    pts = validate_grid(points)
    samples = positive_int("samples", samples)
    seed = seed_int("seed", seed)
    rows = []
    for i, (dk, T) in enumerate(pts):
        if dk >= float(transition.crossover_dk(T)):
            raise ParameterError(f"calibration points must be condensed, dk < 8L (got dk={dk:g}, T={T})")
        plateau = float(transition.argmax_plateau(dk, T))
        gf = float(transition.freezing_coupling(T))
        mc = simulate("t4-only", dk, T, samples=samples, seed=derived_seed(seed, i), level=plateau / 2.0)
        ex = exact_gamma_c("t4-only", dk, T, level=plateau / 2.0)
        rows.append({"dk": dk, "T": T, "plateau": plateau, "g_freeze": gf, "mc_g_half": mc.gamma_c,
                     "mc_ci_low": mc.ci_low, "mc_ci_high": mc.ci_high, "exact_g_half": ex,
                     "c_mc": mc.gamma_c / gf, "c_exact": ex / gf, "seed": derived_seed(seed, i)})
    c_i = np.array([r["c_mc"] for r in rows])
    half = np.array([(r["mc_ci_high"] - r["mc_ci_low"]) / 2.0 / r["g_freeze"] for r in rows])
    c = float(np.mean(c_i))
    hw = float(np.sqrt(np.sum(half**2)) / len(rows))
    spread = float(np.std(c_i, ddof=1)) if c_i.size > 1 else float("nan")
    return Calibration(c, c - hw, c + hw, spread,
                       float(np.mean([r["c_exact"] for r in rows])), tuple(rows), samples, seed)


def band_edge_check(dk: float = 128.0, T: int = 512, gammas=(2.0, 2.245, 2.5, 3.0, 3.5, 4.0), *,
                    samples: int = 20000, seed: int = 0, band=None, simulate=None, exact=None) -> list[dict]:
    """Above the annealed band's upper root: annealed vs exact vs simulated mass at each g (t4-only).

    The t4-only annealed mass falls back below 1/2 above ``t4_band(dk, T)[1]``
    (2.245 at (128, 512)); the quenched model (quadrature, simulation) says otherwise.
    ``band``, ``simulate``, ``exact`` default to the library's ``t4_band``, ``simulate_mass``,
    ``exact_mass`` (replaceable for mutation tests). One row per g, with the upper root.
    """
    from theorylab.sim.competition import simulate_mass
    from theorylab.sim.exact import exact_mass

    band, simulate, exact = band or transition.t4_band, simulate or simulate_mass, exact or exact_mass
    g = real_array("gammas", gammas, low=0)
    seed = seed_int("seed", seed)
    curve = simulate("t4-only", dk, T, g, samples=samples, seed=seed)
    ex = exact("t4-only", dk, T, g)
    ann = annealed_mass("t4-only", dk, T, g)
    upper = float(np.asarray(band(dk, T)[1]))
    return [{"gamma": float(gi), "upper_root": upper, "above_upper_root": bool(gi >= upper),
             "annealed_mass": float(a), "exact_mass": float(e), "mc_mass": float(m), "se": float(se)}
            for gi, a, e, m, se in zip(g, ann, ex, curve.mass, curve.se)]


def plateau_check(points=((16.0, 64), (32.0, 512), (40.0, 512), (64.0, 512)), *, g: float = 10.0,
                  samples: int = 200_000, seed: int = 0, plateau=None, simulate=None) -> list[dict]:
    """Argmax plateau ``Phi(sqrt(dk)/2)^m`` vs the simulated and exact mass at large g (t4-only).

    Point i uses seed ``seed + i`` (mod 2^64). ``plateau``/``simulate`` default to the library's
    ``argmax_plateau``/``simulate_mass``. Rows: plateau, exact M(g), MC M(g) with SE,
    ``mc_minus_plateau`` and ``z = (MC - plateau) / SE`` (NaN when SE = 0: every sample gave the same
    mass), ``exact_minus_plateau``.
    """
    from theorylab.sim.competition import simulate_mass
    from theorylab.sim.exact import exact_mass

    plateau = plateau or transition.argmax_plateau
    simulate = simulate or simulate_mass
    seed = seed_int("seed", seed)
    rows = []
    for i, (dk, T) in enumerate(validate_grid(points)):
        p = float(np.asarray(plateau(dk, T)))
        curve = simulate("t4-only", dk, T, [g], samples=samples, seed=derived_seed(seed, i))
        mc, se, ex = float(curve.mass[0]), float(curve.se[0]), float(exact_mass("t4-only", dk, T, g))
        rows.append({"dk": dk, "T": T, "gamma": g, "plateau": p, "exact_mass": ex, "mc_mass": mc, "se": se,
                     "mc_minus_plateau": mc - p, "z": (mc - p) / se if se > 0 else float("nan"),
                     "exact_minus_plateau": ex - p,
                     "seed": derived_seed(seed, i)})
    return rows


def gap_crossover(model: ScoreModel | None = None) -> float:
    """Reduced-model T3 -> T4 crossover: the g > 0 where the degree-1 (T3) gap term equals the
    degree-2 (T4) term, ``gap_poly[1] g = gap_poly[2] g^2`` (PSA §6.2, §10; 1 for t3-inclusive).

    ``model`` defaults to ``score_model("t3-inclusive")``, looked up at call time. NaN if the two
    terms do not cross at a positive g.
    """
    from theorylab.psa.scoremodel import score_model

    model = model or score_model("t3-inclusive")
    c = tuple(model.gap_poly) + (0.0, 0.0)
    return float(c[1] / c[2]) if c[1] * c[2] > 0 else float("nan")


CROSSOVER_BATCHES = 20
"""Contiguous sample batches for the crossover's batch-means standard errors."""


@dataclass(frozen=True, eq=False)
class Crossover:
    """T3 -> T4 gap crossover measured at the vector level beside the reduced model's.

    Attributes
    ----------
    closed_form : :func:`gap_crossover` of the model (1 for the spec).
    measured : ``gap[T3] / gap[T4]`` of the unit-coupling channel gaps over all samples (the
        T3 gap is ``g gap3``, the T4 gap ``g^2 gap4``, so they meet at ``g = gap3 / gap4``).
    se, ci_low, ci_high : batch-means standard error and 95 % t-interval of ``measured``.
    cov34, cov34_se : measured bulk Cov(c3, c4) at unit coupling (``Cov(T3, T4) / g^3``) and SE.
    cov34_model : the reduced model's ``Cov(T3, T4) / g^3`` (2 for the spec).
    batch_crossover, batch_cov34 : the per-batch values (raw evidence).
    dk, T, theta, samples, seed : what was simulated.
    """

    closed_form: float
    measured: float
    se: float
    ci_low: float
    ci_high: float
    cov34: float
    cov34_se: float
    cov34_model: float
    batch_crossover: np.ndarray
    batch_cov34: np.ndarray
    dk: int
    T: int
    theta: object
    samples: int
    seed: int


def t3_t4_crossover(dk: int = 64, T: int = 512, *, theta=0.0, samples: int = 2000, seed: int = 0,
                    placement: str = "post", model: ScoreModel | None = None) -> Crossover:
    """T3 -> T4 crossover along g, measured in the vector-level induction simulation (PSA §10, A10.2 C7).

    Route: :func:`theorylab.sim.induction.simulate` draws canonical induction streams
    (isotropic tokens, optional RoPE ``theta``), :func:`~theorylab.sim.induction.channel_moments`
    measures the unit-coupling channel gaps (target minus the mean of the sample's own T - 2
    distractors) and the bulk within-sample Cov(c3, c4). Nothing here reads the reduced model
    except ``closed_form`` and ``cov34_model``, which are reported beside the measurement.
    Standard errors: batch means over :data:`CROSSOVER_BATCHES` contiguous batches.

    Parameters
    ----------
    dk : even head width >= 2.  T : context length, integer >= 9 (``induction.BULK_MIN_T``).
    theta : RoPE angle(s) as in :func:`theorylab.sim.induction.frequencies` (0 = no RoPE).
    samples : >= 2 per batch (40).  seed : in [0, 2^64).  placement : "post" (paper) or "pre".
    model : reduced model for ``closed_form`` (default the library's t3-inclusive).
    """
    from dataclasses import replace

    from scipy.stats import t as student_t

    from theorylab.sim import induction

    samples = positive_int("samples", samples, low=2 * CROSSOVER_BATCHES)
    positive_int("T", T, low=induction.BULK_MIN_T)
    sample = induction.simulate(dk, T, theta, samples=samples, seed=seed, placement=placement)
    t3, t4 = induction.CHANNELS.index("T3"), induction.CHANNELS.index("T4")

    def measure(s) -> tuple[float, float]:
        mom = induction.channel_moments(s)
        return float(mom.gap[t3] / mom.gap[t4]), float(mom.bulk_cov34)

    crossing, cov = measure(sample)
    per = np.array([measure(replace(sample, channels=sample.channels[i], target=sample.target[i]))
                    for i in np.array_split(np.arange(samples), CROSSOVER_BATCHES)])
    se = per.std(axis=0, ddof=1) / np.sqrt(CROSSOVER_BATCHES)
    half = float(student_t.ppf(0.975, CROSSOVER_BATCHES - 1) * se[0])
    cov_model = float(induction.reduced_channel_model().cov34_at(1.0))
    return Crossover(gap_crossover(model), crossing, float(se[0]), crossing - half, crossing + half, cov,
                     float(se[1]), cov_model, per[:, 0], per[:, 1], sample.dk, sample.T, theta, samples, seed)


__all__ = ["PAPER_GRID", "PAPER_STATISTICS", "PaperStatistics", "Comparison", "compare_grid", "pearson_r",
           "relative_error", "read_grid", "validate_grid", "CALIBRATION_GRID", "Calibration",
           "calibrate_condensation_c", "annealed_mass", "band_edge_check", "plateau_check", "gap_crossover",
           "CROSSOVER_BATCHES", "Crossover", "t3_t4_crossover"]

"""Prediction vs simulation for the PSA reduced score model (PSA §6.7 "two-branch law vs Monte Carlo").

Per grid point (dk, T) three routes to the critical coupling:

* the **law** the paper quotes (:func:`theorylab.psa.transition.gamma_c`: two-branch
  law for t4-only, annealed root otherwise) and the plain annealed root;
* the **exact** reduced-model root of ``M(g) = 1/2`` by quadrature
  (:func:`theorylab.psa.quadrature.exact_gamma_c`);
* the **Monte Carlo** root with its batch-means confidence interval
  (:func:`theorylab.psa.montecarlo.mc_gamma_c`); point ``i`` of a grid uses seed
  ``(seed + i) mod 2^64`` so the points are independent (any seed in [0, 2^64) is valid).

Across the grid: Pearson r and the median relative error ``|law - MC| / MC`` (the
paper's :data:`PAPER_STATISTICS`), and the same for exact vs MC.
"""
from __future__ import annotations

import csv
import json
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from theorylab._io import input_cost, parse_json, read_text
from theorylab._results import to_frame
from theorylab.errors import (ParameterError, choice, derived_seed, describe, positive_int, real_array, real_scalar,
                              seed_int)
from theorylab.psa import transition
from theorylab.psa.scoremodel import VARIANTS, ScoreModel, _log_count, context_length, head_width, log_count, score_model
from theorylab.resources import Cost


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
    variant, samples, seed : what was simulated (samples 0: no Monte Carlo).
    rows : one dict per point (dk, T, L, branch, observable, law_gamma_c, annealed_gamma_c,
        exact_gamma_c, mc_gamma_c, mc_ci_low, mc_ci_high, rel_err_law, rel_err_exact, rel_err_law_exact).
    pearson_r, median_rel_err, max_rel_err : law vs MC across the grid.
    exact_pearson_r, exact_median_rel_err : exact quadrature vs MC across the grid.
    observable : the transition observable simulated (:mod:`theorylab.psa.observables`).
    law_exact_pearson_r, law_exact_median_rel_err, law_exact_max_rel_err : law vs exact.
    """

    variant: str
    samples: int
    seed: int
    rows: tuple[dict, ...]
    pearson_r: float
    median_rel_err: float
    exact_pearson_r: float
    exact_median_rel_err: float
    observable: str = "mass-half"
    max_rel_err: float = float("nan")
    law_exact_pearson_r: float = float("nan")
    law_exact_median_rel_err: float = float("nan")
    law_exact_max_rel_err: float = float("nan")

    def to_frame(self):
        """:attr:`rows` as a ``pandas.DataFrame`` (pandas: the optional extra ``theorylab[pandas]``)."""
        return to_frame(list(self.rows))

    def summary(self) -> dict:
        return {"variant": self.variant, "observable": self.observable, "samples": self.samples, "seed": self.seed,
                "pearson_r": self.pearson_r, "median_rel_err": self.median_rel_err, "max_rel_err": self.max_rel_err,
                "exact_pearson_r": self.exact_pearson_r, "exact_median_rel_err": self.exact_median_rel_err,
                "law_exact_pearson_r": self.law_exact_pearson_r,
                "law_exact_median_rel_err": self.law_exact_median_rel_err,
                "law_exact_max_rel_err": self.law_exact_max_rel_err}


def _paired(x, y, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """Two float arrays of the same shape (NaN allowed: it marks a missing value)."""
    x, y = (real_array(name, v, allow_empty=True, allow_nan=True) for name, v in zip(names, (x, y)))
    if x.shape != y.shape:
        raise ParameterError(f"{names[0]} and {names[1]} must have the same shape (got {x.shape} and {y.shape})")
    return x, y


def pearson_r(x, y) -> float:
    """Pearson correlation of the finite pairs (NaN with fewer than 3); x and y of the same shape."""
    return _pearson_r(*_paired(x, y, ("x", "y")))


def _pearson_r(x: np.ndarray, y: np.ndarray) -> float:
    """Kernel of :func:`pearson_r` (two float arrays of one shape)."""
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return float("nan")
    return float(np.corrcoef(x[ok], y[ok])[0, 1])


def relative_error(predicted, simulated) -> np.ndarray:
    """``|predicted - simulated| / |simulated|`` elementwise.

    Parameters
    ----------
    predicted, simulated : arrays of reals of one shape; NaN marks a missing value (its error is NaN).
        ``simulated`` must be nonzero wherever it is not NaN: the error relative to 0 is undefined.

    Raises
    ------
    ParameterError
        On a zero ``simulated`` value, shapes that differ, values that are not real numbers or
        infinite, or an error beyond the float range (a huge difference over a tiny ``simulated``).
    """
    return _relative_errors(*_paired(predicted, simulated, ("predicted", "simulated")))


def _relative_error(predicted: float, simulated: float) -> float:
    """:func:`relative_error` of two floats (NaN marks a missing value)."""
    return float(_relative_errors(np.asarray(predicted, dtype=float), np.asarray(simulated, dtype=float)))


def _relative_errors(p: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Kernel of :func:`relative_error` (float arrays of one shape); refuses a zero ``s`` and an overflow."""
    if np.any(s == 0):
        raise ParameterError("simulated must be nonzero (or NaN for a missing value): the error relative to 0 is "
                             "undefined (got 0)")
    with np.errstate(invalid="ignore", over="ignore"):
        out = np.abs(p - s) / np.abs(s)
    if np.any(np.isinf(out)):
        raise ParameterError("predicted, simulated out of range: the relative error overflows the float range")
    return out


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
    dk = head_width([p[0] for p in pts])            # one vectorised check per column (fast on big grids)
    T = context_length([p[1] for p in pts])
    fractional = T != np.floor(T)
    if fractional.any():
        raise ParameterError(f"T must be an integer >= 3 (got {T[fractional][0]:g})")
    return [(d, int(t)) for d, t in zip(dk.tolist(), T.tolist())]


GRID_BYTES_PER_BYTE = 80.0
"""Peak bytes of the parsed points per byte of a grid file (a 4-byte line ``1,3\\n`` is ~300 bytes of tuples)."""


def read_grid_cost(path: str) -> Cost:
    """Peak memory and time of :func:`read_grid` on ``path`` (checked by the CLI before reading; any string is a
    valid path here -- a missing file costs nothing and :func:`read_grid` refuses it)."""
    if not isinstance(path, str):
        raise ParameterError(f"grid must be 'paper' or the path of a CSV/JSON grid file (got {describe(path)})")
    return input_cost(path, GRID_BYTES_PER_BYTE)


def read_grid(path: str, name: str = "grid") -> list[tuple[float, int]]:
    """Read a grid file: CSV with columns ``dk`` and ``T`` (header row; other columns ignored), or JSON
    ``[[dk, T], ...]`` / ``[{"dk": .., "T": ..}, ...]``.

    A malformed file (binary, not UTF-8, not JSON, wrong shape or types, no points) raises
    :class:`ParameterError` naming ``name`` (the CLI passes ``"--grid"``), the file and what is wrong."""
    if not isinstance(path, str) or not path:
        raise ParameterError(f"{name} must be 'paper' or the path of a CSV/JSON grid file (got {path!r})")
    text = read_text(name, path)
    where = f"{name} file {path!r}"
    if path.lower().endswith(".json"):
        data = parse_json(text, where)
        if not isinstance(data, list):
            raise ParameterError(f"{where} must hold a JSON list of [dk, T] pairs (got a {type(data).__name__})")
        pts = []
        for i, entry in enumerate(data):
            pair = (entry.get("dk"), entry.get("T")) if isinstance(entry, dict) else \
                entry if isinstance(entry, list) else ()
            values = [_grid_number(x, text=False) for x in pair]
            if len(values) != 2 or None in values:
                raise ParameterError(f"{where}: entry {i} must be [dk, T] or {{\"dk\": dk, \"T\": T}} with two "
                                     f"numbers (got {json.dumps(entry)[:60]})")
            pts.append(tuple(values))
    else:
        rows = _csv_rows(text, where)
        header = [h.strip() for h in rows[0][1]] if rows else []
        if "dk" not in header or "T" not in header:
            raise ParameterError(f"{where} must be a CSV file whose header row names the columns dk and T "
                                 f"(or a .json file); got header {','.join(header)[:60]!r}")
        i_dk, i_T = header.index("dk"), header.index("T")
        pts = []
        for line, row in rows[1:]:
            values = [_grid_number(x) for x in (row[i_dk], row[i_T])] if len(row) == len(header) else None
            if values is None or None in values:
                raise ParameterError(f"{where}: line {line} must hold {len(header)} fields with numbers dk and T "
                                     f"(got {','.join(row)[:60]!r})")
            pts.append(tuple(values))
    if not pts:
        raise ParameterError(f"{where} holds no (dk, T) points")
    try:
        return validate_grid(pts)
    except ParameterError as exc:        # the same class (a ResourceError stays one), naming the file
        raise type(exc)(f"{where}: {exc}") from None


def _csv_rows(text: str, where: str) -> list[tuple[int, list[str]]]:
    """The non-blank rows of a CSV text with the line each starts on; a field spanning lines is refused.

    A quoted field may hold a line break (``"12\\n8"``); read line by line it would join into
    ``128``. A grid's fields are numbers, so such a field is an error, named with its line."""
    reader = csv.reader(text.splitlines(keepends=True), strict=True)
    rows, start = [], 1
    try:
        for row in reader:
            for field in row:
                if "\n" in field or "\r" in field:
                    raise ParameterError(f"{where}: line {start}: field {field[:40]!r} spans "
                                         f"lines (a quoted line break); grid fields are single numbers")
            if any(c.strip() for c in row):
                rows.append((start, row))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise ParameterError(f"{where} is not a CSV grid (line {reader.line_num}: {exc})") from None
    return rows


def _grid_number(x, text: bool = True) -> float | None:
    """``x`` as a float if it is a number (or, with ``text``, numeric text), else None."""
    if isinstance(x, bool) or not isinstance(x, (int, float, str) if text else (int, float)):
        return None
    try:
        return float(x)
    except (ValueError, OverflowError):
        return None


def compare_grid_cost(points, samples: int, observable: str = "mass-half", monte_carlo: bool = True) -> Cost:
    """Peak memory and run time of :func:`compare_grid` on validated ``points``: per point one
    Monte Carlo and one exact coupling of ``observable`` (:func:`theorylab.psa.observables.measure_cost`)."""
    from theorylab.psa.observables import measure_cost

    points, samples = validate_grid(points), positive_int("samples", samples)
    per_T = Counter(T for _, T in points)
    costs = {T: (measure_cost(observable, T, method="mc", samples=samples) if monte_carlo else Cost())
             .then(measure_cost(observable, T, method="exact")) for T in per_T}
    return Cost(max((c.memory for c in costs.values()), default=0.0),
                sum(c.seconds * per_T[T] for T, c in costs.items()), f"{len(points)} grid points x {samples} samples")


def compare_grid(variant: str, points=PAPER_GRID, *, samples: int = 20000, seed: int = 0,
                 c: float | None = None, progress: bool | None = None, observable: str = "mass-half",
                 monte_carlo: bool = True) -> Comparison:
    """Law, annealed, exact and Monte Carlo gamma_c over ``points``; r, median and max relative error.

    Parameters
    ----------
    variant : score-model variant.  points : iterable of (dk, T).
    samples : Monte Carlo samples per point.  seed : in [0, 2^64); point i uses ``(seed + i) mod 2^64``.
    c : condensation constant for the t4-only condensed branch (default: the library's).
    observable : the simulated transition observable (:data:`theorylab.psa.observables.OBSERVABLE_NAMES`;
        default ``mass-half``, the root of M(g) = 1/2), measured exactly and by Monte Carlo.
    monte_carlo : run the Monte Carlo (False: law vs exact only; the MC columns are NaN).

    Examples
    --------
    The law against exact quadrature on two points of PSA Table 3 (no Monte Carlo):

    >>> from theorylab.psa import compare_grid
    >>> cmp = compare_grid("t4-only", [(64, 512), (128, 512)], monte_carlo=False)
    >>> [(r["dk"], round(r["law_gamma_c"], 4), round(r["exact_gamma_c"], 4)) for r in cmp.rows]
    [(64.0, 1.03, 1.0239), (128.0, 0.7867, 0.7863)]
    """
    from theorylab.psa.observables import _measure_exact, measure, observable as lookup

    model = score_model(variant)
    lookup(observable)
    pts = validate_grid(points)
    samples = positive_int("samples", samples)
    seed = seed_int("seed", seed)
    c = transition.CONDENSATION_C if c is None else real_scalar("c", c, low=0, low_inclusive=False)
    nan = float("nan")
    rows = []
    for i, (dk, T) in enumerate(pts):
        dk_a, T_a = np.asarray(dk, dtype=float), np.asarray(float(T))       # the validated point as 0-d arrays
        law = transition._gamma_c(model, dk_a, T_a, c)
        exact = _measure_exact(observable, model, dk, T).gamma_c
        point_seed = derived_seed(seed, i)
        mc = measure(observable, variant, dk, T, method="mc", samples=samples, seed=point_seed,
                     progress=progress) if monte_carlo else None
        row = {"dk": dk, "T": T, "L": float(_log_count(T_a)), "branch": str(law.branch), "observable": observable,
               "law_gamma_c": float(law.gamma_c),
               "annealed_gamma_c": float(transition._annealed_gamma_c(model, dk_a, T_a)),
               "exact_gamma_c": exact, "mc_gamma_c": mc.gamma_c if mc else nan, "mc_ci_low": mc.ci_low if mc else nan,
               "mc_ci_high": mc.ci_high if mc else nan, "seed": point_seed}
        row["rel_err_law"] = _relative_error(row["law_gamma_c"], row["mc_gamma_c"])
        row["rel_err_exact"] = _relative_error(exact, row["mc_gamma_c"])
        row["rel_err_law_exact"] = _relative_error(row["law_gamma_c"], exact)
        rows.append(row)
    law_v = np.array([r["law_gamma_c"] for r in rows])
    mc_v = np.array([r["mc_gamma_c"] for r in rows])
    ex_v = np.array([r["exact_gamma_c"] for r in rows])
    return Comparison(variant, samples if monte_carlo else 0, seed, tuple(rows), _pearson_r(law_v, mc_v),
                      _median([r["rel_err_law"] for r in rows]), _pearson_r(ex_v, mc_v),
                      _median([r["rel_err_exact"] for r in rows]), observable, _max([r["rel_err_law"] for r in rows]),
                      _pearson_r(law_v, ex_v), _median([r["rel_err_law_exact"] for r in rows]),
                      _max([r["rel_err_law_exact"] for r in rows]))


def _max(values) -> float:
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    return float(np.max(v)) if v.size else float("nan")


# --- findings beyond the paper (docs/simulation.md) ---------------------------------

CALIBRATION_GRID: tuple[tuple[float, int], ...] = (
    tuple((16.0, T) for T in (12, 16, 24, 32, 48, 64)) + tuple((32.0, T) for T in (128, 256, 512)))
"""The earlier nine condensed points (dk < 8L) of the half-plateau calibration (c = 0.854):
dk = 16 x T in {12, 16, 24, 32, 48, 64} and dk = 32 x T in {128, 256, 512}; the argmax plateau
is >= 0.20 at each, so the half-plateau observable is defined. The library's calibration now
uses :data:`CONDENSED_GRID`; this grid stays for comparison (docs/simulation.md, finding (d))."""


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


CONDENSED_GRID: tuple[tuple[float, int], ...] = tuple((dk, T) for dk in (8.0, 16.0, 32.0) for T in (64, 512, 2048))
"""Nine condensed points for the condensation constant: dk in {8, 16, 32} x T in {64, 512, 2048}
(8L = 33.1, 49.9, 61.0, so dk < 8L at each), the T values of :data:`PAPER_GRID` below the crossover.
The paper's nine condensed points are not in its summary; these are ours."""


CONDENSED_SCAN: tuple[tuple[float, int], ...] = tuple((16.0, 2**k) for k in range(4, 12))
"""Eight condensed points along T at dk = 16: T in {16, 32, ..., 2048} (dk < 8L at each), the scan
of study (b) and certificate P24; the paper's eight dk = 16 points are not in its summary."""


@dataclass(frozen=True)
class Calibration:
    """The condensation constant c of one observable on condensed points (PSA §6.7).

    Per point ``c_i = g_obs / (L/2)^(1/4)``: the observable's coupling over the freezing coupling.
    ``c`` is the mean of the c_i from the **exact quadrature** (the calibration: deterministic),
    ``spread`` their standard deviation across points (the observable's own drift with T and dk;
    the paper quotes 0.741 +/- 0.015), ``n`` the points where the observable exists. The Monte
    Carlo confirms it: ``mc_c`` is the mean of the simulated c_i, ``ci_low, ci_high`` its 95 %
    statistical interval from the per-point batch-means intervals (NaN without Monte Carlo).
    """

    observable: str
    c: float
    spread: float
    n: int
    mc_c: float
    ci_low: float
    ci_high: float
    rows: tuple[dict, ...]
    samples: int
    seed: int


def calibrate_condensation_c(points=CONDENSED_GRID, *, observable: str | None = None, samples: int = 20000,
                             seed: int = 0, monte_carlo: bool = True, progress: bool | None = None) -> Calibration:
    """Calibrate c on condensed points (t4-only; see :class:`Calibration`); point i uses seed + i (mod 2^64).

    ``observable`` defaults to :data:`theorylab.psa.transition.CONDENSATION_OBSERVABLE` (the one the
    library's ``CONDENSATION_C`` is calibrated with); any name of
    :data:`theorylab.psa.observables.OBSERVABLE_NAMES` is allowed.
    """
    from theorylab.psa.observables import measure, observable as lookup

    observable = observable or transition.CONDENSATION_OBSERVABLE
    lookup(observable)
    pts = validate_grid(points)
    samples = positive_int("samples", samples)
    seed = seed_int("seed", seed)
    nan = float("nan")
    rows = []
    for i, (dk, T) in enumerate(pts):
        if dk >= float(transition.crossover_dk(T)):
            raise ParameterError(f"calibration points must be condensed, dk < 8L (got dk={dk:g}, T={T})")
        gf = float(transition.freezing_coupling(T))
        ex = measure(observable, "t4-only", dk, T)
        mc = measure(observable, "t4-only", dk, T, method="mc", samples=samples, seed=derived_seed(seed, i),
                     progress=progress) if monte_carlo else None
        rows.append({"dk": dk, "T": T, "g_freeze": gf, "level": ex.level, "exact_gamma_c": ex.gamma_c,
                     "mc_gamma_c": mc.gamma_c if mc else nan, "mc_ci_low": mc.ci_low if mc else nan,
                     "mc_ci_high": mc.ci_high if mc else nan, "c_exact": ex.gamma_c / gf,
                     "c_mc": mc.gamma_c / gf if mc else nan, "seed": derived_seed(seed, i)})
    c_i = np.array([r["c_exact"] for r in rows])
    ok = np.isfinite(c_i)
    c = float(np.mean(c_i[ok])) if ok.any() else nan
    spread = float(np.std(c_i[ok], ddof=1)) if ok.sum() > 1 else nan
    mc_i = np.array([r["c_mc"] for r in rows])
    half = np.array([(r["mc_ci_high"] - r["mc_ci_low"]) / 2.0 / r["g_freeze"] for r in rows])
    if monte_carlo and np.all(np.isfinite(mc_i[ok])) and np.all(np.isfinite(half[ok])) and ok.any():
        mc_c = float(np.mean(mc_i[ok]))
        hw = float(np.sqrt(np.sum(half[ok] ** 2)) / ok.sum())
        ci = (mc_c - hw, mc_c + hw)
    else:
        mc_c, ci = nan, (nan, nan)
    return Calibration(observable, c, spread, int(ok.sum()), mc_c, ci[0], ci[1], tuple(rows),
                       samples if monte_carlo else 0, seed)


def band_edge_check(dk: float = 128.0, T: int = 512, gammas=(2.0, 2.245, 2.5, 3.0, 3.5, 4.0), *,
                    samples: int = 20000, seed: int = 0) -> list[dict]:
    """Above the annealed band's upper root: annealed vs exact vs simulated mass at each g (t4-only).

    The t4-only annealed mass falls back below 1/2 above ``t4_band(dk, T)[1]``
    (2.245 at (128, 512)); the quenched model (quadrature, simulation) says otherwise: the rows hold
    :func:`annealed_mass`, :func:`theorylab.psa.quadrature.exact_mass` and
    :func:`theorylab.psa.montecarlo.simulate_mass` at each g. One row per g, with the upper root
    (:func:`theorylab.psa.transition.t4_band`).
    """
    from theorylab.psa.montecarlo import simulate_mass
    from theorylab.psa.quadrature import exact_mass

    g = real_array("gammas", gammas, low=0)
    seed = seed_int("seed", seed)
    curve = simulate_mass("t4-only", dk, T, g, samples=samples, seed=seed)
    ex = exact_mass("t4-only", dk, T, g)
    ann = annealed_mass("t4-only", dk, T, g)
    upper = float(np.asarray(transition.t4_band(dk, T)[1]))
    return [{"gamma": float(gi), "upper_root": upper, "above_upper_root": bool(gi >= upper),
             "annealed_mass": float(a), "exact_mass": float(e), "mc_mass": float(m), "se": float(se)}
            for gi, a, e, m, se in zip(g, ann, ex, curve.mass, curve.se)]


def plateau_check(points=((16.0, 64), (32.0, 512), (40.0, 512), (64.0, 512)), *, g: float = 10.0,
                  samples: int = 200_000, seed: int = 0) -> list[dict]:
    """Argmax plateau ``Phi(sqrt(dk)/2)^m`` vs the simulated and exact mass at large g (t4-only).

    Point i uses seed ``seed + i`` (mod 2^64). Rows: plateau
    (:func:`theorylab.psa.transition.argmax_plateau`), exact M(g), MC M(g)
    (:func:`theorylab.psa.montecarlo.simulate_mass`) with SE,
    ``mc_minus_plateau`` and ``z = (MC - plateau) / SE`` (NaN when SE = 0: every sample gave the same
    mass), ``exact_minus_plateau``.
    """
    from theorylab.psa.montecarlo import simulate_mass
    from theorylab.psa.quadrature import exact_mass

    seed = seed_int("seed", seed)
    rows = []
    for i, (dk, T) in enumerate(validate_grid(points)):
        p = float(np.asarray(transition.argmax_plateau(dk, T)))
        curve = simulate_mass("t4-only", dk, T, [g], samples=samples, seed=derived_seed(seed, i))
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
    cov34, cov34_se : measured bulk Cov(c3, c4) at unit coupling (``Cov(T3, T4) / g^3``) and its
        batch-means SE.
    cov34_model : the reduced model's ``Cov(T3, T4) / g^3`` (2 for the spec).
    batch_crossover, batch_cov34 : the per-batch values (raw evidence).
    dk, T, theta, samples, seed : what was simulated.
    se_per_sample, cov34_se_per_sample : the same two standard errors from the per-sample spread
        (delta method for the ratio), an estimate independent of the batching.
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
    se_per_sample: float = float("nan")
    cov34_se_per_sample: float = float("nan")


def t3_t4_crossover(dk: int = 64, T: int = 512, *, theta=0.0, samples: int = 2000, seed: int = 0,
                    placement: str = "post", model: ScoreModel | None = None) -> Crossover:
    """T3 -> T4 crossover along g, measured in the vector-level induction simulation (PSA §10, A10.2 C7).

    Route: :func:`theorylab.psa.induction.simulate` draws canonical induction streams
    (isotropic tokens, optional RoPE ``theta``), :func:`~theorylab.psa.induction.channel_moments`
    measures the unit-coupling channel gaps (target minus the mean of the sample's own T - 2
    distractors) and the bulk within-sample Cov(c3, c4). Nothing here reads the reduced model
    except ``closed_form`` and ``cov34_model``, which are reported beside the measurement.
    Standard errors: batch means over :data:`CROSSOVER_BATCHES` contiguous batches.

    Parameters
    ----------
    dk : even head width >= 2.  T : context length, integer >= 9 (``induction.BULK_MIN_T``).
    theta : RoPE angle(s) as in :func:`theorylab.psa.induction.frequencies` (0 = no RoPE).
    samples : >= 2 per batch (40).  seed : in [0, 2^64).  placement : "post" (paper) or "pre".
    model : reduced model for ``closed_form`` (default the library's t3-inclusive).
    """
    from dataclasses import replace

    from scipy.stats import t as student_t

    from theorylab.psa import induction

    samples = positive_int("samples", samples, low=2 * CROSSOVER_BATCHES)
    positive_int("T", T, low=induction.BULK_MIN_T)
    sample = induction.simulate(dk, T, theta, samples=samples, seed=seed, placement=placement)
    t3, t4 = induction.CHANNELS.index("T3"), induction.CHANNELS.index("T4")

    def measure(s) -> tuple[float, float, induction.ChannelMoments]:
        mom = induction.channel_moments(s)
        return float(mom.gap[t3] / mom.gap[t4]), float(mom.bulk_cov34), mom

    crossing, cov, mom = measure(sample)
    v = mom.gap_cov                                           # delta method for gap3 / gap4
    se_ratio = float(np.sqrt(v[t3, t3] - 2 * crossing * v[t3, t4] + crossing**2 * v[t4, t4]) / mom.gap[t4])
    per = np.array([measure(replace(sample, channels=sample.channels[i], target=sample.target[i]))[:2]
                    for i in np.array_split(np.arange(samples), CROSSOVER_BATCHES)])
    se = per.std(axis=0, ddof=1) / np.sqrt(CROSSOVER_BATCHES)
    half = float(student_t.ppf(0.975, CROSSOVER_BATCHES - 1) * se[0])
    cov_model = float(induction.reduced_channel_model().cov34_at(1.0))
    return Crossover(gap_crossover(model), crossing, float(se[0]), crossing - half, crossing + half, cov,
                     float(se[1]), cov_model, per[:, 0], per[:, 1], sample.dk, sample.T, theta, samples, seed,
                     se_per_sample=se_ratio, cov34_se_per_sample=float(mom.bulk_cov34_se))


__all__ = ["PAPER_GRID", "PAPER_STATISTICS", "PaperStatistics", "Comparison", "compare_grid", "pearson_r",
           "relative_error", "read_grid", "validate_grid", "CALIBRATION_GRID", "CONDENSED_GRID", "CONDENSED_SCAN", "Calibration",
           "calibrate_condensation_c", "annealed_mass", "band_edge_check", "plateau_check", "gap_crossover",
           "CROSSOVER_BATCHES", "Crossover", "t3_t4_crossover"]

"""The paper's grid comparison for the PSA reduced score model (PSA §6.7 "two-branch law vs Monte Carlo").

Per grid point (dk, T) three routes to the critical coupling:

* the **law** the paper quotes (:func:`theorylab.psa.transition.gamma_c`: two-branch
  law for t4-only, annealed root otherwise) and the plain annealed root;
* the **exact** reduced-model root of ``M(g) = 1/2`` by quadrature
  (:func:`theorylab.psa.quadrature.exact_gamma_c`);
* the **Monte Carlo** root with its batch-means confidence interval
  (:func:`theorylab.psa.mc_crossing.mc_gamma_c`); point ``i`` of a grid uses seed
  ``(seed + i) mod 2^64`` so the points are independent (any seed in [0, 2^64) is valid).

Across the grid: Pearson r and the median relative error ``|law - MC| / MC`` (the
paper's :data:`PAPER_STATISTICS`), and the same for exact vs MC. Grids come from
:data:`PAPER_GRID` or a CSV/JSON file (:func:`read_grid`). The findings beyond the paper
(calibration, band edge, plateau, T3 -> T4 crossover) are :mod:`theorylab.psa.compare`,
which also re-exports every public name of this module.
"""
from __future__ import annotations

import csv
import json
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from theorylab._io import input_cost, parse_json, read_text
from theorylab._results import scalar_output, to_frame
from theorylab.errors import (ParameterError, derived_seed, describe, positive_int, real_array, real_scalar,
                              seed_int)
from theorylab.psa import transition
from theorylab.psa.scoremodel import _context_length, _head_width, _log_count, score_model
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
    """Pearson correlation of the finite pairs (NaN with fewer than 3); x and y of the same shape.

    Examples
    --------
    Correlation of predicted and simulated values (NaN pairs are dropped):

    >>> import theorylab.psa as psa
    >>> round(psa.pearson_r([1.0, 2.0, 3.0, float('nan')], [1.1, 1.9, 3.2, 4.0]), 4)
    0.9907
    """
    return _pearson_r(*_paired(x, y, ("x", "y")))


def _pearson_r(x: np.ndarray, y: np.ndarray) -> float:
    """Kernel of :func:`pearson_r` (two float arrays of one shape)."""
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3:
        return float("nan")
    return float(np.corrcoef(x[ok], y[ok])[0, 1])


@scalar_output
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

    Examples
    --------
    Elementwise relative error of a prediction:

    >>> import theorylab.psa as psa
    >>> print(psa.relative_error([1.0, 2.1], [1.0, 2.0]).round(4))
    [0.   0.05]
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
    """Check a grid of (dk, T) pairs: dk > 0, T an integer >= 3, at least one point.

    Examples
    --------
    A grid as (dk, T) pairs, checked and normalised:

    >>> import theorylab.psa as psa
    >>> psa.validate_grid([(16, 64), (64.0, 512.0)])
    [(16.0, 64), (64.0, 512)]
    """
    try:
        pts = [tuple(p) for p in points]
    except TypeError:
        pts = []
    if not pts or any(len(p) != 2 for p in pts):
        raise ParameterError("grid must be a non-empty list of (dk, T) pairs")
    dk = _head_width([p[0] for p in pts])            # one vectorised check per column (fast on big grids)
    T = _context_length([p[1] for p in pts])
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
    :class:`ParameterError` naming ``name`` (the CLI passes ``"--grid"``), the file and what is wrong.

    Examples
    --------
    A CSV grid file of (dk, T) points:

    >>> import theorylab.psa as psa
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, 'grid.csv')
    >>> with open(path, 'w') as f:
    ...     _ = f.write('dk,T\\n16,64\\n64,512\\n')
    >>> psa.read_grid(path)
    [(16.0, 64), (64.0, 512)]
    >>> tmp.cleanup()
    """
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


__all__ = ["PAPER_GRID", "PAPER_STATISTICS", "PaperStatistics", "Comparison", "compare_grid", "compare_grid_cost",
           "pearson_r", "relative_error", "read_grid", "read_grid_cost", "validate_grid", "GRID_BYTES_PER_BYTE"]

"""PSA's sweep task: parameter sweeps of the reduced score model (registered with the engine as ``psa``).

The engine (:mod:`theorylab.sweep`) reads the spec, runs, stores and resumes; this module says
what a PSA sweep is (see docs/sweeps.md): its spec (the grid of variants, dk, T and, for a
mass sweep, g; the routes to compute; the level or observable that defines gamma_c; Monte Carlo
options), its points and seeds, its store columns, and how two stored routes are compared. The
computation of one group of points is :mod:`theorylab.psa.sweep_compute`. The engine finds this
module through :data:`theorylab.sweep.registry.TASKS`.

Two kinds of sweep:

* **gamma_c sweep** (no ``gamma`` axis): one point per (variant, dk, T); ``annealed``
  stores the law the variant is quoted with (:func:`theorylab.psa.transition.gamma_c`),
  ``exact`` the root of the exact mean target mass M(g) = level, ``mc`` the Monte Carlo root with its CI.
* **mass sweep** (``gamma`` axis): one point per (variant, dk, T, g); ``exact`` and
  ``mc`` store M(g) (and its standard error). ``annealed`` has no mass and is refused.

Seeds are per point, a hash of (sweep seed, variant, dk, T) (:func:`theorylab.sweep.tasks.point_seed`),
deliberately without g: all g of one (variant, dk, T) share their draws (common random numbers).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from theorylab.errors import ParameterError, choice, positive_int
from theorylab.psa.sweep_compute import (COMPUTE, DEFAULT_OBSERVABLE, HALF_PLATEAU, compute_curve, compute_group,
                                         compute_point, point_level, task_memory)
from theorylab.sweep.spec import (SWEEP_KEYS, SweepSpec, axis, check_points, check_tables, names, number,
                                  one_line, sweep_chunk_size, sweep_name, sweep_samples, sweep_seed)
from theorylab.sweep.tasks import point_seed

TASK = "psa"
GAMMA_MAX = 1e3
"""Largest coupling g the exact and Monte Carlo routes accept (:mod:`theorylab.psa.quadrature`,
:mod:`theorylab.psa.montecarlo`); ``tests/test_sweep_specs.py`` holds the two to it."""
MC_T_MAX = 2**31
"""Largest context length the Monte Carlo kernels accept (:mod:`theorylab.psa.montecarlo`)."""
FINE_POINTS_MAX = 4096
"""Largest ``mc.fine_points`` (the default is 32; each fine point costs a full Monte Carlo pass)."""
_SECTIONS = {
    "sweep": SWEEP_KEYS | {"compute", "c", "level", "observable"},
    "grid": {"variant", "dk", "T", "gamma"},
    "mc": None,  # validated against the Monte Carlo functions' signatures
}
PARAMETER_COLUMNS = (("variant", "TEXT NOT NULL"), ("dk", "REAL NOT NULL"), ("T", "REAL NOT NULL"),
                     ("gamma", "REAL"))
RESULT_COLUMNS = (
    ("law_gamma_c", "REAL"),       # the law the variant is quoted with (transition.gamma_c)
    ("law_branch", "TEXT"),        # mean-field | condensed | none
    ("exact_gamma_c", "REAL"),     # root of the exact (quadrature) mean mass = 1/2
    ("mc_gamma_c", "REAL"),        # root of the Monte Carlo mean mass = 1/2
    ("mc_ci_low", "REAL"),
    ("mc_ci_high", "REAL"),
    ("exact_mass", "REAL"),        # mass sweeps: exact mean target mass M(g)
    ("mc_mass", "REAL"),           # mass sweeps: Monte Carlo M(g)
    ("mc_se", "REAL"),             # its standard error
    ("mc_samples", "INTEGER"),
    ("level", "REAL"),             # gamma_c sweeps: the mass level whose crossing defines gamma_c
)
WHOLE_NUMBER_COLUMNS = ("dk", "T")
"""Parameter columns the store readers give as ints where whole."""
ROUTES = {"law": "law_gamma_c", "exact": "exact_gamma_c", "mc": "mc_gamma_c"}
"""The stored gamma_c routes by name (``theorylab plot compare --predicted/--simulated``)."""
__all__ = ["COMPUTE", "HALF_PLATEAU", "ROUTES", "PSASweepSpec", "Point", "spec_from_dict", "spec_from_canonical",
           "points", "fits", "default_chunk_size", "compute_group", "compute_point", "compute_curve",
           "point_level", "task_memory", "describe_request", "status_fields", "agreement", "compare_rows"]


@dataclass(frozen=True)
class PSASweepSpec(SweepSpec):
    """A validated PSA sweep: the grid, what to compute, samples and the sweep seed.

    Attributes
    ----------
    name : free text.
    variants, dk, T : grid axes (variant names; head widths > 0; context lengths >= 3).
    gamma : coupling axis of a mass sweep, or ``None`` for a gamma_c sweep.
    compute : subset of :data:`COMPUTE`.
    samples : Monte Carlo draws per point.
    seed : the sweep seed.
    c : condensation constant used by the t4-only two-branch law (resolved at load time,
        so a later change of the library default cannot mix two laws in one store).
    level : mass level defining the exact and Monte Carlo gamma_c (default 1/2), or
        ``"half-plateau"``: per point half the argmax plateau
        (:func:`theorylab.psa.quadrature.argmax_limit`), the same as ``observable = "half-plateau"``.
    mc : extra keyword options of the Monte Carlo functions, as sorted (key, value) pairs.
    chunk_size : points per task, or ``None`` for the automatic choice (not hashed:
        chunking never changes results).
    observable : the transition observable of the exact and Monte Carlo gamma_c
        (:data:`theorylab.psa.observables.OBSERVABLE_NAMES`; default ``mass-half``, the first
        g where the mass reaches ``level``). Other observables take no ``level``. Hashed only
        when not the default, so stores made before the key existed stay valid.
    """

    task = TASK   # a class attribute, not a field: the engine's task name (never in canonical())

    name: str
    variants: tuple[str, ...]
    dk: tuple[float, ...]
    T: tuple[float, ...]
    gamma: tuple[float, ...] | None
    compute: tuple[str, ...]
    samples: int
    seed: int
    c: float
    level: float | str = 0.5
    mc: tuple[tuple[str, Any], ...] = ()
    chunk_size: int | None = field(default=None, compare=False)
    observable: str = DEFAULT_OBSERVABLE

    @property
    def kind(self) -> str:
        """``"gamma_c"`` or ``"mass"``."""
        return "gamma_c" if self.gamma is None else "mass"

    def canonical(self) -> dict:
        """Everything that determines the results, as a plain JSON-able dict."""
        d = asdict(self)
        d.pop("chunk_size")
        if self.observable == DEFAULT_OBSERVABLE:
            d.pop("observable")
        d["mc"] = dict(self.mc)
        d["kind"] = self.kind
        return d

    def n_points(self) -> int:
        return len(self.variants) * len(self.dk) * len(self.T) * (len(self.gamma) if self.gamma else 1)


@dataclass(frozen=True)
class Point:
    """One grid point of a PSA sweep, with its index in the canonical order and its seed."""

    index: int
    variant: str
    dk: float
    T: float
    gamma: float | None
    seed: int

    @property
    def key(self) -> str:
        """Unique text key of the point (the store's primary key)."""
        return f"{self.variant}|dk={self.dk!r}|T={self.T!r}|gamma={self.gamma!r}"

    @property
    def curve(self) -> tuple:
        """Points of one curve share (variant, dk, T) and their draws."""
        return (self.variant, self.dk, self.T)

    @property
    def group(self) -> tuple:
        """Points computed together: a mass sweep's curve, or a gamma_c point alone."""
        return self.curve if self.gamma is not None else (self.index,)

    def parameters(self) -> dict:
        """The point's parameter columns (:data:`PARAMETER_COLUMNS`)."""
        return {"variant": self.variant, "dk": self.dk, "T": self.T, "gamma": self.gamma}


def spec_from_dict(data: Mapping, *, source: str = "spec") -> PSASweepSpec:
    """Validate a parsed spec (the TOML tables as nested dicts) into a :class:`PSASweepSpec`."""
    from theorylab.psa.scoremodel import VARIANTS
    from theorylab.psa.transition import CONDENSATION_C

    try:
        check_tables(data, _SECTIONS)
        sweep, grid = data.get("sweep", {}), data.get("grid", {})
        if "dk" not in grid or "T" not in grid:
            raise ParameterError("[grid] needs dk and T")
        variants = names("grid.variant", grid.get("variant", ["t4-only"]))
        if "all" in variants:
            variants = list(VARIANTS)
        variants = tuple(dict.fromkeys(choice("grid.variant", v, VARIANTS + ("all",)) for v in variants))
        if not variants:
            raise ParameterError("grid.variant must not be empty")
        compute = names("sweep.compute", sweep.get("compute", ["annealed"]))
        compute = tuple(c for c in COMPUTE if c in {choice("sweep.compute", c, COMPUTE) for c in compute})
        if not compute:
            raise ParameterError("sweep.compute must name at least one of annealed, exact, mc")
        gamma = axis("grid.gamma", grid["gamma"], low=0.0, high=GAMMA_MAX) if "gamma" in grid else None
        if gamma is not None and "annealed" in compute:
            raise ParameterError("sweep.compute: 'annealed' gives gamma_c only; drop it or the grid.gamma axis")
        dk = axis("grid.dk", grid["dk"], low=0.0, low_inclusive=False)
        T = axis("grid.T", grid["T"], low=3.0, **({"high": MC_T_MAX} if "mc" in compute else {}))
        check_points(len(variants) * len(dk) * len(T) * (len(gamma) if gamma else 1))
        if {"exact", "mc"} & set(compute) and not all(float(t).is_integer() for t in T):
            raise ParameterError("grid.T must be integers when computing exact or mc (m = T - 2 distractors)")
        observable = _observable_option(sweep, gamma is None)
        spec = PSASweepSpec(
            name=sweep_name(sweep.get("name", "sweep")),
            variants=variants,
            dk=dk,
            T=T,
            gamma=gamma,
            compute=compute,
            samples=sweep_samples(sweep.get("samples", 20000)),
            seed=sweep_seed(sweep.get("seed", 0)),
            c=number("sweep.c", sweep.get("c", CONDENSATION_C), low=0, low_inclusive=False),
            level=_level_option(sweep.get("level", 0.5)),
            mc=tuple(sorted(_mc_options(data.get("mc", {}), gamma is None, observable).items())),
            chunk_size=sweep_chunk_size(sweep.get("chunk_size")),
            observable=observable,
        )
        if spec.kind == "gamma_c" and "exact" in compute and dict(spec.mc).get("sigma0", 0):
            raise ParameterError("mc.sigma0: the exact gamma_c has no target noise; drop 'exact' or sigma0")
        if spec.level == HALF_PLATEAU and {"exact", "mc"} & set(compute):
            _check_half_plateau(spec)
    except ParameterError as exc:
        raise ParameterError(f"{source}: {exc}") from None
    return spec


def spec_from_canonical(canonical: Mapping, *, source: str = "spec") -> PSASweepSpec:
    """The spec whose :meth:`PSASweepSpec.canonical` dict is ``canonical`` (as a store keeps it),
    validated again by :func:`spec_from_dict`."""
    needed = ("name", "seed", "samples", "compute", "c", "level", "variants", "dk", "T")
    if not isinstance(canonical, Mapping) or not set(needed) <= set(canonical):
        raise ParameterError(f"{source}: not a spec record (it needs the keys {', '.join(needed)})")
    sweep = {k: canonical[k] for k in ("name", "seed", "samples", "compute", "c", "level")}
    if canonical.get("observable", DEFAULT_OBSERVABLE) != DEFAULT_OBSERVABLE:
        sweep["observable"] = canonical["observable"]
        sweep.pop("level")                    # a level belongs to mass-half only (0.5 in the record)
    grid = {"variant": canonical["variants"], "dk": canonical["dk"], "T": canonical["T"]}
    if canonical.get("gamma") is not None:
        grid["gamma"] = canonical["gamma"]
    data = {"sweep": sweep, "grid": grid}
    if canonical.get("mc"):
        data["mc"] = canonical["mc"]
    return spec_from_dict(data, source=source)


def points(spec: PSASweepSpec) -> list[Point]:
    """Every point of ``spec`` in canonical order: variant, dk, T, then gamma (fastest)."""
    out = []
    for variant in spec.variants:
        for dk in spec.dk:
            for T in spec.T:
                seed = point_seed(spec.seed, variant, dk, T)
                for g in (spec.gamma or (None,)):
                    out.append(Point(len(out), variant, dk, T, g, seed))
    return out


def default_chunk_size(spec: PSASweepSpec) -> int:
    """Points per task when the spec sets none: 512 for annealed-only sweeps, one curve for mass
    sweeps, one point for exact/MC gamma_c sweeps."""
    return 512 if spec.compute == ("annealed",) else (len(spec.gamma) if spec.gamma else 1)


def fits(spec: PSASweepSpec, chunk: Sequence[Point], p: Point) -> bool:
    """Whether ``p`` may join the (non-empty) ``chunk``: a mass-sweep task never spans two curves."""
    return spec.kind == "gamma_c" or chunk[-1].curve == p.curve


def describe_request(spec: PSASweepSpec) -> str:
    """What one task of ``spec`` draws (for the memory check's message)."""
    return f"samples={spec.samples}, T up to {max(spec.T):g}"


def status_fields(spec: PSASweepSpec) -> dict:
    """PSA's fields of ``theorylab sweep status``: the sweep kind, routes, samples and seed."""
    return {"kind": spec.kind, "compute": ",".join(spec.compute), "samples": spec.samples, "seed": spec.seed}


def agreement(predicted, simulated) -> dict:
    """Agreement of predicted with simulated gamma_c over the points where both exist.

    Returns ``n`` (points used), ``pearson_r`` and the median and maximum relative error
    ``|predicted - simulated| / simulated`` (the paper's statistics, PSA §7.9-7.10),
    computed by :func:`theorylab.psa.grid.pearson_r` and :func:`theorylab.psa.grid.relative_error`.
    ``None`` (no root) counts as missing.
    """
    from theorylab.psa.grid import pearson_r, relative_error

    p, s = np.asarray(list(predicted), float), np.asarray(list(simulated), float)  # None -> NaN
    ok = np.isfinite(p) & np.isfinite(s) & (s != 0)
    rel = relative_error(p[ok], s[ok])
    n = int(ok.sum())
    return {"n": n, "pearson_r": pearson_r(p[ok], s[ok]),
            "median_rel_err": float(np.median(rel)) if n else float("nan"),
            "max_rel_err": float(rel.max()) if n else float("nan")}


def compare_rows(rows: Sequence[Mapping], predicted: str = "law", simulated: str = "mc") -> dict:
    """:func:`agreement` of two stored routes (``law``, ``exact`` or ``mc``)."""
    p, s = (ROUTES[choice(name, v, tuple(ROUTES))] for name, v in (("predicted", predicted),
                                                                  ("simulated", simulated)))
    return agreement([r.get(p) for r in rows], [r.get(s) for r in rows])
def _check_half_plateau(spec: PSASweepSpec) -> None:
    """Every point's half-plateau level (half the argmax limit) must be a valid level in (0, 1)."""
    from theorylab.psa.quadrature import argmax_limit

    dk, T = (np.array(a, float).ravel() for a in np.meshgrid(spec.dk, spec.T, indexing="ij"))
    for variant in spec.variants:
        level = np.asarray(argmax_limit(variant, dk, T), float) / 2.0
        bad = ~((level > 0) & (level < 1))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ParameterError(f"sweep.level: 'half-plateau' is {level[i]:g} at variant={variant}, dk={dk[i]:g}, "
                                 f"T={T[i]:g} (the argmax plateau vanishes there); use a numeric level or drop "
                                 f"that point")


def _observable_option(sweep: Mapping, gamma_c_sweep: bool) -> str:
    """``sweep.observable``: a name of the observables registry; ``level`` belongs to ``mass-half`` only."""
    from theorylab.psa.observables import OBSERVABLE_NAMES

    if "observable" not in sweep:
        return DEFAULT_OBSERVABLE
    value = sweep["observable"]
    if not isinstance(value, str):
        raise ParameterError(f"sweep.observable must be a name (got {value!r})")
    value = choice("sweep.observable", value, OBSERVABLE_NAMES)
    if not gamma_c_sweep and value != DEFAULT_OBSERVABLE:
        raise ParameterError("sweep.observable: a mass sweep (grid.gamma) measures no gamma_c; drop one of them")
    if value != DEFAULT_OBSERVABLE and "level" in sweep:
        raise ParameterError(f"sweep.level applies to the observable 'mass-half' only (got observable {value!r}); "
                             f"use observable = 'half-plateau' for half the argmax plateau")
    return value


def _level_option(value) -> float | str:
    if isinstance(value, str):
        return choice("sweep.level", value, (HALF_PLATEAU,))
    return number("sweep.level", value, low=0, high=1, low_inclusive=False, high_inclusive=False)


def _mc_options(options: Mapping, gamma_c_sweep: bool, observable: str = DEFAULT_OBSERVABLE) -> dict:
    """Check ``[mc]`` keys against the Monte Carlo function the sweep will call."""
    import inspect

    if "model" in options:
        raise ParameterError("mc.model is not a spec option (a sweep simulates each variant's own score model)")
    reserved = {"variant", "dk", "T", "gammas", "samples", "seed", "progress", "level", "model", "method"}
    bad = sorted(set(options) & reserved)
    if bad:
        raise ParameterError(f"mc.{bad[0]} is set by the sweep itself (use [sweep]/[grid])")
    if not options:
        return {}
    fn = _mc_function(gamma_c_sweep, observable)
    accepted = {p.name for p in inspect.signature(fn).parameters.values()
                if p.kind is p.KEYWORD_ONLY or p.default is not p.empty} - reserved
    extra = sorted(set(options) - accepted)
    if extra:
        raise ParameterError(f"unknown key mc.{extra[0]} (expected one of {', '.join(sorted(accepted))})")
    if "fine_points" in options:
        positive_int("mc.fine_points", options["fine_points"], low=4, high=FINE_POINTS_MAX)
    try:  # a tiny dry run (one distractor, two samples) checks the values before any worker starts
        if gamma_c_sweep and observable != DEFAULT_OBSERVABLE:
            fn("t4-only", 64.0, 3, method="mc", samples=2, seed=0, progress=False, **options)
        elif gamma_c_sweep:
            fn("t4-only", 64.0, 3, samples=2, seed=0, progress=False, **options)
        else:
            fn("t4-only", 64.0, 3, [0.5], samples=2, seed=0, progress=False, **options)
    except ParameterError as exc:
        raise ParameterError(f"[mc] {exc}") from None
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"[mc] options rejected: {one_line(exc)}") from None
    return dict(options)


def _mc_function(gamma_c_sweep: bool, observable: str = DEFAULT_OBSERVABLE) -> Callable:
    from theorylab.psa.mc_crossing import mc_gamma_c
    from theorylab.psa.montecarlo import simulate_mass
    from theorylab.psa.observables import observable as lookup

    if gamma_c_sweep and observable != DEFAULT_OBSERVABLE:
        return lookup(observable)
    return mc_gamma_c if gamma_c_sweep else simulate_mass

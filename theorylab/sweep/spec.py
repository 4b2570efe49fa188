"""Sweep specs: the TOML file (see :mod:`theorylab.sweep`) validated into a :class:`SweepSpec`.

Every problem is one :class:`~theorylab.errors.ParameterError` line naming the table and
key. A spec's :attr:`SweepSpec.hash` is what a result store is bound to; chunking is not
part of it (it never changes results).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from theorylab.errors import ParameterError, choice, positive_int, real_array

COMPUTE = ("annealed", "exact", "mc")
HALF_PLATEAU = "half-plateau"
DEFAULT_OBSERVABLE = "mass-half"
MAX_POINTS = 200_000
"""Most points one sweep may have (a store and its export hold every row; split larger scans)."""
MAX_SPEC_BYTES = 1 << 20
"""Largest spec file read (a spec is a short TOML file)."""
GAMMA_MAX = 1e3
"""Largest coupling g the exact and Monte Carlo routes accept (:mod:`theorylab.psa.quadrature`,
:mod:`theorylab.psa.montecarlo`); ``tests/test_sweep_specs.py`` holds the two to it."""
MC_T_MAX = 2**31
"""Largest context length the Monte Carlo kernels accept (:mod:`theorylab.psa.montecarlo`)."""
FINE_POINTS_MAX = 4096
"""Largest ``mc.fine_points`` (the default is 32; each fine point costs a full Monte Carlo pass)."""
COUNT_MAX = 2**63 - 1
"""Largest ``sweep.samples``: a signed 64-bit count, the bound of every count option of the CLI
(``theorylab.cli._args.COUNT_HIGH``); the memory check bounds it further when samples are drawn."""
SEED_LIMIT = 2**64
"""Sweep seeds lie in ``[0, 2**64)``."""
_SECTIONS = {
    "sweep": {"name", "seed", "samples", "compute", "chunk_size", "c", "level", "observable"},
    "grid": {"variant", "dk", "T", "gamma"},
    "mc": None,  # validated against the Monte Carlo functions' signatures
}


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep: the grid, what to compute, samples and the sweep seed.

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

    def canonical_json(self) -> str:
        return json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))

    @property
    def hash(self) -> str:
        """SHA-256 of :meth:`canonical_json` (what a store is bound to)."""
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()

    def n_points(self) -> int:
        return len(self.variants) * len(self.dk) * len(self.T) * (len(self.gamma) if self.gamma else 1)


def load_spec(path: str) -> SweepSpec:
    """Read and validate a TOML sweep spec (one-line :class:`ParameterError` on any problem:
    not a regular file -- a pipe is refused, never waited on --, unreadable, larger than
    :data:`MAX_SPEC_BYTES`, binary, not UTF-8, not TOML, or not a valid spec). The file is read by
    :func:`theorylab._io.read_text`, the one reader of user-named files."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    from theorylab._io import read_text

    text = read_text("spec", path, MAX_SPEC_BYTES)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ParameterError(f"spec {path}: invalid TOML: {one_line(exc)}") from None
    return spec_from_dict(data, source=f"spec {path}")


def spec_from_dict(data: Mapping, *, source: str = "spec") -> SweepSpec:
    """Validate a parsed spec (the TOML tables as nested dicts) into a :class:`SweepSpec`."""
    from theorylab.psa.scoremodel import VARIANTS
    from theorylab.psa.transition import CONDENSATION_C

    try:
        _check_keys(data)
        sweep, grid = data.get("sweep", {}), data.get("grid", {})
        if "dk" not in grid or "T" not in grid:
            raise ParameterError("[grid] needs dk and T")
        variants = _names("grid.variant", grid.get("variant", ["t4-only"]))
        if "all" in variants:
            variants = list(VARIANTS)
        variants = tuple(dict.fromkeys(choice("grid.variant", v, VARIANTS + ("all",)) for v in variants))
        if not variants:
            raise ParameterError("grid.variant must not be empty")
        compute = _names("sweep.compute", sweep.get("compute", ["annealed"]))
        compute = tuple(c for c in COMPUTE if c in {choice("sweep.compute", c, COMPUTE) for c in compute})
        if not compute:
            raise ParameterError("sweep.compute must name at least one of annealed, exact, mc")
        gamma = _axis("grid.gamma", grid["gamma"], low=0.0, high=GAMMA_MAX) if "gamma" in grid else None
        if gamma is not None and "annealed" in compute:
            raise ParameterError("sweep.compute: 'annealed' gives gamma_c only; drop it or the grid.gamma axis")
        dk = _axis("grid.dk", grid["dk"], low=0.0, low_inclusive=False)
        T = _axis("grid.T", grid["T"], low=3.0, **({"high": MC_T_MAX} if "mc" in compute else {}))
        n_points = len(variants) * len(dk) * len(T) * (len(gamma) if gamma else 1)
        if n_points > MAX_POINTS:
            raise ParameterError(f"the grid has {n_points} points; a sweep has at most {MAX_POINTS} "
                                 f"(split it into several sweeps)")
        if {"exact", "mc"} & set(compute) and not all(float(t).is_integer() for t in T):
            raise ParameterError("grid.T must be integers when computing exact or mc (m = T - 2 distractors)")
        observable = _observable_option(sweep, gamma is None)
        spec = SweepSpec(
            name=_name(sweep.get("name", "sweep")),
            variants=variants,
            dk=dk,
            T=T,
            gamma=gamma,
            compute=compute,
            samples=positive_int("sweep.samples", sweep.get("samples", 20000), high=COUNT_MAX),
            seed=_seed(sweep.get("seed", 0)),
            c=_number("sweep.c", sweep.get("c", CONDENSATION_C), low=0, low_inclusive=False),
            level=_level_option(sweep.get("level", 0.5)),
            mc=tuple(sorted(_mc_options(data.get("mc", {}), gamma is None, observable).items())),
            chunk_size=None if sweep.get("chunk_size") is None else _chunk_size(sweep["chunk_size"]),
            observable=observable,
        )
        if spec.kind == "gamma_c" and "exact" in compute and dict(spec.mc).get("sigma0", 0):
            raise ParameterError("mc.sigma0: the exact gamma_c has no target noise; drop 'exact' or sigma0")
        if spec.level == HALF_PLATEAU and {"exact", "mc"} & set(compute):
            _check_half_plateau(spec)
    except ParameterError as exc:
        raise ParameterError(f"{source}: {exc}") from None
    return spec


def spec_from_canonical(canonical: Mapping, *, source: str = "spec") -> SweepSpec:
    """The spec whose :meth:`SweepSpec.canonical` dict is ``canonical`` (as a store keeps it),
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


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (for one-line :class:`ParameterError` messages)."""
    return " ".join(str(exc).split())


def _number(name: str, value, **bounds) -> float:
    """One real number (not a list, string or boolean) within ``bounds`` (see :func:`real_array`)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParameterError(f"{name} must be a number (got {value!r})")
    return float(real_array(name, value, **bounds))


def _name(value) -> str:
    if not isinstance(value, str) or not value.isprintable() or len(value) > 200:
        raise ParameterError(f"sweep.name must be one line of printable text, at most 200 characters "
                             f"(got {str(value)[:60]!r})")
    return value


def _seed(value) -> int:
    seed = positive_int("sweep.seed", value, low=0)
    if seed >= SEED_LIMIT:
        got = seed if seed < 10**20 else f"{float(seed):g}"
        raise ParameterError(f"sweep.seed must be an integer in [0, 2**64) (got {got})")
    return seed


def _chunk_size(value) -> int:
    return positive_int("sweep.chunk_size", value, high=MAX_POINTS)


def _check_half_plateau(spec: SweepSpec) -> None:
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
    return _number("sweep.level", value, low=0, high=1, low_inclusive=False, high_inclusive=False)


def _names(key: str, value) -> list[str]:
    """A name or a list of names."""
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ParameterError(f"{key} must be a name or a list of names (got {value!r})")
    return values


def _check_keys(data: Mapping) -> None:
    if not isinstance(data, Mapping):
        raise ParameterError("a spec is a TOML document with [sweep] and [grid] tables")
    for section, value in data.items():
        if section not in _SECTIONS:
            raise ParameterError(f"unknown table [{section}] (expected one of [sweep], [grid], [mc])")
        if not isinstance(value, Mapping):
            raise ParameterError(f"{section} must be a table ([{section}])")
        allowed = _SECTIONS[section]
        extra = sorted(set(value) - allowed) if allowed is not None else []
        if extra:
            raise ParameterError(f"unknown key {section}.{extra[0]} (expected one of {', '.join(sorted(allowed))})")


def _axis(name: str, value, **bounds) -> tuple[float, ...]:
    """A grid axis: a number, a list, or ``{start, stop, num, spacing}`` (linear|log)."""
    if isinstance(value, Mapping):
        extra = sorted(set(value) - {"start", "stop", "num", "spacing"})
        if extra or not {"start", "stop", "num"} <= set(value):
            raise ParameterError(f"{name} range needs start, stop, num (and optional spacing = 'linear'|'log')")
        start, stop = (_number(f"{name}.{k}", value[k], **bounds) for k in ("start", "stop"))
        num = positive_int(f"{name}.num", value["num"])
        if num > MAX_POINTS:
            raise ParameterError(f"{name}.num must be an integer in [1, {MAX_POINTS}] (got {num})")
        spacing = choice(f"{name}.spacing", value.get("spacing", "linear"), ("linear", "log"))
        if spacing == "log" and min(start, stop) <= 0:
            raise ParameterError(f"{name}: a log range needs start, stop > 0")
        values = np.geomspace(start, stop, num) if spacing == "log" else np.linspace(start, stop, num)
    else:
        if isinstance(value, (str, bool)) or (isinstance(value, list) and any(isinstance(v, (str, bool))
                                                                           for v in value)):
            raise ParameterError(f"{name} must be numbers (got {value!r})")
        values = real_array(name, value, **bounds).ravel()
    return tuple(dict.fromkeys(float(f"{v:.12g}") for v in values))


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
    from theorylab.psa import montecarlo as competition
    from theorylab.psa.observables import observable as lookup

    if gamma_c_sweep and observable != DEFAULT_OBSERVABLE:
        return lookup(observable)
    return competition.mc_gamma_c if gamma_c_sweep else competition.simulate_mass

"""Computing the points of a PSA sweep on a worker (the ``psa`` task's routes).

:func:`compute_group` is what the engine's :func:`theorylab.sweep.tasks.compute_chunk` calls for
each group of points of a task (a mass sweep's curve, or one gamma_c point); it must stay
importable and picklable (the Numba kernels it calls live in :mod:`theorylab.psa.montecarlo`).
The spec is a :class:`theorylab.psa.sweep.PSASweepSpec`.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

__all__ = ["COMPUTE", "HALF_PLATEAU", "DEFAULT_OBSERVABLE", "task_memory", "point_level", "compute_point",
           "compute_curve", "compute_group"]

COMPUTE = ("annealed", "exact", "mc")
"""The routes a PSA sweep may compute: the quoted law, the exact quadrature, Monte Carlo."""
HALF_PLATEAU = "half-plateau"
"""``sweep.level`` value: per point half the argmax plateau."""
DEFAULT_OBSERVABLE = "mass-half"
"""The transition observable when a spec names none (the first g where the mass reaches ``level``)."""


def task_memory(spec, threads: int) -> int:
    """Upper estimate, in bytes, of what one task of ``spec`` allocates on a worker running
    ``threads`` Numba threads.

    Only the Monte Carlo route grows with the request: about 32 bytes of batch bookkeeping
    per sample, two draws of ``m = T - 2`` normals per thread, and ``CHUNK x G`` masses
    (G couplings: the mass sweep's gamma axis, or the larger of the coarse scan and
    ``fine_points`` for gamma_c) (:func:`theorylab.psa.montecarlo.simulate_mass`); a peak
    observable (:mod:`theorylab.psa.observables`) keeps ten row statistics per sample and coupling
    (:func:`theorylab.psa.row_stats_mc.simulate_row_stats`), ten times the masses. The law and
    quadrature routes need a few MB, counted in a fixed 64 MiB.
    """
    import inspect

    base = 64 << 20
    if "mc" not in spec.compute:
        return base
    from theorylab.psa import mc_crossing, montecarlo as competition

    mc = dict(spec.mc)
    fine = mc.get("fine_points", inspect.signature(mc_crossing.mc_gamma_c).parameters["fine_points"].default)
    G = len(spec.gamma) if spec.gamma else max(len(mc_crossing._COARSE), int(fine))
    itemsize = 8 if mc.get("dtype") == "float64" else 4
    m = int(max(spec.T)) - 2
    from theorylab.psa.observables import PEAK_OBSERVABLES
    from theorylab.psa.row_stats_mc import STATS

    stats = len(STATS) if spec.observable in PEAK_OBSERVABLES else 1
    return (base + 32 * spec.samples + 16 * stats * (competition.CHUNK + competition.BATCHES) * G
            + 2 * threads * m * itemsize)


def point_level(spec, variant: str, dk: float, T: float) -> float:
    """The mass level whose first upward crossing defines gamma_c at this point."""
    if spec.level == HALF_PLATEAU:
        from theorylab.psa.quadrature import argmax_limit
        return float(argmax_limit(variant, dk, T)) / 2.0
    return float(spec.level)


def compute_point(spec, point, seed: int) -> dict:
    """The results of one point (store columns): estimates and standard errors.

    ``seed`` is explicit (normally ``point.seed``) so that the result is a pure function
    of (spec, point, seed).
    """
    if spec.kind == "mass":
        return compute_curve(spec, point.variant, point.dk, point.T, [point.gamma], seed)[0]
    return _gamma_c_point(spec, point.variant, point.dk, point.T, seed)


def _gamma_c_point(spec, variant: str, dk: float, T: float, seed: int) -> dict:
    out: dict[str, Any] = {}
    if "annealed" in spec.compute:
        from theorylab.psa.transition import gamma_c
        law = gamma_c(variant, dk, T, c=spec.c)
        out["law_gamma_c"] = _float(law.gamma_c)
        out["law_branch"] = str(law.branch)
    if spec.observable != DEFAULT_OBSERVABLE:
        return {**out, **_observable_point(spec, variant, dk, T, seed)}
    level = point_level(spec, variant, dk, T) if {"exact", "mc"} & set(spec.compute) else None
    if level is not None:
        out["level"] = level
    if "exact" in spec.compute:
        from theorylab.psa.quadrature import exact_gamma_c
        out["exact_gamma_c"] = _float(exact_gamma_c(variant, dk, T, level=level))
    if "mc" in spec.compute:
        from theorylab.psa.mc_crossing import mc_gamma_c
        est = mc_gamma_c(variant, dk, T, samples=spec.samples, seed=seed, level=level, progress=False,
                         **dict(spec.mc))
        out.update(mc_gamma_c=_float(est.gamma_c), mc_ci_low=_float(est.ci_low),
                   mc_ci_high=_float(est.ci_high), mc_samples=spec.samples)
    return out


def _observable_point(spec, variant: str, dk: float, T: float, seed: int) -> dict:
    """Exact and Monte Carlo gamma_c of ``spec.observable`` (:mod:`theorylab.psa.observables`)."""
    from theorylab.psa.observables import measure

    out: dict[str, Any] = {}
    if "exact" in spec.compute:
        est = measure(spec.observable, variant, dk, int(T))
        out["exact_gamma_c"] = _float(est.gamma_c)
        if np.isfinite(est.level):
            out["level"] = est.level
    if "mc" in spec.compute:
        est = measure(spec.observable, variant, dk, int(T), method="mc", samples=spec.samples, seed=seed,
                      progress=False, **dict(spec.mc))
        out.update(mc_gamma_c=_float(est.gamma_c), mc_ci_low=_float(est.ci_low),
                   mc_ci_high=_float(est.ci_high), mc_samples=spec.samples)
        if np.isfinite(est.level):
            out["level"] = est.level
    return out


def compute_curve(spec, variant: str, dk: float, T: float, gammas: Sequence[float],
                  seed: int) -> list[dict]:
    """Mass-sweep results at several g of one (variant, dk, T).

    Every value is read off the curve over the spec's **whole** gamma axis (one set of
    draws: common random numbers), so a point's result is bit-for-bit the same whichever
    chunk it is computed in.
    """
    axis = list(spec.gamma)
    where = [axis.index(float(g)) for g in gammas]
    rows: list[dict] = [{} for _ in gammas]
    mc = dict(spec.mc)
    if "exact" in spec.compute:
        from theorylab.psa.quadrature import exact_mass
        kw = {"sigma0": mc["sigma0"]} if "sigma0" in mc else {}
        mass = np.atleast_1d(exact_mass(variant, dk, T, axis, **kw))
        for row, i in zip(rows, where):
            row["exact_mass"] = _float(mass[i])
    if "mc" in spec.compute:
        from theorylab.psa.montecarlo import simulate_mass
        curve = simulate_mass(variant, dk, T, axis, samples=spec.samples, seed=seed, progress=False, **mc)
        for row, i in zip(rows, where):
            row.update(mc_mass=_float(curve.mass[i]), mc_se=_float(curve.se[i]), mc_samples=spec.samples)
    return rows


def compute_group(spec, group: Sequence) -> list[dict]:
    """The result columns of one group of points (:attr:`theorylab.psa.sweep.Point.group`): a
    mass sweep's points of one curve (:func:`compute_curve`), or one gamma_c point
    (:func:`compute_point`)."""
    if spec.kind == "mass":
        first = group[0]
        return compute_curve(spec, first.variant, first.dk, first.T, [p.gamma for p in group], first.seed)
    return [compute_point(spec, group[0], group[0].seed)]


def _float(x) -> float | None:
    """A Python float, or None for NaN (stored as SQL NULL = "no root")."""
    x = float(np.asarray(x, dtype=float).reshape(()))
    return x if math.isfinite(x) else None

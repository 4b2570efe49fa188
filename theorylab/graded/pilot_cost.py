"""The pilot's cost (GLLM Lem. 2, Rem. 10, §6.5): how the educated arm degrades as its pilot shrinks.

The educated arm sets its grades from profiles estimated on a pilot sample (``graded.ladder``); Lem. 2
bounds the price: the excess ``Lambda(g_hat)/Lambda*_C - 1`` over the clipped optimum is quadratic in
the profile error :func:`profile_error` (the variance over the levels of ``log(a_hat/a) - log(s_hat/s)``;
a common shift of that difference is the gauge and costs nothing), which scales as ``1/n`` in the
pilot size n. :func:`degradation` measures it on a design, exactly and by the Monte Carlo of
:mod:`theorylab.graded.ladder_sim` (its grids, learning curves and crossings, common random numbers),
and fits the power laws (slope 1 against the error, -1 against n). Seeds: pilot k of size index i from
``SeedSequence(seed, spawn_key=(3, i, k))``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.errors import ParameterError, positive_int, real_array, seed_int
from theorylab.graded import grades, optimal
from theorylab.graded import ladder as lad
from theorylab.graded.ladder_sim import (TARGET_FRACTION, _progress, check_memory, crossing, default_grid, grid,
                                         learning_curves, memory_estimate, reference_size, target_risk)


@dataclass(frozen=True)
class Degradation:
    """Per pilot size: the educated arm's exact excess ``Lambda(g_hat)/Lambda*_C - 1``, the profile error
    of Lem. 2 and the Monte Carlo losses against the oracle arm; plus the fitted power laws."""

    rows: list
    draws: list
    summary: dict


def profile_error(a_hat, s_hat, a, s) -> float:
    """Lem. 2's error: the variance of ``delta_l = log(a_hat_l/a_l) - log(s_hat_l/s_l)`` over the levels,
    ``mean_l (delta_l - delta_bar)^2`` (the gauge direction, a common shift of delta, costs nothing).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> a, s = np.array([0.5, 0.5]), np.array([0.8, 0.2])
    >>> gr.profile_error(a, s, a, s)
    0.0
    >>> round(gr.profile_error(2 * a, 3 * s, a, s), 12)             # a common shift is free (GLLM §6.5)
    0.0
    >>> round(gr.profile_error(np.array([0.6, 0.4]), s, a, s), 4)
    0.0411
    """
    a_hat, s_hat, a, s = (real_array(n, v, low=0, low_inclusive=False)
                          for n, v in (("a_hat", a_hat), ("s_hat", s_hat), ("a", a), ("s", s)))
    if not a_hat.ndim == 1 or not a_hat.shape == s_hat.shape == a.shape == s.shape:
        raise ParameterError(f"a_hat, s_hat, a, s must be level profiles of one length (got shapes {a_hat.shape}, "
                             f"{s_hat.shape}, {a.shape}, {s.shape})")
    delta = (np.log(a_hat) - np.log(a)) - (np.log(s_hat) - np.log(s))
    return float(np.mean((delta - delta.mean()) ** 2))


def _slope(x, y) -> tuple[float, float, float]:
    """Least-squares slope of log y on log x with its 95 % interval (t quantile).

    ``(nan, nan, nan)`` when the points hold no power law to fit: fewer than three of them (the interval
    needs n - 2 >= 1 degrees of freedom), a value <= 0 (its log is not finite) or one x for all. Decided
    here, not by SciPy, whose ``linregress`` raises on some of these cases and returns NaN on others
    depending on its version."""
    from scipy.stats import linregress, t as student

    with np.errstate(divide="ignore", invalid="ignore"):
        lx, ly = np.log(np.asarray(x, dtype=float)), np.log(np.asarray(y, dtype=float))
    if lx.size < 3 or not (np.isfinite(lx).all() and np.isfinite(ly).all()) or np.ptp(lx) == 0:
        return (float("nan"),) * 3
    fit = linregress(lx, ly)
    half = float(student.ppf(0.975, lx.size - 2) * fit.stderr)
    return float(fit.slope), float(fit.slope - half), float(fit.slope + half)


def degradation(design: lad.LadderDesign, n_values, draws: int = 8, seed: int = 0, reps: int = 400,
                target: float = TARGET_FRACTION, m_values=None, progress: bool = False) -> Degradation:
    """The educated arm as the pilot shrinks (Lem. 2, Rem. 10, §6.5).

    For each pilot size n and each of ``draws`` independent pilots (seed ``SeedSequence(seed,
    spawn_key=(3, i, k))``): the educated grades ``g_hat``, the exact excess ``Lambda(g_hat)/Lambda*_C - 1``
    on the true profiles, the profile error :func:`profile_error`; then one Monte Carlo (common random
    numbers) of the oracle arm and every educated draw: the losses ``R_edu(m_ref)/R_oracle(m_ref) - 1`` and
    ``eff_oracle/eff_edu - 1``.  Lem. 2 predicts the excess quadratic in the error: slope 1 against the
    error, slope -1 against n (the error scales as 1/n).

    A summary slope and its interval are NaN where there is no power law to fit: fewer than three
    points with positive values (e.g. no draw with a positive excess, as when the educated grades are
    the oracle's), or a mean of 0.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> design = gr.geometric_design(0.5, 0.25, levels=2, d=8)      # GLLM §6.5
    >>> deg = gr.degradation(design, [20, 2000, 200000], draws=3, reps=4, m_values=[1, 3, 10, 40, 160, 640])
    >>> [row["n_pilot"] for row in deg.rows], len(deg.draws)
    ([20, 2000, 200000], 9)
    >>> [round(row["excess_mean"], 4) for row in deg.rows]      # Lambda(g_hat)/Lambda*_C - 1 shrinks with n
    [0.0133, 0.0018, 0.0001]
    >>> round(deg.summary["Lambda_star_C"], 4)
    0.7771
    """
    ns = grid("n_values", n_values)
    if ns.size < 3:
        raise ParameterError(f"n_values must hold at least 3 pilot sizes to fit a power law (got {ns.size})")
    draws = positive_int("draws", draws, low=2)
    seed, reps = seed_int("seed", seed), positive_int("reps", reps, low=2)
    eps = target_risk(design, target)
    ms = default_grid(design, target) if m_values is None else grid("m_values", m_values)
    check_memory(memory_estimate(ns.size * draws + 1, ms.size + 1, reps, design.d, 0), "this degradation sweep")
    oracle = lad.oracle_arm(design)
    lam_c = optimal.clipped_grades(design.a, design.s, design.C).Lambda
    per = []
    for i, n in enumerate(_progress(list(ns), progress, "pilots", "n")):
        for k in range(draws):
            pseed = int(np.random.SeedSequence(seed, spawn_key=(3, i, k)).generate_state(1)[0])
            pilot = lad.draw_pilot(design, int(n), pseed)
            a_hat, s_hat = lad.pilot_estimates(pilot, design.dims)
            g = lad.educated_arm(design, pilot).g
            per.append({"n_pilot": int(n), "draw": k, "g": g.tolist(),
                        "excess": max(float(grades.Lambda(g, design.a, design.s)) / lam_c - 1.0, 0.0),
                        "error": profile_error(a_hat, s_hat, design.a, design.s)})
    m_ref = reference_size(design)
    ms = np.union1d(ms, [m_ref])
    risks = learning_curves(design, [oracle.g] + [np.array(p["g"]) for p in per], ms, reps, seed, progress)
    mean = risks.mean(axis=2)
    iref = int(np.flatnonzero(ms == m_ref)[0])
    m_needed = crossing(ms, mean, eps)
    for j, p in enumerate(per, start=1):
        p["rr_loss"] = float(mean[j, iref] / mean[0, iref] - 1.0)
        p["eff_loss"] = float(m_needed[j] / m_needed[0] - 1.0)
    rows = []
    for n in ns:
        sel = [p for p in per if p["n_pilot"] == n]
        rows.append({"n_pilot": int(n), "excess_mean": float(np.mean([p["excess"] for p in sel])),
                     "excess_max": float(np.max([p["excess"] for p in sel])),
                     "error_mean": float(np.mean([p["error"] for p in sel])),
                     "rr_loss_mean": float(np.mean([p["rr_loss"] for p in sel])),
                     "eff_loss_mean": float(np.mean([p["eff_loss"] for p in sel]))})
    pos = [p for p in per if p["excess"] > 0 and p["error"] > 0]
    slope_err = _slope([p["error"] for p in pos], [p["excess"] for p in pos])
    slope_n = _slope([r["n_pilot"] for r in rows], [r["excess_mean"] for r in rows])
    err_n = _slope([r["n_pilot"] for r in rows], [r["error_mean"] for r in rows])
    tail = rows[len(rows) // 2:] if len(rows) >= 6 else rows
    slope_tail = _slope([r["n_pilot"] for r in tail], [r["excess_mean"] for r in tail])
    summary = {"design": design.name, "draws": draws, "reps": reps, "seed": seed, "m_ref": m_ref,
               "target_fraction": target, "Lambda_star_C": lam_c,
               "slope_excess_vs_error": slope_err[0], "slope_excess_vs_error_ci": list(slope_err[1:]),
               "slope_excess_vs_n": slope_n[0], "slope_excess_vs_n_ci": list(slope_n[1:]),
               "slope_excess_vs_n_tail": slope_tail[0], "slope_excess_vs_n_tail_ci": list(slope_tail[1:]),
               "tail_n": [int(tail[0]["n_pilot"]), int(tail[-1]["n_pilot"])],
               "slope_error_vs_n": err_n[0], "slope_error_vs_n_ci": list(err_n[1:])}
    return Degradation(rows, per, summary)


__all__ = ["Degradation", "profile_error", "degradation"]

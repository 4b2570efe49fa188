"""Reference routes for the selection ladder's random draws (GLLM §7.2, §8.2); NumPy/SciPy only.

* The pilot's per-block sufficient statistics replayed from the library's stream convention
  (``SeedSequence(seed)``; blocks of ``n // K`` rows, the first ``n mod K`` one row longer; a block of
  ``r < d`` rows draws its rows ``Z`` (r, d) then its noise (r,); otherwise the Bartlett factor ``A``:
  the strict lower triangle of a (d, d) normal draw, ``A_ii = sqrt(chi2(r - i))``, then ``u`` (d,), with
  ``X^T xi = sigma sd * (A u)``) in exact integer block sizes.
* The conditional noise statistic: given the rows, ``X^T y - X^T X w* = X^T xi ~ N(0, sigma^2 X^T X)``,
  so ``(X^T xi)^T (X^T X)^-1 (X^T xi) / sigma^2 ~ chi2(d)`` exactly.
* The percentile bootstrap of the risk ratio at ``m_ref``: repetition weights
  ``Multinomial(reps, 1/reps) / reps`` from ``SeedSequence(seed, spawn_key=(1,))``, ratio of the
  reweighted mean risks, 2.5 % and 97.5 % quantiles.
"""
from __future__ import annotations

import numpy as np


def replay_pilot(tau, w, sigma_xi: float, n: int, seed: int, blocks: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-block ``(X^T X, X^T y)`` (K, d, d), (K, d) of a pilot of ``n`` rows in ``blocks`` blocks."""
    tau, w = np.asarray(tau, float), np.asarray(w, float)
    d, sd = tau.size, np.sqrt(tau)
    K = min(int(blocks), int(n))
    q, extra = divmod(int(n), K)
    rng = np.random.default_rng(np.random.SeedSequence(int(seed)))
    XtX, Xty = [], []
    for b in range(K):
        rows = q + (1 if b < extra else 0)
        if rows < d:
            X = rng.standard_normal((rows, d)) * sd
            y = X @ w + sigma_xi * rng.standard_normal(rows)
            XtX.append(X.T @ X)
            Xty.append(X.T @ y)
            continue
        A = np.tril(rng.standard_normal((d, d)), -1)
        A[np.diag_indices(d)] = np.sqrt(rng.chisquare(np.array([rows - i for i in range(d)], dtype=float)))
        u = rng.standard_normal(d)
        S = (A @ A.T) * np.outer(sd, sd)
        XtX.append(S)
        Xty.append(S @ w + sd * (sigma_xi * (A @ u)))
    return np.array(XtX), np.array(Xty)


def noise_statistic(XtX, Xty, w, sigma_xi: float) -> float:
    """``r^T (X^T X)^-1 r / sigma^2`` with ``r = X^T y - X^T X w*``: chi2(d) under the model."""
    XtX, Xty = np.asarray(XtX, float), np.asarray(Xty, float)
    r = Xty - XtX @ np.asarray(w, float)
    return float(r @ np.linalg.solve(XtX, r) / sigma_xi ** 2)


def risk_ratio_interval(risks_arm, risks_uniform, seed: int, bootstrap: int) -> tuple[float, float]:
    """Percentile 95 % interval of ``mean(risk_arm) / mean(risk_uniform)`` over the repetition bootstrap."""
    ra, ru = np.asarray(risks_arm, float), np.asarray(risks_uniform, float)
    reps = ra.size
    rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(1,)))
    wts = rng.multinomial(reps, np.full(reps, 1.0 / reps), size=int(bootstrap)) / reps
    ratio = (wts @ ra) / (wts @ ru)
    lo, hi = np.quantile(ratio, [0.025, 0.975])
    return float(lo), float(hi)


def first_crossing(log_m, curve, log_level) -> float:
    """Size where ``curve`` (risks over the sizes ``exp(log_m)``) first falls to ``exp(log_level)`` or below:
    linear interpolation of log risk in log size between the two grid points around it; NaN when the first
    point already qualifies, no point does, or the curve has a NaN before its first crossing."""
    for k, value in enumerate(curve):
        if not value == value:                     # NaN: not a crossing
            continue
        if np.log(max(value, 1e-300)) <= log_level:
            if k == 0:
                return float("nan")
            r0, r1 = np.log(max(curve[k - 1], 1e-300)), np.log(max(value, 1e-300))
            frac = (log_level - r0) / (r1 - r0) if r1 < r0 else 1.0
            return float(np.exp(log_m[k - 1] + frac * (log_m[k] - log_m[k - 1])))
    return float("nan")


def ladder_summary(ip, m_values, risks, level: float, m_ref: int, uniform: int, seed: int, bootstrap: int) -> dict:
    """The measured columns of a ladder from risks (arms, M, reps): per arm the crossing size, token efficiency
    ``m_uniform / m_arm``, risk ratio at ``m_ref`` and their 95 % percentile intervals over the repetition bootstrap
    (weights as :func:`risk_ratio_interval`; NaN ignored), the fraction of resamples without an efficiency,
    Spearman correlations (SciPy) of ``ip`` with the efficiencies and with 1 / risk ratio and their intervals, and
    the measured ranks (1 = largest efficiency; an arm without one ranks after every other, ties averaged)."""
    from scipy.stats import rankdata, spearmanr

    risks = np.asarray(risks, float)
    arms, M, reps = risks.shape
    log_m, lv = np.log(np.asarray(m_values, float)), float(np.log(level))
    iref = list(m_values).index(m_ref)

    def stats(curves):
        m_need = np.array([first_crossing(log_m, c, lv) for c in curves])
        return m_need, m_need[uniform] / m_need, curves[:, iref] / curves[uniform, iref]

    def rho(y):
        y = np.asarray(y, float)
        if not np.all(np.isfinite(y)) or np.ptp(y) == 0:
            return float("nan")
        return float(spearmanr(ip, y)[0])

    def interval(v):
        v = np.asarray(v, float)
        v = v[~np.isnan(v)]
        return (float("nan"),) * 2 if v.size == 0 else tuple(float(x) for x in np.quantile(v, [0.025, 0.975]))

    m_need, eff, rr = stats(risks.mean(axis=2))
    rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(1,)))
    wts = rng.multinomial(reps, np.full(reps, 1.0 / reps), size=int(bootstrap)) / reps
    boot = [stats(c) for c in np.tensordot(wts, risks, axes=([1], [2]))]
    eff_b, rr_b = np.array([x[1] for x in boot]), np.array([x[2] for x in boot])
    shown = np.where(np.isnan(eff), np.nanmin(eff) - 1.0 if np.isfinite(eff).any() else 0.0, eff)
    return {"m_needed": m_need, "efficiency": eff, "risk_ratio_ref": rr,
            "eff_ci": [interval(eff_b[:, k]) for k in range(arms)], "rr_ci": [interval(rr_b[:, k]) for k in range(arms)],
            "nan_fraction": np.mean(~np.isfinite(eff_b), axis=0),
            "measured_rank": rankdata(-shown, method="average"),
            "spearman_efficiency": rho(eff), "spearman_efficiency_ci": interval([rho(e) for e in eff_b]),
            "spearman_risk_ratio": rho(1 / rr), "spearman_risk_ratio_ci": interval([rho(1 / r) for r in rr_b])}


def trimmed_levels(cap, dims, sigma_xi: float, m: int) -> np.ndarray:
    """S of Lem. 3 (``d_l sigma_xi^2 / m <= cap_l``) trimmed so that ``m >= 2 D_S + 4``: the levels taken in
    decreasing ``cap_l / d_l`` (ties: lower level first), each kept while the trimmed D_S stays within ``(m - 4)/2``."""
    cap, dims = np.asarray(cap, float), np.asarray(dims, int)
    worth = dims * (sigma_xi ** 2 / m) <= cap
    keep, used = np.zeros(cap.size, bool), 0
    for l in sorted(range(cap.size), key=lambda l: (-cap[l] / dims[l], l)):
        if worth[l] and 2 * (used + int(dims[l])) + 4 <= m:
            keep[l], used = True, used + int(dims[l])
    return keep


def replay_risk_losses(sd, masks, targets, sigma_xi: float, m: int, reps: int, seed: int, index: int,
                       block: int = 16, draw_elements: int = 2 ** 22) -> np.ndarray:
    """Losses (classes, targets, reps) of level-selective least squares replayed from the graded-risk stream
    convention: ``SeedSequence(seed, spawn_key=(index,))``; repetitions in blocks of ``block``; a block's m rows
    drawn ``draw_elements // (block d)`` rows at a time, each draw the (b, rows, d) standard normals of the rows
    (scaled by ``sd``) then the (b, rows) noise; least squares of y = X w + sigma xi on the coordinates ``masks[c]``
    (zero elsewhere) by ``lstsq`` of the stacked rows; loss ``sum_j sd_j^2 (w_hat_j - w_j)^2``."""
    sd = np.asarray(sd, float)
    d = sd.size
    per_draw = max(1, draw_elements // (block * d))
    rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(int(index),)))
    out = np.empty((len(masks), targets[0].shape[1], reps))
    for start in range(0, reps, block):
        b = min(block, reps - start)
        Xs, xis = [], []
        for r0 in range(0, m, per_draw):
            rows = min(per_draw, m - r0)
            Xs.append(rng.standard_normal((b, rows, d)) * sd)
            xis.append(sigma_xi * rng.standard_normal((b, rows)))
        X, xi = np.concatenate(Xs, axis=1), np.concatenate(xis, axis=1)
        for c, (mask, Wt) in enumerate(zip(masks, targets)):
            for k in range(Wt.shape[1]):
                for j in range(b):
                    est = np.zeros(d)
                    if mask.any():
                        y = X[j] @ Wt[:, k] + xi[j]
                        est[mask] = np.linalg.lstsq(X[j][:, mask], y, rcond=None)[0]
                    out[c, k, start + j] = float(np.sum(sd ** 2 * (est - Wt[:, k]) ** 2))
    return out

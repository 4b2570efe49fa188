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

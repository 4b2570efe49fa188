"""Reference statistics of trained runs, from their definitions, in exact rational arithmetic where possible.

Independent of ``theorylab`` (the standard library's ``fractions`` and ``math``, scipy's t quantile, NumPy's generator).

* gamma_c of an accuracy curve (the trained dk ladder's observable, docs/results.md study (j)): the
  smallest gamma at which the curve, linearly interpolated between grid points, reaches the midpoint
  ``h = (a(0) + max a) / 2`` between its gamma = 0 value and its plateau; None when ``max a <= a(0)``.
* Log-log slope: the least-squares slope ``sum (x - xbar)(y - ybar) / sum (x - xbar)^2`` of
  ``y = log gamma_c`` on ``x = log dk``.
* Seed summary: mean, sample sd (n - 1), ``mean +- t_{0.975, n-1} sd / sqrt(n)`` clipped to [0, 1]; as a
  row (:func:`seed_summary_row`): every documented field, with the pooled 95 % Wilson interval of ``hits / n``
  (z = 1.959964) and, for one seed, sd NaN and no t interval.
* Seed bootstrap of gamma_c replayed from the library's stream convention: ``default_rng(seed)`` draws the
  resampled seed indices as one ``(draws, seeds)`` array of integers in ``[0, seeds)``; each row's mean curve
  gives one gamma_c (NaN where the mean curve never rises above its gamma = 0 value).
* The query row of a decoder (:func:`query_row`): the last position's scores and attention weights in the first
  head of the last block, from the reference forward pass (the step-0 statistics and pointer credits of a run).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from theorylab.certificates.reference.optim import wilson


def gamma_c(gammas, accuracy) -> Fraction | None:
    """The first crossing of the midpoint ``(a_0 + max a) / 2`` by the piecewise-linear curve, exactly."""
    g = [Fraction(str(x)) for x in gammas]                 # the decimals as written
    a = [Fraction(str(x)) for x in accuracy]
    half = (a[0] + max(a)) / 2
    if max(a) <= a[0]:
        return None
    for i in range(1, len(a)):
        if a[i] >= half:                                   # a[i-1] < half <= a[i]: the segment that crosses
            return g[i - 1] + (half - a[i - 1]) / (a[i] - a[i - 1]) * (g[i] - g[i - 1])
    raise AssertionError("unreachable: max a >= half")


def loglog_slope(x, y) -> float:
    """Least-squares slope of ``log y`` on ``log x`` (closed form)."""
    lx, ly = [math.log(v) for v in x], [math.log(v) for v in y]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((u - mx) * (w - my) for u, w in zip(lx, ly)) / sum((u - mx) ** 2 for u in lx)


def seed_summary(accuracies) -> tuple[float, float, float, float]:
    """``(mean, sd, t_low, t_high)`` over seeds (95 % Student-t interval, clipped to [0, 1])."""
    from scipy.stats import t

    n = len(accuracies)
    mean = sum(accuracies) / n
    sd = math.sqrt(sum((a - mean) ** 2 for a in accuracies) / (n - 1))
    half = t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    return mean, sd, max(0.0, mean - half), min(1.0, mean + half)


SUMMARY_FIELDS = ("seeds", "mean", "sd", "t_low", "t_high", "wilson_low", "wilson_high")
"""The fields of a seed-summary row (docs: mean, sd and 95 % t interval over seeds, pooled Wilson interval)."""


def seed_summary_row(accuracies, hits: float, n: int) -> dict:
    """Every field of a seed summary: one seed has sd NaN and t interval None; the Wilson interval at z = 1.959964."""
    k = len(accuracies)
    if k > 1:
        mean, sd, t_low, t_high = seed_summary(accuracies)
    else:
        mean, sd, t_low, t_high = float(accuracies[0]), float("nan"), None, None
    lo, hi = wilson(hits, n, 1.959964)
    return dict(zip(SUMMARY_FIELDS, (k, mean, sd, t_low, t_high, max(0.0, lo), min(1.0, hi))))


def bootstrap_gamma_c(gammas, per_seed, draws: int, seed: int) -> np.ndarray:
    """gamma_c of each resampled mean curve (float of the exact crossing of the float mean; NaN without a rise)."""
    acc = np.asarray(per_seed, float)
    picks = np.random.default_rng(int(seed)).integers(0, acc.shape[0], size=(int(draws), acc.shape[0]))
    out = []
    for row in picks:
        gc = gamma_c(gammas, [float(v) for v in acc[row].mean(axis=0)])
        out.append(float("nan") if gc is None else float(gc))
    return np.array(out)


def query_row(model: dict, tokens, stream) -> tuple[np.ndarray, np.ndarray]:
    """The last position's pre-softmax scores ``qs_{T-1} . ks_j / sqrt(dk)`` and causal softmax weights, j < T, of the
    first head of the LAST block of a reference ``model`` dict (``transformer.forward``'s), per sequence of
    ``tokens`` (B, T): the earlier blocks by ``transformer.block``, then the last block's LayerNorm and projections;
    ``stream`` maps a head's raw (T, dk) queries or keys to its streams (RoPE for SDPA). Returns (B, T) arrays."""
    from theorylab.certificates.reference import transformer as ref

    scores, weights = [], []
    for row in np.asarray(tokens):
        x = model["wte"][row]
        for blk in model["blocks"][:-1]:
            x = ref.block(x, blk)
        blk = model["blocks"][-1]
        h = ref.layer_norm(x, *blk["ln_1"])
        dk = blk["w_q"].shape[1] // len(blk["heads"])
        qs, ks = stream((h @ blk["w_q"])[:, :dk]), stream((h @ blk["w_k"])[:, :dk])
        e = ks @ qs[-1] / math.sqrt(dk)
        scores.append(e)
        weights.append(ref.softmax(e))
    return np.array(scores), np.array(weights)

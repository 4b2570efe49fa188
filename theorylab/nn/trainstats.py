"""Statistics of trained runs: seed summaries with confidence intervals, gamma_c from an accuracy curve.

* :func:`seed_summary` -- mean accuracy over seeds, its sample standard deviation, a 95 %
  Student-t interval over seeds (the seed-to-seed spread, which dominates) and the pooled
  95 % Wilson interval over all evaluated sequences (the evaluation noise alone).
* :func:`gamma_c` -- the observable of our trained dk ladder: the smallest coupling at which
  the accuracy curve reaches the midpoint between its gamma = 0 value and its plateau (the
  largest accuracy on the grid), linearly interpolated between grid points. The paper's
  Figure 9 does not define its gamma_c beyond "from the accuracy curve"; this is ours.
* :func:`loglog_slope` -- least-squares slope of log gamma_c against log dk.
* :func:`step0_statistics` -- saturation of the query row at initialisation (score spread,
  largest attention weight): what ``theorylab.nn.train`` records at step 0 of every run.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from theorylab.errors import ParameterError, check_memory, positive_int, real_array, seed_int
from theorylab.nn import transformer
from theorylab.nn.attention import _scores
from theorylab.nn.tasks import wilson_interval


def seed_summary(accuracies: Sequence[float], hits: float, n: int) -> dict:
    """Mean, sd and 95 % t interval over per-seed ``accuracies``; pooled Wilson interval of ``hits / n``.

    Examples
    --------
    Three seeds of 2,000 held-out sequences each (the intervals of PSA §7.4's trained runs):

    >>> import theorylab.nn as nn
    >>> s = nn.seed_summary([0.8, 0.9, 1.0], hits=5400, n=6000)
    >>> s["seeds"], round(s["mean"], 4), round(s["sd"], 4), round(s["t_low"], 4), s["t_high"]
    (3, 0.9, 0.1, 0.6516, 1.0)
    >>> round(s["wilson_low"], 4), round(s["wilson_high"], 4)
    (0.8922, 0.9073)
    """
    a = real_array("accuracies", accuracies, low=0, high=1)
    mean = float(a.mean())
    sd, t_low, t_high = float("nan"), None, None                          # one seed: no spread
    if a.size > 1:
        sd = float(a.std(ddof=1))
        from scipy.stats import t as student_t      # here, not at import: scipy.stats takes 0.7 s to load

        half = float(student_t.ppf(0.975, a.size - 1) * sd / math.sqrt(a.size))
        t_low, t_high = max(0.0, mean - half), min(1.0, mean + half)
    lo, hi = wilson_interval(hits, n, z=1.959964)
    return {"seeds": int(a.size), "mean": mean, "sd": sd, "t_low": t_low, "t_high": t_high, "wilson_low": lo,
            "wilson_high": hi}


def gamma_c(gammas: Sequence[float], accuracy: Sequence[float]) -> float | None:
    """Smallest gamma where ``accuracy`` reaches ``(acc(0) + plateau) / 2`` (linear interpolation).

    ``gammas`` must be increasing and start at 0; the plateau is the largest accuracy on the
    grid. None when the curve never rises above its gamma = 0 value.

    Examples
    --------
    Midpoint ``(0.1 + 0.9) / 2 = 0.5``, crossed halfway between gamma = 0.5 and 1 (PSA §7.11):

    >>> import theorylab.nn as nn
    >>> nn.gamma_c([0, 0.5, 1, 2], [0.1, 0.2, 0.8, 0.9]), nn.gamma_c([0, 1], [0.5, 0.5])
    (0.75, None)
    """
    return _gamma_c(_gamma_grid(gammas), real_array("accuracy", accuracy, low=0, high=1))


def _gamma_grid(gammas) -> np.ndarray:
    g = real_array("gammas", gammas, low=0)
    if g.ndim != 1 or g.size < 2 or g[0] != 0 or np.any(np.diff(g) <= 0):
        raise ParameterError("gammas must be an increasing grid starting at 0 (at least 2 points)")
    return g


def _gamma_c(g: np.ndarray, a: np.ndarray) -> float | None:
    if g.shape != a.shape:
        raise ParameterError(f"accuracy must hold one value per gamma ({g.size}) (got shape {a.shape})")
    half = 0.5 * (a[0] + a.max())
    if a.max() <= a[0]:
        return None
    i = int(np.argmax(a >= half))                                       # first grid point at or above half
    return float(g[i - 1] + (half - a[i - 1]) * (g[i] - g[i - 1]) / (a[i] - a[i - 1]))


def loglog_slope(x: Sequence[float], y: Sequence[float]) -> float:
    """Least-squares slope of ``log y`` on ``log x`` (``x``, ``y`` > 0 of one length, at least two distinct x).

    Examples
    --------
    gamma_c halving with each doubling of dk has slope -1 (the ladder of PSA §7.11):

    >>> import theorylab.nn as nn
    >>> round(nn.loglog_slope([8, 16, 32], [1.0, 0.5, 0.25]), 4)
    -1.0
    """
    lx = np.log(real_array("x", x, low=0, low_inclusive=False))
    ly = np.log(real_array("y", y, low=0, low_inclusive=False))
    if lx.ndim != 1 or lx.shape != ly.shape or np.ptp(lx) == 0:
        raise ParameterError(f"x and y must be 1-D of one length with at least two distinct x (got shapes {lx.shape} "
                             f"and {ly.shape})")
    return float(np.polyfit(lx, ly, 1)[0])


def bootstrap_gamma_c(gammas: Sequence[float], per_seed: np.ndarray, draws: int = 2000, seed: int = 0) -> np.ndarray:
    """gamma_c of seed-resampled mean curves: ``per_seed`` is (seeds, len(gammas)) accuracies; ``draws`` resamples
    (stream ``default_rng(seed)``, ``seed`` in [0, 2^64)); NaN where undefined.

    Examples
    --------
    Three seeds' curves (PSA §7.11), 200 resampled mean curves:

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> per_seed = [[0.1, 0.2, 0.8, 0.9], [0.1, 0.4, 0.9, 0.9], [0.1, 0.3, 0.7, 0.9]]
    >>> draws = nn.bootstrap_gamma_c([0, 0.5, 1, 2], per_seed, draws=200, seed=0)
    >>> draws.shape, int(np.isnan(draws).sum()), np.round(np.percentile(draws, [2.5, 97.5]), 4)
    ((200,), 0, array([0.6 , 0.75]))
    """
    g = _gamma_grid(gammas)
    acc = real_array("per_seed", per_seed, low=0, high=1)
    if acc.ndim != 2 or acc.shape[1] != g.size or not acc.shape[0]:
        raise ParameterError(f"per_seed must be (seeds, {g.size}) accuracies (got shape {acc.shape})")
    draws = positive_int("draws", draws)
    check_memory("draws, per_seed", 8.0 * draws * (acc.shape[0] + 1))
    rng = np.random.default_rng(seed_int("seed", seed))
    picks = rng.integers(0, acc.shape[0], size=(draws, acc.shape[0]))  # [draws, seeds] resampled seeds
    out = np.full(draws, np.nan)
    for b in range(draws):
        gc = _gamma_c(g, acc[picks[b]].mean(axis=0))
        out[b] = np.nan if gc is None else gc
    return out


def step0_statistics(model: transformer.Decoder, tokens: np.ndarray) -> tuple[float, float]:
    """Saturation of the query row at initialisation: the standard deviation of its pre-softmax scores over
    every (sequence, key) pair of ``tokens`` (batch, T), and the batch mean of its largest attention weight
    (last layer, first head).

    Parameters
    ----------
    model : transformer.Decoder
        The model (``train.init_model``'s, for the step-0 numbers of a run).
    tokens : array_like of int
        ``(batch, T)`` token ids (a run's first training batch).

    Returns
    -------
    (float, float)
        ``(score_std, max_weight)``; ``max_weight`` is in ``[1/T, 1]``.

    Examples
    --------
    The step-0 saturation of a key-only run (PSA §7.4) on its first training batch:

    >>> import theorylab.nn as nn
    >>> config = nn.TrainConfig(variant="key-only", gamma=1.0, task="canonical", T=8, vocab=16, d_model=16, dk=16)
    >>> batch = nn.batch_of(config, 64, [0, 1, 0])
    >>> score_std, max_weight = nn.step0_statistics(nn.init_model(config, seed=0), batch.tokens)
    >>> round(score_std, 4), round(max_weight, 4)
    (0.9589, 0.3372)
    """
    tokens = transformer.token_ids(model, tokens, batched=True)
    if tokens.ndim != 2:
        raise ParameterError(f"tokens must be a (batch, T) array of token ids (got shape {tokens.shape})")
    return _step0_statistics(model, tokens)


def _step0_statistics(model: transformer.Decoder, tokens: np.ndarray) -> tuple[float, float]:
    trace: list = []
    transformer._hidden_states(model, tokens, trace)
    rec = trace[-1]["heads"][0]
    scores = _scores(rec["qs"][..., -1:, :], rec["ks"])[..., 0, :]   # [B, T] the query row
    return float(np.std(scores)), float(np.mean(rec["p"][..., -1, :].max(axis=-1)))


__all__ = ["seed_summary", "gamma_c", "loglog_slope", "bootstrap_gamma_c", "step0_statistics"]

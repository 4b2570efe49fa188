"""Measured channel moments of a vector-level induction sample beside the reduced model's
(PSA §6.2, §6.5; the sample of :func:`theorylab.psa.induction.simulate`).

From the four unit-coupling channels ``c1..c4`` of every key (``T_i = g^deg c_i``), this module
measures the target gaps, the distractor variances, ``Cov(c3, c4)``, the neighbour correlations
and the excess at the special positions (:func:`channel_moments`, :class:`ChannelMoments`), our RoPE
correction of the predecessor match (:func:`rope_match_factor`), and sets them beside
:func:`theorylab.psa.induction.reduced_channel_model` per g (:func:`comparison_rows`).

Conventions (those of :mod:`theorylab.psa.induction`): gaps are measured against the mean of the
sample's own distractors; variances and covariances are within-sample (over distractors,
ddof = 1) averaged over samples; standard errors are over samples.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.errors import ParameterError, check_memory, choice, finite_output, finite_result, positive_int, real_array
from theorylab.psa import canonical
from theorylab.psa.induction import CHANNELS, DEGREE, PLACEMENTS, InductionSample, reduced_channel_model
from theorylab.resources import Cost, bytes_of, count

__all__ = ["BULK_MIN_T", "ChannelMoments", "channel_moments", "rope_match_factor", "comparison_rows", "moments_cost"]


MOMENT_SECONDS = 2e-6


def moments_cost(T, samples) -> Cost:
    """Peak memory and run time of :func:`channel_moments` (about six copies of the channels)."""
    entries = bytes_of(count("samples", samples), count("T", T), itemsize=1)
    return Cost(6 * bytes_of(4, entries), entries * MOMENT_SECONDS, "channel moments")


@dataclass(frozen=True, eq=False)
class ChannelMoments:
    """Measured unit-coupling channel moments (multiply by g^deg, g^2deg, g^3 for T_i).

    Arrays are indexed by channel T1..T4; ``*_se`` are standard errors over samples;
    ``gap_cov`` is the covariance matrix of the mean gaps (per-sample covariance / n).
    ``bulk_*`` use only distractors away from the special positions (key 0, the
    predecessor j-1 of the target, its successor j+1, the query's predecessor T-2).
    ``lag1`` is the correlation of neighbouring bulk distractors (0 in the reduced model).
    ``special`` maps a special position to the mean excess of each channel over the
    bulk distractor mean.
    """

    n: int
    gap: np.ndarray
    gap_se: np.ndarray
    gap_cov: np.ndarray
    var: np.ndarray
    var_se: np.ndarray
    cov34: float
    cov34_se: float
    bulk_var: np.ndarray
    bulk_cov34: float
    bulk_cov34_se: float
    lag1: np.ndarray
    special: dict[str, np.ndarray]
    quenched_var_cv: np.ndarray


def _se(a, axis=0):
    return np.std(a, axis=axis, ddof=1) / np.sqrt(a.shape[axis])


BULK_MIN_T = 9
"""Smallest T with bulk moments in every sample: T - 1 keys minus the target and the (up to four)
special positions leave at least 3 bulk distractors, among them a neighbouring pair, whatever j."""


def channel_moments(sample: InductionSample) -> ChannelMoments:
    """Target gaps, distractor variances, Cov(c3, c4), neighbour correlations, special positions.

    Needs ``sample.T >= 9`` (:data:`BULK_MIN_T`; below, some target position leaves fewer than two
    bulk distractors or no neighbouring pair, and the bulk moments are undefined) and at least
    two samples (standard errors).

    Examples
    --------
    The unit-coupling gaps of T3 and T4 measured on a small simulated sample (the reduced model: 4 and 4):

    >>> import theorylab.psa as psa
    >>> mom = psa.channel_moments(psa.simulate(dk=16, T=32, samples=2000))
    >>> print(mom.gap[2:].round(1))
    [4.  3.9]
    """
    C, j = sample.channels, sample.target                             # (n, 4, K), (n,)
    n, _, K = C.shape
    if K + 1 < BULK_MIN_T:
        raise ParameterError(f"T must be >= {BULK_MIN_T} for the channel moments (the bulk distractors away "
                             f"from the special keys are empty below; got T = {K + 1})")
    if n < 2:
        raise ParameterError(f"samples must be >= 2 for the channel moments (got {n})")
    rows = np.arange(n)
    pos = np.arange(K)[None, :]
    distr = pos != j[:, None]                                         # (n, K) all T-2 distractors
    special = {"key 0": np.zeros(n, int), "target predecessor j-1": j - 1,
               "target successor j+1": j + 1, "query predecessor T-2": np.full(n, K - 1)}
    bulk = distr.copy()
    for p in special.values():
        bulk[rows, p] = False

    def masked_stats(mask):
        w = mask[:, None, :].astype(float)                            # (n, 1, K)
        cnt = w.sum(-1)                                               # (n, 1)
        mean = (C * w).sum(-1) / cnt                                  # (n, 4)
        dev = (C - mean[..., None]) * w                               # (n, 4, K)
        var = (dev ** 2).sum(-1) / (cnt - 1)                          # (n, 4)
        cov = (dev[:, 2] * dev[:, 3]).sum(-1) / (cnt[:, 0] - 1)       # (n,)
        return mean, dev, var, cov

    mean, _, var, cov = masked_stats(distr)
    bmean, bdev, bvar, bcov = masked_stats(bulk)
    gap = C[rows, :, j] - mean                                        # (n, 4) per-sample gaps
    both = bulk[:, 1:] & bulk[:, :-1]                                 # neighbouring bulk pairs
    num = (bdev[..., 1:] * bdev[..., :-1] * both[:, None]).sum((0, 2))
    den = (bdev ** 2).sum((0, 2)) * both.sum() / bulk.sum()
    excess = {name: (C[rows, :, p] - bmean).mean(0) for name, p in special.items()}
    return ChannelMoments(n=n, gap=gap.mean(0), gap_se=_se(gap), gap_cov=np.cov(gap, rowvar=False) / n,
                          var=var.mean(0), var_se=_se(var),
                          cov34=float(cov.mean()), cov34_se=float(_se(cov)), bulk_var=bvar.mean(0),
                          bulk_cov34=float(bcov.mean()), bulk_cov34_se=float(_se(bcov)), lag1=num / den, special=excess,
                          quenched_var_cv=np.std(bvar, 0, ddof=1) / bvar.mean(0))


def rope_match_factor(T: int, freqs, placement: str = "post") -> float:
    """Mean over target positions j (1..T-3) and planes of ``cos(offset * theta_a)``.

    The predecessor match ``A.R A`` in c3/c4 is ``|A|^2 cos(offset theta)`` per plane, at
    offset ``T - j`` (post) or ``T - 1 - j`` (pre); isotropy weights the planes equally.
    This is our RoPE correction of the reduced model's gap, not a paper formula.

    Examples
    --------
    Without rotation (theta = 0) every plane matches exactly:

    >>> import theorylab.psa as psa
    >>> psa.rope_match_factor(32, psa.frequencies(16))
    1.0
    """
    T = positive_int("T", T, low=5)
    freqs = real_array("freqs", freqs)
    check_memory("T, freqs", 16 * T * freqs.size)
    j = canonical.target_positions(T, query_is_key=False)                 # 1..T-3
    off = (T - j) if PLACEMENTS[choice("placement", placement, tuple(PLACEMENTS))] == "post-rope" else (T - 1 - j)
    with np.errstate(over="ignore"):
        angles = finite_result("freqs", np.multiply.outer(off, freqs))
    return float(np.mean(np.cos(angles)))


@finite_output("g")
def comparison_rows(sample: InductionSample, g, moments: ChannelMoments | None = None) -> list[dict]:
    """Per g and channel: measured gap/variance beside the reduced model's; one row for Cov(T3, T4).

    Measured T_i moments are the unit-channel moments times ``g^deg`` (gap),
    ``g^(2 deg)`` (variance), ``g^3`` (covariance): exact, since T_i = g^deg c_i.

    Examples
    --------
    Measured channel gaps and variances beside the reduced model's:

    >>> import theorylab.psa as psa
    >>> sample = psa.simulate(dk=16, T=32, samples=100)
    >>> rows = psa.comparison_rows(sample, [1.0])
    >>> sorted(rows[0])
    ['channel', 'g', 'gap', 'gap_model', 'gap_model_rope', 'gap_se', 'lag1', 'var', 'var_bulk', 'var_model', 'var_se']
    """
    g = _couplings(g)
    m = moments or channel_moments(sample)
    model = reduced_channel_model()
    rope = rope_match_factor(sample.T, sample.freqs, sample.placement)
    rows = []
    for gv in g:
        for c, name in enumerate(CHANNELS):
            d = DEGREE[c]
            gap_model = float(model.gap_at(name, gv, sample.dk))
            rows.append({"g": float(gv), "channel": name, "gap": float(m.gap[c] * gv ** d),
                         "gap_se": float(m.gap_se[c] * gv ** d), "gap_model": gap_model,
                         "gap_model_rope": gap_model * (rope if name in ("T3", "T4") else 1.0),
                         "var": float(m.var[c] * gv ** (2 * d)), "var_se": float(m.var_se[c] * gv ** (2 * d)),
                         "var_bulk": float(m.bulk_var[c] * gv ** (2 * d)),
                         "var_model": float(model.var_at(name, gv)), "lag1": float(m.lag1[c])})
        rows.append({"g": float(gv), "channel": "cov(T3,T4)", "gap": None, "gap_se": None, "gap_model": None,
                     "gap_model_rope": None, "var": float(m.cov34 * gv ** 3), "var_se": float(m.cov34_se * gv ** 3),
                     "var_bulk": float(m.bulk_cov34 * gv ** 3), "var_model": float(model.cov34_at(gv)),
                     "lag1": None})
    return rows


def _couplings(g) -> np.ndarray:
    """A 1-D grid of couplings g >= 0 (a single number gives a grid of one)."""
    g = np.atleast_1d(real_array("g", g, low=0))
    if g.ndim != 1:
        raise ParameterError(f"g must be a number or a 1-D grid of couplings (got shape {g.shape})")
    return g

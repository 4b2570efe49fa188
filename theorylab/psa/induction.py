"""Vector-level induction simulation through the four score channels (PSA §4.1, §5.3, §6.2, §6.5).

The canonical induction model at the vector level
-------------------------------------------------
A sample is a stream of ``T`` random isotropic token embeddings ``x_t ~ N(0, I_dk)``
(positions 0..T-1). The query sits at the last position ``t = T-1`` and repeats the
token ``A = x_{j-1}``; the target key is position ``j`` (uniform on 1..T-3), whose
predecessor is ``A``. The keys are positions 0..T-2 (the query's own position is not a
key), so there are ``m = T - 2`` distractors, as in the reduced model. This is the one
canonical model of :mod:`theorylab.psa.canonical` (``plant_induction``) in its reduced-model form
``query_is_key=False``; the causal-head form used there (keys 0..T-1, ``j`` in 1..T-2)
differs because the reduced model has ``T - 1`` candidates and no target at the query's
predecessor T-2 (where both momenta share ``x_{T-2}``: extra T2 and T4 gap), see that
module's docstring.
Queries and keys are the rotated stream (``W_Q = W_K = I``); RoPE rotates pair
``(2i, 2i+1)`` at position t by ``t * freqs[i]`` (:mod:`theorylab.psa.shear`).

Because ``q' = q + g p_q`` and ``k' = k + g p_k``, the score of the symmetric shear is
the polynomial ``s(g) = c1 + g c2 + g c3 + g^2 c4`` in the coupling, with the four
unit-coupling channels (all over sqrt(dk))::

    c1 = q.k,   c2 = p_q.k,   c3 = q.p_k,   c4 = p_q.p_k      (T_i = g^{deg} c_i)

so the channels are computed once per sample and any g grid is evaluated for free.

Conventions (ours; docs/plga.md, "induction simulation")
--------------------------------------------------------
* **Head sign.** With ``p_t = x_t - x_{t-1}`` the predecessor match enters ``c3`` and
  ``c4`` as ``-A.A``: under the bilinear form ``+I`` the shear *repels* the target. The
  simulated head uses the form ``-I`` (``HEAD_SIGN = -1``; the hand-built induction
  head that also suppresses the previous occurrence of A), so the gaps are positive
  and equal in magnitude to the reduced model's ``g sqrt(dk)`` and ``g^2 sqrt(dk)``.
* **Placement.** ``post`` (the paper's): momentum of the rotated stream; ``pre``:
  rotate the momentum of the raw stream (PSA §5.3); the difference is the Coriolis term.
* **RoPE.** ``theta`` is one per-step angle shared by every plane (monochromatic, the
  PSA §5.3 Coriolis setting); an array gives one frequency per plane; ``theta = 0``
  switches RoPE off.
* Gaps are measured against the mean of the sample's own distractors; variances and
  covariances are within-sample (over distractors, ddof = 1) averaged over samples.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab._results import scalar_output
from theorylab.errors import (ParameterError, check_memory, choice, finite_output, finite_result, positive_int,
                              real_array, real_scalar, seed_int)
from theorylab.psa import canonical
from theorylab.psa import shear
from theorylab.psa.scoremodel import score_model
from theorylab.psa.softmax import softmax
from theorylab.resources import Cost, bytes_of, count

HEAD_SIGN: float = -1.0
PLACEMENTS: dict[str, str] = {"post": "post-rope", "pre": "pre-rope"}
CHANNELS: tuple[str, ...] = ("T1", "T2", "T3", "T4")
DEGREE: tuple[int, ...] = (0, 1, 1, 2)
"""Power of g carried by each channel in the symmetric shear."""
_CHUNK = 64


# ----------------------------------------------------------------------------- reduced model
@dataclass(frozen=True)
class ChannelModel:
    """Per-channel moments the reduced model assumes, as coefficient tuples in g (lowest first).

    ``gap[c]`` multiplies sqrt(dk); ``var[c]`` is the distractor variance; ``cov34`` is
    Cov(T3, T4). Derived from :func:`theorylab.psa.scoremodel.score_model` (see
    :func:`reduced_channel_model`), never typed in here.
    """

    gap: dict[str, tuple[float, ...]]
    var: dict[str, tuple[float, ...]]
    cov34: tuple[float, ...]

    def gap_at(self, channel: str, g, dk) -> np.ndarray:
        return np.sqrt(dk) * np.polynomial.polynomial.polyval(g, self.gap[channel])

    def var_at(self, channel: str, g) -> np.ndarray:
        return np.polynomial.polynomial.polyval(g, self.var[channel])

    def cov34_at(self, g) -> np.ndarray:
        return np.polynomial.polynomial.polyval(g, self.cov34)


def reduced_channel_model() -> ChannelModel:
    """Per-channel gaps/variances from the score-model variants (docs/conventions.md, "Four score channels").

    * T4: the t4-only variant (gap g^2, variance 4g^4);
    * T3 gap: t3-inclusive gap minus t4-only gap; T3 variance: key-only variance minus
      its base term (the T1 variance, its constant coefficient);
    * Cov(T3, T4): half of (t3-inclusive variance - T3 variance - T4 variance);
    * T1: gap 0, variance = the key-only base term; T2: gap 0 and, by the query/key
      exchange symmetry of isotropic embeddings, the T3 variance (no variant carries T2).

    Examples
    --------
    The per-channel gaps and variances the score-model variants are built from:

    >>> import theorylab.psa as psa
    >>> model = psa.reduced_channel_model()
    >>> model.gap['T4'], [float(c) for c in model.cov34]
    ((0.0, 0.0, 1.0), [0.0, 0.0, 0.0, 2.0])
    """
    P = np.polynomial.polynomial
    t4, t34, key = score_model("t4-only"), score_model("t3-inclusive"), score_model("key-only")
    base = (key.var_poly[0],)
    var3 = tuple(P.polysub(key.var_poly, base))
    var4 = tuple(t4.var_poly)
    cov = tuple(0.5 * P.polysub(P.polysub(t34.var_poly, var3), var4))
    gap3 = tuple(P.polysub(t34.gap_poly, t4.gap_poly))
    return ChannelModel(gap={"T1": (0.0,), "T2": (0.0,), "T3": gap3, "T4": tuple(t4.gap_poly)},
                        var={"T1": base, "T2": var3, "T3": var3, "T4": var4}, cov34=cov)


# ----------------------------------------------------------------------------- RoPE and sampling
def frequencies(dk: int, theta=0.0) -> np.ndarray:
    """Per-plane RoPE frequencies: a scalar ``theta`` for every plane, or an array of dk/2.

    Examples
    --------
    One frequency per RoPE plane (dk/2 planes):

    >>> import theorylab.psa as psa
    >>> print(psa.frequencies(8, theta=0.25))
    [0.25 0.25 0.25 0.25]
    """
    dk = positive_int("dk", dk, low=2)
    if dk % 2:
        raise ParameterError(f"dk must be an even integer >= 2 (got {dk})")
    check_memory("dk", 4 * dk)
    th = real_array("theta", theta, low=-np.pi, high=np.pi)
    if th.ndim == 0:
        return np.full(dk // 2, float(th))
    if th.shape != (dk // 2,):
        raise ParameterError(f"theta must be a scalar or an array of dk/2 = {dk // 2} frequencies (got {th.shape})")
    return th


def induction_batch(rng: np.random.Generator, n: int, T: int, dk: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` canonical induction streams ``(n, T, dk)`` and their target positions ``(n,)`` (T >= 4).

    Examples
    --------
    Two canonical induction streams and their targets:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> x, j = psa.induction_batch(np.random.default_rng(0), 2, 8, 4)
    >>> x.shape, j.shape
    ((2, 8, 4), (2,))
    """
    if not isinstance(rng, np.random.Generator):
        raise ParameterError(f"rng must be a numpy.random.Generator (got {type(rng).__name__})")
    n, T, dk = positive_int("n", n), positive_int("T", T, low=4), positive_int("dk", dk)
    check_memory("n, T, dk", 8 * n * T * dk)
    x = rng.standard_normal((n, T, dk))                               # (n, T, dk) isotropic tokens
    return canonical.plant_induction(rng, x, query_is_key=False)          # query A = x_{j-1}, j in 1..T-3


def stream_channels(x, freqs, placement: str = "post") -> np.ndarray:
    """Unit-coupling channels ``(c1, c2, c3, c4)`` of the last-position query: shape (n, 4, T-1).

    ``x`` is (n, T, dk) with T >= 2 and dk even; ``freqs`` has dk/2 entries. Includes
    :data:`HEAD_SIGN` and the 1/sqrt(dk) scale.

    Examples
    --------
    The four unit-coupling channels of the last query:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> x, _ = psa.induction_batch(np.random.default_rng(0), 2, 8, 4)
    >>> psa.stream_channels(x, psa.frequencies(4)).shape
    (2, 4, 7)
    """
    placement = PLACEMENTS[choice("placement", placement, tuple(PLACEMENTS))]
    x = real_array("x", x)
    freqs = real_array("freqs", freqs)
    if x.ndim != 3 or x.shape[1] < 2 or x.shape[2] != 2 * freqs.size or freqs.ndim != 1:
        raise ParameterError(f"x must be (n, T, dk) with T >= 2 and dk = 2 len(freqs) (got shapes {x.shape} "
                             f"and {freqs.shape})")
    return finite_result("x", _stream_channels(x, freqs, placement))


def _stream_channels(x: np.ndarray, freqs: np.ndarray, placement: str) -> np.ndarray:
    T, dk = x.shape[-2], x.shape[-1]
    cos, sin = shear.rope_tables(T, freqs)
    X = shear.rotate_pairs(x, cos, sin)                               # (n, T, dk) rotated stream
    if placement == "post-rope":
        P = shear.momentum(X)                                         # momentum of the rotated stream
    else:
        P = shear.rotate_pairs(shear.momentum(x), cos, sin)           # rotated momentum of the raw stream
    q, pq = X[:, -1], P[:, -1]                                        # (n, dk) query and its momentum
    K, PK = X[:, :-1], P[:, :-1]                                      # (n, T-1, dk) keys and momenta
    c = np.stack([np.einsum("nd,ntd->nt", q, K), np.einsum("nd,ntd->nt", pq, K),
                  np.einsum("nd,ntd->nt", q, PK), np.einsum("nd,ntd->nt", pq, PK)], axis=1)
    return HEAD_SIGN * c / np.sqrt(dk)                                # (n, 4, T-1)


@dataclass(frozen=True, eq=False)
class InductionSample:
    """Raw simulation output: ``channels`` (n, 4, T-1) and ``target`` (n,) key positions."""

    channels: np.ndarray
    target: np.ndarray
    dk: int
    T: int
    freqs: np.ndarray
    placement: str
    seed: int


def simulate(dk: int = 64, T: int = 512, theta=0.0, samples: int = 1000, seed: int = 0,
             placement: str = "post") -> InductionSample:
    """Simulate ``samples`` canonical induction queries and keep their four channels.

    Deterministic: chunk ``c`` of 64 samples draws from ``default_rng([seed, c])``, so
    the first n samples are the same for any total and any machine.

    Examples
    --------
    A small induction simulation (dk = 16, T = 32):

    >>> import theorylab.psa as psa
    >>> sample = psa.simulate(dk=16, T=32, samples=100)
    >>> sample.channels.shape, sample.target.shape
    ((100, 4, 31), (100,))
    """
    dk = positive_int("dk", dk, low=2)
    T = positive_int("T", T, low=5)
    freqs = frequencies(dk, theta)
    samples = positive_int("samples", samples, low=2)
    seed = seed_int("seed", seed)
    placement = choice("placement", placement, tuple(PLACEMENTS))
    check_memory("samples, T, dk", 8 * (2 * samples * 4 * T + 8 * _CHUNK * T * dk))
    chans, targets = [], []
    for c in range((samples + _CHUNK - 1) // _CHUNK):
        x, j = induction_batch(np.random.default_rng([seed, c]), _CHUNK, T, dk)
        chans.append(_stream_channels(x, freqs, PLACEMENTS[placement]))
        targets.append(j)
    return InductionSample(np.concatenate(chans)[:samples], np.concatenate(targets)[:samples], dk, T, freqs,
                           placement, seed)


# ----------------------------------------------------------------------------- cost
STREAM_SECONDS = 2.5e-7
"""Seconds per stream entry (sample x position x coordinate) in :func:`simulate`; the following
rates are per channel entry (sample x key) of the moments, and per (g, entry) of the masses
(all measured on a shared 2-core machine)."""
MOMENT_SECONDS = 2e-6
MASS_SECONDS = 5e-7


def simulate_cost(dk, T, samples) -> Cost:
    """Peak memory and run time of :func:`simulate`: about six ``(64, T, dk)`` stream blocks with
    the RoPE tables, and the kept channels ``(samples, 4, T-1)`` twice (the concatenation)."""
    dk, T, samples = count("dk", dk), count("T", T), count("samples", samples)
    block = bytes_of(_CHUNK, T, dk) * 6 + bytes_of(T, dk)
    channels = bytes_of(4, samples, max(T - 1, 0.0))
    chunks = -(-samples // _CHUNK)
    return Cost(block + 2 * channels, chunks * _CHUNK * T * dk * STREAM_SECONDS,
                f"{samples:.3g} samples of {T:.3g} positions x {dk:.3g} dims")


def moments_cost(T, samples) -> Cost:
    """Peak memory and run time of :func:`channel_moments` (about six copies of the channels)."""
    entries = bytes_of(count("samples", samples), count("T", T), itemsize=1)
    return Cost(6 * bytes_of(4, entries), entries * MOMENT_SECONDS, "channel moments")


def mass_rows_cost(T, samples, n_gamma, member: str = "symmetric") -> Cost:
    """Peak memory and run time of :func:`mass_rows`: the channels, ``(G, samples, T-1)`` scores and
    their softmax (four copies), and the reduced model's exact mass at each g."""
    from theorylab.psa.quadrature import exact_mass_cost

    entries = bytes_of(count("samples", samples), count("T", T), itemsize=1)
    G = count("n_gamma", n_gamma)
    own = Cost(bytes_of(4, entries) * 2 + 4 * bytes_of(G, entries), entries * G * MASS_SECONDS, "target masses")
    return own.then(exact_mass_cost(n_gamma) if MASS_VARIANT[choice("member", member, tuple(MASS_VARIANT))]
                    else Cost())


# ----------------------------------------------------------------------------- moments
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


MEMBERS: tuple[str, ...] = tuple(shear.LATTICE)
MASS_VARIANT: dict[str, str | None] = {"symmetric": "t3-inclusive", "key-only": "key-only",
                                       "query-only": None, "standard": None}
"""The reduced-model variant whose mean target mass is set beside each lattice member's."""


@finite_output("g")
def scores_at(sample: InductionSample, g, member: str = "symmetric") -> np.ndarray:
    """Scores ``c1 + g_q c2 + g_k c3 + g_q g_k c4`` of a lattice member, shape (len(g), n, T-1).

    Examples
    --------
    Scores of the symmetric lattice member at two couplings:

    >>> import theorylab.psa as psa
    >>> sample = psa.simulate(dk=16, T=32, samples=50)
    >>> psa.scores_at(sample, [0.0, 1.0]).shape
    (2, 50, 31)
    """
    g = _couplings(g)
    a, b = shear.lattice_couplings(choice("member", member, MEMBERS), 1)
    C = sample.channels
    check_memory("g", 8 * 2 * g.size * C.shape[0] * C.shape[2])
    gq, gk = (a * g)[:, None, None], (b * g)[:, None, None]
    return C[None, :, 0] + gq * C[None, :, 1] + gk * C[None, :, 2] + gq * gk * C[None, :, 3]


def target_mass(sample: InductionSample, g, member: str = "symmetric"
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per g: mean target softmax mass, its SE, and argmax accuracy (over all T-1 keys).

    Examples
    --------
    Mean target mass rises with the coupling:

    >>> import theorylab.psa as psa
    >>> sample = psa.simulate(dk=16, T=32, samples=200)
    >>> mass, se, acc = psa.target_mass(sample, [0.0, 2.0])
    >>> print(mass.round(2))
    [0.03 0.28]
    """
    s = scores_at(sample, g, member)                                  # (G, n, T-1)
    mass = softmax(s)[:, np.arange(s.shape[1]), sample.target]        # (G, n)
    acc = (np.argmax(s, -1) == sample.target[None]).mean(-1)
    return mass.mean(-1), _se(mass, axis=1), acc


def mass_rows(sample: InductionSample, g, member: str = "symmetric") -> list[dict]:
    """Per g: measured target mass (+SE), accuracy, and the matching reduced model's exact mass.

    Examples
    --------
    Measured mass beside the reduced model's, per g:

    >>> import theorylab.psa as psa
    >>> sample = psa.simulate(dk=16, T=32, samples=100)
    >>> rows = psa.mass_rows(sample, [1.0])
    >>> sorted(rows[0])
    ['accuracy', 'g', 'mass_model', 'member', 'model_variant', 'target_mass', 'target_mass_se']
    """
    from theorylab.psa.quadrature import exact_mass

    g = _couplings(g)
    mass, se, acc = target_mass(sample, g, member)
    variant = MASS_VARIANT[member]
    model = exact_mass(variant, sample.dk, sample.T, g) if variant else np.full(g.shape, np.nan)
    return [{"g": float(gv), "member": member, "target_mass": float(mass[i]), "target_mass_se": float(se[i]),
             "accuracy": float(acc[i]), "mass_model": float(model[i]), "model_variant": variant}
            for i, gv in enumerate(g)]


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


# ----------------------------------------------------------------------------- Coriolis (P9)
@scalar_output
def coriolis_gain(theta) -> np.ndarray:
    """``2 |sin(theta/2)|``: norm of ``R_theta - I`` on a plane, the Coriolis factor (PSA §5.3).

    Examples
    --------
    The Coriolis factor 2|sin(theta/2)| at theta = pi/3 is 1:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> round(float(psa.coriolis_gain(np.pi / 3)), 4)
    1.0
    """
    return 2.0 * np.abs(np.sin(0.5 * real_array("theta", theta)))


@finite_output("g, freqs")
def coriolis_band_ratios(dk: int, T: int, freqs, g: float = 1.0, seed: int = 0,
                         coriolis=shear.coriolis_term) -> np.ndarray:
    """Measured per-plane ``||post - pre||_a / (|g| ||x_{t-1}||_a)`` for every position t >= 1.

    The post-minus-pre difference comes from ``coriolis`` (default: the library's
    placement difference). Returns (T-1, dk/2): one ratio per position and plane.

    Examples
    --------
    Measured per-plane Coriolis ratios (shape: positions x planes):

    >>> import theorylab.psa as psa
    >>> psa.coriolis_band_ratios(8, 16, psa.rope_frequencies(8)).shape
    (15, 4)
    """
    dk = positive_int("dk", dk, low=2)
    T = positive_int("T", T, low=2)
    check_memory("T, dk", 8 * 4 * T * dk)
    freqs = real_array("freqs", freqs)
    if freqs.shape != (dk // 2,):
        raise ParameterError(f"freqs must have dk/2 = {dk // 2} entries (got {freqs.shape})")
    g = real_scalar("g", g)
    if g == 0:
        raise ParameterError("g must be nonzero for a Coriolis ratio (got 0)")
    x = np.random.default_rng(seed_int("seed", seed)).standard_normal((T, dk))
    cos, sin = shear.rope_tables(T, freqs)
    diff = np.asarray(coriolis(x, g, cos, sin))[1:]                  # (T-1, dk)
    plane = lambda v: np.sqrt(v[:, 0::2] ** 2 + v[:, 1::2] ** 2)      # noqa: E731  (T-1, dk/2)
    return plane(diff) / (abs(g) * plane(x[:-1]))


# ----------------------------------------------------------------------------- Cesaro (P13)
def cesaro_averages(N: int, freqs, channel: str = "T3", part: str = "positional", seed: int = 0,
                    momentum=shear.momentum) -> np.ndarray:
    """Running Cesaro means of a g-linear channel over N positions, normalised (PSA §6.5).

    ``part = "positional"``: a constant content vector ``x`` on every position, so the
    rotated stream is ``R_n x`` and its momentum ``(R_n - R_{n-1}) x`` is purely
    positional. ``part = "content"``: iid isotropic content (the candidate-wise part).
    ``channel = "T3"``: fixed query ``R_0 q`` against key momenta at positions 1..N;
    ``"T2"``: query momenta at 1..N against a fixed key ``R_0 k`` -- the same bilinear form
    with the roles exchanged, so for one seed both give the same numbers. Both parts
    telescope (``sum_n p_n = R_N x_N - R_0 x_0``): the Cesaro mean over candidates
    vanishes at O(1/N) whatever the content; what does not vanish is the candidate-wise
    value (the target's own T3 gap).
    Returns ``a[N'-1] = (1/N') sum_{n=1}^{N'} c(n) / (|q| |x| / sqrt(dk))`` for N' = 1..N.

    Examples
    --------
    Running Cesaro means of the T3 channel over 64 positions:

    >>> import theorylab.psa as psa
    >>> psa.cesaro_averages(64, psa.rope_frequencies(8)).shape
    (64,)
    """
    N = positive_int("N", N)
    freqs = real_array("freqs", freqs)
    if freqs.ndim != 1:
        raise ParameterError(f"freqs must be a 1-D array of dk/2 frequencies (got shape {freqs.shape})")
    check_memory("N, freqs", 8 * 8 * (N + 1) * freqs.size)
    choice("channel", channel, ("T2", "T3"))
    choice("part", part, ("positional", "content"))
    dk = 2 * freqs.size
    rng = np.random.default_rng(seed_int("seed", seed))
    other, content = rng.standard_normal(dk), rng.standard_normal(dk)
    x = (np.broadcast_to(content, (N + 1, dk)) if part == "positional"
         else rng.standard_normal((N + 1, dk)))
    stream = shear.rope(x, freqs)                                      # (N+1, dk) rotated stream
    p = np.asarray(momentum(stream))[1:]                               # (N, dk) positions 1..N
    c = p @ other / np.sqrt(dk)                                        # T3: q.p_k ; T2: p_q.k (same form)
    scale = np.linalg.norm(other) * np.linalg.norm(content) / np.sqrt(dk)
    return np.cumsum(c) / np.arange(1, N + 1) / scale


def envelope_slope(averages, start: int = 16) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-log slope of the dyadic-block envelope ``max_{N' in [N, 2N)} |a(N')|``.

    Returns ``(slope, N_blocks, envelope)``; blocks start at ``start`` and double.

    Examples
    --------
    A 1/N decay has envelope slope -1:

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> slope, _, _ = psa.envelope_slope(1.0 / np.arange(1, 257))
    >>> round(slope, 2)
    -1.0
    """
    a = np.abs(real_array("averages", averages))
    if a.ndim != 1:
        raise ParameterError(f"averages must be a 1-D array (got shape {a.shape})")
    start = positive_int("start", start)
    Ns, env = [], []
    lo = start
    while 2 * lo <= a.size:
        Ns.append(lo)
        env.append(a[lo - 1:2 * lo - 1].max())
        lo *= 2
    if len(Ns) < 3:
        raise ParameterError(f"averages must have at least {8 * start} entries for a slope (got {a.size})")
    Ns, env = np.array(Ns, float), np.array(env)
    if np.any(env == 0):
        return -np.inf, Ns, env
    return float(np.polyfit(np.log(Ns), np.log(env), 1)[0]), Ns, env


__all__ = ["HEAD_SIGN", "PLACEMENTS", "CHANNELS", "DEGREE", "BULK_MIN_T", "ChannelModel", "reduced_channel_model",
           "frequencies",
           "induction_batch", "stream_channels", "InductionSample", "simulate", "ChannelMoments", "channel_moments",
           "rope_match_factor", "MEMBERS", "MASS_VARIANT", "scores_at", "target_mass", "mass_rows", "comparison_rows",
           "coriolis_gain", "simulate_cost", "moments_cost", "mass_rows_cost",
           "coriolis_band_ratios", "cesaro_averages", "envelope_slope"]

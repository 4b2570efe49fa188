"""The counter-based normals every Monte Carlo draws (P17.rng; the simulation route of P17-P19, P24).

Known answers against :mod:`theorylab.certificates.reference.rng` (Python-integer SplitMix64, Box-Muller in
mpmath), documented accuracies of the kernels' log and exp, per-sample masses and row statistics against the
reference, and the N(0, 1) law of the draws (Kolmogorov-Smirnov, pair correlation).
"""
from __future__ import annotations

import math

import numpy as np

from theorylab.certificates.reference import score_model as ref
from theorylab.certify import Outcome, certificate, computed
from theorylab.certify import montecarlo as mcs
from theorylab.psa.montecarlo import per_sample_mass
from theorylab.certificates.psa._common import _worse


# ------------------------------------------------------------------------------ P17.rng
RNG_FALSE_FAILURE = 1e-5
RNG_KNOWN = ((0, (0, 1, 12345, 2**62)), (1750, (0, 7)), (2**64 - 1, (3,)))
"""(seed, samples) of the known-answer draws (indices 0..15 and TARGET_INDEX of each)."""
RNG_DIST = (1750, 64, 4096)
"""(seed, samples, indices) of the distribution check: 2 x 262,144 normals per kernel."""
LOG32_REL, NORMAL32_ULPS, EXP32_REL, EXP64_REL = 2.0**-23, 4.0, 3.0e-7, 3.0e-15
LOG64_REL = 4.0e-16
EXP64_WIDE_REL, EXP64_CLIP, EXP32_CLIP = 4.0e-17, (-700.0, 600.0), (-80.0, 60.0)
"""exp64's documented relative error beyond [-80, 60] (~3e-17 |x|; attained ~3.5e-17 |x|) and the documented clips of
exp64 and exp32: past them both return exp of the clipped argument (at their accuracy there)."""
"""Relative accuracy of log64 on the kernel's uniforms (0, 1) (documented ~1e-16; attained ~2.9e-16)."""
DERIV_STEP, DERIV_TOL, DERIV32_TOL = 2e-3, 1e-7, 2e-6
"""Step of the reference's five-point differences in g and the tolerance of the kernel's exact derivatives against
them (truncation h^4, measured <= 5e-9 at the kernel point); the float32 kernel's (its scores and weights are float32:
measured <= 8.5e-7 against the rows of its own float32-rounded draws, every variant)."""
"""Documented accuracies: log32 relative error (u1 in [2^-33, 1)); float32 draws against the
reference (float32 ulps of max(1, |z|)); exp32 / exp64 relative error on [-80, 60]."""
KERNEL_POINT = (16.0, 10, (0.3, 1.0, 2.0), 6)
"""(dk, T, couplings, samples) of the per-sample known-answer masses."""
ROW_POINTS = ((10, 0.0), (10, 1.0), (3, 0.5))
"""(T, sigma0) of the per-sample known-answer row statistics (KERNEL_POINT's dk, couplings and samples)."""


_ROW_SCORE_LIMIT = 1e30
"""The documented largest score (or g-derivative, plus 40 sigma0) of the row-statistics kernel."""


def _row_stats_record() -> tuple[bool, bool]:
    """``simulate_row_stats``'s record against its arguments (T = 10: 8 distractors) and its mean against the
    per-sample rows; the documented score limit, enforced at its value on both sides (1 % either way): at g = 1 the
    t4-only gap sqrt(dk) g^2 has the largest g-derivatives, Delta' = Delta'' = 2 sqrt(dk) (the loadings 2 g^2 stay
    <= 4), so the top reaches the limit at sqrt(dk) = limit / 2; with dk = 16 (top 8) 40 sigma0 reaches it at
    sigma0 = limit / 40."""
    from theorylab import ParameterError
    import dataclasses

    from theorylab.psa.scoremodel import score_model
    from theorylab.psa.row_stats_mc import per_sample_row_stats, simulate_row_stats

    g = np.array([0.5, 1.5])
    c = simulate_row_stats("t4-only", 16.0, 10, g, samples=40, seed=7, sigma0=0.3, dtype="float64")
    raw = per_sample_row_stats("t4-only", 16.0, 10, g, 0, 40, seed=7, sigma0=0.3, dtype="float64")
    record_ok = bool((c.variant, c.dk, c.T, c.samples, c.seed, c.sigma0, c.dtype)
                     == ("t4-only", 16.0, 10, 40, 7, 0.3, "float64") and np.array_equal(c.gamma, g)
                     and np.allclose(c.mean, raw.mean(0), rtol=1e-12, atol=1e-12))

    def raises(dk, sigma0, sign=1.0):
        base = score_model("t4-only")                 # sign -1: the gap negated (a deliberately altered model)
        model = dataclasses.replace(base, gap_poly=tuple(sign * c for c in base.gap_poly))
        try:
            simulate_row_stats(model, dk, 10, [1.0], samples=1, sigma0=sigma0, dtype="float64")
        except ParameterError:
            return True
        return False
    lim = _ROW_SCORE_LIMIT
    dk_at = (lim / 2 / ref.gap("t4-only", 1.0, 1.0)) ** 2                # 2 Delta(1, dk) = limit
    limit_ok = all(raises(1.02 * dk_at, 0.0, sign) and not raises(0.98 * dk_at, 0.0, sign) for sign in (1.0, -1.0)) \
        and raises(16.0, 1.01 * lim / 40) and not raises(16.0, 0.99 * lim / 40)
    return record_ok, limit_ok




def _ks(z: np.ndarray) -> float:
    """Kolmogorov-Smirnov distance of the sample ``z`` from the standard normal CDF."""
    from scipy.special import ndtr

    x = np.sort(z.astype(np.float64))
    cdf = ndtr(x)
    k = np.arange(1, x.size + 1)
    return float(max(np.max(k / x.size - cdf), np.max(cdf - (k - 1) / x.size)))


@certificate("P17.rng", title="The counter-based normals: known answers, the N(0,1) law, documented accuracies",
             paper="PSA §7.9-7.10 (simulation route of P17-P19, P24)", method="monte-carlo",
             false_failure=RNG_FALSE_FAILURE,
             claim="Every Monte Carlo draws what the generator documents: SplitMix64-keyed uniforms turned into "
                   "standard normals by Box-Muller, in both kernels, with the stated accuracy of the float32 "
                   "log and the float32/float64 exp; the per-sample target mass is the model's formula.")
def counter_normals(seed=None) -> Outcome:
    """Known answers (deterministic) against :mod:`theorylab.certificates.reference.rng` (Python-integer
    SplitMix64, Box-Muller in mpmath): the sample keys exactly; ``normals`` (libm float64) to 8 and
    ``fill_normals64`` to 4 float64 ulps of max(1, |z|); ``fill_normals32`` to
    :data:`NORMAL32_ULPS` float32 ulps against the reference fed the float32-rounded halves (the
    kernel's documented uniforms), both also at the :data:`SMALL_HI` words (keys by inverse SplitMix64: u1 down to
    2^-33, where its 1/2 dominates); ``log32``, ``exp32``, ``exp64`` against mpmath on dense grids,
    each within its documented accuracy and attaining at least half of it (exp64 also beyond [-80, 60] at
    its documented ~3e-17 |x|; past their documented clips both give exp of the clipped argument);
    ``per_sample_mass`` (both kernels, every variant, target noise) against the reference sum over reference draws
    (1e-12 float64, 1e-5 float32), and ``per_sample_row_stats`` (mass, entropy, distractor entropy,
    sum p^2) against the reference softmax rows likewise. Statistical: Kolmogorov-Smirnov distance of 2 x 262,144
    normals per kernel (libm, float64, float32) from the exact N(0, 1) CDF, and the correlation of
    the pair's two members (z-test); share 1/4 each.
    """
    alpha = RNG_FALSE_FAILURE
    known_ok, known_ev, (e_libm, e_vec64, e_vec32) = _known_answers()
    acc_ok, acc_ev, accuracy = _accuracies()
    kern_ok, kern_ev, (kernel_err, row_err) = _kernel_errors()
    law_ok, law_ev, (pairs, ks, corr, sd) = _draws_law(alpha)
    passed = bool(known_ok and acc_ok and kern_ok and law_ok)
    return Outcome(passed, (*known_ev, *acc_ev, *kern_ev, *law_ev),
        arrays={"first_normals": np.stack([v[:4096] for v in pairs.values()]),
                "ks_corr": np.array([[ks[k], corr[k]] for k in pairs]),
                "accuracy": np.array([e_libm, e_vec64, e_vec32, *accuracy]),
                "kernel_errors": np.array([kernel_err["float64"], kernel_err["float32"], row_err["float64"],
                                           row_err["float32"]])},
        seeds={"known": 0, "distribution": sd, "kernel": 3},
        note=f"known-answer (seed, samples) {RNG_KNOWN}, indices 0..15 and 2^32 - 1; kernel point {KERNEL_POINT}")


def _known_answers() -> tuple[bool, tuple, tuple[float, float, float]]:
    """Sample keys and the three normal generators against the reference at the :data:`RNG_KNOWN` draws (the two
    kernels also at the :data:`SMALL_HI` words)."""
    from theorylab import rng as lib
    from theorylab.certificates.reference import rng as rref

    idx = list(range(16)) + [rref.TARGET_INDEX]
    key_ok, e_libm, e_vec64, e_vec32 = True, 0.0, 0.0, 0.0
    za32, zb32 = np.empty(16, np.float32), np.empty(16, np.float32)
    za64, zb64 = np.empty(16), np.empty(16)
    for sd, samples in RNG_KNOWN:
        out = lib.normals(sd, samples, idx)
        for a, s in enumerate(samples):
            key = lib.sample_key(np.uint64(sd), np.uint64(s))
            key_ok &= int(key) == rref.key(sd, s)
            lib.fill_normals32(np.uint64(key), za32, zb32)
            lib.fill_normals64(np.uint64(key), za64, zb64)
            for b, j in enumerate(idx):
                z = np.array(rref.normal_pair(sd, s, j))
                scale = np.maximum(1.0, np.abs(z))
                e_libm = max(e_libm, float(np.max(np.abs(out[a, b] - z) / scale)) / 2.0**-52)
                if j < 16:
                    e_vec64 = max(e_vec64, float(np.max(np.abs(np.array([za64[j], zb64[j]]) - z) / scale)) / 2.0**-52)
                    z32 = np.array(rref.normal_pair(sd, s, j, round_to_float32=True))
                    e_vec32 = max(e_vec32, float(np.max(np.abs(np.array([za32[j], zb32[j]], float) - z32)
                                                        / np.maximum(1.0, np.abs(z32)))) / 2.0**-23)
    e_small64, e_small32 = _small_hi()
    e_vec64, e_vec32 = max(e_vec64, e_small64), max(e_vec32, e_small32)
    ok = bool(key_ok and e_libm <= 8 and e_vec64 <= 4 and e_vec32 <= NORMAL32_ULPS)
    return ok, (
        computed("sample keys == reference SplitMix64 keys", key_ok),
        computed("libm float64 normals vs reference: max float64 ulps of max(1, |z|)", e_libm, tolerance=4,
                 formula="<= 8 (libm log, cos, sin and the rounded angle 2 pi u2)"),
        computed("fill_normals64 vs reference (and the SMALL_HI words): max float64 ulps of max(1, |z|)", e_vec64, tolerance=4, formula="<= 4"),
        computed("fill_normals32 vs reference (float32-rounded halves; and the SMALL_HI words): max float32 ulps of max(1, |z|)", e_vec32,
                 tolerance=NORMAL32_ULPS, formula=f"<= {NORMAL32_ULPS:g}")), (e_libm, e_vec64, e_vec32)


SMALL_HI = ((0, 2**30), (1, 1342177280), (2, 2**31), (3, 2**32 - 1), (1000, 3 * 2**30), (65535, 5 * 2**29))
"""(hi, lo) word halves of the extreme-u1 known answers (u1 = (hi + 1/2) 2^-32 down to 2^-33, |z| up to 6.76); lo >=
2^30, where the float32 kernel's angle argument fl32(lo) 2^-32 - 1/2 is exact (below it that subtraction rounds by up
to 2^-26, i.e. up to ~5.3 float32 ulps at r = 6.76: outside the documented 4-ulp bound, reported)."""


def _small_hi() -> tuple[float, float]:
    """``fill_normals64`` / ``fill_normals32`` at index 0 of keys built (inverse SplitMix64 of the reference) so that
    the word is ``hi 2^32 + lo`` for each :data:`SMALL_HI`: max float64 / float32 ulps of max(1, |z|) against the
    reference Box-Muller (the float32 kernel's fed fl32 halves), where the 1/2 of u1 dominates."""
    from theorylab import rng as lib
    from theorylab.certificates.reference import rng as rref

    za32, zb32, za64, zb64 = np.empty(1, np.float32), np.empty(1, np.float32), np.empty(1), np.empty(1)
    e64, e32 = 0.0, 0.0
    for hi, lo in SMALL_HI:
        k = rref.unmix64((hi << 32) | lo)               # word(k, 0) = mix64(k) = hi 2^32 + lo
        lib.fill_normals64(np.uint64(k), za64, zb64)
        lib.fill_normals32(np.uint64(k), za32, zb32)
        z = np.array([float(v) for v in rref.box_muller(hi, lo)])
        z32 = np.array([float(v) for v in rref.box_muller(float(np.float32(hi)), float(np.float32(lo)))])
        e64 = max(e64, float(np.max(np.abs(np.array([za64[0], zb64[0]]) - z) / np.maximum(1.0, np.abs(z)))) / 2.0**-52)
        e32 = max(e32, float(np.max(np.abs(np.array([za32[0], zb32[0]], float) - z32)
                                    / np.maximum(1.0, np.abs(z32)))) / 2.0**-23)
    return e64, e32


def _accuracies() -> tuple[bool, tuple, tuple]:
    """log32, exp32, exp64 (also beyond [-80, 60] and past the clips) and log64 against mpmath on dense grids:
    each within its documented accuracy and attaining at least half of it."""
    from theorylab import rng as lib
    from theorylab.certificates.reference import rng as rref
    from theorylab.psa.mc_kernels import exp32, exp64

    # documented accuracies on dense grids (u1 of the float32 kernel: [2^-33, 1); exp on [-80, 60])
    u = np.unique(np.concatenate([np.float32(2.0) ** np.linspace(-33, 0, 2001, dtype=np.float32),
                                  1 - np.arange(1, 401, dtype=np.float32) * np.float32(2.0**-24)]))
    u = u[u < 1]
    log_rel = float(np.max(rref.log_error(u, np.array([lib.log32(x) for x in u])) / np.abs(np.log(u.astype(float)))))
    x32 = np.linspace(-80, 60, 2001, dtype=np.float32)
    exp32_rel = float(np.max(rref.exp_relative_error(x32, np.array([exp32(x) for x in x32]))))
    x64 = np.linspace(-80, 60, 2001)
    exp64_rel = float(np.max(rref.exp_relative_error(x64, np.array([exp64(x) for x in x64]))))
    # beyond [-80, 60] up to the clips and past them (both ends): exp of the clipped argument
    xw = np.concatenate([np.linspace(-1000, -80, 461), np.linspace(60, 1000, 471)])
    cw = np.clip(xw, *EXP64_CLIP)
    exp64_wide = float(np.max(rref.exp_relative_error(cw, np.array([exp64(x) for x in xw])) / np.abs(cw)))
    xw32 = np.concatenate([np.linspace(-300, -80, 111), np.linspace(60, 300, 121)]).astype(np.float32)
    exp32_clip = float(np.max(rref.exp_relative_error(np.clip(xw32, *EXP32_CLIP),
                                                      np.array([exp32(x) for x in xw32]))))
    u64 = np.unique(np.concatenate([2.0 ** np.linspace(-53, 0, 1001), 1 - np.arange(1, 401) * 2.0**-53]))
    u64 = u64[u64 < 1]
    log64_rel = float(np.max(rref.log_error(u64, np.array([lib.log64(x) for x in u64])) / np.abs(np.log(u64))))
    acc_ok = all(b / 2 <= e <= b for e, b in ((log_rel, LOG32_REL), (exp32_rel, EXP32_REL), (exp64_rel, EXP64_REL),
                                              (log64_rel, LOG64_REL), (exp64_wide, EXP64_WIDE_REL))) \
        and exp32_clip <= EXP32_REL
    return bool(acc_ok), (
        computed("log32: max relative error on [2^-33, 1)", log_rel, tolerance=LOG32_REL / 2,
                 formula=f"in [{LOG32_REL / 2:.3g}, {LOG32_REL:.3g}] (documented, attained)"),
        computed("exp32: max relative error on [-80, 60]", exp32_rel, tolerance=EXP32_REL / 2,
                 formula=f"in [{EXP32_REL / 2:.3g}, {EXP32_REL:.3g}] (documented, attained)"),
        computed("exp64: max relative error on [-80, 60]", exp64_rel, tolerance=EXP64_REL / 2,
                 formula=f"in [{EXP64_REL / 2:.3g}, {EXP64_REL:.3g}] (documented, attained)"),
        computed(f"exp64 on [-1000, -80] and [60, 1000]: max relative error vs exp(clip(x, {EXP64_CLIP})) / |clip|",
                 exp64_wide, tolerance=EXP64_WIDE_REL / 2,
                 formula=f"in [{EXP64_WIDE_REL / 2:.3g}, {EXP64_WIDE_REL:.3g}] (documented ~3e-17 |x|, attained)"),
        computed(f"exp32 on [-300, -80] and [60, 300]: max relative error vs exp(clip(x, {EXP32_CLIP}))", exp32_clip,
                 tolerance=EXP32_REL, formula=f"<= {EXP32_REL:.3g}"),
        computed("log64: max relative error on the uniforms [2^-53, 1)", log64_rel, tolerance=LOG64_REL / 2,
                 formula=f"in [{LOG64_REL / 2:.3g}, {LOG64_REL:.3g}] (documented ~1e-16, attained)")), (log_rel, exp32_rel, exp64_rel, log64_rel, exp64_wide, exp32_clip)


def _kernel_errors() -> tuple[bool, tuple, tuple[dict, dict]]:
    """``per_sample_mass`` and ``per_sample_row_stats`` (values and exact g-derivatives) against the reference sums
    over reference draws, both kernels, every variant; the row-statistics record and score limit."""
    from theorylab.certificates.reference import rng as rref

    # per-sample target mass, every variant and kernel, against the reference sum
    dk, T, gammas, n = KERNEL_POINT
    kernel_err = {"float64": 0.0, "float32": 0.0}
    for variant in ref.VARIANTS:
        for sigma0 in (0.0, 1.0):
            want = np.array([[rref.per_sample_mass(variant, ref.gap(variant, x, dk), x, ref.distractors(T), 3, s,
                                                   sigma0) for x in gammas] for s in range(n)])
            for dtype in kernel_err:
                noise = {"sigma0": sigma0} if sigma0 else {}                # sigma0 = 0: the documented default
                got = per_sample_mass(variant, dk, T, gammas, 0, n, seed=3, dtype=dtype, **noise)
                kernel_err[dtype] = _worse(kernel_err[dtype], np.abs(got / want - 1))
    # per-sample row statistics (mass, entropy, distractor entropy, sum p^2) of the row-statistics kernels
    from theorylab.psa.row_stats_mc import per_sample_row_stats

    # (at the kernel point, with target noise, and with a single distractor: T = 3)
    row_err = {"float64": 0.0, "float32": 0.0}
    for variant in ref.VARIANTS:
        for T_row, sigma0 in ROW_POINTS:
            want = np.array([[rref.per_sample_row(variant, ref.gap(variant, x, dk), x, ref.distractors(T_row), 3, s,
                                                  sigma0) for x in gammas] for s in range(n)])
            for dtype in row_err:
                got = per_sample_row_stats(variant, dk, T_row, gammas, 0, n, seed=3, sigma0=sigma0, dtype=dtype)
                row_err[dtype] = _worse(row_err[dtype], np.abs(got[..., :4] - want) / np.maximum(1.0, np.abs(want)))
    # the exact g-derivatives (p0', p0'', H', H'', H_d', H_d'') of both kernels against five-point differences
    # of the reference rows in g (the draws are fixed; the scores are polynomials in g); the float32 kernel against
    # the rows of its own draws (float32-rounded halves), every variant (b', b'' != 0 in three of them)
    h, deriv_err = DERIV_STEP, {"float64": 0.0, "float32": 0.0}
    for variant in ref.VARIANTS:
        def rows(x, s, f32):
            f = np.array([rref.per_sample_row(variant, ref.gap(variant, x + k * h, dk), x + k * h, ref.distractors(T),
                                              3, s, round_to_float32=f32)[:3] for k in (-2, -1, 0, 1, 2)])
            d1 = (f[0] - 8 * f[1] + 8 * f[3] - f[4]) / (12 * h)
            d2 = (-f[0] + 16 * f[1] - 30 * f[2] + 16 * f[3] - f[4]) / (12 * h * h)
            return np.stack([d1, d2], 1).ravel()
        for dtype in deriv_err:
            want = np.array([[rows(x, s, dtype == "float32") for x in gammas] for s in range(n)])
            got = per_sample_row_stats(variant, dk, T, gammas, 0, n, seed=3, dtype=dtype)[..., 4:]
            deriv_err[dtype] = _worse(deriv_err[dtype], np.abs(got - want) / np.maximum(1.0, np.abs(want)))
    record_ok, limit_ok = _row_stats_record()
    ok = bool(kernel_err["float64"] <= 1e-12 and kernel_err["float32"] <= 1e-5
              and row_err["float64"] <= 1e-12 and row_err["float32"] <= 1e-5 and deriv_err["float64"] <= DERIV_TOL
              and deriv_err["float32"] <= DERIV32_TOL and record_ok and limit_ok)
    return ok, (
        computed("per_sample_row_stats float64 g-derivatives vs reference five-point differences (h = "
                 f"{DERIV_STEP:g}): max rel of max(1, |.|)", deriv_err["float64"], tolerance=DERIV_TOL,
                 formula=f"<= {DERIV_TOL:g}"),
        computed("per_sample_row_stats float32 g-derivatives vs five-point differences of the reference rows of its "
                 "float32 draws: max rel of max(1, |.|)", deriv_err["float32"], tolerance=DERIV32_TOL,
                 formula=f"<= {DERIV32_TOL:g} (float32 scores)"),
        computed("simulate_row_stats records (variant, dk, T, samples, seed, sigma0, g, dtype) and its mean is the "
                 "numpy mean of per_sample_row_stats", record_ok),
        computed(f"row-statistics score limit {_ROW_SCORE_LIMIT:g}: scores (dk, gap of either sign) or 40 sigma0 1 % "
                 "past it raise ParameterError, 1 % below it run", limit_ok),
        computed("per_sample_mass float64 vs reference sum: max relative error", kernel_err["float64"],
                 tolerance=1e-12, formula="<= 1e-12"),
        computed("per_sample_mass float32 vs reference sum: max relative error", kernel_err["float32"],
                 tolerance=1e-5, formula="<= 1e-5"),
        computed("per_sample_row_stats (mass, H, H_d, sum p^2) vs reference rows (T, sigma0 in ROW_POINTS): "
                 "max rel of max(1, |.|), f64 / f32",
                 [row_err["float64"], row_err["float32"]], tolerance=1e-12, formula="<= 1e-12 / 1e-5")), (kernel_err, row_err)


def _draws_law(alpha: float) -> tuple[bool, tuple, tuple]:
    """The N(0, 1) law of 2 x 262,144 normals per kernel: Kolmogorov-Smirnov distance (exact law) and the pair's
    correlation (z-test), a quarter of the share each."""
    from scipy.stats import kstwo

    from theorylab import rng as lib

    sd, S, J = RNG_DIST
    samples = np.arange(S)
    pairs = {"libm float64 (normals)": lib.normals(sd, samples, np.arange(J)).reshape(-1, 2)}
    for name, dtype, fill in (("float64 kernel", np.float64, lib.fill_normals64),
                              ("float32 kernel", np.float32, lib.fill_normals32)):
        za, zb, rows = np.empty(J, dtype), np.empty(J, dtype), []
        for s in samples:
            fill(np.uint64(lib.sample_key(np.uint64(sd), np.uint64(s))), za, zb)
            rows.append(np.stack([za, zb], 1).astype(float))
        pairs[name] = np.concatenate(rows)
    tests = 2 * len(pairs)
    ks = {k: _ks(v.ravel()) for k, v in pairs.items()}
    ks_max = float(kstwo.isf(alpha / tests, 2 * S * J))
    corr = {k: float(np.corrcoef(v[:, 0], v[:, 1])[0, 1] * math.sqrt(v.shape[0])) for k, v in pairs.items()}
    z_max = mcs.z_threshold(alpha / 2, len(pairs))
    ok = bool(max(ks.values()) <= ks_max and max(map(abs, corr.values())) <= z_max)
    return ok, (
        computed("Kolmogorov-Smirnov distance from N(0, 1) per kernel", ks, tolerance=ks_max,
                 formula=f"<= {ks_max:.3e} (exact KS law, n = {2 * S * J}, Bonferroni over {tests}, "
                         f"share {alpha / 2:g})"),
        computed("sqrt(n) corr(z0, z1) per kernel", corr, tolerance=z_max,
                 formula=f"|.| <= {z_max:.3f} (normal, share {alpha / 2:g})")), (pairs, ks, corr, sd)

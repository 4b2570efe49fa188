"""Monte Carlo certificates of the band edge and the T3 -> T4 crossover (P19; PSA §6.7, §10, A10.2).

Routes and thresholds as in :mod:`.mc_law`. Default seeds 1900 (band) and 1910 (crossover).
"""
from __future__ import annotations

import math

import numpy as np

from theorylab.certificates.reference import channel_moments as cref
from theorylab.certificates.reference import score_model as ref
from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.certify import montecarlo as mcs
from theorylab.psa.compare import band_edge_check, t3_t4_crossover
from theorylab.psa import transition
from theorylab.psa import moments
from theorylab.psa import masses
from theorylab.certificates.psa._common import REF_TOL, _base, _bernstein, _worse


# ------------------------------------------------------------------------------ P19
BAND_FALSE_FAILURE = 1e-4


@certificate("P19.band", title="The annealed band's upper edge is not a transition of the quenched model",
             paper="PSA §6.7 (beyond the paper)", method="monte-carlo", false_failure=BAND_FALSE_FAILURE,
             claim="Above the annealed upper root (2.245 at (128, 512)) the annealed mass falls below 1/2, but the "
                   "simulated and exact target mass stay above 0.999 up to g = 4.")
def band_upper_edge(seed=None) -> Outcome:
    """MC (``compare.band_edge_check``, 20,000 samples) and the reference integral at g = upper root
    x {1, 1.1, 1.3, 1.5} and g = 4.

    The reference and the simulated mass exceed 0.999; the simulated mass is within its empirical
    Bernstein half-width of the reference (Bonferroni over 5, half the share); the library quadrature
    equals the reference (1e-9) and the library annealed mass the reference's. The threshold 0.999
    itself: for samples in [0, 1] with mean mu, Bernstein's inequality bounds P(MC <= 0.999) by
    exp(-n t^2 / (2 mu (1 - mu) + 2t/3)), t = mu - 0.999; that bound (union over the 5 couplings) must
    stay below the other half of the share.
    """
    alpha = BAND_FALSE_FAILURE
    base = _base(seed, 1900)
    dk, T, n = 128.0, 512, 20000
    upper = float(np.asarray(transition.t4_band(dk, T)[1]))
    g = np.array([upper, 1.1 * upper, 1.3 * upper, 1.5 * upper, 4.0])
    rows = band_edge_check(dk, T, g, samples=n, seed=base)
    col = {k: np.array([r[k] for r in rows]) for k in ("gamma", "mc_mass", "se", "exact_mass", "annealed_mass")}
    refm = np.array([ref.mass("t4-only", float(x), dk, T) for x in g])
    ref_ann = 1.0 / (1.0 + (T - 1) * np.exp(np.array([ref.variance("t4-only", x) / 2 - ref.gap("t4-only", x, dk)
                                                       for x in g])))
    half = _bernstein(col["se"], n, alpha / 2, g.size)
    dev = float(np.max(np.abs(col["mc_mass"] - refm) / half))
    t = refm - 0.999
    false_fail = float(np.sum(np.exp(-n * t**2 / (2 * refm * (1 - refm) + 2 * t / 3)))) if np.all(t > 0) else 1.0
    ann_err = float(np.max(np.abs(col["annealed_mass"] - ref_ann)))
    quad_err = float(np.max(np.abs(col["exact_mass"] - refm)))
    root_ref, row_ok = _band_rows(rows, g, dk, T)
    passed = bool(np.all(col["mc_mass"] > 0.999) and np.all(refm > 0.999) and np.all(col["annealed_mass"] <= 0.5 + 1e-9)
                  and ann_err <= 1e-12 and quad_err <= REF_TOL and dev <= 1.0 and false_fail <= alpha / 2 and row_ok)
    return Outcome(passed, (
        computed("annealed upper root", upper, tolerance=1e-12),
        computed("band_edge_check rows: gamma as asked, upper_root = the reference root of Delta - sigma^2/2 = "
                 "ln(T - 1) in [2, 3] (brentq, rel 1e-9), above_upper_root = gamma >= upper_root (True on [upper, 4], "
                 "the root itself included)", [root_ref, bool(row_ok)]),
        computed("min simulated mass on [upper, 4]", float(col["mc_mass"].min()), tolerance=1e-5),
        computed("min reference mass on [upper, 4]", float(refm.min()), tolerance=1e-12),
        computed("max annealed mass on [upper, 4]", float(col["annealed_mass"].max()), tolerance=1e-9),
        computed("max |library annealed mass - 1/(1 + (T-1) e^(sigma^2/2 - Delta))| (reference)", ann_err,
                 formula="<= 1e-12"),
        computed("max |library quadrature - reference|", quad_err, tolerance=1e-10, formula=f"<= {REF_TOL:g}"),
        computed("max |MC - reference| / empirical Bernstein half-width", dev, tolerance=0.5,
                 formula=f"<= 1 (Bonferroni over {g.size}, share {alpha / 2:g})"),
        bound("P(simulated mass <= 0.999 | correct library)", false_fail,
              formula=f"Bernstein at the reference mean, union over {g.size}: <= {alpha / 2:g}")),
        arrays={**col, "reference_mass": refm}, seeds={"mc": base})


def _band_rows(rows, g, dk: float, T: int) -> tuple[float, bool]:
    """``band_edge_check``'s labels in value: each row's gamma is the coupling asked for, its upper_root the
    reference's annealed upper root (where ``Delta - sigma^2/2 = ln(T - 1)``, brentq on [2, 3] at (128, 512)) and
    its above_upper_root flag ``gamma >= upper_root``."""
    from scipy.optimize import brentq

    f = lambda x: ref.gap("t4-only", x, dk) - ref.variance("t4-only", x) / 2 - ref.log_count(T)
    root = float(brentq(f, 2.0, 3.0, xtol=1e-14))
    ok = len(rows) == len(g)
    for r, x in zip(rows, g):
        ok &= (r.get("gamma") == float(x) and abs(r.get("upper_root", math.inf) / root - 1) <= 1e-9
               and r.get("above_upper_root") is bool(r.get("gamma", math.inf) >= r.get("upper_root", math.inf)))
    return root, bool(ok)


def _crossover_batch_error(res, seed: int) -> float:
    """The crossover's batch-means readout (docstring of ``compare.t3_t4_crossover``: batch means over 20 contiguous
    batches, a 95 % Student-t interval) recomputed from its own batch arrays; inf if a count or label differs."""
    from scipy.stats import t as student_t

    b, c = np.asarray(res.batch_crossover, float), np.asarray(res.batch_cov34, float)
    if not (b.shape == c.shape == (20,) and (res.dk, res.T, res.samples, res.seed) == (64, 512, 2000, seed)):
        return math.inf
    se, cse = float(np.std(b, ddof=1) / math.sqrt(b.size)), float(np.std(c, ddof=1) / math.sqrt(c.size))
    half = float(student_t.ppf(0.975, b.size - 1)) * se
    pairs = ((res.se, se), (res.cov34_se, cse), (res.ci_low, res.measured - half), (res.ci_high, res.measured + half))
    return _worse(0.0, np.array([abs(a - w) / abs(w) for a, w in pairs], float))


CROSSOVER_FALSE_FAILURE = 1e-4


@certificate("P19.crossover", title="T3 -> T4 gap crossover along g", paper="PSA §10, A10.2 (C7)",
             claim="In the t3-inclusive model the T3 gap exceeds the T4 gap exactly for g < 1; the channel gaps of "
                   "the vector-level induction simulation cross there too (the paper's C7 quotes g ~ 0.97), and "
                   "Cov(T3, T4) = 2 g^3.", method="monte-carlo", false_failure=CROSSOVER_FALSE_FAILURE)
def t3_t4_gap_crossover(seed=None) -> Outcome:
    """Reduced-model crossover and Cov(T3, T4)/g^3 (library, looked up at call time; the reference:
    where ``g sqrt(dk) = g^2 sqrt(dk)``, and ``2 g^3 / g^3``) vs the vector-level simulation (dk = 64,
    T = 512, no RoPE, 2000 samples). z-tests with the per-sample standard errors (two-sided normal,
    Bonferroni over 2, half the share); the crossover test allows the finite-context offset ``1/(T-2)``
    of the vector-level measurement (docs/simulation.md, finding (e)) on top of ``z SE``. The batch-means
    standard errors (20 batches, the library's CI) against the per-sample ones,
    ``19 (SE_batch / SE_sample)^2 ~ chi2_19`` (two-sided, a quarter of the share each). ``gap_crossover`` of probe
    gap polynomials (:data:`CROSS_PROBES`) against the positive root of its two terms."""
    alpha = CROSSOVER_FALSE_FAILURE
    base = _base(seed, 1910)
    res = t3_t4_crossover(64, 512, samples=2000, seed=base)
    g1, cov_ref = ref.t3_t4_crossover(), ref.cov_t3_t4(1.0)
    offset = 1.0 / (res.T - 2)                 # target-predecessor key lowers the T3 distractor mean only
    z_root = max(abs(res.closed_form - res.measured) - offset, 0.0) / res.se_per_sample
    z_cov = abs(res.cov34 - res.cov34_model) / res.cov34_se_per_sample
    z_max = mcs.z_threshold(alpha / 2, 2)
    dof = res.batch_crossover.size - 1
    ratio_lo, ratio_hi = mcs.chi2_ratio_bounds(alpha / 4, dof)
    ratios = [(res.se / res.se_per_sample) ** 2, (res.cov34_se / res.cov34_se_per_sample) ** 2]
    batch_err = _crossover_batch_error(res, base)
    chan_err, probe_err = _channel_model_error(), _gap_crossover_probes()
    vec_err, mom_err, rope_err = _vector_level_errors(base)
    passed = bool(probe_err <= 1e-15
                  and chan_err <= 1e-13 and vec_err <= 1e-12 and mom_err <= 1e-12 and rope_err <= 1e-14 and z_root <= z_max and z_cov <= z_max
                  and abs(res.closed_form - g1) <= 1e-12 and abs(res.cov34_model - cov_ref) <= 1e-12
                  and all(ratio_lo <= r <= ratio_hi for r in ratios) and batch_err <= 1e-12)
    return Outcome(passed, (
        computed("channel model (gaps T1-T4, variances, Cov34) vs the reference table, max rel", chan_err,
                 formula="<= 1e-13 (g in [0, 3], dk = 4, 64)"),
        computed("vector level: target masses and argmax accuracies of the four lattice members, comparison "
                 "rows vs the channel formulas (model gaps: reference, T3/T4 times the RoPE match), max abs", vec_err,
                 formula="<= 1e-12 (dk = 16, T = 24, theta 0.05..1.2, pre-RoPE shear, 40 samples, g = 0.4, 1.3)"),
        computed("channel moments (gaps, variances, Cov34, bulk, lag-1, special keys, SEs) vs the per-sample "
                 "reference (reference.channel_moments), max rel", mom_err, formula="<= 1e-12"),
        computed("RoPE match factor (post and pre placement) vs mean cos(offset theta), max abs", rope_err,
                 formula="<= 1e-14"),
        computed("reduced-model crossover (gap_crossover)", res.closed_form, formula=f"reference {g1:.12g} (1e-12)"),
        computed("gap_crossover of probe gap polynomials vs the positive root of c2 g^2 = c1 g (numpy.roots; NaN "
                 "without one), max rel", probe_err,
                 formula=f"<= 1e-15 (inf: NaN misplaced) at gap_poly in {CROSS_PROBES}"),
        computed("measured crossover gap_T3 / gap_T4 (vector level)", res.measured, tolerance=2e-3),
        computed("measured 95 % CI", [res.ci_low, res.ci_high], tolerance=2e-3),
        computed("batch-means readout from the batch arrays: se, cov34_se = sd (n - 1) / sqrt(20), CI = measured "
                 "-/+ t_(0.975, 19) se (scipy), 20 batches, dk, T, samples, seed as asked: max rel", batch_err,
                 formula="<= 1e-12 (inf: a count or label wrong)"),
        computed("(|closed - measured| - 1/(T-2)) / SE", z_root, tolerance=0.5,
                 formula=f"<= {z_max:.3f} (per-sample SE, two-sided normal, Bonferroni over 2, share {alpha / 2:g})"),
        computed("reduced-model Cov(T3, T4) / g^3", res.cov34_model, formula=f"reference {cov_ref:g} (1e-12)"),
        computed("measured bulk Cov(c3, c4) (vector level)", res.cov34, tolerance=1e-2),
        computed("|cov model - measured| / SE", z_cov, tolerance=0.5, formula=f"<= {z_max:.3f}"),
        computed("CI check: (batch-means SE / per-sample SE)^2, crossover and Cov", ratios, tolerance=0.5,
                 formula=f"each in [{ratio_lo:.3f}, {ratio_hi:.3f}] (chi2_{dof}/{dof}, share {alpha / 4:g} each)"),
        bound("paper C7", 0.97, formula="g ~ 0.97 (paper's A10.2 measurement, setting not in its summary; untested)")),
        arrays={"batch_crossover": res.batch_crossover, "batch_cov34": res.batch_cov34},
        seeds={"mc": base}, note=f"dk = {res.dk}, T = {res.T}, theta = {res.theta}, {res.samples} samples")


CROSS_PROBES = ((0.0, 2.0, 0.5), (0.0, -1.0, -4.0), (0.0, 1.0, -1.0), (0.0, -1.0, 1.0), (0.0, 1.0), (0.0, 0.0, 1.0),
                (1.0, 3.0, 2.0, 7.0))
"""Gap polynomials (lowest power first) of the gap_crossover probes: terms crossing at g = 4 and 1/4 (both signs), terms
of opposite signs (no positive crossing), no T4 or no T3 term (none), and higher terms (read: the T3 and T4 ones)."""


def _gap_crossover_probes() -> float:
    """``gap_crossover`` of score models built from :data:`CROSS_PROBES` against the positive root of
    ``c2 g^2 - c1 g`` (numpy.roots of the two terms; NaN when there is none): max rel error, inf for a misplaced NaN
    (or a division by zero)."""
    from theorylab.psa.compare import gap_crossover
    from theorylab.psa.scoremodel import ScoreModel

    err = 0.0
    for poly in CROSS_PROBES:
        c = tuple(poly) + (0.0, 0.0)
        roots = [r.real for r in np.roots([c[2], -c[1], 0.0]) if abs(r.imag) == 0 and r.real > 0] if c[2] else []
        want = roots[0] if roots else math.nan
        try:
            got = gap_crossover(ScoreModel("t3-inclusive", tuple(poly), (0.0, 0.0, 2.0, 4.0, 4.0), "probe"))
        except ZeroDivisionError:                  # a missing T4 term divided by: not the documented NaN
            got = math.inf
        if np.isnan(want) or np.isnan(got):
            err = max(err, 0.0 if np.isnan(want) and np.isnan(got) else math.inf)
        else:
            err = max(err, abs(got / want - 1))
    return err


def _channel_model_error() -> float:
    """The per-channel model the vector-level simulation is compared with (``induction.reduced_channel_model``:
    gaps T1-T4, variances, Cov34) against the reference's channel table, max rel (g in [0, 3], dk = 4, 64)."""
    from theorylab.psa.induction import reduced_channel_model

    cm, chan_err = reduced_channel_model(), 0.0
    for x in np.linspace(0.0, 3.0, 13):
        for d in (4.0, 64.0):
            t3, t4 = ref.channel_gaps(x, d)
            want = {"T1": (0.0, 1.0), "T2": (0.0, ref.channel_variances(x)["T2"]),
                    "T3": (t3, ref.channel_variances(x)["T3"]), "T4": (t4, ref.channel_variances(x)["T4"])}
            chan_err = max([chan_err, abs(float(cm.cov34_at(x)) - ref.cov_t3_t4(x)) / max(1.0, ref.cov_t3_t4(x))]
                           + [abs(float(f(c)) - w) / max(1.0, abs(w)) for c, (wg, wv) in want.items()
                              for f, w in ((lambda c: cm.gap_at(c, x, d), wg), (lambda c: cm.var_at(c, x), wv))])
    return chan_err


def _vector_level_errors(base: int) -> tuple[float, float, float]:
    """A small vector-level sample (seed base + 1) against the channel formulas: target masses, argmax accuracies
    and comparison rows (max abs), channel moments against ``reference.channel_moments`` (max rel), and the RoPE
    match factor against mean cos(offset theta) (max abs)."""
    # the vector-level masses and comparison rows of a small sample against the channel formulas: scores
    # c1 + g_q c2 + g_k c3 + g_q g_k c4 with (g_q, g_k)/g = (0,0), (1,0), (0,1), (1,1) (PSA §5, P5), and
    # measured T_i moments = unit-channel moments x g^deg (x g^(2 deg) for variances), deg (0, 1, 1, 2)
    from scipy.special import softmax as sp_softmax

    from theorylab.psa import induction as ind

    # (RoPE on, distinct plane frequencies, shear before RoPE: the model gaps carry the RoPE match factor)
    small = ind.simulate(16, 24, theta=np.linspace(0.05, 1.2, 8), samples=40, seed=base + 1, placement="pre")
    gs = np.array([0.4, 1.3])
    C, tgt = small.channels, small.target
    vec_err = 0.0
    for member, (qa, kb) in {"standard": (0, 0), "query-only": (1, 0), "key-only": (0, 1), "symmetric": (1, 1)}.items():
        sc = [C[:, 0] + qa * x * C[:, 1] + kb * x * C[:, 2] + qa * kb * x * x * C[:, 3] for x in gs]
        want = np.array([sp_softmax(v, axis=-1)[np.arange(len(tgt)), tgt].mean() for v in sc])
        want_acc = np.array([np.mean(np.argmax(v, axis=-1) == tgt) for v in sc])
        got = masses.target_mass(small, gs, member)
        vec_err = max(vec_err, float(np.max(np.abs(got[0] - want))), float(np.max(np.abs(got[2] - want_acc))))
    mom, mom_err = moments.channel_moments(small), 0.0
    for name, want in cref.channel_moments(C, tgt).items():
        got = getattr(mom, name)
        pairs = [(got[key], want[key]) for key in want] if isinstance(want, dict) else [(got, want)]
        mom_err = max([mom_err] + [float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b)))) for a, b in pairs])
    # RoPE's predecessor match: mean over targets j = 1..T-3 and planes of cos(offset theta), offset T - j (shear
    # after RoPE, "post") or T - 1 - j ("pre"), written out here
    offsets = {"post": small.T - np.arange(1, small.T - 2), "pre": small.T - 1 - np.arange(1, small.T - 2)}
    rope_ref = float(np.mean(np.cos(np.outer(offsets[small.placement], small.freqs))))
    for r in moments.comparison_rows(small, gs, mom):
        if r["channel"] in ("T1", "T2", "T3", "T4"):
            c = ("T1", "T2", "T3", "T4").index(r["channel"])
            deg = (0, 1, 1, 2)[c]
            t3, t4 = ref.channel_gaps(r["g"], small.dk)
            gap_ref = {"T1": 0.0, "T2": 0.0, "T3": t3, "T4": t4}[r["channel"]]
            vec_err = max(vec_err, abs(r["gap_model"] - gap_ref) / max(1.0, abs(gap_ref)),
                          abs(r["gap_model_rope"] - gap_ref * (rope_ref if c >= 2 else 1.0)) / max(1.0, abs(gap_ref)),
                          abs(r["var_bulk"] - mom.bulk_var[c] * r["g"] ** (2 * deg)),
                          abs(r["var"] - mom.var[c] * r["g"] ** (2 * deg)), abs(r["gap"] - mom.gap[c] * r["g"] ** deg),
                          abs(r["var_se"] - mom.var_se[c] * r["g"] ** (2 * deg)),
                          abs(r["gap_se"] - mom.gap_se[c] * r["g"] ** deg))
        else:                                          # the Cov(T3, T4) row scales as g^3
            vec_err = max(vec_err, abs(r["var"] - mom.cov34 * r["g"] ** 3),
                          abs(r["var_se"] - mom.cov34_se * r["g"] ** 3), abs(r["var_bulk"] - mom.bulk_cov34 * r["g"] ** 3))
    rope_err = max(abs(moments.rope_match_factor(small.T, small.freqs, p) - float(np.mean(np.cos(np.outer(o, small.freqs)))))
                   for p, o in offsets.items())
    return vec_err, mom_err, rope_err

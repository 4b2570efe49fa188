"""The simulator's variants, kernels and target noise against the reference mass (P17.variants; PSA §6.6-6.8, §10).

Routes and thresholds as in :mod:`.mc_law`: the Numba simulation and the library quadrature against
:mod:`theorylab.certificates.reference.score_model`; empirical Bernstein for simulated means, a chi-square
test for the batch-means standard error. Default seed 1750; ``theorylab certify --seed N`` replaces it.
"""
from __future__ import annotations

import math

import numpy as np

from theorylab.certificates.reference import score_model as ref
from theorylab.certify import Outcome, certificate, computed
from theorylab.certify import montecarlo as mcs
from theorylab.psa.scoremodel import VARIANTS, distractors, score_model
from theorylab.psa.montecarlo import loading_variance_poly, per_sample_mass, simulate_mass
from theorylab.psa.quadrature import exact_mass, one_minus_phi
from theorylab.certificates.psa._common import REF_TOL, _base, _bernstein


# ------------------------------------------------------------------------------ P17.variants
VARIANTS_FALSE_FAILURE = 1e-4
VARIANT_RUNS = (("t4-only", "float32", 0.0), ("t3-inclusive", "float32", 0.0), ("key-only", "float32", 0.0),
                ("symmetric-key-convention", "float32", 0.0), ("key-only", "float32", 1.0),
                ("t4-only", "float64", 0.6), ("t3-inclusive", "float64", 0.0))
"""(variant, kernel dtype, target noise sigma0): every variant, both kernels (one- and two-normal
branches), target noise in both kernels (sigma0 = 1 and 0.6: the noise scale is not read as 1)."""
VARIANT_POINT = (16.0, 64, (0.5, 1.0, 2.0), 20000)
"""(dk, T, couplings, samples) of every run: masses between 0.02 and 0.55."""
FROZEN_POINT = ("t4-only", 4.0, 64, 2.0, 100_000)
"""(variant, dk, T, g, samples): deep in the frozen phase (mass 6.6e-4, single distractors above
the target by e^6 and more), where the float32 kernel's exp clipping would show."""
LARGE_NOISE = ("t4-only", 0.3, (2.0, 3.0))
"""(variant, g, sigma0s) of the large-target-noise check of the quadrature (dk, T of VARIANT_POINT): sigma0 = 2, 3
against a distractor spread sigma = 0.18, where a fixed 40-node Gauss-Hermite average erred by 2.5e-9 and 1.8e-6."""
GIVEN_POINTS = ((4.0, 2.0, 62), (2.0, 1.0, 10.5))
"""(Delta, sigma, m) of the per-point mass ``mass_given``: t4-only at dk = 16, g = 1, T = 64, and a real count m."""
PHI_POINTS = ((-45.0, 20.0, 5.0), (-10.0, 40.0, 4.0), (0.0, 50.0, 8.0), (-30.0, 20.0, 3.0), (0.0, 0.0, 1.0),
              (2.0, 1.0, 30.0))
"""(t, Delta, sigma) of the relative-precision check of ``1 - phi`` (values 1e-23 to 0.6)."""


@certificate("P17.variants", title="Every simulator variant, kernel and target noise vs the reference mass",
             paper="PSA §6.6-6.8, §10 (simulation route of P17-P19)", method="monte-carlo",
             false_failure=VARIANTS_FALSE_FAILURE,
             claim="The Monte Carlo of the reduced model simulates what each variant (t4-only, t3-inclusive, "
                   "key-only, symmetric-key-convention) says: its mean target mass agrees with an independent "
                   "integral of the paper's model, for both kernels and with target noise, and its standard "
                   "errors are right.")
def simulator_variants(seed=None) -> Outcome:
    """Each run of :data:`VARIANT_RUNS` at :data:`VARIANT_POINT` (seed base + i).

    Deterministic: the library's gap, variance, loadings and ``m`` equal the reference's; the
    library quadrature equals the reference integral (1e-9), the per-point ``mass_given`` too (1e-12);
    ``simulate_mass`` aggregates the
    per-sample masses of ``per_sample_mass`` exactly (mean, SE, batch means). Statistical (share
    1/2 each): every simulated mean within its empirical Bernstein half-width of the reference
    (Bonferroni over the runs x couplings and :data:`FROZEN_POINT`); the batch-means SE against the per-sample SE at the
    middle coupling of each run, pooled (chi2 with runs x (B-1) degrees of freedom).
    """
    alpha = VARIANTS_FALSE_FAILURE
    base = _base(seed, 1750)
    dk, T, gammas, n = VARIANT_POINT
    g = np.array(gammas)
    tests = len(VARIANT_RUNS) * g.size + 1
    model_err, var_err, load_err, m_ok, phi_err, same_variants = _model_errors()
    mc, se, half, refm, lib, ratio_terms, batches = _variant_runs(base, alpha, tests)
    fv, fdk, fT, fg, fn = FROZEN_POINT
    frozen = simulate_mass(fv, fdk, fT, [fg], samples=fn, seed=base + len(VARIANT_RUNS))
    frozen_ref = ref.mass(fv, fg, fdk, fT)
    frozen_dev = float(abs(frozen.mass[0] - frozen_ref) / _bernstein(frozen.se, fn, alpha / 2, tests)[0])
    dof = len(VARIANT_RUNS) * (batches - 1)
    ratio = float(np.sum(ratio_terms) / dof)
    ratio_lo, ratio_hi = mcs.chi2_ratio_bounds(alpha / 2, dof)
    quad_err = float(np.max(np.abs(lib - refm)))
    nv, ng, ns0 = LARGE_NOISE
    noise_err = max(abs(float(exact_mass(nv, dk, T, [ng], sigma0=s0)[0]) - ref.mass(nv, ng, dk, T, s0)) for s0 in ns0)
    dev = np.abs(mc - refm) / half
    given_err = _mass_given_error()
    # aggregation: simulate_mass == numpy statistics of the per-sample masses (2500 samples: two chunks)
    variant, dtype, sigma0 = VARIANT_RUNS[1]
    raw = per_sample_mass(variant, dk, T, g, 0, 2500, seed=base + 1, sigma0=sigma0, dtype=dtype)
    small = simulate_mass(variant, dk, T, g, samples=2500, seed=base + 1, sigma0=sigma0, dtype=dtype)
    agg_err = max(float(np.max(np.abs(small.mass - raw.mean(0)))),
                  float(np.max(np.abs(small.se - raw.std(0, ddof=1) / math.sqrt(len(raw))))),
                  float(np.max(np.abs(small.batch_mass - raw.reshape(small.batch_mass.shape[0], -1, g.size).mean(1)))))
    passed = bool(same_variants and m_ok and phi_err <= 1e-12 and model_err <= 1e-13 and var_err <= 1e-13
                  and load_err <= 1e-13
                  and quad_err <= REF_TOL and given_err <= 1e-12
                  and noise_err <= 1e-11 and agg_err <= 1e-12 and np.all(dev <= 1.0) and frozen_dev <= 1.0
                  and ratio_lo <= ratio <= ratio_hi)
    return Outcome(passed, (
        computed("simulator variants == reference variants, all simulated", same_variants),
        computed("library m == reference T - 2 (T = 3, 15, 64, 512, 1e5)", m_ok),
        computed("max rel |library 1 - phi - reference| (left tail to centre)", phi_err, tolerance=1e-13,
                 formula=f"<= 1e-12 (documented: full relative precision) at (t, Delta, sigma) in {PHI_POINTS}"),
        computed("max rel |library gap - reference gap|", model_err, formula="<= 1e-13"),
        computed("max rel |library variance - reference variance|", var_err, formula="<= 1e-13"),
        computed("max rel |a(g)^2 + b(g)^2 (simulator loadings) - reference variance|", load_err, formula="<= 1e-13"),
        computed("max |library quadrature - reference integral|", quad_err, tolerance=1e-10, formula=f"<= {REF_TOL:g}"),
        computed("public mass_given (default refine) vs the reference integral (reference.row_entropy.row_moments), "
                 "max abs", given_err, formula=f"<= 1e-12 at (Delta, sigma, m) in {GIVEN_POINTS} (a real m allowed)"),
        computed(f"large target noise {LARGE_NOISE} (variant, g, sigma0s): max |library quadrature - reference integral|",
                 noise_err, tolerance=1e-12, formula="<= 1e-11 (the reference's accuracy; the library's adapted rule)"),
        computed("max |simulate_mass - numpy over per_sample_mass| (mean, SE, batch means)", agg_err,
                 tolerance=1e-12, formula="<= 1e-12"),
        computed("max |MC - reference| / empirical Bernstein half-width", float(np.max(dev)), tolerance=0.5,
                 formula=f"<= 1 (Maurer-Pontil, Bonferroni over {tests}, share {alpha / 2:g})"),
        computed("max |MC - reference| / SE", float(np.max(np.abs(mc - refm) / se)), tolerance=1.0),
        computed(f"frozen point {FROZEN_POINT[:4]}: MC, reference", [float(frozen.mass[0]), frozen_ref],
                 tolerance=2e-4),
        computed("frozen point |MC - reference| / empirical Bernstein half-width", frozen_dev, tolerance=0.5,
                 formula="<= 1 (same Bonferroni family)"),
        computed("SE check: pooled (batch-means SE / per-sample SE)^2", ratio, tolerance=0.3,
                 formula=f"in [{ratio_lo:.3f}, {ratio_hi:.3f}] (chi2_{dof}/{dof}, share {alpha / 2:g})"),
        computed("max |library quadrature - MC| / SE (consistency: same model code)",
                 float(np.max(np.abs(mc - lib) / se)), tolerance=1.0)),
        arrays={"mc_mass": mc, "mc_se": se, "bernstein_halfwidth": half, "reference_mass": refm,
                "library_quadrature": lib, "per_sample_mass": raw,
                "frozen_mass_se": np.array([frozen.mass[0], frozen.se[0]])},
        seeds={f"run{i}": base + i for i in range(len(VARIANT_RUNS) + 1)},
        note=f"runs (variant, dtype, sigma0) = {VARIANT_RUNS}; dk = {dk:g}, T = {T}, g = {gammas}, {n} samples each")


def _mass_given_error() -> float:
    """``quadrature.mass_given`` (every option at its default) at :data:`GIVEN_POINTS` against the reference mass
    ``E p_0`` of ``reference.row_entropy.row_moments`` (its own integral, analytic in m): max abs error."""
    from theorylab.certificates.reference.row_entropy import row_moments
    from theorylab.psa.quadrature import mass_given

    return float(np.max([abs(mass_given(d, s, m) - row_moments(d, s, m)[0]) for d, s, m in GIVEN_POINTS]))


def _model_errors() -> tuple[float, float, float, bool, float, bool]:
    """The model itself: the library's gap, variance and simulator loadings against the reference's channel sums
    (max rel), ``m`` against T - 2, ``1 - phi`` at :data:`PHI_POINTS` (max rel) and the variants simulated."""
    grid = np.linspace(0.0, 3.0, 13)
    model_err = max(max(abs(float(score_model(v).gap(x, d)) - ref.gap(v, x, d)) / max(1.0, ref.gap(v, x, d))
                        for x in grid for d in (4.0, 16.0, 128.0)) for v in ref.VARIANTS)
    var_err = max(max(abs(float(score_model(v).variance(x)) - ref.variance(v, x)) / max(1.0, ref.variance(v, x))
                      for x in grid) for v in ref.VARIANTS)
    load_err = max(max(abs(float(np.polynomial.polynomial.polyval(x, loading_variance_poly(v))) - ref.variance(v, x))
                       / max(1.0, ref.variance(v, x)) for x in grid) for v in ref.VARIANTS)
    m_ok = all(int(distractors(t)) == ref.distractors(t) for t in (3, 15, 64, 512, 100_000))
    # 1 - phi to full relative precision, far left tail (closed form past y = -36) to the centre
    phi_err = max(abs(float(one_minus_phi(t, d, s)) / ref.one_minus_phi(t, d, s) - 1) for t, d, s in PHI_POINTS)
    same_variants = set(VARIANTS) == set(ref.VARIANTS) == {r[0] for r in VARIANT_RUNS}
    return model_err, var_err, load_err, m_ok, phi_err, same_variants


def _variant_runs(base: int, alpha: float, tests: int):
    """Each run of :data:`VARIANT_RUNS` (seed base + i): simulated masses, SEs and Bernstein half-widths, the
    reference and library-quadrature masses, and the per-run chi-square terms of the middle coupling's batch means."""
    dk, T, gammas, n = VARIANT_POINT
    g = np.array(gammas)
    mc, se, half, refm, lib, ratio_terms, batches = [], [], [], [], [], [], 0
    for i, (variant, dtype, sigma0) in enumerate(VARIANT_RUNS):
        curve = simulate_mass(variant, dk, T, g, samples=n, seed=base + i, sigma0=sigma0, dtype=dtype)
        mc.append(curve.mass), se.append(curve.se), half.append(_bernstein(curve.se, n, alpha / 2, tests))
        refm.append([ref.mass(variant, float(x), dk, T, sigma0) for x in g])
        lib.append(exact_mass(variant, dk, T, g, sigma0=sigma0))
        b = curve.batch_mass[:, 1]
        batches = b.size
        ratio_terms.append((b.size - 1) * np.var(b, ddof=1) / b.size / curve.se[1] ** 2)
    mc, se, half, refm, lib = map(np.array, (mc, se, half, refm, lib))
    return mc, se, half, refm, lib, ratio_terms, batches

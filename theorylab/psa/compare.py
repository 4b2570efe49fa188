"""Prediction vs simulation for the PSA reduced score model: the findings beyond the paper (docs/simulation.md).

* the condensation constant c calibrated on condensed points (:func:`calibrate_condensation_c`,
  exact quadrature, confirmed by Monte Carlo);
* above the t4-only annealed band: annealed vs exact vs simulated mass (:func:`band_edge_check`);
* the argmax plateau at large g vs the exact and simulated mass (:func:`plateau_check`);
* the T3 -> T4 gap crossover measured in the vector-level induction simulation
  (:func:`t3_t4_crossover`) beside the reduced model's (:func:`gap_crossover`).

The paper's own comparison -- law, exact and Monte Carlo gamma_c over a grid, the grid files
and the agreement statistics -- is :mod:`theorylab.psa.grid`; every public name there is
re-exported here, so ``from theorylab.psa.compare import compare_grid`` keeps working. Point
``i`` of a multi-point check uses seed ``(seed + i) mod 2^64``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab._results import scalar_output, to_frame
from theorylab.errors import ParameterError, choice, derived_seed, positive_int, real_array, seed_int
from theorylab.psa import transition
from theorylab.psa.grid import (GRID_BYTES_PER_BYTE, PAPER_GRID, PAPER_STATISTICS, Comparison,  # noqa: F401 (re-export)
                                PaperStatistics, compare_grid, compare_grid_cost, pearson_r, read_grid,
                                read_grid_cost, relative_error, validate_grid)
from theorylab.psa.scoremodel import VARIANTS, ScoreModel, log_count


CALIBRATION_GRID: tuple[tuple[float, int], ...] = (
    tuple((16.0, T) for T in (12, 16, 24, 32, 48, 64)) + tuple((32.0, T) for T in (128, 256, 512)))
"""The earlier nine condensed points (dk < 8L) of the half-plateau calibration (c = 0.854):
dk = 16 x T in {12, 16, 24, 32, 48, 64} and dk = 32 x T in {128, 256, 512}; the argmax plateau
is >= 0.20 at each, so the half-plateau observable is defined. The library's calibration now
uses :data:`CONDENSED_GRID`; this grid stays for comparison (docs/simulation.md, finding (d))."""


@scalar_output
def annealed_mass(variant: str, dk, T, gammas) -> np.ndarray:
    """The annealed mass ``1 / (1 + (T-1) exp(sigma^2/2 - Delta))``: its 1/2-level is the annealed crossing.

    (The annealed partition function replaces sum_j e^(x_j) by its mean, with the
    log-count L = ln(T - 1) of the closed forms.)

    Examples
    --------
    The annealed mass of t4-only on a g grid:

    >>> import theorylab.psa as psa
    >>> print(psa.annealed_mass('t4-only', 64, 512, [0.5, 1.0, 1.5]).round(4))
    [0.0126 0.4412 0.8373]
    """
    from theorylab.psa.scoremodel import score_model

    model = score_model(choice("variant", variant, VARIANTS))
    g = real_array("gammas", gammas, low=0)
    expo = log_count(T) + model.variance(g) / 2.0 - model.gap(g, dk)
    return np.exp(-np.logaddexp(0.0, expo))


CONDENSED_GRID: tuple[tuple[float, int], ...] = tuple((dk, T) for dk in (8.0, 16.0, 32.0) for T in (64, 512, 2048))
"""Nine condensed points for the condensation constant: dk in {8, 16, 32} x T in {64, 512, 2048}
(8L = 33.1, 49.9, 61.0, so dk < 8L at each), the T values of :data:`PAPER_GRID` below the crossover.
The paper's nine condensed points are not in its summary; these are ours."""


CONDENSED_SCAN: tuple[tuple[float, int], ...] = tuple((16.0, 2**k) for k in range(4, 12))
"""Eight condensed points along T at dk = 16: T in {16, 32, ..., 2048} (dk < 8L at each), the scan
of study (b) and certificate P24; the paper's eight dk = 16 points are not in its summary."""


@dataclass(frozen=True)
class Calibration:
    """The condensation constant c of one observable on condensed points (PSA §6.7).

    Per point ``c_i = g_obs / (L/2)^(1/4)``: the observable's coupling over the freezing coupling.
    ``c`` is the mean of the c_i from the **exact quadrature** (the calibration: deterministic),
    ``spread`` their standard deviation across points (the observable's own drift with T and dk;
    the paper quotes 0.741 +/- 0.015), ``n`` the points where the observable exists. The Monte
    Carlo confirms it: ``mc_c`` is the mean of the simulated c_i, ``ci_low, ci_high`` its 95 %
    statistical interval from the per-point batch-means intervals (NaN without Monte Carlo).
    """

    observable: str
    c: float
    spread: float
    n: int
    mc_c: float
    ci_low: float
    ci_high: float
    rows: tuple[dict, ...]
    samples: int
    seed: int

    def to_frame(self):
        """:attr:`rows` (one per point) as a ``pandas.DataFrame`` (pandas: the optional extra
        ``theorylab[pandas]``)."""
        return to_frame(list(self.rows))


def calibrate_condensation_c(points=CONDENSED_GRID, *, observable: str | None = None, samples: int = 20000,
                             seed: int = 0, monte_carlo: bool = True, progress: bool | None = None) -> Calibration:
    """Calibrate c on condensed points (t4-only; see :class:`Calibration`); point i uses seed + i (mod 2^64).

    ``observable`` defaults to :data:`theorylab.psa.transition.CONDENSATION_OBSERVABLE` (the one the
    library's ``CONDENSATION_C`` is calibrated with); any name of
    :data:`theorylab.psa.observables.OBSERVABLE_NAMES` is allowed.

    Examples
    --------
    The c of the half-plateau observable on two condensed points, exact quadrature only (no Monte Carlo);
    :meth:`Calibration.to_frame` gives the per-point table:

    >>> import theorylab.psa as psa
    >>> cal = psa.calibrate_condensation_c(((16.0, 64), (32.0, 64)), observable='half-plateau', monte_carlo=False)
    >>> round(cal.c, 3), cal.n, cal.observable
    (0.81, 2, 'half-plateau')
    """
    from theorylab.psa.observables import measure, observable as lookup

    observable = observable or transition.CONDENSATION_OBSERVABLE
    lookup(observable)
    pts = validate_grid(points)
    samples = positive_int("samples", samples)
    seed = seed_int("seed", seed)
    nan = float("nan")
    rows = []
    for i, (dk, T) in enumerate(pts):
        if dk >= float(transition.crossover_dk(T)):
            raise ParameterError(f"calibration points must be condensed, dk < 8L (got dk={dk:g}, T={T})")
        gf = float(transition.freezing_coupling(T))
        ex = measure(observable, "t4-only", dk, T)
        mc = measure(observable, "t4-only", dk, T, method="mc", samples=samples, seed=derived_seed(seed, i),
                     progress=progress) if monte_carlo else None
        rows.append({"dk": dk, "T": T, "g_freeze": gf, "level": ex.level, "exact_gamma_c": ex.gamma_c,
                     "mc_gamma_c": mc.gamma_c if mc else nan, "mc_ci_low": mc.ci_low if mc else nan,
                     "mc_ci_high": mc.ci_high if mc else nan, "c_exact": ex.gamma_c / gf,
                     "c_mc": mc.gamma_c / gf if mc else nan, "seed": derived_seed(seed, i)})
    c_i = np.array([r["c_exact"] for r in rows])
    ok = np.isfinite(c_i)
    c = float(np.mean(c_i[ok])) if ok.any() else nan
    spread = float(np.std(c_i[ok], ddof=1)) if ok.sum() > 1 else nan
    mc_i = np.array([r["c_mc"] for r in rows])
    half = np.array([(r["mc_ci_high"] - r["mc_ci_low"]) / 2.0 / r["g_freeze"] for r in rows])
    if monte_carlo and np.all(np.isfinite(mc_i[ok])) and np.all(np.isfinite(half[ok])) and ok.any():
        mc_c = float(np.mean(mc_i[ok]))
        hw = float(np.sqrt(np.sum(half[ok] ** 2)) / ok.sum())
        ci = (mc_c - hw, mc_c + hw)
    else:
        mc_c, ci = nan, (nan, nan)
    return Calibration(observable, c, spread, int(ok.sum()), mc_c, ci[0], ci[1], tuple(rows),
                       samples if monte_carlo else 0, seed)


def band_edge_check(dk: float = 128.0, T: int = 512, gammas=(2.0, 2.245, 2.5, 3.0, 3.5, 4.0), *,
                    samples: int = 20000, seed: int = 0) -> list[dict]:
    """Above the annealed band's upper root: annealed vs exact vs simulated mass at each g (t4-only).

    The t4-only annealed mass falls back below 1/2 above ``t4_band(dk, T)[1]``
    (2.245 at (128, 512)); the quenched model (quadrature, simulation) says otherwise: the rows hold
    :func:`annealed_mass`, :func:`theorylab.psa.quadrature.exact_mass` and
    :func:`theorylab.psa.montecarlo.simulate_mass` at each g. One row per g, with the upper root
    (:func:`theorylab.psa.transition.t4_band`).

    Examples
    --------
    Above t4-only's annealed band edge the annealed mass is far from the exact one:

    >>> import theorylab.psa as psa
    >>> rows = psa.band_edge_check(dk=32.0, T=64, gammas=(3.0,), samples=1000)
    >>> sorted(rows[0])[:4]
    ['above_upper_root', 'annealed_mass', 'exact_mass', 'gamma']
    >>> print(f"{rows[0]['exact_mass']:.4f}")
    0.8595
    """
    from theorylab.psa.montecarlo import simulate_mass
    from theorylab.psa.quadrature import exact_mass

    g = real_array("gammas", gammas, low=0)
    seed = seed_int("seed", seed)
    curve = simulate_mass("t4-only", dk, T, g, samples=samples, seed=seed)
    ex = exact_mass("t4-only", dk, T, g)
    ann = annealed_mass("t4-only", dk, T, g)
    upper = float(np.asarray(transition.t4_band(dk, T)[1]))
    return [{"gamma": float(gi), "upper_root": upper, "above_upper_root": bool(gi >= upper),
             "annealed_mass": float(a), "exact_mass": float(e), "mc_mass": float(m), "se": float(se)}
            for gi, a, e, m, se in zip(g, ann, ex, curve.mass, curve.se)]


def plateau_check(points=((16.0, 64), (32.0, 512), (40.0, 512), (64.0, 512)), *, g: float = 10.0,
                  samples: int = 200_000, seed: int = 0) -> list[dict]:
    """Argmax plateau ``Phi(sqrt(dk)/2)^m`` vs the simulated and exact mass at large g (t4-only).

    Point i uses seed ``seed + i`` (mod 2^64). Rows: plateau
    (:func:`theorylab.psa.transition.argmax_plateau`), exact M(g), MC M(g)
    (:func:`theorylab.psa.montecarlo.simulate_mass`) with SE,
    ``mc_minus_plateau`` and ``z = (MC - plateau) / SE`` (NaN when SE = 0: every sample gave the same
    mass), ``exact_minus_plateau``.

    Examples
    --------
    The argmax plateau beside the exact mass at large g:

    >>> import theorylab.psa as psa
    >>> row = psa.plateau_check(((16.0, 64),), samples=2000)[0]
    >>> print(f"{row['plateau']:.4f} {row['exact_mass']:.4f}")
    0.2401 0.2401
    """
    from theorylab.psa.montecarlo import simulate_mass
    from theorylab.psa.quadrature import exact_mass

    seed = seed_int("seed", seed)
    rows = []
    for i, (dk, T) in enumerate(validate_grid(points)):
        p = float(np.asarray(transition.argmax_plateau(dk, T)))
        curve = simulate_mass("t4-only", dk, T, [g], samples=samples, seed=derived_seed(seed, i))
        mc, se, ex = float(curve.mass[0]), float(curve.se[0]), float(exact_mass("t4-only", dk, T, g))
        rows.append({"dk": dk, "T": T, "gamma": g, "plateau": p, "exact_mass": ex, "mc_mass": mc, "se": se,
                     "mc_minus_plateau": mc - p, "z": (mc - p) / se if se > 0 else float("nan"),
                     "exact_minus_plateau": ex - p,
                     "seed": derived_seed(seed, i)})
    return rows


def gap_crossover(model: ScoreModel | None = None) -> float:
    """Reduced-model T3 -> T4 crossover: the g > 0 where the degree-1 (T3) gap term equals the
    degree-2 (T4) term, ``gap_poly[1] g = gap_poly[2] g^2`` (PSA §6.2, §10; 1 for t3-inclusive).

    ``model`` defaults to ``score_model("t3-inclusive")``, looked up at call time. NaN if the two
    terms do not cross at a positive g.

    Examples
    --------
    Where the T3 gap term equals the T4 term (the default model):

    >>> import theorylab.psa as psa
    >>> round(psa.gap_crossover(), 4)
    1.0
    """
    from theorylab.psa.scoremodel import score_model

    model = model or score_model("t3-inclusive")
    c = tuple(model.gap_poly) + (0.0, 0.0)
    return float(c[1] / c[2]) if c[1] * c[2] > 0 else float("nan")


CROSSOVER_BATCHES = 20
"""Contiguous sample batches for the crossover's batch-means standard errors."""


@dataclass(frozen=True, eq=False)
class Crossover:
    """T3 -> T4 gap crossover measured at the vector level beside the reduced model's.

    Attributes
    ----------
    closed_form : :func:`gap_crossover` of the model (1 for the spec).
    measured : ``gap[T3] / gap[T4]`` of the unit-coupling channel gaps over all samples (the
        T3 gap is ``g gap3``, the T4 gap ``g^2 gap4``, so they meet at ``g = gap3 / gap4``).
    se, ci_low, ci_high : batch-means standard error and 95 % t-interval of ``measured``.
    cov34, cov34_se : measured bulk Cov(c3, c4) at unit coupling (``Cov(T3, T4) / g^3``) and its
        batch-means SE.
    cov34_model : the reduced model's ``Cov(T3, T4) / g^3`` (2 for the spec).
    batch_crossover, batch_cov34 : the per-batch values (raw evidence).
    dk, T, theta, samples, seed : what was simulated.
    se_per_sample, cov34_se_per_sample : the same two standard errors from the per-sample spread
        (delta method for the ratio), an estimate independent of the batching.
    """

    closed_form: float
    measured: float
    se: float
    ci_low: float
    ci_high: float
    cov34: float
    cov34_se: float
    cov34_model: float
    batch_crossover: np.ndarray
    batch_cov34: np.ndarray
    dk: int
    T: int
    theta: object
    samples: int
    seed: int
    se_per_sample: float = float("nan")
    cov34_se_per_sample: float = float("nan")


def t3_t4_crossover(dk: int = 64, T: int = 512, *, theta=0.0, samples: int = 2000, seed: int = 0,
                    placement: str = "post", model: ScoreModel | None = None) -> Crossover:
    """T3 -> T4 crossover along g, measured in the vector-level induction simulation (PSA §10, A10.2 C7).

    Route: :func:`theorylab.psa.induction.simulate` draws canonical induction streams
    (isotropic tokens, optional RoPE ``theta``), :func:`~theorylab.psa.induction.channel_moments`
    measures the unit-coupling channel gaps (target minus the mean of the sample's own T - 2
    distractors) and the bulk within-sample Cov(c3, c4). Nothing here reads the reduced model
    except ``closed_form`` and ``cov34_model``, which are reported beside the measurement.
    Standard errors: batch means over :data:`CROSSOVER_BATCHES` contiguous batches.

    Parameters
    ----------
    dk : even head width >= 2.  T : context length, integer >= 9 (``theorylab.psa.moments.BULK_MIN_T``).
    theta : RoPE angle(s) as in :func:`theorylab.psa.induction.frequencies` (0 = no RoPE).
    samples : >= 2 per batch (40).  seed : in [0, 2^64).  placement : "post" (paper) or "pre".
    model : reduced model for ``closed_form`` (default the library's t3-inclusive).

    Examples
    --------
    The measured T3 -> T4 crossover in a small induction simulation:

    >>> import theorylab.psa as psa
    >>> cr = psa.t3_t4_crossover(dk=8, T=16, samples=100)
    >>> cr.closed_form, round(cr.measured, 1)
    (1.0, 1.2)
    """
    from dataclasses import replace

    from scipy.stats import t as student_t

    from theorylab.psa import induction
    from theorylab.psa import moments as psa_moments

    samples = positive_int("samples", samples, low=2 * CROSSOVER_BATCHES)
    positive_int("T", T, low=psa_moments.BULK_MIN_T)
    sample = induction.simulate(dk, T, theta, samples=samples, seed=seed, placement=placement)
    t3, t4 = induction.CHANNELS.index("T3"), induction.CHANNELS.index("T4")

    def measure(s) -> tuple[float, float, psa_moments.ChannelMoments]:
        mom = psa_moments.channel_moments(s)
        return float(mom.gap[t3] / mom.gap[t4]), float(mom.bulk_cov34), mom

    crossing, cov, mom = measure(sample)
    v = mom.gap_cov                                           # delta method for gap3 / gap4
    se_ratio = float(np.sqrt(v[t3, t3] - 2 * crossing * v[t3, t4] + crossing**2 * v[t4, t4]) / mom.gap[t4])
    per = np.array([measure(replace(sample, channels=sample.channels[i], target=sample.target[i]))[:2]
                    for i in np.array_split(np.arange(samples), CROSSOVER_BATCHES)])
    se = per.std(axis=0, ddof=1) / np.sqrt(CROSSOVER_BATCHES)
    half = float(student_t.ppf(0.975, CROSSOVER_BATCHES - 1) * se[0])
    cov_model = float(induction.reduced_channel_model().cov34_at(1.0))
    return Crossover(gap_crossover(model), crossing, float(se[0]), crossing - half, crossing + half, cov,
                     float(se[1]), cov_model, per[:, 0], per[:, 1], sample.dk, sample.T, theta, samples, seed,
                     se_per_sample=se_ratio, cov34_se_per_sample=float(mom.bulk_cov34_se))


__all__ = ["PAPER_GRID", "PAPER_STATISTICS", "PaperStatistics", "Comparison", "compare_grid", "pearson_r",
           "relative_error", "read_grid", "validate_grid", "CALIBRATION_GRID", "CONDENSED_GRID", "CONDENSED_SCAN", "Calibration",
           "calibrate_condensation_c", "annealed_mass", "band_edge_check", "plateau_check", "gap_crossover",
           "CROSSOVER_BATCHES", "Crossover", "t3_t4_crossover"]

"""The selection ladder measured: Monte Carlo token efficiency of the arms of a pre-registration
(GLLM Table 2, §6.5, §8.2.2, §8.3.3; Prop. 7, Thm. 4.1) in the graded linear model. The cost of the
educated arm's pilot (Lem. 2) is measured on the same learning curves by :mod:`theorylab.graded.pilot_cost`.

Named choices (the paper leaves them open; see docs/graded.md §8):

* ``ESTIMATOR``: each arm fits least squares over its own class ``{w : ||G^-1 w|| <= B(g)}`` at the
  representation budget ``B(g) = ||G^-1 w*||`` of the target -- "each class evaluated at the smallest
  budget at which it represents the target" (Prop. 7, §8.3.4).  The class is invariant under
  ``g -> c g``, so every uniform grade ``c 1`` is the uniform arm.
* ``DESIGN``: the orthogonal design ``X^T X = m Sigma`` (the Gaussian sequence model of the linear
  model): the least-squares fit on m samples is ``w* + sigma_xi Sigma^(-1/2) S(m) / m`` with ``S`` a
  d-dimensional random walk (``Var S_j(m) = m``), so the samples are nested (one learning curve per
  repetition) and shared by every arm (common random numbers).  The constrained fit is then a
  per-coordinate shrinkage ``w_j = o_j e_j/(e_j + nu)``, ``e_j = m sigma_j^2 g_j^2``, with one
  multiplier ``nu >= 0`` per repetition, found by Newton's method on
  ``1/||w(nu)/g|| - 1/B`` (concave and increasing in nu: the iterates rise monotonically to the root).
  The random Gaussian design agrees with it at the configurations checked in tests/test_sim_ladder.py.
* Token efficiency of an arm at a target risk ``eps = TARGET_FRACTION x null risk`` (the null risk is
  that of predicting 0, ``sum_j tau_j alpha_j``; 0.5 = "explain half the signal"): ``m_uniform(eps) /
  m_arm(eps)``, where ``m(eps)`` is where the mean learning curve first reaches eps (log-log
  interpolation between grid points).  Prop. 7(ii) and §8.2.2 predict ``1/Lambda(g)``.
* Risk ratio at ``m_ref``, the last sample size of Lem. 4's window ``W = [4, m_sat/2]`` (``m_sat`` the
  size at which the uniform class starts estimating its first level): ``R_arm(m_ref) / R_uniform(m_ref)``,
  the form in which Thm. 4.1 states the separation (predicted ``Theta(Lambda(g))``).
* Intervals: percentile bootstrap over the repetitions (``CI_LEVEL``); the same resamples give the
  interval of the rank correlation (Spearman) between the pre-registered inner products and the
  measured efficiencies.

Reproducibility: the random walk increments come from ``SeedSequence(seed)`` in grid order (the same
seed and grid give the same numbers on any machine); the bootstrap from ``spawn_key=(1,)``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from theorylab import _moved
from theorylab._results import scalar_value
from theorylab.errors import (ParameterError, finite_result, integer_array, positive_int, real_array, real_scalar,
                              seed_int)
from theorylab.graded import envelope as env
from theorylab.graded import ladder as lad
from theorylab.graded.budget_fit import _constrained_fit
from theorylab.graded.prereg import CI_LEVEL, Preregistration, average_ranks, predicted_ranks

__all__ = ["ESTIMATOR", "DESIGN", "TARGET_FRACTION", "GRID_FACTOR", "MAX_SIZE", "learning_curves", "grid", "crossing", "window_end", "reference_size",
           "default_grid", "target_risk", "memory_estimate", "check_memory", "LadderResult", "spearman",
           "measure", "summarize", "inverted_pairs"]

ESTIMATOR = "least squares over {||G^-1 w|| <= B(g)} at the representation budget B(g) = ||G^-1 w*|| (Prop. 7)"
DESIGN = "orthogonal design X^T X = m Sigma (Gaussian sequence model), nested samples, common random numbers"
TARGET_FRACTION = 0.5
GRID_FACTOR = 8.0
"""The default grid runs up to ``GRID_FACTOR sigma_xi^2 d / eps``: there the least-squares floor
``sigma_xi^2 d / m`` is ``eps / GRID_FACTOR``, so every arm whose class contains the target reaches eps."""
MAX_SIZE = 2.0 ** 53
"""The largest sample size of a default grid (sizes are exact integers in float64 up to 2^53)."""


# --------------------------------------------------------------------------- learning curves
def learning_curves(design: lad.LadderDesign, level_grades, m_values, reps: int = 400, seed: int = 0,
                    progress: bool = False) -> np.ndarray:
    """Excess risk ``||Sigma^(1/2)(w_hat - w*)||^2`` of each arm's fit, shape (arms, len(m_values), reps).

    ``level_grades`` (arms, L); ``m_values`` increasing positive integers.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> design = gr.geometric_design(0.5, 0.25, levels=2, d=8)      # GLLM §8.3.3
    >>> g = np.array([[1.0, 1.0], gr.oracle_arm(design).g])          # uniform and oracle arms
    >>> risks = gr.learning_curves(design, g, m_values=[4, 40, 400], reps=50)
    >>> risks.shape
    (2, 3, 50)
    >>> risks.mean(axis=2).round(2)
    array([[0.19, 0.09, 0.01],
           [0.16, 0.09, 0.01]])
    """
    G = real_array("level_grades", level_grades, low=0.0, low_inclusive=False)
    if G.ndim != 2 or G.shape[1] != design.levels:
        raise ParameterError(f"level_grades must be (arms, {design.levels}) level grades (got shape {G.shape})")
    ms = grid("m_values", m_values)
    reps = positive_int("reps", reps, low=2)
    seed = seed_int("seed", seed)
    check_memory(memory_estimate(len(G), ms.size, reps, design.d, 0), "these learning curves")
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    w, sig2 = design.target(), design.tau
    coords = [_unit_scale(design.coords(g)) for g in G]
    budgets = [float(np.sqrt(np.sum((w / g) ** 2))) for g in coords]
    risks = np.empty((len(coords), ms.size, reps))
    walk, prev = np.zeros((reps, design.d)), 0
    for i in _progress(range(ms.size), progress, "ladder", "m"):
        m = int(ms[i])
        walk += np.sqrt(m - prev) * rng.standard_normal((reps, design.d))
        prev = m
        obs = w + design.sigma_xi * walk / (m * np.sqrt(sig2))
        for k, (g, B) in enumerate(zip(coords, budgets)):
            fit = _constrained_fit(obs, m * sig2, g, B)
            risks[k, i] = np.sum(sig2 * (fit - w) ** 2, axis=1)
    return finite_result("level_grades", risks)


def _unit_scale(g: np.ndarray) -> np.ndarray:
    """Grades divided by the power of two nearest their geometric middle: exact, and the class
    ``{||G^-1 w|| <= B(g)}`` does not change under ``g -> c g``, so neither does the fit."""
    return np.ldexp(g, -((np.frexp(g.max())[1] + np.frexp(g.min())[1]) // 2))


def grid(name: str, m_values) -> np.ndarray:
    """Validate a grid of sample sizes: strictly increasing integers >= 1.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.grid("m_values", [4, 16, 64])                              # sample sizes of GLLM §8.3.3
    array([ 4, 16, 64])
    >>> gr.grid("m_values", [16, 4])
    Traceback (most recent call last):
        ...
    theorylab.errors.ParameterError: m_values must be strictly increasing integers >= 1 (got [16, 4])
    """
    ms = np.atleast_1d(integer_array(name, m_values, low=1))
    if ms.ndim != 1 or np.any(np.diff(ms) <= 0):
        raise ParameterError(f"{name} must be strictly increasing integers >= 1 (got {ms.tolist()})")
    return ms


def crossing(m_values, curves, level: float) -> np.ndarray:
    """Where each mean risk curve (last axis over ``m_values``) first reaches ``level``: log-log
    interpolation between the grid points around the first crossing; NaN when it is not reached
    within the grid or is already reached at the first point (the size is then not resolved).
    ``m_values`` strictly increasing sizes > 0, ``curves`` risks >= 0 (NaN where missing), ``level > 0``.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> m = [10, 100, 1000]                                         # a risk 1/m reaches 0.01 at m = 100 (GLLM §8.2.2)
    >>> gr.crossing(m, np.array([[0.1, 0.01, 0.001], [0.1, 0.05, 0.02]]), level=0.03).round(2)
    array([ 33.33, 360.99])
    """
    ms = real_array("m_values", m_values, low=0, low_inclusive=False)
    if ms.ndim != 1 or np.any(np.diff(ms) <= 0):
        raise ParameterError(f"m_values must be a strictly increasing 1-D grid (got shape {ms.shape})")
    curves = real_array("curves", curves, low=0, allow_nan=True)
    if curves.ndim < 1 or curves.shape[-1] != ms.size:
        raise ParameterError(f"curves must have a last axis over m_values ({ms.size}) (got shape {curves.shape})")
    return _crossing(np.log(ms), curves, np.log(real_scalar("level", level, low=0, low_inclusive=False)))


def _crossing(ms: np.ndarray, curves: np.ndarray, lv: float) -> np.ndarray:
    """:func:`crossing` on log sizes ``ms`` and log level ``lv`` (no validation)."""
    r = np.log(np.maximum(curves, 1e-300))
    below = r <= lv
    k = np.argmax(below, axis=-1)
    reached = np.take_along_axis(below, k[..., None], -1)[..., 0] & (k > 0)
    k1 = np.maximum(k - 1, 0)
    r0, r1 = np.take_along_axis(r, k1[..., None], -1)[..., 0], np.take_along_axis(r, k[..., None], -1)[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(r1 < r0, (lv - r0) / (r1 - r0), 1.0)
    out = np.exp(ms[k1] + frac * (ms[k] - ms[k1]))
    return np.where(reached, out, np.nan)


def window_end(design: lad.LadderDesign) -> tuple[float, tuple[int, int] | None]:
    """``(m_sat, W)`` of Lem. 4 for the uniform class: ``m_sat = min_l d_l sigma_xi^2 / cap_l`` with
    ``cap_l = sigma_(l)^2`` (unit budget), the size at which it starts estimating its first level
    (level 0 for Cor. 3's profiles, where it is the library's ``d^2 sigma_xi^2 / (L^2 s_0)``).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.window_end(gr.geometric_design(0.5, 0.25, levels=2, d=8))   # (m_sat, W) of GLLM Lemma 4
    (20.0, (4, 10))
    """
    caps = env.caps(design.s / design.dims, np.ones(design.levels), 1.0)
    msat = min(env.m_sat(dl, design.sigma_xi, c) for dl, c in zip(design.dims, caps))
    return msat, env.window(msat)


def reference_size(design: lad.LadderDesign) -> int:
    """``m_ref``: the last sample size of W (4 when W is empty).

    Raises
    ------
    ParameterError
        When ``m_sat/2`` is beyond ``MAX_SIZE`` (2^53, the largest sample size computed exactly): the
        noise ``sigma_xi`` is too large for this design (``m_sat`` scales as ``sigma_xi^2``); the message
        gives the largest ``sigma_xi`` the design allows.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.reference_size(gr.geometric_design(0.5, 0.25, levels=2, d=8))   # end of W, GLLM Lemma 4
    10
    """
    msat, W = window_end(design)
    if not msat / 2 <= MAX_SIZE:
        most = design.sigma_xi * np.sqrt(MAX_SIZE / (msat / 2)) * (1 - 1e-3)    # shown rounded down
        raise ParameterError(f"sigma_xi = {design.sigma_xi:g} too large for this design: Lem. 4's window would end "
                             f"at m_sat/2 = {msat / 2:.3g} samples, beyond {MAX_SIZE:g} (2^53); sigma_xi must be "
                             f"at most {most:.4g} here (m_sat scales as sigma_xi^2)")
    return W[1] if W else env.WINDOW_LOW


def default_grid(design: lad.LadderDesign, target: float = TARGET_FRACTION, points: int = 40) -> np.ndarray:
    """``points`` geometric sizes from 1 to ``GRID_FACTOR sigma_xi^2 d / eps`` (eps = target x null risk;
    at least 16), rounded to integers (duplicates dropped), plus ``m_ref`` (:func:`reference_size`).

    ``design`` as made by :func:`theorylab.graded.ladder.profile_design` (``sigma_xi <= 1.34e8``), ``target > 0``,
    ``points >= 4``.

    Raises
    ------
    ParameterError
        When the top of the grid would be beyond ``MAX_SIZE`` (2^53) samples -- ``sigma_xi`` too large or
        ``target`` too small for the design; the message gives the top and the limit -- or ``m_ref`` is
        (:func:`reference_size`).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.default_grid(gr.geometric_design(0.5, 0.25, levels=2, d=8), points=6)   # contains m_ref = 10 (GLLM Lemma 4)
    array([   1,    4,   10,   17,   73,  306, 1280])
    """
    points = positive_int("points", points, low=4)
    eps = target_risk(design, target)
    with np.errstate(over="ignore"):
        top = float(GRID_FACTOR * np.float64(design.sigma_xi) ** 2 * design.d / eps)
    if not top <= MAX_SIZE:
        raise ParameterError(f"sigma_xi = {design.sigma_xi:g}, target = {float(target):g}: the grid would run to "
                             f"{top:.3g} samples (GRID_FACTOR sigma_xi^2 d / (target x null risk)), at most "
                             f"{MAX_SIZE:g} (2^53); lower sigma_xi or raise target")
    m_ref = reference_size(design)
    check_memory(memory_estimate(1, points, 1, 1, 0), "this grid")
    ms = np.unique(np.round(np.geomspace(1, max(top, 16.0), points)).astype(np.int64))
    return np.union1d(ms, [m_ref])


def target_risk(design: lad.LadderDesign, target: float) -> float:
    """``eps = target x null risk``, ``target > 0`` (and not so small that eps underflows to 0).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> design = gr.geometric_design(0.5, 0.25, levels=2, d=8)      # GLLM §8.2.2
    >>> round(gr.target_risk(design, 0.5), 4), round(float(design.null_risk), 4)
    (0.05, 0.1)
    """
    eps = real_scalar("target", target, low=0.0, low_inclusive=False) * design.null_risk
    if not eps > 0:
        raise ParameterError(f"target too small: target x null risk underflows to 0 (got target {target:g})")
    return eps


def memory_estimate(arms: int, points: int, reps: int, d: int, bootstrap: int) -> int:
    """Bytes of working memory of :func:`measure` (float64): the risks (arms x points x reps), the bootstrap
    weights and curves, and the per-grid-point work arrays (a dozen reps x d). Integers >= 0."""
    arms, points, reps, d, bootstrap = (positive_int(n, v, low=0) for n, v in
                                        zip(("arms", "points", "reps", "d", "bootstrap"), (arms, points, reps, d, bootstrap)))
    return 8 * (arms * points * reps + bootstrap * reps + 2 * bootstrap * arms * points + 12 * reps * d)


def check_memory(estimate: int, what: str) -> None:
    """Refuse up front (:class:`theorylab.resources.ResourceError`, one line with the estimate and the
    limit) a request whose working memory exceeds the limits in force (:func:`theorylab.resources.limits`)."""
    from theorylab import resources

    resources.check(resources.Cost(real_scalar("estimate", estimate, low=0), 0.0, str(what)), resources.limits())


# --------------------------------------------------------------------------- the measurement
@dataclass(frozen=True)
class LadderResult:
    """Rows (one per arm: pre-registered and measured columns), a summary, the mean curves and raw losses."""

    rows: list
    summary: dict
    m_values: np.ndarray
    mean_curves: dict = field(repr=False)
    losses: dict = field(repr=False)

    def to_frame(self):
        """:attr:`rows` as a ``pandas.DataFrame`` (pandas: the optional extra ``theorylab[pandas]``)."""
        from theorylab._results import to_frame
        return to_frame(list(self.rows))


def _interval(x, axis=0):
    """Percentile interval at CI_LEVEL, ignoring NaN (NaN where every resample is NaN)."""
    import warnings

    lo = (1 - CI_LEVEL) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)      # all-NaN slices: an unresolved crossing
        q = np.nanquantile(np.asarray(x, float), [lo, 1 - lo], axis=axis)
    return q[0], q[1]


def spearman(x, Y) -> np.ndarray:
    """Spearman rank correlation of the vector ``x`` with each row of ``Y`` (average ranks for ties);
    NaN for a row containing NaN or with no spread.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> gr.spearman([1, 2, 3, 4], np.array([[10, 20, 30, 40], [4, 3, 2, 1], [1, 3, 2, 4]]))   # GLLM §8.3.3
    array([ 1. , -1. ,  0.8])
    """
    x = real_array("x", x)
    Y = np.atleast_2d(real_array("Y", Y, allow_nan=True))
    if x.ndim != 1 or Y.ndim != 2 or Y.shape[1] != x.size:
        raise ParameterError(f"x must be a vector and Y rows of its length (got shapes {x.shape} and {Y.shape})")
    rx = average_ranks(x)
    out = np.full(Y.shape[0], np.nan)
    ok = np.all(np.isfinite(Y), axis=1)
    if ok.any():
        ry = average_ranks(Y[ok])
        rxc, ryc = rx - rx.mean(), ry - ry.mean(axis=1, keepdims=True)
        den = np.sqrt(np.sum(rxc ** 2) * np.sum(ryc ** 2, axis=1))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[ok] = np.where(den > 0, ryc @ rxc / den, np.nan)
    return out


def measure(prereg: Preregistration, m_values=None, reps: int = 400, seed: int = 0,
            target: float = TARGET_FRACTION, bootstrap: int = 1000, progress: bool = False) -> LadderResult:
    """Measure the ladder of a pre-registration (its arms' grades, read from it; it is not modified).

    ``m_values``: training sample sizes (default :func:`default_grid`, which contains ``m_ref``);
    ``reps >= 2`` repetitions; ``target``: eps as a fraction of the null risk; ``bootstrap >= 2``.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> prereg = gr.preregister(gr.geometric_design(0.5, 0.25, levels=2, d=8), n_pilot=200, bootstrap=10)
    >>> result = gr.measure(prereg, m_values=[1, 3, 10, 40, 160, 640], reps=50, bootstrap=10)   # GLLM Table 2
    >>> {row["arm"]: round(row["inv_Lambda_true"], 2) for row in result.rows}
    {'uniform': 1.0, 'random': 0.52, 'taxonomic': 1.25, 'proxy': 1.25, 'educated': 1.25, 'oracle': 1.29}
    >>> round(result.rows[-1]["efficiency"], 2)
    1.12
    """
    design = prereg.design
    names = [a.name for a in prereg.arms]
    if "uniform" not in names:
        raise ParameterError("the pre-registration must contain the uniform arm (the efficiency baseline)")
    target_risk(design, target)                                     # validates target (> 0)
    ms = default_grid(design, target) if m_values is None else grid("m_values", m_values)
    m_ref = reference_size(design)
    if m_ref not in ms:
        ms = np.union1d(ms, [m_ref])
    reps = positive_int("reps", reps, low=2)
    bootstrap = positive_int("bootstrap", bootstrap, low=2)
    check_memory(memory_estimate(len(names), ms.size, reps, design.d, bootstrap), "this ladder measurement")
    risks = learning_curves(design, [a.g for a in prereg.arms], ms, reps, seed, progress)
    return summarize(prereg, ms, risks, target, seed, bootstrap)


def summarize(prereg: Preregistration, m_values, risks, target: float = TARGET_FRACTION, seed: int = 0,
              bootstrap: int = 1000) -> LadderResult:
    """The measured columns and summary of :func:`measure` from learning curves ``risks`` (arms, M, reps) on
    ``m_values`` (which must contain ``m_ref``): one set of curves serves several targets.

    Examples
    --------
    One set of learning curves, summarised at two targets (GLLM §8.2.2, Table 2):

    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> prereg = gr.preregister(gr.geometric_design(0.5, 0.25, levels=2, d=8), n_pilot=200, bootstrap=10)
    >>> m = [1, 3, 10, 40, 160, 640]
    >>> risks = gr.learning_curves(prereg.design, np.array([arm.g for arm in prereg.arms]), m, reps=50)
    >>> for target in (0.5, 0.25):
    ...     result = gr.summarize(prereg, m, risks, target=target, bootstrap=10)
    ...     print(target, round(result.rows[-1]["efficiency"], 2))
    0.5 1.12
    0.25 1.04
    """
    design = prereg.design
    names = [a.name for a in prereg.arms]
    eps = target_risk(design, target)
    ms = grid("m_values", m_values)
    m_ref = reference_size(design)
    risks = real_array("risks", risks, low=0)
    seed = seed_int("seed", seed)
    if risks.ndim != 3 or risks.shape[:2] != (len(names), ms.size) or m_ref not in ms:
        raise ParameterError(f"risks must be (arms={len(names)}, M={ms.size}, reps) on a grid containing "
                             f"m_ref={m_ref} (got shape {risks.shape})")
    reps = risks.shape[2]
    bootstrap = positive_int("bootstrap", bootstrap, low=2)
    u, iref = names.index("uniform"), int(np.flatnonzero(ms == m_ref)[0])
    log_ms, log_eps = np.log(ms.astype(float)), np.log(eps)

    def statistics(curves):                       # curves (..., arms, M)
        m_needed = _crossing(log_ms, curves, log_eps)
        with np.errstate(invalid="ignore", divide="ignore"):
            return m_needed, m_needed[..., u:u + 1] / m_needed, curves[..., iref] / curves[..., u:u + 1, iref]

    mean = risks.mean(axis=2)
    m_needed, eff, rr = statistics(mean)
    wts = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,))).multinomial(
        reps, np.full(reps, 1.0 / reps), size=bootstrap) / reps
    boot = np.einsum("br,amr->bam", wts, risks)       # (bootstrap, arms, M); no BLAS: same sums on any machine
    _, eff_b, rr_b = statistics(boot)
    ip = np.array([a.ip_hat for a in prereg.arms])
    rho_eff, rho_eff_b = float(spearman(ip, eff[None])[0]), spearman(ip, eff_b)
    rho_rr, rho_rr_b = float(spearman(ip, 1 / rr[None])[0]), spearman(ip, 1 / rr_b)
    eff_lo, eff_hi = _interval(eff_b)
    rr_lo, rr_hi = _interval(rr_b)
    meas_rank = predicted_ranks(np.where(np.isnan(eff), 0.0, eff))     # efficiencies are > 0: NaN ranks last, tied
    rows = []
    for k, a in enumerate(prereg.arms):
        rows.append({"arm": a.name, "ip_hat": a.ip_hat, "sign_kept": a.sign_kept, "Lambda_hat": a.Lambda_hat,
                     "predicted_rank": a.predicted_rank, "ip_true": a.ip_true, "Lambda_true": a.Lambda_true,
                     "inv_Lambda_true": 1.0 / a.Lambda_true, "m_needed": float(m_needed[k]),
                     "efficiency": float(eff[k]), "eff_lo": float(eff_lo[k]), "eff_hi": float(eff_hi[k]),
                     "measured_rank": float(meas_rank[k]), "risk_ratio_ref": float(rr[k]),
                     "rr_lo": float(rr_lo[k]), "rr_hi": float(rr_hi[k]),
                     "nan_fraction": float(np.mean(~np.isfinite(eff_b[:, k])))})
    msat, W = window_end(design)
    pred = [r["predicted_rank"] for r in rows]
    summary = {"design": design.name, "estimator": ESTIMATOR, "sim_design": DESIGN, "reps": reps, "seed": seed,
               "bootstrap": bootstrap, "ci_level": CI_LEVEL, "null_risk": design.null_risk, "target_fraction": target,
               "target_risk": eps, "m_ref": m_ref, "m_sat": msat, "window": list(W) if W else None,
               "grid": [int(ms[0]), int(ms[-1]), int(ms.size)],
               "predicted_order": prereg.predicted_order,
               "measured_order": [r["arm"] for r in sorted(rows, key=lambda r: (r["measured_rank"], r["arm"]))],
               "ordering_holds": bool(np.array_equal(pred, [r["measured_rank"] for r in rows])),
               "inverted_pairs": inverted_pairs(rows, "efficiency"),
               "spearman_efficiency": rho_eff, "spearman_efficiency_ci": list(scalar_value(_interval(rho_eff_b))),
               "spearman_risk_ratio": rho_rr, "spearman_risk_ratio_ci": list(scalar_value(_interval(rho_rr_b))),
               "inverted_pairs_risk_ratio": inverted_pairs([{**r, "neg_rr": -r["risk_ratio_ref"]} for r in rows],
                                                           "neg_rr"),                   # ordered as 1 / rr
               "inv_Lambda_star_C_true": 1.0 / prereg.Lambda_star_C_true,
               "inv_Lambda_star_C_hat": 1.0 / prereg.Lambda_star_C_hat}
    for name in ("educated", "oracle"):
        if name in names:
            k = names.index(name)
            summary[f"{name}_gain"] = float(eff[k])
            summary[f"{name}_gain_ci"] = [float(eff_lo[k]), float(eff_hi[k])]
            summary[f"{name}_inv_risk_ratio"] = float(1 / rr[k])
    curves = {a.name: mean[k] for k, a in enumerate(prereg.arms)}
    losses = {f"{a.name}_m{ms[i]}": risks[k, i] for k, a in enumerate(prereg.arms) for i in (iref,)}
    return LadderResult(rows, summary, ms, curves, losses)


def inverted_pairs(rows, key: str) -> list[str]:
    """Pairs ``"a>b"`` predicted in that order (by inner product) whose measured ``key`` is in the other order.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> rows = [{"arm": "a", "predicted_rank": 1, "efficiency": 1.1},
    ...         {"arm": "b", "predicted_rank": 2, "efficiency": 1.3},
    ...         {"arm": "c", "predicted_rank": 3, "efficiency": 1.0}]
    >>> gr.inverted_pairs(rows, "efficiency")                      # predicted a > b > c (GLLM §8.3.3)
    ['a>b']
    """
    out = []
    for i, x in enumerate(rows):
        for y in rows[i + 1:]:
            hi, lo = (x, y) if x["predicted_rank"] < y["predicted_rank"] else (y, x)
            if hi["predicted_rank"] != lo["predicted_rank"] and hi[key] < lo[key]:
                out.append(f"{hi['arm']}>{lo['arm']}")
    return out


def _progress(iterable, show: bool, desc: str, unit: str):
    """Wrap in a tqdm bar (on stderr, after 2 s) when asked and tqdm is importable."""
    if not show:
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, desc=desc, unit=unit, delay=2.0, leave=False)


__getattr__ = _moved.moved_names(__name__, dict.fromkeys(("Degradation", "profile_error", "degradation"),
                                                         "theorylab.graded.pilot_cost"))
"""The pilot's cost (Lem. 2) moved to :mod:`theorylab.graded.pilot_cost`; its old path works for one release."""

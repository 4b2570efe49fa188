"""G10's pilot checks: the law of the library's pilot draw (``theorylab.graded.ladder.draw_pilot``) and of its
bootstrap's block resampling, held against exact Gaussian moments (Isserlis), Bartlett's theorem, the chi-square laws
of the noise statistics and the stream replay of ``theorylab.certificates.reference.ladder_streams`` (steps 1, 7, 7b
of ``theorylab.certificates.graded.ladder``)."""
from __future__ import annotations

import numpy as np

from theorylab.certificates.reference import ladder_streams as ref_streams
from theorylab.certify import bound
from theorylab.graded import ladder as lad

PILOT_ALPHA = 1e-7
"""Tail probability of the pilot-moment chi-square threshold (step 1)."""


def _pilot_moments_statistic(XtX, Xty, n, tau, w, sigma_xi) -> tuple[float, float]:
    """Mahalanobis distance of (diag X^T X, X^T y) from n (tau, tau w), covariance by Isserlis; and its
    chi-square threshold at PILOT_ALPHA."""
    from scipy.special import chdtri

    d = tau.size
    K = np.zeros((d + 1, d + 1))                      # covariance of (x_1..x_d, y)
    K[:d, :d] = np.diag(tau)
    K[:d, d] = K[d, :d] = tau * w
    K[d, d] = np.sum(tau * w * w) + sigma_xi ** 2
    pairs = [(j, j) for j in range(d)] + [(j, d) for j in range(d)]
    C = np.array([[K[a, c] * K[b, e] + K[a, e] * K[b, c] for (c, e) in pairs] for (a, b) in pairs])
    delta = np.concatenate([np.diag(XtX) - n * tau, Xty - n * tau * w])
    return float(delta @ np.linalg.solve(n * C, delta)), float(chdtri(2 * d, PILOT_ALPHA))


SMALL_PILOTS = {"rows < d (row by row)": (8, 3100, 600), "rows = d (Bartlett)": (4, 4000, 1000)}
"""Extra pilots (design width d, rows n, blocks K) of the CONFIG profiles exercising both draws of a block."""
SMALL_SIGMA = 0.25
"""Noise of the small pilots (not 1, so that a draw which drops or squares sigma_xi changes the statistics)."""
REPLAYED_PILOTS = {"row by row, 6-7 rows a block": (8, 62, 9), "Bartlett, n = 2^60 + 3 in 3 blocks": (4, 2 ** 60 + 3, 3),
                   "Bartlett, exactly d = 8 rows a block": (8, 64, 8)}
"""Pilots (d, n, K) replayed from the stream convention (reference.ladder_streams): integer block sizes beyond 2^53;
blocks of exactly d rows (the boundary of the two draws: Bartlett, not row by row)."""
BOOTSTRAP_RESAMPLES = 400


def _small_pilots(draw_pilot, cfg) -> tuple[bool, list]:
    """Pilots whose blocks take the row-by-row draw (d = 8, 5-6 rows a block) and the Bartlett draw (d = 4, 4 rows
    a block), noise sigma_xi = SMALL_SIGMA: the rows add up to n exactly (a block's X^T X has rank = its rows when
    rows < d), the summed statistics pass the moment test of step 1, and the noise statistic
    (X^T xi)^T (X^T X)^-1 (X^T xi) / sigma^2 ~ chi2(d) lies within its two-sided quantiles at PILOT_ALPHA."""
    from scipy.special import chdtri

    ok, rows = True, []
    for name, (d, n, K) in SMALL_PILOTS.items():
        design = lad.geometric_design(cfg["nu"], cfg["mu"], cfg["levels"], d, SMALL_SIGMA, cfg["C"])
        pilot = draw_pilot(design, n, cfg["law_seed"], blocks=K)
        XtX, Xty, w = pilot.XtX.sum(0), pilot.Xty.sum(0), np.sqrt(design.alpha)
        T, T_max = _pilot_moments_statistic(XtX, Xty, n, design.tau, w, design.sigma_xi)
        N = ref_streams.noise_statistic(XtX, Xty, w, SMALL_SIGMA)
        N_lo, N_hi = float(chdtri(d, 1 - PILOT_ALPHA / 2)), float(chdtri(d, PILOT_ALPHA / 2))
        case = bool(pilot.XtX.shape[0] == K and T <= T_max and N_lo <= N <= N_hi)
        if n // K < d:
            ranks = np.linalg.matrix_rank(pilot.XtX)
            case &= bool(ranks.sum() == n and set(ranks.tolist()) <= {n // K, -(-n // K)})
        ok &= case
        rows.append([name, d, n, K, T, T_max, N, [N_lo, N_hi], case])
    return ok, rows


SHAPE_PILOTS = {"4 rows a block (rows = d)": (4, 4000, 1000), "7 rows a block (rows > d)": (4, 7000, 1000)}
"""Pilots (d, n, K) of the Bartlett draw whose per-block statistics are tested for their whole law (step 7b)."""
SHAPE_ALPHA = 2e-7
"""False-failure share of the shape tests (step 7b), split over SHAPE_PILOTS and each pilot's tests."""


def _block_normals(XtX, Xty, rows: int, sd, w, sigma: float) -> np.ndarray:
    """Per block, the numbers that are independent N(0, 1) when the block holds ``rows`` Gaussian rows of
    covariance diag(sd^2) and noise N(0, sigma^2): with W = X^T X / (sd sd^T) ~ Wishart(rows, I) and its
    Cholesky factor L (Bartlett's theorem: L_ij ~ N(0, 1) below the diagonal, L_ii^2 ~ chi2(rows - i), all
    independent), the L_ij, the normal scores of the L_ii^2, and the whitened noise
    chol(X^T X)^-1 (X^T y - X^T X w*) / sigma ~ N(0, I_d) (independent of X^T X).  (K, d(d+1)/2 + d)."""
    from scipy.stats import chi2, norm

    d = sd.size
    low = np.tril_indices(d, -1)
    W = XtX / np.outer(sd, sd)
    L = np.linalg.cholesky(W)                                           # (K, d, d)
    q = np.diagonal(L, axis1=1, axis2=2) ** 2
    dof = rows - np.arange(d)
    cdf, sf = chi2.cdf(q, dof), chi2.sf(q, dof)
    diag_z = np.where(cdf < 0.5, norm.ppf(cdf), norm.isf(sf))            # accurate in both tails
    r = Xty - np.einsum("kij,j->ki", XtX, w)
    e = np.linalg.solve(np.linalg.cholesky(XtX), r[..., None])[..., 0] / sigma
    return np.concatenate([L[:, low[0], low[1]], diag_z, e], axis=1)


def _iid_normal_tests(V, alpha: float) -> tuple[bool, list]:
    """Do the rows of V (K, p) look like K independent N(0, I_p) vectors?  S = V^T V ~ Wishart_p(K, I), whose
    Cholesky factor T has (Bartlett) T_ii^2 ~ chi2(K - i) and T_ij ~ N(0, 1) below the diagonal, independent:
    each T_ii^2 two-sided (a variance, given the earlier components) and sum_(i>j) T_ij^2 ~ chi2(p(p-1)/2) upper
    tail (the correlations), Bonferroni over the p + 1 tests at ``alpha``.  Returns the verdict and
    [min, max] of the T_ii^2 / (K - i) with their bounds, and the off-diagonal sum with its bound."""
    from scipy.stats import chi2

    K, p = V.shape
    T = np.linalg.cholesky(V.T @ V)
    diag, dof = np.diag(T) ** 2, K - np.arange(p)
    a = alpha / (p + 1)
    lo, hi = chi2.ppf(a / 2, dof), chi2.isf(a / 2, dof)
    off, off_max = float(np.sum(np.tril(T, -1) ** 2)), float(chi2.isf(a, p * (p - 1) // 2))
    ok = bool(np.all((lo <= diag) & (diag <= hi)) and off <= off_max)
    ratio = diag / dof
    return ok, [[float(ratio.min()), float(ratio.max())], [float(np.max(lo / dof)), float(np.min(hi / dof))],
                off, off_max]


def _pilot_shape(draw_pilot, cfg) -> tuple[bool, list]:
    """The law of a pilot's blocks, not only its mean (step 7b): every block's X^T X is exactly symmetric (up to
    1e-12 of its largest entry), and its Bartlett factor's entries and whitened noise (:func:`_block_normals`)
    pass :func:`_iid_normal_tests` (SHAPE_ALPHA split over SHAPE_PILOTS); blocks of the wrong shape, a
    factorisation refused or a non-finite number fail."""
    rows_out, ok = [], True
    for name, (d, n, K) in SHAPE_PILOTS.items():
        design = lad.geometric_design(cfg["nu"], cfg["mu"], cfg["levels"], d, SMALL_SIGMA, cfg["C"])
        pilot = draw_pilot(design, n, cfg["law_seed"], blocks=K)
        XtX, Xty = pilot.XtX, pilot.Xty
        case, asym, stats = XtX.shape == (K, d, d) and Xty.shape == (K, d) and n % K == 0, np.inf, "wrong shape"
        if case:
            asym = float(np.max(np.abs(XtX - np.swapaxes(XtX, 1, 2))) / np.max(np.abs(XtX)))
            try:
                V = _block_normals(XtX, Xty, n // K, np.sqrt(design.tau), np.sqrt(design.alpha), SMALL_SIGMA)
                case, stats = _iid_normal_tests(V, SHAPE_ALPHA / len(SHAPE_PILOTS))
                case &= bool(np.all(np.isfinite(V)))
            except np.linalg.LinAlgError:               # a block not positive definite: not a Gaussian X^T X
                case, stats = False, "a block's X^T X is not positive definite"
        case = bool(case and asym <= 1e-12)
        ok &= case
        rows_out.append([name, asym, stats, case])
    return ok, rows_out


def _replayed_pilots(draw_pilot, cfg) -> tuple[float, list]:
    """Max relative error of the library's per-block (X^T X, X^T y) against the stream replay, REPLAYED_PILOTS."""
    err, rows = 0.0, []
    for name, (d, n, K) in REPLAYED_PILOTS.items():
        design = lad.geometric_design(cfg["nu"], cfg["mu"], cfg["levels"], d, SMALL_SIGMA, cfg["C"])
        pilot = draw_pilot(design, n, cfg["law_seed"], blocks=K)
        XtX, Xty = ref_streams.replay_pilot(design.tau, np.sqrt(design.alpha), SMALL_SIGMA, n, cfg["law_seed"], K)
        same = pilot.XtX.shape == XtX.shape and pilot.n == n
        e = max(float(np.max(np.abs(pilot.XtX - XtX)) / np.max(np.abs(XtX))),
                float(np.max(np.abs(pilot.Xty - Xty)) / np.max(np.abs(Xty)))) if same else np.inf
        err = max(err, e)
        rows.append([name, e])
    return err, rows


def _bootstrap_statistic(weights, K) -> tuple[bool, float, float]:
    """Block counts of the bootstrap: every resample draws K blocks, and the per-block totals over R resamples
    (Multinomial(R K, 1/K) under equal-probability resampling) pass Pearson's chi-square test at PILOT_ALPHA."""
    from scipy.special import chdtri

    totals = weights.sum(0)
    expected = weights.shape[0]
    stat = float(np.sum((totals - expected) ** 2) / expected)
    return bool(np.all(weights.sum(1) == K)), stat, float(chdtri(K - 1, PILOT_ALPHA))


def pilot_law_checks(draw_pilot, cfg, pilot) -> tuple[bool, list]:
    """Step 7 and 7b: both block draws on small pilots, the law of the Bartlett draw's blocks, and the equal-probability
    block resampling of the bootstrap of ``pilot`` (BOOTSTRAP_RESAMPLES resamples, Pearson). The small pilots and the
    bootstrap draw from ``cfg["law_seed"]``. Returns the verdict and the evidence."""
    small_ok, small_rows = _small_pilots(draw_pilot, cfg)
    shape_ok, shape_rows = _pilot_shape(draw_pilot, cfg)
    boot_rows_ok, boot_stat, boot_max = _bootstrap_statistic(
        lad.bootstrap_weights(pilot, BOOTSTRAP_RESAMPLES, cfg["law_seed"]), pilot.XtX.shape[0])
    ok = bool(small_ok and shape_ok and boot_rows_ok and boot_stat <= boot_max)
    return ok, [
        bound("small pilots, sigma_xi = 1/4 [draw, d, n, blocks, Mahalanobis statistic, chi2(2d) quantile at 1e-7, "
              "noise statistic, its chi2(d) quantiles at 5e-8 and 1 - 5e-8, rows add up to n (ranks) and both "
              "statistics within]", small_rows, tolerance=1e-6),
        bound(f"pilot blocks' law (Bartlett draw, sigma_xi = 1/4) [pilot, max |X^T X - X^T X^T| / max |X^T X|, "
              "[min, max] T_ii^2 / (K - i) of the 14 per-block normals' Wishart factor, [their strictest lower, upper "
              f"bound]], off-diagonal chi-square and its bound, passed] (SHAPE_ALPHA = {SHAPE_ALPHA:g})", shape_rows,
              tolerance=1e-6),
        bound(f"bootstrap block counts, {BOOTSTRAP_RESAMPLES} resamples: every resample draws K blocks; Pearson "
              "statistic of the per-block totals vs chi2(K-1) quantile at 1e-7", [boot_rows_ok, boot_stat, boot_max],
              tolerance=1e-6)]

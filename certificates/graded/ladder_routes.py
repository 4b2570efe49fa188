"""G10's independent routes (NumPy/SciPy only): the arms' clipped optima by L-BFGS-B and by the KKT line search,
the Monte Carlo's risks rebuilt by bisection on the multiplier, the arm rules on other designs and the
pre-registration's bootstrap intervals and profile summaries rebuilt (steps 3, 5, 7, 8 of
``theorylab.certificates.graded.ladder``)."""
from __future__ import annotations

import numpy as np

from theorylab.graded import ladder as lad

RTOL = 1e-9
"""Float agreement of the library with the independent recomputations (observed: ~1e-13)."""
G_ATOL = 1e-4
"""Grades from L-BFGS-B against the library's KKT solver (the optimiser stops at ~1e-7)."""
LAMBDA_RTOL = 1e-9
"""Lambda*_C at the L-BFGS-B grades against the library's: Lambda is stationary at the optimum, so the grades'
~1e-7 error enters squared (observed ~1e-13)."""


def _clipped_optimum(a, s, C):
    """argmin of (sum a e^-u)(sum s e^u) on [0, 2 ln C]^L by L-BFGS-B; grades g = e^(u/2), gauge min g = 1."""
    from scipy.optimize import minimize

    a, s = np.asarray(a, float), np.asarray(s, float)
    f = lambda u: np.log(np.sum(a * np.exp(-u))) + np.log(np.sum(s * np.exp(u)))
    grad = lambda u: s * np.exp(u) / np.sum(s * np.exp(u)) - a * np.exp(-u) / np.sum(a * np.exp(-u))
    U = 2 * np.log(C)
    res = minimize(f, np.full(a.size, U / 2), jac=grad, method="L-BFGS-B", bounds=[(0.0, U)] * a.size,
                   options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 1000})
    u = res.x - res.x.min()
    return np.exp(u / 2)


def _clipped_lambda(a, s, C) -> float:
    """min of Lambda(g) = (sum a g^-2)(sum s g^2) over g in [1, C]^L, from the KKT conditions: at the optimum
    ln g_l^2 = clip(ln(a_l/s_l)/2 + k, 0, 2 ln C) for one scalar k (interior: a_l g^-2/A = s_l g^2/T); Lambda along k
    is piecewise smooth and not unimodal, so a 2001-point grid in k locates the minimum and a bounded Brent search
    refines it between the neighbouring grid points (for the bootstrap: fifty times cheaper than step 3's L-BFGS-B)."""
    from scipy.optimize import minimize_scalar

    a, s = np.asarray(a, float), np.asarray(s, float)
    h, U = np.log(a / s) / 2, 2 * np.log(C)
    lam = lambda k: np.sum(a * np.exp(-np.clip(h + np.atleast_1d(k)[:, None], 0, U)), axis=1) * \
        np.sum(s * np.exp(np.clip(h + np.atleast_1d(k)[:, None], 0, U)), axis=1)
    ks = np.linspace(-h.max() - 1, U - h.min() + 1, 2001)
    i = int(np.argmin(lam(ks)))
    res = minimize_scalar(lambda k: float(lam(k)[0]), bounds=(ks[max(i - 1, 0)], ks[min(i + 1, ks.size - 1)]),
                          method="bounded", options={"xatol": 1e-13, "maxiter": 500})
    return float(min(res.fun, lam(ks[i])[0]))


def _risks_by_bisection(design_a, design_s, dims, sigma_xi, G, ms, m_ref, reps, seed) -> np.ndarray:
    """Per-repetition risks at m_ref, rebuilt from the stream convention of theorylab.graded.ladder_sim:
    one (reps, d) standard-normal draw per grid point in order, the least-squares fit
    w* + sigma S(m) / (m sigma_j); the constrained fit by bisection on the multiplier."""
    alpha, tau = np.repeat(np.asarray(design_a) / dims, dims), np.repeat(np.asarray(design_s) / dims, dims)
    w = np.sqrt(alpha)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    walk, prev = np.zeros((reps, w.size)), 0
    for m in ms:
        walk += np.sqrt(m - prev) * rng.standard_normal((reps, w.size))
        prev = m
        if m == m_ref:
            break
    obs = w + sigma_xi * walk / (m_ref * np.sqrt(tau))
    out = []
    for gl in G:
        g = np.repeat(gl, dims)
        B2 = np.sum((w / g) ** 2)
        e = m_ref * tau * g ** 2
        size = lambda nu: np.sum((obs * e / (e + nu[:, None]) / g) ** 2, axis=1)
        lo, hi = np.zeros(reps), np.full(reps, 1.0)
        while np.any(size(hi) > B2):
            hi = np.where(size(hi) > B2, 4 * hi, hi)
        for _ in range(100):
            mid = (lo + hi) / 2
            big = size(mid) > B2
            lo, hi = np.where(big, mid, lo), np.where(big, hi, mid)
        nu = np.where(size(np.zeros(reps)) > B2, hi, 0.0)
        fit = obs * e / (e + nu[:, None])
        out.append(np.sum(tau * (fit - w) ** 2, axis=1))
    return np.array(out)


def _designs_by_rule(C: float) -> dict:
    """Arm rules on designs other than CONFIG: the taxonomic arm at L = 1 (g = 1) and on ladder.PEAKED (its
    documented property: <ln g, a - s> > 0 and yet Lambda > 1), recomputed here."""
    one = lad.profile_design([1.0], [1.0], d=1, C=C)
    a, s = (np.asarray(x, float) for x in lad.PEAKED)
    peaked = lad.profile_design(a, s, d=16, C=C)
    g = C ** (np.arange(a.size) / (a.size - 1))
    lib_g = np.asarray(lad.taxonomic_arm(peaked).g)
    ip, lam = float(np.log(g) @ (a - s)), float(np.sum(a / g ** 2) * np.sum(s * g ** 2))
    two = lad.profile_design([0.3, 0.7], [0.6, 0.4], d=2, C=C)
    return {"L = 1 taxonomic g = 1": bool(np.array_equal(lad.taxonomic_arm(one).g, [1.0])),
            "L = 2 taxonomic g = (1, C)": bool(np.array_equal(lad.taxonomic_arm(two).g, [1.0, C])),
            "PEAKED profiles sum to 1": bool(abs(a.sum() - 1) <= 1e-15 and abs(s.sum() - 1) <= 1e-15),
            "PEAKED taxonomic g = C^(l/(L-1))": bool(np.max(np.abs(lib_g - g)) <= RTOL),
            "PEAKED: <ln g, a - s> > 0 and Lambda > 1": bool(ip > 0 and lam > 1)}


def _bootstrap_intervals(pilot, weights, dims, arms) -> tuple[float, list]:
    """Max error of the file's 95 % percentile intervals of each arm's inner product and Lambda (§7.2), rebuilt from
    the bootstrap's block counts: per resample the pilot estimates by least squares (as in step 2)."""
    starts = np.concatenate(([0], np.cumsum(dims)[:-1]))
    est = []
    for w in weights:
        XtX, Xty = np.tensordot(w, pilot.XtX, 1), w @ pilot.Xty
        w_hat = np.linalg.lstsq(XtX, Xty, rcond=None)[0]
        est.append((np.add.reduceat(w_hat ** 2 / np.sum(w_hat ** 2), starts),
                    np.add.reduceat(np.diag(XtX) / np.trace(XtX), starts)))
    err = 0.0
    for x in arms:
        g = np.asarray(x.g)
        ip = [np.log(g) @ (a - s) for a, s in est]
        lam = [np.sum(a / g ** 2) * np.sum(s * g ** 2) for a, s in est]
        for values, published in ((ip, x.ip_hat_ci), (lam, x.Lambda_hat_ci)):
            err = max(err, float(np.max(np.abs(np.quantile(values, [0.025, 0.975]) - np.asarray(published)))))
    return err, est


def _profile_summaries(p, est, a, s, a_hat, s_hat, g_oracle, g_educated) -> float:
    """Max relative error of the file's sign-kept fractions (share of resamples whose inner product has the sign of
    ip_hat), Bhattacharyya affinities sum sqrt(a s) (pilot, truth, 95 % interval over the resamples) and clipped
    optima Lambda*_C (at the L-BFGS-B grades of step 3; over the resamples by :func:`_clipped_lambda`), from ``est``."""
    lam = lambda g, x, y: float(np.sum(x / g ** 2) * np.sum(y * g ** 2))
    bc = lambda x, y: float(np.sum(np.sqrt(x * y)))
    q = lambda v: np.quantile(v, [0.025, 0.975])
    got, want = [], []
    for x in p.arms:
        ip_b = np.array([np.log(x.g) @ (ab - sb) for ab, sb in est])
        got.append(x.sign_kept), want.append(float(np.mean(np.sign(ip_b) == np.sign(x.ip_hat))))
    got += [p.BC_hat, p.BC_true, *p.BC_hat_ci, p.Lambda_star_C_true, p.Lambda_star_C_hat, *p.Lambda_star_C_hat_ci]
    want += [bc(a_hat, s_hat), bc(a, s), *q([bc(ab, sb) for ab, sb in est]), lam(g_oracle, a, s),
             lam(g_educated, a_hat, s_hat), *q([_clipped_lambda(ab, sb, p.design.C) for ab, sb in est])]
    return float(np.max(np.abs(np.subtract(got, want)) / np.abs(want)))


def bootstrap_checks(p, pilot, seed: int, dims, a, s, a_hat, s_hat, expected) -> tuple[bool, list]:
    """Step 8: the file's 95 % bootstrap intervals of inner product and Lambda rebuilt from the bootstrap's block
    counts (pilot seed ``seed``), its sign-kept fractions, BC and Lambda*_C summaries rebuilt, and its predicted ranks
    (1 = largest inner product, ties averaged) recomputed by SciPy. Returns the verdict and the evidence."""
    from scipy.stats import rankdata

    from theorylab.certify import computed

    ci_err, est_b = _bootstrap_intervals(pilot, lad.bootstrap_weights(pilot, p.bootstrap, seed), dims, p.arms)
    prof_err = _profile_summaries(p, est_b, a, s, a_hat, s_hat, expected["oracle"], expected["educated"])
    ranks = rankdata([-x.ip_hat for x in p.arms], method="average")
    ranks_ok = bool(np.array_equal(ranks, [x.predicted_rank for x in p.arms]))
    return bool(ci_err <= RTOL and prof_err <= LAMBDA_RTOL and ranks_ok), [
        computed("95 % bootstrap intervals of inner product and Lambda rebuilt, max error", ci_err, tolerance=RTOL),
        computed("sign-kept fractions, BC (pilot, truth, interval), Lambda*_C (truth, pilot, interval) rebuilt, max "
                 "relative error", prof_err, tolerance=LAMBDA_RTOL),
        computed("predicted ranks == ranks of -ip_hat (scipy rankdata, ties averaged)", ranks_ok)]

"""Monte Carlo of the excess risk of an explicit estimator over graded and uniform classes
(GLLM paper §4.3: Lem. 3-4, Thm. 4.1), compared with the minimax envelope.

Named choices (the paper leaves them open; see docs/graded.md):

* ``ESTIMATOR``: level-selective least squares, the estimator behind the upper bound of
  Lem. 3(ii): least squares on the coordinates of the levels worth estimating
  ``S = {l : d_l eps^2 <= cap_l}``, zero elsewhere.  Where ``m < 2 D_S + 4`` (the band the lemma
  does not cover) S is trimmed, most-worth-estimating level first, to the largest set with
  ``m >= 2 D_S + 4`` so the estimator stays defined.  Its risk at a target w is exact:
  ``b + (sigma_xi^2 + b) D_S / (m - D_S - 1)``, ``b = sum_{j not in S} sigma_j^2 w_j^2``
  (omitted coordinates act as independent Gaussian noise; inverse-Wishart mean).
* ``TARGETS``: the worst of a family of two targets on the boundary of the class: ``profile``
  (the unit-norm target with energy profile alpha that fixes both budgets) and
  ``least-favourable`` (the whole budget on one coordinate of the largest-cap level outside S,
  which maximises the exact risk of this estimator over the class).
* ``two_point_lower_bound``: a computed lower bound on the minimax risk of a class (over all
  estimators): the Bayes risk of the two-point prior ``+-t e_j`` on the largest-cap coordinate,
  maximised over ``t`` within the budget, by quadrature.  It is what the simulated risk is held
  above, in place of Lem. 3(i)'s unevaluated packing constant.

Reproducibility: the random stream of sample size ``m_values[i]`` is
``SeedSequence(seed, spawn_key=(i,))``; the design and noise draws are shared by both classes and
all targets (common random numbers), so the same seed gives the same numbers on any machine.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from theorylab._progress import progress as progress_bar
from theorylab._results import to_frame
from theorylab.errors import (ParameterError, check_memory, choice, finite_result, integer_array, positive_int,
                              real_array, real_scalar, seed_int)
from theorylab.graded import envelope as env
from theorylab.resources import Cost, bytes_of, count

__all__ = ["ESTIMATOR", "TARGETS", "BLOCK", "DRAW_ELEMENTS", "NORMAL_SECONDS", "PRODUCT_SECONDS",
           "SOLVE_SECONDS", "LOWER_BOUND_SECONDS", "LOWER_BOUND_BYTES", "FLAG_Z", "rows_per_draw",
           "simulate_cost", "estimable_levels", "exact_risk", "least_favourable_target",
           "two_point_lower_bound", "RiskSimulation", "simulate", "default_m_grid", "default_m_grid_cost"]

ESTIMATOR = "level-selective least squares (Lem. 3(ii) upper-bound estimator)"
TARGETS = ("profile", "least-favourable")
BLOCK = 16
"""Repetitions drawn and solved per block (fixed, so the random stream does not depend on the
machine).  Products are single-threaded einsum loops, not threaded BLAS: on a loaded 2-core
machine many small threaded BLAS calls were up to 7x slower (and their timing erratic)."""
DRAW_ELEMENTS = 2**22
"""Normals drawn at once: a block's m samples are drawn ``rows_per_draw(d)`` rows at a time and
the normal equations accumulated, so memory does not grow with m (32 MiB per draw).  The row
count depends on d only, so the stream is the same on every machine; for m <= rows_per_draw(d)
(every default grid of d <= 64) it is one draw of the whole block."""

NORMAL_SECONDS = 6e-8
"""Seconds per drawn and scaled normal; ``PRODUCT_SECONDS`` per multiply-add of the einsum
products, ``SOLVE_SECONDS`` per ``D_S^3`` of a batched solve, ``LOWER_BOUND_SECONDS`` per
:func:`two_point_lower_bound` (all measured on a shared 2-core machine)."""
PRODUCT_SECONDS = 3.5e-9
SOLVE_SECONDS = 5e-9
LOWER_BOUND_SECONDS = 0.25
LOWER_BOUND_BYTES = 5 * 200 * 64 * 80 * 8
"""Peak bytes of :func:`two_point_lower_bound`: a few (kappa grid 200) x (64 nodes) x (80 Hermite) arrays."""
FLAG_Z = 3
"""Standard errors granted to the Monte Carlo side of the rows' bound checks: the MC margins are
``C M - (mean - FLAG_Z se)`` (upper, ``C = UPPER_CONSTANT``) and ``mean + FLAG_Z se - LB`` (lower)."""


def rows_per_draw(d: int) -> int:
    """Rows of the design drawn at once for width ``d >= 1`` (see :data:`DRAW_ELEMENTS`).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.rows_per_draw(8) * 8 <= gr.DRAW_ELEMENTS                 # the design blocks of the GLLM §4.3 simulation
    True
    """
    return max(1, DRAW_ELEMENTS // (BLOCK * positive_int("d", d)))


def simulate_cost(model: env.StratifiedModel, m_values, reps) -> Cost:
    """Peak memory and run time of :func:`simulate` (an upper bound, checked by the CLI first).

    Per m and block of repetitions: the draws, the products ``X w`` and, per class, the Gram
    matrix ``X_S^T X_S`` and a solve, with ``D_S <= min(sum_{l in S} d_l, (m - 4) / 2)`` fitted
    coordinates (S of Lem. 3, before the estimator's trimming); the two-point lower bound per
    class. Memory: one draw with its copies, both classes' Gram matrices and a solve's copy,
    the losses. ``m_values`` as for :func:`simulate`: a non-empty list of integers >= 1."""
    d, reps = float(model.d), count("reps", reps)
    ms = [float(m) for m in integer_array("m_values", m_values, low=1).ravel()]
    b = min(reps, BLOCK)
    seconds, D_max = 0.0, 0.0
    for m in ms:
        per_rep = m * d * NORMAL_SECONDS
        for cls in (model.uniform, model.graded):
            S = env.worth_estimating(cls.caps, cls.dims, model.sigma_xi, m)
            D = min(float(cls.dims[S].sum()), max(0.0, (m - 4) / 2))
            D_max = max(D_max, D)
            per_rep += m * (2 * d + D * D + 2 * D) * PRODUCT_SECONDS + D ** 3 * SOLVE_SECONDS
        seconds += reps * per_rep + 2 * LOWER_BOUND_SECONDS
    rows = min(max(ms), rows_per_draw(model.d))
    memory = (bytes_of(3, b, rows, d) + bytes_of(3, b, D_max, D_max) + bytes_of(4, b, d, 2)
              + bytes_of(4, reps) + bytes_of(8, d) + LOWER_BOUND_BYTES)
    return Cost(memory, seconds, f"{len(ms)} sample sizes up to m = {max(ms):.3g} x {reps:.3g} repetitions, d = {d:.0f}")


def estimable_levels(cls: env.LinearClass, sigma_xi: float, m: int) -> np.ndarray:
    """Mask of the levels the estimator fits: S of Lem. 3, trimmed to ``2 D_S + 4 <= m``.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> model = gr.stratified_model(0.5, 0.25, levels=2, d=8)       # GLLM Lemma 3
    >>> gr.estimable_levels(model.uniform, 1.0, 4), gr.estimable_levels(model.uniform, 1.0, 400)
    (array([False, False]), array([ True,  True]))
    """
    sigma_xi, m = _noise(sigma_xi), positive_int("m", m)
    S = env.worth_estimating(cls.caps, cls.dims, sigma_xi, m)
    e2 = float(env.eps2(sigma_xi, m))
    keep = np.zeros_like(S)
    used = 0
    for l in np.argsort(-(cls.caps / (cls.dims * e2)), kind="stable"):
        if S[l] and 2 * (used + cls.dims[l]) + 4 <= m:
            keep[l] = True
            used += cls.dims[l]
    return keep


def exact_risk(cls: env.LinearClass, w, sigma_xi: float, m: int, levels_mask) -> float:
    """Exact excess risk of level-selective least squares at target ``w`` (see module docstring).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> model = gr.stratified_model(0.5, 0.25, levels=2, d=8)       # GLLM Lemma 3(ii)
    >>> S = gr.estimable_levels(model.uniform, 1.0, 40)
    >>> round(gr.exact_risk(model.uniform, model.target(), 1.0, 40, S), 4)
    0.1514
    """
    sigma_xi, m = _noise(sigma_xi), positive_int("m", m)
    w = _target("w", w, cls)
    mask = cls.coords(np.asarray(levels_mask, bool))
    sig2 = cls.coords(cls.sigma2)
    with np.errstate(over="ignore"):
        b = float(finite_result("w", np.sum(sig2[~mask] * w[~mask] ** 2)))
    DS = int(mask.sum())
    if DS == 0:
        return b
    if m <= DS + 1:
        return float("inf")
    with np.errstate(over="ignore"):
        return float(finite_result("w, sigma_xi", b + (sigma_xi ** 2 + b) * DS / (m - DS - 1)))


def _noise(sigma_xi) -> float:
    return np.float64(real_scalar("sigma_xi", sigma_xi, low=0.0, low_inclusive=False))


def _target(name: str, w, cls: env.LinearClass) -> np.ndarray:
    """A target vector: d finite reals, d = sum of the class's level sizes."""
    w = real_array(name, w)
    d = int(cls.dims.sum())
    if w.shape != (d,):
        raise ParameterError(f"{name} must be a vector of the d = {d} coordinates (got shape {w.shape})")
    return w


def least_favourable_target(cls: env.LinearClass, levels_mask, fallback) -> np.ndarray:
    """Budget on the first coordinate of the largest-cap level outside S (``fallback`` if S is full).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> model = gr.stratified_model(0.5, 0.25, levels=2, d=8)       # GLLM Lemma 3
    >>> S = gr.estimable_levels(model.uniform, 1.0, 4)
    >>> gr.least_favourable_target(model.uniform, S, model.target()).round(4)
    array([1., 0., 0., 0., 0., 0., 0., 0.])
    """
    fallback = _target("fallback", fallback, cls)
    outside = np.flatnonzero(~np.asarray(levels_mask, bool))
    if outside.size == 0:
        return fallback
    l = outside[np.argmax(cls.caps[outside])]
    w = np.zeros(int(cls.dims.sum()))
    w[int(cls.dims[:l].sum())] = cls.B / cls.D[l]
    return w


def two_point_lower_bound(cap: float, sigma_xi: float, m: int, nodes: int = 64) -> float:
    """Lower bound on the minimax risk of a class whose largest cap is ``cap``:
    ``sup_{kappa^2 <= cap} kappa^2 E[sech^2(eta^2 + eta Z)]``, ``eta = kappa sqrt(chi2_m)/sigma_xi``,
    the Bayes risk of the prior ``+-t e_j`` (``kappa = sigma_j t``) given the design.
    Quadrature: Gauss-Hermite in Z, ``nodes`` chi-square quantile midpoints, a kappa grid.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> round(gr.two_point_lower_bound(cap=0.5, sigma_xi=1.0, m=4, nodes=16), 3)   # GLLM Lemma 3(i)
    0.161
    """
    from numpy.polynomial.hermite_e import hermegauss
    from scipy.special import chdtri

    cap = real_scalar("cap", cap, low=0.0, low_inclusive=False)
    sigma_xi = real_scalar("sigma_xi", sigma_xi, low=0.0, low_inclusive=False)
    m = positive_int("m", m)
    nodes = positive_int("nodes", nodes)
    check_memory("nodes", 8 * 4 * 200 * 80 * nodes)
    z, wz = hermegauss(80)
    wz = wz / wz.sum()
    chi = chdtri(m, 1.0 - (np.arange(nodes) + 0.5) / nodes)       # chi-square quantile midpoints
    kappa = np.sqrt(cap) * np.geomspace(1e-3, 1.0, 200)
    with np.errstate(over="ignore", invalid="ignore"):
        eta = kappa[:, None, None] * np.sqrt(chi)[None, :, None] / sigma_xi
        x = eta ** 2 + eta * z[None, None, :]                     # >= -max(z)^2 / 4 = -70.7: exp(-2 x) is finite
    x = np.where(np.isnan(x), np.inf, x)                         # inf - inf at eta = inf (sigma_xi -> 0): x = inf
    e = np.exp(-2 * x)
    sech2 = 4 * e / (1 + e) ** 2
    risk = kappa ** 2 * np.mean(sech2 @ wz, axis=1)
    return float(risk.max())


@dataclass(frozen=True)
class RiskSimulation:
    """Result of :func:`simulate`: one row per (m, class, target) plus one ratio row per m.

    :meth:`to_frame` gives either table as a ``pandas.DataFrame``.
    """

    rows: list
    ratio_rows: list
    summary: dict
    losses: dict = field(repr=False)
    seed: int = 0

    def to_frame(self, table: str = "rows"):
        """``table`` (``"rows"``: one per (m, class, target); ``"ratio_rows"``: one per m) as a
        ``pandas.DataFrame`` (pandas: the optional extra ``theorylab[pandas]``)."""
        return to_frame(list(getattr(self, choice("table", table, ("rows", "ratio_rows")))))


def simulate(model: env.StratifiedModel, m_values, reps: int = 200, seed: int = 0,
             progress: bool = False) -> RiskSimulation:
    """Monte Carlo risk of level-selective least squares for the uniform and graded classes.

    For each m: the estimator's MC risk (mean of ``reps`` losses, standard error) at each target
    of ``TARGETS``, its exact risk, the envelope ``M(m)``, whether Lem. 3(ii) applies, the upper
    margins ``C M - exact`` and ``C M - (MC mean - FLAG_Z se)`` (``C = UPPER_CONSTANT = 3``) and, where
    the lemma applies, ``upper_ok`` (both margins >= 0); the two-point lower bound LB, the lower margins
    ``exact - LB`` and ``MC mean + FLAG_Z se - LB`` and, on the worst target of the family,
    ``lower_ok`` (both >= 0); the implied lower constant ``LB/M``.  Ratio rows: worst-of-family risk ratio
    graded/uniform (exact and MC) beside the cap ratio and Lambda(g).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> model = gr.stratified_model(0.5, 0.25, levels=2, d=8)       # GLLM Theorem 4.1
    >>> sim = gr.simulate(model, [4], reps=10)
    >>> ratio = sim.ratio_rows[0]
    >>> round(ratio["ratio_exact"], 4), round(ratio["cap_ratio"], 4), round(ratio["Lambda"], 4)
    (0.569, 0.569, 0.7771)
    """
    m_values = [int(m) for m in np.atleast_1d(integer_array("m_values", m_values, low=1))]
    reps = positive_int("reps", reps, low=2)
    seed = seed_int("seed", seed)
    check_memory("m_values, model.d", 8 * 3 * BLOCK * max(m_values) * model.d)
    classes = (model.uniform, model.graded)
    sd = np.sqrt(model.uniform.coords(model.uniform.sigma2))
    wstar = model.target()
    W = model.window
    rows, ratio_rows, losses = [], [], {}
    with progress_bar(len(m_values), "graded-sim", "m", enabled=progress, leave=True, delay=2.0) as bar:
        for i in range(len(m_values)):
            m = m_values[i]
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i,)))
            setup = []
            for cls in classes:
                S = estimable_levels(cls, model.sigma_xi, m)
                targets = {"profile": wstar, "least-favourable": least_favourable_target(cls, S, wstar)}
                setup.append((cls, S, cls.coords(S).astype(bool), np.stack([targets[t] for t in TARGETS], axis=1)))
            loss = np.empty((len(classes), len(TARGETS), reps))
            per_draw = rows_per_draw(model.d)
            for start in range(0, reps, BLOCK):
                b = min(BLOCK, reps - start)
                # least squares via the normal equations (m >= 2 D_S + 4), accumulated over row draws
                gram = [np.zeros((b, int(mask.sum()), int(mask.sum()))) for _, _, mask, _ in setup]
                rhs = [np.zeros((b, int(mask.sum()), Wt.shape[1])) for _, _, mask, Wt in setup]
                for r0 in range(0, m, per_draw):
                    X = rng.standard_normal((b, min(per_draw, m - r0), model.d))
                    X *= sd
                    xi = model.sigma_xi * rng.standard_normal(X.shape[:2])
                    for c, (cls, S, mask, Wt) in enumerate(setup):
                        if mask.any():
                            XS = X[:, :, mask]
                            y = np.einsum("bmi,ik->bmk", X, Wt) + xi[..., None]
                            gram[c] += np.einsum("bmi,bmj->bij", XS, XS)
                            rhs[c] += np.einsum("bmi,bmk->bik", XS, y)
                for c, (cls, S, mask, Wt) in enumerate(setup):
                    est = np.zeros((b,) + Wt.shape)
                    if mask.any():
                        est[:, mask, :] = np.linalg.solve(gram[c], rhs[c])
                    loss[c, :, start:start + b] = np.sum((sd[None, :, None] * (est - Wt)) ** 2, axis=1).T
            worst = {}
            for c, (cls, S, mask, Wt) in enumerate(setup):
                M = float(env.envelope(cls.caps, cls.dims, model.sigma_xi, m))
                applies = bool(env.upper_regime(cls.caps, cls.dims, model.sigma_xi, m))
                lb = two_point_lower_bound(float(cls.caps.max()), model.sigma_xi, m)
                per = []
                first = len(rows)
                for k, t in enumerate(TARGETS):
                    losses[f"m{m}_{cls.name}_{t}"] = loss[c, k]
                    mean, se = float(loss[c, k].mean()), float(loss[c, k].std(ddof=1) / np.sqrt(reps))
                    exact = exact_risk(cls, Wt[:, k], model.sigma_xi, m, S)
                    per.append((exact, mean, se))
                    up = (env.UPPER_CONSTANT * M - exact, env.UPPER_CONSTANT * M - (mean - FLAG_Z * se))
                    low = (exact - lb, mean + FLAG_Z * se - lb)
                    rows.append({"m": m, "in_window": bool(W and W[0] <= m <= W[1]), "class": cls.name, "target": t,
                                 "S_levels": "".join(str(l) for l in np.flatnonzero(S)) or "-",
                                 "risk_mc": mean, "se": se, "risk_exact": exact, "envelope": M,
                                 "risk_over_envelope": mean / M, "upper_applies": applies,
                                 "upper_margin": up[0], "upper_margin_mc": up[1],
                                 "upper_ok": bool(min(up) >= 0) if applies else None,
                                 "lower_bound": lb, "lower_margin": low[0], "lower_margin_mc": low[1],
                                 "lower_ok": None, "implied_c_lower": lb / M})
                worst[cls.name] = max(per)
                k = per.index(worst[cls.name])          # the lower bound is on the sup over the class:
                row = rows[first + k]                  # it is checked on the worst target of the family
                row["lower_ok"] = bool(min(row["lower_margin"], row["lower_margin_mc"]) >= 0)
            ex_u, mc_u, se_u = worst["uniform"]
            ex_g, mc_g, se_g = worst["graded"]
            ratio_rows.append({"m": m, "in_window": bool(W and W[0] <= m <= W[1]),
                               "ratio_exact": ex_g / ex_u, "ratio_mc": mc_g / mc_u,
                               "ratio_se": float(np.hypot(se_g, mc_g * se_u / mc_u)) / mc_u,    # delta method
                               "cap_ratio": model.cap_ratio, "Lambda": model.Lambda})
            if bar is not None:
                bar.update()
    factors = env.theorem41_factors(model.nu, model.mu)
    summary = {"estimator": ESTIMATOR, "targets": list(TARGETS), "reps": reps, "seed": seed,
               "m_sat": model.m_sat, "window": list(W) if W else None, "g": model.g.tolist(),
               "Lambda": model.Lambda, "cap_ratio": model.cap_ratio,
               "cap_ratio_over_Lambda": model.cap_ratio / model.Lambda,
               "thm41_factor_low": float(factors[0]), "thm41_factor_high": float(factors[1]),
               "upper_constant": env.UPPER_CONSTANT}
    return RiskSimulation(rows, ratio_rows, summary, losses, seed)


def default_m_grid(model: env.StratifiedModel, points: int = 10) -> list[int]:
    """Geometric grid of sample sizes from 4 to 8 m_sat (inside and outside W).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.default_m_grid(gr.stratified_model(0.5, 0.25, levels=2, d=8), points=4)   # 4 to 8 m_sat (GLLM Lemma 4)
    [4, 14, 47, 160]
    """
    points = positive_int("points", points, low=2)
    check_memory("points", 8 * points)
    if model.m_sat * 8 <= 4:
        raise ParameterError("m_sat is too small for a grid (increase d or sigma_xi)")
    if not 8 * model.m_sat < 2**62:
        raise ParameterError(f"m_sat is too large for a grid of sample sizes (8 m_sat = {8 * model.m_sat:.3g}; "
                             f"reduce d or sigma_xi, or give the sample sizes)")
    grid = np.round(np.geomspace(4, 8 * model.m_sat, points))      # increasing: duplicates are neighbours
    keep = np.empty(grid.size, bool)
    keep[0] = True
    np.not_equal(grid[1:], grid[:-1], out=keep[1:])
    return grid[keep].astype(np.int64).tolist()


def default_m_grid_cost(points) -> Cost:
    """Peak memory and run time of :func:`default_m_grid` (three arrays of ``points``)."""
    points = count("points", points)
    return Cost(bytes_of(3, points), 3e-8 * points, f"a grid of {points:.3g} points")

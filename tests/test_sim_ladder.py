"""The selection ladder's measurement: the constrained fit, learning curves, crossings, the measurement, Lem. 2."""
import numpy as np
import pytest
from scipy import optimize, stats

from theorylab.errors import ParameterError
from theorylab.graded import budget_fit, envelope
from theorylab.graded import ladder as lad
from theorylab.graded import prereg as pr
from theorylab.graded import ladder_sim as sl
from theorylab.graded import pilot_cost as pc

DESIGN = lad.geometric_design(0.6, 0.3, levels=4, d=16)


@pytest.fixture(scope="module")
def small_prereg():
    return pr.preregister(DESIGN, 4000, seed=3, bootstrap=20)


def test_constrained_fit_against_a_generic_solver():
    rng = np.random.default_rng(1)
    d = 6
    prec, g = rng.uniform(0.5, 5, d), rng.uniform(1, 2, d)
    obs = rng.normal(0, 2, (5, d))
    B = 1.3
    fit = budget_fit.constrained_fit(obs, prec, g, B)
    for o, f in zip(obs, fit):
        res = optimize.minimize(lambda w: np.sum(prec * (w - o) ** 2), np.zeros(d), method="SLSQP",
                                constraints=[{"type": "ineq", "fun": lambda w: B ** 2 - np.sum((w / g) ** 2)}],
                                options={"ftol": 1e-14, "maxiter": 500})
        assert np.sum(prec * (f - o) ** 2) <= res.fun * (1 + 1e-7) + 1e-12
        assert np.sum((f / g) ** 2) <= B ** 2 * (1 + 1e-12)
    inside = 0.01 * obs
    # exact: an inactive constraint returns the observation itself
    np.testing.assert_array_equal(budget_fit.constrained_fit(inside, prec, g, B), inside)   # constraint inactive


def test_constrained_fit_is_on_the_boundary_when_active():
    rng = np.random.default_rng(2)
    obs = rng.normal(0, 10, (200, 16))
    g = np.repeat([1, 1.3, 1.7, 2.0], 4)
    fit = budget_fit.constrained_fit(obs, np.geomspace(0.01, 100, 16), g, 0.7)
    np.testing.assert_allclose(np.sum((fit / g) ** 2, axis=1), 0.49, rtol=1e-12)


def test_gauge_invariance_of_the_class():
    """g and c g define the same class {||G^-1 w|| <= ||G^-1 w*||}: identical learning curves."""
    g = lad.taxonomic_arm(DESIGN).g
    r = sl.learning_curves(DESIGN, [g, 3.0 * g, np.ones(4), 1.7 * np.ones(4)], [4, 50, 900], reps=50, seed=2)
    np.testing.assert_allclose(r[0], r[1], rtol=1e-9)
    np.testing.assert_allclose(r[2], r[3], rtol=1e-9)


def test_learning_curves_reproducible_and_decreasing():
    G = [np.ones(4), lad.oracle_arm(DESIGN).g]
    ms = [1, 10, 100, 1000, 10000]
    a = sl.learning_curves(DESIGN, G, ms, reps=100, seed=4)
    # same code run twice: bitwise (seed 4 twice)
    assert np.array_equal(a, sl.learning_curves(DESIGN, G, ms, reps=100, seed=4))
    assert not np.array_equal(a, sl.learning_curves(DESIGN, G, ms, reps=100, seed=5))
    assert np.all(np.diff(a.mean(axis=2), axis=1) < 0)
    # far past saturation both arms sit on the least-squares floor sigma^2 d / m
    assert a[:, -1].mean(axis=1) == pytest.approx(DESIGN.d / 10000, rel=0.2)


def _gaussian_design_risks(design, G, ms, reps, seed):
    """A second route: the random Gaussian design row by row, the constrained fit by eigendecomposition
    of G X^T X G and bisection on the multiplier (no code shared with theorylab.graded.ladder_sim)."""
    rng = np.random.default_rng(seed)
    w, sd = design.target(), np.sqrt(design.tau)
    X = rng.standard_normal((reps, max(ms), design.d)) * sd
    y = X @ w + design.sigma_xi * rng.standard_normal((reps, max(ms)))
    out = np.empty((len(G), len(ms), reps))
    for i, m in enumerate(ms):
        XtX = np.einsum("rmi,rmj->rij", X[:, :m], X[:, :m])
        Xty = np.einsum("rmi,rm->ri", X[:, :m], y[:, :m])
        for k, gl in enumerate(G):
            g = np.repeat(gl, design.dims)
            B = np.sqrt(np.sum((w / g) ** 2))
            lam, V = np.linalg.eigh(XtX * g[:, None] * g[None, :])
            c = np.einsum("rji,rj->ri", V, Xty * g)
            norm = lambda mu: np.sqrt(np.sum((c / (lam + mu[:, None])) ** 2, axis=1))
            lo, hi = np.zeros(reps), np.full(reps, 1e8)
            for _ in range(200):
                mid = 0.5 * (lo + hi)
                big = norm(mid) > B
                lo, hi = np.where(big, mid, lo), np.where(big, hi, mid)
            mu = np.where(norm(np.zeros(reps)) <= B, 0.0, hi)
            u = np.einsum("rij,rj->ri", V, c / (lam + mu[:, None]))
            out[k, i] = np.sum(design.tau * (u * g - w) ** 2, axis=1)
    return out


def test_orthogonal_design_matches_the_gaussian_design():
    """The orthogonal-design shortcut (DESIGN) against the random Gaussian design: risk ratios to the
    uniform arm agree within 5 % at d = 16 from m = 2d on (measured: within 2 %)."""
    G = [np.ones(4), lad.taxonomic_arm(DESIGN).g, lad.oracle_arm(DESIGN).g, lad.random_arm(DESIGN, 0).g]
    ms = [32, 128, 512]
    rg = _gaussian_design_risks(DESIGN, G, ms, 400, 1).mean(axis=2)
    ro = sl.learning_curves(DESIGN, G, ms, 2000, 1).mean(axis=2)
    np.testing.assert_allclose(rg / rg[0], ro / ro[0], rtol=0.05)
    np.testing.assert_allclose(rg[0], ro[0], rtol=0.1)


def test_crossing():
    ms = np.array([1, 10, 100, 1000])
    curves = np.array([100.0 / ms, 100.0 / ms, 0.5 * np.ones(4), 100.0 / ms])
    got = sl.crossing(ms, curves, 0.5)
    assert got[0] == pytest.approx(200.0)             # log-log interpolation is exact on a power law
    assert np.isnan(sl.crossing(ms, curves[:1], 0.01))[0]        # not reached within the grid
    assert np.isnan(got[2])                                       # reached at the first point: not resolved
    boot = sl.crossing(ms, np.stack([curves, 2 * curves]), 1.0)   # leading axes broadcast
    assert boot.shape == (2, 4) and boot[1, 0] == pytest.approx(200.0)


def test_window_end_matches_the_envelope_module():
    for nu, mu in ((0.6, 0.3), (0.8, 0.4)):
        d = lad.geometric_design(nu, mu, levels=4, d=64)
        assert sl.window_end(d)[0] == pytest.approx(envelope.stratified_model(nu, mu, 4, 64).m_sat, rel=1e-13)
    assert sl.reference_size(DESIGN) == sl.window_end(DESIGN)[1][1]


def test_spearman_matches_scipy():
    rng = np.random.default_rng(0)
    x = np.array([0.0, -0.1, 0.4, 0.5, 0.5, 0.6])
    Y = rng.normal(size=(20, 6))
    ours = sl.spearman(x, Y)
    ref = [stats.spearmanr(x, y).statistic for y in Y]
    np.testing.assert_allclose(ours, ref, rtol=1e-12)
    assert np.isnan(sl.spearman(x, [[1, 2, np.nan, 4, 5, 6]])[0])


def test_measure(small_prereg):
    res = sl.measure(small_prereg, reps=60, seed=1, bootstrap=50)
    rows = {r["arm"]: r for r in res.rows}
    assert rows["uniform"]["efficiency"] == 1 and rows["uniform"]["risk_ratio_ref"] == 1
    for r in res.rows:
        assert r["eff_lo"] <= r["efficiency"] <= r["eff_hi"] and r["rr_lo"] <= r["risk_ratio_ref"] <= r["rr_hi"]
    s = res.summary
    assert -1 <= s["spearman_efficiency"] <= 1 and -1 <= s["spearman_risk_ratio"] <= 1
    assert s["m_ref"] == sl.reference_size(DESIGN) and s["target_risk"] == pytest.approx(0.5 * DESIGN.null_risk)
    assert sorted(s["measured_order"]) == sorted(lad.ARMS)
    # in W every arm's risk ratio tracks its Lambda (Thm. 4.1's form), on the same side of 1
    for r in res.rows:
        assert r["risk_ratio_ref"] == pytest.approx(r["Lambda_true"], rel=0.15)
        assert (r["risk_ratio_ref"] - 1) * (r["Lambda_true"] - 1) >= 0


def test_measure_is_reproducible_and_leaves_the_preregistration_alone(small_prereg, tmp_path):
    path = str(tmp_path / "p.json")
    sha = pr.write(small_prereg, path)
    p, _ = pr.read(path)
    a = sl.measure(p, [1, 10, 100, 1000, 10000], reps=30, seed=2, bootstrap=20)
    b = sl.measure(p, [1, 10, 100, 1000, 10000], reps=30, seed=2, bootstrap=20)
    # same code run twice: bitwise
    assert a.rows == b.rows and pr.read(path)[1] == sha


def test_memory_refusal(small_prereg, monkeypatch):
    monkeypatch.setenv("THEORYLAB_MAX_MEMORY", "1M")
    with pytest.raises(ParameterError, match="of memory"):
        sl.measure(small_prereg, reps=1000)


@pytest.mark.parametrize("kwargs, match", [
    ({"reps": 1}, "reps"), ({"target": 0}, "target"), ({"m_values": [10, 5]}, "increasing"),
    ({"bootstrap": 1}, "bootstrap"),
])
def test_measure_validation(small_prereg, kwargs, match):
    with pytest.raises(ParameterError, match=match):
        sl.measure(small_prereg, **kwargs)


def test_degradation_small():
    res = pc.degradation(DESIGN, [200, 2000, 20000], draws=3, reps=30, m_values=[1, 10, 100, 1000, 10000])
    assert [r["n_pilot"] for r in res.rows] == [200, 2000, 20000] and len(res.draws) == 9
    assert all(p["excess"] >= 0 and p["error"] > 0 for p in res.draws)
    assert np.isfinite(res.summary["slope_excess_vs_error"])
    with pytest.raises(ParameterError, match="at least 3"):
        pc.degradation(DESIGN, [200, 2000])


def test_sigma_xi_range_and_the_default_grid_without_overflow():
    """profile_design bounds sigma_xi by 1.34e8; default_grid of a hand-built design with a larger one refuses
    (was OverflowError: sigma_xi ** 2), and reference_size names the sigma_xi a design allows."""
    for sigma in (1e200, 1e308, 2e8):
        with pytest.raises(ParameterError, match=r"sigma_xi must be a finite real number > 0 and <= 1.34e\+08"):
            lad.profile_design(DESIGN.a, DESIGN.s, 16, sigma, 2.0)
    huge = lad.LadderDesign("hand-built", DESIGN.a, DESIGN.s, DESIGN.dims, 1e200, 2.0)
    with pytest.raises(ParameterError, match="the grid would run to inf samples"):
        sl.default_grid(huge)
    noisy = lad.profile_design(DESIGN.a, DESIGN.s, 16, 3e7, 2.0)
    msat = sl.window_end(noisy)[0]
    assert msat / 2 > sl.MAX_SIZE
    allowed = 3e7 * np.sqrt(sl.MAX_SIZE / (msat / 2))
    with pytest.raises(ParameterError, match="too large for this design") as info:
        sl.reference_size(noisy)
    most = float(str(info.value).split("at most ")[1].split(" ")[0])
    assert allowed * (1 - 2e-3) < most <= allowed            # shown rounded down to 4 digits
    ok = lad.profile_design(DESIGN.a, DESIGN.s, 16, most, 2.0)
    assert sl.reference_size(ok) <= sl.MAX_SIZE


def test_degradation_without_a_positive_excess_has_no_excess_slope():
    """C = 1: every grade is 1, so every draw's excess is exactly 0 and no excess power law exists: NaN
    slopes (SciPy 1.15's linregress raised on the empty fit), while the error's slope is still fitted."""
    flat = lad.geometric_design(0.6, 0.3, levels=4, d=16, C=1.0)
    res = pc.degradation(flat, [200, 2000, 20000], draws=2, reps=4, m_values=[1, 10, 100])
    assert [p["excess"] for p in res.draws] == [0.0] * 6
    for key in ("slope_excess_vs_error", "slope_excess_vs_n", "slope_excess_vs_n_tail"):
        assert np.isnan(res.summary[key]) and np.isnan(res.summary[f"{key}_ci"]).all(), key
    assert -2 < res.summary["slope_error_vs_n"] < 0 and np.isfinite(res.summary["slope_error_vs_n_ci"]).all()

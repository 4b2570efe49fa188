"""Bugs planted in the library source that three blind spots of the certificates let PASS, and that now FAIL.

The blind spots: (1) a result field checked for presence, one-sidedly or not at all (the seed summary and
bootstrap of trainstats, the compare readouts plateau_check, band_edge_check, Calibration and Crossover, the
graded-risk rows); (2) a statistic whose mean is right while its covariance is wrong (the pilot's Bartlett
blocks: G10 held only their means); (3) a comparison whose two sides call the same library helper (P17's r and
median relative error). Each bug below PASSed the certificates before the fix.
"""
import pytest

from planted import assert_caught

STATS, COMPARE = "theorylab/nn/trainstats.py", "theorylab/psa/compare.py"
PILOT, RISK = "theorylab/graded/ladder.py", "theorylab/graded/risk_sim.py"

#: label -> (library path, old text, new text, certificates that must FAIL)
BUGS = {
    # (1) result fields in value
    "bootstrap gamma_c 0 where a resample never rises": (
        STATS, "np.nan if gc is None else gc", "0.0 if gc is None else gc", ["P23.estimator"]),
    "bootstrap ignores its seed": (
        STATS, 'np.random.default_rng(seed_int("seed", seed))', 'np.random.default_rng(seed_int("seed", 0))',
        ["P23.estimator"]),
    "pooled Wilson interval of truncated hits": (
        STATS, "wilson_interval(hits, n, z=1.959964)", "wilson_interval(int(hits), n, z=1.959964)", ["P23.estimator"]),
    "plateau_check z of the wrong sign": (
        COMPARE, '"z": (mc - p) / se if se > 0', '"z": (p - mc) / se if se > 0', ["P18.plateau"]),
    "band_edge_check reports the lower root": (
        COMPARE, "upper = float(np.asarray(transition.t4_band(dk, T)[1]))",
        "upper = float(np.asarray(transition.t4_band(dk, T)[0]))",
        ["P19.band"]),
    "band_edge_check: the root itself not above it": (
        COMPARE, '"above_upper_root": bool(gi >= upper)', '"above_upper_root": bool(gi > upper)', ["P19.band"]),
    "calibration spread with ddof 0": (
        COMPARE, "spread = float(np.std(c_i[ok], ddof=1))", "spread = float(np.std(c_i[ok], ddof=0))",
        ["P18.condensation"]),
    "calibration MC interval adds half-widths": (
        COMPARE, "hw = float(np.sqrt(np.sum(half[ok] ** 2)) / ok.sum())", "hw = float(np.sum(half[ok]) / ok.sum())",
        ["P18.condensation"]),
    "crossover CI at 90 %": (
        COMPARE, "student_t.ppf(0.975, CROSSOVER_BATCHES - 1)", "student_t.ppf(0.95, CROSSOVER_BATCHES - 1)",
        ["P19.crossover"]),
    "crossover batch SE with ddof 0": (
        COMPARE, "se = per.std(axis=0, ddof=1)", "se = per.std(axis=0, ddof=0)", ["P19.crossover"]),
    "graded-risk S_levels listed backwards": (
        RISK, '"S_levels": "".join(str(l) for l in np.flatnonzero(S)) or "-",',
        '"S_levels": "".join(str(l) for l in np.flatnonzero(S)[::-1]) or "-",', ["G8"]),
    # (2) the pilot's law, not only its mean
    "pilot noise u_i times the row sum of A (right marginal variance)": (
        PILOT, "design.sigma_xi * (A @ rng.standard_normal(d))",
        "design.sigma_xi * (A * rng.standard_normal(d)[:, None]).sum(1)", ["G10"]),
    "pilot noise A^T u (the transposed factor: right mean, summed noise statistic near chi2(d))": (
        PILOT, "design.sigma_xi * (A @ rng.standard_normal(d))", "design.sigma_xi * (A.T @ rng.standard_normal(d))",
        ["G10"]),
    # (3) one side from first principles
    "relative error divided by the prediction": (
        COMPARE, "np.abs(p - s) / np.abs(s)", "np.abs(p - s) / np.abs(p)", ["P17"]),
    "pearson_r returns r squared": (
        COMPARE, "np.corrcoef(x[ok], y[ok])[0, 1])", "np.corrcoef(x[ok], y[ok])[0, 1] ** 2)", ["P17"]),
}


@pytest.mark.parametrize("label", list(BUGS))
def test_planted_certificate_pattern_bug_makes_certify_fail(label):
    path, old, new, catchers = BUGS[label]
    assert_caught(path, old, new, catchers)

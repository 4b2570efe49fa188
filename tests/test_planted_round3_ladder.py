"""Planted bugs in the GLLM ladder (theorylab/graded/ladder.py, prereg.py, theorylab/graded/ladder_sim.py) and the
graded-risk simulation caught by the round-3 checks of G10 and G8: the pilot's noise statistic at sigma_xi = 1/4,
the pilot replayed from its stream, the fit's rescalings at extreme coefficients, ranks of a 3-D batch, the default
grid at sigma_xi = 1/2, the mean risks at the grid's last size, the risk-ratio bootstrap intervals, the summary of
synthetic risks, the sign-kept fractions / BC / Lambda*_C intervals, LB / M."""
import pytest

from planted import assert_caught

BUGS = {
    "row-by-row pilot without sigma_xi": ("theorylab/graded/ladder.py",
                                          "y = X @ w + design.sigma_xi * rng.standard_normal(rows)",
                                          "y = X @ w + rng.standard_normal(rows)", "G10"),
    "Bartlett chi-square dofs reversed": ("theorylab/graded/ladder.py", "rng.chisquare(rows - np.arange(d))",
                                          "rng.chisquare(rows - np.arange(d)[::-1])", "G10"),
    "fit rescaled by the signed maximum": ("theorylab/graded/ladder.py", "np.frexp(np.max(np.abs(Xty)))",
                                           "np.frexp(np.max(Xty))", "G10"),
    "w_hat not rescaled": ("theorylab/graded/ladder.py", "np.frexp(np.max(np.abs(w_hat)))[1]",
                           "np.frexp(np.max(np.abs(w_hat)))[0]", "G10"),
    "ties counted over the wrong axis": ("theorylab/graded/prereg.py", "== x[..., :, None], axis=-1)",
                                         "== x[..., :, None], axis=1)", "G10"),          # 3-D batch: shapes clash
    "sign-kept fraction inverted": ("theorylab/graded/prereg.py", "np.mean(np.sign(ip_b) == np.sign(ip))",
                                    "np.mean(np.sign(ip_b) != np.sign(ip))", "G10"),
    "Lambda*_C interval from the unclipped optimum": ("theorylab/graded/prereg.py",
                                                      "lsc_b = [grades.clipped_grades(a, s, design.C).Lambda",
                                                      "lsc_b = [grades.bhattacharyya(a, s) ** 2", "G10"),
    "Spearman without the square root": ("theorylab/graded/ladder_sim.py",
                                         "den = np.sqrt(np.sum(rxc ** 2) * np.sum(ryc ** 2, axis=1))",
                                         "den = np.sum(rxc ** 2) * np.sum(ryc ** 2, axis=1)", "G10"),
    "taxonomic arm constant at L = 2": ("theorylab/graded/ladder.py", "if L > 1 else np.ones(1)",
                                        "if L > 2 else np.ones(L)", "G10"),
    "one degradation draw too many": ("theorylab/graded/ladder_sim.py", "for k in range(draws):", "for k in range(draws + 1):",
                                      "G10"),
    "window flag open at 4": ("theorylab/graded/risk_sim.py", '"in_window": bool(W and W[0] <= m <= W[1]), "class"',
                              '"in_window": bool(W and W[0] < m <= W[1]), "class"', "G8"),
    "trimmed S ordered by cap alone": ("theorylab/graded/risk_sim.py", "-(cls.caps / (cls.dims * e2))",
                                       "-(cls.caps / (1.0 * e2))", "G8"),
    "unresolved efficiency ranked first": ("theorylab/graded/ladder_sim.py", "np.where(np.isnan(eff), 0.0, eff)",
                                           "np.where(np.isnan(eff), 1e300, eff)", "G10"),
    "default grid without sigma_xi^2": ("theorylab/graded/ladder_sim.py", "top = GRID_FACTOR * design.sigma_xi ** 2 * design.d",
                                        "top = GRID_FACTOR * design.d", "G10"),
    "active set from obs * g": ("theorylab/graded/ladder_sim.py", "active = np.sum((obs / g) ** 2, axis=1)",
                                "active = np.sum((obs * g) ** 2, axis=1)", "G10"),
    "percentile interval at 1/3 %": ("theorylab/graded/ladder_sim.py", "lo = (1 - CI_LEVEL) / 2", "lo = (1 - CI_LEVEL) / 3",
                                     "G10"),
    "normals drawn one row at a time": ("theorylab/graded/risk_sim.py", "DRAW_ELEMENTS = 2**22", "DRAW_ELEMENTS = 16",
                                        "G8"),
    "implied lower constant LB, not LB / M": ("theorylab/graded/risk_sim.py", '"implied_c_lower": lb / M',
                                              '"implied_c_lower": lb', "G8"),
}


@pytest.mark.slow
@pytest.mark.parametrize("label", list(BUGS))
def test_round3_ladder_bug_makes_certify_fail(label):
    path, old, new, cid = BUGS[label]
    assert_caught(path, old, new, cid, accept=("FAIL", "ERROR") if "axis" in label else ("FAIL",))

"""GLLM certificates G1.symbolic, G2-G9, G3.interval, G8.numeric: each PASSes on the library and FAILs on a mutant."""
import numpy as np
import pytest

from theorylab.certify import graded_interval as interval
from theorylab.certify import run_one, select
from theorylab.errors import ParameterError
from theorylab.graded import embedding, envelope, grades
from theorylab.symbolic import graded as sg

IDS = ["G1.symbolic", "G2", "G3", "G3.interval", "G4", "G5", "G6", "G7", "G8", "G8.numeric", "G9"]


def _spec(cid):
    return next(s for s in select([cid]) if s.id == cid)


@pytest.mark.parametrize("cid", IDS)
def test_certificate_passes(cid):
    cert = run_one(_spec(cid))
    assert cert.status == "PASS", cert.note


def _bad_bc(nu, mu, L):                       # r = mu/nu instead of sqrt(mu/nu)
    r = mu / nu
    return nu ** ((L - 1) / 2) / np.sqrt(grades._geom(nu, L) * grades._geom(mu, L)) * grades._geom(r, L)


def _bad_envelope(cap, dims, sigma_xi, m):    # an envelope ten times too small
    return envelope.envelope(cap, dims, sigma_xi, m) / 10


def _bad_table3(nu, mu, levels=4, C=2.0):     # the clip ignored: unclipped optimum reported
    row = grades.table3_row(nu, mu, levels, 100.0)
    return row


MUTANTS = {
    "G1.symbolic": {"grading_matrix": lambda q, lam: np.diag(lam ** (np.asarray(q) / 2))},
    "G2": {"ellipsoid_semi_axes": lambda q, lam, B: B * lam ** -np.asarray(q, float)},
    "G3": {"optimal_grades": lambda a, t: (a / t) ** 0.5 / ((a / t) ** 0.5).min()},
    "G3.interval": {"optimal_grades": lambda a, t: (a / t) ** 0.5 / ((a / t) ** 0.5).min()},
    "G4": {"admissibility": lambda q, a, t: float(np.asarray(q) @ (t - a))},
    "G5": {"bc_geometric": _bad_bc},
    "G6": {"table3_row": _bad_table3},
    "G7": {"mlge_grading": lambda Ps, qs, lam: sum((P * lam ** (2 * q)) @ P.T for P, q in zip(Ps, qs))},
    "G8": {"envelope_fn": _bad_envelope},
    "G8.numeric": {"envelope_fn": _bad_envelope},
    "G9": {"tilted": lambda p, u: np.asarray(p) * np.exp(np.asarray(u))},
}


@pytest.mark.parametrize("cid", IDS)
def test_certificate_fails_on_mutant(cid):
    cert = run_one(_spec(cid), **MUTANTS[cid])
    assert cert.status == "FAIL", (cert.status, cert.note)


def test_g6_fails_when_profiles_are_wrong():
    cert = run_one(_spec("G6"), geometric_profiles=lambda nu, mu, L: grades.geometric_profiles(mu, nu, L))
    assert cert.status == "FAIL"


def test_exact_decider_is_not_vacuous():
    assert not sg.is_zero_rational(sg.lagrange_residual(2) + sg.symbols("x", 2)[0] ** 2)
    assert not sg.is_zero_rational(sg.cor3_residual(4) + 1)
    a, t, g = sg.symbols("a", 2), sg.symbols("t", 2), sg.symbols("g", 2)
    assert not sg.is_zero_rational(sg.Lambda_expr(a, t, g) - 1)


def test_grading_matrix_is_diag_lambda_q():
    from theorylab.graded.attention import grading_matrix

    np.testing.assert_array_equal(grading_matrix([0, 1, 2], 2.0), np.diag([1.0, 2.0, 4.0]))


def test_prop6_counterexample_values():
    e = 0.1
    three = list(np.linalg.cholesky(np.full((3, 3), e) + (1 - e) * np.eye(3)).T[:, :, None].transpose(1, 0, 2))
    # ||Gram^2 - I|| = 2 e (L-1) + e^2 (L-1)^2 = 0.44 > L eta = 0.3 with eta the cross overlap
    assert embedding.graded_basis_defect(three, [np.zeros(1)] * 3, 2.0) == pytest.approx(0.44)
    assert embedding.orthogonality_defect(three) == pytest.approx(0.1)


# ---------------------------------------------------------------- G3.interval, G8.numeric: further mutants
@pytest.mark.parametrize("wrong", [
    {"optimal_grades": lambda a, t: (a / t) ** 0.2501 / ((a / t) ** 0.2501).min()},   # off the ray by 1e-4
    {"Lambda": lambda g, a, t: grades.Lambda(g, t, a)},                              # profiles swapped
    {"bhattacharyya": lambda a, t: float(np.sum(a * t) ** 0.5)}])                    # wrong affinity
def test_g3_interval_fails_on_mutant(wrong):
    assert run_one(_spec("G3.interval"), **wrong).status == "FAIL"


def _eps2(sigma_xi, m):
    return np.asarray(envelope.eps2(sigma_xi, m))[..., None]


@pytest.mark.parametrize("wrong", [
    {"envelope_fn": lambda cap, dims, s, m: np.sum(np.maximum(cap, dims * _eps2(s, m)), axis=-1)},   # max, not min
    {"worth_estimating": lambda cap, dims, s, m: dims * _eps2(s, m) >= cap},                         # S reversed
    {"m_sat": lambda d0, s, cap0: d0 * s / cap0},                                # sigma_xi not squared (sigma != 1)
    {"m_sat": lambda d0, s, cap0: envelope.m_sat(d0, s, cap0) * (1 + 1e-9)},    # off by 1e-9 relative
    {"window": lambda msat: (4, int(msat // 3))},                               # W up to m_sat/3
    {"window": lambda msat: (4, int(round(msat / 2)))},                         # rounded, not floored
    {"cap_ratio": lambda g, a: float(np.sum(a / np.asarray(g) ** 2))}])         # g_0^2 dropped (g_0 != 1 design)
def test_g8_numeric_fails_on_mutant(wrong):
    assert run_one(_spec("G8.numeric"), **wrong).status == "FAIL"


def test_interval_enclosures_contain_the_float_values():
    a, t = np.array([0.5, 0.3, 0.2]), np.array([0.1, 0.3, 0.6])
    bc2 = interval.enclose_bc2(a, t)
    assert bc2.a <= np.sum(np.sqrt(a * t)) ** 2 * (1 + 1e-15) and np.sum(np.sqrt(a * t)) ** 2 * (1 - 1e-15) <= bc2.b
    assert bc2.delta < 1e-30
    ones = interval.enclose_Lambda(np.ones(3), a, t)                 # Lambda(1) = sum(a) sum(t), exactly enclosed
    assert ones.a <= float(a.sum() * t.sum()) * (1 + 1e-15) and ones.b >= float(a.sum() * t.sum()) * (1 - 1e-15)
    g = interval.enclose_optimal_grades(a, t)
    assert min(float(x.a) for x in g) <= 1 <= min(float(x.b) for x in g)   # gauge min g = 1 enclosed


def test_interval_helpers_reject_bad_input():
    with pytest.raises(ParameterError, match="alpha and tau"):
        interval.enclose_bc2([0.5, 0.5], [1.0])
    with pytest.raises(ParameterError, match="g must have length 2"):
        interval.enclose_Lambda([1.0], [0.5, 0.5], [0.5, 0.5])
    with pytest.raises(ParameterError, match="tau"):
        interval.enclose_optimal_grades([0.5, 0.5], [1.0, 0.0])


def test_g6_uses_the_one_rounding_rule_and_checks_every_printed_digit(monkeypatch):
    import sys

    from theorylab.certify import interval as certify_interval
    spec = _spec("G6")
    module = sys.modules[spec.check.__module__]
    assert module.rounds_to is certify_interval.rounds_to and not hasattr(interval, "rounds_to")
    row = module.TABLE3_PRINTED[("0.6", "0.3")]
    monkeypatch.setitem(module.TABLE3_PRINTED, ("0.6", "0.3"), (row[0], "0.532") + row[2:])  # last digit off by one
    assert run_one(spec).status == "FAIL"

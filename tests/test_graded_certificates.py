"""GLLM certificates G1.symbolic, G2-G9: each PASSes on the library and FAILs on a mutant."""
import numpy as np
import pytest

from theorylab.certify import run_one, select
from theorylab.graded import embedding, envelope, grades
from theorylab.symbolic import graded as sg

IDS = ["G1.symbolic", "G2", "G3", "G4", "G5", "G6", "G7", "G8", "G9"]


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
    "G4": {"admissibility": lambda q, a, t: float(np.asarray(q) @ (t - a))},
    "G5": {"bc_geometric": _bad_bc},
    "G6": {"table3_row": _bad_table3},
    "G7": {"mlge_grading": lambda Ps, qs, lam: sum((P * lam ** (2 * q)) @ P.T for P, q in zip(Ps, qs))},
    "G8": {"envelope_fn": _bad_envelope},
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

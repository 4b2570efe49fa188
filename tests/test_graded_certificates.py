"""GLLM certificates G1.symbolic, G2-G9, G3.interval, G8.numeric PASS on the library; the bugs that make each FAIL are
planted in the library source (tests/planted/graded.py, run by tests/test_planted_bugs.py)."""
import numpy as np
import pytest

from theorylab.certify import graded_interval as interval
from theorylab.certify import run_one, select
from theorylab.errors import ParameterError
from theorylab.graded import embedding
from theorylab.symbolic import graded as sg

IDS = ["G1.symbolic", "G2", "G3", "G3.interval", "G4", "G5", "G6", "G7", "G8", "G8.numeric", "G9"]


def _spec(cid):
    return next(s for s in select([cid]) if s.id == cid)


@pytest.mark.parametrize("cid", IDS)
def test_certificate_passes(cid):
    cert = run_one(_spec(cid))
    assert cert.status == "PASS", cert.note


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

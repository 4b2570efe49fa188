"""Cycles in plga/operator.py: the Perron pair of a periodic (imprimitive) nonnegative matrix, whose p
eigenvalues share the modulus rho, and the NOTEARS walk series of a cycle longer than 60.

Taking the eigenvalue of largest modulus could give a complex omega^k rho for a p-cycle: the
returned vector was garbage (entries ~1e15, residual ~4e15). A walk series stopped at k = 60 gave a
directed 64-cycle h = 0."""
from math import factorial

import numpy as np
import pytest

from theorylab.plga import operator as op


@pytest.mark.parametrize("w", [[1.0, 1.0, 1.0], [2.0, 1.0, 1.0], [0.5, 3.0, 1.0, 0.25], [1.0, 4.0]])
def test_perron_pair_of_a_weighted_cycle(w):
    p = len(w)
    C = np.roll(np.diag(w), 1, axis=1)                       # C[i, i+1] = w_i, C^p = prod(w) I
    rho = float(np.prod(w)) ** (1.0 / p)
    pf = op.perron_frobenius(C)
    assert pf.rho == pytest.approx(rho, rel=1e-13) and pf.eigenvalue == pf.rho
    assert pf.second == pytest.approx(rho, rel=1e-13)        # periodic: rho is not strictly dominant
    assert np.all(pf.vector > 0) and pf.vector.sum() == pytest.approx(1.0)
    assert np.max(np.abs(C @ pf.vector - rho * pf.vector)) <= 1e-14 and pf.residual <= 1e-14


def test_notears_sees_a_cycle_longer_than_60():
    W = np.roll(np.eye(64), 1, axis=1)
    value = op.notears_h(W)
    assert value.method == "walk-series"
    assert value.h == pytest.approx(64 / factorial(64), rel=1e-13)   # h = sum_k tr(W^k)/k! = 64/64! + 64/128! + ...
    assert op.dag_loss(W) > 0

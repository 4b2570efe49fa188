"""perron_frobenius on periodic (imprimitive) nonnegative matrices: p eigenvalues share the modulus rho.

Before round 4 the eigenvalue of largest modulus was taken, which for a p-cycle could be a complex
omega^k rho: the returned vector was garbage (entries ~1e15, residual ~4e15)."""
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

"""Exact PSA certificates (P1-P9 symbolic): each PASSes on the library (their mutants are planted bugs)."""
import numpy as np
import pytest

from theorylab.certify import run_one, select


def _status(cid, **overrides):
    return run_one(select([cid])[0], **overrides).status


@pytest.mark.parametrize("cid", ["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9.symbolic"])
def test_library_passes(cid):
    assert _status(cid) == "PASS"


# Wrong operators, taps, gains, couplings, channels, codimensions and placements (formerly passed to the certificates
# as test-only keyword arguments) are planted in theorylab/psa/shear.py and the modules beside it (symplectic.py,
# rotary.py, scores.py): tests/planted/psa.py.


def test_symbolic_routes_take_floats_exactly_not_rounded():
    """nsimplify would turn 4.000000000001 into 4 and 0.1 into 1/10; the exact routes keep the binary value."""
    import sympy as sp
    from theorylab.psa.scoremodel import ScoreModel
    from theorylab.symbolic import plga as sy
    from theorylab.symbolic.psa import g, variance_expr

    var = variance_expr(ScoreModel("t4-only", (0.0, 0.0, 1.0), (0.0, 0.0, 0.0, 0.0, 4.000000000001), "m"))
    assert sp.Poly(var, g).LC() == sp.Rational(4.000000000001) != 4
    tenth = sp.Rational(0.1)
    assert tenth != sp.Rational(1, 10)
    assert sy.symmetric_part_eigenvalues([[0.1, 0.0], [0.0, 0.0]]) == {tenth: 1, 0: 1}
    assert sy.matrix_eigenvalues(np.array([[0.1, 1.0], [0.0, 0.0]])) == {tenth: 1, 0: 1}

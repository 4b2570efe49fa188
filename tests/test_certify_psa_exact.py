"""Exact PSA certificates (P1-P9 symbolic): each PASSes on the library and FAILs on a mutant."""
import numpy as np
import pytest

from theorylab.certify import run_one, select
from theorylab.psa import shear as S


def _status(cid, **overrides):
    return run_one(select([cid])[0], **overrides).status


@pytest.mark.parametrize("cid", ["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9.symbolic"])
def test_library_passes(cid):
    assert _status(cid) == "PASS"


def _pre_rope_as_post(x, g, cos, sin, placement="post-rope", axis=-2):
    return S.place_shear(x, g, cos, sin, "pre-rope", axis)


MUTANTS = {
    "P1: momentum also kicked by position (not symplectic)": ("P1", dict(op=lambda q, p, g: (q + g * p, p + g * q))),
    "P1: library matrix with flipped sign": ("P1", dict(operator=lambda a, b, d: S.lattice_matrix(-a, -b, d))),
    "P2: powers grow quadratically": ("P2", dict(matrix=lambda g, d: S.upper_shear_matrix(g * g, d))),
    "P3: shear with a second-order term (not the exact flow)":
        ("P3", dict(op=lambda q, p, g: (q + g * p + g * g * p / 2, p))),
    "P4: wrong gain (sign flipped in 1+g)": ("P4", dict(gain_sq=lambda g, c: 1 + 2 * g * (1 - g) * (1 - c))),
    "P4: shear with flipped sign": ("P4", dict(stream=lambda x, g: S.shear(x, -g))),
    "P4: momentum not zero at the first position":
        ("P4", dict(momentum=lambda x: np.concatenate([x[:1], S.momentum(x)[1:]]))),
    "P5: query-only and key-only swapped": ("P5", dict(couplings=lambda m, g: S.lattice_couplings(
        {"key-only": "query-only", "query-only": "key-only"}.get(m, m), g))),
    "P6: missing T4 channel": ("P6", dict(channels=lambda q, k, a, b, scaled=True: S.score_channels(q, k, a, b, scaled)[:3])),
    "P6: bias dropped": ("P6", dict(split=lambda q, k, a, b: {**S.coupling_split(q, k, a, b),
                                                             "bias": 0 * S.coupling_split(q, k, a, b)["bias"]})),
    "P7: 'lower' shear that moves q": ("P7", dict(lower=S.upper_shear)),
    "P7: low-pass taps": ("P7", dict(taps=lambda g: (1 + g, g))),
    "P7: coupling sign flipped in shear and taps (DC 1, low-pass for 0 < g < 1)":
        ("P7", dict(stream=lambda x, g: S.shear(x, -g), taps=lambda g: S.stream_taps(-g))),
    "P7: doubled coupling in shear and taps (high-pass set 2g(1 + 2g) > 0)":
        ("P7", dict(stream=lambda x, g: S.shear(x, 2 * g), taps=lambda g: S.stream_taps(2 * g))),
    "P8: codimension d(d+1)/2": ("P8", dict(codim=lambda d: d * (d + 1) // 2)),
    "P8: Jacobian placed in the wrong block": ("P8", dict(jac=lambda F: S.shear_jacobian(F).T)),
    "P9: pre-RoPE instead of post-RoPE": ("P9.symbolic", dict(coriolis=lambda x, g, c, s: S.place_shear(
        x, g, c, s, "pre-rope") - S.place_shear(x, g, c, s, "pre-rope"))),
    "P9: Coriolis term of the wrong position": ("P9.symbolic", dict(coriolis=lambda x, g, c, s: np.roll(
        S.coriolis_term(x, g, c, s), 1, axis=0))),
}


@pytest.mark.parametrize("label", list(MUTANTS))
def test_mutant_fails(label):
    cid, overrides = MUTANTS[label]
    assert _status(cid, **overrides) == "FAIL"


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

"""Bugs planted in the PSA, PLGA and symbolic library SOURCE that a seeded mutation sample found surviving (or
not covered) now make certify FAIL.

One case per check added against those survivors (``theorylab mutate``; the ids are in the commit messages):
each copies ``theorylab/`` and ``certificates/`` (tests/planted.py), plants the bug and runs only the
certificate whose new evidence must catch it.
"""
import pytest

from planted import assert_caught

CONTRACTION = "theorylab/plga/contraction.py"
PARAMS = "theorylab/plga/params.py"
CHAIN = "theorylab/plga/chain.py"
PERRON = "theorylab/plga/perron.py"
NOTEARS = "theorylab/plga/notears.py"
DIAGNOSTICS = "theorylab/plga/diagnostics.py"
TRANSITION, EXACT, GRADED = "theorylab/psa/transition.py", "theorylab/symbolic/exact.py", "theorylab/symbolic/graded.py"

#: label -> (path, old, new, certificates that must FAIL or ERROR)
BUGS = {
    "Perron residual ||M v + rho v||": (PERRON, "M @ v - rho * v", "M @ v + rho * v", ["A3"]),
    "diameter skips pairs (0, k), 2 <= k < n - 1": (CONTRACTION, "X[i + 1:] - X[i]", "X[i - 1:] - X[i]", ["A18"]),
    "iSwiGLU domain cut at 5e153": (CHAIN, "_ISWIGLU_MAX = 1e154", "_ISWIGLU_MAX = 5e153", ["A2.numeric"]),
    "eps floor 2e-9": (PARAMS, "EPS: float = 1e-9", "EPS: float = 2e-9", ["A2.numeric"]),
    "positivity refuses min iSwiGLU = 0": (DIAGNOSTICS, "self.min_iswiglu >= 0 and", "self.min_iswiglu > 0 and",
                                           ["A2.numeric"]),
    "NOTEARS series used up to rho = 16": (NOTEARS, "_SERIES_RHO = 8.0", "_SERIES_RHO = 16.0", ["A5.numeric"]),
    "crossing scale without Delta": (TRANSITION, "delta + L + var / 2.0", "L + var / 2.0", ["P15"]),
    "companion degree from the batch axis": (TRANSITION, "coeffs.shape[-1] - 1", "coeffs.shape[0] - 1", ["P15"]),
    "exact() rounds SymPy rationals through float": (
        EXACT, "if value.has(sp.Float):\n            value = value.xreplace({f: sp.Rational(float(f)) for f in "
               "value.atoms(sp.Float)})",
        "if value.has(sp.Rational):\n            value = value.xreplace({f: sp.Rational(float(f)) for f in "
        "value.atoms(sp.Rational)})", ["P1"]),
    "unit residual with one tau coordinate short": (
        GRADED, 'list(symbols("t", d - 1))\n    a.append(1 - sum(a))\n    t.append(1 - sum(t))\n    return Lambda_expr(',
        'list(symbols("t", d - 2))\n    a.append(1 - sum(a))\n    t.append(1 - sum(t))\n    return Lambda_expr(', ["G3"]),
}

#: Monte Carlo certificate (100,000 samples per point): seconds, so marked slow
SLOW = {
    "factored SNR divides by the gap's polynomial": (TRANSITION, "g ** (p - q / 2.0) * P", "g ** (p - q / 2.0) / P",
                                                     ["P18.plateau"]),
    "factored SNR evaluates the gap at 2/g": (TRANSITION, "np.where(big, 1.0 / g, g)", "np.where(big, 2.0 / g, g)",
                                              ["P18.plateau"]),
}


def _check(path, old, new, catchers):
    assert_caught(path, old, new, catchers, accept=("FAIL", "ERROR"))


@pytest.mark.parametrize("label", list(BUGS))
def test_planted_bug_makes_certify_fail(label):
    _check(*BUGS[label])


@pytest.mark.slow
@pytest.mark.parametrize("label", list(SLOW))
def test_planted_bug_makes_monte_carlo_certify_fail(label):
    _check(*SLOW[label])

"""Bugs planted in the graded and symbolic-graded SOURCE (survivors of the seeded `theorylab mutate` sample of round
6) make the strengthened certificates FAIL (issue 10, item 5): G6's KKT residual (a max of |violations|, >= 0, and
its distance to the 30-digit violation); G8.numeric's grade condition at its rounding slack, attained and crossed;
G3's scale residual, which must still involve the scale before it is decided zero; G4's Hessian identity, written in
e_j = exp(u_j).

Each case copies ``theorylab/`` and ``certificates/`` (tests/planted.py), plants one representative mutant and runs
only the certificate named.
"""
import pytest

from planted import assert_caught

GRADES, ENVELOPE = "theorylab/graded/grades.py", "theorylab/graded/envelope.py"
SYMBOLIC = "theorylab/symbolic/graded.py"

#: label -> (path, old, new, certificates that must FAIL)
BUGS = {
    "KKT residual as a signed maximum": (GRADES, "float(np.max(np.abs(viol))))", "float(np.max(viol)))", ["G6"]),
    "grade condition without slack on g_0": (ENVELOPE, "g[0] >= 1 - tol", "g[0] >= 1", ["G8.numeric"]),
    "grade condition slack 2e-12": (ENVELOPE, "tol = 1e-12", "tol = 2e-12", ["G8.numeric"]),
    "scale residual without the scale": (SYMBOLIC, "[c * x for x in g]", "[x for x in g]", ["G3"]),
    "Hessian chain rule without the outer e_k": (SYMBOLIC, "lambda j, k: du(du(phi, j), k))",
                                                 "lambda j, k: du(sp.diff(phi, e[j]), k))", ["G4"]),
}


@pytest.mark.parametrize("label", list(BUGS))
def test_planted_bug_is_caught(label):
    path, old, new, catchers = BUGS[label]
    assert_caught(path, old, new, catchers)

"""Bugs planted in the graded-core and symbolic library SOURCE (survivors of a seeded `theorylab mutate` sample,
round 3) make the strengthened certificates FAIL (issue 10, item 5).

Each case copies ``theorylab/`` and ``certificates/`` (tests/planted.py), plants one representative mutant of the
code a new check covers, and runs only the certificates named. The fast ones run by default, the rest with -m slow.
"""
import pytest

from planted import assert_caught

GRADES, SYM_GRADED, SYM_PLGA = "theorylab/graded/grades.py", "theorylab/symbolic/graded.py", "theorylab/symbolic/plga.py"
ENVELOPE = "theorylab/graded/envelope.py"

#: label -> (path, old, new, certificates that must FAIL)
BUGS = {
    "Lambda_q centred per coordinate over the batch axis": (
        GRADES, "0.5 * np.min(q, axis=-1, keepdims=True)", "0.5 * np.min(q, axis=0, keepdims=True)", ["G4"]),
    "profiles not divided by their sums": (GRADES, "return p / total", "return p", ["G4"]),
    "exact decider calls the constant 1 zero": (SYM_GRADED, "bool(sp.nsimplify(num) == 0)",
                                                "bool(sp.nsimplify(num) == 1)", ["G4"]),
    "Prop. 10(iii) bound with C * -2 for C^-2": (GRADES, "clip_bound(C) ** -2.0", "clip_bound(C) * -2.0", ["G6"]),
    "commutant equations scaled by 1 + u^3": (SYM_PLGA, "scale = [1 + u**2 for u in us]",
                                              "scale = [1 + u**3 for u in us]", ["A6"]),
    "stratified target sqrt(a_l), not sqrt(a_l / d_l)": (ENVELOPE, "np.sqrt(self.uniform.coords(self.a / self.dims))",
                                                          "np.sqrt(self.uniform.coords(self.a))", ["G8.numeric"]),
    "walk series stops one term early": (SYM_PLGA, "range(1, kmax + 1))", "range(1, kmax))", ["A5.symbolic"]),
}
FAST = ("profiles not divided by their sums", "Prop. 10(iii) bound with C * -2 for C^-2")


@pytest.mark.parametrize("label", [pytest.param(k, marks=() if k in FAST else pytest.mark.slow) for k in BUGS])
def test_planted_bug_is_caught(label):
    path, old, new, catchers = BUGS[label]
    assert_caught(path, old, new, catchers)

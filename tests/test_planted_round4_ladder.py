"""Bugs planted in the graded core, the GLLM ladder and the graded-risk simulation SOURCE (survivors of seeded
`theorylab mutate` samples, round 4) make the strengthened certificates FAIL (issue 10, item 5).

Each case copies ``theorylab/`` and ``certificates/`` (tests/planted.py), plants one representative mutant of the
code a new check covers, and runs only the certificates named. The fast ones run by default, the rest with -m slow.
"""
import pytest

from planted import assert_caught

GRADES, ENVELOPE, LADDER = "theorylab/graded/grades.py", "theorylab/graded/envelope.py", "theorylab/graded/ladder.py"
RISK, SIM_LADDER = "theorylab/graded/risk_sim.py", "theorylab/graded/ladder_sim.py"

#: label -> (path, old, new, certificates that must FAIL)
BUGS = {
    "Lambda's gauge from the largest grade only": (
        GRADES, "g = np.ldexp(g, -((top + bottom) // 2))", "g = np.ldexp(g, -(top // 2))", ["G3"]),
    "tilt of an overflowing span puts e^+inf on the far terms": (
        GRADES, "np.where(np.isfinite(shift), shift, -np.inf)", "np.where(np.isfinite(shift), shift, np.inf)", ["G9"]),
    "Table 3 row's default clip C = 4": (
        GRADES, "levels: int = 4, C: float = 2.0) -> GradeRow", "levels: int = 4, C: float = 4.0) -> GradeRow", ["G6"]),
    "upper clip set without the rounding slack": (GRADES, "u >= U - 1e-12", "u >= U", ["G6"]),
    "cap ratio rescaled by the second grade": (
        ENVELOPE, "g = np.ldexp(g, -np.frexp(g[0])[1])", "g = np.ldexp(g, -np.frexp(g[1])[1])", ["G8.numeric"]),
    "full support checked before normalising": (
        GRADES, "if a[0] == 0 or s[-1] == 0:", "if nu ** (L - 1) == 0 or mu ** (L - 1) == 0:", ["G5", "G8.numeric"]),
    "stratified model's default clip C = 1": (
        ENVELOPE, "C: float = 2.0) -> StratifiedModel", "C: float = 1.0) -> StratifiedModel", ["G8.numeric"]),
    "exact risk drops the variance term at D_S = 1": (RISK, "if DS == 0:", "if DS == 1:", ["G8.numeric"]),
    "last row draw not trimmed to m": (RISK, "min(per_draw, m - r0)", "min(per_draw, m)", ["G8"]),
    "standard error not divided by sqrt(reps)": (
        RISK, "loss[c, k].std(ddof=1) / np.sqrt(reps))", "loss[c, k].std(ddof=1))", ["G8"]),
    "rows per draw at least 2": (RISK, "return max(1, DRAW_ELEMENTS", "return max(2, DRAW_ELEMENTS", ["G8"]),
    "profile design's default width 31": (
        LADDER, "def profile_design(a, s, d: int = 32,", "def profile_design(a, s, d: int = 31,", ["G10"]),
    "pilot fit rescaled by the mantissa (no rescaling)": (
        LADDER, "-int(np.frexp(np.max(np.abs(XtX)))[1])", "-int(np.frexp(np.max(np.abs(XtX)))[0])", ["G10"]),
    "ladder target at a quarter of the null risk": (SIM_LADDER, "TARGET_FRACTION = 0.5", "TARGET_FRACTION = 0.25",
                                                   ["G10"]),
    "learning curves' unit scale from the largest grade only": (
        SIM_LADDER, "(np.frexp(g.max())[1] + np.frexp(g.min())[1]) // 2", "np.frexp(g.max())[1] // 2", ["G10"]),
    "degradation tail from five pilot sizes on": (SIM_LADDER, "if len(rows) >= 6 else rows", "if len(rows) >= 5 else rows",
                                                  ["G10"]),
}
FAST = ("Lambda's gauge from the largest grade only", "tilt of an overflowing span puts e^+inf on the far terms",
        "Table 3 row's default clip C = 4", "upper clip set without the rounding slack",
        "stratified model's default clip C = 1", "cap ratio rescaled by the second grade", "exact risk drops the variance term at D_S = 1")


@pytest.mark.parametrize("label", [pytest.param(k, marks=() if k in FAST else pytest.mark.slow) for k in BUGS])
def test_planted_bug_is_caught(label):
    path, old, new, catchers = BUGS[label]
    assert_caught(path, old, new, catchers)

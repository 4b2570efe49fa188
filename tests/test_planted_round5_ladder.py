"""Bugs planted in the graded-risk simulation and the ladder measurement SOURCE (survivors of seeded `theorylab
mutate` samples, round 5) make the strengthened certificates FAIL (issue 10, item 5): G8's margins recomputed from
the rows and its two-point bound against the replayed discretisation; G10's resolved degradation losses and summary
fields.

Each case copies ``theorylab/`` and ``certificates/`` (tests/planted.py), plants one representative mutant and runs
only the certificate named (G8 and G10 take 3-7 s each: marked slow).
"""
import pytest

from planted import assert_caught

RISK, SIM_LADDER = "theorylab/graded/risk_sim.py", "theorylab/graded/ladder_sim.py"

#: label -> (path, old, new, certificates that must FAIL)
BUGS = {
    "MC margins with 4 standard errors": (RISK, "FLAG_Z = 3\n", "FLAG_Z = 4\n", ["G8"]),
    "upper margin against C / M": (RISK, "env.UPPER_CONSTANT * M - exact", "env.UPPER_CONSTANT / M - exact", ["G8"]),
    "two-point bound on 63 chi-square midpoints": (RISK, "m: int, nodes: int = 64)", "m: int, nodes: int = 63)",
                                                   ["G8"]),
    "risk over envelope not divided by M": (RISK, '"risk_over_envelope": mean / M', '"risk_over_envelope": mean',
                                            ["G8"]),
    "degradation efficiency loss + 1": (SIM_LADDER, "m_needed[j] / m_needed[0] - 1.0", "m_needed[j] / m_needed[0] + 1.0",
                                        ["G10"]),
    "summary 1 / Lambda*_C halved": (SIM_LADDER, '"inv_Lambda_star_C_true": 1.0 /', '"inv_Lambda_star_C_true": 0.5 /',
                                     ["G10"]),
    "default grid floored at 32": (SIM_LADDER, "max(top, 16.0)", "max(top, 32.0)", ["G10"]),
    "unresolved efficiencies ranked as 1": (SIM_LADDER, "np.where(np.isnan(eff), 0.0, eff)",
                                            "np.where(np.isnan(eff), 1.0, eff)", ["G10"]),
}


@pytest.mark.slow
@pytest.mark.parametrize("label", list(BUGS))
def test_planted_bug_is_caught(label):
    path, old, new, catchers = BUGS[label]
    assert_caught(path, old, new, catchers)

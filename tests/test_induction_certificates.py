"""P9.numeric and P13: PASS on the library, FAIL on deliberate mutants (wrong placement, gain, momentum)."""
import numpy as np
import pytest

from theorylab.certify import run_one, select
from theorylab.psa import shear
from theorylab.psa import induction as ind


def _status(cid, **overrides):
    return run_one(select([cid])[0], **overrides).status


@pytest.mark.parametrize("cid", ["P9.numeric", "P13"])
def test_library_passes(cid):
    assert _status(cid) == "PASS"


MUTANTS = {
    "P9: both placements post-RoPE (no Coriolis term)":
        ("P9.numeric", dict(coriolis=lambda x, g, c, s: shear.place_shear(x, g, c, s, "post-rope")
                            - shear.place_shear(x, g, c, s, "post-rope"))),
    "P9: gain 2|sin(theta)| instead of 2|sin(theta/2)|":
        ("P9.numeric", dict(gain=lambda th: 2 * np.abs(np.sin(np.asarray(th, float))))),
    "P9: Coriolis term at the wrong position":
        ("P9.numeric", dict(coriolis=lambda x, g, c, s: np.roll(shear.coriolis_term(x, g, c, s), 1, axis=0))),
    "P13: momentum without the difference (no telescoping)": ("P13", dict(momentum=lambda x: x)),
    "P13: momentum with a two-step difference (wrong sign of the lag)":
        ("P13", dict(momentum=lambda x: np.concatenate([0 * x[:1], x[1:] + x[:-1]]))),
}


@pytest.mark.parametrize("label", list(MUTANTS))
def test_mutant_fails(label):
    cid, overrides = MUTANTS[label]
    assert _status(cid, **overrides) == "FAIL"


def test_p13_reports_a_fitted_slope():
    rec = run_one(select(["P13"])[0])
    slopes = next(e.value for e in rec.evidence if e.name.startswith("envelope slopes"))
    assert all(-1.15 <= v <= -0.85 for v in slopes.values()) and rec.array_sha256

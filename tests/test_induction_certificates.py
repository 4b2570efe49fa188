"""P9.numeric and P13: PASS on the library (their wrong placements, gains and momenta are planted bugs)."""
import pytest

from theorylab.certify import run_one, select


def _status(cid, **overrides):
    return run_one(select([cid])[0], **overrides).status


@pytest.mark.parametrize("cid", ["P9.numeric", "P13"])
def test_library_passes(cid):
    assert _status(cid) == "PASS"


# Wrong placements, gains and momenta (formerly passed to the certificates as test-only keyword arguments) are
# planted in the library: tests/planted/psa.py.


def test_p13_reports_a_fitted_slope():
    rec = run_one(select(["P13"])[0])
    slopes = next(e.value for e in rec.evidence if e.name.startswith("envelope slopes"))
    assert all(-1.15 <= v <= -0.85 for v in slopes.values()) and rec.array_sha256

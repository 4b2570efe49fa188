"""Certificates P10, P20, A1, A1.symbolic, A8, A9, G1.numeric pass; each FAILs on a deliberately wrong library."""

import pytest

from theorylab.certify import run_one, select

IDS = ["P10", "P20.numeric", "P20.exact", "A1", "A1.symbolic", "A8", "A9", "G1.numeric"]


def spec(cid):
    return next(s for s in select([cid.split(".")[0]]) if s.id == cid)


@pytest.mark.parametrize("cid", IDS)
def test_certificate_passes(cid):
    cert = run_one(spec(cid))
    assert cert.status == "PASS", cert.note


# Wrong cache insertions (momentum restarted per block, raw keys cached, pre-RoPE shear), the A8 cache with
# position-zero RoPE, the P10 key stream without its shear and the G1 compile with a wrong diagonal are planted in
# the library: tests/test_planted_nn_cache.py. The wrong insertion kernel, INT8 bound and range growth (P20), the
# swapped query-only head and the miscredited accuracies (P10), the wrong identity parameters (A1, A1.symbolic)
# and the global Gram standing for the cumulative one (A9), once passed to the certificates as test-only keyword
# arguments, are planted bugs of tests/planted/psa.py, nn.py and plga.py.

"""PLGA certificates (A2-A7, A10-A13): each PASSes on the library; bugs planted in the library source make them FAIL.

The wrong functions these certificates once took through test-only keyword arguments are planted bugs now:
tests/planted/plga.py (theorylab/plga/) and tests/planted/symbolic.py (theorylab/symbolic/) hold them, run by
tests/test_planted_bugs.py. The one planted in another paper's package (theorylab/psa/softmax.py, whose table
tests/planted/psa.py covers the PSA certificates) is planted here.
"""
import pytest

from planted import assert_caught
from theorylab.certify import run_one, select

IDS = ["A2.symbolic", "A2.numeric", "A3", "A4", "A5.symbolic", "A5.numeric", "A6", "A7", "A10", "A10.stability",
       "A11.symbolic", "A11.numeric", "A12.symbolic", "A12.numeric", "A13.symbolic", "A13.numeric"]


@pytest.mark.parametrize("cid", IDS)
def test_library_passes(cid):
    assert run_one(select([cid])[0]).status == "PASS"


def test_sharpened_softmax_fails_the_row_stability_certificate():
    """softmax(4 z) (temperature 1/4, Lipschitz constant 2): A10.stability's 1-Lipschitz check FAILs."""
    assert_caught("theorylab/psa/softmax.py", '        s = real_array("s", s)\n', '        s = 4 * real_array("s", s)\n',
                  ["A10.stability"])

"""The planted-bug harness itself: a clean copy PASSes, a copy with a planted bug FAILs."""
import pytest

from planted import certify_with_bug, plant

LOG_COUNT = ("theorylab/psa/scoremodel.py", "return np.log(T - 1.0)     # L")


def test_clean_copy_passes_and_planted_copy_fails():
    path, old = LOG_COUNT
    assert certify_with_bug(path, old, old, ["P14"]).status("P14") == "PASS"
    run = certify_with_bug(path, old, old.replace("- 1.0", "- 2.0"), ["P14"])   # L = ln(T - 2)
    assert run.returncode == 1 and run.status("P14") == "FAIL"


def test_ambiguous_or_missing_text_is_refused(tmp_path):
    with pytest.raises(AssertionError, match="occurs 0 times"):
        plant(tmp_path, LOG_COUNT[0], "no such text", "x")

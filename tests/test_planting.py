"""The planted-bug harness and its tables (tests/planted/): the harness plants what it is told and
refuses what it cannot find; every table entry is well formed for the current library source."""
from collections import Counter

import pytest

from planted import TABLES, Bug, certify_with_bug, plant, tables
from theorylab.certify import select
from theorylab.mutation.planting import library_root

LOG_COUNT = ("theorylab/psa/scoremodel.py", "return np.log(T - 1.0)     # L")
LEAN_CERTIFICATES = ["A2.metric", "A9.shape", "A10.signed", "A12.standard", "A13.dl", "A14.symbolic", "A14.numeric",
                     "A15.symbolic", "A15.numeric", "A16", "A17.symbolic", "A17.numeric", "A18", "A19.symbolic",
                     "A19.numeric", "A20", "A20.numeric"]
ALL = [(name, bug) for name, bugs in tables().items() for bug in bugs]


def test_clean_copy_passes_and_planted_copy_fails():
    path, old = LOG_COUNT
    assert certify_with_bug(path, old, old, ["P14"]).status("P14") == "PASS"
    run = certify_with_bug(path, old, old.replace("- 1.0", "- 2.0"), ["P14"])   # L = ln(T - 2)
    assert run.returncode == 1 and run.status("P14") == "FAIL"


def test_ambiguous_or_missing_text_is_refused(tmp_path):
    with pytest.raises(AssertionError, match="occurs 0 times"):
        plant(tmp_path, LOG_COUNT[0], "no such text", "x")


def test_every_table_holds_bugs_with_unique_descriptions():
    assert set(tables()) == set(TABLES)
    for name, bugs in tables().items():
        assert bugs and all(isinstance(b, Bug) for b in bugs), name
        repeated = [what for what, n in Counter(b.what for b in bugs).items() if n > 1]
        assert not repeated, (name, repeated)


@pytest.mark.parametrize("name,bug", ALL, ids=[f"{name}:{bug.what}" for name, bug in ALL])
def test_the_planted_text_occurs_once_in_the_library_and_changes_it(name, bug):
    root = library_root()
    for path, old, new in bug.replacements:
        source = (root / path).read_text() if path.startswith("theorylab/") else None
        assert source is not None and source.count(old) == 1, (path, old)
        assert new != old
    assert bug.path.startswith(f"theorylab/{name}/") or bug.path == f"theorylab/{name}.py"
    assert bug.catchers and set(bug.accept) <= {"FAIL", "ERROR"}
    assert select(list(bug.catchers))            # registered ids or catalogue rows (raises otherwise)


PAPER_CERTIFICATES = ["A2.symbolic", "A2.numeric", "A3", "A4", "A5.symbolic", "A5.numeric", "A6", "A7", "A10",
                      "A10.stability", "A11.symbolic", "A11.numeric", "A12.symbolic", "A12.numeric", "A13.symbolic",
                      "A13.numeric"]
"""The other certificates of certificates/plga/ (the paper's statements, beside the Lean areas)."""


def test_every_lean_area_certificate_has_a_planted_bug():
    registered = {s.id for s in select() if s.check.__module__.startswith("theorylab.certificates.plga.")}
    assert registered == set(LEAN_CERTIFICATES) | set(PAPER_CERTIFICATES)
    assert set(LEAN_CERTIFICATES) <= {cid for _, bug in ALL for cid in bug.catchers}

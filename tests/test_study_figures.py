"""``--figure-only`` redraws a study's committed figure from its stored results, without simulating or
training, and leaves the stored CSV/JSON untouched."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SLOW = {"a_mean_field", "d_key_only", "k_observables", "i_trained_two_tap", "j_trained_ladder", "l_recall_30",
        "m_loss_padding", "o_step_size", "p_ladder_budget"}
"""Each redraw is a fresh interpreter (about 3 s idle); c (a sweep study's CSV) and f (a trained study's
JSON) run by default, the others with -m slow."""
TRAINED = ("f_trained_induction", "i_trained_two_tap", "j_trained_ladder", "l_recall_30", "m_loss_padding",
           "o_step_size", "p_ladder_budget")
"""The trained studies, run through the sweep task ``train``: their stored JSON records the spec."""
STUDIES = [pytest.param(s, marks=pytest.mark.slow) if s in SLOW else s
           for s in ("a_mean_field", "c_t3_width", "d_key_only", "k_observables") + TRAINED]


def _stored_by_the_sweep_study(study: str) -> bool:
    """Whether results/<study>.json was written by the sweep-based study (it records its spec); the results of
    the earlier studies (run_many, a fifth of the paper's budget) have another layout."""
    import json
    path = ROOT / "results" / f"{study}.json"
    return path.is_file() and "spec" in json.loads(path.read_text())


@pytest.mark.parametrize("study", STUDIES)
def test_figure_only_redraws_from_the_stored_results(tmp_path, study):
    if study in TRAINED and not _stored_by_the_sweep_study(study):
        pytest.skip(f"results/{study}.json predates the sweep-based study (the full programme, "
                    f"simulations/trained_programme.py, writes it)")
    for ext in ("csv", "json"):
        shutil.copy(ROOT / "results" / f"{study}.{ext}", tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    out = subprocess.run([sys.executable, str(ROOT / "simulations" / f"{study}.py"), "--figure-only",
                          "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert (tmp_path / f"{study}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.suffix != ".png"} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*before, f"{study}.png"])


def test_figure_only_without_stored_results_is_one_line(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "simulations" / "c_t3_width.py"), "--figure-only",
                          "--out", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "--figure-only: no stored results" in out.stderr and "run the study first" in out.stderr


def test_study_f_sets_each_paper_number_beside_its_own_run():
    """The paper's 83.4 % (A5) is the symmetric shear's at gamma 4 and its 1.2 % the same sweep's gamma = 0
    (standard attention); nothing is set beside symmetric gamma 2 or key-only."""
    sys.path.insert(0, str(ROOT / "simulations"))
    try:
        import f_trained_induction as f
    finally:
        sys.path.remove(str(ROOT / "simulations"))
    assert f.paper_value("recall", "symmetric", 4.0) == 0.834
    assert f.paper_value("recall", "symmetric", 2.0) is None
    assert f.paper_value("recall", "key-only", 2.0) is None
    assert f.paper_value("recall", "symmetric", 0.0) == 0.012
    assert f.paper_value("lattice", "key-only", 2.0) == 0.949
    assert f.paper_value("lattice", "query-only", 1.0) == 0.030
    assert f.paper_marks("recall") == {"symmetric": [(0.0, 0.012), (4.0, 0.834)]}

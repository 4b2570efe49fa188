"""The PSA study scripts run end to end on small samples and write their outputs (slow)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.parametrize("study", ["a_mean_field", "b_condensed", "c_t3_width", "d_key_only"])
def test_study_script_writes_csv_png_json(tmp_path, study):
    out = subprocess.run([sys.executable, str(ROOT / "simulations" / f"{study}.py"), "--samples", "2000",
                          "--out", str(tmp_path), "--workers", "0", "--no-progress"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    for ext in ("csv", "png", "json"):
        assert (tmp_path / f"{study}.{ext}").stat().st_size > 0
    summary = json.loads((tmp_path / f"{study}.json").read_text())
    assert summary["samples"] == 2000 and summary["points"] > 0
    # a re-run resumes from the store: nothing is recomputed
    again = subprocess.run([sys.executable, str(ROOT / "simulations" / f"{study}.py"), "--samples", "2000",
                            "--out", str(tmp_path), "--workers", "0", "--no-progress"],
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0
    assert all(line.split("(")[1].startswith("0 computed now") for line in again.stdout.splitlines()
               if "computed now" in line)


def test_study_script_bad_option_is_one_line(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "simulations" / "d_key_only.py"), "--samples", "0",
                          "--out", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "samples" in out.stderr

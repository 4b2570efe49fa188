"""Shared small sweep specs for the sweep tests (and a check that they stay small)."""
from __future__ import annotations

from theorylab import sweep

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib


def spec_of(text: str) -> sweep.SweepSpec:
    """Parse and validate a spec given as TOML text."""
    return sweep.spec_from_dict(tomllib.loads(text))

RESULT_FIELDS = ("idx", "variant", "dk", "T", "gamma", "seed", "level", "law_gamma_c", "law_branch", "exact_gamma_c",
                 "mc_gamma_c", "mc_ci_low", "mc_ci_high", "exact_mass", "mc_mass", "mc_se", "mc_samples")


def small_spec_text(compute=("annealed", "mc"), samples: int = 1000) -> str:
    """A 24-point gamma_c sweep over two variants, chunks of two points."""
    return f"""
[sweep]
name = "small"
seed = 11
samples = {samples}
compute = {list(compute)!r}
chunk_size = 2
[grid]
variant = ["t4-only", "key-only"]
dk = [32, 64, 128, 256]
T = [16, 64, 128]
"""


def test_small_spec_is_small():
    spec = spec_of(small_spec_text())
    assert spec.n_points() == 24 and len(sweep.chunks(spec, sweep.points(spec))) == 12

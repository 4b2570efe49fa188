"""Round 5 (row statistics): the float32 kernel's g-derivative terms b' z_b and b'' z_b and the score limit's value
are caught by P17.rng; the quadrature's memory check counts the t panels it builds and refuses before allocating."""
import numpy as np
import pytest

from planted import assert_caught
from theorylab import ParameterError
from theorylab.psa import row_stats

MC = "theorylab/psa/row_stats_mc.py"
#: label -> (old, new)
BUGS = {
    "float32 kernel drops b' z_b from y'": (
        "p1 = a1d * za[j] + b1d * zb[j] - d1d\n                p2 = a2d * za[j] + b2d * zb[j] - d2d\n                wy",
        "p1 = a1d * za[j] - d1d\n                p2 = a2d * za[j] + b2d * zb[j] - d2d\n                wy"),
    "float32 kernel reads b'' for b'' z_b": (
        "p2 = a2d * za[j] + b2d * zb[j] - d2d\n                wy", "p2 = a2d * za[j] + b2d - d2d\n                wy"),
    "score limit halved": ("_MAX_SCORE = 1e30", "_MAX_SCORE = 5e29"),
    "score limit doubled": ("_MAX_SCORE = 1e30", "_MAX_SCORE = 2e30"),
}


@pytest.mark.slow
@pytest.mark.parametrize("label", list(BUGS))
def test_round5_row_stats_bug_makes_p17_rng_fail(label):
    old, new = BUGS[label]
    assert_caught(MC, old, new, "P17.rng")


def test_quadrature_memory_check_refuses_before_allocating(monkeypatch):
    monkeypatch.setenv("THEORYLAB_MAX_MEMORY", "1M")
    # t panels of width sigma / 4 down to -45 - 1e12: refused with the estimate, from the panel count alone
    with pytest.raises(ParameterError, match=r"^delta, sigma too large: the call needs .* over the limit 1 MiB"):
        row_stats.row_moments_given(-1e12, 1.0, 10.0)
    # the public bump expectations check their (y, t) grids too (both quadratures)
    for sigma in (0.3, 2.0):
        with pytest.raises(ParameterError, match=r"^t, delta, sigma too large: the call needs"):
            row_stats.bump_expectations(np.zeros(10_000), 0.0, sigma)
    monkeypatch.setenv("THEORYLAB_MAX_MEMORY", "1G")
    assert np.isfinite(row_stats.row_moments_given(1.0, 0.8, 5.0).entropy)

"""The row-statistics quadrature's memory check counts the t panels it builds and refuses before allocating."""
import numpy as np
import pytest

from theorylab import ParameterError
from theorylab.psa import row_stats


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

"""Figures for the PSA reduced score model: predicted vs simulated gamma_c."""
from __future__ import annotations

import numpy as np

from theorylab.plots import new_figure, save


def comparison_figure(comparison, path: str) -> str:
    """Predicted (law and exact quadrature) vs simulated gamma_c with MC confidence intervals.

    ``comparison`` is a :class:`theorylab.psa.grid.Comparison`; the dashed line is the identity.
    """
    rows = comparison.rows
    mc = np.array([r["mc_gamma_c"] for r in rows], float)
    lo = np.array([r["mc_ci_low"] for r in rows], float)
    hi = np.array([r["mc_ci_high"] for r in rows], float)
    law = np.array([r["law_gamma_c"] for r in rows], float)
    exact = np.array([r["exact_gamma_c"] for r in rows], float)
    fig, ax = new_figure()
    xerr = np.vstack([mc - lo, hi - mc])
    ax.errorbar(mc, law, xerr=xerr, fmt="o", capsize=3,
                label=f"law (r = {comparison.pearson_r:.4f}, median rel. err. {100 * comparison.median_rel_err:.2f} %)")
    ax.errorbar(mc, exact, xerr=xerr, fmt="s", mfc="none", capsize=3, label="exact quadrature")
    finite = np.concatenate([v[np.isfinite(v)] for v in (mc, law, exact)])
    if finite.size:
        span = np.array([finite.min(), finite.max()])
        pad = 0.05 * (span[1] - span[0] + 1e-9)
        ax.plot(span + [-pad, pad], span + [-pad, pad], "k--", lw=1, label="identity")
    ax.set_xlabel(r"simulated $\gamma_c$ (Monte Carlo, 95 % CI)")
    ax.set_ylabel(r"predicted $\gamma_c$")
    ax.set_title(f"PSA reduced model, {comparison.variant}: prediction vs simulation")
    ax.legend(fontsize=8)
    return save(fig, path)


__all__ = ["comparison_figure"]

"""Figure of the vector-level induction simulation: measured channel moments vs the reduced model."""
from __future__ import annotations

import numpy as np

from theorylab.plots import panels


def channel_figure(moment_rows: list[dict], mass_rows: list[dict], rope_match_factor: float = 1.0,
                   title: str = "", ax=None):
    """Three panels over g: T3/T4 target gaps, distractor variances and Cov(T3,T4), target mass.

    Parameters
    ----------
    moment_rows, mass_rows : :func:`theorylab.psa.moments.comparison_rows` and
        :func:`~theorylab.psa.masses.mass_rows` of one simulation.
    rope_match_factor : the run's :func:`~theorylab.psa.moments.rope_match_factor` (1 without RoPE).
        The reduced model's target mass has no RoPE, so it is drawn beside the measured mass only
        for a run whose factor is 1 (like with like); a RoPE run's panel says so instead.
    title : figure title.  ax : three Axes to draw into (default: a new figure).

    Returns
    -------
    The Figure. Markers are measured (with 2-SE bars), lines the reduced model.
    """
    fig, ax = panels(3, 12.0, 3.8, ax)
    g = np.array(sorted({r["g"] for r in moment_rows}))

    def series(channel, key):
        rows = sorted((r for r in moment_rows if r["channel"] == channel), key=lambda r: r["g"])
        return np.array([r[key] for r in rows], dtype=float)

    for ch, col in (("T3", "C0"), ("T4", "C1")):
        ax[0].errorbar(g, series(ch, "gap"), yerr=2 * series(ch, "gap_se"), fmt="o", color=col, label=f"{ch} measured")
        ax[0].plot(g, series(ch, "gap_model"), "-", color=col, label=f"{ch} reduced model")
        ax[0].plot(g, series(ch, "gap_model_rope"), ":", color=col, label=f"{ch} model x RoPE factor")
    ax[0].set(xlabel="g", ylabel="target gap", title="target gaps")
    for ch, col in (("T1", "C2"), ("T3", "C0"), ("T4", "C1"), ("cov(T3,T4)", "C3")):
        ax[1].errorbar(g, series(ch, "var"), yerr=2 * series(ch, "var_se"), fmt="o", color=col, label=f"{ch}")
        ax[1].plot(g, series(ch, "var_model"), "-", color=col)
    ax[1].set(xlabel="g", ylabel="distractor (co)variance", title="variances (lines: model)", yscale="log")
    m = sorted(mass_rows, key=lambda r: r["g"])
    ax[2].errorbar([r["g"] for r in m], [r["target_mass"] for r in m],
                   yerr=[2 * r["target_mass_se"] for r in m], fmt="o", label="measured mass")
    ax[2].plot([r["g"] for r in m], [r["accuracy"] for r in m], "s", mfc="none", label="measured accuracy")
    panel = f"{m[0]['member']} member"
    if rope_match_factor != 1.0:
        panel += f"; RoPE run (factor {rope_match_factor:.3g}):\nthe model without RoPE is not drawn"
    elif any(np.isfinite(r["mass_model"]) for r in m):
        ax[2].plot([r["g"] for r in m], [r["mass_model"] for r in m], "-",
                   label=f"reduced model ({m[0]['model_variant']})")
    ax[2].set(xlabel="g", ylabel="target mass", title=panel, ylim=(0, 1.02))
    for a in ax:
        a.legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=9)
    return fig

"""Figures of the graded linear models (GLLM §4.3): simulated risk against the minimax envelope."""
from __future__ import annotations

import numpy as np

from theorylab.plots import panels


def risk_figure(result, model, ax=None):
    """Left: worst-of-family risk (MC +- 2 se, exact) of both classes, envelope M, 3M (where Lem. 3(ii)
    applies) and the two-point lower bound, window W shaded.  Right: risk ratio graded/uniform against
    the cap ratio, Lambda(g) and Thm. 4.1's deterministic band [(1 - r) Lambda, Lambda/(1 - mu)].

    ``result``: a :mod:`theorylab.graded.risk_sim` simulation result; ``model`` its model.  ``ax``: two Axes to draw
    into (default: a new figure).  Returns the Figure."""
    fig, (ax, bx) = panels(2, 11.0, 4.2, ax)
    W = model.window
    colours = {"uniform": "tab:blue", "graded": "tab:orange"}
    for name, colour in colours.items():
        rows = [r for r in result.rows if r["class"] == name]
        ms = sorted({r["m"] for r in rows})
        worst = [max((r for r in rows if r["m"] == m), key=lambda r: r["risk_exact"]) for m in ms]
        mc = np.array([r["risk_mc"] for r in worst])
        se = np.array([r["se"] for r in worst])
        ax.errorbar(ms, mc, yerr=2 * se, fmt="o", ms=4, color=colour, label=f"{name}: MC risk (worst target)")
        ax.plot(ms, [r["risk_exact"] for r in worst], "-", color=colour, lw=1, label=f"{name}: exact risk")
        env = np.array([r["envelope"] for r in worst])
        ax.plot(ms, env, "--", color=colour, lw=1, label=f"{name}: envelope M")
        up = np.where([r["upper_applies"] for r in worst], 3 * env, np.nan)
        ax.plot(ms, up, ":", color=colour, lw=1.5, label=f"{name}: 3M (Lem. 3(ii))")
        ax.plot(ms, [r["lower_bound"] for r in worst], "-.", color=colour, lw=0.8, label=f"{name}: two-point LB")
    for a in (ax, bx):
        if W:
            a.axvspan(W[0], W[1], color="0.9", zorder=0)
        a.set_xscale("log")
        a.set_xlabel("sample size m")
    ax.set_yscale("log")
    ax.set_ylabel("excess risk")
    ax.set_title(f"risk vs envelope (nu={model.nu}, mu={model.mu}, L={model.levels}, d={model.d}); W shaded",
                 fontsize=9)
    ax.legend(fontsize=6, ncol=2)
    ms = [r["m"] for r in result.ratio_rows]
    ratio = np.array([r["ratio_mc"] for r in result.ratio_rows])
    bx.errorbar(ms, ratio, yerr=2 * np.array([r["ratio_se"] for r in result.ratio_rows]), fmt="o", ms=4,
                label="graded/uniform (MC, worst target)")
    bx.plot(ms, [r["ratio_exact"] for r in result.ratio_rows], "-", lw=1, label="exact")
    bx.axhline(model.cap_ratio, color="tab:green", ls="--", label="cap ratio g0^2 sum a g^-2")
    bx.axhline(model.Lambda, color="tab:red", ls="--", label="Lambda(g)")
    low, high = result.summary["thm41_factor_low"], result.summary["thm41_factor_high"]
    bx.axhspan(low * model.Lambda, high * model.Lambda, color="tab:red", alpha=0.08,
               label="[(1-r) Lambda, Lambda/(1-mu)]")
    bx.set_ylabel("risk ratio graded / uniform")
    bx.set_title("minimax ratio vs Lambda (Thm. 4.1)", fontsize=9)
    bx.legend(fontsize=7)
    return fig

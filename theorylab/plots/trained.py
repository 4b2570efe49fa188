"""Figures of trained runs (``theorylab train``, simulations/f_*, g_*, h_*)."""
from __future__ import annotations

import numpy as np

from theorylab.plots import new_figure, save


def accuracy_axes(ax, rows: list[dict], chance: float | None = None, ceiling: float | None = None,
                  paper: dict | None = None) -> None:
    """Mean accuracy vs gamma per variant with 95 % t intervals over seeds (Wilson when one seed)."""
    for variant in dict.fromkeys(r["variant"] for r in rows):
        mine = sorted((r for r in rows if r["variant"] == variant), key=lambda r: r["gamma"])
        g = np.array([r["gamma"] for r in mine])
        m = np.array([r["mean"] for r in mine])
        lo = np.array([r["t_low"] if r.get("t_low") is not None else r["wilson_low"] for r in mine])
        hi = np.array([r["t_high"] if r.get("t_high") is not None else r["wilson_high"] for r in mine])
        ax.errorbar(g, m, yerr=[m - lo, hi - m], marker="o", capsize=3, label=variant)
    if chance is not None:
        ax.axhline(chance, color="grey", ls=":", label=f"chance {chance:.3f}")
    if ceiling is not None:
        ax.axhline(ceiling, color="k", ls="--", label=f"1/(T-2) = {ceiling:.3f}")
    for label, (g, a) in (paper or {}).items():
        ax.plot(g, a, "x", ms=9, mew=2, color="k", alpha=0.6, label=label)
    ax.set_xlabel("gamma")
    ax.set_ylabel("held-out accuracy")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7)


def taps_axes(ax, results) -> None:
    """Learned taps (layer 0, head 0) over training, one line per tap and run."""
    styles = {"q_b0": ("C0", "-"), "q_b1": ("C0", ":"), "k_b0": ("C3", "-"), "k_b1": ("C3", ":")}
    for i, r in enumerate(results):
        steps = [h["step"] for h in r.history]
        for key, (color, ls) in styles.items():
            ax.plot(steps, [h[key] for h in r.history], color=color, ls=ls, lw=1,
                    label=key if i == 0 else None)
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel("step")
    ax.set_ylabel("tap (x_t: b0, x_{t-1}: b1)")
    ax.legend(fontsize=7)


def accuracy_figure(rows: list[dict], results, path: str) -> str:
    """The CLI figure: accuracy vs gamma; beside it the taps over training when the heads are TwoTap."""
    tapped = [r for r in results if r.history and "k_b0" in r.history[0]]
    fig, ax = new_figure(10 if tapped else 5.5, 4.0)
    if tapped:
        fig.clear()
        ax, right = fig.subplots(1, 2)
        taps_axes(right, tapped)
    c = results[0].config
    accuracy_axes(ax, rows, chance=c.chance, ceiling=c.ceiling)
    ax.set_title(f"{c.task}, T = {c.seq_len}, {c.steps} steps, {len(results)} runs", fontsize=9)
    return save(fig, path)


__all__ = ["accuracy_axes", "taps_axes", "accuracy_figure"]

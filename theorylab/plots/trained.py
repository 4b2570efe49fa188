"""Figures of trained runs (``theorylab train``, simulations/f_*, i_*, j_*)."""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from theorylab.plots import new_figure, panels


def accuracy_curves(rows: Sequence[Mapping], chance: float | None = None, ceiling: float | None = None,
                    paper: Mapping[str, Sequence[tuple[float, float]]] | None = None, title: str = "", ax=None):
    """Mean accuracy vs gamma per variant with 95 % t intervals over seeds (Wilson when one seed).

    Parameters
    ----------
    rows : seed summaries (:func:`theorylab.cli.train.summary_rows`): ``variant``, ``gamma``, ``mean``,
        ``t_low``/``t_high`` (or ``wilson_low``/``wilson_high``).
    chance, ceiling : horizontal reference lines (None: not drawn).
    paper : the paper's accuracies per variant, ``{variant: [(gamma, accuracy), ...]}``, drawn as crosses
        in that variant's colour, so each published number sits beside the run it belongs to.
    title : axes title.  ax : an Axes to draw into (default: a new figure).

    Returns
    -------
    The Figure.
    """
    fig, ax = new_figure(5.5, 4.0, ax)
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    colour = {v: f"C{i % 10}" for i, v in enumerate(variants)}
    for variant in variants:
        mine = sorted((r for r in rows if r["variant"] == variant), key=lambda r: r["gamma"])
        g = np.array([r["gamma"] for r in mine])
        m = np.array([r["mean"] for r in mine])
        lo = np.array([r["t_low"] if r.get("t_low") is not None else r["wilson_low"] for r in mine])
        hi = np.array([r["t_high"] if r.get("t_high") is not None else r["wilson_high"] for r in mine])
        ax.errorbar(g, m, yerr=[m - lo, hi - m], marker="o", capsize=3, color=colour[variant], label=variant)
    if chance is not None:
        ax.axhline(chance, color="grey", ls=":", label=f"chance {chance:.3f}")
    if ceiling is not None:
        ax.axhline(ceiling, color="k", ls="--", label=f"1/(T-2) = {ceiling:.3f}")
    first = True
    for variant, points in (paper or {}).items():
        g, a = zip(*points)
        ax.plot(g, a, "x", ms=9, mew=2, color=colour.get(variant, "k"), alpha=0.8,
                label="paper (colour: its variant)" if first else None)
        first = False
    ax.set_xlabel("gamma")
    ax.set_ylabel("held-out accuracy")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title, fontsize=9)
    return fig


def tap_histories(histories: Sequence[Sequence[Mapping]], title: str = "", ax=None):
    """Learned taps (layer 0, head 0) over training, one line per tap and run.

    ``histories``: one training history per run (dicts with ``step``, ``q_b0``, ``q_b1``, ``k_b0``,
    ``k_b1``: a run's ``history``).  ``ax``: an Axes to draw into
    (default: a new figure).  Returns the Figure."""
    fig, ax = new_figure(6.0, 4.0, ax)
    styles = {"q_b0": ("C0", "-"), "q_b1": ("C0", ":"), "k_b0": ("C3", "-"), "k_b1": ("C3", ":")}
    for i, history in enumerate(histories):
        steps = [h["step"] for h in history]
        for key, (color, ls) in styles.items():
            ax.plot(steps, [h[key] for h in history], color=color, ls=ls, lw=1, label=key if i == 0 else None)
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel("step")
    ax.set_ylabel("tap (x_t: b0, x_{t-1}: b1)")
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title, fontsize=9)
    return fig


def accuracy_figure(rows: Sequence[Mapping], results, ax=None):
    """The CLI figure: accuracy vs gamma; beside it the taps over training when the heads are TwoTap.

    ``results``: the runs (with ``config`` and ``history``).  ``ax``: an Axes, or two when the heads are
    TwoTap (default: a new figure).  Returns the Figure."""
    tapped = [r for r in results if r.history and "k_b0" in r.history[0]]
    fig, axes = panels(2 if tapped else 1, 10 if tapped else 5.5, 4.0, ax)
    if tapped:
        tap_histories([r.history for r in tapped], ax=axes[1])
    c = results[0].config
    accuracy_curves(rows, chance=c.chance, ceiling=c.ceiling, ax=axes[0],
                    title=f"{c.task}, T = {c.seq_len}, {c.steps} steps, {len(results)} runs")
    return fig


__all__ = ["accuracy_curves", "tap_histories", "accuracy_figure"]

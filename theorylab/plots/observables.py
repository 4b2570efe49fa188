"""Figures of the transition observables (:mod:`theorylab.psa.observables`): the exact row-statistics
curves with their transition points, and the condensation ratio g_obs / (L/2)^(1/4) along T."""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from theorylab.plots import plain_ticks, new_figure, panels

MARKERS = {"entropy-peak": "o", "inflection": "s", "half-plateau": "^", "mass-half": "v",
           "distractor-entropy-peak": "D", "law": "|"}


def transition_curves(curves: Sequence[Mapping], title: str = "", ax=None):
    """Three panels against g: mean target mass M, mean row entropy E[H] and ``-dE[H]/d(g^2)``.

    Each item of ``curves`` holds ``label``, ``gamma``, ``mass``, ``entropy`` (arrays on one grid)
    and ``marks``: a mapping observable name -> coupling (NaN or None: not marked), drawn on the
    three curves at that g with :data:`MARKERS` (``law``: a vertical tick on every panel).
    ``ax``: three Axes to draw into (default: a new figure).  Returns the Figure.
    """
    fig, axes = panels(3, 12.0, 4.0, ax)
    names = {}
    for i, c in enumerate(curves):
        color = f"C{i % 10}"
        g = np.asarray(c["gamma"], float)
        fall = -np.gradient(np.asarray(c["entropy"], float), g * g)
        curves_y = (np.asarray(c["mass"], float), np.asarray(c["entropy"], float), fall)
        for ax, y in zip(axes, curves_y):
            ax.plot(g, y, "-", color=color, lw=1.2, label=c["label"] if ax is axes[0] else None)
        for name, x in c.get("marks", {}).items():
            if x is None or not np.isfinite(x):
                continue
            for ax, y in zip(axes, curves_y):
                yy = np.interp(x, g, y)
                if name == "law":
                    ax.axvline(x, color=color, lw=0.6, ls=":")
                else:
                    ax.plot([x], [yy], MARKERS.get(name, "x"), color=color, ms=6, mfc="none" if name != "entropy-peak"
                            else color)
            names[name] = True
    for ax, ylabel in zip(axes, ("mean target mass M(g)", "mean row entropy E[H] (nats)", "-dE[H] / d(g^2)")):
        ax.set_xlabel("g")
        ax.set_ylabel(ylabel)
    for name in names:
        if name == "law":
            axes[2].plot([], [], ":", color="gray", label="law c (L/2)^(1/4)")
        else:
            axes[2].plot([], [], MARKERS.get(name, "x"), color="gray", mfc="none", label=name)
    axes[0].legend(fontsize=7)
    axes[2].legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def condensation_ratio_along_T(series: Mapping[str, tuple], paper: tuple[float, float] | None = None,
                               title: str = "", ylim: tuple[float, float] = (0.4, 1.1), ax=None):
    """``g_obs / (L/2)^(1/4)`` against T (log axis), one line per observable.

    ``series`` maps an observable name to ``(T, ratio)`` arrays; ``paper`` = (c, +/-) is drawn as a band;
    values outside ``ylim`` are marked at the edge with an arrow; the T axis is labelled at the T values
    as plain integers.  ``ax``: an Axes to draw into (default: a new figure).  Returns the Figure.
    """
    fig, ax = new_figure(6.0, 4.2, ax)
    grid = set()
    if paper is not None:
        c, pm = paper
        ax.axhspan(c - pm, c + pm, color="0.85", label=f"paper c = {c} +/- {pm}")
    for i, (name, (T, ratio)) in enumerate(series.items()):
        T, ratio = np.asarray(T, float), np.asarray(ratio, float)
        ok = np.isfinite(ratio)
        grid.update(T[ok].tolist())
        ax.plot(T[ok], ratio[ok], "-" + MARKERS.get(name, "x"), color=f"C{i % 10}", ms=4, label=name)
        above = ok & (ratio > ylim[1])
        if above.any():
            ax.plot(T[above], np.full(above.sum(), ylim[1]), "^", color=f"C{i % 10}", ms=7, clip_on=False)
    ax.set_ylim(*ylim)
    ax.set_xscale("log")
    if grid:
        plain_ticks(ax.xaxis, grid)
    ax.set_xlabel("T (dk = 16)")
    ax.set_ylabel("g_obs / (L/2)^(1/4)")
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    return fig

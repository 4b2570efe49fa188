"""Standard figures of gamma_c rows: predicted vs simulated gamma_c (a sweep store's rows or
``theorylab compare``'s), gamma_c along an axis, and mass curves M(g). Each function takes rows
(dicts, see :func:`theorylab.sweep.export_rows`), accepts ``ax=`` and returns a Matplotlib figure;
save it with :func:`theorylab.plots.save`."""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from theorylab.plots import plain_ticks, new_figure

LABELS = {"law_gamma_c": "predicted (law)", "exact_gamma_c": "exact quadrature",
          "mc_gamma_c": "Monte Carlo"}


def _col(rows, name) -> np.ndarray:
    return np.array([np.nan if r.get(name) is None else float(r[name]) for r in rows])


def predicted_vs_simulated(rows: Sequence[Mapping], predicted: str | Sequence[str] = "law_gamma_c",
                           simulated: str = "mc_gamma_c", stats: Mapping | None = None, title: str = "",
                           ax=None):
    """Scatter of ``predicted`` against ``simulated`` gamma_c (Monte Carlo CIs as error bars) and the
    identity line: the figure of ``theorylab plot compare`` and ``theorylab compare --plot``.

    Parameters
    ----------
    rows : dicts with the route columns (``law_gamma_c``, ``exact_gamma_c``, ``mc_gamma_c``,
        ``mc_ci_low``, ``mc_ci_high``) and ``variant``.
    predicted : one route column, or several (one marker per route, filled then open).
    simulated : the route column on the horizontal axis.
    stats : e.g. Pearson r, median relative error, written in the corner.
    title : axes title.  ax : an Axes to draw into (default: a new figure).

    Returns
    -------
    The Figure; one colour per variant.
    """
    fig, ax = new_figure(5.0, 4.6, ax)
    routes = [predicted] if isinstance(predicted, str) else list(predicted)
    x_all = _col(rows, simulated)
    y_all = np.concatenate([_col(rows, p) for p in routes])
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    for i, variant in enumerate(variants):
        sel = [r for r in rows if r["variant"] == variant]
        x = _col(sel, simulated)
        xerr = None
        if simulated == "mc_gamma_c":
            lo, hi = _col(sel, "mc_ci_low"), _col(sel, "mc_ci_high")
            xerr = np.vstack([x - lo, hi - x])
            xerr = np.where(np.isfinite(xerr), xerr, 0.0)
        for k, route in enumerate(routes):
            label = variant if len(routes) == 1 else f"{variant}: {LABELS.get(route, route)}"
            ax.errorbar(x, _col(sel, route), xerr=xerr, fmt="os^v"[k % 4], ms=4, capsize=2, color=f"C{i % 10}",
                        mfc=None if k == 0 else "none", label=label)
    x_all = np.tile(x_all, len(routes))
    ok = np.isfinite(x_all) & np.isfinite(y_all)
    if ok.any():
        lo, hi = min(x_all[ok].min(), y_all[ok].min()), max(x_all[ok].max(), y_all[ok].max())
        pad = 0.05 * (hi - lo or 1.0)
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], "k--", lw=0.8, label="identity")
    ax.set_xlabel(f"gamma_c, {LABELS.get(simulated, simulated)}")
    ax.set_ylabel("gamma_c, " + " / ".join(LABELS.get(p, p) for p in routes))
    if stats:
        ax.text(0.03, 0.97, "\n".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}"
                                      for k, v in stats.items()),
                transform=ax.transAxes, va="top", fontsize=8,
                bbox={"boxstyle": "round", "fc": "white", "alpha": 0.8})
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(title, fontsize=10)
    return fig


def gamma_c_along(rows: Sequence[Mapping], axis: str = "dk", title: str = "", logx: bool = True, ax=None):
    """gamma_c against ``axis`` (dk or T): one panel line per (variant, other axis value)
    and route (law: line, exact: dashed, Monte Carlo: points with CI); the axis is labelled at
    its grid values as plain integers.  ``ax``: an Axes to draw into (default: a new figure).
    Returns the Figure."""
    other = "T" if axis == "dk" else "dk"
    fig, ax = new_figure(6.0, 4.4, ax)
    groups = dict.fromkeys((r["variant"], r[other]) for r in rows)
    colors = {}
    for i, key in enumerate(groups):
        colors[key] = f"C{i % 10}"
        sel = sorted((r for r in rows if (r["variant"], r[other]) == key), key=lambda r: r[axis])
        x = _col(sel, axis)
        label = f"{key[0]}, {other}={key[1]:g}"
        if any(r.get("law_gamma_c") is not None for r in sel):
            ax.plot(x, _col(sel, "law_gamma_c"), "-", color=colors[key], lw=1.2, label=f"{label}: law")
        if any(r.get("exact_gamma_c") is not None for r in sel):
            ax.plot(x, _col(sel, "exact_gamma_c"), "--", color=colors[key], lw=1.0, label=f"{label}: exact")
        if any(r.get("mc_gamma_c") is not None for r in sel):
            y = _col(sel, "mc_gamma_c")
            err = np.vstack([y - _col(sel, "mc_ci_low"), _col(sel, "mc_ci_high") - y])
            ax.errorbar(x, y, yerr=np.where(np.isfinite(err), err, 0.0), fmt="o", ms=3.5, capsize=2,
                        color=colors[key], label=f"{label}: MC")
    if logx:
        ax.set_xscale("log")
    grid = [r[axis] for r in rows if r.get(axis) is not None]
    if grid:
        plain_ticks(ax.xaxis, grid)
    ax.set_xlabel(axis)
    ax.set_ylabel("gamma_c")
    ax.legend(fontsize=6.5, ncol=2)
    ax.set_title(title, fontsize=10)
    return fig


def mass_curves(rows: Sequence[Mapping], title: str = "", ax=None):
    """Mean target mass M(g) per (variant, dk, T): exact (line) and Monte Carlo (+- 2 se).
    ``ax``: an Axes to draw into (default: a new figure).  Returns the Figure."""
    fig, ax = new_figure(6.0, 4.4, ax)
    curves = dict.fromkeys((r["variant"], r["dk"], r["T"]) for r in rows)
    for i, key in enumerate(curves):
        sel = sorted((r for r in rows if (r["variant"], r["dk"], r["T"]) == key), key=lambda r: r["gamma"])
        g = _col(sel, "gamma")
        label = f"{key[0]}, dk={key[1]:g}, T={key[2]:g}"
        if any(r.get("exact_mass") is not None for r in sel):
            ax.plot(g, _col(sel, "exact_mass"), "-", color=f"C{i % 10}", lw=1.2, label=f"{label}: exact")
        if any(r.get("mc_mass") is not None for r in sel):
            ax.errorbar(g, _col(sel, "mc_mass"), yerr=2 * _col(sel, "mc_se"), fmt="o", ms=3, capsize=2,
                        color=f"C{i % 10}", label=f"{label}: MC")
    ax.axhline(0.5, color="k", lw=0.6, ls=":")
    ax.set_xlabel("coupling g")
    ax.set_ylabel("mean target mass M(g)")
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    return fig

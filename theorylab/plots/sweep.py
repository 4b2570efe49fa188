"""Standard figures of a sweep store: predicted vs simulated gamma_c, gamma_c along an
axis, and mass curves M(g). Each function takes store rows (dicts, see
:func:`theorylab.sweep.export_rows`) and returns a Matplotlib figure; save it with
:func:`theorylab.plots.save`."""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from theorylab.plots import new_figure

LABELS = {"law_gamma_c": "predicted (law)", "exact_gamma_c": "exact quadrature",
          "mc_gamma_c": "Monte Carlo"}


def _col(rows, name) -> np.ndarray:
    return np.array([np.nan if r.get(name) is None else float(r[name]) for r in rows])


def predicted_vs_simulated(rows: Sequence[Mapping], predicted: str = "law_gamma_c",
                           simulated: str = "mc_gamma_c", stats: Mapping | None = None, title: str = ""):
    """Scatter of ``predicted`` against ``simulated`` gamma_c (Monte Carlo CIs as error
    bars), the identity line, one colour per variant; ``stats`` (e.g. Pearson r, median
    relative error) is written in the corner."""
    fig, ax = new_figure(5.0, 4.6)
    x_all, y_all = _col(rows, simulated), _col(rows, predicted)
    for variant in dict.fromkeys(r["variant"] for r in rows):
        sel = [r for r in rows if r["variant"] == variant]
        x, y = _col(sel, simulated), _col(sel, predicted)
        xerr = None
        if simulated == "mc_gamma_c":
            lo, hi = _col(sel, "mc_ci_low"), _col(sel, "mc_ci_high")
            xerr = np.vstack([x - lo, hi - x])
            xerr = np.where(np.isfinite(xerr), xerr, 0.0)
        ax.errorbar(x, y, xerr=xerr, fmt="o", ms=4, capsize=2, label=variant)
    ok = np.isfinite(x_all) & np.isfinite(y_all)
    if ok.any():
        lo, hi = min(x_all[ok].min(), y_all[ok].min()), max(x_all[ok].max(), y_all[ok].max())
        pad = 0.05 * (hi - lo or 1.0)
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], "k--", lw=0.8, label="identity")
    ax.set_xlabel(f"gamma_c, {LABELS.get(simulated, simulated)}")
    ax.set_ylabel(f"gamma_c, {LABELS.get(predicted, predicted)}")
    if stats:
        ax.text(0.03, 0.97, "\n".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}"
                                      for k, v in stats.items()),
                transform=ax.transAxes, va="top", fontsize=8,
                bbox={"boxstyle": "round", "fc": "white", "alpha": 0.8})
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(title, fontsize=10)
    return fig


def gamma_c_along(rows: Sequence[Mapping], axis: str = "dk", title: str = "", logx: bool = True):
    """gamma_c against ``axis`` (dk or T): one panel line per (variant, other axis value)
    and route (law: line, exact: dashed, Monte Carlo: points with CI)."""
    other = "T" if axis == "dk" else "dk"
    fig, ax = new_figure(6.0, 4.4)
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
    ax.set_xlabel(axis)
    ax.set_ylabel("gamma_c")
    ax.legend(fontsize=6.5, ncol=2)
    ax.set_title(title, fontsize=10)
    return fig


def mass_curves(rows: Sequence[Mapping], title: str = ""):
    """Mean target mass M(g) per (variant, dk, T): exact (line) and Monte Carlo (+- 2 se)."""
    fig, ax = new_figure(6.0, 4.4)
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

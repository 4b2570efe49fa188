"""Figures of the selection ladder (GLLM Table 2, §6.5, Lem. 2)."""
from __future__ import annotations

import numpy as np

from theorylab.plots import new_figure, panels


def _clusters(x: np.ndarray, y: np.ndarray) -> list[list[int]]:
    """Indices of points grouped into runs whose neighbours (in x order) lie within 6 % of the x span and
    8 % of the y span of each other: the points whose names would overprint."""
    order = np.argsort(x, kind="stable")
    dx = 0.06 * (np.ptp(x) or 1.0)
    dy = 0.08 * (np.ptp(y) or 1.0)
    groups: list[list[int]] = []
    for i in order:
        if groups and abs(x[i] - x[groups[-1][-1]]) < dx and abs(y[i] - y[groups[-1][-1]]) < dy:
            groups[-1].append(int(i))
        else:
            groups.append([int(i)])
    return groups


def _label_points(ax, names, x, y) -> None:
    """Name each point: a lone point beside itself, a cluster's points in a column left of the cluster
    (highest point on top), each joined to its point by a thin line, so no two names overprint."""
    from matplotlib.text import OffsetFrom

    x, y = np.asarray(x, float), np.asarray(y, float)
    for group in _clusters(x, y):
        if len(group) == 1:
            (i,) = group
            ax.annotate(names[i], (x[i], y[i]), textcoords="offset points", xytext=(4, 4), fontsize=7)
            continue
        anchor = OffsetFrom(ax.transData, (float(x[group].min()), float(y[group].mean())), unit="points")
        for k, i in enumerate(sorted(group, key=lambda i: -y[i])):
            ax.annotate(names[i], (x[i], y[i]), xytext=(-14, 9 * ((len(group) - 1) / 2 - k)), textcoords=anchor,
                        ha="right", va="center", fontsize=7,
                        arrowprops={"arrowstyle": "-", "lw": 0.5, "color": "0.4", "shrinkA": 1, "shrinkB": 3})


def _ladder_panel(ax, rows, key, lo, hi, title, ylabel):
    ip = np.array([r["ip_hat"] for r in rows])
    y = np.array([r[key] for r in rows])
    err = np.array([[r[key] - r[lo], r[hi] - r[key]] for r in rows]).T
    ax.errorbar(ip, y, yerr=np.nan_to_num(np.abs(err)), fmt="o", ms=5, capsize=3, color="tab:blue",
                label="measured (95 % bootstrap CI)")
    ax.plot(ip, [r["inv_Lambda_true"] for r in rows], "s", mfc="none", color="tab:red", label="1/Lambda(g) (true profiles)")
    ax.plot(ip, [1 / r["Lambda_hat"] for r in rows], "x", color="tab:orange", label="1/Lambda_hat (pre-registered)")
    _label_points(ax, [r["arm"] for r in rows], ip, y)
    ax.axhline(1.0, color="0.6", lw=0.8)
    ax.set_xlabel("pre-registered <q, alpha_hat - tau_hat>  (q = ln g)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)


def ladder_figure(result, ax=None):
    """Left: token efficiency at the target risk against the pre-registered inner product, with CIs and
    1/Lambda.  Right: the same for the inverse risk ratio at m_ref (Thm. 4.1's form).

    ``result``: a :class:`theorylab.graded.ladder_sim.LadderResult`.  ``ax``: two Axes to draw into
    (default: a new figure).  Returns the Figure."""
    s = result.summary
    rows = [{**r, "inv_rr": 1 / r["risk_ratio_ref"], "inv_rr_lo": 1 / r["rr_hi"], "inv_rr_hi": 1 / r["rr_lo"]}
            for r in result.rows]
    fig, (ax, bx) = panels(2, 11.0, 4.4, ax)
    _ladder_panel(ax, rows, "efficiency", "eff_lo", "eff_hi",
                  f"token efficiency at risk {s['target_fraction']:g} x null (Spearman {s['spearman_efficiency']:.2f})",
                  "m_uniform / m_arm")
    _ladder_panel(bx, rows, "inv_rr", "inv_rr_lo", "inv_rr_hi",
                  f"inverse risk ratio at m_ref = {s['m_ref']} in W (Spearman {s['spearman_risk_ratio']:.2f})",
                  "R_uniform(m_ref) / R_arm(m_ref)")
    fig.suptitle(f"selection ladder: {s['design']}", fontsize=10)
    return fig


def degradation_figure(result, ax=None):
    """Left: the educated arm's excess ``Lambda(g_hat)/Lambda*_C - 1`` against the profile error (each
    pilot draw), with the quadratic law (slope 1).  Right: mean excess and Monte Carlo losses against the
    pilot size, with slope -1.  ``ax``: two Axes to draw into (default: a new figure).  Returns the Figure."""
    fig, (ax, bx) = panels(2, 11.0, 4.2, ax)
    err = np.array([p["error"] for p in result.draws])
    exc = np.array([p["excess"] for p in result.draws])
    ok = (err > 0) & (exc > 0)
    ax.loglog(err[ok], exc[ok], "o", ms=4, alpha=0.7, label="pilot draws")
    x = np.geomspace(err[ok].min(), err[ok].max(), 20)
    c = np.exp(np.median(np.log(exc[ok]) - np.log(err[ok])))
    ax.loglog(x, c * x, "k--", lw=1, label="slope 1 (quadratic in delta)")
    s = result.summary
    ax.set_xlabel("profile error mean_l (delta_l - delta_bar)^2")
    ax.set_ylabel("Lambda(g_hat) / Lambda*_C - 1")
    ax.set_title(f"Lem. 2: fitted slope {s['slope_excess_vs_error']:.2f} "
                 f"[{s['slope_excess_vs_error_ci'][0]:.2f}, {s['slope_excess_vs_error_ci'][1]:.2f}]", fontsize=9)
    ax.legend(fontsize=7)
    n = np.array([r["n_pilot"] for r in result.rows])
    for key, label, style in (("excess_mean", "exact excess (mean over draws)", "o-"),
                              ("rr_loss_mean", "MC: R_edu/R_oracle - 1 at m_ref", "s--"),
                              ("eff_loss_mean", "MC: eff_oracle/eff_edu - 1", "^:")):
        v = np.array([r[key] for r in result.rows])
        bx.loglog(n[v > 0], v[v > 0], style, ms=4, label=label)
    ref = np.array([r["excess_mean"] for r in result.rows])
    bx.loglog(n, ref[-1] * n[-1] / n, "k--", lw=1, label="slope -1")
    bx.set_xlabel("pilot size n")
    bx.set_ylabel("loss of the educated arm (positive values)")
    bx.set_title(f"educated arm vs pilot size ({s['design']})", fontsize=9)
    bx.legend(fontsize=7)
    return fig


def target_sweep_figure(rows, ax=None):
    """Spearman correlation of the pre-registered inner products with the measured token efficiency, against
    the target risk (fraction of the null risk), one line per design with bootstrap CIs; dashed: the same
    correlation for the risk ratio at m_ref (independent of the target).  ``rows``: dicts with ``design``,
    ``target_fraction``, ``spearman_efficiency``, ``spearman_efficiency_ci``, ``spearman_risk_ratio`` (None or NaN:
    undefined, not drawn).
    ``ax``: an Axes to draw into (default: a new figure).  Returns the Figure."""
    fig, ax = new_figure(6.4, 4.4, ax)
    designs = list(dict.fromkeys(r["design"] for r in rows))
    for i, name in enumerate(designs):
        sel = sorted((r for r in rows if r["design"] == name), key=lambda r: r["target_fraction"])
        f = np.array([r["target_fraction"] for r in sel]) * (1 + 0.03 * (i - len(designs) / 2))
        rho = np.array([r["spearman_efficiency"] for r in sel], float)
        ci = np.array([r["spearman_efficiency_ci"] for r in sel], float)
        ax.errorbar(f, rho, yerr=np.nan_to_num(np.abs(np.stack([rho - ci[:, 0], ci[:, 1] - rho]))), fmt="o-",
                    ms=4, capsize=2, color=f"C{i}", label=f"{name}: efficiency")
        if sel[0]["spearman_risk_ratio"] is not None:          # None: undefined (a stored NaN)
            ax.axhline(sel[0]["spearman_risk_ratio"], color=f"C{i}", ls="--", lw=0.8)
    ax.set_xscale("log")
    lowest = np.nanmin(np.array([r["spearman_efficiency"] for r in rows] + [r["spearman_risk_ratio"] for r in rows]
                                + [0.0], dtype=float))
    ax.set_ylim(min(-0.05, lowest - 0.1), 1.05)
    ax.set_xlabel("target risk / null risk (token efficiency measured there)")
    ax.set_ylabel("Spearman(<q, a_hat - s_hat>, measured)")
    ax.set_title("does the ladder order as pre-registered? (dashed: risk ratio at m_ref in W)", fontsize=9)
    ax.legend(fontsize=7)
    return fig

"""Figures of the selection ladder (GLLM Table 2, §6.5, Lem. 2)."""
from __future__ import annotations

import numpy as np

from theorylab.plots import new_figure, save


def _ladder_panel(ax, rows, key, lo, hi, title, ylabel):
    ip = np.array([r["ip_hat"] for r in rows])
    y = np.array([r[key] for r in rows])
    err = np.array([[r[key] - r[lo], r[hi] - r[key]] for r in rows]).T
    ax.errorbar(ip, y, yerr=np.nan_to_num(np.abs(err)), fmt="o", ms=5, capsize=3, color="tab:blue",
                label="measured (95 % bootstrap CI)")
    ax.plot(ip, [r["inv_Lambda_true"] for r in rows], "s", mfc="none", color="tab:red", label="1/Lambda(g) (true profiles)")
    ax.plot(ip, [1 / r["Lambda_hat"] for r in rows], "x", color="tab:orange", label="1/Lambda_hat (pre-registered)")
    for r, x, v in zip(rows, ip, y):
        ax.annotate(r["arm"], (x, v), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.axhline(1.0, color="0.6", lw=0.8)
    ax.set_xlabel("pre-registered <q, alpha_hat - tau_hat>  (q = ln g)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)


def ladder_figure(result, path: str) -> str:
    """Left: token efficiency at the target risk against the pre-registered inner product, with CIs and
    1/Lambda.  Right: the same for the inverse risk ratio at m_ref (Thm. 4.1's form)."""
    s = result.summary
    rows = [{**r, "inv_rr": 1 / r["risk_ratio_ref"], "inv_rr_lo": 1 / r["rr_hi"], "inv_rr_hi": 1 / r["rr_lo"]}
            for r in result.rows]
    fig, _ = new_figure(11.0, 4.4)
    fig.clf()
    ax, bx = fig.subplots(1, 2)
    _ladder_panel(ax, rows, "efficiency", "eff_lo", "eff_hi",
                  f"token efficiency at risk {s['target_fraction']:g} x null (Spearman {s['spearman_efficiency']:.2f})",
                  "m_uniform / m_arm")
    _ladder_panel(bx, rows, "inv_rr", "inv_rr_lo", "inv_rr_hi",
                  f"inverse risk ratio at m_ref = {s['m_ref']} in W (Spearman {s['spearman_risk_ratio']:.2f})",
                  "R_uniform(m_ref) / R_arm(m_ref)")
    fig.suptitle(f"selection ladder: {s['design']}", fontsize=10)
    return save(fig, path)


def degradation_figure(result, path: str) -> str:
    """Left: the educated arm's excess ``Lambda(g_hat)/Lambda*_C - 1`` against the profile error (each
    pilot draw), with the quadratic law (slope 1).  Right: mean excess and Monte Carlo losses against the
    pilot size, with slope -1."""
    fig, _ = new_figure(11.0, 4.2)
    fig.clf()
    ax, bx = fig.subplots(1, 2)
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
    return save(fig, path)


def target_sweep_figure(rows, path: str) -> str:
    """Spearman correlation of the pre-registered inner products with the measured token efficiency, against
    the target risk (fraction of the null risk), one line per design with bootstrap CIs; dashed: the same
    correlation for the risk ratio at m_ref (independent of the target).  ``rows``: dicts with ``design``,
    ``target_fraction``, ``spearman_efficiency``, ``spearman_efficiency_ci``, ``spearman_risk_ratio``."""
    fig, ax = new_figure(6.4, 4.4)
    designs = list(dict.fromkeys(r["design"] for r in rows))
    for i, name in enumerate(designs):
        sel = sorted((r for r in rows if r["design"] == name), key=lambda r: r["target_fraction"])
        f = np.array([r["target_fraction"] for r in sel]) * (1 + 0.03 * (i - len(designs) / 2))
        rho = np.array([r["spearman_efficiency"] for r in sel], float)
        ci = np.array([r["spearman_efficiency_ci"] for r in sel], float)
        ax.errorbar(f, rho, yerr=np.nan_to_num(np.abs(np.stack([rho - ci[:, 0], ci[:, 1] - rho]))), fmt="o-",
                    ms=4, capsize=2, color=f"C{i}", label=f"{name}: efficiency")
        ax.axhline(sel[0]["spearman_risk_ratio"], color=f"C{i}", ls="--", lw=0.8)
    ax.set_xscale("log")
    lowest = np.nanmin([r["spearman_efficiency"] for r in rows] + [r["spearman_risk_ratio"] for r in rows] + [0.0])
    ax.set_ylim(min(-0.05, lowest - 0.1), 1.05)
    ax.set_xlabel("target risk / null risk (token efficiency measured there)")
    ax.set_ylabel("Spearman(<q, a_hat - s_hat>, measured)")
    ax.set_title("does the ladder order as pre-registered? (dashed: risk ratio at m_ref in W)", fontsize=9)
    ax.legend(fontsize=7)
    return save(fig, path)

"""Study (n): numbers the PSA and GLLM papers quote that theorylab can compute, the paper's figure beside ours.

Each row is one quoted figure: the paper's value as printed, ours from the library, their difference and a
status:

* ``reproduced``: ours rounds to the paper's printed digits (|ours - paper| <= half a unit of its last digit);
* ``differs``: it does not; ``cause`` says what was measured to explain it (never tuned away);
* ``ours only``: a figure the paper does not print, shown for the convention it differs by.

The rows (PSA = Phase Space Attention, GLLM = Hierarchical Grading in Large Language Models):

* PSA A34.3 -- the scored-mask critical coupling band at dk = 16, T_eff in [25, 127], and its analytic
  midpoint (``theorylab.psa.laws.band_gamma_c``, the two-branch law's condensed branch, c = 0.741);
* PSA A6.5 / A11.1 -- the depth law gamma* = 4.17 / N^0.73, R^2 = 0.947, refitted from the Experiment-17
  optima (:data:`DEPTH_LAW_PRODUCTS`), and A31.9's out-of-sample alpha = 0.664, "within 18 %", 0.347;
* PSA §10 -- the large-dk fitted exponents -0.461 (with T3) and -0.254 (T4-only) of theorylab's closed-form
  gamma_c, with the fit range that gives them, and "closes roughly a quarter of the gap";
* GLLM §8.1.3 -- the training overhead 0.33 % of 345M and 0.24 % of 7B with its component sums;
* PSA §7.12 -- extended-length accuracy as "15x, 16x chance" (chance = 1/L).

    python simulations/n_paper_numbers.py [--out DIR]

Writes results/n_paper_numbers.{csv,json}. No simulation: closed forms and fits, under a second.
"""
from __future__ import annotations

import argparse
import os
from decimal import Decimal

import numpy as np

import _study
from theorylab.graded.overhead import PLANNED_CONFIGURATIONS, grading_overhead
from theorylab.psa import laws
from theorylab.psa.transition import CONDENSATION_C, CONDENSATION_C_PAPER, gamma_c

STUDY = "n_paper_numbers"

DEPTH_LAW_PRODUCTS = {1: 4, 2: 6, 4: 5, 8: 6}
"""PSA A6.5's invariant-product check gamma*.N = 4, 6, 5, 6 at the Experiment-17 depths. The depths are our
reading: N = 4's optimum is quoted as 1.25 (A7.4: "E17's 1.25", so gamma*.N = 5 is the third entry) and the
single-layer optimum gamma* ~ 4.0 at L = 14 (A8.1) is the first; N = 1, 2, 4, 8 is the grid consistent with both.
The optima are gamma* = product / N: 4.0, 3.0, 1.25, 0.75."""
SCORED_DK, SCORED_T = 16, (25, 127)
"""A34.3's scored mask: head width 16 and the effective context lengths T_eff it spans."""
GAMMA_HALF = (0.154, 0.400)
"""A34.3's measured gamma_1/2 range across the depth grid (compared with gamma_c as 0.17-0.45 gamma_c)."""
OUT_OF_SAMPLE = (12, 0.80)
"""A31.9: the depth N and the observed optimum gamma at it."""
EXPONENT_T = 512
"""§10's context length (its T4-only crossover d*_k = 8L = 49.9 is T = 512's)."""
EXPONENT_DK = tuple(2.0 ** k for k in range(8, 17))
"""The head widths dk = 2^8 .. 2^16 of the exponent fit: of the power-of-two ranges 2^a .. 2^b (5 <= a,
b - a >= 2, b <= 16) at T = 512, the one whose two fitted exponents are nearest the paper's (found by that
search: the paper states no range; the exponents depend on it, see the summary's ``exponent_ranges``)."""
TRAINED_EXPONENT = -1.13
"""§10 / §7.11: the trained models' log-log slope of gamma_c in dk (theorylab's study (j) measures it)."""
EXTENDED_LENGTH = ((24, 0.626), (31, 0.511))
"""§7.12: extended-length accuracy at 24 and 31 key-value pairs."""


def _tolerance(quoted: str) -> float:
    """Half a unit of the last printed digit of ``quoted``."""
    return 0.5 * 10.0 ** Decimal(quoted).as_tuple().exponent


def _row(paper, section, figure, quoted, ours, *, scale=1.0, unit="", cause="", status=None):
    """One figure; ``quoted`` as printed (in ``unit`` = ``scale`` of ours), ``ours`` the library's value."""
    value = float(Decimal(quoted)) if quoted is not None else None
    ours_scaled = float(ours) / scale
    if status is None:
        status = "reproduced" if abs(ours_scaled - value) <= _tolerance(quoted) * (1 + 1e-12) else "differs"
    return {"paper": paper, "section": section, "figure": figure, "unit": unit, "paper_value": value,
            "ours": ours_scaled, "difference": None if value is None else ours_scaled - value,
            "tolerance": None if quoted is None else _tolerance(quoted), "status": status, "cause": cause}


def _scored_mask_rows() -> list[dict]:
    band = laws.band_gamma_c(SCORED_DK, *SCORED_T, c=CONDENSATION_C_PAPER)
    at77 = float(gamma_c("t4-only", SCORED_DK, band.T_mid + 1, c=CONDENSATION_C_PAPER).gamma_c)
    ours_c = laws.band_gamma_c(SCORED_DK, *SCORED_T, c=CONDENSATION_C)
    sec, where = "A34.3", f"dk = {SCORED_DK}, c = {CONDENSATION_C_PAPER}"
    rows = [_row("PSA", sec, f"scored-mask gamma_c at T_eff = {SCORED_T[0]} ({where})", "0.832", band.low),
            _row("PSA", sec, f"scored-mask gamma_c at T_eff = {SCORED_T[1]} ({where})", "0.924", band.high),
            _row("PSA", sec, f"analytic midpoint: gamma_c at T_eff = {band.T_mid:g}, the band's midpoint ({where})",
                 "0.899", band.midpoint,
                 cause=f"our L = ln(T - 1) = ln {band.T_mid - 1:g} gives {band.midpoint:.4f}; the paper's 0.899 is "
                       f"gamma_c at L = ln {band.T_mid:g} ({at77:.4f}: T = {band.T_mid + 1:g}, or L = ln T_eff), "
                       "while its band ends follow L = ln(T_eff - 1): a one-off in the context length at the "
                       "midpoint"),
            _row("PSA", sec, f"the band under theorylab's c = {CONDENSATION_C} (low, T_eff = {SCORED_T[0]})", None,
                 ours_c.low, status="ours only", cause="theorylab calibrates c = 0.748 on the entropy-peak observable"),
            _row("PSA", sec, f"the band under theorylab's c = {CONDENSATION_C} (high, T_eff = {SCORED_T[1]})", None,
                 ours_c.high, status="ours only", cause="as above")]
    for quoted, g in zip(("0.17", "0.45"), GAMMA_HALF):
        rows.append(_row("PSA", sec, f"gamma_1/2 = {g} over the midpoint gamma_c ({band.midpoint:.4f})", quoted,
                         g / band.midpoint, cause=f"over the paper's 0.899 instead: {g / 0.899:.5f}"))
    return rows


def _depth_law_rows() -> list[dict]:
    N = np.array(sorted(DEPTH_LAW_PRODUCTS), dtype=float)
    g = np.array([DEPTH_LAW_PRODUCTS[n] / n for n in sorted(DEPTH_LAW_PRODUCTS)])
    fit, log_fit = laws.power_law_fit(N, g), laws.loglog_fit(N, g)
    sec = "A6.5 / A11.1"
    pts = "least squares in gamma* of the optima (1, 4.0), (2, 3.0), (4, 1.25), (8, 0.75)"
    rows = [_row("PSA", sec, f"depth-law prefactor ({pts})", "4.17", fit.prefactor),
            _row("PSA", sec, "depth-law exponent alpha", "0.73", fit.exponent),
            _row("PSA", sec, "depth-law R^2 (in gamma*)", "0.947", fit.r_squared),
            _row("PSA", sec, "depth-law exponent by least squares in log gamma* (not the paper's fit)", None,
                 log_fit.exponent, status="ours only",
                 cause=f"log-log fit: prefactor {log_fit.prefactor:.3f}, R^2 {log_fit.r_squared:.3f}; the paper's "
                       "figures are the fit in gamma* itself"),
            _row("PSA", "A6.5", "mean of gamma*.N", "5.25", float(np.mean(N * g)))]
    n12, observed = OUT_OF_SAMPLE
    alpha = laws.implied_exponent(4.17, observed, n12)
    predicted = laws.power_law(4.17, 0.73, n12)
    sec = "A31.9"
    rows += [_row("PSA", sec, f"alpha implied by gamma = {observed} at N = {n12} (prefactor 4.17)", "0.664", alpha),
             _row("PSA", sec, f"'within 18 %': observed gamma {observed} over the law's {predicted:.3f} at N = {n12}, "
                              "minus 1", "0.18", observed / predicted - 1.0, status="reproduced"
                  if observed / predicted - 1.0 <= 0.18 else "differs",
                  cause=f"the 18 % holds for the coupling ({observed / predicted - 1:.3f}); for the exponent it "
                        f"is {abs(alpha - 0.73) / 0.73:.3f} (|0.664 - 0.73| / 0.73), also within"),
             _row("PSA", sec, f"linear accumulation 4.17 / N at N = {n12}", "0.347", laws.power_law(4.17, 1.0, n12))]
    return rows


def _exponent_rows() -> tuple[list[dict], list[dict]]:
    t3 = laws.large_dk_exponent("t3-inclusive", EXPONENT_T, EXPONENT_DK)
    t4 = laws.large_dk_exponent("t4-only", EXPONENT_T, EXPONENT_DK)
    where = f"T = {EXPONENT_T}, log-log slope over dk = 2^8 .. 2^16 (9 widths)"
    sec = "§10"
    rows = [_row("PSA", sec, f"fitted exponent of gamma_c with T3 ({where})", "-0.461", t3),
            _row("PSA", sec, f"fitted exponent of gamma_c, T4-only ({where})", "-0.254", t4),
            _row("PSA", sec, "share of the gap to the trained -1.13 that T3 closes (the quoted exponents)", "0.25",
                 laws.gap_fraction(-0.254, -0.461, TRAINED_EXPONENT), status="reproduced",
                 cause="'roughly a quarter': 0.236 from the quoted exponents"),
            _row("PSA", sec, "the same share from our fitted exponents", None,
                 laws.gap_fraction(t4, t3, TRAINED_EXPONENT), status="ours only"),
            _row("PSA", sec, "the same share from the asymptotes -1/4 and -1/2", None,
                 laws.gap_fraction(-0.25, -0.5, TRAINED_EXPONENT), status="ours only",
                 cause="the fitted exponents sit short of the asymptotes at these widths")]
    ranges = []
    for lo, hi in ((6, 10), (7, 12), (8, 12), (8, 16), (10, 16)):
        dk = [2.0 ** k for k in range(lo, hi + 1)]
        ranges.append({"dk": f"2^{lo} .. 2^{hi}", "t3_inclusive": laws.large_dk_exponent("t3-inclusive", EXPONENT_T, dk),
                       "t4_only": laws.large_dk_exponent("t4-only", EXPONENT_T, dk)})
    return rows, ranges


def _overhead_rows() -> list[dict]:
    quoted = {"GLLM-Medium": (("1.05", 1e6, "M"), ("24.6", 1e3, "K"), ("1", 1e3, "K"), ("50.3", 1e3, "K"),
                              ("1.13", 1e6, "M"), ("0.33", 1e-2, "%")),
              "GLLM-7B": (("16.8", 1e6, "M"), ("131", 1e3, "K"), ("4", 1e3, "K"), ("32", 1e3, "K"),
                          ("17.0", 1e6, "M"), ("0.24", 1e-2, "%"))}
    names = ("projections d^2", "head grades K H d_k", "level grades d", "output grades |V|", "total", "share of N")
    rows = []
    for model, figures in quoted.items():
        cfg = PLANNED_CONFIGURATIONS[model]
        o = grading_overhead(**cfg)
        parts = (o.projections, o.head_grades, o.level_grades, o.output_grades, o.total, o.fraction)
        rounded_sum = sum(float(q) * s for q, s, _ in figures[:4])
        shape = f"{model}: K = {cfg['layers']}, d = {cfg['d']}, H = {cfg['heads']}, |V| = {cfg['vocab']}"
        for name, (q, scale, unit), value in zip(names, figures, parts):
            cause = ""
            if name == "total":
                cause = (f"the exact total is {o.total:,}; the paper's figure is the sum of its rounded "
                         f"components ({rounded_sum / scale:.4f}{unit})")
            elif name == "level grades d":
                cause = "printed to the nearest thousand"
            rows.append(_row("GLLM", "§8.1.3", f"{name} ({shape})", q, value, scale=scale, unit=unit, cause=cause))
    return rows


def _chance_rows() -> list[dict]:
    rows = []
    for (L, acc), quoted in zip(EXTENDED_LENGTH, ("15", "16")):
        rows.append(_row("PSA", "§7.12", f"accuracy {acc} at {L} pairs over chance 1/{L}", quoted,
                         laws.chance_multiple(acc, L)))
    return rows


def figures() -> tuple[list[dict], dict]:
    """Every row of the study and the exponent's dependence on the fit range (the script's core; tests call it)."""
    exponent_rows, ranges = _exponent_rows()
    rows = _scored_mask_rows() + _depth_law_rows() + exponent_rows + _overhead_rows() + _chance_rows()
    return rows, {"exponent_ranges": ranges}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=_study.RESULTS, help="output folder (default: results/ of the repository)")
    args = p.parse_args()
    _study.output_folder(args.out)
    rows, extra = figures()
    counts = {k: sum(r["status"] == k for r in rows) for k in ("reproduced", "differs", "ours only")}
    columns = ["paper", "section", "figure", "unit", "paper_value", "ours", "difference", "tolerance", "status", "cause"]
    _study.write_csv(os.path.join(args.out, f"{STUDY}.csv"), rows, columns)
    summary = {"study": STUDY, "figures": len(rows), **counts, **extra, "rows": rows}
    _study.write_summary(os.path.join(args.out, f"{STUDY}.json"), summary)
    _study.report("(n) numbers the papers quote, theirs beside ours", rows,
                  ["section", "figure", "paper_value", "ours", "status"], {"figures": len(rows), **counts})
    print("\nexponent of gamma_c in dk by fit range (T = 512):")
    for r in extra["exponent_ranges"]:
        print(f"  dk = {r['dk']}: with T3 {r['t3_inclusive']:.3f}, T4-only {r['t4_only']:.3f}")


if __name__ == "__main__":
    _study.main(main)

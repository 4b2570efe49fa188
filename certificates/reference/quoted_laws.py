"""Reference routes for figures the PSA and GLLM papers quote from their laws, fits and counts (PSA §7.12, §10,
A6.5, A31.9, A34.3; GLLM §8.1.3), written from the papers' formulas.

Nothing here reads ``theorylab`` (no ``gamma_c``, no score model, no fit of ``theorylab.psa.laws``): the
condensed branch is enclosed in mpmath interval arithmetic, the critical couplings are bracketed roots of the
crossing equation written out per variant, the power law is fitted by profiling its prefactor out, slopes are
the textbook least-squares formula, the parameter counts are integer arithmetic and the ratios are exact
fractions.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from scipy.optimize import brentq, minimize_scalar


def condensed_enclosure(c: str, L_argument: int) -> mpmath.iv.mpf:
    """Interval enclosure of the condensed branch ``c (L/2)^(1/4)``, ``L = ln(L_argument)`` (PSA §6.7)."""
    iv, saved = mpmath.iv, mpmath.iv.prec
    iv.prec = 80
    try:
        return iv.mpf(c) * iv.sqrt(iv.sqrt(iv.log(L_argument) / 2))
    finally:
        iv.prec = saved


def rounds_to(enclosure, quoted: str) -> bool:
    """Whether every point of ``enclosure`` rounds to ``quoted`` (half a unit of its last digit either side)."""
    q = Fraction(quoted)
    half = Fraction(1, 2 * 10 ** len(quoted.split(".")[1])) if "." in quoted else Fraction(1, 2)
    lo, hi = _exact(enclosure.a), _exact(enclosure.b)
    return q - half < lo and hi < q + half


def _exact(end) -> Fraction:
    """An interval end point (a binary float of mpmath) as the exact fraction it is."""
    man, exp = mpmath.mpf(end).man_exp
    return Fraction(man) * Fraction(2) ** exp


def inside(enclosure, value: float, slack: float) -> bool:
    """Whether ``value`` lies in ``enclosure`` widened by ``slack`` either side."""
    return float(enclosure.a) - slack <= value <= float(enclosure.b) + slack


def power_law_fit(x, y) -> tuple[float, float, float]:
    """``y = A / x^alpha`` by least squares in y: for fixed alpha the best A is ``sum y u / sum u^2``
    (``u = x^-alpha``), so the residual is a function of alpha alone, minimised by bounded Brent on [-5, 5].
    Returns (A, alpha, R^2 in y)."""
    def best_prefactor(alpha):
        u = [xi ** -alpha for xi in x]
        return sum(yi * ui for yi, ui in zip(y, u)) / sum(ui * ui for ui in u)

    def sse(alpha):
        A = best_prefactor(alpha)
        return sum((A * xi ** -alpha - yi) ** 2 for xi, yi in zip(x, y))

    alpha = minimize_scalar(sse, bounds=(-5.0, 5.0), method="bounded", options={"xatol": 1e-12}).x
    mean = sum(y) / len(y)
    return best_prefactor(alpha), alpha, 1.0 - sse(alpha) / sum((yi - mean) ** 2 for yi in y)


def loglog_fit(x, y) -> tuple[float, float, float]:
    """``y = A / x^alpha`` by ordinary least squares in logs: (A, alpha, R^2 in log y)."""
    lx, ly = [math.log(v) for v in x], [math.log(v) for v in y]
    b = slope(lx, ly)
    a = sum(ly) / len(ly) - b * sum(lx) / len(lx)
    my = sum(ly) / len(ly)
    sse = sum((v - a - b * u) ** 2 for u, v in zip(lx, ly))
    return math.exp(a), -b, 1.0 - sse / sum((v - my) ** 2 for v in ly)


def slope(x, y) -> float:
    """Ordinary least-squares slope ``sum (x - mx)(y - my) / sum (x - mx)^2``."""
    mx, my = sum(x) / len(x), sum(y) / len(y)
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / sum((a - mx) ** 2 for a in x)


def crossing_gamma_c(variant: str, dk: float, T: float) -> float:
    """Smallest positive root of the annealed crossing ``Delta(g) = ln(T - 1) + sigma^2(g)/2`` (PSA §6.7, §10):
    t4-only ``Delta = g^2 sqrt(dk)``, ``sigma^2 = 4 g^4``; t3-inclusive ``Delta = (g + g^2) sqrt(dk)``,
    ``sigma^2 = 2g^2 + 4g^3 + 4g^4``. Bracketed by a scan of 4000 log-spaced points on [1e-4, 10], then Brent."""
    L, s = math.log(T - 1), math.sqrt(dk)

    def f(g):
        if variant == "t4-only":
            return g * g * s - L - 2 * g ** 4
        return (g + g * g) * s - L - (2 * g ** 2 + 4 * g ** 3 + 4 * g ** 4) / 2

    grid = [1e-4 * 10 ** (5 * k / 4000) for k in range(4001)]
    for a, b in zip(grid, grid[1:]):
        if f(a) < 0 <= f(b):
            return brentq(f, a, b, xtol=1e-15, rtol=4 * 2.0 ** -52)
    return math.nan


def grading_overhead(d: int, layers: int, heads: int, vocab: int) -> tuple[int, int, int, int]:
    """GLLM §8.1.3's terms: projections ``sum_l d d_l = d^2``, head grades ``K H d_k`` (d_k = d/H), level grades
    ``d``, output grades ``|V|``."""
    return d * d, layers * heads * (d // heads), d, vocab

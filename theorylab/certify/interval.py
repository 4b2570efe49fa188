"""Rigorous interval enclosures of the PSA crossing roots (mpmath ``iv``), for certificates P14-P16.

This is the *independent route* to the critical couplings: it rebuilds the crossing
equation of a score model from its gap and variance polynomials,

    f(g) = sqrt(dk) * gap(g) - ln(T - 1) - var(g) / 2,

in outward-rounded interval arithmetic (``sqrt(dk)`` and ``ln(T - 1)`` are enclosed,
never rounded to floats), and isolates roots by recursive exclusion: a cell is dropped
only when the interval value of f over it (the better of Horner and the mean-value
form) excludes zero; a root is certified by a strict sign change at the endpoints of a
cell and a derivative that excludes zero on it (so the root is simple and unique
there). Anything that cannot be decided this way raises :class:`Undecided` (the
certificate is then ERROR, never PASS).
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction

from mpmath import iv, mp, mpf

from theorylab.errors import ParameterError
from theorylab.psa.scoremodel import ScoreModel

PREC = 120  # bits of the interval context (outward rounding at this precision)


@contextmanager
def _prec():
    """Run at :data:`PREC` bits in the interval context, restoring the caller's precision."""
    saved = iv.prec
    iv.prec = PREC
    try:
        with mp.workprec(PREC):
            yield
    finally:
        iv.prec = saved


class Undecided(ArithmeticError):
    """Interval arithmetic could not decide (tangency, or a cell too thin to resolve)."""


@dataclass(frozen=True)
class Enclosure:
    """A certified enclosure ``[lo, hi]`` of one simple root."""

    lo: mpf
    hi: mpf

    @property
    def width(self) -> mpf:
        return self.hi - self.lo

    def as_floats(self) -> list[float]:
        """Outward-rounded float bounds (lo rounded down, hi rounded up)."""
        lo, hi = float(self.lo), float(self.hi)
        return [lo if lo <= self.lo else _next_down(lo), hi if hi >= self.hi else _next_up(hi)]

    def contains(self, x: float, slack: float = 0.0) -> bool:
        """``x`` (a float) lies in ``[lo - slack, hi + slack]`` (exact comparison)."""
        return self.lo - mpf(slack) <= mpf(x) <= self.hi + mpf(slack)

    def rounds_to(self, quote: str) -> bool:
        """Every point of the enclosure rounds to ``quote`` (see :func:`rounds_to`)."""
        return rounds_to((self.lo, self.hi), quote)


def rounds_to(x, quote: str) -> bool:
    """True iff every point of the interval ``x`` rounds to the decimal string ``quote``.

    This is the library's one rule for "a printed number is right": with ``q = quote``
    and ``h`` half a unit of its last digit (``"0.7867"``: ``h = 5e-5``; ``"1.030"``:
    ``h = 5e-4``; ``"31.5"``: ``h = 0.05``), ``x`` must lie in the half-open interval
    ``[q - h, q + h)``, i.e. round half up (ties toward +infinity) at the quote's last
    digit. Endpoints are compared exactly (binary endpoints vs the exact decimal, as
    fractions), so no rounding enters the decision.

    Parameters
    ----------
    x : the interval: an :class:`Enclosure`, an mpmath ``iv.mpf`` (endpoints ``.a``, ``.b``),
        a pair ``(lo, hi)`` of floats / mpf, or a single number (a point).
    quote : the printed value, a decimal string such as ``"0.7867"``, ``"-2"`` or ``"1.030"``.
    """
    half = Fraction(1, 2 * 10 ** _decimals(quote))
    q = Fraction(quote)
    lo, hi = _endpoints(x)
    return _exact(lo) >= q - half and _exact(hi) < q + half


def _decimals(quote: str) -> int:
    text = str(quote).strip()
    if not re.fullmatch(r"[+-]?\d+(\.\d+)?", text):
        raise ParameterError(f"quote must be a plain decimal string such as '0.7867' (got {quote!r})")
    return len(text.split(".")[1]) if "." in text else 0


def _endpoints(x) -> tuple:
    if isinstance(x, Enclosure):
        return x.lo, x.hi
    if hasattr(x, "a") and hasattr(x, "b"):                       # mpmath iv.mpf
        return x.a, x.b
    if isinstance(x, (tuple, list)) and len(x) == 2:
        return x[0], x[1]
    return x, x


def _exact(x) -> Fraction:
    """The exact rational value of a float or mpf (no rounding)."""
    if isinstance(x, (int, float, Fraction)):
        return Fraction(x)
    man, exp = mpf(x).man_exp
    return Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)


def _next_up(x: float) -> float:
    import math
    return math.nextafter(x, math.inf)


def _next_down(x: float) -> float:
    import math
    return math.nextafter(x, -math.inf)


@dataclass(frozen=True)
class Crossing:
    """The crossing polynomial of ``model`` at ``(dk, T)`` with interval coefficients (lowest degree first)."""

    coeffs: tuple

    @classmethod
    def of(cls, model: ScoreModel, dk: float, T: float) -> "Crossing":
        with _prec():
            sdk = iv.sqrt(iv.mpf(dk))
            L = iv.log(iv.mpf(T) - 1)
            n = max(len(model.gap_poly), len(model.var_poly))
            gap = list(model.gap_poly) + [0.0] * (n - len(model.gap_poly))
            var = list(model.var_poly) + [0.0] * (n - len(model.var_poly))
            coeffs = [sdk * iv.mpf(a) - iv.mpf(b) / 2 for a, b in zip(gap, var)]
            coeffs[0] = coeffs[0] - L
        return cls(tuple(coeffs))

    def derivative(self) -> "Crossing":
        with _prec():
            return Crossing(tuple(c * j for j, c in enumerate(self.coeffs) if j) or (iv.mpf(0),))

    def __call__(self, x):
        with _prec():
            x = iv.mpf(x)
            out = iv.mpf(0)
            for c in reversed(self.coeffs):
                out = out * x + c
            return out

    def over(self, a: mpf, b: mpf):
        """Enclosure of f over [a, b]: Horner intersected with the mean-value form."""
        with _prec():
            X = iv.mpf([a, b])
            horner = self(X)
            mid = (mpf(a) + mpf(b)) / 2
            mv = self(mid) + self.derivative()(X) * (X - mid)
            lo, hi = max(horner.a, mv.a), min(horner.b, mv.b)
            return iv.mpf([lo, hi])

    def root_bound(self) -> mpf:
        """Cauchy bound ``1 + max |a_i / a_n|`` on every root (rounded up)."""
        with _prec():
            lead = self.coeffs[-1]
            if 0 in lead:
                raise Undecided("leading coefficient not bounded away from zero")
            ratios = [abs(c / lead).b for c in self.coeffs[:-1]]
            return mpf(1) + max(ratios)


def _sign(x) -> int:
    if x.a > 0:
        return 1
    if x.b < 0:
        return -1
    return 0


def leftmost_root(f: Crossing, a, b, tol: float = 1e-15, min_width: float = 1e-30) -> Enclosure | None:
    """Certified enclosure of the smallest root of f in ``[a, b]``, or None if f has no root there.

    Cells are explored left to right; every cell left of the returned one is proven root-free.
    The returned cell has a strict endpoint sign change and a derivative excluding zero.
    """
    with _prec():
        return _leftmost(f, mpf(a), mpf(b), tol, min_width)


def _leftmost(f: Crossing, a: mpf, b: mpf, tol: float, min_width: float) -> Enclosure | None:
    stack = [(a, b)]
    fp = f.derivative()
    while stack:
        lo, hi = stack.pop()
        if 0 not in f.over(lo, hi):
            continue
        s_lo, s_hi = _sign(f(lo)), _sign(f(hi))
        monotone = 0 not in fp.over(lo, hi)
        if monotone and s_lo * s_hi < 0:
            return _refine(f, lo, hi, s_lo, tol)
        if monotone and s_lo * s_hi > 0:
            continue  # monotone with equal strict signs: no root in the cell
        if hi - lo < min_width:
            raise Undecided(f"cannot isolate a root near {float(lo)} (tangency or precision)")
        mid = (lo + hi) / 2
        stack.extend([(mid, hi), (lo, mid)])  # left half explored first
    return None


def _refine(f: Crossing, lo: mpf, hi: mpf, s_lo: int, tol: float) -> Enclosure:
    """Bisect a certified sign-change cell down to relative width ``tol``."""
    while hi - lo > mpf(tol) * max(mpf(1), abs(hi)):
        mid = (lo + hi) / 2
        s = _sign(f(mid))
        if s == 0:
            break
        lo, hi = (mid, hi) if s == s_lo else (lo, mid)
    return Enclosure(lo, hi)


def positive_roots(f: Crossing, tol: float = 1e-15) -> list[Enclosure]:
    """All positive roots of f, each certified simple, in increasing order (complete list)."""
    roots, start, end = [], mpf(0), f.root_bound()
    while True:
        r = leftmost_root(f, start, end, tol)
        if r is None:
            return roots
        roots.append(r)
        start = r.hi
        if 0 in f(start):
            raise Undecided("root enclosure endpoint not resolved")


def smallest_positive_root(model: ScoreModel, dk: float, T: float, tol: float = 1e-15) -> Enclosure | None:
    """Certified enclosure of gamma_c (smallest positive root), or None if no positive root exists."""
    f = Crossing.of(model, dk, T)
    return leftmost_root(f, mpf(0), f.root_bound(), tol)


def has_positive_root(model: ScoreModel, dk: float, T: float) -> bool:
    """Decide rigorously whether the crossing equation has a positive root at (dk, T)."""
    return smallest_positive_root(model, dk, T, tol=1e-6) is not None


def threshold(model: ScoreModel, T: float, lo: float, hi: float, rel: float = 1e-7) -> tuple[float, float]:
    """Enclosure ``[a, b]`` of the head width where a positive root first appears (bisection in dk).

    Requires no root at ``lo`` and a root at ``hi`` (both decided rigorously); the returned
    ``a`` has no root and ``b`` has one. Monotonicity of existence in dk is the caller's claim.
    """
    if has_positive_root(model, lo, T) or not has_positive_root(model, hi, T):
        raise Undecided(f"threshold not bracketed by dk in [{lo}, {hi}]")
    while hi - lo > rel * hi:
        mid = (lo + hi) / 2
        try:
            found = has_positive_root(model, mid, T)
        except Undecided:
            break
        lo, hi = (lo, mid) if found else (mid, hi)
    return lo, hi


def log_count(T: float):
    """``ln(T - 1)`` as an interval (the independent route's own L)."""
    with _prec():
        return iv.log(iv.mpf(T) - 1)

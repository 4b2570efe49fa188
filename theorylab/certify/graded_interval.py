"""Rigorous interval enclosures of the GLLM quantities (Table 3, §7.6; Prop. 7), with mpmath ``iv``.

Proof machinery for certificates G3.interval and G6 (the independent route to
``theorylab.graded.grades``), kept in ``certify/`` beside the PSA enclosures of
:mod:`theorylab.certify.interval`, whose ``rounds_to`` is the one rule for "an enclosure
rounds to the printed digits".

The clipped optimum is enclosed through its KKT characterisation (Prop. 10(ii)): the minimiser
is ``u(kappa) = clip(rho + kappa, 0, U)`` at a root of ``h(kappa) = kappa - (1/2) log(T/A)``,
``rho = (1/2) log(a/s)``, ``U = 2 log C``.  Given a guess (the float solution's kappa and its
active pattern) we take ``K = [kappa - b, kappa + b]`` and verify in interval
arithmetic (after tightening K by bisection on certified signs) that (i) the clip pattern is the same for every kappa in K (each free coordinate
stays in [0, U], each clipped one stays beyond its bound), (ii) ``h < 0`` at the left end of K and ``h > 0`` at the right end.
Then h, continuous, has a root in K (intermediate values); at that root
the KKT conditions hold, so by convexity it is the global minimiser, and every quantity
evaluated over K in interval arithmetic encloses the true one.  Parameters nu, mu are
enclosed from their decimal strings, so the proof is about the decimal values as printed.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal

from mpmath import iv, mpf

from theorylab.errors import ParameterError, positive_int, real_array


@dataclass(frozen=True)
class Table3Enclosure:
    """Interval enclosures (mpmath ``iv.mpf``) of one Table 3 row; ``verified`` is False when the
    interval argument could not be closed (then the intervals are meaningless)."""

    verified: bool
    BC2: object
    Lambda_star_C: object
    token_gain: object
    g_star_C: tuple
    bound: object
    reason: str = ""


def _dec(x) -> object:
    return iv.mpf(str(Decimal(str(x))))


def enclose_table3_row(nu, mu, levels: int, C, kappa: float, lower, upper, prec: int = 113,
                       bracket: float = 1e-9) -> Table3Enclosure:
    """Enclose BC^2, Lambda*_C, 1/Lambda*_C, g*_C and max(BC^2, C^-2) for geometric profiles.

    ``kappa``, ``lower``, ``upper``: the guess (kappa within ``bracket``) (common shift and indices of the coordinates at the
    lower/upper clip bound), e.g. from :func:`theorylab.graded.optimal.clipped_grades`.
    The gauge is ``g_0 = 1`` and requires coordinate 0 to be at the lower bound (true for the
    increasing optima of Cor. 3 profiles); otherwise ``verified`` is False.
    """
    L = positive_int("levels", levels)
    lower, upper = {int(j) for j in lower}, {int(j) for j in upper}
    old = iv.prec
    iv.prec = prec
    try:
        nu_i, mu_i, C_i = _dec(nu), _dec(mu), _dec(C)
        Za = sum(nu_i ** (L - 1 - l) for l in range(L))
        Zs = sum(mu_i ** l for l in range(L))
        a = [nu_i ** (L - 1 - l) / Za for l in range(L)]
        s = [mu_i ** l / Zs for l in range(L)]
        bc = sum(iv.sqrt(x * y) for x, y in zip(a, s))
        BC2 = bc ** 2
        cinv = 1 / C_i ** 2
        bound = iv.mpf([max(BC2.a, cinv.a), max(BC2.b, cinv.b)])   # encloses max(BC^2, C^-2)
        U = 2 * iv.log(C_i)
        rho = [(iv.log(x) - iv.log(y)) / 2 for x, y in zip(a, s)]
        K = iv.mpf([mpf(kappa) - mpf(bracket), mpf(kappa) + mpf(bracket)])

        def u_of(k):
            return [iv.mpf(0) if j in lower else U if j in upper else rho[j] + k for j in range(L)]

        for j in range(L):
            v = rho[j] + K
            ok = (v.b <= 0) if j in lower else (v.a >= U.b) if j in upper else (v.a >= 0 and v.b <= U.a)
            if not ok:
                return Table3Enclosure(False, BC2, None, None, (), bound, f"clip pattern not constant at level {j}")

        def h(k):
            u = u_of(k)
            T = sum(y * iv.exp(x) for y, x in zip(s, u))
            A = sum(y * iv.exp(-x) for y, x in zip(a, u))
            return k - (iv.log(T) - iv.log(A)) / 2

        k_lo, k_hi = K.a, K.b               # tighten by bisection on certified signs of h
        for _ in range(4 * prec):
            mid = (k_lo + k_hi) / 2
            hm = h(iv.mpf(mid))
            if hm.b < 0:
                k_lo = mid
            elif hm.a > 0:
                k_hi = mid
            else:
                break
        K = iv.mpf([k_lo, k_hi])
        lo, hi = h(iv.mpf(K.a)), h(iv.mpf(K.b))
        if not (lo.b < 0 and hi.a > 0):
            return Table3Enclosure(False, BC2, None, None, (), bound, "no sign change of h over the bracket")
        if 0 not in lower:
            return Table3Enclosure(False, BC2, None, None, (), bound, "gauge g_0 = 1 needs level 0 at the lower clip")
        u = u_of(K)
        lam = sum(x * iv.exp(-y) for x, y in zip(a, u)) * sum(x * iv.exp(y) for x, y in zip(s, u))
        g = tuple(iv.exp(x / 2) for x in u)
        return Table3Enclosure(True, BC2, lam, 1 / lam, g, bound)
    finally:
        iv.prec = old


# --------------------------------------------------------------------------- Prop. 7 at float inputs
@contextmanager
def _precision(prec: int):
    old = iv.prec
    iv.prec = positive_int("prec", prec, low=53)
    try:
        yield
    finally:
        iv.prec = old


def _exact_points(name: str, x) -> list:
    """Positive floats as point intervals: every binary64 value is an ``mpf`` exactly (prec >= 53)."""
    return [iv.mpf(float(v)) for v in real_array(name, x, low=0.0, low_inclusive=False).ravel()]


def _pair(alpha, tau) -> tuple[list, list]:
    a, t = _exact_points("alpha", alpha), _exact_points("tau", tau)
    if len(a) != len(t):
        raise ParameterError(f"alpha and tau must have the same length (got {len(a)} and {len(t)})")
    return a, t


def enclose_bc2(alpha, tau, prec: int = 113):
    """Interval enclosure of ``BC(alpha, tau)^2 = (sum_j sqrt(alpha_j tau_j))^2`` (GLLM Prop. 7(iii)).

    The float profiles are taken exactly as given (no renormalisation), so the enclosure is of
    the number the float library should reproduce.
    """
    with _precision(prec):
        a, t = _pair(alpha, tau)
        return sum(iv.sqrt(x * y) for x, y in zip(a, t)) ** 2


def enclose_Lambda(g, alpha, tau, prec: int = 113):
    """Interval enclosure of ``Lambda(g) = (sum_j alpha_j g_j^-2)(sum_j tau_j g_j^2)`` (GLLM Prop. 7)
    at float grades ``g`` (one vector), profiles taken exactly as given."""
    with _precision(prec):
        a, t = _pair(alpha, tau)
        gs = _exact_points("g", g)
        if len(gs) != len(a):
            raise ParameterError(f"g must have length {len(a)} (got {len(gs)})")
        return sum(x / y ** 2 for x, y in zip(a, gs)) * sum(x * y ** 2 for x, y in zip(t, gs))


def enclose_optimal_grades(alpha, tau, prec: int = 113) -> tuple:
    """Interval enclosures of ``g*_j = r_j / min_k r_k``, ``r_j = (alpha_j/tau_j)^(1/4)`` (Prop. 7(iii),
    gauge min g = 1); the minimum of intervals is enclosed by ``[min_k lo_k, min_k hi_k]``."""
    with _precision(prec):
        a, t = _pair(alpha, tau)
        r = [iv.sqrt(iv.sqrt(x / y)) for x, y in zip(a, t)]
        low = iv.mpf([min(v.a for v in r), min(v.b for v in r)])
        return tuple(v / low for v in r)

"""Exact certificates of PSA's filter-order account (PSA §2.1-2.3, §4.1-4.2, §4.8).

Symbolic streams (SymPy symbols in NumPy object arrays) go through the LIBRARY's
``shear``, ``momentum``, ``lattice_couplings``, ``score_channels`` and
``coupling_split``; identities are decided by exact rational-function arithmetic.
"""
from __future__ import annotations

import numpy as np

from theorylab.certify import Outcome, certificate, computed
from theorylab.psa import shear
from theorylab.psa import scores

# SymPy and the symbolic routes are imported inside each check, so `certify --list` does not load them.


@certificate("P4", title="Per-stream two-tap filter: DC gain 1, Nyquist 1+2g, monotone high-pass |H|^2",
             paper="PSA §4, §4.2",
             claim="The sheared stream is the causal filter (1+g) - g z^-1 with |H|^2 = 1 + 2g(1+g)(1 - cos w): gain 1 "
                   "at DC, 1 + 2g at Nyquist, increasing in w on [0, pi] for g > 0; the first momentum is zero.",
             method="exact")
def stream_filter() -> Outcome:
    """Transfer function from the shear of the exponential stream ``z^t``; |H|^2 = H(z) H(1/z), cos w = (z + 1/z)/2."""
    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic.psa import g

    stream, taps, gain_sq, momentum = shear.shear, shear.stream_taps, shear.stream_gain_sq, shear.momentum

    z = sp.Symbol("z", nonzero=True)
    T = 4
    x = np.array([[z**t] for t in range(T)], dtype=object)
    out = stream(x, g)
    H = [sp.cancel(ex.exact(out[t, 0]) / z**t) for t in range(1, T)]
    b0, b1 = (ex.exact(v) for v in taps(g))
    transfer = all(ex.is_zero(h - (b0 + b1 / z), (z, g)) for h in H)
    c = sp.Symbol("c")
    lib = ex.exact(gain_sq(g, c))
    power = ex.is_zero((b0 + b1 / z) * (b0 + b1 * z) - lib.subs(c, (z + 1 / z) / 2), (z, g))
    dc = ex.is_zero(lib.subs(c, 1) - 1, (g,))
    nyquist = ex.is_zero(lib.subs(c, -1) - (1 + 2 * g) ** 2, (g,))
    # d|H|^2/dw = -sin(w) d|H|^2/dc, sin(w) >= 0 on [0, pi]: increasing iff d|H|^2/dc < 0 (g > 0)
    monotone = power and ex.positive(-sp.diff(lib, c))  # decided only for the verified gain
    s = ex.symbol_array("s", 3, 2)
    first = ex.matrix_is_zero(momentum(s)[0], ex.symbols_of(s))
    ok = transfer and power and dc and nyquist and monotone and first
    return Outcome(ok, (computed("shear(z^t)/z^t == stream_taps as (1+g) - g/z", transfer),
                        computed("H(z)H(1/z) == stream_gain_sq(g, (z+1/z)/2)", power),
                        computed("|H|^2 at DC", str(sp.factor(lib.subs(c, 1)))),
                        computed("|H|^2 at Nyquist", str(sp.factor(lib.subs(c, -1)))),
                        computed("d|H|^2/dcos(w)", str(sp.factor(sp.diff(lib, c)))),
                        computed("first momentum is zero", first)))


def _orders(score, q, k, t: int, s: int) -> tuple[int, int]:
    """Joint filter order: how far back in the query (from t) and key (from s) streams the score reaches."""
    import sympy as sp

    from theorylab.symbolic import exact as ex

    used = {str(sym) for sym in sp.expand(ex.exact(score)).free_symbols}  # after cancellation
    lag_q = max(t - int(name.split("_")[1]) for name in used if name.startswith("q_"))
    lag_k = max(s - int(name.split("_")[1]) for name in used if name.startswith("k_"))
    return lag_q, lag_k


PAPER_ORDERS = {"standard": (0, 0), "query-only": (1, 0), "key-only": (0, 1), "symmetric": (1, 1)}
"""The order lattice as the paper states it (PSA §2.3): (query order, key order) of each member."""


@certificate("P5", title="Joint filter order: standard (0,0), query-only (1,0), key-only (0,1), symmetric (1,1)",
             paper="PSA §2.1-2.3, §4.2",
             claim="The bilinear score of each order-lattice member has the joint (query, key) filter order of its "
                   "coupling pattern; summing heads or widening them leaves standard attention at (0, 0).",
             method="exact")
def filter_orders() -> Outcome:
    """Read the order off the polynomial support of ``shear(q, g_q)[t] . shear(k, g_k)[s]``."""
    from theorylab.symbolic import exact as ex
    from theorylab.symbolic.psa import g

    couplings, stream = shear.lattice_couplings, shear.shear

    T, d, t, s = 4, 2, 3, 2
    q, k = ex.symbol_array("q", T, d), ex.symbol_array("k", T, d)
    evidence, ok = [], True
    ok &= set(shear.LATTICE) == set(PAPER_ORDERS)
    for member, expected in PAPER_ORDERS.items():
        gq, gk = couplings(member, g)
        score = stream(q, gq)[t] @ stream(k, gk)[s]
        got = _orders(score, q, k, t, s)
        ok &= got == expected
        evidence.append(computed(f"{member} order (query, key); paper {expected}", got))
    # three heads of width 2 with generic projections: still order (0, 0)
    Wq, Wk = ex.symbol_array("a", 3, d, d), ex.symbol_array("b", 3, d, d)
    heads = sum((q @ Wq[h])[t] @ (k @ Wk[h])[s] for h in range(3))
    got = _orders(heads, q, k, t, s)
    ok &= got == (0, 0)
    evidence.append(computed("sum of 3 standard heads with generic projections", got))
    return Outcome(ok, tuple(evidence))


@certificate("P6", title="Four-term decomposition is exact; unequal couplings add a linear score bias",
             paper="PSA §4.1, §4.8",
             claim="s = T1 + T2 + T3 + T4 exactly; with equal couplings the score is base + transported increment + "
                   "pure coherence, unequal couplings add a bias delta (p_q.k - q.p_k) that vanishes iff g_q = g_k and "
                   "has no energy (diagonal) component.", method="exact")
def four_terms() -> Outcome:
    """Compare with the score of the sheared streams, exactly, for symbolic streams and couplings."""
    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic.psa import g, g_k, g_q

    channels, split, stream = scores.score_channels, scores.coupling_split, shear.shear

    T, d = 3, 2
    q, k = ex.symbol_array("q", T, d), ex.symbol_array("k", T, d)
    gens = ex.symbols_of(q, k) + (g, g_q, g_k)
    score = stream(q, g_q) @ stream(k, g_k).T
    four = ex.equal(sum(channels(q, k, g_q, g_k, scaled=False)), score, gens)
    parts = split(q, k, g_q, g_k)
    regroup = ex.equal(sum(parts.values()), score, gens)
    eq = split(q, k, g, g)
    no_bias = ex.matrix_is_zero(eq["bias"], gens)
    eq_sum = ex.equal(eq["base"] + eq["increment"] + eq["coherence"], stream(q, g) @ stream(k, g).T, gens)
    # the bias is delta times a nonzero form: it vanishes only on g_q = g_k
    form = ex.matrix(parts["bias"]).applyfunc(lambda e: sp.cancel(e / ((g_q - g_k) / 2)))
    nonzero = not ex.matrix_is_zero(form, gens)
    self_bias = ex.matrix(split(q, q, g_q, g_k)["bias"])
    energy_free = all(ex.is_zero(self_bias[i, i], gens) for i in range(T))
    antisym = ex.equal(ex.matrix(parts["bias"]).T, -ex.matrix(split(k, q, g_q, g_k)["bias"]), gens)
    ok = four and regroup and no_bias and eq_sum and nonzero and energy_free and antisym
    return Outcome(ok, (computed("T1+T2+T3+T4 == q'.k'", four), computed("base+increment+bias+coherence == q'.k'", regroup),
                        computed("equal couplings: bias == 0 and base+increment+coherence == q'.k'", no_bias and eq_sum),
                        computed("bias / delta is a nonzero form", nonzero),
                        computed("bias has no diagonal (energy) component on one stream", energy_free),
                        computed("bias antisymmetric under q <-> k", antisym)))

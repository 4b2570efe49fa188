"""Reference routes for the certificates of the PLGA author's Lean areas (claims A9-A20, issue 13).

Independent of ``theorylab`` (NumPy, SciPy, SymPy, mpmath only), written from the statements of
the PLGA paper and of the authors' public Lean files and audit (``PldrLlmMathFoundations``,
``audit/audit_lib.py``), not from the library. Where the library has a closed form, the route
here takes another road: a multiplier as an explicit complex sum instead of the sine ratio, the
twirl residual from the RoPE eigenbasis instead of a sum of rotated matrices, a DAG loss from a
40-digit matrix exponential, derivative suprema from outward-rounded interval arithmetic.
"""
from __future__ import annotations

import math
from fractions import Fraction
from itertools import product

import mpmath as mp
import numpy as np

# ------------------------------------------------------------------------------ twirl (Lemma 5.9, TwirlBound.lean)


def twirl_frequency_list(freqs, pairs: str) -> list[float]:
    """``2 theta_a`` for every plane, then ``|theta_a - theta_b|`` and ``theta_a + theta_b`` for every pair of planes:
    a < b (``"unordered"``) or a != b (``"ordered"``, the authors' ``build_freqs``)."""
    th = [float(t) for t in freqs]
    out = [2 * t for t in th]
    for a in range(len(th)):
        for b in range(len(th)):
            if (a < b) if pairs == "unordered" else (a != b):
                out += [abs(th[a] - th[b]), th[a] + th[b]]
    return out


def ergodic_averages(omegas, S: int) -> np.ndarray:
    """``(1/S) sum_{n=1}^S e^{i omega n}`` for each omega, summed term by term (complex float64)."""
    omegas = np.atleast_1d(np.asarray(omegas, dtype=float))
    n = np.arange(1, S + 1)
    out = np.empty(omegas.size, dtype=complex)
    for i in range(0, omegas.size, 256):                                  # 256 frequencies at a time
        out[i:i + 256] = np.exp(1j * np.outer(omegas[i:i + 256], n)).sum(axis=1) / S
    return out


def multiplier_statistics(freqs, S: int, pairs: str) -> dict:
    """Worst, median, fractions below 0.1 and 0.01 of ``|ergodic average|`` over :func:`twirl_frequency_list`, and
    the multiplier of the smallest in-plane frequency ``2 min theta``."""
    values, where = np.unique(twirl_frequency_list(freqs, pairs), return_inverse=True)
    m = np.abs(ergodic_averages(values, S))[where]
    return {"n": m.size, "worst": float(m.max()), "median": float(np.median(m)), "below_0_1": float(np.mean(m < 0.1)),
            "below_0_01": float(np.mean(m < 0.01)),
            "slowest_in_plane": float(abs(ergodic_averages(2 * min(float(t) for t in freqs), S)[0]))}


def rope_eigenbasis(freqs) -> tuple[np.ndarray, np.ndarray]:
    """Unitary ``U`` (dk, dk) whose columns ``(e_2a -+ i e_2a+1)/sqrt 2`` are the ``e^{+-i n theta_a}`` eigenvectors of the
    plane-a rotation ``[[c, -s], [s, c]]``, and their frequencies ``omega`` (dk,)."""
    dk = 2 * len(freqs)
    U = np.zeros((dk, dk), dtype=complex)
    omega = np.zeros(dk)
    for a, t in enumerate(freqs):
        U[2 * a, 2 * a] = U[2 * a, 2 * a + 1] = 1 / np.sqrt(2)
        U[2 * a + 1, 2 * a], U[2 * a + 1, 2 * a + 1] = -1j / np.sqrt(2), 1j / np.sqrt(2)
        omega[2 * a], omega[2 * a + 1] = t, -t
    return U, omega


def twirl_residual_eigenbasis(M, freqs, S: int) -> float:
    """``||(1/S) sum_{n=1}^S R_n M R_n^T - Pi(M)||_F`` from the eigenbasis: with ``M_c = U^* M U``, the twirl multiplies
    entry (j, k) by the ergodic average at ``omega_j - omega_k`` and the projection keeps the entries with
    ``omega_j = omega_k``; so the residual is ``sqrt(sum_{omega_j != omega_k} |M_c,jk|^2 |avg|^2)``."""
    U, omega = rope_eigenbasis(freqs)
    Mc = U.conj().T @ np.asarray(M, dtype=float) @ U
    diff = omega[:, None] - omega[None, :]
    off = np.abs(diff) > 0
    values, where = np.unique(diff[off], return_inverse=True)
    gain = np.abs(ergodic_averages(values, S))[where] ** 2
    return math.sqrt(float(np.sum(np.abs(Mc[off]) ** 2 * gain)))


def off_commutant_entry_frequencies(freqs) -> list[float]:
    """``|omega_j - omega_k|`` over the ``dk^2 - dk`` off-commutant entries of the eigenbasis (nonresonant spectrum)."""
    _, omega = rope_eigenbasis(freqs)
    d = np.abs(omega[:, None] - omega[None, :])
    return sorted(float(v) for v in d[d > 0])


# ------------------------------------------------------------------------------ DAG loss (DagLoss.lean)
def dag_loss_mp(W, dps: int = 50) -> float:
    """``|log(tr e^{W o W} / d)|`` with the matrix exponential at ``dps`` digits (mpmath)."""
    W = np.asarray(W, dtype=float)
    with mp.workdps(dps):
        N = mp.matrix([[mp.mpf(float(v)) ** 2 for v in row] for row in W])
        E = mp.expm(N)
        tr = mp.fsum(E[i, i] for i in range(len(W)))
        return float(abs(mp.log(tr / len(W))))


def dag_loss_eigen_shift(W) -> float:
    """The authors' recorded evaluation of ``|log(tr e^{W o W}/d)|`` (audit ``dag_loss_value``), rewritten: eigenvalues
    ``lam`` of ``N = W o W``, ``m = max Re lam``, ``|m + log(Re sum e^{lam - m}) - log d|`` in float64."""
    W = np.asarray(W, dtype=float)
    lam = np.linalg.eigvals(W * W)
    m = float(lam.real.max())
    return abs(m + math.log(float(np.exp(lam - m).sum().real)) - math.log(len(W)))


# ------------------------------------------------------------------------------ order parameter (signed)
def order_parameter_signed(D1, D2) -> float:
    """``rms(D1 - D2) / (0.5 (|mean D1| + |mean D2|))`` with mpmath sums: 0 if D1 == D2, inf if the means cancel
    while the tensors differ (the authors' symmetrized signed normalization, ``order_pair``)."""
    a = [mp.mpf(float(v)) for v in np.ravel(D1)]
    b = [mp.mpf(float(v)) for v in np.ravel(D2)]
    with mp.workdps(40):
        num = mp.sqrt(mp.fsum((x - y) ** 2 for x, y in zip(a, b)) / len(a))
        if num == 0:
            return 0.0
        mu = (abs(mp.fsum(a)) + abs(mp.fsum(b))) / (2 * len(a))
        return float(num / mu) if mu > 0 else math.inf


# ------------------------------------------------------------------------------ LayerNorm (LayerNorm.lean)
def ln_relative_scale_error(row, S: float, eps: float, dps: int = 40) -> float:
    """``||LN(r) - LN(r/S)|| / ||LN(r/S)||`` without affine parameters, in closed form: both outputs are the centred row
    over ``sqrt(var + eps)`` resp. ``sqrt(var/S^2 + eps)`` times ``1/S``, so the ratio is
    ``sqrt((v + eps)/(v + eps/S^2)) - 1`` with ``v = var(r/S)`` (mpmath)."""
    with mp.workdps(dps):
        x = [mp.mpf(float(t)) / mp.mpf(S) for t in row]
        mean = mp.fsum(x) / len(x)
        v = mp.fsum((t - mean) ** 2 for t in x) / len(x)
        return float(mp.sqrt((v + eps) / (v + mp.mpf(eps) / mp.mpf(S) ** 2)) - 1)


def ln_scale_proxy_mp(row, S: float, eps: float, dps: int = 40) -> float:
    """The proxy ``eps / (2 v)``, ``v = var(r/S)`` (mpmath: no float range limits)."""
    with mp.workdps(dps):
        x = [mp.mpf(float(t)) / mp.mpf(S) for t in row]
        mean = mp.fsum(x) / len(x)
        return float(mp.mpf(eps) / (2 * mp.fsum((t - mean) ** 2 for t in x) / len(x)))


def ln_ball_value(row, eps: float, dps: int = 40) -> float:
    """``d var / (var + eps)`` of one row (the norm^2 of its eps-normalised vector, LayerNorm.lean)."""
    with mp.workdps(dps):
        x = [mp.mpf(float(t)) for t in row]
        mean = mp.fsum(x) / len(x)
        v = mp.fsum((t - mean) ** 2 for t in x) / len(x)
        return float(len(x) * v / (v + eps))


# ------------------------------------------------------------------------------ softmax (Softmax.lean)
def masked_softmax(z, allowed, dps: int = 40) -> np.ndarray:
    """The ideal masked softmax over the index set ``allowed``: ``e^{z_i} / sum_{j in J} e^{z_j}`` on J, exactly 0 off it."""
    with mp.workdps(dps):
        e = {i: mp.exp(mp.mpf(float(z[i]))) for i in allowed}
        total = mp.fsum(e.values())
        return np.array([float(e[i] / total) if i in e else 0.0 for i in range(len(z))])


# ------------------------------------------------------------------------------ contraction (Contraction.lean)
def diameter(X) -> float:
    """``max ||x - y||`` over the rows of ``X`` (SciPy ``pdist``)."""
    from scipy.spatial.distance import pdist

    X = np.asarray(X, dtype=float)
    return float(pdist(X).max()) if len(X) > 1 else 0.0


def silu_prime_sup_mp(dps: int = 30) -> tuple[float, float]:
    """``(u*, SiLU'(u*))`` with ``u*`` the root of ``d/du [u sigma(u)]' = 0``, found by mpmath ``findroot`` on the second
    derivative of ``u / (1 + e^-u)`` (numerical differentiation at ``dps`` digits)."""
    with mp.workdps(dps):
        f = lambda u: u / (1 + mp.exp(-u))                                       # noqa: E731
        u = mp.findroot(lambda t: mp.diff(f, t, 2), mp.mpf(2.4))
        return float(u), float(mp.diff(f, u))


# ------------------------------------------------------------------------------ interval enclosures (A20)
def _sigma(u):
    return 1 / (1 + mp.iv.exp(-u))


def silu_prime_iv(u):
    """Interval extension of ``SiLU'(u) = sigma(u) + u sigma(u)(1 - sigma(u))``."""
    s = _sigma(u)
    return s + u * s * (1 - s)


def iswiglu_prime_iv(u):
    """Interval extension of ``iSwiGLU'(u) = 2 u sigma(u) + u^2 sigma(u)(1 - sigma(u))``."""
    s = _sigma(u)
    return 2 * u * s + u * u * s * (1 - s)


def sup_abs_below(fprime, U: float, target: float, points=(), cells: int = 32, prec: int = 80) -> tuple[bool, float, float]:
    """Decide ``sup_{|u| <= U} |f'(u)| <= target`` rigorously (mpmath ``iv``, outward rounding), by branch and bound:
    a cell of ``[-U, U]`` whose interval enclosure of ``|f'|`` is ``<= target`` is done, any other is bisected (down
    to width ``U 2^-40``, below which the answer is False). Returns ``(decided, hi, lo)``: ``hi`` the largest enclosure
    upper end over the accepted cells, ``lo`` the largest lower end of ``|f'|`` enclosed at ``+-U`` and ``points``
    (a certified lower bound of the sup)."""
    saved = mp.iv.prec
    mp.iv.prec = prec
    try:
        Uq = Fraction(U)
        lo = max(abs(fprime(mp.iv.mpf(mp.mpf(x.numerator) / x.denominator))).a
                 for x in [Uq, -Uq] + [Fraction(p) for p in points if abs(p) <= U])
        lo = float(lo) * (1 - 2 ** -50)
        todo = [(-Uq + 2 * Uq * Fraction(k, cells), -Uq + 2 * Uq * Fraction(k + 1, cells)) for k in range(cells)]
        hi, tiny = mp.mpf(0), 2 * Uq / 2 ** 40
        while todo:
            a, b = todo.pop()
            cell = fprime(mp.iv.mpf([mp.mpf(a.numerator) / a.denominator, mp.mpf(b.numerator) / b.denominator]))
            top = abs(cell).b
            if top <= target:
                hi = max(hi, top)
            elif b - a > tiny:
                mid = (a + b) / 2
                todo += [(a, mid), (mid, b)]
            else:
                return False, float(top), lo
        return True, float(hi), lo
    finally:
        mp.iv.prec = saved


def silu_prime_sup_enclosure(prec: int = 80) -> tuple[tuple[float, float], tuple[float, float]]:
    """Rigorous enclosures of ``u*`` and ``sup_u |SiLU'(u)| = SiLU'(u*)``.

    ``SiLU'' = sigma'(u) (2 - u tanh(u/2))``, so ``SiLU'`` increases on ``[0, u*]`` and decreases on ``[u*, inf)``
    where ``u*`` is the root of ``g(u) = u tanh(u/2) - 2`` (increasing for u > 0); ``SiLU'(-u) = 1 - SiLU'(u)`` keeps
    the negative side in ``[1 - SiLU'(u*), 1/2]``. ``u*`` is bracketed by interval bisection of g (sign of g
    decided on degenerate intervals); the sup is ``SiLU'`` over the bracket.
    """
    saved = mp.iv.prec
    mp.iv.prec = prec
    try:
        def g(u):
            return u * (1 - 2 / (1 + mp.iv.exp(u))) - 2                   # u tanh(u/2) - 2

        a, b = mp.mpf(2), mp.mpf(3)
        assert g(mp.iv.mpf(a)).b < 0 < g(mp.iv.mpf(b)).a
        for _ in range(60):
            mid = (a + b) / 2
            gm = g(mp.iv.mpf(mid))
            if gm.b < 0:
                a = mid
            elif gm.a > 0:
                b = mid
            else:
                break
        sup = silu_prime_iv(mp.iv.mpf([a, b]))
        return (float(a), float(b)), (float(sup.a), float(sup.b))
    finally:
        mp.iv.prec = saved


# ------------------------------------------------------------------------------ greedy margin
def argmax_survives_box(logits, B) -> bool:
    """Whether the unique argmax of ``logits`` stays the unique argmax under every perturbation in the l_inf box of
    radius ``B`` (exact with Fractions: the vertices of the box suffice, the margin being linear in each coordinate)."""
    z = [Fraction(v) for v in logits]
    B = Fraction(B)
    w = max(range(len(z)), key=lambda i: z[i])
    if sum(v == z[w] for v in z) > 1:
        return False
    for signs in product((-1, 1), repeat=len(z)):
        p = [v + s * B for v, s in zip(z, signs)]
        if any(p[j] >= p[w] for j in range(len(p)) if j != w):
            return False
    return True


# ------------------------------------------------------------------------------ prefix consistency (OnlineContract.lean)
def prefix_consistent_shaped(F, x: list) -> tuple[bool, bool]:
    """The two conjuncts of Definition 4.8 on the list ``x``, with the Lean ``Option`` semantics:
    ``LengthPreserving`` (``len F(y) == len y`` for x and its prefixes) and ``PrefixConsistent``
    (``F(x)[r]? == F(x[:r+1])[r]?`` for r < len x: a row present on one side only is a violation)."""
    def get(rows, r):
        return rows[r] if r < len(rows) else None

    full = list(F(x))
    shaped = len(full) == len(x)
    consistent = True
    for r in range(len(x)):
        part = list(F(x[:r + 1]))
        shaped &= len(part) == r + 1
        a, b = get(full, r), get(part, r)
        if (a is None) != (b is None) or (a is not None and not np.array_equal(np.asarray(a), np.asarray(b))):
            consistent = False
    return shaped, consistent

"""Symbolic forms of the GLLM grading identities (Prop. 5, 7, 8, 11, 12; Cor. 3; Eq. 12).

Every function returns SymPy objects; identities are decided by the caller with exact
polynomial arithmetic (:func:`is_zero_rational`), never by ``simplify``.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from theorylab.errors import ParameterError, integer_array, positive_int, real_array, real_scalar
from theorylab.symbolic.exact import _to_exact, _to_matrix


def is_zero_rational(expr) -> bool:
    """Decide ``expr == 0`` for a rational function of its symbols: the numerator of
    ``together(expr)`` must be the zero polynomial.  Raises if the numerator is not a polynomial
    in the free symbols (undecidable here -> the certificate reports ERROR).

    ``expr`` is a number or SymPy expression (:func:`theorylab.symbolic.exact.exact`: floats enter as
    their exact binary value; strings, None and non-finite values raise :class:`ParameterError`)."""
    return _is_zero_rational(_to_exact("expr", expr))


def _is_zero_rational(expr: sp.Basic) -> bool:
    num, _ = sp.fraction(sp.together(sp.expand(expr)))
    num = sp.expand(num)
    if num == 0:
        return True
    gens = sorted(num.free_symbols, key=str)
    if not gens:
        return bool(sp.nsimplify(num) == 0) if num.is_number and num.is_rational else _raise(num)
    return sp.Poly(num, *gens).is_zero


def _raise(expr):
    raise ValueError(f"cannot decide exactly whether {expr} is zero")


def matrix_is_zero(M: sp.Matrix) -> bool:
    """Every entry of M (a SymPy matrix, or an array or nested list of numbers and expressions) is the zero
    rational function."""
    return all(_is_zero_rational(e) for e in _to_matrix("M", M))


def symbol_matrix(name: str, rows: int, cols: int) -> sp.Matrix:
    """A matrix of independent real symbols ``name_i_j``."""
    return sp.Matrix(rows, cols, lambda i, j: sp.Symbol(f"{name}_{i}_{j}", real=True))


def to_exact(A) -> sp.Matrix:
    """A float array as an exact rational SymPy matrix (floats are dyadic rationals, so exact)."""
    A = np.atleast_2d(real_array("A", A))
    if A.ndim != 2:
        raise ParameterError(f"A must be a vector or matrix (got shape {A.shape})")
    return sp.Matrix(A.shape[0], A.shape[1], lambda i, j: sp.Rational(float(A[i, j])))


# ----------------------------------------------------------------- EG-MHSA (Eq. 12, Rem. 1)
def graded_logits_residual(M: sp.Matrix, M2: sp.Matrix, n: int = 3) -> sp.Matrix:
    """``(Q M)(K M)^T - Q M2 K^T`` for symbolic Q, K (n, dk): zero iff the graded logits are
    ``Q M2 K^T``.  With ``Q = X W_Q`` this is also the absorption ``W~ = W M`` (Rem. 1)."""
    dk = M.shape[0]
    Q, K = symbol_matrix("q", n, dk), symbol_matrix("k", n, dk)
    return (Q * M) * (K * M).T - Q * M2 * K.T


def squared_grading(q, lam) -> sp.Matrix:
    """``M^2 = diag(lambda^(2 q_j))`` as the paper writes it (Eq. 12)."""
    q = np.atleast_1d(real_array("q", q, low=-1000, high=1000))           # exact powers: bounded exponents
    if q.ndim != 1:
        raise ParameterError(f"q must be a 1-D vector of grades (got shape {q.shape})")
    if not isinstance(lam, sp.Basic):
        lam = real_scalar("lam", lam, low=0, low_inclusive=False)
        lam = sp.Integer(int(lam)) if lam.is_integer() else lam
    return sp.diag(*[lam ** (2 * int(qj)) if float(qj).is_integer() else lam ** (2 * qj) for qj in q])


# ----------------------------------------------------------------- Lambda and BC (Prop. 7)
def symbols(prefix: str, d: int):
    """``d`` positive symbols ``prefix0 .. prefix{d-1}`` (d >= 0)."""
    return sp.symbols(f"{prefix}0:{positive_int('d', d, low=0)}", positive=True)


def Lambda_expr(alpha, tau, g) -> sp.Expr:
    """``(sum alpha_j g_j^-2)(sum tau_j g_j^2)`` (alpha, tau, g of one length d)."""
    return sum(a / x ** 2 for a, x in zip(alpha, g, strict=True)) * sum(t * x ** 2 for t, x in zip(tau, g, strict=True))


def lagrange_residual(d: int) -> sp.Expr:
    """With ``alpha_j = x_j^2``, ``tau_j = y_j^2``: ``Lambda(g) - BC^2 - (1/2) sum_{j,k}
    (x_j y_k g_k/g_j - x_k y_j g_j/g_k)^2`` (Lagrange's identity; zero identically).
    It proves ``Lambda >= BC^2`` with equality iff ``g_j^2 ~ x_j / y_j = sqrt(alpha_j / tau_j)``."""
    d = positive_int("d", d)
    x, y, g = symbols("x", d), symbols("y", d), symbols("g", d)
    lam = Lambda_expr([xi ** 2 for xi in x], [yi ** 2 for yi in y], g)
    bc = sum(xi * yi for xi, yi in zip(x, y))
    squares = sum((x[j] * y[k] * g[k] / g[j] - x[k] * y[j] * g[j] / g[k]) ** 2 for j in range(d) for k in range(d))
    return lam - bc ** 2 - squares / 2


def scale_residual(d: int) -> sp.Expr:
    """``Lambda(c g) - Lambda(g)`` for symbolic profiles, grades and c."""
    d = positive_int("d", d)
    a, t, g = symbols("a", d), symbols("t", d), symbols("g", d)
    c = sp.Symbol("c", positive=True)
    return Lambda_expr(a, t, [c * x for x in g]) - Lambda_expr(a, t, g)


def unit_residual(d: int) -> sp.Expr:
    """``Lambda(1) - 1`` on the simplex (last coordinates eliminated by the sum constraints)."""
    d = positive_int("d", d)
    a, t = list(symbols("a", d - 1)), list(symbols("t", d - 1))
    a.append(1 - sum(a))
    t.append(1 - sum(t))
    return Lambda_expr(a, t, [sp.Integer(1)] * d) - 1


# ----------------------------------------------------------------- Prop. 8: Hessian, gradient
def hessian_residual(d: int) -> sp.Matrix:
    """``Hess_u (log A + log T) - (C(alpha^(-u)) + C(tau^(u)))`` with ``C(p) = diag p - p p^T``, written in the
    positive symbols ``e_j = exp(u_j)`` (``d/du_j = e_j d/de_j``): every entry is a rational function,
    put over a common denominator."""
    d = positive_int("d", d)
    a, t, e = symbols("a", d), symbols("t", d), symbols("e", d)
    A = sum(ai / ei for ai, ei in zip(a, e))
    T = sum(ti * ei for ti, ei in zip(t, e))
    phi = sp.log(A) + sp.log(T)
    pa = sp.Matrix([ai / ei / A for ai, ei in zip(a, e)])
    pt = sp.Matrix([ti * ei / T for ti, ei in zip(t, e)])
    cov = sp.diag(*pa) - pa * pa.T + sp.diag(*pt) - pt * pt.T
    du = lambda f, j: e[j] * sp.diff(f, e[j])            # d/du_j = e_j d/de_j
    H = sp.Matrix(d, d, lambda j, k: du(du(phi, j), k))
    return (H - cov).applyfunc(sp.together)


def variance_residual(d: int) -> sp.Expr:
    """``v^T C(p) v - sum_j p_j (v_j - <p, v>)^2`` on the simplex (so C(p) is PSD: a variance)."""
    d = positive_int("d", d)
    p, v = list(symbols("p", d - 1)), sp.symbols(f"v0:{d}", real=True)
    p.append(1 - sum(p))
    P = sp.Matrix(p)
    V = sp.Matrix(v)
    mean = (P.T * V)[0]
    return (V.T * (sp.diag(*p) - P * P.T) * V)[0] - sum(pj * (vj - mean) ** 2 for pj, vj in zip(p, v))


def gradient_at_zero_residual(d: int) -> sp.Matrix:
    """``(grad_q log Lambda(q)|_{q=0} - 2 log(lambda) (tau - alpha)) / log(lambda)`` on the simplex (expanded)."""
    d = positive_int("d", d)
    a, t = list(symbols("a", d - 1)), list(symbols("t", d - 1))
    a.append(1 - sum(a))
    t.append(1 - sum(t))
    q, lam = sp.symbols(f"q0:{d}", real=True), sp.Symbol("lambda", positive=True)
    f = sp.log(Lambda_expr(a, t, [lam ** qi for qi in q]))
    grad = sp.Matrix([sp.diff(f, qi) for qi in q]).subs({qi: 0 for qi in q})
    return (grad - 2 * sp.log(lam) * (sp.Matrix(t) - sp.Matrix(a))).applyfunc(lambda z: sp.expand(z / sp.log(lam)))


# ----------------------------------------------------------------- Prop. 11, Cor. 3
def level_reduction_residual(dims) -> sp.Expr:
    """``BC(alpha, tau) - BC(a, s)`` with ``alpha_j = a_l/d_l``, ``tau_j = s_l/d_l`` (symbolic a, s)."""
    dims = [int(v) for v in integer_array("dims", dims, low=1).ravel()]
    L = len(dims)
    a, s = symbols("a", L), symbols("s", L)
    coord = sum(d * sp.sqrt((al / d) * (sl / d)) for al, sl, d in zip(a, s, dims))
    return sp.expand(coord - sum(sp.sqrt(al * sl) for al, sl in zip(a, s)))


def geometric_profiles_exact(nu, mu, L: int):
    """Exact level profiles of Cor. 3 for rational or symbolic nu, mu."""
    a = [nu ** (L - 1 - l) for l in range(L)]
    s = [mu ** l for l in range(L)]
    return [x / sum(a) for x in a], [x / sum(s) for x in s]


def cor3_residual(L: int) -> sp.Expr:
    """Cor. 3 closed form minus the direct sum, with ``nu = x^2``, ``mu = y^2`` (both times
    ``sqrt(Z_a Z_s)``): ``x^(L-1) (1 - r^L)/(1 - r) - sum_l x^(L-1-l) y^l``, ``r = y/x``."""
    L = positive_int("L", L)
    x, y = sp.symbols("x y", positive=True)
    r = y / x
    return x ** (L - 1) * (1 - r ** L) / (1 - r) - sum(x ** (L - 1 - l) * y ** l for l in range(L))


def bc_geometric_exact(nu, mu, L: int) -> sp.Expr:
    """``BC(a, s)`` of the geometric profiles, as an exact SymPy number/expression."""
    a, s = geometric_profiles_exact(nu, mu, L)
    return sum(sp.sqrt(x * y) for x, y in zip(a, s))


# ----------------------------------------------------------------- Prop. 12
def boundary_polynomial_expr(alpha, tau, t):
    """``F(t) = prod_k t_k (Lambda - 1)`` with ``g_j^2 = t_j``: returns (F, is_polynomial)."""
    prod = sp.Mul(*t)
    F = sp.cancel(prod * (sum(a / tj for a, tj in zip(alpha, t)) * sum(b * tj for b, tj in zip(tau, t)) - 1))
    _, den = sp.fraction(sp.together(F))
    return sp.expand(F), den.free_symbols.isdisjoint(t)


def tilted_exact(p, u_exp):
    """``p_j e^{u_j} / sum_k p_k e^{u_k}`` given the exact values ``e^{u_j}``."""
    w = [pj * ej for pj, ej in zip(p, u_exp)]
    return [x / sum(w) for x in w]

"""Exact certificates of the PSA shear's geometry (PSA §2.3, §3.2-3.3, §4.4-4.6): P1-P3, P7, P8.

Each check feeds SymPy symbols through the LIBRARY's NumPy operators
(``theorylab.psa.shear``, which does pure arithmetic on object arrays) and decides
the claimed identity by exact polynomial / rational-function arithmetic
(``theorylab.symbolic.exact``). Wrong operators are planted in the library source
(``tests/planted/psa.py``).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from theorylab.certify import Outcome, certificate, computed
from theorylab.errors import ParameterError
from theorylab.psa import shear
from theorylab.psa import symplectic

# SymPy and the symbolic routes are imported inside each check, so `certify --list` does not load them.

D = 2  # width of the symbolic streams: enough to see the block structure of every operator


def _joint_operator(op, gq, gk):
    """Jacobian, on (q, p_q, k, p_k), of applying ``op`` to the query (gq) and key (gk) phase spaces."""
    from theorylab.symbolic import exact as ex
    from theorylab.symbolic.psa import jacobian

    q, pq, k, pk = (ex.symbol_array(name, D) for name in ("q", "pq", "k", "pk"))
    q2, pq2 = op(q, pq, gq)
    k2, pk2 = op(k, pk, gk)
    return jacobian(np.concatenate([q2, pq2, k2, pk2]), np.concatenate([q, pq, k, pk]))


def _refused(f, *args) -> bool:
    try:
        f(*args)
    except ParameterError:
        return True
    return False


@certificate("P1", title="Every order-lattice member is exactly symplectic (M^T J M = J)",
             paper="PSA §2.3, §5.1",
             claim="The upper shear, the lower shear and every lattice member (query-only, key-only, symmetric; "
                   "equal and unequal couplings) satisfy M^T J M = J for all couplings.", method="exact")
def lattice_symplectic() -> Outcome:
    """Derive each member's Jacobian from ``op`` and decide ``M^T J M - J = 0`` in (g, g_q, g_k)."""
    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic.psa import g, g_k, g_q

    op, couplings, form, operator = (shear.upper_shear, shear.lattice_couplings, symplectic.symplectic_form,
                                      symplectic.lattice_matrix)

    J = sp.diag(ex.matrix(form(D)), ex.matrix(form(D)))
    cases = {m: couplings(m, g) for m in shear.LATTICE} | {"unequal": (g_q, g_k)}
    verdicts, evidence = [], []
    for name, (a, b) in cases.items():
        M = _joint_operator(op, a, b)
        ok = ex.matrix_is_zero(M.T * J * M - J, (g, g_q, g_k))
        same = ex.equal(M, operator(a, b, D), (g, g_q, g_k))  # the library's matrix is the derived operator
        verdicts += [ok, same]
        evidence.append(computed(f"{name}: M^T J M == J and M == lattice_matrix", bool(ok and same)))
    # J and the two shears as the paper writes them: J = [[0, I], [-I, 0]], [[I, gI], [0, I]], [[I, 0], [gI, I]]
    I, Z = sp.eye(D), sp.zeros(D)
    paper_J = sp.BlockMatrix([[Z, I], [-I, Z]]).as_explicit()
    paper_upper = sp.BlockMatrix([[I, g * I], [Z, I]]).as_explicit()
    paper_lower = sp.BlockMatrix([[I, Z], [g * I, I]]).as_explicit()
    lower = _joint_operator(shear.lower_shear, g, 0)[:2 * D, :2 * D]
    stream = ex.matrix(shear.shear(np.array([[sp.Rational(1, 3)], [sp.Rational(1, 7)]], dtype=object), g))
    a, b = np.array([sp.Rational(1, 3), -2], dtype=object), np.array([sp.Rational(5, 7), sp.Rational(1, 9)], dtype=object)
    checks = {"J == [[0, I], [-I, 0]]": ex.equal(ex.matrix(form(D)), paper_J, (g,)),
              "upper shear matrix == [[I, gI], [0, I]]": ex.equal(ex.matrix(symplectic.upper_shear_matrix(g, D)),
                                                                 paper_upper, (g,)),
              "lower shear: Jacobian == matrix == [[I, 0], [gI, I]], symplectic": bool(
                  ex.equal(lower, paper_lower, (g,)) and ex.equal(ex.matrix(symplectic.lower_shear_matrix(g, D)),
                                                                  paper_lower, (g,))
                  and ex.matrix_is_zero(lower.T * paper_J * lower - paper_J, (g,))),
              # the exact stream route keeps non-dyadic rationals exact: x' = (x_0, (1 + g) x_1 - g x_0)
              "shear of the exact stream (1/3, 1/7) == (1/3, (1 + g)/7 - g/3), first entry exactly 1/3": bool(
                  ex.equal(stream, sp.Matrix([[sp.Rational(1, 3)], [(1 + g) / 7 - g / 3]]), (g,))
                  and stream[0, 0] == sp.Rational(1, 3)),
              # the lattice as the paper tabulates it (symbolic g and g = 3.0), and the default width d = 1
              "couplings: standard (0, 0), query-only (g, 0), key-only (0, g), symmetric (g, g); the same at g = 3.0":
                  all(tuple(couplings(m, x)) == pair for x in (g, 3.0) for m, pair in
                      (("standard", (0, 0)), ("query-only", (x, 0)), ("key-only", (0, x)), ("symmetric", (x, x)))),
              "default d = 1: lower shear matrix == [[1, 0], [g, 1]], upper == [[1, g], [0, 1]]": bool(
                  ex.equal(ex.matrix(symplectic.lower_shear_matrix(g)), sp.Matrix([[1, 0], [g, 1]]), (g,))
                  and ex.equal(ex.matrix(symplectic.upper_shear_matrix(g)), sp.Matrix([[1, g], [0, 1]]), (g,))),
              # integer couplings |g| <= 2^53 stay exact integers; beyond, the nearest double (documented)
              "integer g = +-2^53: exact integer entry; g = +-(2^53 + 1): float entry +-2^53 (nearest double)": all(
                  (M := symplectic.upper_shear_matrix(gi)).dtype.kind == kind and int(M[0, 1]) == value
                  for gi, kind, value in ((2 ** 53, "i", 2 ** 53), (-2 ** 53, "i", -2 ** 53),
                                          (2 ** 53 + 1, "f", 2 ** 53), (-2 ** 53 - 1, "f", -2 ** 53))),
              # bad couplings are refused with ParameterError; g = -1 (not invertible) by unshear_step in every type
              "couplings '0.5', [0.5], None, True, (0.5, 1.0) refused by shear; g = -1 (int, float, NumPy, Fraction, "
              "SymPy) refused by unshear_step, which inverts shear_step exactly at g = 3/7": (
                  all(_refused(shear.shear, np.ones((3, 2)), bad) for bad in ("0.5", [0.5], None, True,
                                                                            np.array([0.5, 1.0])))
                  and all(_refused(shear.unshear_step, np.ones(2), np.ones(2), m)
                          for m in (-1, -1.0, np.float64(-1.0), np.array(-1.0), Fraction(-1), sp.Integer(-1)))
                  and list(shear.unshear_step(shear.shear_step(a, b, sp.Rational(3, 7)), a, sp.Rational(3, 7))) == list(b))}
    verdicts += [bool(v) for v in checks.values()]
    evidence += [computed(k, bool(v)) for k, v in checks.items()]
    return Outcome(all(verdicts), tuple(evidence))


@certificate("P2", title="Shear powers M^n = M_{ng}: unit spectrum, defective, linear growth",
             paper="PSA §3.3",
             claim="M_g^n = [[I, n g I], [0, I]]: all eigenvalues 1, a defective eigenvalue for g != 0, and "
                   "iterates growing linearly (not bounded) in n.", method="exact")
def shear_powers() -> Outcome:
    """Induction in a symbolic n: ``M_g M_{ng} = M_{(n+1)g}`` and ``M_{1g} = M_g``; then spectrum and rank."""
    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic.psa import g, n

    matrix = symplectic.upper_shear_matrix

    M, I = ex.matrix(matrix(g, D)), sp.eye(2 * D)
    base = ex.equal(ex.matrix(matrix(1 * g, D)), M, (g,))
    step = ex.equal(M * ex.matrix(matrix(n * g, D)), ex.matrix(matrix((n + 1) * g, D)), (g, n))
    lam = sp.Symbol("lambda")
    charpoly = ex.equal((M - lam * I).det(), (1 - lam) ** (2 * D), (g, lam))
    defect = (M - I).rank() == D  # geometric multiplicity D < algebraic 2D whenever g != 0 (g is positive)
    Mn = ex.matrix(matrix(n * g, D))
    growth = ex.equal(Mn[0, D], n * g, (g, n)) and ex.positive(sp.diff(Mn[0, D], n))
    return Outcome(base and step and charpoly and defect and growth,
                   (computed("M_{1g} == M_g", base), computed("M_g M_{ng} == M_{(n+1)g}", step),
                    computed("det(M - lambda I) == (1 - lambda)^(2d)", charpoly),
                    computed("rank(M - I) (geometric multiplicity 2d - rank)", (M - I).rank()),
                    computed("(M^n)[q, p] entry", str(Mn[0, D]))))


@certificate("P3", title="The shear is the exact time-g flow of H = p^2/2; modified Hamiltonian = H",
             paper="PSA §3.2-3.3",
             claim="M_g is the exact time-g flow of H = p^2/2, preserves H, and its generator is nilpotent so "
                   "the modified Hamiltonian equals H at every order.", method="exact")
def hamiltonian_flow() -> Outcome:
    """``d/dt phi_t = J^-1-gradient of H`` at phi_t, ``phi_0 = id``; ``H o phi_t = H``; ``log M_g = g A``, ``A^2 = 0``."""
    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic.psa import g

    op, matrix = shear.upper_shear, symplectic.upper_shear_matrix

    q, p = ex.symbol_array("q", D), ex.symbol_array("p", D)
    t = sp.Symbol("t")
    gens = ex.symbols_of(q, p) + (t, g)
    qt, pt = op(q, p, t)
    H = lambda pp: sum(v ** 2 for v in pp) / 2  # noqa: E731  kinetic Hamiltonian
    # Hamilton's equations for H = |p|^2/2: dq/dt = dH/dp = p, dp/dt = -dH/dq = 0, along phi_t
    flow = all(ex.is_zero(sp.diff(ex.exact(a), t) - ex.exact(b), gens) for a, b in zip(qt, pt)) and \
        all(ex.is_zero(sp.diff(ex.exact(b), t), gens) for b in pt)
    start = ex.equal(np.concatenate(op(q, p, 0)), np.concatenate([q, p]), gens)
    energy = ex.is_zero(H(pt) - H(p), gens)
    M = ex.matrix(matrix(g, D))
    A = sp.diff(M, g)  # generator of the one-parameter group
    nilpotent = ex.matrix_is_zero(A * A, (g,))
    log_exact = ex.equal(sp.eye(2 * D) + g * A, M, (g,))  # exp(gA) = I + gA exactly since A^2 = 0
    hamiltonian = ex.equal(A, sp.Matrix(sp.BlockMatrix([[sp.zeros(D), sp.eye(D)], [sp.zeros(D), sp.zeros(D)]])), ())
    return Outcome(flow and start and energy and nilpotent and log_exact and hamiltonian,
                   (computed("d/dt phi_t = X_H(phi_t)", flow), computed("phi_0 = id", start),
                    computed("H(phi_t) == H", energy), computed("generator A nilpotent (A^2 = 0)", nilpotent),
                    computed("exp(gA) == I + gA == M_g (BCH series terminates)", log_exact),
                    computed("A is the linear field of H = p^2/2", hamiltonian)))


@certificate("P7", title="Lower shear is score-null; DC-1 high-pass two-taps are the shear, unique up to g",
             paper="PSA §4.4-4.5",
             claim="The lower shear leaves the score-bearing coordinate unchanged (all-pass, score-null). Among causal "
                   "one-step two-tap stream maps with scalar taps (a, b), DC gain 1 and strictly high-pass gain hold "
                   "exactly for the shear's taps (1 + g, -g) with g(1 + g) > 0 (g > 0 or g < -1); a positive current "
                   "tap a > 0 leaves exactly the shear's range g > 0.", method="exact")
def lower_null_and_uniqueness() -> Outcome:
    """Score-null: ``lower(q, momentum(q), g)[0] == q``. Uniqueness: the high-pass set is derived, not typed in.

    For taps (a, b), ``|H(e^{iw})|^2 = a^2 + b^2 + 2ab cos w``; high-pass (gain increasing in w on
    [0, pi]) means its derivative in ``cos w`` is negative. SymPy solves that inequality on the
    DC-gain-1 line ``a = 1 - b`` and on the library's taps in a real coupling t of either sign.
    """
    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic.psa import g

    lower, stream, taps = shear.lower_shear, shear.shear, shear.stream_taps

    x = ex.symbol_array("x", 4, D)
    gens = ex.symbols_of(x) + (g,)
    null = ex.equal(lower(x, shear.momentum(x), g)[0], x, gens)
    a, b, c, t = sp.symbols("a b c t", real=True)
    slope = sp.diff(a**2 + b**2 + 2 * a * b * c, c)            # d|H|^2 / d cos(w); high-pass <=> slope < 0
    dc_line = {a: sp.solve(sp.Eq(a + b, 1), a)[0]}             # DC gain H(1) = a + b = 1
    high_b = sp.solve_univariate_inequality(slope.subs(dc_line) < 0, b, relational=False)
    ta, tb = (ex.exact(v) for v in taps(t))                    # the library's taps, coupling t of any sign
    dc = ex.is_zero(ta + tb - 1, (t,))
    onto = sp.Poly(tb, t).degree() == 1                        # t -> b is onto R: the taps cover the whole DC-1 line
    high_t = sp.solve_univariate_inequality(slope.subs({a: ta, b: tb}) < 0, t, relational=False)
    same_set = sp.imageset(sp.Lambda(t, tb), high_t) == high_b
    claimed = high_t == sp.solve_univariate_inequality(t * (1 + t) > 0, t, relational=False)
    positive_tap = high_t.intersect(sp.solve_univariate_inequality(ta > 0, t, relational=False))
    shear_range = positive_tap == sp.Interval.open(0, sp.oo)
    # the library's shear realises those taps: impulse response of shear(x) at position 2
    resp = stream(x, g)[2] - ex.exact(taps(g)[0]) * x[2] - ex.exact(taps(g)[1]) * x[1]
    realised = ex.matrix_is_zero(resp, gens)
    ok = null and dc and onto and same_set and claimed and shear_range and realised
    return Outcome(ok, (computed("lower shear leaves q unchanged (score-null, all-pass)", null),
                        computed("d|H|^2/dcos(w) for taps (1 - b, b)", str(sp.factor(slope.subs(dc_line)))),
                        computed("DC-1 high-pass set of b (derived)", str(high_b)),
                        computed("stream_taps(t): DC gain 1 for every t, b linear in t (covers every DC-1 two-tap)",
                                 bool(dc and onto)),
                        computed("high-pass set of the library coupling t (derived; claim: t(1 + t) > 0)", str(high_t)),
                        computed("its image under t -> b equals the DC-1 high-pass set of b", bool(same_set)),
                        computed("with a positive current tap a > 0 (claim: t > 0)", str(positive_tap)),
                        computed("library shear has taps stream_taps(g)", realised)))


@certificate("P8", title="Nonlinear symplectic shear: symmetric Jacobian, codimension 2016 at dk = 64",
             paper="PSA §4.6",
             claim="(q, p) -> (q + f(p), p) is symplectic iff Df is symmetric, a condition of codimension "
                   "dk(dk-1)/2 (2016 at dk = 64); among polynomial f only f(p) = c p gives an amplitude-independent "
                   "high-pass gain.", method="exact")
def nonlinear_shear() -> Outcome:
    """Residual ``M^T J M - J`` for a generic Df (exact, d = 2..4), its rank; d = 64 by exact sparse rank."""
    import sympy as sp

    from theorylab.symbolic import exact as ex

    jac, form, codim, op = (symplectic.shear_jacobian, symplectic.symplectic_form, symplectic.symplectic_shear_codimension,
                            symplectic.nonlinear_shear)

    evidence, ok = [], True
    for d in (2, 3, 4):
        F = ex.symbol_array("F", d, d)
        M, J = ex.matrix(jac(F)), ex.matrix(form(d))
        R = M.T * J * M - J
        gens = ex.symbols_of(F)
        sym = ex.equal(R[d:, d:], ex.matrix(F).T - ex.matrix(F), gens) and ex.matrix_is_zero(R[:d, :], gens) \
            and ex.matrix_is_zero(R[:, :d], gens)
        rank = sp.Matrix([[sp.diff(r, s) for s in gens] for r in R]).rank()
        ok &= sym and rank == codim(d)
        evidence.append(computed(f"d={d}: residual = [[0,0],[0,Df^T-Df]], rank", rank))
    map_ok = _shear_map_matches(op, jac)
    ok &= map_ok
    evidence.append(computed("the library map at d = 2, 3 (symbolic q, p, polynomial f): value (q + f(p), p) and "
                             "SymPy Jacobian [[I, Df], [0, I]] == library jac(Df), symplectic exactly when Df is "
                             "symmetric (f = grad V vs a non-gradient f)", map_ok))
    rank64 = _residual_rank(jac, form, 64)
    ok &= rank64 == codim(64) == 2016
    evidence.append(computed("d=64: rank of the symplecticity constraints on Df", rank64))
    evidence.append(computed("library codimension at dk = 64", codim(64)))
    # scale-uniformity: Nyquist gain of an alternating stream of amplitude lam under f(p) = sum a_j p^j
    lam = sp.Symbol("lam", positive=True)
    a = sp.symbols("a0:5")
    f = lambda p: sum(aj * p ** j for j, aj in enumerate(a))  # noqa: E731
    x = np.array([lam, -lam], dtype=object)
    qs, _ = op(x[1], x[1] - x[0], f)                          # position 1: p = -2 lam
    gain = sp.expand(qs / x[1])
    conditions = sp.Poly(sp.expand((gain - gain.subs(lam, 1)) * lam ** 4), lam).coeffs()
    solution = sp.solve(conditions, [a[0], a[2], a[3], a[4]], dict=True)
    only_linear = solution == [{a[0]: 0, a[2]: 0, a[3]: 0, a[4]: 0}]
    ok &= only_linear
    evidence.append(computed("amplitude-independent gain forces f(p) = a1 p", only_linear))
    return Outcome(ok, tuple(evidence))


def _shear_map_matches(op, jac) -> bool:
    """The library map ``op(q, p, f)`` itself on symbolic ``q, p`` (d = 2, 3): its value is ``(q + f(p), p)`` and its
    SymPy Jacobian is ``[[I, Df], [0, I]]`` (built here) == ``jac(Df)``; ``M^T J M = J`` (J built here) holds for
    ``f = grad V`` (V a cubic, Df its Hessian: symmetric) and fails for a non-gradient ``f``."""
    import sympy as sp

    ok = True
    for d in (2, 3):
        q, p = sp.symbols(f"q0:{d}"), sp.symbols(f"p0:{d}")
        V = sum((i + 2) * p[i] ** 3 + (i + 1) * p[i] * p[(i + 1) % d] ** 2 for i in range(d))
        gradient = [sp.diff(V, s) for s in p]
        skew = [p[(i + 1) % d] ** 2 - 3 * p[i] * p[(i + 1) % d] for i in range(d)]     # Df not symmetric
        J = sp.Matrix(sp.BlockMatrix([[sp.zeros(d), sp.eye(d)], [-sp.eye(d), sp.zeros(d)]]))
        for fs, is_symplectic in ((gradient, True), (skew, False)):
            f = sp.lambdify([p], fs, "sympy")
            Q, P = op(np.array(q, dtype=object), np.array(p, dtype=object), lambda x: np.array(f(list(x)), dtype=object))
            image = sp.Matrix(list(Q) + list(P))
            ok &= (image - sp.Matrix([q[i] + fs[i] for i in range(d)] + list(p))).expand() == sp.zeros(2 * d, 1)
            M = image.jacobian(list(q) + list(p))
            Df = sp.Matrix(fs).jacobian(list(p))
            ok &= (M - sp.Matrix(sp.BlockMatrix([[sp.eye(d), Df], [sp.zeros(d), sp.eye(d)]]))).expand() == sp.zeros(2 * d)
            ok &= (M - sp.Matrix(np.asarray(jac(np.array(Df.tolist(), dtype=object)), dtype=object))).expand() \
                == sp.zeros(2 * d)
            ok &= ((M.T * J * M - J).expand() == sp.zeros(2 * d)) == is_symplectic
    return bool(ok)


def _residual_rank(jac, form, d: int) -> int:
    """Exact rank of the linear map Df -> (M^T J M - J) at width d, by sparse fraction-free elimination.

    The images of the d^2 basis matrices E_ij (M = the library's ``jac(E_ij)``, J = its ``form(d)``) are
    computed together as one block-diagonal sparse product in int64 (exact: the entries are small integers);
    each image is then reduced against a pivot table keyed by its leading entry.
    """
    from scipy import sparse

    n, J = 2 * d, np.asarray(form(d), dtype=np.int64)
    rows, cols, vals = [], [], []
    for k in range(d * d):                                    # column k = i d + j: Df = E_ij
        E = np.zeros((d, d), dtype=np.int64)
        E.flat[k] = 1
        M = np.asarray(jac(E), dtype=np.int64).ravel()
        at = np.flatnonzero(M != 0)                           # (a boolean scan: 8x faster than nonzero of ints)
        rows.append(k * n + at // n), cols.append(k * n + at % n), vals.append(M[at])
    size = d * d * n
    B = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(size, size))
    Jd = sparse.kron(sparse.identity(d * d, dtype=np.int64, format="csr"), sparse.csr_matrix(J), format="csr")
    R = (B.T @ Jd @ B - Jd).tocoo()                           # block k holds M_k^T J M_k - J
    images: list[dict] = [{} for _ in range(d * d)]
    for r, c, v in zip(R.row.tolist(), R.col.tolist(), R.data.tolist()):
        if v:
            images[r // n][(r % n) * n + c % n] = v
    pivots: dict = {}
    for vec in images:
        while vec:
            lead = min(vec)
            if lead not in pivots:
                pivots[lead] = vec
                break
            pv = pivots[lead]
            fa, fb = pv[lead], vec[lead]
            vec = {k: fa * vec.get(k, 0) - fb * pv.get(k, 0) for k in set(vec) | set(pv)}
            vec = {k: v for k, v in vec.items() if v}
    return len(pivots)

"""GLLM Lambda, the Bhattacharyya affinity and the optimal grades: G3, G3.interval (Prop. 7), G4 (Prop. 8),
G5 (Cor. 3, Prop. 11) and G9 (Prop. 12, the GIT dictionary).

Each check calls library code and holds it against an independent route: exact SymPy identities, mpmath interval
enclosures (``theorylab.certify.graded_interval``) and the reference routes of
``theorylab.certificates.reference.graded`` (written from the paper's equations, sharing no library code). Wrong
library functions are planted in the library source (``tests/planted/graded.py``).
"""
from __future__ import annotations

import numpy as np

from theorylab.certificates.graded._shared import near
from theorylab.certificates.reference import graded as ref
from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.certify import graded_interval as interval
from theorylab.errors import ParameterError
from theorylab.graded import grades, optimal


@certificate("G3", title="Lambda: scale invariance, Lambda(1) = 1, min = BC^2 <= 1 at g* ~ (alpha/tau)^(1/4)",
             paper="GLLM §4.2, Prop. 7", method="exact",
             claim="Lambda(cg) = Lambda(g); Lambda(1) = 1 on the simplex; Lambda - BC^2 is Lagrange's sum of "
                   "squares (so min Lambda = BC^2 <= 1, attained iff g ~ (alpha/tau)^(1/4)); the library's "
                   "Lambda and g* agree with the exact forms.")
def g3() -> Outcome:
    import sympy as sp

    from theorylab.symbolic import graded as sg

    Lambda, optimal_grades, bhattacharyya, Lambda_star = (grades.Lambda, optimal.optimal_grades, grades.bhattacharyya,
                                                          grades.Lambda_star)

    # the scale residual is not vacuous: before the decision it still involves the scale c (Lambda(c g) - Lambda(g))
    scaled = {d: sg.scale_residual(d) for d in (2, 3)}
    sym = {f"d={d}": sg.is_zero_rational(scaled[d]) and sp.Symbol("c", positive=True) in scaled[d].free_symbols
           and sg.is_zero_rational(sg.unit_residual(d)) and sg.is_zero_rational(sg.lagrange_residual(d)) for d in (2, 3)}
    # exact rational profiles with alpha/tau rational squares: g*^2 = x/y and BC are rational
    x, y = [1, 2, 2], [2, 1, 2]                     # sum of squares 9 each
    alpha = [sp.Rational(v * v, 9) for v in x]
    tau = [sp.Rational(v * v, 9) for v in y]
    bc_exact = sum(sp.sqrt(a * t) for a, t in zip(alpha, tau))
    a_f, t_f = np.array([float(v) for v in alpha]), np.array([float(v) for v in tau])
    g_lib = optimal_grades(a_f, t_f)
    g_exact = [sp.sqrt(sp.Rational(xi, yi)) for xi, yi in zip(x, y)]
    g_exact = [v / min(g_exact) for v in g_exact]
    lam_at_opt = float(Lambda(g_lib, a_f, t_f))
    errs = [abs(lam_at_opt - float(bc_exact ** 2)), abs(bhattacharyya(a_f, t_f) - float(bc_exact)),
            abs(Lambda_star(a_f, t_f) - float(bc_exact ** 2)),
            float(np.max([abs(float(ge) - gl) for ge, gl in zip(g_exact, g_lib)]))]
    rng = np.random.default_rng(0)
    gs = np.exp(rng.normal(size=(200, 3)))
    lam_lib = Lambda(gs, a_f, t_f)
    lam_exact = np.array([float(sg.Lambda_expr(alpha, tau, [sp.Rational(v) for v in row])) for row in gs[:20]])
    errs.append(float(np.max(np.abs(lam_lib[:20] - lam_exact) / lam_exact)))
    above = bool(np.all(lam_lib >= float(bc_exact ** 2) * (1 - 1e-13)))
    extreme = _extreme_grades_error(Lambda, a_f, t_f)
    passed = (all(sym.values()) and np.max(errs) < 1e-12 and above and bc_exact <= 1     # np.max: NaN propagates
              and extreme <= 1e-13)
    return Outcome(passed, (computed("identities decided zero", sym), computed("BC (exact)", str(bc_exact)),
                            computed("max error of library vs exact", float(np.max(errs)), tolerance=1e-12),
                            computed("grades far from 1 (max/min up to 2^465, offsets 2^-664 .. 2^830): max |library "
                                     "Lambda / mpmath - 1|", extreme, tolerance=1e-13),
                            bound("Lambda(g) >= BC^2 on 200 random g", above)))


G3_EXTREME_GRADES = ((1e-200, 1e-60, 1e-130), (1e-60, 1e-200, 1e-61), (1e250, 1e110, 1e180), (1e-300, 1e-300, 1e-300),
                     (1e300, 1e300, 1e300), (3e-5, 2e102, 7e40))
"""Grades whose squares or inverse squares leave the float range unless Lambda's gauge rescales both extremes."""


def _extreme_grades_error(Lambda, alpha, tau) -> float:
    """max |Lambda(g) / reference - 1| over G3_EXTREME_GRADES, the reference (sum alpha g^-2)(sum tau g^2) in mpmath;
    inf when the library overflows or refuses."""
    import mpmath as mp

    worst = 0.0
    for g in G3_EXTREME_GRADES:
        with mp.workdps(30):
            want = (mp.fsum(mp.mpf(float(a)) / mp.mpf(x) ** 2 for a, x in zip(alpha, g))
                    * mp.fsum(mp.mpf(float(t)) * mp.mpf(x) ** 2 for t, x in zip(tau, g)))
        try:
            got = float(Lambda(np.array(g), alpha, tau))
        except ParameterError:
            return float("inf")
        worst = max(worst, abs(got / float(want) - 1)) if np.isfinite(got) else float("inf")
    return worst


G3_PROFILES = {"geometric (0.6, 0.3), L = 4": grades.geometric_profiles(0.6, 0.3, 4),
               "geometric (0.8, 0.4), L = 6": grades.geometric_profiles(0.8, 0.4, 6),
               "(0.5, 0.3, 0.2) vs (0.1, 0.3, 0.6)": ((0.5, 0.3, 0.2), (0.1, 0.3, 0.6)),
               "Dirichlet(1), d = 8, seed 3": tuple(np.random.default_rng(3).dirichlet(np.ones(8), size=2))}
G3_GAP_BOUND = 1e-28
"""Certified bound on Lambda(g_lib) - BC^2: the gap is second order in the error of g along the optimal ray,
so grades right to a few ulp give ~1e-32; 1e-28 holds only if every ratio g_j/g_k is right to ~1e-14."""
G3_FLOAT_RTOL = 1e-14
"""Float library values (a d-term sum, a power) against the enclosures: a few ulp times d."""


@certificate("G3.interval",
             title="Library g* attains BC^2 <= 1 within a certified bound; Lambda(g*) in the BC^2 enclosure",
             paper="GLLM §4.2, Prop. 7(iii)", method="interval",
             claim="On four concrete profile pairs, the exact Lambda at the library's float optimum g* exceeds BC^2 by "
                   "at most 1e-28 (mpmath iv, 113 bits); the library's Lambda(g*) and BC^2 lie in the BC^2 "
                   "enclosure, its g* in the enclosure of (alpha/tau)^(1/4) (gauge min g = 1), and Lambda at "
                   "perturbed grades is certified above BC^2.")
def g3_interval() -> Outcome:
    Lambda, optimal_grades, bhattacharyya = grades.Lambda, optimal.optimal_grades, grades.bhattacharyya
    rng = np.random.default_rng(33)
    checks, evidence = [], []
    for name, (alpha, tau) in G3_PROFILES.items():
        a, t = grades.profiles(alpha, tau)               # the floats every route below uses, taken exactly
        bc2 = interval.enclose_bc2(a, t)
        g = optimal_grades(a, t)
        gap = interval.enclose_Lambda(g, a, t) - bc2
        g_enc = interval.enclose_optimal_grades(a, t)
        float_in = [near(float(Lambda(g, a, t)), bc2, G3_FLOAT_RTOL),
                    near(bhattacharyya(a, t) ** 2, bc2, G3_FLOAT_RTOL),
                    all(near(x, e, G3_FLOAT_RTOL) for x, e in zip(g, g_enc))]
        above = all(interval.enclose_Lambda(g * np.exp(0.01 * rng.normal(size=g.size)), a, t).a > bc2.b
                    for _ in range(10))
        checks.append(gap.b <= G3_GAP_BOUND and gap.b >= 0 and bc2.b < 1 and all(float_in) and above)
        evidence += [bound(f"{name}: BC^2", str(bc2), formula="mpmath iv enclosure, 113-bit; < 1"),
                     bound(f"{name}: Lambda(g_lib) - BC^2 (exact, enclosed)", [float(gap.a), float(gap.b)],
                           formula=f"upper end <= {G3_GAP_BOUND:g}, upper end >= 0 (Lagrange)"),
                     computed(f"{name}: library Lambda(g*), BC^2, g* inside the enclosures", float_in,
                              tolerance=G3_FLOAT_RTOL),
                     computed(f"{name}: Lambda > BC^2 (certified) at 10 perturbed grades", above)]
    return Outcome(all(checks), tuple(evidence))


@certificate("G4", title="log Lambda convex in q; gradient tau^(u) - alpha^(-u) (2 log(lambda)(tau - alpha) at 0); "
                         "criterion <q, alpha-tau>",
             paper="GLLM §4.2, Prop. 8", method="exact",
             claim="Hess log Lambda = C(alpha^(-u)) + C(tau^(u)) with v^T C(p) v = Var_p(v) >= 0 (convex; the "
                   "admissible cone is a strict sublevel set, convex and open); grad_u log Lambda = tau^(u) - alpha^(-u) "
                   "at every u, which at q = 0 is 2 log(lambda)(tau - alpha) in q; a small step along q lowers Lambda "
                   "below 1 iff <q, alpha - tau> > 0; the library's Phi holds on batches of u and its Lambda_q far "
                   "from q = 0 (lambda^q past the float range).")
def g4() -> Outcome:
    """SymPy identities; the library gradient at u = 0 and at 40 random u against mpmath's numerical derivative of
    the reference Phi (theorylab.certificates.reference.graded, 30 digits), and the library Phi against the reference."""
    import sympy as sp

    from theorylab.symbolic import graded as sg

    Lambda_q, admissibility, gradient_u, log_Lambda_u = (grades.Lambda_q, grades.admissibility, grades.gradient_u,
                                                         grades.log_Lambda_u)

    sym = {"hessian": sg.matrix_is_zero(sg.hessian_residual(3)), "variance": sg.is_zero_rational(sg.variance_residual(3)),
           "gradient_at_0": sg.matrix_is_zero(sg.gradient_at_zero_residual(3))}
    rng = np.random.default_rng(1)
    agree, conv, grad0_err = 0, True, 0.0
    trials = 200
    for _ in range(trials):
        a, t = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
        q1, q2 = rng.normal(size=4), rng.normal(size=4)
        eps = 1e-4
        first_order = Lambda_q(eps * q1, a, t, lam=1.5) < 1.0
        agree += first_order == (admissibility(q1, a, t) > 0)
        f = lambda q: np.log(Lambda_q(q, a, t, lam=1.5))
        conv &= bool(f((q1 + q2) / 2) <= (f(q1) + f(q2)) / 2 + 1e-12)
        grad0_err = float(np.maximum(grad0_err, np.max(np.abs(gradient_u(np.zeros(4), a, t) - (t - a)))))
    grad_err, phi_err, us = 0.0, 0.0, []
    for k in range(24):                                   # random u at scales up to |u| ~ 6; two with |u| = 900
        a, t = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
        u = rng.normal(size=4) * rng.choice([0.1, 1.0, 3.0]) if k < 22 else rng.permutation([900.0, -850.0, 300.0, 0.0])
        grad_err = float(np.maximum(grad_err, np.max(np.abs(gradient_u(u, a, t) - ref.gradient_phi(u, a, t)))))
        phi_err = float(np.maximum(phi_err, abs(float(log_Lambda_u(u, a, t)) - float(ref.phi(u, a, t)))))
        us.append(u)
    # a batch (24, 4) of u in one call, and q far from 0: Lambda_q(q + c) with 1.5^c = e^(+-811) (past the float range)
    batch, batch_ref = np.asarray(log_Lambda_u(np.array(us), a, t)), np.array([float(ref.phi(u, a, t)) for u in us])
    batch_err = float(np.max(np.abs(batch - batch_ref))) if batch.shape == batch_ref.shape else float("inf")
    shift_err, qbatch_err = _far_q_errors(Lambda_q, a, t, rng)
    # profiles read with a few printed digits (sums 1 + 4e-7, 1 - 3e-7) are divided by their sums (PROFILE_SUM_RTOL)
    norm_err = abs(float(log_Lambda_u(us[0], a * (1 + 4e-7), t * (1 - 3e-7))) - float(ref.phi(us[0], a, t)))
    # negative control: the exact decider rejects a residual shifted by a nonzero constant or by a polynomial
    rejects = [not sg.is_zero_rational(sg.variance_residual(3) + c) for c in (1, sp.Rational(-1, 3), sp.Symbol("p0"))]
    passed = all(sym.values()) and agree == trials and conv and grad0_err < 1e-14 and grad_err <= 1e-14 \
        and phi_err <= 1e-14 and batch_err <= 1e-14 and shift_err <= 1e-12 and qbatch_err <= 1e-13 and all(rejects) \
        and norm_err <= 1e-14
    return Outcome(passed, (computed("identities decided zero", sym),
                            computed("first-order criterion agrees with a 1e-4 step", f"{agree}/{trials}"),
                            computed("midpoint convexity of log Lambda on random pairs", conv),
                            computed("max |grad_u Phi(0) - (tau - alpha)|", grad0_err, tolerance=1e-14),
                            computed("max |grad_u Phi(u) - d Phi_ref/du (mpmath, 30 digits)| at 24 random u (2 with |u| = 900: e^u overflows a float)",
                                     grad_err, tolerance=1e-14),
                            computed("max |Phi(u) - Phi_ref(u)| at the same u", phi_err, tolerance=1e-14),
                            computed("the same 24 u as one (24, 4) batch, one profile pair: max |Phi - Phi_ref|",
                                     batch_err, tolerance=1e-14),
                            computed("Lambda_q at q ~ N(0, 1) -+ 2000 and -+ 1e4, lambda = 1.5 (lambda^q overflows): max relative "
                                     "error vs exp(Phi_ref)", shift_err, tolerance=1e-12),
                            computed("Lambda_q on a (6, 4) batch of q with row offsets 0..300: max relative error vs "
                                     "exp(Phi_ref) row by row", qbatch_err, tolerance=1e-13),
                            computed("profiles summing to 1 + 4e-7, 1 - 3e-7: |Phi - Phi_ref(normalised profiles)|",
                                     norm_err, tolerance=1e-14),
                            computed("decider rejects residual + 1, - 1/3, + p0 (a false identity is not decided zero)",
                                     rejects)),
                   arrays={"u": np.array(us)}, seeds={"profiles": 1})


def _far_q_errors(Lambda_q, a, t, rng) -> tuple[float, float]:
    """Lambda_q far from q = 0, lambda = 1.5, against exp(Phi_ref) (mpmath): at q ~ N(0, 1) -+ 2000 and -+ 1e4
    (lambda^q overflows a float), and on a (6, 4) batch of q with row offsets 0..300; max relative errors (inf when
    refused). Draws from ``rng`` (the caller's stream, continued)."""
    import mpmath as mp

    shift_err = 0.0
    for c in (2000.0, -2000.0, 1e4, -1e4):                # 1.5^(1e4/4) = e^1014: any off-centre shift overflows
        q = rng.normal(size=4) + c
        exact = float(mp.exp(ref.phi([2 * x * mp.log(1.5) for x in q], a, t)))
        try:
            shift_err = max(shift_err, abs(float(Lambda_q(q, a, t, lam=1.5)) / exact - 1))
        except ParameterError:                            # refused although only q's spread limits the float range
            shift_err = float("inf")
    # a (6, 4) batch of q, each row with its own offset (centred per row, not per coordinate), vs exp(Phi_ref) per row
    qb = rng.normal(size=(6, 4)) + np.array([[0.0], [30.0], [-45.0], [7.5], [300.0], [-2.0]])
    try:
        lq = np.asarray(Lambda_q(qb, a, t, lam=1.5))
        rows = [float(mp.exp(ref.phi([2 * x * mp.log(1.5) for x in q], a, t))) for q in qb]
        qbatch_err = float(np.max(np.abs(lq / np.array(rows) - 1))) if lq.shape == (6,) else float("inf")
    except ParameterError:
        qbatch_err = float("inf")
    return shift_err, qbatch_err


@certificate("G5", title="Level reduction BC(alpha, tau) = BC(a, s); Cor. 3 closed form; affine level grades admissible",
             paper="GLLM §4.2 Cor. 3, §6.4 Prop. 11, Rem. 9", method="exact",
             claim="Spreading level masses uniformly within levels leaves BC unchanged; BC of geometric profiles "
                   "is nu^((L-1)/2)(1-r^L)/((1-r) sqrt(Z_a Z_s)); every affine increasing level grade has "
                   "sum_l v_l (a_l - s_l) > 0 for 0 < mu, nu < 1.")
def g5() -> Outcome:
    import sympy as sp

    from theorylab.symbolic import graded as sg

    bc_geometric, admissibility, geometric_profiles = (grades.bc_geometric, grades.admissibility,
                                                       grades.geometric_profiles)

    sym = {"level_reduction": sg.is_zero_rational(sg.level_reduction_residual([2, 3, 1, 4])),
           "cor3_L1..8": all(sg.is_zero_rational(sg.cor3_residual(L)) for L in range(1, 9))}
    err, affine_exact, affine_lib = 0.0, True, True
    for nu, mu in [("1/2", "1/5"), ("3/5", "3/10"), ("7/10", "3/10"), ("4/5", "2/5"), ("9/10", "1/10"), ("1/3", "1/4")]:
        nu_r, mu_r = sp.Rational(nu), sp.Rational(mu)
        for L in (2, 4, 7):
            exact = sg.bc_geometric_exact(nu_r, mu_r, L)
            err = float(np.maximum(err, abs(bc_geometric(float(nu_r), float(mu_r), L) - float(sp.N(exact, 30)))))
            a, s = sg.geometric_profiles_exact(nu_r, mu_r, L)
            affine_exact &= sum(l * (x - y) for l, (x, y) in enumerate(zip(a, s))) > 0   # exact rationals
            af, sf = geometric_profiles(float(nu_r), float(mu_r), L)
            affine_lib &= admissibility(0.5 + 1.3 * np.arange(L), af, sf) > 0
    for nu in ("1/2", "3/10"):                            # mu = nu: r = 1, the closed form's limit sum_k 1^k = L
        for L in (1, 4, 7):
            a, s = sg.geometric_profiles_exact(sp.Rational(nu), sp.Rational(nu), L)
            direct = float(sp.N(sum(sp.sqrt(x * y) for x, y in zip(a, s)), 30))           # = 1: the profiles agree
            err = float(np.maximum(err, abs(bc_geometric(float(sp.Rational(nu)), float(sp.Rational(nu)), L) - direct)))
    # full support is refused exactly when the smallest level mass 2^-(L-1) / (2 - 2^-(L-1)) underflows: 2^-1074 is
    # the least subnormal (L = 1074), 2^-1075 rounds to 0 (L = 1075)
    try:
        support = [bool(np.all(geometric_profiles(0.5, 0.5, 1074)[0] > 0))]
    except ParameterError:
        support = [False]
    try:
        geometric_profiles(0.5, 0.5, 1075)
        support.append(False)
    except ParameterError:
        support.append(True)
    passed = all(sym.values()) and err < 1e-13 and bool(affine_exact) and bool(affine_lib) and all(support)
    return Outcome(passed, (computed("identities decided zero", sym),
                            computed("max |bc_geometric - exact BC| (also at mu = nu, the r = 1 limit)", err,
                                     tolerance=1e-13),
                            computed("affine increasing grades admissible (exact, library)",
                                     [bool(affine_exact), bool(affine_lib)]),
                            computed("nu = mu = 1/2: L = 1074 accepted (a_0 = 2^-1074 > 0), L = 1075 refused (a_0 = 2^-1075 "
                                     "rounds to 0)", support)))


@certificate("G9", title="GIT dictionary: Lambda - 1 = F(t)/prod t; moment maps coincide at the optimum",
             paper="GLLM §6.7, Prop. 12", method="exact",
             claim="prod_k t_k (Lambda - 1) is a polynomial F(t) (t_j = g_j^2) and the library's F matches it; at "
                   "u* = 2 log g* the tilted profiles coincide: alpha^(-u*) = tau^(u*) = sqrt(alpha tau)/BC; the "
                   "recession slope along v is max v - min v.")
def g9() -> Outcome:
    import sympy as sp

    from theorylab.symbolic import graded as sg

    boundary_polynomial, tilted, optimal_grades = grades.boundary_polynomial, grades.tilted, optimal.optimal_grades
    log_Lambda_u, recession_slope, moment_maps = grades.log_Lambda_u, optimal.recession_slope, optimal.moment_maps

    x, y = [1, 2, 2], [2, 1, 2]
    alpha = [sp.Rational(v * v, 9) for v in x]
    tau = [sp.Rational(v * v, 9) for v in y]
    t = sg.symbols("t", 3)
    F, is_poly = sg.boundary_polynomial_expr(alpha, tau, t)
    homogeneous = sp.Poly(F, *t).is_homogeneous
    a_f, t_f = np.array([float(v) for v in alpha]), np.array([float(v) for v in tau])
    rng = np.random.default_rng(9)
    pts = rng.uniform(0.3, 3.0, size=(20, 3))
    F_exact = np.array([float(F.subs(dict(zip(t, map(sp.Rational, p))))) for p in pts])
    F_batch = np.asarray(boundary_polynomial(pts, a_f, t_f))      # the 20 points as one (20, 3) batch
    F_err = float(np.max(np.abs(F_exact - np.array([float(boundary_polynomial(p, a_f, t_f)) for p in pts]))))
    F_err = max(F_err, float(np.max(np.abs(F_batch - F_exact))) if F_batch.shape == F_exact.shape else np.inf)
    # moment-map coincidence, exactly: g*^2 ~ x/y, so e^{u*} = g*^2 is rational
    e_u = [sp.Rational(xi, yi) for xi, yi in zip(x, y)]
    bc = sum(sp.sqrt(a * b) for a, b in zip(alpha, tau))
    target = [sp.sqrt(a * b) / bc for a, b in zip(alpha, tau)]
    exact_ok = sg.tilted_exact(alpha, [1 / e for e in e_u]) == target == sg.tilted_exact(tau, e_u)
    u_lib = 2 * np.log(optimal_grades(a_f, t_f))
    target_f = np.array([float(v) for v in target])
    mm_err = max(np.max(np.abs(tilted(a_f, -u_lib) - target_f)), np.max(np.abs(tilted(t_f, u_lib) - target_f)),
                 *(np.max(np.abs(m - target_f)) for m in moment_maps(a_f, t_f, u_lib)))
    v = np.array([0.3, -1.2, 0.7])
    slope = (log_Lambda_u(400 * v, a_f, t_f) - log_Lambda_u(200 * v, a_f, t_f)) / 200
    slope_err = abs(slope - recession_slope(v))
    tilt_err = _huge_tilt_error(tilted, moment_maps)
    passed = bool(is_poly and homogeneous and F_err < 1e-12 and exact_ok and mm_err < 1e-14 and slope_err < 1e-9
                  and tilt_err <= 1e-14)
    return Outcome(passed, (computed("F is a homogeneous polynomial", [bool(is_poly), bool(homogeneous)]),
                            computed("F", str(F)), computed("max |library F - exact F| (pointwise and as one batch)", F_err,
                                                                  tolerance=1e-12),
                            computed("exact coincidence alpha^(-u*) = tau^(u*) = sqrt(alpha tau)/BC", bool(exact_ok)),
                            computed("max |library tilt, moment_maps - exact|", float(mm_err), tolerance=1e-14),
                            computed("|recession slope - (max v - min v)|", float(slope_err), tolerance=1e-9),
                            computed("tilts and moment maps at u spanning 800 .. 2e308 (e^u overflows; beyond "
                                     "1.8e308 the limit puts all mass on the top) vs mpmath / the limit: max abs error",
                                     tilt_err, tolerance=1e-14)))


G9_HUGE_U = ((0.0, 800.0, 799.0), (-700.0, 0.0, 700.0), (-1e308, 1e308, 0.0), (1e308, -1e308, 5e307),
             (-9e307, 9e307, 9e307))
"""Exponents of the tilt whose e^u overflows (span 800, 1400) or whose span overflows (> 1.8e308)."""


def _huge_tilt_error(tilted, moment_maps) -> float:
    """tilted(p, u) and moment_maps at G9_HUGE_U against p_j e^(u_j) / sum_k p_k e^(u_k) in mpmath (exact exponentials
    at any magnitude; the mass of a term 1e308 below the top is 0 to every digit)."""
    import mpmath as mp

    p, q = np.array([0.2, 0.3, 0.5]), np.array([0.6, 0.1, 0.3])
    worst = 0.0
    for u in G9_HUGE_U:
        want = []
        for w, sign in ((p, 1), (q, -1), (p, 1)):
            with mp.workdps(30):
                top = max(sign * mp.mpf(v) for v in u)
                terms = [mp.mpf(float(x)) * mp.exp(sign * mp.mpf(v) - top) for x, v in zip(w, u)]
                total = mp.fsum(terms)
                want.append(np.array([float(x / total) for x in terms]))
        mm_q, mm_p = moment_maps(q, p, np.array(u))
        got = (tilted(p, np.array(u)), mm_q, mm_p)
        worst = max([worst] + [float(np.max(np.abs(g - w))) if np.all(np.isfinite(g)) else float("inf")
                               for g, w in zip(got, want)])
    return worst

"""GLLM clipped grades and their KKT conditions: G6 (Table 3, Prop. 10).

The library's clipped optimum against mpmath interval enclosures of Table 3's rows (rounded to the printed digits),
an active-set enumeration in mpmath (``theorylab.certificates.reference.graded``) and the KKT violation of
``theorylab.certificates.reference.graded_kkt``.
"""
from __future__ import annotations

import numpy as np

from theorylab.certificates.graded._shared import PROP10_PRINTED, TABLE3_PRINTED, near
from theorylab.certificates.reference import graded as ref
from theorylab.certificates.reference import graded_kkt as ref_kkt
from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.certify import graded_interval as interval
from theorylab.certify.interval import rounds_to
from theorylab.graded import grades, optimal


@certificate("G6", title="Table 3 (L = 4, C = 2) to the printed digits; Prop. 10(iii) bound 0.459 vs 0.531",
             paper="GLLM §7.6 Table 3, §6.3 Prop. 10", method="interval",
             claim="For (nu, mu) in {(0.5,0.2), (0.6,0.3), (0.7,0.3), (0.8,0.4)} the interval enclosures of "
                   "Lambda*, Lambda*_C, 1/Lambda*_C and g*_C round to the printed digits, the library's float "
                   "values lie in them, and max(BC^2, C^-2) <= Lambda*_C (0.459 vs 0.531 at (0.6, 0.3)); on these rows "
                   "and on four more programs (optimum inside the box, both clips active, C = 1) the library's clipped "
                   "optimum, its clip sets and a zero KKT residual agree with an active-set enumeration in mpmath, and its bound "
                   "max(BC^2, C^-2) agrees with mpmath and is attained at C = 1.")
def g6() -> Outcome:
    table3_row, clipped_grades, geometric_profiles, clipped_lower_bound = (
        optimal.table3_row, optimal.clipped_grades, grades.geometric_profiles, optimal.clipped_lower_bound)
    checks, evidence = [], []
    for (nu, mu), (lam, lam_c, gain, g) in TABLE3_PRINTED.items():
        row = table3_row(float(nu), float(mu))                        # Table 3's L = 4, C = 2 are the defaults
        opt = clipped_grades(*geometric_profiles(float(nu), float(mu), 4), 2.0)
        enc = interval.enclose_table3_row(nu, mu, 4, "2", opt.kappa, opt.lower, opt.upper)
        if not enc.verified:
            checks.append(False)
            evidence.append(computed(f"({nu},{mu}) enclosure", f"not verified: {enc.reason}"))
            continue
        digits = [rounds_to(enc.BC2, lam), rounds_to(enc.Lambda_star_C, lam_c),
                  rounds_to(enc.token_gain, gain)] + [rounds_to(x, p) for x, p in zip(enc.g_star_C, g)]
        inside = [near(row.Lambda_star, enc.BC2), near(row.Lambda_star_C, enc.Lambda_star_C),
                  near(row.token_gain, enc.token_gain), near(row.bound, enc.bound)] \
            + [near(x, e) for x, e in zip(row.g_star_C, enc.g_star_C)]
        below = bool(enc.bound.b < enc.Lambda_star_C.a)
        if (nu, mu) == ("0.6", "0.3"):
            below &= rounds_to(enc.bound, PROP10_PRINTED[0]) and rounds_to(enc.Lambda_star_C, PROP10_PRINTED[1])
        checks.append(all(digits) and all(inside) and below and row.levels == 4 and row.C == 2.0)
        evidence += [bound(f"({nu},{mu}) Lambda*_C", str(enc.Lambda_star_C),
                           formula="mpmath iv enclosure (113-bit) via the certified KKT root bracket"),
                     bound(f"({nu},{mu}) Lambda*_C enclosure width", float(enc.Lambda_star_C.delta)),
                     computed(f"({nu},{mu}) printed digits / float inside / bound < true",
                              [all(digits), all(inside), below])]
    programs_ok, rows = _programs_vs_reference(clipped_grades, geometric_profiles, clipped_lower_bound)
    evidence.append(computed("clipped optimum vs reference active-set enumeration (mpmath, 30 digits): [program, "
                             "max |dg| or |dLambda|/Lambda, clip sets equal, library KKT residual, its distance to the 30-digit "
                             "violation at the library's g (<= 1e-15), |bound / "
                             "max(BC^2, C^-2) - 1| (<= 1e-14), Lambda*_C / bound - 1 (>= 0, = 0 at C = 1)]", rows,
                             tolerance=G6_RTOL))
    sweep_ok, sweep = _kkt_sweep(clipped_grades)
    evidence.append(computed(f"KKT residual over {G6_SWEEP} random programs (integer weights 1..9, d = 2..4, C in "
                             "{1.1, 1.2, 1.5, 2}): [min (>= 0: a max of |violations|), max]", sweep,
                             tolerance=G6_RTOL))
    return Outcome(all(checks) and programs_ok and sweep_ok, tuple(evidence))


G6_SWEEP = 300
"""Random clipped programs of G6's KKT sweep (a fixed stream): in ~2 % of them every nonzero rounding-level violation
is negative (one free coordinate whose gradient rounds below 0), so a signed maximum would go below 0."""


def _kkt_sweep(clipped_grades) -> tuple[bool, list]:
    """The library's KKT residual on G6_SWEEP random programs: a maximum of absolute violations, so >= 0, and at the
    rounding level (<= G6_RTOL) at the optimum."""
    rng = np.random.default_rng(20261201)
    res = []
    for _ in range(G6_SWEEP):
        d = int(rng.integers(2, 5))
        a, t = rng.integers(1, 10, d), rng.integers(1, 10, d)
        res.append(clipped_grades(a / a.sum(), t / t.sum(), float(rng.choice([1.1, 1.2, 1.5, 2.0]))).kkt_residual)
    lo, hi = float(np.min(res)), float(np.max(res))
    return bool(lo >= 0 and hi <= G6_RTOL), [lo, hi]


G6_PROGRAMS = {"near-uniform, optimum inside the box": ((0.3, 0.3, 0.4), (0.28, 0.34, 0.38), 1.1),
               "flat alpha, both clips active": ((0.25, 0.25, 0.25, 0.25), (0.1, 0.2, 0.3, 0.4), 1.2),
               "reversed profiles, C = 2": ((0.6, 0.3, 0.1), (0.1, 0.3, 0.6), 2.0),
               "C = 1 (the box is a point)": ((0.6, 0.3, 0.1), (0.1, 0.3, 0.6), 1.0),
               "tie: the unclipped optimum spans [1, C] exactly (alpha_1 tau_0 / (alpha_0 tau_1) = C^4 = 16)":
                   ((0.2, 0.8), (0.8, 0.2), 2.0),
               "tie, dyadic, 3 coordinates (g* = (1, sqrt 2, 2) = the box's ends and a free middle)":
                   ((0.125, 0.375, 0.5), (0.5, 0.375, 0.125), 2.0),
               "alpha_0 << tau_0 (rho_min = -2.25: KKT root 0.77 > U + rho_min + 1)": ((0.01, 0.09, 0.9),
                                                                                     (0.9, 0.05, 0.05), 2.0)}
"""Clipped programs beyond Table 3: the unclipped optimum fits the box (the gauge picks the representative), the
KKT root close to the ends of the solver's bracket (far above U + min rho + 1), a degenerate box, and exact ties
where the unclipped optimum touches both ends (the float u of the top coordinate may sit an ulp below 2 log C: it is
at the clip)."""
G6_RTOL = 1e-12
"""Float library optimum against the 30-digit reference (observed ~1e-14)."""
G6_KKT_ATOL = 1e-15
"""The library's KKT residual against the 30-digit violation at the same float grades: gradient entries are O(1) sums
rounded in float64 (observed <= 1.4e-16)."""


def _programs_vs_reference(clipped_grades, geometric_profiles, clipped_lower_bound) -> tuple[bool, list]:
    """The library's clipped optimum (g, Lambda, clip sets, KKT residual) against the active-set enumeration of
    theorylab.certificates.reference.graded on G6_PROGRAMS and the Table 3 rows; the library's Prop. 10(iii) bound against
    max((sum sqrt(alpha tau))^2, C^-2) in mpmath, below the reference optimum and attained where the box is a point."""
    import mpmath as mp

    cases = dict(G6_PROGRAMS)
    cases.update({f"Table 3 ({nu}, {mu})": (*geometric_profiles(float(nu), float(mu), 4), 2.0)
                  for nu, mu in TABLE3_PRINTED})
    ok, rows = True, []
    for name, (alpha, tau, C) in cases.items():
        a, t = np.asarray(alpha, float), np.asarray(tau, float)
        a, t = a / a.sum(), t / t.sum()
        lib, want = clipped_grades(a, t, C), ref.clipped_optimum(a, t, C)
        err = max(float(np.max(np.abs(lib.g - want["g"]))), abs(lib.Lambda / want["Lambda"] - 1))
        sets = set(lib.lower.tolist()) == want["lower"] and set(lib.upper.tolist()) == want["upper"]
        with mp.workdps(30):
            bound_ref = max(mp.fsum(mp.sqrt(mp.mpf(float(x)) * mp.mpf(float(y))) for x, y in zip(a, t)) ** 2,
                            mp.mpf(float(C)) ** -2)
        bound_lib = clipped_lower_bound(a, t, C)
        bound_err = abs(bound_lib / float(bound_ref) - 1)
        gap = want["Lambda"] / bound_lib - 1                   # >= 0; 0 (attained) when C = 1: Lambda*_C = 1 = C^-2
        # the library's KKT residual is the max violation at its own float g (a max of |.|: >= 0), to rounding
        kkt_err = abs(lib.kkt_residual - float(ref_kkt.kkt_violation(lib.g, a, t, want["lower"], want["upper"])))
        ok &= bool(err <= G6_RTOL and sets and 0 <= lib.kkt_residual <= G6_RTOL and kkt_err <= G6_KKT_ATOL
                   and bound_err <= 1e-14 and gap >= -G6_RTOL and (C != 1.0 or abs(gap) <= G6_RTOL))
        rows.append([name, err, bool(sets), float(lib.kkt_residual), kkt_err, bound_err, gap])
    return ok, rows

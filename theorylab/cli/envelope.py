"""``theorylab envelope``: caps, minimax envelope, m_sat and the window W (GLLM §4.3)."""
from __future__ import annotations

import argparse

from theorylab.cli._output import add_format_option, emit

HELP = """\
Minimax envelope of the uniform and graded classes in the level-stratified Gaussian design
of Lem. 3-4 (GLLM §4.3). Geometric level profiles (nu, mu) on L equal levels of a width-d
design, total data variance 1, unit-norm target with energy profile a; uniform class
||w|| <= 1, graded class ||G^-1 w|| <= (sum_l a_l g_l^-2)^(1/2) with level grades g (--g, or
the clipped optimum g*_C at --clip). One row per (m, class): eps2 = sigma_xi^2/m, the caps
cap_l = sigma_l^2 B^2 / D_l^2, envelope = sum_l min(cap_l, d_l eps2), the levels S worth
estimating, whether the upper bound (3 x envelope, needs m >= 2 sum_S d_l + 4) applies.
Summary: m_sat = d^2 sigma_xi^2 / (L^2 s_0), W = [4, m_sat/2], cap ratio g_0^2 sum a_k g_k^-2,
Lambda(g), the grade condition and Thm. 4.1's factors (1 - r, 1/(1 - mu)), r = sqrt(mu/nu);
hence 0 < mu < nu < 1 is required."""


def add_model_options(p) -> None:
    """Options shared with ``graded-sim``: the stratified model."""
    p.add_argument("--nu", type=float, default=0.6, help="target concentration nu, 0 < mu < nu < 1 (default 0.6)")
    p.add_argument("--mu", type=float, default=0.3, help="data decay mu, 0 < mu < nu < 1 (default 0.3)")
    p.add_argument("--levels", type=float, default=4, help="number of levels L (default 4)")
    p.add_argument("--d", type=float, default=64, help="design width d, a multiple of L (default 64)")
    p.add_argument("--sigma-xi", type=float, default=1.0, help="noise standard deviation (default 1)")
    p.add_argument("--clip", type=float, default=2.0, help="clip C for the default grades g*_C (default 2)")
    p.add_argument("--g", type=float, nargs="+", metavar="G", help="level grades (default: g*_C at --clip)")


def build_model(args):
    """The model of the options, refused up front unless 0 < mu < nu < 1 (Thm. 4.1's factors are reported)."""
    from theorylab.errors import positive_int
    from theorylab.graded.envelope import stratified_model
    from theorylab.graded.grades import geometric_parameters

    geometric_parameters(args.nu, args.mu, ordered=True)
    return stratified_model(args.nu, args.mu, positive_int("levels", args.levels), positive_int("d", args.d),
                            args.sigma_xi, args.g, args.clip)


def model_summary(model) -> dict:
    from theorylab.graded.envelope import grade_condition, theorem41_factors

    low, high = theorem41_factors(model.nu, model.mu)
    return {"m_sat": model.m_sat, "window": list(model.window) if model.window else None,
            "g": model.g.tolist(), "cap_ratio": model.cap_ratio, "Lambda": model.Lambda,
            "cap_ratio_over_Lambda": model.cap_ratio / model.Lambda,
            "thm41_factor_low": float(low), "thm41_factor_high": float(high),
            "grade_condition": grade_condition(model.g, model.nu, model.mu)}


def register(sub) -> None:
    p = sub.add_parser("envelope", help="caps, minimax envelope, m_sat and window W (GLLM Lem. 3-4)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_model_options(p)
    p.add_argument("--m", type=float, nargs="+", metavar="M",
                   help="sample sizes (default: 4, m_sat/2, m_sat, 4 m_sat)")
    add_format_option(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    import numpy as np

    from theorylab.errors import positive_int
    from theorylab.graded import envelope as env

    model = build_model(args)
    ms = [positive_int("m", m) for m in args.m] if args.m else \
        sorted({4, max(4, int(model.m_sat // 2)), int(np.ceil(model.m_sat)), int(np.ceil(4 * model.m_sat))})
    rows = []
    for m in ms:
        for cls in (model.uniform, model.graded):
            S = env.worth_estimating(cls.caps, cls.dims, model.sigma_xi, m)
            W = model.window
            rows.append({"m": m, "in_window": bool(W and W[0] <= m <= W[1]), "class": cls.name, "B": cls.B,
                         "eps2": float(env.eps2(model.sigma_xi, m)),
                         "caps": cls.caps.tolist() if args.format == "json" else
                         " ".join(f"{c:.4g}" for c in cls.caps),
                         "envelope": float(env.envelope(cls.caps, cls.dims, model.sigma_xi, m)),
                         "S_levels": "".join(str(l) for l in np.flatnonzero(S)) or "-",
                         "upper_applies": bool(env.upper_regime(cls.caps, cls.dims, model.sigma_xi, m))})
    emit(rows, args.format, summary=model_summary(model))
    return 0

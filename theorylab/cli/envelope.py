"""``theorylab envelope``: caps, minimax envelope, m_sat and the window W (GLLM §4.3)."""
from __future__ import annotations

import argparse

from theorylab.cli._args import add_resource_options, check_cost, integer, real
from theorylab.cli._output import add_format_option, emit, rows_cost

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
    p.add_argument("--levels", type=integer(1), default=4, help="number of levels L, an integer >= 1 (default 4)")
    p.add_argument("--d", type=integer(1), default=64,
                   help="design width d, an integer multiple of L (default 64)")
    p.add_argument("--sigma-xi", type=real(1e-100, 1e100), default=1.0,
                   help="noise standard deviation, in [1e-100, 1e100] (so that sigma_xi^2 / m and m_sat are "
                        "normal floats; default 1)")
    p.add_argument("--clip", type=float, default=None,
                   help="clip C for the default grades g*_C (default 2; not with --g)")
    p.add_argument("--g", type=float, nargs="+", metavar="G", help="level grades (default: g*_C at --clip)")
    add_resource_options(p)


DEFAULT_CLIP = 2.0


def build_model(args):
    """The model of the options, refused up front unless 0 < mu < nu < 1 (Thm. 4.1's factors are reported)."""
    from theorylab.errors import ParameterError
    from theorylab.graded.envelope import stratified_model, stratified_model_cost
    from theorylab.graded.grades import geometric_parameters

    if args.g is not None and args.clip is not None:
        raise ParameterError("--clip is not read with --g (it sets the default grades g*_C)")
    geometric_parameters(args.nu, args.mu, ordered=True)
    check_cost(args, stratified_model_cost(args.levels))
    return stratified_model(args.nu, args.mu, args.levels, args.d, args.sigma_xi, args.g,
                            DEFAULT_CLIP if args.clip is None else args.clip)


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
    p.add_argument("--m", type=integer(1), nargs="+", metavar="M",
                   help="sample sizes, integers >= 1 (default: 4, m_sat/2, m_sat, 4 m_sat)")
    add_format_option(p)
    p.set_defaults(handler=run)


LEVEL_SECONDS = 2e-6
"""Seconds per level and row for the envelope, caps and levels worth estimating (measured)."""


def run(args) -> int:
    import numpy as np

    from theorylab.graded import envelope as env
    from theorylab.resources import Cost, bytes_of

    model = build_model(args)
    ms = args.m if args.m else \
        sorted({4, max(4, int(model.m_sat // 2)), int(np.ceil(model.m_sat)), int(np.ceil(4 * model.m_sat))})
    n_rows = 2 * len(ms)          # each row holds the L caps (about 64 bytes each as text or JSON)
    check_cost(args, Cost(bytes_of(n_rows, model.levels, itemsize=64), n_rows * model.levels * LEVEL_SECONDS,
                          f"{n_rows} rows of {model.levels} levels").then(rows_cost(n_rows)))
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
                         "S_levels": np.flatnonzero(S).tolist() if args.format == "json" else
                         "".join(str(l) for l in np.flatnonzero(S)) or "-",
                         "upper_applies": bool(env.upper_regime(cls.caps, cls.dims, model.sigma_xi, m))})
    emit(rows, args.format, summary=model_summary(model))
    return 0

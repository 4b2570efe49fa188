"""``theorylab grades``: grade selection for graded linear models (GLLM §6-7, Table 3)."""
from __future__ import annotations

import argparse

from theorylab.cli._args import add_resource_options, check_cost, integer, path, reads_file
from theorylab.cli._output import add_format_option, emit, rows_cost

HELP = """\
Grade selection of the GLLM paper (§6.1-6.4, §7.5-7.6).

Geometric level profiles (Cor. 3): --nu NU --mu MU --levels L --clip C prints one row of
Table 3: BC = BC(a, s), Lambda_star = BC^2 (closed form), Lambda_star_C (the L-variable
program of Prop. 11 on the box g in [1, C]^L, Prop. 10), token_gain = 1/Lambda_star_C,
g_star_C (gauge g_0 = 1) and bound = max(BC^2, C^-2) (Prop. 10(iii)). --table3 prints the
paper's four rows (L = 4, C = 2).

User profiles: --alpha SRC --tau SRC runs the selection procedure: per-coordinate optimal
grades g* ~ (alpha/tau)^(1/4) and clipped grades g*_C, with BC, Lambda*, Lambda*_C and the
bound; --q SRC adds the admissibility <q, alpha - tau> (Eq. 15) and Lambda(q) at base --lam.
SRC is a file (.json list, or numbers separated by commas/whitespace) or inline numbers
such as 0.2,0.3,0.5. Profiles must be positive and sum to 1. --dims d_0 ... d_(L-1) solves
the clipped program on the level masses instead (Prop. 11; profiles constant on levels).
Gauge: min g = 1. Geometric profiles need 0 < nu < 1 and 0 < mu < 1 (Cor. 3). An option
the chosen mode does not read (--levels with --alpha/--tau or --table3, --clip with
--table3, --q/--dims/--lam without --alpha/--tau, --lam without --q) is an error."""


def register(sub) -> None:
    p = sub.add_parser("grades", help="optimal and clipped grades, Lambda, BC (GLLM Table 3)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nu", type=float, help="target concentration nu of the geometric level profiles (0 < nu < 1)")
    p.add_argument("--mu", type=float, help="data decay mu of the geometric level profiles (0 < mu < 1)")
    p.add_argument("--levels", type=integer(1), default=None,
                   help="number of levels L with --nu/--mu, an integer >= 1 (default 4)")
    p.add_argument("--clip", type=float, default=None,
                   help="grade clip C >= 1: g in [1, C] with --nu/--mu or --alpha/--tau (default 2)")
    p.add_argument("--table3", action="store_true", help="print the four rows of Table 3 (L = 4, C = 2)")
    for option, what in (("--alpha", "target-energy profile alpha"), ("--tau", "data-variance profile tau"),
                         ("--q", "candidate grades q to certify")):
        reads_file(p.add_argument(option, metavar="SRC", type=path, help=f"{what} (file or inline numbers)"),
                   "numbers", inline=True)
    p.add_argument("--dims", type=integer(1), nargs="+", metavar="D",
                   help="level sizes d_l: solve the L-variable level program (Prop. 11; profiles must be "
                        "constant on levels)")
    p.add_argument("--lam", type=float, default=None,
                   help="base lambda > 1 for Lambda(q) of the candidate, with --q (default e)")
    add_format_option(p)
    add_resource_options(p)
    p.set_defaults(handler=run)


def _fmt_grades(g, fmt):
    return list(g) if fmt == "json" else " ".join(f"{x:.4g}" for x in g)


def table_row(nu, mu, levels, clip, fmt="json") -> dict:
    """One Table 3 row as a dict with the documented JSON keys."""
    from theorylab.graded.optimal import table3_row

    r = table3_row(nu, mu, levels, clip)
    return {"nu": r.nu, "mu": r.mu, "levels": r.levels, "C": r.C, "BC": r.BC, "Lambda_star": r.Lambda_star,
            "Lambda_star_C": r.Lambda_star_C, "token_gain": r.token_gain,
            "g_star_C": _fmt_grades(r.g_star_C, fmt), "bound": r.bound}


DEFAULT_LEVELS, DEFAULT_CLIP, DEFAULT_LAM = 4, 2.0, 2.718281828459045

# options that only one mode reads: giving them in another mode is an error, never silently ignored
MODE_OPTIONS = {"table3": (), "level": ("levels", "clip"), "profile": ("clip", "q", "dims", "lam")}


def run(args) -> int:
    from theorylab.errors import ParameterError
    from theorylab.graded import optimal

    profile_mode = args.alpha is not None or args.tau is not None
    level_mode = args.nu is not None or args.mu is not None
    if profile_mode + level_mode + args.table3 != 1:
        raise ParameterError("give exactly one of: --nu and --mu, --table3, or --alpha and --tau")
    mode = "table3" if args.table3 else "level" if level_mode else "profile"
    unused = [f"--{k}" for k in ("levels", "clip", "q", "dims", "lam")
              if getattr(args, k) is not None and k not in MODE_OPTIONS[mode]]
    if unused:
        what = {"table3": "--table3 (Table 3 is L = 4, C = 2)", "level": "--nu/--mu",
                "profile": "--alpha/--tau"}[mode]
        raise ParameterError(f"{', '.join(unused)} cannot be used with {what}")
    if args.lam is not None and args.q is None:
        raise ParameterError("--lam is the base of Lambda(q): it needs --q")
    args.levels = DEFAULT_LEVELS if args.levels is None else args.levels
    args.clip = DEFAULT_CLIP if args.clip is None else args.clip
    args.lam = DEFAULT_LAM if args.lam is None else args.lam
    if args.table3:
        rows = [table_row(nu, mu, 4, 2.0, args.format) for nu, mu in optimal.TABLE3_PARAMETERS]
        emit(rows, args.format)
        return 0
    if level_mode:
        if args.nu is None or args.mu is None:
            raise ParameterError("--nu and --mu must be given together")
        check_cost(args, optimal.clipped_grades_cost(args.levels))
        emit([table_row(args.nu, args.mu, args.levels, args.clip, args.format)], args.format)
        return 0
    if args.alpha is None or args.tau is None:
        raise ParameterError("--alpha and --tau must be given together")
    return _run_profiles(args)


def _run_profiles(args) -> int:
    import numpy as np

    from theorylab.graded import grades, optimal
    from theorylab.graded.io import read_vector, read_vector_cost

    for source in (args.alpha, args.tau, args.q):
        if source is not None:
            check_cost(args, read_vector_cost(source))
    alpha, tau = grades.profiles(read_vector("--alpha", args.alpha), read_vector("--tau", args.tau))
    check_cost(args, optimal.clipped_grades_cost(alpha.size).then(rows_cost(alpha.size)))
    if args.dims:
        dims = args.dims
        opt, a, s = optimal.level_program(alpha, tau, dims, args.clip)
        opt_g = np.repeat(opt.g, dims)
    else:
        opt = optimal.clipped_grades(alpha, tau, args.clip)
        opt_g = opt.g
    gstar = optimal.optimal_grades(alpha, tau)
    bc = grades.bhattacharyya(alpha, tau)
    summary = {"BC": bc, "Lambda_star": grades.Lambda_star(alpha, tau), "Lambda_star_C": opt.Lambda, "token_gain": 1.0 / opt.Lambda,
               "bound": optimal.clipped_lower_bound(alpha, tau, args.clip), "C": float(args.clip),
               "kkt_residual": opt.kkt_residual}
    if args.dims:
        summary |= {"level_a": a.tolist(), "level_s": s.tolist(), "level_g_star_C": opt.g.tolist()}
    q = None
    if args.q is not None:
        q = read_vector("--q", args.q)
        summary["admissibility"] = grades.admissibility(q, alpha, tau)
        summary["admissible_first_order"] = summary["admissibility"] > 0
        summary["Lambda_q"] = float(grades.Lambda_q(q, alpha, tau, args.lam))
        summary["lam"] = float(args.lam)
    rows = [{"j": j, "alpha": float(alpha[j]), "tau": float(tau[j]), "g_star": float(gstar[j]),
             "g_star_C": float(opt_g[j]), **({"q": float(q[j])} if q is not None else {})}
            for j in range(alpha.size)]
    emit(rows, args.format, summary={k: (bool(v) if isinstance(v, np.bool_) else v) for k, v in summary.items()})
    return 0

"""``theorylab graded-sim``: Monte Carlo risk over graded and uniform classes vs the envelope."""
from __future__ import annotations

import argparse

from theorylab.cli._output import add_format_option, emit
from theorylab.cli.envelope import add_model_options, build_model

HELP = """\
Monte Carlo of the excess risk of level-selective least squares (the estimator of Lem. 3(ii):
least squares on the levels worth estimating, zero elsewhere) in the level-stratified
Gaussian design, for the uniform and graded classes (model options as in `theorylab
envelope`), at the worst of two boundary targets (profile, least-favourable), across sample
sizes inside and outside the window W. Each row: MC risk and standard error, the exact risk,
the envelope M, risk/M, whether the upper bound 3M applies and holds (exact risk, and MC
mean - 3 se), a computed lower bound on the minimax risk (two-point Bayes risk) and whether
the worst target's risk sits above it, and the implied lower constant LB/M. Ratio rows: the
worst-of-family risk ratio graded/uniform beside the cap ratio and Lambda(g). Fixed seed,
common random numbers across classes; a progress bar appears after 2 s. CSV: the two
tables as one, with a first column 'table' (risk | ratio)."""


def register(sub) -> None:
    p = sub.add_parser("graded-sim", help="Monte Carlo risk vs minimax envelope (GLLM Lem. 3-4, Thm. 4.1)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_model_options(p)
    p.add_argument("--m", type=float, nargs="+", metavar="M",
                   help="sample sizes (default: --points geometric sizes from 4 to 8 m_sat)")
    p.add_argument("--points", type=float, default=10, help="grid size when --m is not given (default 10)")
    p.add_argument("--reps", type=float, default=200, help="Monte Carlo repetitions per m (default 200)")
    p.add_argument("--seed", type=float, default=0, help="random seed (default 0)")
    p.add_argument("--plot", metavar="PNG", help="write the simulated-vs-envelope figure here (.png in an existing folder)")
    p.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_format_option(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    from theorylab._io import check_output_path
    from theorylab.errors import positive_int
    from theorylab.sim.graded_risk import default_m_grid, simulate

    if args.plot is not None:
        check_output_path("--plot", args.plot, ".png")
    model = build_model(args)
    ms = [positive_int("m", m) for m in args.m] if args.m else default_m_grid(model, positive_int("points", args.points))
    result = simulate(model, ms, positive_int("reps", args.reps, low=2), positive_int("seed", args.seed, low=0),
                      progress=not args.no_progress)
    if args.plot:
        from theorylab.plots.graded import risk_figure

        risk_figure(result, model, args.plot)
    if args.format == "json":
        emit(result.rows, "json", summary={"ratios": result.ratio_rows, **result.summary})
    elif args.format == "csv":
        tagged = [{"table": "risk", **r} for r in result.rows] + [{"table": "ratio", **r} for r in result.ratio_rows]
        emit(tagged, "csv", columns=list(dict.fromkeys(k for r in tagged for k in r)))
    else:
        emit(result.rows, "table")
        print()
        emit(result.ratio_rows, "table", summary=result.summary)
    return 0

"""``theorylab graded-sim``: Monte Carlo risk over graded and uniform classes vs the envelope."""
from __future__ import annotations

import argparse

from theorylab.cli._args import SEED_HELP, add_plot_option, add_progress_option, check_cost, integer, seed, show_progress
from theorylab.cli._output import add_format_option, emit, rows_cost
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
    p.add_argument("--m", type=integer(1), nargs="+", metavar="M",
                   help="sample sizes, integers >= 1 (default: --points geometric sizes from 4 to 8 m_sat)")
    p.add_argument("--points", type=integer(2), default=None,
                   help="grid size when --m is not given, an integer >= 2 (default 10)")
    p.add_argument("--reps", type=integer(2), default=200,
                   help="Monte Carlo repetitions per m, an integer >= 2 (default 200)")
    p.add_argument("--seed", type=seed, default=0, help=f"random seed, {SEED_HELP} (default 0)")
    add_plot_option(p, "the simulated-vs-envelope figure")
    add_progress_option(p)
    add_format_option(p)
    p.set_defaults(handler=run)


DEFAULT_POINTS = 10


def run(args) -> int:
    from theorylab.plots import check_figure_path
    from theorylab.errors import ParameterError
    from theorylab.graded.risk_sim import default_m_grid, default_m_grid_cost, simulate, simulate_cost

    if args.plot is not None:
        check_figure_path("--plot", args.plot)
    if args.m and args.points is not None:
        raise ParameterError("--points is not read with --m (it sizes the default grid)")
    model = build_model(args)
    if args.m:
        ms = args.m
    else:
        points = DEFAULT_POINTS if args.points is None else args.points
        check_cost(args, default_m_grid_cost(points))
        ms = default_m_grid(model, points)
    check_cost(args, simulate_cost(model, ms, args.reps).then(rows_cost(5 * len(ms))))
    result = simulate(model, ms, args.reps, args.seed, progress=show_progress(args))
    if args.plot:
        from theorylab.plots import write_figure
        from theorylab.plots.graded import risk_figure

        write_figure(args.plot, risk_figure, result, model, name="--plot")
    if args.format == "json":
        emit(level_lists(result.rows, model), "json", summary={"ratios": result.ratio_rows, **result.summary})
    elif args.format == "csv":
        tagged = [{"table": "risk", **r} for r in result.rows] + [{"table": "ratio", **r} for r in result.ratio_rows]
        emit(tagged, "csv", columns=list(dict.fromkeys(k for r in tagged for k in r)))
    else:
        emit(result.rows, "table")
        print()
        emit(result.ratio_rows, "table", summary=result.summary)
    return 0


def level_lists(rows: list[dict], model) -> list[dict]:
    """The rows with ``S_levels`` as the list of the levels the estimator fits (JSON), not the table's
    digits ("01", "-" for none), which cannot be read back once a level index has two digits."""
    import numpy as np

    from theorylab.graded.risk_sim import estimable_levels

    classes = {cls.name: cls for cls in (model.uniform, model.graded)}
    return [{**r, "S_levels": np.flatnonzero(estimable_levels(classes[r["class"]], model.sigma_xi, r["m"])).tolist()}
            for r in rows]

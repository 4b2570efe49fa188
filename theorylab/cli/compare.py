"""``theorylab compare``: predicted vs simulated gamma_c over a grid (PSA two-branch law vs Monte Carlo)."""
from __future__ import annotations

import argparse

from theorylab.cli._args import (SEED_HELP, SEED_HIGH, add_plot_option, add_progress_option, add_resource_options,
                                 check_cost, integer, path, reads_file, seed, show_progress)
from theorylab.cli._output import add_format_option, emit, rows_cost

HELP = """\
Per grid point (dk, T): the law's gamma_c (two-branch law for t4-only, annealed root
otherwise), the annealed root, the exact reduced-model coupling (quadrature) and the
Monte Carlo coupling with its 95 % batch-means confidence interval, both read on
--observable (theorylab.psa.observables; default mass-half, the root of mean target
mass 1/2; entropy-peak, inflection, half-plateau, distractor-entropy-peak), with
relative errors |law - MC|/MC and |exact - MC|/MC. Across the grid: Pearson r
and median relative error of law vs MC (JSON keys rows, pearson_r, median_rel_err)
and of exact vs MC. --grid paper is nine mean-field points, dk in {64, 128, 256} x
T in {64, 512, 2048} (all dk >= 8L); --grid FILE reads a CSV with columns dk,T or a
JSON list of [dk, T]. Point i uses seed + i (so seed + number of points - 1 must stay
below 2^64). --c is read by the t4-only law only."""


def register(sub) -> None:
    from theorylab.psa.scoremodel import VARIANTS
    p = sub.add_parser("compare", help="predicted vs simulated gamma_c over a grid (PSA)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variant", default="t4-only", choices=VARIANTS, help="score-model variant (default t4-only)")
    reads_file(p.add_argument("--grid", default="paper", type=path,
                              help="'paper' (default) or a CSV/JSON file of (dk, T) points"), "grid", inline=True)
    p.add_argument("--samples", type=integer(1), default=20000,
                   help="Monte Carlo samples per point, an integer >= 1 (default 20000)")
    p.add_argument("--seed", type=seed, default=0, help=f"base seed, {SEED_HELP} (default 0)")
    p.add_argument("--c", type=float, default=None,
                   help="condensation constant of the t4-only law (default: the library's)")
    from theorylab.psa.observables import OBSERVABLE_NAMES
    p.add_argument("--observable", choices=OBSERVABLE_NAMES, default="mass-half",
                   help="transition observable of the exact and MC couplings (default mass-half)")
    add_plot_option(p, "the predicted-vs-simulated figure")
    add_progress_option(p)
    add_format_option(p)
    add_resource_options(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    from theorylab.plots import check_figure_path
    from theorylab.psa.compare import PAPER_GRID, compare_grid, compare_grid_cost, read_grid, read_grid_cost
    from theorylab.errors import ParameterError, real_array

    if args.plot is not None:
        check_figure_path("--plot", args.plot)
    if args.c is not None:
        if args.variant != "t4-only":
            raise ParameterError(f"--c is read by the t4-only law only (got --variant {args.variant})")
        real_array("--c", args.c, low=0, low_inclusive=False)
    if args.grid != "paper":
        check_cost(args, read_grid_cost(args.grid))
    points = PAPER_GRID if args.grid == "paper" else read_grid(args.grid, "--grid")
    if args.seed + len(points) - 1 > SEED_HIGH:
        raise ParameterError(f"--seed must be at most 2^64 - {len(points)} for {len(points)} grid points "
                             f"(point i uses seed + i; got {args.seed})")
    check_cost(args, compare_grid_cost(points, args.samples, args.observable).then(rows_cost(len(points))))
    result = compare_grid(args.variant, points, samples=args.samples, seed=args.seed, c=args.c,
                          observable=args.observable, progress=None if show_progress(args) else False)
    if args.plot:
        from theorylab.plots import write_figure
        from theorylab.plots.sweep import predicted_vs_simulated

        write_figure(args.plot, predicted_vs_simulated, [{**r, "variant": result.variant} for r in result.rows],
                     ("law_gamma_c", "exact_gamma_c"),
                     stats={"law vs MC: Pearson r": result.pearson_r,
                            "law vs MC: median rel. err.": result.median_rel_err},
                     title=f"PSA reduced model, {result.variant}: prediction vs simulation", name="--plot")
    emit(list(result.rows), args.format, summary=result.summary(),
         columns=["dk", "T", "branch", "law_gamma_c", "annealed_gamma_c", "exact_gamma_c", "mc_gamma_c",
                  "mc_ci_low", "mc_ci_high", "rel_err_law", "rel_err_exact"])
    return 0

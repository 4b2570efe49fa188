"""``theorylab plot``: the standard figures of a sweep store (PNG, PDF or SVG by the suffix of --out)."""
from __future__ import annotations

import argparse

from theorylab.cli._args import add_out_option, add_resource_options, reads_file, text
from theorylab.cli._output import add_format_option, emit

KINDS = ("compare", "gamma-c", "mass")
HELP = """\
Standard figures of a sweep store (docs/sweeps.md):

  compare   predicted vs simulated gamma_c with the identity line; prints n, Pearson r,
            median and max relative error (--predicted law|exact, --simulated mc|exact)
  gamma-c   gamma_c along dk or T (--axis), law / exact / Monte Carlo
  mass      mean target mass M(g) of a mass sweep, exact and Monte Carlo +- 2 se"""


def register(sub) -> None:
    p = sub.add_parser("plot", help="standard figures of a sweep store (PNG, PDF or SVG)", description=HELP,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", choices=KINDS, help="which figure")
    reads_file(p.add_argument("--store", required=True, help="SQLite sweep store"), "store")
    add_out_option(p, "the figure to this file (.png, .pdf or .svg, by its suffix) in an existing folder (atomically)", required=True)
    p.add_argument("--variant", nargs="+", type=text, help="only these variants")
    p.add_argument("--predicted", choices=("law", "exact"), help="compare only: predicted route (default law)")
    p.add_argument("--simulated", choices=("mc", "exact"), help="compare only: simulated route (default mc)")
    p.add_argument("--axis", choices=("dk", "T"), help="gamma-c only: horizontal axis (default dk)")
    p.add_argument("--title", default=None, type=text,
                   help="figure title, at most 1000 characters of matplotlib text (default: the sweep name)")
    add_format_option(p)
    add_resource_options(p)
    p.set_defaults(handler=run)


OPTIONS = {"predicted": ("compare", "law"), "simulated": ("compare", "mc"), "axis": ("gamma-c", "dk")}
"""Options read by one figure only: option -> (figure, default)."""


def run(args) -> int:
    from theorylab.plots import check_figure_path, write_figure
    from theorylab.errors import ParameterError, choice
    from theorylab.plots import sweep as plots
    from theorylab import sweep
    from theorylab.psa.sweep import ROUTES, compare_rows

    for name, (kind, default) in OPTIONS.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
        elif args.kind != kind:
            raise ParameterError(f"--{name} is read by plot {kind} only (this is plot {args.kind})")
    check_figure_path("--out", args.out)
    if args.title is not None:
        from theorylab.plots import check_text
        check_text("--title", args.title)
    from theorylab.cli.sweep import check_store_cost

    check_store_cost(args)
    spec, rows, _ = sweep.read_store(args.store)
    if args.variant:
        wanted = {choice("--variant", v, spec.variants) for v in args.variant}
        rows = [r for r in rows if r["variant"] in wanted]
    needs = "mass" if args.kind == "mass" else "gamma_c"
    if spec.kind != needs:
        raise ParameterError(f"plot {args.kind} needs a {needs} sweep; {args.store!r} holds a {spec.kind} sweep")
    if not rows:
        raise ParameterError(f"--store: {args.store!r} holds no points{' of those variants' if args.variant else ''} "
                             f"yet (run the sweep first)")
    title = args.title if args.title is not None else spec.name
    summary = {"figure": args.out, "points": len(rows)}
    if args.kind == "compare":
        stats = compare_rows(rows, args.predicted, args.simulated)
        write_figure(args.out, plots.predicted_vs_simulated, rows, ROUTES[args.predicted], ROUTES[args.simulated],
                     stats=stats, title=title, name="--out")
        summary.update(stats)
    elif args.kind == "gamma-c":
        write_figure(args.out, plots.gamma_c_along, rows, axis=args.axis, title=title, name="--out")
    else:
        write_figure(args.out, plots.mass_curves, rows, title=title, name="--out")
    emit([summary], args.format)
    return 0

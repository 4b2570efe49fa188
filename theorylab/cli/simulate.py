"""``theorylab simulate``: Monte Carlo mean target mass M(g) of the PSA reduced score model."""
from __future__ import annotations

import argparse

from theorylab.cli._args import SEED_HELP, add_progress_option, add_resource_options, check_cost, integer, seed, show_progress
from theorylab.cli._output import add_format_option, emit

HELP = """\
Monte Carlo of the PSA reduced Gaussian score model: the mean target softmax mass
M(g) = E[1 / (1 + sum_j exp(x_j - Delta(g)))] over m = T - 2 distractors, one row per
coupling g, all g evaluated on the same draws (common random numbers; counter-based
streams, so the same seed gives the same numbers on any thread count). Columns: gamma,
mass, se (standard error); with --exact also exact_mass (quadrature) and
z = (mass - exact_mass) / se."""


def register(sub) -> None:
    from theorylab.psa.scoremodel import VARIANTS
    p = sub.add_parser("simulate", help="Monte Carlo mean target mass M(g) (PSA reduced model)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dk", type=float, required=True, help="head width (> 0)")
    p.add_argument("--T", type=integer(3, 2**31), required=True, help="context length, an integer in [3, 2^31]")
    p.add_argument("--variant", default="t4-only", choices=VARIANTS, help="score-model variant (default t4-only)")
    p.add_argument("--gamma", type=float, nargs="+", required=True, metavar="G", help="couplings g >= 0")
    p.add_argument("--samples", type=integer(1), default=20000, help="number of samples, an integer >= 1 (default 20000)")
    p.add_argument("--seed", type=seed, default=0, help=f"stream seed, {SEED_HELP} (default 0)")
    p.add_argument("--sigma0", type=float, default=0.0, help="target score noise standard deviation (default 0)")
    p.add_argument("--dtype", choices=("float32", "float64"), default="float32",
                   help="kernel arithmetic (default float32)")
    p.add_argument("--exact", action="store_true", help="add the quadrature mass and the z-score")
    add_progress_option(p)
    add_format_option(p)
    add_resource_options(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    from theorylab.resources import Cost
    from theorylab.psa.montecarlo import simulate_cost, simulate_mass
    from theorylab.psa.quadrature import exact_mass_cost

    exact = exact_mass_cost(len(args.gamma), args.sigma0) if args.exact else Cost()
    check_cost(args, simulate_cost(args.T, len(args.gamma), args.samples, args.dtype).then(exact))
    curve = simulate_mass(args.variant, args.dk, args.T, args.gamma, samples=args.samples, seed=args.seed,
                          sigma0=args.sigma0, dtype=args.dtype, progress=None if show_progress(args) else False)
    rows = [{"gamma": float(g), "mass": float(m), "se": float(s)}
            for g, m, s in zip(curve.gamma, curve.mass, curve.se)]
    if args.exact:
        from theorylab.psa.quadrature import exact_mass
        exact = exact_mass(args.variant, args.dk, args.T, curve.gamma, sigma0=args.sigma0)
        for row, e in zip(rows, exact):
            row["exact_mass"] = float(e)
            row["z"] = (row["mass"] - row["exact_mass"]) / row["se"] if row["se"] > 0 else float("nan")
    emit(rows, args.format)
    return 0

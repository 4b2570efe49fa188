"""``theorylab induction``: vector-level induction simulation vs the PSA reduced model's channel moments."""
from __future__ import annotations

import argparse

from theorylab.cli._args import SEED_HELP, add_plot_option, add_resource_options, check_cost, deprecated, integer, seed
from theorylab.cli._output import add_format_option, emit

HELP = """\
Vector-level canonical induction (PSA §4.1, §6.2): random isotropic token embeddings,
RoPE with one per-step angle theta on every plane (0 = no RoPE) or the standard
spectrum (--rope-base), symmetric shear placed post-RoPE (default) or pre-RoPE, head
sign -1 (so induction gaps are positive). The four score channels T1..T4 are computed
once per sample and evaluated on the g grid. One row per (g, channel): measured target
gap and distractor variance (standard errors over samples; 'var_bulk' excludes the
special keys 0, j-1, j+1, T-2; 'lag1' is the correlation of neighbouring distractors)
beside the reduced model's (T3 gap g sqrt(dk), T4 gap g^2 sqrt(dk), variances 1, 2g^2,
2g^2, 4g^4, Cov(T3,T4) 2g^3; 'gap_model_rope' multiplies T3/T4 by the mean RoPE match
factor). A second table: target mass and accuracy per g for --variant (the order-lattice
member) beside the reduced model's exact mass. The coupling column is 'gamma'. CSV: the two tables as one, with a first column 'table'
(moments | mass). JSON: {"rows": [...], "mass": [...], ...summary}."""

MOMENT_COLUMNS = ["gamma", "channel", "gap", "gap_se", "gap_model", "gap_model_rope", "var", "var_se", "var_bulk",
                  "var_model", "lag1"]


def register(sub) -> None:
    p = sub.add_parser("induction", help="vector-level induction simulation: channel moments vs reduced model",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dk", type=integer(2), default=64, help="head width, an even integer >= 2 (default 64)")
    p.add_argument("--T", type=integer(9), default=512,
                   help="context length, an integer >= 9: the channel moments need bulk distractors (default 512)")
    rope = p.add_mutually_exclusive_group()
    rope.add_argument("--theta", type=float, default=0.0,
                      help="RoPE per-step angle in [-pi, pi] on every plane (default 0: no RoPE)")
    rope.add_argument("--rope-base", type=float, default=None, metavar="B",
                      help="standard RoPE spectrum instead: plane i turns by B^(-2i/dk) per step (B > 1)")
    p.add_argument("--gamma", type=float, nargs="+", default=[0.5, 1.0], metavar="G",
                   help="couplings g >= 0 (default 0.5 1.0)")
    p.add_argument("--samples", type=integer(2), default=1000,
                   help="number of sampled queries, an integer >= 2 (default 1000)")
    p.add_argument("--seed", type=seed, default=0, help=f"random seed, {SEED_HELP} (default 0)")
    p.add_argument("--placement", choices=("post", "pre"), default="post", help="shear placement (default post)")
    deprecated(p, "--member", p.add_argument(
        "--variant", choices=("symmetric", "key-only", "query-only", "standard"), default="symmetric",
        help="variant (order-lattice member) of the target-mass table (default symmetric)"))
    add_plot_option(p, "the channel-moments and target-mass figure")
    add_format_option(p)
    add_resource_options(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    from theorylab.plots import check_figure_path
    from theorylab.psa.rotary import rope_frequencies
    from theorylab.psa import induction as ind
    from theorylab.psa import masses, moments as psa_moments

    if args.plot is not None:
        check_figure_path("--plot", args.plot)
    check_cost(args, ind.simulate_cost(args.dk, args.T, args.samples).then(psa_moments.moments_cost(args.T, args.samples))
               .then(masses.mass_rows_cost(args.T, args.samples, len(args.gamma), args.variant)))
    theta = args.theta if args.rope_base is None else rope_frequencies(args.dk, args.rope_base)
    sample = ind.simulate(args.dk, args.T, theta, args.samples, args.seed, args.placement)
    moments = psa_moments.channel_moments(sample)
    rows = psa_moments.comparison_rows(sample, args.gamma, moments)
    mass = masses.mass_rows(sample, args.gamma, args.variant)
    summary = {"dk": args.dk, "T": args.T, "theta": args.theta, "rope_base": args.rope_base,
               "placement": args.placement,
               "samples": args.samples, "seed": args.seed, "head_sign": ind.HEAD_SIGN,
               "rope_match_factor": psa_moments.rope_match_factor(args.T, sample.freqs, args.placement),
               "special_excess": {k: dict(zip(ind.CHANNELS, v)) for k, v in moments.special.items()},
               "quenched_var_cv": dict(zip(ind.CHANNELS, moments.quenched_var_cv))}
    if args.plot:
        from theorylab.plots import write_figure
        from theorylab.plots.induction import channel_figure

        spectrum = f"theta={args.theta}" if args.rope_base is None else f"RoPE base {args.rope_base:g}"
        write_figure(args.plot, channel_figure, rows, mass, summary["rope_match_factor"],
                     title=f"dk={args.dk} T={args.T} {spectrum} {args.placement}-RoPE, {args.samples} samples, "
                           f"seed {args.seed}", name="--plot")
    rows, mass = _paper_names(rows), _paper_names(mass)
    if args.format == "json":
        emit(rows, "json", summary={"mass": mass, **summary})
    elif args.format == "csv":
        tagged = [{"table": "moments", **r} for r in rows] + [{"table": "mass", **r} for r in mass]
        emit(tagged, "csv", columns=["table"] + MOMENT_COLUMNS + [k for k in mass[0] if k not in MOMENT_COLUMNS])
    else:
        emit(rows, "table", columns=MOMENT_COLUMNS)
        print()
        excess = {f"excess over bulk at {k}": ", ".join(f"{c} {x:+.3f}" for c, x in zip(ind.CHANNELS, v))
                  for k, v in moments.special.items()}
        emit(mass, "table", summary={"rope_match_factor": summary["rope_match_factor"], **excess})
    return 0


PAPER_NAMES = {"g": "gamma", "member": "variant"}
"""Output columns under the names every command uses: the coupling is ``gamma``, the model ``variant``."""


def _paper_names(rows: list[dict]) -> list[dict]:
    """``rows`` with the library's columns ``g``/``member`` named ``gamma``/``variant`` (order kept)."""
    return [{PAPER_NAMES.get(k, k): v for k, v in r.items()} for r in rows]

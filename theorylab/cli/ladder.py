"""``theorylab ladder``: the GLLM selection ladder, pre-registered and then measured."""
from __future__ import annotations

import argparse

from theorylab.cli._args import (add_plot_option, add_progress_option, add_resource_options, path, reads_file, seed,
                                 show_progress, writes_file)
from theorylab.cli._output import add_format_option, emit

HELP = """\
The selection ladder of GLLM Table 2 (§6.5, §8.1.4) in the graded linear model.

Offline step (the pre-registration, written first): a pilot sample of --n-pilot rows, disjoint
from every training sample, gives the level profiles a_hat, s_hat (§7.2); the six arms get
their level grades in [1, C]: uniform (g = 1), random (g_l = C^U_l, U_l ~ Uniform(0,1)),
taxonomic (g_l = C^(l/(L-1))), proxy (corpus statistics only: q*_C of a uniform target
profile and s_hat), educated (q*_C of a_hat, s_hat; Prop. 10-11) and oracle (q*_C of the true
profiles). Each arm's <q, alpha_hat - tau_hat> (q = ln g; Eq. 15), its bootstrap sign
fraction and interval (§7.2, --pilot-bootstrap resamples of the pilot's blocks) and its
predicted Lambda_hat are written to --prereg (default: a temporary file), then read back.

Measurement (Monte Carlo, --reps repetitions, fixed --seed): each arm fits least squares over
its class {||G^-1 w|| <= ||G^-1 w*||} (Prop. 7) in the orthogonal design X^T X = m Sigma, along
one learning curve per repetition (common random numbers). Columns: m_needed, the sample size
at which the mean risk reaches --target x the null risk; efficiency = m_uniform / m_arm (Prop. 7
and §8.2.2 predict 1/Lambda); risk_ratio_ref = R_arm / R_uniform at m_ref, the end of Lem. 4's
window W (Thm. 4.1's form); 95 % bootstrap intervals over repetitions. Summary: the predicted
and measured orders, the pairs measured out of order, Spearman's rank correlation of the inner
products with the efficiencies (and with 1/risk_ratio_ref) with intervals, the educated and
oracle gains beside 1/Lambda*_C.

Designs: --nu NU --mu MU (geometric level profiles, Cor. 3; default 0.6, 0.3) or --a SRC --s SRC
(any level profiles: a file or inline numbers such as 0.1,0.6,0.2,0.1), on --d coordinates in
equal levels; or --from-prereg FILE to measure a published pre-registration as it stands.
--degradation N N N ... instead sweeps the pilot size (Lem. 2): per size, --draws pilots, the
educated arm's exact excess Lambda(g_hat)/Lambda*_C - 1 against the profile error and the Monte
Carlo losses against the oracle arm, with fitted power laws (quadratic law: slope 1 against the
error, -1 against n). --plot writes the efficiencies with CIs against the inner products (or the
degradation). Requests whose working memory would not fit are refused up front. A progress bar
appears after 2 s."""

TABLE = ["arm", "ip_hat", "sign_kept", "Lambda_hat", "predicted_rank", "inv_Lambda_true", "m_needed", "efficiency",
         "eff_lo", "eff_hi", "measured_rank", "risk_ratio_ref", "rr_lo", "rr_hi"]
DESIGN_OPTIONS = ("nu", "mu", "a", "s", "levels", "d", "sigma_xi", "clip")
LADDER_ONLY = ("n_pilot", "pilot_bootstrap", "prereg", "from_prereg", "bootstrap")


def register(sub) -> None:
    p = sub.add_parser("ladder", help="GLLM selection ladder: pre-registered inner products vs measured efficiency",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nu", type=float, help="geometric target concentration, 0 < nu < 1 (default 0.6)")
    p.add_argument("--mu", type=float, help="geometric data decay, 0 < mu < 1 (default 0.3)")
    reads_file(p.add_argument("--a", metavar="SRC", type=path,
                              help="level target profile a (file or inline numbers; with --s)"), "numbers", inline=True)
    reads_file(p.add_argument("--s", metavar="SRC", type=path,
                              help="level data profile s (file or inline numbers; with --a)"), "numbers", inline=True)
    p.add_argument("--levels", type=float, help="levels L with --nu/--mu (default 4)")
    p.add_argument("--d", type=float, help="design width d, a multiple of L (default 32)")
    p.add_argument("--sigma-xi", type=float, help="noise standard deviation in (0, 1.34e8] (default 1; above 2^27, "
                                                  "Lem. 4's m_sat/2 exceeds 2^53 samples for every design)")
    p.add_argument("--clip", type=float, help="grade clip C >= 1 shared by every arm (default 2)")
    p.add_argument("--n-pilot", type=float, help="pilot sample size, > d (default 65536)")
    p.add_argument("--pilot-bootstrap", type=float, help="bootstrap resamples of the pilot (default 200)")
    p.add_argument("--seed", type=seed, default=0,
                   help="seed of the pilot, random arm and Monte Carlo, an integer in [0, 2^64) (default 0)")
    writes_file(p.add_argument("--prereg", metavar="JSON", type=path,
                               help="write the pre-registration here (a .json file) before measuring"))
    reads_file(p.add_argument("--from-prereg", metavar="JSON", type=path,
                              help="measure this pre-registration file (no offline step)"), "prereg")
    p.add_argument("--reps", type=float, default=400, help="Monte Carlo repetitions >= 2 (default 400)")
    p.add_argument("--target", type=float, default=0.5,
                   help="target risk as a fraction of the null risk, > 0 (default 0.5)")
    p.add_argument("--points", type=float, default=40, help="learning-curve grid size >= 4 (default 40)")
    p.add_argument("--m", type=float, nargs="+", metavar="M", help="explicit grid of training sample sizes")
    p.add_argument("--bootstrap", type=float, help="bootstrap resamples of the repetitions (default 1000)")
    p.add_argument("--degradation", type=float, nargs="+", metavar="N",
                   help="sweep these pilot sizes instead (Lem. 2; at least 3)")
    p.add_argument("--draws", type=float, default=None, help="pilots per size with --degradation (default 8)")
    add_plot_option(p, "the efficiencies-vs-inner-products figure (or the degradation figure)")
    add_progress_option(p)
    add_format_option(p)
    add_resource_options(p)
    p.set_defaults(handler=run)


def _check_modes(args) -> None:
    from theorylab.errors import ParameterError

    given = lambda names: [f"--{n.replace('_', '-')}" for n in names if getattr(args, n) is not None]
    if args.from_prereg is not None and given(DESIGN_OPTIONS + ("n_pilot", "pilot_bootstrap", "prereg")):
        raise ParameterError(f"{', '.join(given(DESIGN_OPTIONS + ('n_pilot', 'pilot_bootstrap', 'prereg')))} "
                             f"cannot be used with --from-prereg (the design and arms come from the file)")
    if args.degradation is not None and given(LADDER_ONLY):
        raise ParameterError(f"{', '.join(given(LADDER_ONLY))} cannot be used with --degradation")
    if args.degradation is None and args.draws is not None:
        raise ParameterError("--draws needs --degradation")
    if (args.a is None) != (args.s is None):
        raise ParameterError("--a and --s must be given together")
    if args.a is not None and given(("nu", "mu", "levels")):
        raise ParameterError(f"{', '.join(given(('nu', 'mu', 'levels')))} cannot be used with --a/--s")
    if (args.nu is None) != (args.mu is None):
        raise ParameterError("--nu and --mu must be given together")


def build_design(args):
    """The design of the options (defaults: geometric nu = 0.6, mu = 0.3, L = 4, d = 32, sigma_xi = 1, C = 2)."""
    from theorylab.errors import positive_int
    from theorylab.graded import grades
    from theorylab.graded import ladder as lad
    from theorylab.graded.io import read_vector

    d = positive_int("d", 32 if args.d is None else args.d)
    sigma = 1.0 if args.sigma_xi is None else args.sigma_xi
    C = 2.0 if args.clip is None else args.clip
    if args.a is not None:
        from theorylab import resources
        from theorylab.graded.io import read_vector_cost

        for source in (args.a, args.s):          # a profile file's parse is refused up front if it cannot fit
            resources.check(read_vector_cost(source), resources.limits())
        a, s = read_vector("--a", args.a), read_vector("--s", args.s)
        for option, profile in (("--a", a), ("--s", s)):          # refused naming the option, not alpha/tau
            grades.profile(option, profile)
        return lad.profile_design(a, s, d, sigma, C)
    nu, mu = (0.6, 0.3) if args.nu is None else (args.nu, args.mu)
    return lad.geometric_design(nu, mu, positive_int("levels", 4 if args.levels is None else args.levels), d, sigma, C)


def run(args) -> int:
    import os
    import tempfile

    import numpy as np

    from theorylab._io import check_output_path
    from theorylab.plots import check_figure_path
    from theorylab.errors import positive_int, real_array
    from theorylab.graded import ladder as lad
    from theorylab.graded import prereg as pr
    from theorylab.graded import ladder_sim as sl

    _check_modes(args)
    if args.plot is not None:
        check_figure_path("--plot", args.plot)
    if args.prereg is not None:
        check_output_path("--prereg", args.prereg, ".json")
    seed = positive_int("seed", args.seed, low=0)
    reps = positive_int("reps", args.reps, low=2)
    target = float(real_array("target", args.target, low=0.0, low_inclusive=False))
    points = positive_int("points", args.points, low=4)
    ms = sl.grid("--m", args.m) if args.m else None
    progress = show_progress(args)
    if args.degradation is not None:
        return _run_degradation(args, seed, reps, target, ms, progress)
    bootstrap = positive_int("bootstrap", 1000 if args.bootstrap is None else args.bootstrap, low=2)
    if args.from_prereg is not None:
        prereg, sha = _read_prereg(args.from_prereg)
        path, design = args.from_prereg, prereg.design
    else:
        design = build_design(args)
        n_pilot = lad.pilot_size(design, 65536 if args.n_pilot is None else args.n_pilot)
        pilot_boot = positive_int("pilot_bootstrap", 200 if args.pilot_bootstrap is None else args.pilot_bootstrap,
                                  low=2)
    sl.reference_size(design)          # a design whose m_ref is not a sample size: refused before the offline step
    grid = ms if ms is not None else sl.default_grid(design, target, points)
    _refuse_if_too_big(design, grid, reps, bootstrap, len(prereg.arms) if args.from_prereg else 6)
    if args.from_prereg is None:        # the offline step: written first, then read back
        made = pr.preregister(design, n_pilot, seed, pilot_boot)
        with tempfile.TemporaryDirectory(prefix="theorylab-ladder-") as tmp:
            path = args.prereg or os.path.join(tmp, "prereg.json")
            pr.write(made, path)
            prereg, sha = pr.read(path)
        path = args.prereg
    result = sl.measure(prereg, grid, reps, seed, target, bootstrap, progress)
    if path is not None:
        unchanged = pr.read(path)[1] == sha
    else:
        unchanged = True
    summary = {**result.summary, "prereg_file": path, "prereg_sha256": sha, "prereg_unchanged": unchanged,
               "n_pilot": prereg.n_pilot, "a_hat": list(prereg.a_hat), "s_hat": list(prereg.s_hat),
               "BC_hat": prereg.BC_hat, "BC_hat_ci": list(prereg.BC_hat_ci)}
    if args.plot:
        from theorylab.plots import write_figure
        from theorylab.plots.ladder import ladder_figure

        write_figure(args.plot, ladder_figure, result, name="--plot")
    if args.format == "table":
        short = {k: v for k, v in summary.items() if k not in ("estimator", "sim_design")}
        emit(result.rows, "table", summary=_round_lists(short, np), columns=TABLE)
    else:
        emit(result.rows, args.format, summary=summary if args.format == "json" else None)
    return 0


def _read_prereg(path: str):
    """:func:`theorylab.graded.prereg.read` of the ``--from-prereg`` file, its refusal naming the option."""
    from theorylab.errors import ParameterError
    from theorylab.graded import prereg as pr

    try:
        return pr.read(path)
    except ParameterError as exc:
        raise ParameterError(f"--from-prereg: {exc}") from None


def _round_lists(summary, np):
    return {k: ([round(float(x), 4) if isinstance(x, (float, np.floating)) else x for x in v]
                if isinstance(v, list) else v) for k, v in summary.items()}


def _refuse_if_too_big(design, grid, reps, bootstrap, arms) -> None:
    from theorylab.graded import ladder_sim as sl

    sl.check_memory(sl.memory_estimate(arms, len(grid) + 1, reps, design.d, bootstrap), "this ladder request")


def _run_degradation(args, seed, reps, target, ms, progress) -> int:
    import numpy as np

    from theorylab.errors import positive_int
    from theorylab.graded import ladder_sim as sl
    from theorylab.graded import pilot_cost as pc

    design = build_design(args)
    draws = positive_int("draws", 8 if args.draws is None else args.draws, low=2)
    ns = sl.grid("--degradation", args.degradation)
    if ns[0] <= design.d:
        from theorylab.errors import ParameterError

        raise ParameterError(f"--degradation pilot sizes must exceed d = {design.d} (got {int(ns[0])})")
    grid = ms if ms is not None else sl.default_grid(design, target, positive_int("points", args.points, low=4))
    _refuse_if_too_big(design, grid, reps, 0, 1 + draws * ns.size)
    result = pc.degradation(design, ns, draws, seed, reps, target, grid, progress)
    if args.plot:
        from theorylab.plots import write_figure
        from theorylab.plots.ladder import degradation_figure

        write_figure(args.plot, degradation_figure, result, name="--plot")
    if args.format == "json":
        emit(result.rows, "json", summary={**result.summary, "draws_detail": result.draws})
    else:
        emit(result.rows, args.format, summary=_round_lists(result.summary, np) if args.format == "table" else None)
    return 0

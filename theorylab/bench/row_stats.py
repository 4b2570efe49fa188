"""``theorylab bench row-stats``: the row-statistics kernel against the mass-only kernel, same run.

Problem: the one of ``theorylab bench mc`` (t4-only, dk = 128, T = 512, m = 510, 32 couplings g
in [0.5, 2]). Reported: distractor evaluations per second of the mass-only kernel
(:func:`theorylab.psa.montecarlo.simulate_mass`, float32) and of the row-statistics kernel
(:func:`theorylab.psa.row_stats_mc.simulate_row_stats`: p_0, H, H_d, sum p^2 and six
g-derivatives; two passes over the distractors, float64 moments), and their ratio
``row_stats_over_mass`` (seconds of the row statistics / seconds of the mass), measured in the same
process one after the other (best of ``--repeat``).
"""
from __future__ import annotations

from theorylab.bench import timed


def register(sub) -> None:
    p = sub.add_parser("row-stats", help="row-statistics Monte Carlo kernel vs the mass-only kernel (PSA)")
    from theorylab.cli._args import add_resource_options, integer
    from theorylab.cli._output import add_format_option
    p.add_argument("--samples", type=integer(1), default=20000, help="samples, an integer >= 1 (default 20000)")
    p.add_argument("--repeat", type=integer(1), default=3,
                   help="timed repetitions of each kernel, an integer >= 1; the best is reported (default 3)")
    add_format_option(p)
    add_resource_options(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    import numba
    import numpy as np

    from theorylab.cli._args import check_cost
    from theorylab.cli._output import emit
    from theorylab.psa.montecarlo import simulate_cost, simulate_mass
    from theorylab.psa.row_stats_mc import row_stats_cost, simulate_row_stats

    samples, repeat = args.samples, args.repeat
    dk, T, m = 128.0, 512, 510
    g = np.linspace(0.5, 2.0, 32)
    check_cost(args, simulate_cost(T, g.size, samples).times(repeat)
               .then(row_stats_cost(T, g.size, samples).times(repeat)))
    rows = []
    for name, fn in (("mass-only float32 (simulate_mass)", simulate_mass),
                     ("row-stats float32 (simulate_row_stats)", simulate_row_stats)):
        fn("t4-only", dk, T, g, samples=64, progress=False)  # load / compile
        best = min(timed(lambda: fn("t4-only", dk, T, g, samples=samples, seed=1, progress=False))
                   for _ in range(repeat))
        rows.append({"implementation": name, "samples": samples, "evaluations": samples * m * g.size,
                     "seconds": best, "evaluations_per_second": samples * m * g.size / best})
    summary = {"problem": "t4-only dk=128 T=512, 32 values of g", "threads": numba.get_num_threads(),
               "row_stats_over_mass": rows[1]["seconds"] / rows[0]["seconds"]}
    emit(rows, args.format, summary=summary)
    return 0


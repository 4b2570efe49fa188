"""``theorylab bench gamma-c``: the closed-form solvers on a large (dk, T) grid."""
from __future__ import annotations

from theorylab.bench import timed


def register(sub) -> None:
    p = sub.add_parser("gamma-c", help="gamma_c on a (dk, T) grid for every variant")
    from theorylab.cli._args import add_resource_options, integer
    from theorylab.cli._output import add_format_option
    p.add_argument("--points", type=integer(1), default=100_000, help="grid size, an integer >= 1 (default 100000)")
    p.add_argument("--repeat", type=integer(1), default=3,
                   help="timed repetitions, an integer >= 1; the best is reported (default 3)")
    add_format_option(p)
    add_resource_options(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    import numpy as np

    from theorylab.cli._args import check_cost
    from theorylab.cli._output import emit
    from theorylab.psa.scoremodel import VARIANTS
    from theorylab.psa.transition import gamma_c, gamma_c_cost

    n, repeat = args.points, args.repeat
    check_cost(args, gamma_c_cost(n).times(len(VARIANTS) * repeat))
    rng = np.random.default_rng(0)
    dk = rng.uniform(1.0, 4096.0, n)
    T = rng.uniform(3.0, 1e6, n)
    rows = []
    for variant in VARIANTS:
        gamma_c(variant, dk[:10], T[:10])  # warm-up
        best = min(timed(lambda: gamma_c(variant, dk, T)) for _ in range(repeat))
        rows.append({"variant": variant, "points": n, "seconds": best, "points_per_second": n / best})
    total = sum(r["seconds"] for r in rows)
    emit(rows, args.format, summary={"all_variants_seconds": total, "target_seconds": 1.0})
    return 0


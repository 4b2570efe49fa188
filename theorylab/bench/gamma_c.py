"""``theorylab bench gamma-c``: the closed-form solvers on a large (dk, T) grid."""
from __future__ import annotations

import time


def register(sub) -> None:
    p = sub.add_parser("gamma-c", help="gamma_c on a (dk, T) grid for every variant")
    p.add_argument("--points", type=int, default=100_000, help="grid size (default 100000)")
    p.add_argument("--repeat", type=int, default=3, help="timed repetitions; the best is reported")
    from theorylab.cli._output import add_format_option
    add_format_option(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    import numpy as np

    from theorylab.cli._output import emit
    from theorylab.errors import positive_int
    from theorylab.psa.scoremodel import VARIANTS
    from theorylab.psa.transition import gamma_c

    n = positive_int("--points", args.points)
    repeat = positive_int("--repeat", args.repeat)
    rng = np.random.default_rng(0)
    dk = rng.uniform(1.0, 4096.0, n)
    T = rng.uniform(3.0, 1e6, n)
    rows = []
    for variant in VARIANTS:
        gamma_c(variant, dk[:10], T[:10])  # warm-up
        best = min(_timed(lambda: gamma_c(variant, dk, T)) for _ in range(repeat))
        rows.append({"variant": variant, "points": n, "seconds": best, "points_per_second": n / best})
    total = sum(r["seconds"] for r in rows)
    emit(rows, args.format, summary={"all_variants_seconds": total, "target_seconds": 1.0})
    return 0


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start

"""``theorylab bench mc``: the reduced-model Monte Carlo kernel against a NumPy baseline, same run.

Problem (issue 3): t4-only, dk = 128, T = 512 (m = 510 distractors), 20,000 samples,
32 couplings g in [0.5, 2]: 3.26e8 distractor evaluations. Reported: distractor
evaluations per second of the Numba kernel (float32 default and float64) and of a
NumPy vectorised log-sum-exp baseline (float64 normals from ``default_rng``, one
``(chunk, m)`` block per g), their ratio ``speedup_vs_numpy`` and, separately, the cold
JIT time (a fresh interpreter with an empty Numba cache directory).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from theorylab.bench import timed

_COLD = ("import time; t = time.perf_counter(); "
         "from theorylab.psa.montecarlo import simulate_mass; "
         "simulate_mass('t4-only', 128, 512, [0.5, 1.0], samples=64); "
         "print(time.perf_counter() - t)")


def register(sub) -> None:
    p = sub.add_parser("mc", help="Numba Monte Carlo kernel vs NumPy log-sum-exp (PSA reduced model)")
    from theorylab.cli._args import add_resource_options, integer
    from theorylab.cli._output import add_format_option
    p.add_argument("--samples", type=integer(1), default=20000, help="samples, an integer >= 1 (default 20000)")
    p.add_argument("--baseline-samples", type=integer(1), default=None,
                   help="samples for the NumPy baseline, an integer >= 1 (default: the same as --samples)")
    p.add_argument("--repeat", type=integer(1), default=3,
                   help="timed repetitions of the kernel, an integer >= 1; the best is reported (default 3)")
    p.add_argument("--no-cold", action="store_true", help="skip the cold-JIT measurement")
    add_format_option(p)
    add_resource_options(p)
    p.set_defaults(handler=run)


NUMPY_SECONDS = 3e-8
"""Seconds per distractor evaluation of :func:`numpy_mass` (measured on a shared 2-core machine)."""
COLD_SECONDS = 30.0
"""Upper bound of :func:`cold_jit_seconds` (a fresh interpreter compiling the kernels)."""


def numpy_mass_cost(m: int, n_gamma: int, samples, chunk: int = 1000):
    """Peak memory and run time of :func:`numpy_mass`: a few ``(chunk, m)`` blocks per g."""
    from theorylab.resources import Cost, as_float, bytes_of

    return Cost(bytes_of(5, min(as_float(samples), chunk), m), as_float(samples) * m * n_gamma * NUMPY_SECONDS,
                f"{as_float(samples):.3g} baseline samples")


def numpy_mass(a, delta, m: int, samples: int, seed: int = 0, chunk: int = 1000):
    """Baseline: mean target mass on the g grid by NumPy log-sum-exp (x = a z - Delta)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    total = np.zeros(len(a))
    for start in range(0, samples, chunk):
        z = rng.standard_normal((min(chunk, samples - start), m))
        for k in range(len(a)):
            x = a[k] * z - delta[k]
            top = np.maximum(x.max(axis=1), 0.0)
            lse = top + np.log(np.exp(-top) + np.exp(x - top[:, None]).sum(axis=1))
            total[k] += np.exp(-lse).sum()      # 1 / (1 + S) = exp(-log(1 + S))
    return total / samples


def cold_jit_seconds() -> float:
    """Seconds for import + first call in a fresh interpreter with an empty Numba cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = subprocess.run([sys.executable, "-c", _COLD], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def run(args) -> int:
    import numba
    import numpy as np

    from theorylab.cli._args import check_cost
    from theorylab.cli._output import emit
    from theorylab.psa.scoremodel import score_model
    from theorylab.resources import Cost
    from theorylab.psa.montecarlo import loadings, simulate_cost, simulate_mass

    samples, repeat = args.samples, args.repeat
    base_samples = args.baseline_samples or samples
    dk, T, m = 128.0, 512, 510
    g = np.linspace(0.5, 2.0, 32)
    check_cost(args, simulate_cost(T, g.size, samples, "float32").times(repeat)
               .then(simulate_cost(T, g.size, samples, "float64").times(repeat))
               .then(numpy_mass_cost(m, g.size, base_samples))
               .then(Cost(0.0, 0.0 if args.no_cold else COLD_SECONDS)))
    cold = None if args.no_cold else cold_jit_seconds()
    rows = []
    for dtype in ("float32", "float64"):
        simulate_mass("t4-only", dk, T, g, samples=64, dtype=dtype, progress=False)  # load / compile
        best = min(timed(lambda: simulate_mass("t4-only", dk, T, g, samples=samples, seed=1, dtype=dtype,
                                                progress=False)) for _ in range(repeat))
        rows.append({"implementation": f"numba {dtype}", "samples": samples,
                     "evaluations": samples * m * g.size, "seconds": best,
                     "evaluations_per_second": samples * m * g.size / best})
    a, _ = loadings("t4-only", g)
    delta = score_model("t4-only").gap(g, dk)
    secs = timed(lambda: numpy_mass(a, delta, m, base_samples))
    rows.append({"implementation": "numpy log-sum-exp float64", "samples": base_samples,
                 "evaluations": base_samples * m * g.size, "seconds": secs,
                 "evaluations_per_second": base_samples * m * g.size / secs})
    summary = {"problem": "t4-only dk=128 T=512, 32 values of g", "threads": numba.get_num_threads(),
               "speedup_vs_numpy": rows[0]["evaluations_per_second"] / rows[2]["evaluations_per_second"],
               "speedup_float64_vs_numpy": rows[1]["evaluations_per_second"] / rows[2]["evaluations_per_second"],
               "cold_jit_seconds": cold, "goal_speedup": 15.0}
    emit(rows, args.format, summary=summary)
    return 0


"""``theorylab bench certify``: runtime of the whole certificate suite, cold and warm.

*Cold* runs the suite in a fresh Python subprocess and times it from process start to
exit, so it includes interpreter start-up, imports (SymPy, mpmath, NumPy), Numba JIT
compilation and every check. It is measured twice: with an empty Numba cache
(``NUMBA_CACHE_DIR`` pointed at a new temporary folder: what a fresh clone pays) and
with the on-disk cache the package normally uses. *Warm* then runs the same suite again in this process
after one untimed run (imports done, JIT caches filled). Per-certificate seconds are
reported for both; the baseline measured in the same run is the bare interpreter +
``import theorylab`` start-up, so the ratio says how much of the cold time is the checks.
Targets (issue 4): cold < 60 s, warm goal < 20 s.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

_COLD = """\
import json, sys, time
t0 = time.perf_counter()
from theorylab.certify import run, select
specs = select(sys.argv[1:] or None)
t1 = time.perf_counter()
results = run(specs)
t2 = time.perf_counter()
print(json.dumps({"import_and_discover": t1 - t0, "run": t2 - t1,
                  "per": {r.id: [r.status, r.seconds] for r in results}}))
"""


def register(sub) -> None:
    from theorylab.cli._args import add_resource_options, integer, text
    p = sub.add_parser("certify", help="certificate suite runtime: cold (fresh process) and warm")
    p.add_argument("--only", nargs="+", metavar="ID", type=text, help="restrict to these certificate ids or rows")
    from theorylab.cli._output import add_format_option
    p.add_argument("--warm-repeat", type=integer(1), default=1,
                   help="timed warm repetitions, an integer >= 1; the best is reported (default 1)")
    add_format_option(p)
    add_resource_options(p)
    p.set_defaults(handler=run)


SUITE_SECONDS = 100.0
"""Seconds of one run of the whole certificate suite (measured cold on a shared 2-core machine: 97 s)."""


def _subprocess(code: str, args: list[str], cache_dir: str | None = None) -> tuple[float, str]:
    env = dict(os.environ)
    if cache_dir:
        env["NUMBA_CACHE_DIR"] = cache_dir
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=True)
    return time.perf_counter() - start, out.stdout


def run(args) -> int:
    from theorylab.certify import run as run_all, select
    from theorylab.cli._args import check_cost
    from theorylab.cli._output import emit
    from theorylab.resources import Cost

    repeat = args.warm_repeat
    specs = select(args.only)  # validates --only before anything is timed
    share = len(specs) / max(len(select(None)), 1)   # runs: cold twice, an untimed warm-up, then `repeat`
    check_cost(args, Cost(0.0, (3 + repeat) * SUITE_SECONDS * share, f"{3 + repeat} runs of {len(specs)} certificates"))
    only = list(args.only or [])
    baseline, _ = _subprocess("import theorylab", [])
    import tempfile

    with tempfile.TemporaryDirectory(prefix="theorylab-numba-") as empty:
        cold_wall, out = _subprocess(_COLD, only, cache_dir=empty)
    cold = json.loads(out.strip().splitlines()[-1])
    cached_wall, _ = _subprocess(_COLD, only)
    run_all(specs)  # untimed warm-up in this process
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        results = run_all(specs)
        wall = time.perf_counter() - start
        if best is None or wall < best[0]:
            best = (wall, results)
    warm_wall, warm_results = best
    rows = [{"id": r.id, "method": r.method, "status": r.status, "cold_seconds": cold["per"].get(r.id, [None, None])[1],
             "warm_seconds": r.seconds} for r in warm_results]
    summary = {"certificates": len(rows), "cold_wall_seconds": round(cold_wall, 3),
               "cold_import_seconds": round(cold["import_and_discover"], 3),
               "cold_run_seconds": round(cold["run"], 3),
               "cold_wall_seconds_with_numba_disk_cache": round(cached_wall, 3),
               "warm_wall_seconds": round(warm_wall, 3),
               "baseline_python_import_theorylab_seconds": round(baseline, 3),
               "cold_over_baseline": round(cold_wall / baseline, 1),
               "cold_target_seconds": 60, "warm_goal_seconds": 20,
               "cold_within_target": cold_wall < 60, "warm_within_goal": warm_wall < 20}
    emit(rows, args.format, summary=summary)
    return 0

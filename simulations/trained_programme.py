"""The trained-model programme: studies f, l, i, m and j on one executor, after estimating their time.

    python simulations/trained_programme.py [--steps N] [--seeds N] [--workers N | --scheduler ADDR]
                                            [--max-time 60m] [--estimate-only] [--only f,l,...]

Before anything trains, the driver counts the work of every run of every study (training rows
``steps x batch`` plus evaluation rows, each ``T`` positions of about ``12 d + 4 mlp + 6 T`` floats per
layer: the count of ``theorylab.nn.train.train_cost``), times a short training run of the A5 config in
this process (BLAS on one thread, as in the workers) to get seconds per unit of that count, and
estimates the wall time on the executor's workers (the total over the workers, or the longest single
run if that is longer). An estimate above ``--max-time`` (default 60 minutes, or
``THEORYLAB_MAX_TIME``) is refused in one line naming it, before any worker starts, like the CLI's
other oversized requests. Then each study runs (and resumes: every study has its own store under
results/stores/) on the one executor, and the wall time of each and the total are printed.

Parts a study cannot run on this theorylab (fields TrainConfig lacks) are listed as NOT RUN and left
out of the estimate; a study with nothing runnable is skipped.
"""
from __future__ import annotations

import os

for _k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):   # the calibration run, as the workers
    os.environ.setdefault(_k, "1")

import sys        # noqa: E402
import time       # noqa: E402

import _trained   # noqa: E402
import f_trained_induction, i_trained_two_tap, j_trained_ladder, l_recall_30, m_loss_padding, o_step_size, p_ladder_budget   # noqa: E402,E401,E501
from theorylab import resources, sweep   # noqa: E402
from theorylab.errors import ParameterError   # noqa: E402
from theorylab.nn.train import TrainConfig, train   # noqa: E402

STUDIES = {"f": f_trained_induction, "l": l_recall_30, "i": i_trained_two_tap, "m": m_loss_padding,
           "j": j_trained_ladder, "o": o_step_size,
           "p": p_ladder_budget}
"""The programme's studies by letter: (a) A5 recall = f, (b) 30 pairs = l, (c) lattice = i, (d) loss and
padding = m, (e) dk ladder = j, (o) the step-size check of the symmetric member's failures in (f)/(l), and (p) the
ladder's plateaus at 3,000 steps."""
CALIBRATION = dict(task="recall", pairs=14, alphabet=64, padding=3, steps=40, eval_size=256)


def work(config: TrainConfig) -> dict:
    """The work count of one run (train_cost's) and its plain ``steps x batch x T x d_model``."""
    per_position = config.n_layer * (12 * max(config.d_model, config.dk) + 4 * config.mlp + 6 * config.seq_len)
    rows = config.steps * config.batch + config.eval_size
    return {"units": float(rows * config.seq_len * per_position),
            "sbtd": float(config.steps) * config.batch * config.seq_len * config.d_model}


def seconds_per_unit() -> float:
    """Wall seconds per work unit, measured now: a short A5-config training in this process (the faster of two;
    wall, not CPU, time, so that the load of a shared machine at the time of the estimate is in it)."""
    config = TrainConfig(**CALIBRATION)
    best = float("inf")
    for seed in range(2):
        t0 = time.perf_counter()
        train(config, seed)
        best = min(best, time.perf_counter() - t0)
    return best / work(config)["units"]


def plan(args) -> list[dict]:
    """Every study to run: module, validated spec, what is left out, and its work."""
    out = []
    for letter in (args.only.split(",") if args.only else STUDIES):
        module = STUDIES[letter]
        try:
            data, skipped = _trained.available(module.spec(args))
        except ParameterError as exc:
            print(f"NOT RUN: study {letter} ({module.STUDY}): {exc}", file=sys.stderr)
            continue
        _trained.not_run(skipped)
        spec = sweep.spec_from_dict(data, source=module.STUDY)
        runs = [p.config for p in sweep.points(spec)]
        counts = [work(c) for c in runs]
        out.append({"letter": letter, "module": module, "data": data, "skipped": skipped, "spec": spec,
                    "runs": len(runs), "units": sum(c["units"] for c in counts),
                    "longest": max(c["units"] for c in counts), "sbtd": sum(c["sbtd"] for c in counts),
                    "steps": sum(c.steps for c in runs)})
    return out


def workers_of(executor) -> int:
    local = getattr(executor, "local_workers", None)
    if local:
        return int(local)
    return max(1, sum(executor.client.nthreads().values()))


def main() -> None:
    p = _trained.parser(__doc__.splitlines()[0])
    p.add_argument("--max-time", default=None, help="refuse when the estimate exceeds this (default 60m)")
    p.add_argument("--estimate-only", action="store_true", help="print the estimate and stop")
    p.add_argument("--only", default=None, help="comma-separated study letters (default: f,l,i,m,j)")
    args = p.parse_args()
    if args.store:
        raise ParameterError("--store: the programme keeps one store per study (under results/stores/)")
    studies = plan(args)
    unit = seconds_per_unit()
    executor = _trained.make_executor(args)
    try:
        workers = workers_of(executor)
        total_units = sum(s["units"] for s in studies)
        estimate = max(total_units * unit / workers, max((s["longest"] for s in studies), default=0) * unit)
        print(f"measured {unit * 1e9:.2f} ns per work unit; {workers} workers")
        for s in studies:
            print(f"  ({s['letter']}) {s['module'].STUDY}: {s['runs']} runs, {s['steps']} steps, "
                  f"step*batch*T*d = {s['sbtd']:.3g}, work {s['units']:.3g} -> {s['units'] * unit:.0f} s CPU")
        print(f"programme: {sum(s['runs'] for s in studies)} runs, step*batch*T*d = "
              f"{sum(s['sbtd'] for s in studies):.3g}, work {total_units:.3g} units, about "
              f"{total_units * unit:.0f} s CPU, estimated {estimate / 60:.1f} min wall on {workers} workers")
        limit = resources.limits(max_time=args.max_time or os.environ.get(resources.TIME_ENV) or "60m")
        resources.check(resources.Cost(0.0, estimate, f"{sum(s['runs'] for s in studies)} training runs on "
                                                       f"{workers} workers"), limit)
        if args.estimate_only:
            return
        t0, walls = time.perf_counter(), {}
        for s in studies:
            start = time.perf_counter()
            spec, rows, timing = _trained.run(s["module"].STUDY, s["data"], args, executor)
            _trained.finish(s["module"], args, spec, rows, timing, s["skipped"])
            walls[s["module"].STUDY] = time.perf_counter() - start
        for name, wall in walls.items():
            print(f"{name}: {wall:.0f} s wall")
        print(f"total: {time.perf_counter() - t0:.0f} s wall (estimated {estimate:.0f} s)")
    finally:
        executor.close()


if __name__ == "__main__":
    _trained.main(main)

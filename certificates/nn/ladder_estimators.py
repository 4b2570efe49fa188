"""The trained dk ladder's estimators against their definitions (P23.estimator; PSA §7.11): gamma_c of an accuracy
curve, the log-log slope, the seed summary and the seed bootstrap, held to
``theorylab.certificates.reference.trainstats``.
"""

import numpy as np

from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.nn import trainstats

SUMMARY_CASES = {"4 seeds, fractional hits (ties credited 1/k)": ([0.62, 0.71, 0.55, 0.8], 1310.5, 2000),
                 "3 seeds, one of accuracy 0": ([0.0, 0.25, 0.1], 70.0, 600),
                 "2 seeds, t interval inside [0, 1]": ([0.6, 0.65], 12.5, 20),
                 "2 seeds, t interval clipped to 0 and 1": ([0.05, 0.95], 10.0, 20),
                 "1 seed: sd NaN, no t interval": ([0.7], 7.0, 10)}
"""Seed summaries held field by field to ``reference.trainstats.seed_summary_row``."""
BOOT_GRID, BOOT_PER_SEED = [0, 1, 2, 4], [[0.1, 0.2, 0.6, 0.9], [0.1, 0.5, 0.8, 0.9], [0.2, 0.3, 0.4, 1.0]]
"""3 seeds of rising curves: the bootstrap's values are the gamma_c of the 10 multisets of 3 seeds (9 distinct)."""
BOOT_FALLING = [[0.1, 0.2, 0.6, 0.9], [0.5, 0.4, 0.3, 0.2], [0.3, 0.3, 0.5, 0.7]]
"""... and with a falling seed: a resample of it alone (probability 1/27) has no gamma_c (NaN)."""


def _summary_fields(summary) -> tuple[float, dict]:
    """Every field of every SUMMARY_CASES summary against the reference row: the same field names, the same
    None / NaN where undefined, values within 1e-13 (inf otherwise); one seed without a warning."""
    import warnings

    from theorylab.certificates.reference import trainstats as ref_stats

    err, rows = 0.0, {}
    for name, (accs, hits, n) in SUMMARY_CASES.items():
        with warnings.catch_warnings():                  # no degrees-of-freedom warning (one seed) on the way
            warnings.simplefilter("error")
            got = summary(accs, hits, n)
        want = ref_stats.seed_summary_row(accs, hits, n)
        e = 0.0 if set(got) == set(want) else np.inf
        for k, w in want.items():
            v = got.get(k, np.inf)
            same_kind = (v is None) == (w is None) and (w is None or np.isnan(w) == np.isnan(float(v)))
            e = max(e, np.inf if not same_kind else 0.0 if w is None or np.isnan(w) else abs(float(v) - w))
        e = max(e, 0.0 if got.get("seeds") == want["seeds"] and type(got.get("seeds")) is int else np.inf)
        err, rows[name] = max(err, e), e
    return err, rows


def _bootstrap_check(bootstrap) -> tuple[bool, float, dict]:
    """Seed bootstrap of gamma_c: values == the exact gamma_c of the seed multisets (each attained, the default
    draws = 2000 of the signature: 2000 resamples returned),
    and every draw == the reference replay of its stream at seeds 0 and 5, with NaN exactly where a resample has
    no rise (BOOT_FALLING)."""
    from fractions import Fraction
    from itertools import combinations_with_replacement

    from theorylab.certificates.reference import trainstats as ref_stats

    boot = bootstrap(BOOT_GRID, np.array(BOOT_PER_SEED), seed=0)          # the documented default: 2000 draws
    multisets = {float(ref_stats.gamma_c(BOOT_GRID, [sum(Fraction(str(BOOT_PER_SEED[i][j])) for i in m) / 3
                                                     for j in range(4)]))
                 for m in combinations_with_replacement(range(3), 3)}
    attained = bool(len(multisets) == 9 and boot.shape == (2000,)
                    and all(min(abs(b - x) for x in multisets) <= 1e-13 for b in boot)
                    and all(np.min(np.abs(boot - x)) <= 1e-13 for x in multisets))
    err, nan_counts = 0.0, {}
    for per_seed, seed, draws in ((BOOT_PER_SEED, 5, 300), (BOOT_FALLING, 0, 300), (BOOT_FALLING, 5, 300)):
        got = bootstrap(BOOT_GRID, np.array(per_seed), draws=draws, seed=seed)
        want = ref_stats.bootstrap_gamma_c(BOOT_GRID, per_seed, draws, seed)
        same = got.shape == want.shape and np.array_equal(np.isnan(got), np.isnan(want))
        err = max(err, float(np.nanmax(np.abs(got - want))) if same else np.inf)
        kind = "falling" if per_seed is BOOT_FALLING else "rising"
        nan_counts[f"seed {seed}, {kind} seed set"] = int(np.isnan(want).sum())
    ok = attained and err <= 1e-13 and nan_counts["seed 0, falling seed set"] > 0
    return ok, err, nan_counts


@certificate("P23.estimator", title="gamma_c of an accuracy curve, the log-log slope and the seed summary equal their "
                                    "definitions", paper="PSA §7.11", method="numeric",
             claim="The trained dk ladder's observables are computed as defined: gamma_c is the first crossing of "
                   "the midpoint between the gamma = 0 accuracy and the plateau by the linearly interpolated curve "
                   "(None without a rise), the slope is the least-squares slope of log gamma_c on log dk, and the "
                   "seed summary is the mean, sample sd and 95 % t interval over seeds with the pooled Wilson "
                   "interval.")
def ladder_estimators() -> Outcome:
    """Seven accuracy curves (rising, non-monotone, crossing on a grid point, uneven grid, flat, plateau at the
    second point, falling first) against the exact rational crossing of ``theorylab.certificates.reference.trainstats``; a
    slope against the closed form; every field of five seed summaries; the seed bootstrap replayed."""
    from theorylab.certificates.reference import trainstats as ref_stats

    gamma_c, slope, summary = trainstats.gamma_c, trainstats.loglog_slope, trainstats.seed_summary
    curves = {"rising": ([0, 0.5, 1, 1.5, 2], [0.1, 0.15, 0.4, 0.8, 0.9]),
              "non-monotone": ([0, 0.25, 0.75, 1.5, 3], [0.2, 0.3, 0.25, 0.7, 0.6]),
              "on a grid point": ([0, 1, 2, 4], [0.0, 0.25, 0.5, 1.0]),
              "uneven grid": ([0, 0.1, 0.3, 0.7, 1.5, 3.1], [0.05, 0.05, 0.2, 0.35, 0.6, 0.65]),
              "flat": ([0, 1, 2], [0.3, 0.3, 0.2]),
              "plateau at the second point": ([0, 1, 2, 3], [0.1, 0.5, 0.4, 0.45]),
              "falls first, never above a(0)": ([0, 1, 2], [0.5, 0.2, 0.4])}
    got = {k: gamma_c(g, a) for k, (g, a) in curves.items()}
    exact = {k: ref_stats.gamma_c(g, a) for k, (g, a) in curves.items()}
    errs = {k: (0.0 if got[k] is None and exact[k] is None else
                abs(got[k] - float(exact[k])) / float(exact[k]) if got[k] is not None and exact[k] is not None
                else np.inf) for k in curves}
    dks, gcs = [8, 16, 32, 64], [1.29, 0.61, 0.33, 0.12]
    err_slope = abs(slope(dks, gcs) - ref_stats.loglog_slope(dks, gcs))
    err_summary, summary_rows = _summary_fields(summary)
    boot_ok, boot_err, boot_nans = _bootstrap_check(trainstats.bootstrap_gamma_c)
    lib = summary(*SUMMARY_CASES["4 seeds, fractional hits (ties credited 1/k)"])
    passed = max(errs.values()) <= 1e-15 and got["on a grid point"] == 2.0 and err_slope <= 1e-13 and \
        err_summary <= 1e-13 and boot_ok
    return Outcome(bool(passed), (
        computed("gamma_c per curve (library)", {k: v for k, v in got.items()}),
        computed("gamma_c per curve (reference, exact rationals)", {k: None if v is None else str(v)
                                                                     for k, v in exact.items()}),
        computed("max relative |library - exact| (both None for the flat and the falling curve)", max(errs.values()),
                 tolerance=1e-15),
        bound("crossing on a grid point: gamma_c = 2 attained exactly", got["on a grid point"], formula="== 2"),
        computed("log-log slope: |library - closed-form least squares|", err_slope, tolerance=1e-13),
        computed("seed summaries (1 to 4 seeds, clipped t intervals, an accuracy of 0, fractional hits): every field "
                 "(seeds, mean, sd, t interval, pooled Wilson at z = 1.959964; NaN sd / None t interval for one seed) "
                 "vs reference.trainstats.seed_summary_row, max abs per case (inf: a field missing, extra or of "
                 "the wrong kind); one seed without a warning", summary_rows, tolerance=1e-13),
        computed("bootstrap gamma_c (3 seeds, the default 2000 resamples, 2000 returned): values == the exact gamma_c of the 10 seed multisets "
                 "(9 distinct), each attained; draws at seeds 0 and 5 == the reference replay of the stream "
                 "default_rng(seed), max abs (NaN where a resample never rises, per set: count)",
                 [bool(boot_ok), boot_err, boot_nans], tolerance=1e-13)),
        arrays={"gamma_c_library": np.array([np.nan if v is None else v for v in got.values()]),
                "seed_summary_library": np.array([lib[k] for k in ("mean", "sd", "t_low", "t_high", "wilson_low",
                                                                    "wilson_high")])},
        note="second route: theorylab.certificates.reference.trainstats (exact rationals; closed-form least squares; the seed "
             "summary row; the bootstrap's stream replayed) and theorylab.certificates.reference.optim.wilson")


OBSERVABLE_CURVES = {
    "rising": ([0, 0.5, 1, 1.5, 2], [0.1, 0.15, 0.4, 0.8, 0.9]),
    "non-monotone, falls after its peak": ([0, 0.25, 0.75, 1.5, 3], [0.2, 0.3, 0.25, 0.7, 0.6]),
    "reaches 0.5 and its midpoint on grid points": ([0, 1, 2, 4], [0.0, 0.25, 0.5, 1.0]),
    "uneven grid": ([0, 0.1, 0.3, 0.7, 1.5, 3.1], [0.05, 0.05, 0.2, 0.35, 0.6, 0.65]),
    "two equal steepest rises (dyadic: exact ties)": ([0, 1, 2, 3], [0.125, 0.375, 0.625, 0.75]),
    "never reaches 0.5": ([0, 0.5, 1], [0.1, 0.3, 0.45]),
    "above 0.5 at gamma = 0": ([0, 1, 2], [0.55, 0.6, 0.9]),
    "never rises": ([0, 1, 2], [0.5, 0.2, 0.4]),
    "dips below its gamma = 0 value before it rises": ([0, 1, 2, 3], [0.3, 0.2, 0.6, 0.9]),
    "flat, then falls (largest rise exactly 0)": ([0, 1, 2], [0.3, 0.3, 0.2])}
"""Accuracy curves whose three gamma_c are held to reference.ladder_observables (exact rationals)."""
SLOPE_DKS = [8, 16, 32, 64]
SLOPE_GRID = [0, 0.25, 0.5, 1, 2]
SLOPE_SEEDS = [[[0.06, 0.1, 0.3, 0.45, 0.6], [0.07, 0.12, 0.25, 0.42, 0.45], [0.05, 0.08, 0.35, 0.44, 0.48]],
               [[0.06, 0.2, 0.5, 0.7, 0.72], [0.07, 0.3, 0.55, 0.75, 0.7], [0.06, 0.15, 0.45, 0.68, 0.74]],
               [[0.07, 0.45, 0.8, 0.9, 0.92], [0.07, 0.5, 0.85, 0.93, 0.9], [0.08, 0.4, 0.75, 0.88, 0.95]],
               [[0.07, 0.7, 0.95, 0.99, 0.99], [0.07, 0.65, 0.93, 0.98, 0.99], [0.06, 0.75, 0.96, 0.99, 1.0]]]
"""Three seeds per dk of a ladder whose gamma_c falls with dk; dk = 8's seeds straddle 0.5, so some resamples of
the half-accuracy reading have no gamma_c (unusable draws)."""


def _observable_errors(curve_gamma_c, half_accuracy) -> tuple[float, dict, list]:
    """Max relative |library - exact| over OBSERVABLE_CURVES x the three observables (inf where exactly one of
    the two is None), the values per curve, and the grid-point readings that must come out exact."""
    from theorylab.certificates.reference import ladder_observables as ref

    err, values, exact_hits = 0.0, {}, []
    for name, (g, a) in OBSERVABLE_CURVES.items():
        row = {}
        for obs, rule in ref.OBSERVABLES.items():
            got, want = curve_gamma_c(g, a, obs), rule(g, a)
            e = 0.0 if got is None and want is None else np.inf if (got is None) != (want is None) \
                else abs(got - float(want)) / float(want)
            err, row[obs] = max(err, e), got
        got, want = half_accuracy(g, a, level=0.3), ref.crossing(g, a, 0.3)
        err = max(err, 0.0 if got is None and want is None else np.inf if (got is None) != (want is None)
                  else abs(got - float(want)) / float(want))
        values[name] = row
    grid = values["reaches 0.5 and its midpoint on grid points"]
    exact_hits = [grid["half-accuracy"], grid["plateau-midpoint"],
                  values["two equal steepest rises (dyadic: exact ties)"]["steepest-segment"]]
    return err, values, exact_hits


def _slope_errors(ladder_slope) -> tuple[float, dict]:
    """ladder_slope per observable against the reference replay: gamma_c, slope, interval (relative 1e-12),
    usable draws (exactly); a ladder whose fitted dks are one width twice: no slope, no draws (as the reference)."""
    from theorylab.certificates.reference import ladder_observables as ref

    err, rows = 0.0, {}
    for obs in ref.OBSERVABLES:
        got = ladder_slope(SLOPE_DKS, SLOPE_GRID, [np.array(s) for s in SLOPE_SEEDS], obs, draws=200, seed=3)
        want = ref.ladder_slope(SLOPE_DKS, SLOPE_GRID, SLOPE_SEEDS, obs, draws=200, seed=3)
        e = 0.0 if got["usable_draws"] == want["usable_draws"] and got["draws"] == 200 else np.inf
        for k in ("slope", "ci_low", "ci_high"):
            e = max(e, np.inf if (got[k] is None) != (want[k] is None) else
                    0.0 if want[k] is None else abs(got[k] - want[k]) / abs(want[k]))
        for u, w in zip(got["gamma_c"], want["gamma_c"]):
            e = max(e, np.inf if (u is None) != (w is None) else 0.0 if w is None else abs(u - w) / w)
        err = max(err, e)
        rows[obs] = {"slope": got["slope"], "ci": [got["ci_low"], got["ci_high"]], "usable": got["usable_draws"]}
    # a ladder whose only dks with a gamma_c are one width twice (dk = 16 never rises): no slope (one distinct x)
    flat = [[0.3, 0.3, 0.3, 0.3, 0.3]] * 3
    got = ladder_slope([8, 8, 16], SLOPE_GRID, [np.array(SLOPE_SEEDS[0]), np.array(SLOPE_SEEDS[1]), np.array(flat)],
                       "plateau-midpoint", draws=20, seed=0)
    want = ref.ladder_slope([8, 8, 16], SLOPE_GRID, [SLOPE_SEEDS[0], SLOPE_SEEDS[1], flat], "plateau-midpoint", 20, 0)
    same = all(got[k] is None and want[k] is None for k in ("slope", "ci_low", "ci_high")) and \
        got["usable_draws"] == want["usable_draws"] == 0 and len(want["gamma_c"]) == 3 and want["gamma_c"][2] is None
    err = max(err, 0.0 if same else np.inf)
    rows["dks 8, 8, 16 (16 flat): one distinct fitted dk"] = {"slope": got["slope"], "ci": [got["ci_low"], got["ci_high"]],
                                                               "usable": got["usable_draws"]}
    return err, rows


@certificate("P23.observables", title="The ladder's three gamma_c observables and its bootstrap slope equal their "
                                      "definitions", paper="PSA §7.11", method="numeric",
             claim="theorylab.nn.ladder reads gamma_c of an accuracy curve as the first crossing of the midpoint "
                   "between its gamma = 0 value and its plateau, as the centre of the first steepest segment, and "
                   "as the first crossing of 50 % (None where undefined); ladder_slope is the least-squares slope "
                   "of log gamma_c on log dk with the 2.5/97.5 percentiles of the per-dk seed bootstrap.")
def ladder_observables() -> Outcome:
    """Ten curves x three observables (and a 30 % threshold) against exact rationals; the slope of a four-dk
    ladder by each observable against the reference replay of its bootstrap stream."""
    from theorylab.nn import ladder

    err, values, hits = _observable_errors(ladder.curve_gamma_c, ladder.half_accuracy)
    slope_err, slopes = _slope_errors(ladder.ladder_slope)
    usable = slopes["half-accuracy"]["usable"]
    passed = err <= 1e-15 and hits == [2.0, 2.0, 0.5] and slope_err <= 1e-12 and 0 < usable < 200
    return Outcome(bool(passed), (
        computed("gamma_c per curve and observable (library)", values),
        computed("max relative |library - exact rational| over 10 curves x 3 observables and the 30 % threshold "
                 "(inf where exactly one is None)", err, tolerance=1e-15),
        bound("grid-point readings attained exactly: half accuracy, plateau midpoint, first of two equal steepest "
              "segments", hits, formula="== [2, 2, 0.5]"),
        computed("ladder_slope per observable (library): slope, 95 % interval, usable of 200 draws", slopes),
        computed("max relative |library - reference replay| of gamma_c, slope and interval; usable draws equal",
                 slope_err, tolerance=1e-12),
        bound("half-accuracy: some resamples have no gamma_c (dk = 8 straddles 0.5)", usable,
              formula="0 < usable < 200")),
        arrays={"gamma_c_library": np.array([np.nan if v is None else v
                                             for row in values.values() for v in row.values()]),
                "slopes_library": np.array([[np.nan if x is None else x for x in (r["slope"], *r["ci"])]
                                            for r in slopes.values()])},
        note="second route: theorylab.certificates.reference.ladder_observables (exact rationals of the binary "
             "floats; the bootstrap stream replayed; percentiles by linear interpolation of order statistics)")

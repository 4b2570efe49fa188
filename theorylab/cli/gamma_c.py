"""``theorylab gamma-c``: predicted critical couplings of the PSA reduced score model."""
from __future__ import annotations

import argparse

from theorylab.cli._args import (SEED_HELP, add_progress_option, add_resource_options, check_cost, integer,
                                 refuse_unread, seed, show_progress)
from theorylab.cli._output import add_format_option, emit, rows_cost

HELP = """\
Predicted critical coupling gamma_c of the PSA reduced Gaussian score model, one row
per (dk, T, variant) over the full cross product. Conventions: m = T - 2 distractors,
L = ln(T - 1). Variants: t4-only (two-branch law: mean-field root for dk >= 8L,
condensed branch c (L/2)^(1/4) below), t3-inclusive, key-only and
symmetric-key-convention (annealed root; gamma_c is null with branch 'none' where no
root exists).

--method chooses the route: 'annealed' (default, the closed-form law above), 'exact'
(the reduced model's own coupling, by quadrature) or 'mc' (the same from Monte Carlo
with --samples and --seed, plus its 95 % batch-means confidence interval ci_low,
ci_high). With exact/mc, --observable names where the coupling is read
(theorylab.psa.observables): mass-half (default: first g where the mean target mass
reaches 1/2), half-plateau (half the argmax plateau), inflection (argmax dM/dg),
entropy-peak (argmax of -dE[H]/d(g^2), H the attention row's entropy; the observable
the t4-only condensed branch is calibrated on) or distractor-entropy-peak. 'branch'
always names the law's branch at that point; with exact/mc it is 'none' where the
observable does not exist for g <= 10 (e.g. the mass never reaches 1/2)."""


def register(sub) -> None:
    from theorylab.psa.scoremodel import VARIANTS
    p = sub.add_parser("gamma-c", help="predicted critical couplings gamma_c (PSA)",
                       description=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dk", type=float, nargs="+", required=True, metavar="DK",
                   help="head widths (> 0), e.g. --dk 64 128")
    p.add_argument("--T", type=float, nargs="+", required=True, metavar="T",
                   help="context lengths (>= 3), e.g. --T 15 512")
    p.add_argument("--variant", nargs="+", default=["all"], choices=VARIANTS + ("all",),
                   help="score-model variant(s), or 'all' (default)")
    p.add_argument("--c", type=float, default=None,
                   help="condensation constant of the t4-only condensed branch "
                        "(default: the library's CONDENSATION_C)")
    p.add_argument("--method", choices=("annealed", "exact", "mc"), default="annealed",
                   help="annealed closed form (default), exact quadrature, or mc simulation")
    from theorylab.psa.observables import OBSERVABLE_NAMES
    p.add_argument("--observable", choices=OBSERVABLE_NAMES, default=None,
                   help="transition observable with --method exact or mc (default mass-half)")
    p.add_argument("--samples", type=integer(1), default=None,
                   help="Monte Carlo samples per point with --method mc, an integer >= 1 (default 20000)")
    p.add_argument("--seed", type=seed, default=None, help=f"Monte Carlo seed with --method mc, {SEED_HELP} (default 0)")
    add_progress_option(p)
    add_format_option(p)
    add_resource_options(p)
    p.set_defaults(handler=run)


DEFAULT_SAMPLES, DEFAULT_SEED = 20000, 0


def gamma_c_rows(dks, Ts, variants, c=None) -> list[dict]:
    """One row per (dk, T, variant): dk, T, variant, L, gamma_c, branch (+ band_upper for t4-only)."""
    import numpy as np

    from theorylab.psa import transition
    from theorylab.psa.scoremodel import VARIANTS

    variants = VARIANTS if "all" in variants else tuple(dict.fromkeys(variants))
    dk, T = np.meshgrid(np.asarray(dks, float), np.asarray(Ts, float), indexing="ij")
    kwargs = {} if c is None else {"c": c}
    laws = {v: transition.gamma_c(v, dk, T, **kwargs) for v in variants}
    rows = []
    for idx in np.ndindex(dk.shape):
        for v, law in laws.items():
            row = {"dk": _num(dk[idx]), "T": _num(T[idx]), "variant": v, "L": float(law.L[idx]),
                   "gamma_c": float(law.gamma_c[idx]), "branch": str(law.branch[idx])}
            if v == "t4-only":
                row["band_upper"] = float(law.band_upper[idx])
            rows.append(row)
    return rows


def _num(x: float):
    """An integral float below 2**53 (where every integer is exact) as int, anything else as float."""
    x = float(x)
    return int(x) if x.is_integer() and abs(x) < 2 ** 53 else x


def method_rows(rows: list[dict], method: str, samples: int, seed: int, observable: str = "mass-half",
                progress: bool | None = None) -> list[dict]:
    """Replace each row's gamma_c by the exact or Monte Carlo coupling of ``observable`` (adding method,
    observable, CI, samples, seed; :func:`theorylab.psa.observables.measure`); ``progress`` is the Monte
    Carlo progress bar's (None: only for a run expected to be long; False: never).

    With ``annealed`` the rows are returned unchanged (the command's original output)."""
    import math

    from theorylab.errors import positive_int
    from theorylab.psa.observables import measure

    if method == "annealed":
        return rows
    if method == "mc":
        samples = positive_int("--samples", samples)
        seed = positive_int("--seed", seed, low=0)
    out = []
    for r in rows:
        if method == "exact":
            g = measure(observable, r["variant"], r["dk"], _int_T(r["T"], "exact")).gamma_c
            extra = {}
        else:
            res = measure(observable, r["variant"], r["dk"], _int_T(r["T"]), method="mc", samples=samples, seed=seed,
                          progress=progress)
            g = res.gamma_c
            extra = {"ci_low": res.ci_low, "ci_high": res.ci_high, "samples": samples, "seed": seed}
        branch = r["branch"] if math.isfinite(g) else "none"
        out.append({**r, "gamma_c": g, "branch": branch, "method": method, "observable": observable, **extra})
    return out


def _int_T(T, method: str = "mc"):
    from theorylab.errors import ParameterError
    if not float(T).is_integer():
        raise ParameterError(f"T must be an integer >= 3 with --method {method} (got {T:g})")
    return int(T)


def method_cost(Ts, n_dk: int, n_variants: int, method: str, samples: int, observable: str = "mass-half"):
    """Peak memory and run time of :func:`method_rows` over the (dk, T, variant) cross product."""
    from theorylab.resources import Cost
    from theorylab.psa.observables import measure_cost

    if method == "annealed":
        return Cost()
    per_T = [measure_cost(observable, T, method=method, samples=samples) for T in Ts]
    return Cost(max(c.memory for c in per_T), sum(c.seconds for c in per_T) * n_dk * n_variants,
                f"{len(Ts) * n_dk * n_variants} {method} {observable} couplings")


def run(args) -> int:
    from theorylab.errors import ParameterError
    from theorylab.psa.scoremodel import VARIANTS

    variants = VARIANTS if "all" in args.variant else tuple(dict.fromkeys(args.variant))
    if args.method != "mc":
        refuse_unread({"--samples": args.samples is not None, "--seed": args.seed is not None},
                      f"with --method {args.method} (only with --method mc)")
    if args.method == "annealed":
        refuse_unread({"--observable": args.observable is not None},
                      "with --method annealed (only with --method exact or mc)")
    observable = args.observable or "mass-half"
    if args.c is not None and (args.method != "annealed" or "t4-only" not in variants):
        raise ParameterError("--c is read only by the t4-only law (--method annealed with variant t4-only or all)")
    samples = DEFAULT_SAMPLES if args.samples is None else args.samples
    seed = DEFAULT_SEED if args.seed is None else args.seed
    check_cost(args, rows_cost(len(args.dk) * len(args.T) * len(variants)))
    rows = gamma_c_rows(args.dk, args.T, variants, args.c)
    if args.method != "annealed":
        for r in rows:
            _int_T(r["T"], args.method)
    check_cost(args, method_cost(args.T, len(args.dk), len(variants), args.method, samples, observable))
    rows = method_rows(rows, args.method, samples, seed, observable, None if show_progress(args) else False)
    columns = ["dk", "T", "variant", "L", "gamma_c", "branch", "band_upper"]
    if args.method != "annealed":
        columns += ["method", "observable"] + (["ci_low", "ci_high", "samples", "seed"] if args.method == "mc" else [])
    emit(rows, args.format, columns=columns)
    return 0

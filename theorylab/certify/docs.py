"""Coverage of the claims catalogue and the generated page ``docs/certificates.md``.

Everything here is read off the registry and the catalogue, so the page cannot drift:
the claim of each row, the library functions each certificate checks (the theorylab
callables its code names, read off its code objects), the certificate itself (id and Python function),
its method and, when results are given, its status.
"""
from __future__ import annotations

import inspect
import json
import warnings
from pathlib import Path

from theorylab.certify.catalogue import CATALOGUE, pending_reason
from theorylab.certify.registry import CertificateSpec, select

METHOD_KEYS = {"S": "exact", "I": "interval", "N": "numeric", "MC": "monte-carlo"}
PAPERS = {"P": "PSA — Phase Space Attention", "A": "PLGA — Power Law Graph Attention",
          "G": "GLLM — Hierarchical Grading"}


def expected_methods(cid: str) -> set[str]:
    """Methods the catalogue asks of row ``cid`` (``S + N`` -> {exact, numeric})."""
    return {METHOD_KEYS[k.strip()] for k in CATALOGUE[cid][1].split("+")}


def coverage(specs: list[CertificateSpec] | None = None) -> list[dict]:
    """One entry per catalogue row: ``status`` covered | partial | pending, the certificates and the reason."""
    specs = select() if specs is None else specs
    by_row: dict[str, list[CertificateSpec]] = {}
    for spec in specs:
        by_row.setdefault(spec.claim_id, []).append(spec)
    rows = []
    for cid in CATALOGUE:
        found = by_row.get(cid, [])
        missing = expected_methods(cid) - {s.method for s in found}
        # an exact certificate also discharges a numeric part, an interval one a numeric part
        if "numeric" in missing and {"exact", "interval"} & {s.method for s in found}:
            missing.discard("numeric")
        if not found:
            status, reason = "pending", pending_reason(cid)
        elif missing:
            status, reason = "partial", f"no {' or '.join(sorted(missing))} certificate yet (catalogue method {CATALOGUE[cid][1]})"
        else:
            status, reason = "covered", ""
        rows.append({"id": cid, "status": status, "certificates": found, "reason": reason})
    return rows


def library_functions(spec: CertificateSpec) -> list[str]:
    """The library functions a certificate calls: the theorylab callables (outside the certificates and
    their framework) that its code and the helpers of its own module it calls load, by name or as an
    attribute of a library module (``attention.streams``), read off their bytecode."""
    import dis
    import types

    found: list[str] = []
    seen_code: set = set()

    def library(obj) -> str | None:
        module = getattr(obj, "__module__", None) or ""
        if not module.startswith("theorylab.") or module.startswith(("theorylab.certif", "theorylab.errors")):
            return None
        return f"{module}.{getattr(obj, '__qualname__', getattr(obj, '__name__', ''))}"

    def visit(code: types.CodeType, namespace: dict, local: dict) -> None:
        """``local``: names bound by imports in the code (or in the code enclosing it, for closures)."""
        if code in seen_code:
            return
        seen_code.add(code)
        local = dict(local)
        module = None                       # the library module just loaded, whose attribute may come next
        imported = stored = None
        for ins in dis.get_instructions(code):
            if module is not None and ins.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                name = library(getattr(module, ins.argval, None))
                if name and callable(getattr(module, ins.argval)):
                    found.append(name)
            module = None
            if ins.opname == "IMPORT_NAME":
                imported = ins.argval if str(ins.argval).startswith("theorylab.") else None
            elif ins.opname == "IMPORT_FROM" and imported:
                stored = _imported(imported, ins.argval)
            elif ins.opname.startswith("STORE_") and stored is not None:
                names = ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)
                local[names[0]], stored = stored, None
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                objs = [namespace.get(ins.argval)]
            elif "LOAD_FAST" in ins.opname or ins.opname in ("LOAD_DEREF", "LOAD_CLOSURE"):
                names = ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)   # 3.13: LOAD_FAST_LOAD_FAST
                if ins.opname.startswith("STORE_FAST_LOAD_FAST"):                         # and STORE_FAST_LOAD_FAST
                    names = names[1:]
                objs = [local.get(n) for n in names]
            else:
                continue
            for obj in objs:
                module = None
                if isinstance(obj, types.ModuleType):
                    if obj.__name__.startswith("theorylab.") and not obj.__name__.startswith("theorylab.certif"):
                        module = obj
                elif callable(obj):
                    if library(obj):
                        found.append(library(obj))
                    elif isinstance(obj, types.FunctionType) and obj.__module__ == spec.check.__module__:
                        visit(obj.__code__, obj.__globals__, {})          # a sub-check of the same module
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                visit(const, namespace, local)

    check = inspect.unwrap(spec.check)
    for param in inspect.signature(check).parameters.values():
        if callable(param.default) and library(param.default):
            found.append(library(param.default))
    with warnings.catch_warnings():     # a certificate may still name a moved function by its old module
        warnings.simplefilter("ignore", DeprecationWarning)       # (theorylab._moved): the object is the same
        visit(check.__code__, check.__globals__, {})
    return sorted(set(found))        # sorted: code objects list their names in an order that varies by Python


def _imported(module: str, name: str):
    """What ``from module import name`` binds, for a library ``module`` named in a certificate's own
    bytecode: the attribute, or the submodule ``module.name`` (imported, so that the answer does not
    depend on which submodules happen to be loaded already)."""
    import importlib

    parent = importlib.import_module(module)
    if not hasattr(parent, name):
        try:
            importlib.import_module(f"{module}.{name}")
        except ImportError:
            return None
    return getattr(parent, name, None)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


NOTES = """\
## Conventions and scope of the PSA certificates (named here because the paper leaves them open)

- **Streams and momentum** (`theorylab.psa.shear`; RoPE and placement `theorylab.psa.rotary`): a stream is `(..., T, d)`; momentum is the first
  difference along positions with `p_0 = 0`; the sheared stream is `(1+g) x_t - g x_{t-1}`. RoPE rotates
  interleaved pairs `(2i, 2i+1)` by `t * base^(-2i/d)`. Placement `post-rope` = shear(rope(x)) (the paper's);
  `pre-rope` = rope(shear(x)).
- **Exact route**: the symbolic certificates feed SymPy symbols (NumPy object arrays) through the library's own
  NumPy operators and decide identities with `theorylab.symbolic.exact` (numerator of one fraction is the zero
  polynomial over QQ); a non-rational expression raises `Undecided` -> ERROR. Trigonometry enters only through
  `u = tan(theta/2)` (cos, sin rational in u), so the Coriolis identity is a rational-function identity.
- **P5 filter order** is read off the polynomial support of `q'_t . k'_s` in the raw stream symbols.
- **P6**: "transported increment" is read as `gbar (p_q.k + q.p_k)` (the Leibniz increment of `q.k`) and the
  linear score bias as `delta (p_q.k - q.p_k)`, `gbar, delta = (g_q +/- g_k)/2` (`scores.coupling_split`).
- **P7 uniqueness** is proven for two-tap stream maps with scalar taps `(a, b)` (multiples of the identity, which
  commute with every RoPE rotation): DC gain 1 forces `a = 1 - b`; strict high-pass (SymPy solves
  `d|H|^2/dcos w = 2(1-b)b < 0`) gives `b < 0` or `b > 1`, i.e. the shear's taps `(1+g, -g)` with `g(1+g) > 0`:
  unique up to g, but g < -1 (taps such as `(-1, 2)`, which flip the current token's sign) is high-pass too.
  Only the extra constraint of a positive current tap `a > 0` selects the paper's range `g > 0`.
  Matrix-valued taps are outside this certificate.
- **P8**: codimension is the exact rank of the linear constraints `Df^T = Df` (SymPy rank for d = 2..4, sparse
  fraction-free elimination at d = 64); scale-uniformity is tested for polynomial `f` up to degree 4.
- **P14-P16 (interval)**: `theorylab.certify.interval` rebuilds `f(g) = sqrt(dk) gap(g) - ln(T-1) - var(g)/2`
  with outward-rounded mpmath intervals (120 bits) and isolates roots by exclusion; a root is certified simple
  (strict endpoint sign change, derivative excluding 0). A quote such as `0.7867` is proven when the whole
  enclosure rounds to it (here: inside `[0.78665, 0.78675)`). Thresholds (`d*_k`, `4L + 2`, the first T3-inclusive
  root) are proven by "no positive root" just below and "a root" just above (relative 1e-6).
- **P15 scope**: "T4-only gamma_c > 1 iff 8L <= dk < (L+2)^2" holds for `L >= 2` (T >= e^2 + 1 ~ 8.4; checked at
  T = 15, 64, 512, 4096). For `L < 2` the interval is non-empty but gamma_c < 1 inside it (evidence at T = 5).
- **P12** is proven with `u = exp(s)` as positive symbols: every eps-derivative of `softmax(s + eps d)` at 0 is
  rational in `(u, d)`.
"""


MUTATION_RESULTS = (("results/mutation.json", "current"), ("results/mutation-recheck.json", "survivors re-run"),
                    ("results/mutation-baseline.json", "baseline"))
"""Committed results of ``theorylab mutate`` shown on the page (path relative to the checkout, label)."""


def mutation_section(root: Path | None = None) -> str:
    """The mutation-score table from the committed results (``root``: the checkout; default: the library's)."""
    root = Path(__file__).resolve().parents[2] if root is None else Path(root)
    found = []
    for path, label in MUTATION_RESULTS:
        try:
            found.append((path, label, json.loads((root / path).read_text())))
        except (OSError, ValueError):
            continue
    packages = ", ".join(found[0][2].get("settings", {}).get("packages") or ()) if found else ""
    lines = ["## Mutation score of the library (`theorylab mutate`)", "",
             f"Plausible one-line mutants of the packages {packages or 'of the library'} (operator swaps,",
             "constants, comparison flips, dropped terms, removed wrappers, off-by-one bounds, and/or) are planted one",
             "at a time in a copy of the library; a mutant is killed when `theorylab certify` FAILs or ERRORs on it",
             "(only the certificates that execute the mutated line run). Score = killed / (mutants - equivalent);",
             "equivalent mutants are listed with their reason in `results/mutation-equivalent.toml`. Reproduce",
             "(hours on two cores): `nice -n 10 theorylab mutate --out results/mutation.json`.", ""]
    if not found:
        return "\n".join(lines + ["No committed mutation result found.", ""])
    for path, label, result in found:
        git = result.get("git") or {}
        commit = (git.get("commit") or "unknown")[:7] + (" (dirty)" if git.get("dirty") else "")
        sampled = "score_ci95" in result["scores"][0]
        settings = result.get("settings", {})
        how = (f"a seeded sample of {settings['per_package']} mutants per package, "
               f"`theorylab mutate --per-package {settings['per_package']} --seed {settings.get('seed', 0)}`, "
               if settings.get("per_package") else "")
        lines += [f"**{label}** ({how}`{path}`, library commit {commit}, {result.get('seconds', 0) / 3600:.1f} h):", ""]
        if result.get("note"):
            lines += [result["note"], ""]
        lines += ["| package | mutants (equivalent) | killed (timeout) | survived (not covered) | score |"
                  + (" of all mutants | 95 % interval |" if sampled else ""),
                  "|---|---|---|---|---|" + ("---|---|" if sampled else "")]
        for r in result["scores"]:
            score = "—" if r["score_percent"] is None else f"{r['score_percent']:.1f} %"
            row = (f"| {r['package']} | {r['mutants']} ({r['equivalent']}) | {r['killed'] + r['timeout']} "
                   f"({r['timeout']}) | {r['survived'] + r['not_covered']} ({r['not_covered']}) | {score} |")
            if sampled:
                ci = r["score_ci95"]
                row += f" {r['population']} | " + ("—" if ci is None else f"{ci[0]:.1f}–{ci[1]:.1f} %") + " |"
            lines.append(row)
        lines.append("")
    excluded = found[0][2].get("excluded", {})
    if excluded:
        lines += ["Not mutated: " + "; ".join(f"`{k}` ({v})" for k, v in excluded.items()) + ".", ""]
    return "\n".join(lines)


def markdown(statuses: dict[str, str] | None = None, specs: list[CertificateSpec] | None = None) -> str:
    """The page: one table per paper, rows = certificates (and pending catalogue rows).

    ``statuses`` maps certificate id -> PASS/FAIL/ERROR/SKIP from a run; without it the
    status column reads ``not run``.
    """
    specs = select() if specs is None else specs
    cov = coverage(specs)
    lines = ["# Certificates: claim -> library function -> certificate -> method -> status", "",
             "Generated by `theorylab certify --docs docs/certificates.md` from the certificate registry and the",
             "claims catalogue (`theorylab/certify/catalogue.py`); `tests/test_certify_framework.py` fails when it is out of date.",
             "The status column is the result of the run that generated the page.", "",
             "Methods: **exact** (SymPy, decided by exact polynomial/rational arithmetic; undecidable is ERROR),",
             "**interval** (mpmath `iv` outward rounding; quoted digits proven), **numeric** (floating point at a stated",
             "tolerance), **monte-carlo** (fixed default seeds, other draws with `--seed N`; thresholds set from a stated",
             "false-failure probability, see the budget below; SHA-256 of raw arrays).", "",
             "The library functions listed are those a certificate's code calls; its planted bugs in",
             "`tests/planted/` change one of them in a copy of the library and see it FAIL.", ""]
    n_cov = sum(r["status"] == "covered" for r in cov)
    n_part = sum(r["status"] == "partial" for r in cov)
    lines += [f"Coverage: {n_cov} rows covered, {n_part} partial, {len(cov) - n_cov - n_part} pending, "
              f"of {len(cov)}; {len(specs)} certificates.", ""]
    for prefix, title in PAPERS.items():
        lines += [f"## {title}", "", "| row | claim | library functions | certificate | method | status |",
                  "|---|---|---|---|---|---|"]
        for row in cov:
            cid = row["id"]
            if not cid.startswith(prefix):
                continue
            claim = _cell(CATALOGUE[cid][0])
            if not row["certificates"]:
                lines.append(f"| {cid} | {claim} | — | — | {CATALOGUE[cid][1]} | pending: {_cell(row['reason'])} |")
                continue
            for k, spec in enumerate(row["certificates"]):
                funcs = "<br>".join(f"`{f}`" for f in library_functions(spec)) or "—"
                cert = f"`{spec.id}` `{spec.check.__module__}.{spec.check.__name__}`"
                status = (statuses or {}).get(spec.id, "not run")
                shown_claim = claim if k == 0 else "〃"
                lines.append(f"| {cid if k == 0 else ''} | {shown_claim} | {funcs} | {cert} | {spec.method} | {status} |")
            if row["status"] == "partial":
                lines.append(f"| | | | | | partial: {_cell(row['reason'])} |")
        lines.append("")
    lines += budget_lines(specs)
    lines.append(mutation_section())
    lines.append(NOTES)
    return "\n".join(lines).rstrip() + "\n"


def budget_lines(specs: list[CertificateSpec]) -> list[str]:
    """The false-failure budget table: each Monte Carlo certificate's probability of failing a correct library."""
    from theorylab.certify.montecarlo import FALSE_FAILURE_BUDGET
    from theorylab.certify.registry import false_failure_total

    mc = [s for s in specs if s.method == "monte-carlo"]
    lines = ["## False-failure budget", "",
             "A Monte Carlo certificate can FAIL a correct library by bad luck. Each declares that probability",
             "(`false_failure` in its registration) and sets its thresholds from it: the probability is split over its",
             "statistical tests (Bonferroni) and each test's threshold is the quantile of its share -- empirical",
             "Bernstein half-widths for mean masses (non-asymptotic), normal / Student t / chi-square quantiles for roots,",
             "batch means and mean losses (asymptotic). Deterministic comparisons inside a Monte Carlo certificate take",
             "no share. `theorylab certify --seed N` re-runs them with other draws. Details: docs/simulation.md.", "",
             "| certificate | false-failure probability | how its thresholds are set (its docstring) |", "|---|---|---|"]
    lines += [f"| `{s.id}` | {s.false_failure:.1e} | {_cell(' '.join(inspect.getdoc(s.check).split()))} |" for s in mc]
    lines += [f"| **total** | **{false_failure_total(mc):.1e}** (budget {FALSE_FAILURE_BUDGET:g}) | |", ""]
    return lines


def without_status(page: str) -> str:
    """The page with each table row's status cell blanked (what the registry alone determines)."""
    out = []
    for line in page.splitlines():
        if line.startswith("| ") and not line.startswith("| row ") and line.count("|") >= 7:
            line = line[: line.rstrip().rstrip("|").rstrip().rfind("|")] + "| |"
        out.append(line)
    return "\n".join(out)

"""The training-parameter overhead of grading at the planned scales (GLLM §8.1.1, §8.1.3): G11.

The LIBRARY's counts (``theorylab.graded.overhead.grading_overhead``) are held against integer arithmetic from
the paper's formulas (``theorylab.certificates.reference.quoted_laws.grading_overhead``); the shares against
exact fractions. The shapes are the paper's; the vocabulary sizes are the mirrored models' (GPT-2, LLaMA).
"""
from __future__ import annotations

from fractions import Fraction

from theorylab.certificates.reference import quoted_laws as ref
from theorylab.certify import Outcome, certificate, computed
from theorylab.graded import overhead

SHAPES = {"GLLM-Medium": (1024, 24, 16, 50257, 345_000_000, "0.33"),
          "GLLM-7B": (4096, 32, 32, 32000, 7_000_000_000, "0.24")}
"""§8.1.1's shapes (d, K, H, |V|, N) and the quoted share of N in percent."""


@certificate("G11", title="Training overhead of grading: 0.33 % of 345M (GLLM-Medium), 0.24 % of 7B (GLLM-7B)",
             paper="GLLM §8.1.3", method="exact",
             claim="d^2 + K H d_k + d + |V| is 1,048,576 + 24,576 + 1,024 + 50,257 = 1,124,433 (0.326 % of 345M) at "
                   "GLLM-Medium and 16,777,216 + 131,072 + 4,096 + 32,000 = 16,944,384 (0.242 % of 7B) at GLLM-7B; the "
                   "paper's totals 1.13M and 17.0M are sums of its rounded terms (the exact totals round to 1.12M, 16.9M).")
def g11() -> Outcome:
    configurations = overhead.PLANNED_CONFIGURATIONS
    ev, ok = [], True
    for model, (d, K, H, V, N, quote) in SHAPES.items():
        shape = dict(configurations[model])
        ok &= shape == {"d": d, "layers": K, "heads": H, "vocab": V, "params": N}
        o = overhead.grading_overhead(**shape)
        terms = ref.grading_overhead(d, K, H, V)
        share = Fraction(sum(terms) * 100, N)
        counts = (o.projections, o.head_grades, o.level_grades, o.output_grades, o.total)
        ok &= (counts[:4] == terms and o.total == sum(terms) and all(type(v) is int for v in counts)
               and abs(o.fraction - float(share) / 100) <= 1e-15 and round(share, 2) == Fraction(quote))
        ev += [computed(f"{model}: library shape (PLANNED_CONFIGURATIONS)", shape),
               computed(f"{model}: library terms (d^2, K H d_k, d, |V|) and total (integers)",
                        [o.projections, o.head_grades, o.level_grades, o.output_grades, o.total]),
               computed(f"{model}: exact share of N in % (paper {quote})", float(share), tolerance=1e-13)]
    return Outcome(bool(ok), tuple(ev))

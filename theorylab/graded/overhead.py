"""Training-parameter overhead of grading (GLLM §8.1.3) for a model shape, and the paper's planned shapes (§8.1.1).

The overhead is the projections ``{P_l}`` at ``sum_l d d_l = d^2`` parameters, the head grades ``{q_h}`` at
``K H d_k`` (``d_k = d / H``), the level grades ``{q_l}`` at ``d`` and the output grades ``q_out`` at ``|V|``.
"""
from __future__ import annotations

from dataclasses import dataclass

from theorylab.errors import ParameterError, positive_int, real_scalar

__all__ = ["PLANNED_CONFIGURATIONS", "GradingOverhead", "grading_overhead"]

PLANNED_CONFIGURATIONS = {
    "GLLM-Medium": {"d": 1024, "layers": 24, "heads": 16, "vocab": 50257, "params": 345e6},
    "GLLM-7B": {"d": 4096, "layers": 32, "heads": 32, "vocab": 32000, "params": 7e9},
}
"""The two planned scales of GLLM §8.1.1: GLLM-Medium mirrors GPT-2-medium (24 layers, d = 1024, H = 16),
GLLM-7B mirrors LLaMA-7B (32 layers, d = 4096, H = 32). The paper gives no vocabulary size; ``vocab`` is the
mirrored model's (GPT-2's 50,257 and LLaMA's 32,000 tokens), the sizes its overhead terms 50.3K and 32K imply."""


@dataclass(frozen=True)
class GradingOverhead:
    """Parameter counts of grading's extra parameters (GLLM §8.1.3).

    Attributes
    ----------
    projections : ``d^2`` (the level projections).
    head_grades : ``K H d_k`` (one grade per head coordinate per layer).
    level_grades : ``d``.
    output_grades : ``|V|``.
    total : their sum.
    fraction : ``total / params`` (the overhead as a share of the model's parameter count).
    """

    projections: int
    head_grades: int
    level_grades: int
    output_grades: int
    total: int
    fraction: float


def grading_overhead(d: int, layers: int, heads: int, vocab: int, params: float) -> GradingOverhead:
    """The extra parameters grading trains at one model shape and their share of the model (GLLM §8.1.3).

    Parameters
    ----------
    d : model width (an integer multiple of ``heads``).
    layers : number of blocks K.
    heads : attention heads per block H (head width ``d_k = d / H``).
    vocab : vocabulary size ``|V|``.
    params : the model's parameter count N (> 0).

    Returns
    -------
    GradingOverhead

    Examples
    --------
    GLLM-Medium (paper: 1.05M + 24.6K + 1K + 50.3K ~ 1.13M, 0.33 % of 345M):

    >>> from theorylab.graded.overhead import grading_overhead, PLANNED_CONFIGURATIONS
    >>> o = grading_overhead(**PLANNED_CONFIGURATIONS["GLLM-Medium"])
    >>> o.projections, o.head_grades, o.level_grades, o.output_grades, o.total, round(100 * o.fraction, 2)
    (1048576, 24576, 1024, 50257, 1124433, 0.33)
    """
    d, layers, heads, vocab = (positive_int(n, v) for n, v in (("d", d), ("layers", layers), ("heads", heads),
                                                               ("vocab", vocab)))
    if d % heads:
        raise ParameterError(f"d must be a multiple of heads (got d = {d}, heads = {heads})")
    params = real_scalar("params", params, low=0, low_inclusive=False)
    dk = d // heads
    parts = (d * d, layers * heads * dk, d, vocab)
    total = sum(parts)
    return GradingOverhead(*parts, total, total / params)

"""Historical-row prefix consistency of a decoder (PLGA Definition 4.8, Remark 4.9; claim A9).

A decoder map ``F`` is prefix consistent when row r of ``F(x_1:S)`` equals the last row of
``F(x_1:r+1)`` for every r: the rows of one full pass are the sequential (deployed) conditionals.
:func:`prefix_logits` computes those conditionals for the NumPy decoder, :func:`prefix_consistency`
checks the definition for any map (both conjuncts of the authors' Lean ``PrefixConsistentShaped``:
length preserving, and the gap ``max_r |F(x)_r - F(x_1:r+1)_r|``), :func:`prefix_consistency_gap`
is the gap of the decoder's :func:`~theorylab.nn.transformer.forward`. Convention: rows are positions,
the gap is an absolute difference of logits (``inf`` where only one of the two calls has row r).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from theorylab.errors import ParameterError, describe, finite_result, real_scalar
from theorylab.nn.transformer import Decoder, _forward, forward, token_ids


def prefix_logits(model: Decoder, tokens) -> np.ndarray:
    """Row r = last row of ``forward(tokens[:r+1])``: the sequential (deployed) conditionals (PLGA eq. 4.8).

    Examples
    --------
    A causal SDPA decoder: the sequential conditionals equal the rows of one full pass:

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> model = nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, seed=0)
    >>> rows = nn.prefix_logits(model, [1, 2, 3, 4, 5])
    >>> rows.shape, bool(np.allclose(rows, nn.forward(model, [1, 2, 3, 4, 5]), rtol=0, atol=1e-12))
    ((5, 8), True)
    """
    tokens = token_ids(model, tokens)
    with np.errstate(over="ignore", invalid="ignore"):
        rows = np.stack([_forward(model, tokens[:r + 1])[-1] for r in range(len(tokens))])   # [T, V]
    return finite_result("model, tokens", rows)


@dataclass(frozen=True)
class PrefixConsistency:
    """PLGA Definition 4.8 as a bundle of two conjuncts (the authors' Lean ``PrefixConsistentShaped``).

    Attributes
    ----------
    length_preserving : the decoder returned one row per input row, on ``x`` and on every prefix of it.
    gap : ``max_r |F(x)_r - F(x_1:r+1)_r|`` over the rows ``r < |x|`` (``inf`` where one call has row r and the
        other has not; rows neither call has are skipped, so a decoder returning no rows has gap 0).
    """

    length_preserving: bool
    gap: float

    def holds(self, tol: float = 0.0) -> bool:
        """Both conjuncts: well shaped and every historical row within ``tol >= 0`` (Def. 4.8 at tolerance tol)."""
        return self.length_preserving and self.gap <= real_scalar("tol", tol, low=0)


def prefix_consistency(F: Callable, tokens) -> PrefixConsistency:
    """Check Definition 4.8 for any decoder map ``F`` (tokens -> array of output rows) on ``tokens`` (PLGA Def. 4.8,
    Remark 4.9). The gap alone is satisfied vacuously by a decoder that returns no rows; the shape conjunct excludes
    it (the authors' ``constNil_not_prefixConsistentShaped``).

    Examples
    --------
    A running sum is prefix consistent (PLGA Def. 4.8, §4.4-4.5); reversing the sequence is not;
    returning no rows has gap 0 but fails the shape conjunct:

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> nn.prefix_consistency(np.cumsum, [1, 2, 3])
    PrefixConsistency(length_preserving=True, gap=0.0)
    >>> r = nn.prefix_consistency(lambda x: x[::-1], [1, 2, 3])
    >>> r.gap, r.holds()
    (2.0, False)
    >>> nn.prefix_consistency(lambda x: x[:0], [1, 2, 3]).holds()
    False
    """
    try:
        x = np.atleast_1d(np.asarray(tokens))
    except (TypeError, ValueError, OverflowError):
        x = None
    if x is None or x.ndim != 1:
        raise ParameterError(f"tokens must be a 1-D sequence of inputs (got {describe(tokens)})")
    full = np.asarray(F(x))
    shaped, gap = len(full) == len(x), 0.0
    for r in range(len(x)):
        part = np.asarray(F(x[:r + 1]))
        shaped &= len(part) == r + 1
        has_full, has_part = r < len(full), r < len(part)
        if has_full != has_part:
            gap = np.inf                                                    # Some row vs None: not consistent
        elif has_full:
            gap = max(gap, float(np.max(np.abs(full[r] - part[r]))))
    return PrefixConsistency(bool(shaped), float(gap))


def prefix_consistency_gap(model: Decoder, tokens) -> float:
    """``max_r |F(x_1:S)_r - F(x_1:r)_r|``: zero iff historical-row prefix consistency holds (PLGA Def. 4.8).

    Examples
    --------
    SDPA and the cumulative-Gram PLGA head are prefix consistent (to rounding); the global Gram
    (PLGA eq. 3.2) lets later queries change earlier rows:

    >>> import theorylab.nn as nn
    >>> import theorylab.plga as plga
    >>> params = plga.init_params(4, seed=0)
    >>> gaps = [nn.prefix_consistency_gap(nn.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=h, seed=0),
    ...                                   [1, 2, 3, 4, 5])
    ...         for h in (nn.SDPA(), nn.PLGA(params, gram="cumulative"), nn.PLGA(params))]
    >>> [g < 1e-12 for g in gaps]
    [True, True, False]
    """
    return prefix_consistency(lambda t: forward(model, t), token_ids(model, tokens)).gap


__all__ = ["prefix_logits", "PrefixConsistency", "prefix_consistency", "prefix_consistency_gap"]

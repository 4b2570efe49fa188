"""What the decoder-level certificates share (no certificate lives here): the fixed token stream, the head width,
the library-vs-reference logit tolerances, the relative logit error and a PLGA head factory."""
from __future__ import annotations


import numpy as np

from theorylab.nn import specs
from theorylab.plga import operator as plga

TOKENS = np.array([3, 17, 3, 5, 29, 11, 3, 8, 21, 17, 2, 30, 3, 17])   # fixed token stream, vocab 32
DK = 8                                                                     # head width (d = 16, 2 heads)
TOL = 1e-13
"""Library vs reference logits, relative to max(1, max|logit|), for SDPA, PSA and graded heads: two float64
routes with different operation order (measured <= 1.5e-15 on these models)."""
TOL_PLGA = 1e-10
"""The same for PLGA heads: A_LM entries near eps = 1e-9 raised to the powers P amplify rounding (measured
<= 1.1e-12 on these models, the model's own rounding floor, docs/transformer.md); a wrong score scale, power or
cache moves the logits by > 1e-3."""


def _max_error(a, b) -> float:
    """max |a - b| relative to the logit scale max(1, max |b|)."""
    return float(np.max(np.abs(a - b)) / max(1.0, np.max(np.abs(b))))


def _plga(gram="global", **override):
    def make(layer, h):
        p = plga.init_params(DK, seed=10 * layer + h)
        return specs.PLGA(plga.PLGAParams(**{**p.__dict__, **override}) if override else p, gram)
    return make


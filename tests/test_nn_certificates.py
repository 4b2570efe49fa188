"""Certificates P10, P20, A1, A1.symbolic, A8, A9, G1.numeric pass; each FAILs on a deliberately wrong library."""
from dataclasses import replace

import numpy as np
import pytest

from theorylab.certify import run_one, select
from theorylab.nn import tasks
from theorylab.plga import operator as plga
from theorylab.psa import deploy

IDS = ["P10", "P20.numeric", "P20.exact", "A1", "A1.symbolic", "A8", "A9", "G1.numeric"]


def spec(cid):
    return next(s for s in select([cid.split(".")[0]]) if s.id == cid)


@pytest.mark.parametrize("cid", IDS)
def test_certificate_passes(cid):
    cert = run_one(spec(cid))
    assert cert.status == "PASS", cert.note


# ---------------------------------------------------------------- P20
# Wrong cache insertions (momentum restarted per block, raw keys cached, pre-RoPE shear), the A8 cache with
# position-zero RoPE, the P10 key stream without its shear and the G1 compile with a wrong diagonal are planted in
# the library: tests/test_planted_nn_cache.py.
def test_p20_numeric_fails_on_a_costlier_insertion():
    """Same values, 8d FLOPs: x + g x - g x_prev costs an extra operation per coordinate and stream."""
    assert run_one(spec("P20.numeric"), insert=lambda p, x, g: x + g * x - g * p).status == "FAIL"


def test_p20_exact_fails_on_wrong_bound_or_filter():
    assert run_one(spec("P20.exact"), headroom=lambda g: np.log2(1 + g)).status == "FAIL"
    doubled = lambda stream, g: deploy.range_growth(stream, 2 * g)           # wrong coupling in the filter
    assert run_one(spec("P20.exact"), range_growth=doubled).status == "FAIL"


# ---------------------------------------------------------------- P10
def test_p10_fails_when_query_only_is_really_key_side():
    swapped = lambda member, g, dk, T: tasks.induction_head("key-only" if member == "query-only" else member, g, dk, T)
    assert run_one(spec("P10"), head=swapped).status == "FAIL"


def test_p10_fails_for_a_ceiling_of_one_over_t_minus_one():
    rec = run_one(spec("P10"), ceiling=lambda T: 1.0 / (T - 1))
    assert rec.status == "FAIL"


def test_p10_query_only_check_is_two_sided():
    """Query-only accuracy significantly below (never right) or above (extra hits) the ceiling FAILs."""
    never = lambda head, E, batch: np.zeros(len(batch.target))
    assert run_one(spec("P10"), accuracy=never).status == "FAIL"
    extra = lambda head, E, batch: np.maximum(tasks.induction_accuracy(head, E, batch), batch.target % 5 == 0)
    assert run_one(spec("P10"), accuracy=extra).status == "FAIL"


# ---------------------------------------------------------------- A1, A8, A9, G1
def test_a1_fails_when_the_identity_is_wrong():
    twice = lambda p: replace(plga.sdpa_params(p), b_a=2 * np.eye(p.dk))
    assert run_one(spec("A1"), identity=twice).status == "FAIL"


def test_a9_fails_when_the_cumulative_gram_is_global():
    assert run_one(spec("A9"), cumulative=lambda make: make("global")).status == "FAIL"


# ---------------------------------------------------------------- A1.symbolic
@pytest.mark.parametrize("wrong", [lambda p: replace(plga.sdpa_params(p), b_a=2 * np.eye(p.dk)),   # G = 2I
                                   lambda p: replace(plga.sdpa_params(p), a=p.a),                   # a != 0
                                   lambda p: replace(plga.sdpa_params(p), b_a=np.eye(p.dk)[::-1])])  # G = swap
def test_a1_symbolic_fails_when_g_is_not_the_identity(wrong):
    assert run_one(spec("A1.symbolic"), identity=wrong).status == "FAIL"

"""Certificates P17-P19 (Monte Carlo): the real library PASSes, deliberately wrong inputs FAIL."""
import types

import numpy as np
import pytest

from theorylab.certify import run_one, select
from theorylab.psa import transition
from theorylab.psa import scoremodel
from theorylab.psa.scoremodel import ScoreModel, score_model
from dataclasses import replace

from theorylab.psa.montecarlo import mc_gamma_c, simulate_mass


def _run(cid, **overrides):
    return run_one(select([cid])[0], **overrides)


@pytest.mark.parametrize("cid", ["P17", "P17.variants", "P18.plateau", "P18.condensation", "P19.band",
                                 "P19.crossover"])
def test_real_library_passes(cid):
    rec = _run(cid)
    assert rec.status == "PASS", rec.note


def test_p17_fails_for_a_law_with_a_flipped_variance_sign():
    flipped = ScoreModel("t4-only", (0.0, 0.0, 1.0), (0.0, 0.0, 0.0, 0.0, -4.0), "sign-flipped")

    def law(variant, dk, T):
        return types.SimpleNamespace(gamma_c=transition.crossing_root(flipped, dk, T))
    assert _run("P17", law=law).status == "FAIL"


def test_p17_fails_for_a_law_biased_by_two_percent():
    def law(variant, dk, T):
        return types.SimpleNamespace(gamma_c=1.02 * transition.gamma_c(variant, dk, T).gamma_c)
    rec = _run("P17", law=law)
    assert rec.status == "FAIL"
    assert any(e.name.startswith("points where the law lies") and e.value == "0/9" for e in rec.evidence)


def test_p17_interval_check_catches_a_log_count_of_ln_t_minus_2():
    def law(variant, dk, T):
        return transition.gamma_c(variant, dk, T - 1)   # L = ln(T - 2): the statistics alone would pass
    rec = _run("P17", law=law)
    assert rec.status == "FAIL"
    assert next(e.value for e in rec.evidence if e.name.startswith("median_rel_err (law vs MC")) < 0.026


# P18.plateau with a wrong exponent or a shifted plateau, and P19.band fed a flipped gap: planted in the
# library source (tests/test_planted_sim_checks.py, PLANTED_PLATEAU_BAND)


def test_p18_condensation_fails_with_the_papers_constant():
    assert _run("P18.condensation", c=transition.CONDENSATION_C_PAPER).status == "FAIL"


def test_p19_crossover_fails_for_a_model_crossing_at_the_papers_097():
    shifted = ScoreModel("t3-inclusive", (0.0, 1.0, 1.0 / 0.97), score_model("t3-inclusive").var_poly, "shifted")
    assert _run("P19.crossover", model=shifted).status == "FAIL"


def _patch_library_t3(monkeypatch, gap_poly=None, var_poly=None):
    old = score_model("t3-inclusive")
    new = ScoreModel("t3-inclusive", gap_poly or old.gap_poly, var_poly or old.var_poly, "patched")
    monkeypatch.setitem(scoremodel._MODELS, "t3-inclusive", new)
    assert score_model("t3-inclusive") is new


def test_p19_crossover_fails_when_the_library_gap_is_patched(monkeypatch):
    _patch_library_t3(monkeypatch, gap_poly=(0.0, 1.0, 2.0))      # crossover 1/2; the simulation is untouched
    rec = _run("P19.crossover")
    assert rec.status == "FAIL"
    assert next(e.value for e in rec.evidence if e.name.startswith("reduced-model crossover")) == 0.5


def test_p19_crossover_fails_when_the_library_covariance_is_patched(monkeypatch):
    _patch_library_t3(monkeypatch, var_poly=(0.0, 0.0, 2.0, 8.0, 4.0))  # Cov(T3, T4) = 4 g^3
    assert _run("P19.crossover").status == "FAIL"


def test_p17_fails_for_a_confidence_interval_without_its_one_over_sqrt_b():
    def wide(*args, **kw):
        mc = mc_gamma_c(*args, **kw)
        half = (mc.ci_high - mc.ci_low) / 2 * np.sqrt(20)
        return replace(mc, ci_low=mc.gamma_c - half, ci_high=mc.gamma_c + half)
    rec = _run("P17", simulate=wide)
    err = next(e.value for e in rec.evidence if e.name.startswith("CI check: max rel"))
    assert rec.status == "FAIL" and err > 1


def test_p17_fails_for_batch_roots_too_spread_even_with_a_consistent_interval():
    """Batch roots (and their t-interval) spread sqrt(20) too wide: only the chi-square test sees it."""
    def spread(*args, **kw):
        mc = mc_gamma_c(*args, **kw)
        roots = mc.gamma_c + (mc.batch_gamma_c - mc.gamma_c) * np.sqrt(20)
        half = (mc.ci_high - mc.ci_low) / 2 * np.sqrt(20)              # the t-interval of the spread roots
        return replace(mc, batch_gamma_c=roots, ci_low=mc.gamma_c - half, ci_high=mc.gamma_c + half)
    rec = _run("P17", simulate=spread)
    ratio = next(e.value for e in rec.evidence if e.name.startswith("CI check: pooled"))
    err = next(e.value for e in rec.evidence if e.name.startswith("CI check: max rel"))
    assert rec.status == "FAIL" and ratio > 10 and err < 1e-9


def test_p17_variants_fails_for_a_simulation_with_the_wrong_standard_error_or_draws():
    def wrong_se(*args, **kw):
        curve = simulate_mass(*args, **kw)
        return replace(curve, se=curve.se * 1.01)
    assert _run("P17.variants", simulate=wrong_se).status == "FAIL"

    def other_variant(variant, *args, **kw):          # t3-inclusive simulated with key-only's loadings
        return simulate_mass("key-only" if variant == "t3-inclusive" else variant, *args, **kw)
    assert _run("P17.variants", simulate=other_variant).status == "FAIL"


def test_p17_variants_fails_when_the_library_quadrature_is_off():
    from theorylab.psa.quadrature import exact_mass
    rec = _run("P17.variants", exact=lambda *a, **kw: exact_mass(*a, **kw) + 1e-8)
    assert rec.status == "FAIL"

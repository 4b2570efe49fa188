"""Certificates P17-P19 (Monte Carlo): the real library PASSes, deliberately wrong inputs FAIL."""
import types

import numpy as np
import pytest
from scipy.special import log_ndtr

from theorylab.certify import run_one, select
from theorylab.psa import transition
from theorylab.psa.scoremodel import ScoreModel, score_model
from theorylab.sim.competition import simulate_mass


def _run(cid, **overrides):
    return run_one(select([cid])[0], **overrides)


@pytest.mark.parametrize("cid", ["P17", "P18.plateau", "P18.condensation", "P19.band", "P19.crossover"])
def test_real_library_passes(cid):
    rec = _run(cid)
    assert rec.status == "PASS", rec.note


def test_p17_fails_for_a_law_with_a_flipped_variance_sign():
    flipped = ScoreModel("t4-only", (0.0, 0.0, 1.0), (0.0, 0.0, 0.0, 0.0, -4.0), "sign-flipped")

    def law(variant, dk, T):
        return types.SimpleNamespace(gamma_c=transition.crossing_root(flipped, dk, T))
    assert _run("P17", law=law).status == "FAIL"


def test_p18_plateau_fails_for_a_wrong_exponent():
    def wrong(dk, T):
        return np.exp((np.asarray(T, float) - 1.0) * log_ndtr(np.sqrt(dk) / 2.0))  # m = T - 1
    assert _run("P18.plateau", plateau=wrong).status == "FAIL"


def test_p18_condensation_fails_with_the_papers_constant():
    assert _run("P18.condensation", c=transition.CONDENSATION_C_PAPER).status == "FAIL"


def test_p19_band_fails_for_a_simulation_fed_a_flipped_gap():
    flipped = ScoreModel("t4-only", (0.0, 0.0, -1.0), score_model("t4-only").var_poly, "gap sign flipped")

    def simulate(variant, dk, T, g, **kw):
        return simulate_mass(variant, dk, T, g, model=flipped, **kw)
    assert _run("P19.band", simulate=simulate).status == "FAIL"


def test_p19_crossover_fails_for_a_model_crossing_at_the_papers_097():
    shifted = ScoreModel("t3-inclusive", (0.0, 1.0, 1.0 / 0.97), score_model("t3-inclusive").var_poly, "shifted")
    assert _run("P19.crossover", model=shifted).status == "FAIL"

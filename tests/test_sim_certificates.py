"""Certificates P17-P19 (Monte Carlo): the real library PASSes; a library patched to be wrong FAILs.

Wrong laws, simulations and quadratures (formerly passed to P17, P17.variants, P18.condensation and P19.crossover
as test-only keyword arguments) are planted in the library source: tests/planted/psa.py.
"""
import pytest

from theorylab.certify import run_one, select
from theorylab.psa import scoremodel
from theorylab.psa.scoremodel import ScoreModel, score_model


def _run(cid):
    return run_one(select([cid])[0])


@pytest.mark.parametrize("cid", ["P17", "P17.variants", "P18.plateau", "P18.condensation", "P19.band",
                                 "P19.crossover"])
def test_real_library_passes(cid):
    rec = _run(cid)
    assert rec.status == "PASS", rec.note


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

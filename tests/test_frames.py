"""Result objects with rows become tables one way: ``rows()``/``row()`` (dicts) and ``to_frame()`` (pandas,
an optional extra); a sweep store becomes a DataFrame (``theorylab.sweep.to_frame``) or an xarray Dataset
over its grid axes (``theorylab.sweep.to_dataset``). Values are compared with the fields they come from
(the same numbers, copied: exact equality)."""
import sys

import numpy as np
import pytest

import theorylab.psa as psa
import theorylab.sweep as sweep
from theorylab.errors import ParameterError
from theorylab.graded import envelope as env
from theorylab.graded import risk_sim

GAMMAS = [0.5, 1.0, 1.5]


def _none_for_nan(row: dict) -> dict:
    """A table's NaN as the store's NULL (None), to compare a frame's rows with the store's."""
    return {k: None if isinstance(v, float) and np.isnan(v) else v for k, v in row.items()}


@pytest.fixture(scope="module")
def curve():
    return psa.simulate_mass("t4-only", 16, 64, GAMMAS, samples=2000, seed=1)


@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory):
    spec = sweep.spec_from_dict({"sweep": {"name": "tiny", "compute": ["annealed"]},
                                 "grid": {"variant": ["t4-only", "key-only"], "dk": [16, 64], "T": [64, 1024]}})
    path = str(tmp_path_factory.mktemp("store") / "tiny.sqlite")
    sweep.run_sweep(spec, path, sweep.SerialExecutor(), progress=False)
    return path


def test_mass_curve_rows(curve):
    rows = curve.rows()
    assert [r["gamma"] for r in rows] == GAMMAS
    assert [r["mass"] for r in rows] == curve.mass.tolist() and [r["se"] for r in rows] == curve.se.tolist()
    assert {(r["variant"], r["dk"], r["T"], r["samples"], r["seed"]) for r in rows} == {("t4-only", 16.0, 64, 2000, 1)}


def test_mass_curve_frame(curve):
    pytest.importorskip("pandas")
    frame = curve.to_frame()
    assert len(frame) == 3 and frame["mass"].tolist() == curve.mass.tolist()
    assert frame["gamma"].tolist() == GAMMAS


def test_exact_row_stats_frame():
    pytest.importorskip("pandas")
    stats = psa.exact_row_stats("t4-only", 16, 64, GAMMAS)
    frame = stats.to_frame()
    assert frame["entropy"].tolist() == stats.entropy.tolist()
    assert frame["participation"].tolist() == (1 / stats.ipr).tolist()


def test_row_stats_curve_rows():
    curve = psa.simulate_row_stats("t4-only", 16, 64, GAMMAS[:2], samples=1000, seed=2)
    rows = curve.rows()
    assert [r["entropy"] for r in rows] == curve.stat("entropy").tolist()
    assert [r["mass_se"] for r in rows] == curve.se[:, 0].tolist()


def test_measurement_and_mc_gamma_c_frames():
    pytest.importorskip("pandas")
    m = psa.measure("mass-half", "t4-only", 64, 64)
    assert m.gamma_c > 0
    np.testing.assert_equal(m.to_frame().to_dict("records"), [m.row()])      # NaN fields (ci_low) compare equal here
    mc = psa.mc_gamma_c("t4-only", 64, 64, samples=1000, seed=3, fine_points=8)
    frame = mc.to_frame()
    assert mc.gamma_c > 0 and frame.loc[0, "gamma_c"] == mc.gamma_c and frame.loc[0, "ci_low"] == mc.ci_low
    assert mc.curve.to_frame()["mass"].tolist() == mc.curve.mass.tolist()


def test_risk_simulation_frames():
    pytest.importorskip("pandas")
    res = risk_sim.simulate(env.stratified_model(0.6, 0.3, 4, 32, sigma_xi=1.0), [8, 16], reps=20, seed=1)
    assert res.to_frame().to_dict("records") == res.rows
    assert res.to_frame("ratio_rows")["m"].tolist() == [8, 16]
    with pytest.raises(ParameterError, match="table"):
        res.to_frame("losses")


def test_to_frame_without_pandas_says_what_to_install(curve, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"theorylab\[pandas\]"):
        curve.to_frame()


def test_store_frame(tiny_store):
    pytest.importorskip("pandas")
    frame = sweep.to_frame(tiny_store)
    assert [_none_for_nan(r) for r in frame.to_dict("records")] == sweep.read_store(tiny_store)[1]


def test_store_dataset(tiny_store):
    pytest.importorskip("xarray")
    ds = sweep.to_dataset(tiny_store)
    assert dict(ds.sizes) == {"variant": 2, "dk": 2, "T": 2}
    assert "gamma" not in ds.coords and "exact_gamma_c" not in ds      # never set: not an axis, not a variable
    for row in sweep.read_store(tiny_store)[1]:
        point = ds.sel(variant=row["variant"], dk=row["dk"], T=row["T"])
        assert _none_for_nan({"g": point["law_gamma_c"].item()})["g"] == row["law_gamma_c"]
        assert point["seed"].item() == row["seed"]
        assert point["law_branch"].item() == row["law_branch"]
    assert ds.attrs["name"] == "tiny"


def test_store_dataset_without_xarray_says_what_to_install(tiny_store, monkeypatch):
    monkeypatch.setitem(sys.modules, "xarray", None)
    with pytest.raises(ImportError, match=r"theorylab\[xarray\]"):
        sweep.to_dataset(tiny_store)


def test_ladder_result_frame():
    pytest.importorskip("pandas")
    from theorylab.graded import ladder as lad
    from theorylab.graded import ladder_sim, prereg

    design = lad.geometric_design(0.6, 0.3, levels=2, d=4)
    res = ladder_sim.measure(prereg.preregister(design, 8, seed=0, bootstrap=4), [2, 4, 8], reps=4, seed=0,
                             bootstrap=4)
    frame = res.to_frame()
    assert len(frame) == len(res.rows) >= 2
    np.testing.assert_equal(frame.to_dict("records"), res.rows)      # NaN cells (unresolved crossings) equal here


def test_calibration_frame():
    pytest.importorskip("pandas")
    cal = psa.calibrate_condensation_c(((16.0, 64), (32.0, 64)), observable="half-plateau", monte_carlo=False)
    frame = cal.to_frame()
    np.testing.assert_equal(frame.to_dict("records"), list(cal.rows))      # NaN (no Monte Carlo) cells equal here
    assert len(frame) == 2

"""Sweep spec, seeds, chunking, store binding, CLI errors and figures (theorylab.sim.sweep)."""
from __future__ import annotations

import json
import sqlite3
import statistics

import pytest
from hypothesis import given, settings, strategies as st

from theorylab.cli import main
from theorylab.errors import ParameterError
from theorylab.psa.transition import gamma_c
from theorylab.sim import sweep
from test_sweep_specs import spec_of

SPEC = """
[sweep]
name = "unit"
seed = 3
compute = ["annealed"]
chunk_size = 5
[grid]
variant = ["t4-only", "key-only"]
dk = {start = 16, stop = 256, num = 5, spacing = "log"}
T = [15, 512]
"""


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text(SPEC)
    return path


def test_spec_parses_axes_and_counts(spec_file):
    spec = sweep.load_spec(str(spec_file))
    assert spec.variants == ("t4-only", "key-only")
    assert spec.dk == (16.0, 32.0, 64.0, 128.0, 256.0)
    assert spec.n_points() == 20 == len(sweep.points(spec))
    assert spec.kind == "gamma_c"


def test_hash_ignores_chunk_size_but_not_seed():
    base = {"sweep": {"seed": 1, "chunk_size": 2}, "grid": {"dk": [64], "T": [15]}}
    other_chunk = {"sweep": {"seed": 1, "chunk_size": 9}, "grid": {"dk": [64], "T": [15]}}
    other_seed = {"sweep": {"seed": 2, "chunk_size": 2}, "grid": {"dk": [64], "T": [15]}}
    h = sweep.spec_from_dict(base).hash
    assert h == sweep.spec_from_dict(other_chunk).hash
    assert h != sweep.spec_from_dict(other_seed).hash


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**40), dk=st.floats(1, 1e4), T=st.integers(3, 10**6))
def test_point_seed_is_pure_and_in_range(seed, dk, T):
    s = sweep.point_seed(seed, "t4-only", dk, T)
    assert s == sweep.point_seed(seed, "t4-only", dk, T)
    assert 0 <= s < 2**31 - 1
    assert s != sweep.point_seed(seed, "key-only", dk, T) or s == 0  # variants draw differently


def test_results_do_not_depend_on_chunking_or_order(spec_file):
    spec = sweep.load_spec(str(spec_file))
    pts = sweep.points(spec)
    one = {r["key"]: r for c in sweep.chunks(spec, pts) for r in sweep.compute_chunk(spec, c)}
    rev = {r["key"]: r for p in reversed(pts) for r in sweep.compute_chunk(spec, [p])}
    cols = ("seed", "law_gamma_c", "law_branch")
    assert {k: [r[c] for c in cols] for k, r in one.items()} == {k: [r[c] for c in cols] for k, r in rev.items()}


def test_annealed_point_is_the_library_law(spec_file):
    spec = sweep.load_spec(str(spec_file))
    p = sweep.points(spec)[3]
    row = sweep.compute_point(spec, p, p.seed)
    law = gamma_c(p.variant, p.dk, p.T, c=spec.c)
    assert row["law_gamma_c"] == pytest.approx(float(law.gamma_c), rel=0, abs=0)
    assert row["law_branch"] == str(law.branch)


def test_store_is_complete_and_refuses_another_spec(spec_file, tmp_path, capsys):
    store = str(tmp_path / "s.db")
    assert main(["sweep", "run", str(spec_file), "--store", store, "--workers", "0", "--no-progress",
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)[0]
    assert report["computed"] == 20 and report["already_done"] == 0
    # a second run recomputes nothing
    assert main(["sweep", "run", str(spec_file), "--store", store, "--workers", "0", "--no-progress",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["computed"] == 0
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM points").fetchone() == (20, 20)
    other = tmp_path / "other.toml"
    other.write_text(SPEC.replace("seed = 3", "seed = 4"))
    assert main(["sweep", "run", str(other), "--store", store, "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "different sweep" in err and "Traceback" not in err


@pytest.mark.parametrize("text, fragment", [
    ("[sweep\nname='x'", "invalid TOML"),
    ("[grid]\ndk = [64]\n", "needs dk and T"),
    ("[grid]\ndk = [64]\nT = [2]\n", "grid.T"),
    ("[grid]\ndk = [64]\nT = [15]\nvariant = ['t5']\n", "grid.variant"),
    ("[grid]\ndk = ['wide']\nT = [15]\n", "grid.dk"),
    ("[sweep]\ncompute = ['guess']\n[grid]\ndk = [64]\nT = [15]\n", "sweep.compute"),
    ("[sweep]\nsamples = 0\n[grid]\ndk = [64]\nT = [15]\n", "sweep.samples"),
    ("[sweep]\nsample = 10\n[grid]\ndk = [64]\nT = [15]\n", "unknown key sweep.sample"),
    ("[grids]\ndk = [64]\n", "unknown table [grids]"),
    ("[sweep]\ncompute=['exact']\n[grid]\ndk=[64]\nT=[15]\ngamma={start=0, stop=1, num=3, spacing='log'}\n",
     "log range"),
    ("[sweep]\ncompute=['annealed']\n[grid]\ndk=[64]\nT=[15]\ngamma=[0.5]\n", "annealed"),
    ("[sweep]\ncompute=['mc']\n[grid]\ndk=[64]\nT=[15.5]\n", "grid.T must be integers"),
    ("[sweep]\ncompute=['mc']\n[grid]\ndk=[64]\nT=[15]\n[mc]\nthreads = 2\n", "unknown key mc.threads"),
    ("[sweep]\ncompute=['mc']\n[grid]\ndk=[64]\nT=[15]\n[mc]\nseed = 2\n", "mc.seed is set by the sweep"),
    ("[sweep]\nlevel = 1.5\n[grid]\ndk=[64]\nT=[15]\n", "sweep.level"),
    ("[sweep]\ncompute = 5\n[grid]\ndk=[64]\nT=[15]\n", "sweep.compute must be a name"),
    ("[grid]\nvariant = [1]\ndk=[64]\nT=[15]\n", "grid.variant must be a name"),
    ("[sweep]\ncompute=['mc']\n[grid]\ndk=[64]\nT=[15]\n[mc]\ndtype = 'float128'\n", "[mc] dtype"),
])
def test_malformed_spec_is_one_line_exit_2(tmp_path, capsys, text, fragment):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    store = tmp_path / "never.db"
    assert main(["sweep", "run", str(path), "--store", str(store), "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err and str(path) in err
    assert not store.exists()


def test_missing_spec_and_store(tmp_path, capsys):
    assert main(["sweep", "run", str(tmp_path / "none.toml"), "--store", str(tmp_path / "x.db")]) == 2
    assert main(["sweep", "status", "--store", str(tmp_path / "none.db")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "cannot read" in err[0] and "no such store" in err[1]


def test_status_export_and_plots(spec_file, tmp_path, capsys):
    store = str(tmp_path / "s.db")
    spec = sweep.load_spec(str(spec_file))
    sweep.run_sweep(spec, store, executor=sweep.SerialExecutor(), progress=False)
    assert main(["sweep", "status", "--store", store, "--format", "json"]) == 0
    status = json.loads(capsys.readouterr().out)[0]
    assert (status["points_done"], status["points_total"], status["complete"]) == (20, 20, True)
    assert status["spec_sha256"] == spec.hash
    out = tmp_path / "rows.json"
    assert main(["sweep", "export", "--store", store, "--format", "json", "-o", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [r["idx"] for r in rows] == list(range(20))
    assert all(r["code_version"] and r["started_at"] and r["seed"] == sweep.point_seed(3, r["variant"], r["dk"],
                                                                                         r["T"]) for r in rows)
    assert main(["sweep", "export", "--store", store, "--format", "csv"]) == 0
    csv_lines = capsys.readouterr().out.strip().splitlines()
    assert len(csv_lines) == 21 and csv_lines[0].startswith("key,idx,variant,dk,T,gamma,seed")
    png = tmp_path / "g.png"
    assert main(["plot", "gamma-c", "--store", store, "--out", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_agreement_statistics():
    stats = sweep.agreement([1.0, 2.0, 3.1, None], [1.0, 2.2, 3.0, 4.0])
    assert stats["n"] == 3
    assert stats["median_rel_err"] == pytest.approx(0.1 / 3.0)
    assert stats["max_rel_err"] == pytest.approx(0.2 / 2.2)
    assert stats["pearson_r"] == pytest.approx(statistics.correlation([1.0, 2.0, 3.1], [1.0, 2.2, 3.0]))


MASS_SPEC = """
[sweep]
name = "mass"
seed = 5
samples = 3000
compute = ["exact", "mc"]
[grid]
variant = ["t4-only", "t3-inclusive"]
dk = [64]
T = [64]
gamma = [0.4, 0.6, 0.8, 1.0]
"""


def test_mass_sweep_curve_chunks_equal_single_points():
    spec = spec_of(MASS_SPEC)
    pts = sweep.points(spec)
    assert [len(c) for c in sweep.chunks(spec, pts)] == [4, 4]  # one curve per task, never split
    by_curve = {r["key"]: r for c in sweep.chunks(spec, pts) for r in sweep.compute_chunk(spec, c)}
    for p in pts[::3]:
        single = sweep.compute_point(spec, p, p.seed)
        assert single["mc_mass"] == by_curve[p.key]["mc_mass"] and single["mc_se"] == by_curve[p.key]["mc_se"]
        assert single["exact_mass"] == by_curve[p.key]["exact_mass"]
        # the estimate is honest: within 5 standard errors of the exact mass
        assert abs(single["mc_mass"] - single["exact_mass"]) < 5 * single["mc_se"] + 1e-6


def test_mass_plot_and_kind_checks(tmp_path, capsys):
    spec = spec_of(MASS_SPEC.replace("samples = 3000", "samples = 500"))
    store = str(tmp_path / "mass.db")
    sweep.run_sweep(spec, store, executor=sweep.SerialExecutor(), progress=False)
    png = tmp_path / "m.png"
    assert main(["plot", "mass", "--store", store, "--out", str(png), "--variant", "t4-only"]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert main(["plot", "compare", "--store", store, "--out", str(tmp_path / "c.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs a gamma_c sweep" in err
    assert not (tmp_path / "c.png").exists()


def test_process_pool_equals_serial(tmp_path, capsys):
    from test_sweep_specs import RESULT_FIELDS, small_spec_text
    path = tmp_path / "spec.toml"
    path.write_text(small_spec_text())
    for name, workers in (("pool", "2"), ("serial", "0")):
        assert main(["sweep", "run", str(path), "--store", str(tmp_path / f"{name}.db"), "--workers", workers,
                     "--no-progress"]) == 0
    pool, serial = ({r["key"]: [r[c] for c in RESULT_FIELDS] for r in sweep.export_rows(str(tmp_path / f"{n}.db"))}
                    for n in ("pool", "serial"))
    assert len(pool) == 24 and pool == serial
    assert any(v[RESULT_FIELDS.index("mc_gamma_c")] is not None for v in pool.values())


def test_exact_route_is_the_library_root():
    from theorylab.sim.exact import exact_gamma_c
    spec = sweep.spec_from_dict({"sweep": {"compute": ["exact"], "level": 0.4}, "grid": {"dk": [128], "T": [64]}})
    p = sweep.points(spec)[0]
    assert sweep.compute_point(spec, p, p.seed) == {"exact_gamma_c": exact_gamma_c("t4-only", 128, 64, level=0.4),
                                                     "level": 0.4}


def test_half_plateau_level_is_half_the_argmax_limit():
    from theorylab.sim.exact import argmax_limit, exact_gamma_c
    spec = sweep.spec_from_dict({"sweep": {"compute": ["exact"], "level": "half-plateau"},
                                 "grid": {"dk": [16], "T": [64]}})
    p = sweep.points(spec)[0]
    level = float(argmax_limit("t4-only", 16, 64)) / 2
    assert sweep.compute_point(spec, p, p.seed) == {"exact_gamma_c": exact_gamma_c("t4-only", 16, 64, level=level),
                                                     "level": level}
    with pytest.raises(ParameterError, match="sweep.level"):
        sweep.spec_from_dict({"sweep": {"level": "quarter"}, "grid": {"dk": [16], "T": [64]}})

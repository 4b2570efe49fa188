"""Sweep spec, seeds, chunking, store binding, CLI errors and figures (theorylab.sweep running
PSA's task, theorylab.psa.sweep)."""
from __future__ import annotations

import json
import os
import sqlite3
import statistics
from contextlib import closing

import pytest
from hypothesis import given, settings, strategies as st

from theorylab.cli import main
from theorylab.errors import ParameterError
from theorylab.psa.transition import gamma_c
from theorylab import sweep
from theorylab.psa import sweep as psa_sweep
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
    # same code run twice: bitwise: one compute_point per point either way
    assert {k: [r[c] for c in cols] for k, r in one.items()} == {k: [r[c] for c in cols] for k, r in rev.items()}


def test_annealed_point_is_the_library_law(spec_file):
    spec = sweep.load_spec(str(spec_file))
    p = sweep.points(spec)[3]
    row = psa_sweep.compute_point(spec, p, p.seed)
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
    with closing(sqlite3.connect(store)) as conn, conn:
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
    # wrong shapes and types
    ("sweep = 3\n[grid]\ndk=[64]\nT=[15]\n", "sweep must be a table"),
    ("[sweep]\nname = {a = 1}\n[grid]\ndk=[64]\nT=[15]\n", "sweep.name"),
    ('[sweep]\nname = """two\nlines"""\n[grid]\ndk=[64]\nT=[15]\n', "sweep.name"),
    ("[sweep]\nseed = -1\n[grid]\ndk=[64]\nT=[15]\n", "sweep.seed"),
    ("[grid]\ndk = 2024-01-01\nT=[15]\n", "grid.dk"),
    ("[grid]\ndk = [[1, 2], [3]]\nT=[15]\n", "grid.dk"),
    ("[grid]\ndk = [64]\nT = []\n", "grid.T must not be empty"),
    # accepted by the old validation, but no worker could run them
    ("[sweep]\ncompute=['mc']\n[grid]\ndk=[64]\nT=[4294967296]\n", "grid.T"),
    ("[sweep]\ncompute=['exact']\n[grid]\ndk=[64]\nT=[15]\ngamma=[0.5, 5000]\n", "grid.gamma"),
    ("[sweep]\ncompute=['exact']\nlevel='half-plateau'\n[grid]\ndk=[64]\nT=[15, 1099511627776]\n",
     "'half-plateau' is 0"),
    ("[sweep]\ncompute=['mc']\n[grid]\ndk=[64]\nT=[15]\n[mc]\nmodel = 'x'\n", "mc.model"),
    ("[sweep]\nobservable = 'entropy'\n[grid]\ndk=[64]\nT=[15]\n", "sweep.observable must be one of"),
    ("[sweep]\nobservable = 'inflection'\nlevel = 0.4\n[grid]\ndk=[64]\nT=[15]\n", "sweep.level applies"),
    ("[sweep]\ncompute=['exact']\nobservable = 'inflection'\n[grid]\ndk=[64]\nT=[15]\ngamma=[1.0]\n",
     "mass sweep"),
    ("[sweep]\ncompute=['mc']\nobservable = 'entropy-peak'\n[grid]\ndk=[64]\nT=[15]\n[mc]\nlevel = 0.3\n",
     "mc.level is set by the sweep"),
    # sizes refused up front
    ("[sweep]\ncompute=['mc']\n[grid]\ndk=[64]\nT=[15]\n[mc]\nfine_points = 10000000\n", "mc.fine_points"),
    ("[grid]\ndk = {start=1, stop=2, num=1000000000}\nT=[15]\n", "grid.dk.num"),
    ("[grid]\ndk = {start=1, stop=2, num=1000}\nT = {start=3, stop=1000, num=1000}\n", "at most 200000"),
    ("[sweep]\nchunk_size = 1000000000\n[grid]\ndk=[64]\nT=[15]\n", "sweep.chunk_size"),
    ("[sweep]\ncompute=['mc']\nsamples = 1000000000000\n[grid]\ndk=[64]\nT=[15]\n", "needs about"),
])
def test_malformed_spec_is_one_line_exit_2(tmp_path, capsys, text, fragment):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    store = tmp_path / "never.db"
    assert main(["sweep", "run", str(path), "--store", str(store), "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err and (str(path) in err or fragment == "needs about")
    assert sorted(os.listdir(tmp_path)) == ["bad.toml"]  # nothing written


@pytest.mark.parametrize("content, fragment", [
    (bytes(range(256)) * 8, "is a binary file"),                 # NUL bytes: refused by _io.read_text
    ("[grid]\ndk = [64]\nT = [15]\n".encode("utf-16"), "is a binary file"),
    ('[sweep]\nname = "caf\u00e9"\n[grid]\ndk = [64]\nT = [15]\n'.encode("latin-1"), "not UTF-8"),
    (b"\x00" * 64, "is a binary file"),
    (b"# padding\n" * 120_000, "larger than"),
])
def test_binary_or_foreign_spec_file_is_one_line_exit_2(tmp_path, capsys, content, fragment):
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    assert main(["sweep", "run", str(path), "--store", str(tmp_path / "never.db"), "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == ["bad.toml"]


def test_memory_check_follows_the_budget(tmp_path, capsys, monkeypatch):
    """A request whose tasks exceed THEORYLAB_MAX_MEMORY is refused before anything starts;
    the same request runs under a larger budget."""
    spec = sweep.spec_from_dict({"sweep": {"compute": ["mc"], "samples": 10**7}, "grid": {"dk": [64], "T": [15]}})
    need = sweep.task_memory(spec, threads=1)
    assert need > 32 * 10**7  # ~32 bytes of bookkeeping per sample
    monkeypatch.setenv("THEORYLAB_MAX_MEMORY", str(need // 2))
    with pytest.raises(ParameterError, match="needs about"):
        sweep.check_memory(spec, workers=1)
    monkeypatch.setenv("THEORYLAB_MAX_MEMORY", str(4 * need))
    sweep.check_memory(spec, workers=1)
    with pytest.raises(ParameterError, match="8 worker"):
        sweep.check_memory(spec, workers=8)
    monkeypatch.setenv("THEORYLAB_MAX_MEMORY", "lots")
    with pytest.raises(ParameterError, match="THEORYLAB_MAX_MEMORY"):
        sweep.check_memory(spec, workers=1)


def test_spec_ranges_are_the_library_ranges(monkeypatch):
    """The spec refuses what the workers would refuse: g above GAMMA_MAX (exact and Monte Carlo)
    and T above MC_T_MAX (Monte Carlo) -- and accepts their boundaries, which the library accepts
    (given the memory: the boundary T needs tens of GiB, refused under the default limit)."""
    monkeypatch.setenv("THEORYLAB_MAX_MEMORY", "1P")
    from theorylab.psa import montecarlo as competition
    from theorylab.psa import quadrature as exact
    from theorylab.psa.sweep import GAMMA_MAX, MC_T_MAX
    exact.exact_mass("t4-only", 64, 15, [GAMMA_MAX])
    competition._validate("t4-only", 64, MC_T_MAX, [GAMMA_MAX], 0, 0.0, "float32")
    for call in (lambda: exact.exact_mass("t4-only", 64, 15, [GAMMA_MAX * 1.001]),
                 lambda: competition._validate("t4-only", 64, 15, [GAMMA_MAX * 1.001], 0, 0.0, "float32"),
                 lambda: competition._validate("t4-only", 64, MC_T_MAX + 1, [1.0], 0, 0.0, "float32")):
        with pytest.raises(ParameterError):
            call()
    spec = sweep.spec_from_dict({"sweep": {"compute": ["mc"]}, "grid": {"dk": [64], "T": [MC_T_MAX],
                                                                        "gamma": [GAMMA_MAX]}})
    assert spec.T == (float(MC_T_MAX),) and spec.gamma == (GAMMA_MAX,)
    with pytest.raises(ParameterError, match="sweep.seed"):
        sweep.spec_from_dict({"sweep": {"seed": 2**64}, "grid": {"dk": [64], "T": [15]}})
    assert sweep.spec_from_dict({"sweep": {"seed": 2**64 - 1}, "grid": {"dk": [64], "T": [15]}}).seed == 2**64 - 1


@pytest.mark.parametrize("argv, fragment", [
    (["--workers", str(10**30)], "--workers must be an integer in [0, "),
    (["--workers", "-1"], "--workers must be an integer in [0, "),
    (["--local-cluster", "0"], "--local-cluster must be an integer in [1, "),
    (["--local-cluster", str(10**30)], "--local-cluster must be an integer in [1, "),
    (["--scheduler", "nonsense"], "--scheduler must be a Dask scheduler address"),
    (["--workers", "2", "--scheduler", "tcp://h:1"], "not allowed with argument"),
])
def test_executor_options_are_refused_up_front(spec_file, tmp_path, capsys, argv, fragment):
    store = tmp_path / "never.db"
    assert main(["sweep", "run", str(spec_file), "--store", str(store), "--no-progress", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err
    assert not store.exists()


@pytest.mark.parametrize("argv, fragment", [
    (["plot", "compare", "--axis", "T"], "--axis is read by plot gamma-c only"),
    (["plot", "gamma-c", "--predicted", "exact"], "--predicted is read by plot compare only"),
    (["plot", "mass", "--simulated", "exact"], "--simulated is read by plot compare only"),
    (["sweep", "export", "--out", ""], "--out: must name a file (got an empty path)"),
    (["sweep", "status"], "--store must name a store file (got an empty path)"),
])
def test_options_a_mode_does_not_read_and_empty_paths_are_refused(spec_file, tmp_path, capsys, argv, fragment):
    store = str(tmp_path / "s.db")
    sweep.run_sweep(sweep.load_spec(str(spec_file)), store, executor=sweep.SerialExecutor(), progress=False)
    if argv[0] == "plot":
        argv = argv + ["--store", store, "--out", str(tmp_path / "f.png")]
    else:
        argv = argv + ["--store", "" if argv[1] == "status" else store]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err
    assert sorted(os.listdir(tmp_path)) == ["s.db", "spec.toml"]


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
    stats = psa_sweep.agreement([1.0, 2.0, 3.1, None], [1.0, 2.2, 3.0, 4.0])
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
        single = psa_sweep.compute_point(spec, p, p.seed)
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
    from theorylab.psa.quadrature import exact_gamma_c
    spec = sweep.spec_from_dict({"sweep": {"compute": ["exact"], "level": 0.4}, "grid": {"dk": [128], "T": [64]}})
    p = sweep.points(spec)[0]
    assert psa_sweep.compute_point(spec, p, p.seed) == {"exact_gamma_c": exact_gamma_c("t4-only", 128, 64, level=0.4),
                                                     "level": 0.4}


def test_half_plateau_level_is_half_the_argmax_limit():
    from theorylab.psa.quadrature import argmax_limit, exact_gamma_c
    spec = sweep.spec_from_dict({"sweep": {"compute": ["exact"], "level": "half-plateau"},
                                 "grid": {"dk": [16], "T": [64]}})
    p = sweep.points(spec)[0]
    level = float(argmax_limit("t4-only", 16, 64)) / 2
    assert psa_sweep.compute_point(spec, p, p.seed) == {"exact_gamma_c": exact_gamma_c("t4-only", 16, 64, level=level),
                                                     "level": level}
    with pytest.raises(ParameterError, match="sweep.level"):
        sweep.spec_from_dict({"sweep": {"level": "quarter"}, "grid": {"dk": [16], "T": [64]}})


def test_observable_points_are_the_library_observables(tmp_path):
    from theorylab.psa.observables import measure
    spec = sweep.spec_from_dict({"sweep": {"compute": ["annealed", "exact", "mc"], "observable": "entropy-peak",
                                           "samples": 1000, "seed": 2}, "grid": {"dk": [16], "T": [64]}})
    assert spec.canonical()["observable"] == "entropy-peak"
    p = sweep.points(spec)[0]
    got = psa_sweep.compute_point(spec, p, p.seed)
    mc = measure("entropy-peak", "t4-only", 16, 64, method="mc", samples=1000, seed=p.seed)
    assert got["exact_gamma_c"] == measure("entropy-peak", "t4-only", 16, 64).gamma_c and "level" not in got
    assert (got["mc_gamma_c"], got["mc_ci_low"], got["mc_ci_high"]) == (mc.gamma_c, mc.ci_low, mc.ci_high)
    # a store keeps the observable: the spec read back is the same spec
    sweep.run_sweep(spec, str(tmp_path / "o.db"), executor=sweep.make_executor(workers=0), progress=False)
    assert sweep.spec_of_store(str(tmp_path / "o.db")) == spec
    # the default observable is not hashed: specs written before the key existed keep their stores
    plain = sweep.spec_from_dict({"sweep": {"compute": ["exact"]}, "grid": {"dk": [16], "T": [64]}})
    assert "observable" not in plain.canonical() and plain.observable == "mass-half"
    hp = sweep.spec_from_dict({"sweep": {"compute": ["exact"], "observable": "half-plateau"},
                               "grid": {"dk": [16], "T": [64]}})
    assert psa_sweep.compute_point(hp, p, p.seed)["exact_gamma_c"] == measure("half-plateau", "t4-only", 16, 64).gamma_c


def test_plot_of_a_store_without_points_is_refused(spec_file, tmp_path, capsys):
    spec = sweep.load_spec(str(spec_file))
    store = str(tmp_path / "s.db")
    sweep.SweepStore(store, spec.canonical_json(), spec.hash).close()  # bound, nothing computed yet
    assert main(["plot", "gamma-c", "--store", store, "--out", str(tmp_path / "f.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds no points yet" in err and not (tmp_path / "f.png").exists()

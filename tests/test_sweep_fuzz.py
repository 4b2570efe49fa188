"""Hostile sweep specs and store paths, generated: every `sweep run` ends in exit 0 or 2 with no
traceback, a refusal is one line and leaves nothing behind, and an accepted spec yields a store
that `status`, `export` and `plot` read. Values are hostile but cheap (no valid spec here costs
more than a fraction of a second per point), so the whole file runs in well under a minute."""
from __future__ import annotations

import json
import math
import os
import shutil

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from theorylab.cli import main

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
NUMBER = st.sampled_from([0, 1, 2, 3, 3.5, 15, 64, -1, -1e300, 1e-300, 1e300, 2**31 + 1, 2**63 - 1,
                          1099511627776, math.nan, math.inf, -math.inf, 0.5, 1.5, 5000])
SCALAR = st.one_of(NUMBER, st.booleans(), TEXT, st.sampled_from(["all", "t4-only", "key-only", "half-plateau",
                                                                  "annealed", "exact", "mc", "float64", "log"]))
RANGE = st.fixed_dictionaries({"start": NUMBER, "stop": NUMBER,
                               "num": st.sampled_from([0, 1, 3, -1, 2.5, 10**9, math.nan, "3"])},
                              optional={"spacing": SCALAR, "junk": SCALAR})
VALUE = st.one_of(SCALAR, st.lists(SCALAR, max_size=3), RANGE, st.lists(st.lists(NUMBER, max_size=2), max_size=2))
KEYS = {"sweep": ["name", "seed", "samples", "compute", "chunk_size", "c", "level"],
        "grid": ["variant", "dk", "T", "gamma"],
        "mc": ["dtype", "sigma0", "fine_points", "confidence", "model", "seed"]}
# Values that keep a valid spec cheap (samples) or make it run a route at all (compute).
SPECIAL = {"samples": st.sampled_from([1, 2, 10, 0, -5, 2.5, 10**12, "many"]),
           "compute": st.sampled_from([["annealed"], ["exact"], ["mc"], ["annealed", "mc"], ["exact", "mc"], [],
                                       ["guess"], "mc", 3])}
BASE = {"sweep": {"name": "fuzz", "seed": 1, "samples": 10, "compute": ["annealed"]},
        "grid": {"dk": [64], "T": [15]}}


@st.composite
def hostile_spec(draw) -> dict:
    """A valid base spec with one to three keys set to hostile values, deleted, or misspelt,
    or (rarely) a table replaced or added."""
    spec = {table: dict(keys) for table, keys in BASE.items()}
    for _ in range(draw(st.integers(1, 3))):
        table = draw(st.sampled_from(sorted(KEYS)))
        key = draw(st.sampled_from(KEYS[table] + [f"{table[0]}junk"]))
        action = draw(st.sampled_from(["set", "set", "set", "delete", "table"]))
        if action == "table":
            spec[draw(st.sampled_from([table, "junk"]))] = draw(st.one_of(SCALAR, st.just({})))
        elif isinstance(spec.get(table, {}), dict):
            if action == "delete":
                spec.get(table, {}).pop(key, None)
            else:
                spec.setdefault(table, {})[key] = draw(SPECIAL.get(key, VALUE))
    return spec


def toml(value) -> str:
    """A TOML value (basic strings through JSON escapes; nan/inf as TOML spells them)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml(v)}" for k, v in value.items()) + "}"
    return "[" + ", ".join(toml(v) for v in value) + "]"


def document(spec: dict) -> str:
    """TOML text: a scalar in place of a table is written as a top-level key."""
    tables = {k: v for k, v in spec.items() if isinstance(v, dict)}
    return ("".join(f"{k} = {toml(v)}\n" for k, v in spec.items() if k not in tables)
            + "".join(f"[{name}]\n" + "".join(f"{k} = {toml(v)}\n" for k, v in table.items())
                      for name, table in tables.items()))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(spec=hostile_spec())
def test_generated_specs_exit_0_or_2_and_leave_nothing_on_refusal(tmp_path_factory, capsys, monkeypatch, spec):
    monkeypatch.setenv("THEORYLAB_MAX_MEMORY", str(2 << 30))  # a budget that also keeps accepted specs cheap
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "spec.toml"
    path.write_text(document(spec), encoding="utf-8")
    store = str(folder / "s.db")
    code = main(["sweep", "run", str(path), "--store", store, "--workers", "0", "--no-progress"])
    _, err = capsys.readouterr()
    assert code in (0, 2), err
    if code == 2:
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert sorted(os.listdir(folder)) == ["spec.toml"], f"a refused spec left {os.listdir(folder)}"
        return
    for argv in (["sweep", "status", "--store", store], ["sweep", "export", "--store", store],
                 ["plot", "gamma-c", "--store", store, "--out", str(folder / "f.png")]):
        code = main(argv)
        _, err = capsys.readouterr()
        assert code in (0, 2) and (code == 0 or err.count("\n") == 1), err
    shutil.rmtree(folder)


@pytest.mark.parametrize("make", ["device", "fifo", "symlink loop", "dangling symlink", "directory"])
@pytest.mark.parametrize("command", ["run", "status", "export"])
def test_store_paths_that_are_not_files(tmp_path, capsys, make, command):
    spec = tmp_path / "spec.toml"
    spec.write_text("[grid]\ndk = [64]\nT = [15]\n")
    store = str(tmp_path / "odd")
    if make == "device":
        store = os.devnull
    elif make == "fifo":
        os.mkfifo(store)
    elif make == "symlink loop":
        os.symlink(store, store)
    elif make == "dangling symlink":
        os.symlink(str(tmp_path / "nowhere"), store)
    else:
        os.mkdir(store)
    before = sorted(os.listdir(tmp_path))
    argv = {"run": ["sweep", "run", str(spec), "--store", store, "--workers", "0", "--no-progress"],
            "status": ["sweep", "status", "--store", store], "export": ["sweep", "export", "--store", store]}[command]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--store" in err
    assert sorted(os.listdir(tmp_path)) == before and not os.path.exists(str(tmp_path / "nowhere"))

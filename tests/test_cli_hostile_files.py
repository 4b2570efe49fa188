"""Hostile input files for every command-line option that names a file to read.

The table is derived from the parsers, not listed here: every argparse action marked by
:func:`theorylab.cli._args.reads_file` (every subcommand walked), so a new command's input option
inherits these kinds by being marked. Each option is fed, in turn: a FIFO (refused at once, never
waited on: run in one child process under a timeout, so a regression fails instead of hanging), a
directory, binary bytes, Latin-1 bytes, truncated JSON, JSON of the wrong shape, TOML of the wrong
shape where TOML is expected, and -- where its file has numeric fields -- each such field set to
inf, 1e308 or nan (1e308 only where it is outside the field's range: a field whose command-line
twin accepts 1e308 accepts it in a file too). Every case must exit 2 with exactly one line on
stderr, no traceback, and leave no file behind (:func:`test_cli_fuzz._check`, the fuzz's own check).

``REACH`` says what else a command needs so that the marked option's file is the one read first
(the other profile, a valid spec, ...); an option without an entry needs nothing. ``FORMATS`` gives,
per kind of file, its syntax and a valid sample with its numeric fields; a marked option of a new
kind fails :func:`test_every_marked_option_has_a_known_format` until it gets one.
"""
from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import os
import subprocess
import sys

import pytest

from test_cli_fuzz import LIMITS, _check, _files, _visible_lines
from theorylab.cli import build_parser, main

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIFO_TIMEOUT = 180.0
"""Seconds for the child that feeds every option a FIFO (imports included); a blocking read hangs it."""
FIFO_CASE_SECONDS = 10.0
"""Most seconds one FIFO case may take in the child, timed on a second pass once the first has imported
what each command uses (NumPy, SciPy, the sweep store): a refusal is immediate, a read would block."""
MUTATE_FILE = "theorylab/psa/shear.py"

REACH = {
    ("grades", "--alpha"): ["--tau", "0.5,0.5"],
    ("grades", "--tau"): ["--alpha", "0.5,0.5"],
    ("grades", "--q"): ["--alpha", "0.5,0.5", "--tau", "0.5,0.5"],
    ("ladder", "--a"): ["--s", "0.5,0.5"],
    ("ladder", "--s"): ["--a", "0.5,0.5"],
    ("mutate", "--equivalent"): ["--file", MUTATE_FILE, "--list"],
    ("mutate", "--resume"): ["--file", MUTATE_FILE],
    ("plot", "--store"): ["compare", "--out", "fig.png"],
    ("sweep run", "--store"): ["{spec}", "--workers", "0"],
    ("sweep run", "spec"): ["--store", "new.db", "--workers", "0"],
}
"""Arguments a command needs besides the marked option (``{spec}``: a valid sweep spec)."""

SPEC_FIELDS = {"seed": "0", "samples": "100", "level": "0.5", "chunk_size": "1", "c": "1.0", "dk": "64", "T": "15"}
SPEC_TEMPLATE = ("[sweep]\nseed = {seed}\nsamples = {samples}\nlevel = {level}\nchunk_size = {chunk_size}\nc = {c}\n"
                 "[grid]\ndk = [{dk}]\nT = [{T}]\n")
TOML_VALUE = {"inf": "inf", "1e308": "1e308", "nan": "nan"}
HOSTILE_NUMBERS = {"inf": float("inf"), "1e308": 1e308, "nan": float("nan")}


# ------------------------------------------------------------------------------ the table
def marked_options() -> list[tuple[str, str, argparse.Action]]:
    """``(command, option, action)`` of every action marked by ``reads_file``, every subcommand walked
    (``command`` is the subcommand words, ``option`` its first option string or a positional's dest)."""
    found = []

    def walk(parser, words):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, words + (name,))
            elif getattr(action, "input_file", None) is not None:
                found.append((" ".join(words), action.option_strings[0] if action.option_strings else action.dest,
                              action))

    walk(build_parser(), ())
    return found


OPTIONS = marked_options()
IDS = [f"{c} {o}" for c, o, _ in OPTIONS]


def _argv(command: str, option: str, action, path: str, spec: str | None = None) -> list[str]:
    """The command line that makes ``command`` read ``path`` through ``option`` (see ``REACH``)."""
    extra = [spec if a == "{spec}" else a for a in REACH.get((command, option), [])]
    beside = action.input_file.beside
    if beside:                                   # the file read is OTHER's value + suffix: name it so
        other, suffix = beside
        assert path.endswith(suffix)
        given = [other, path[: -len(suffix)], option]
    elif not action.option_strings:
        given = [path]
    else:
        given = [option, path]
    return command.split() + extra + given


def _place(action, folder: str, name: str) -> str:
    """Where a hostile file for ``action`` goes: ``folder/name``, plus the suffix of a file read beside."""
    beside = action.input_file.beside
    return os.path.join(folder, name + (".json" + beside[1] if beside else ""))


# ------------------------------------------------------------------------------ samples
def _walk_numbers(obj, prefix=()):
    """Paths of the numeric leaves of a JSON value (one per list, the first entry)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _walk_numbers(v, prefix + (k,))
    elif isinstance(obj, list):
        if obj:
            yield from _walk_numbers(obj[0], prefix + (0,))
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield prefix


def _set(obj, path, value):
    new = copy.deepcopy(obj)
    target = new
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return new


def _json_cases(valid: dict, fields) -> list[tuple[str, str]]:
    """``(label, text)``: ``valid`` with one numeric field set to a hostile value; ``fields`` is
    ``[(path, values)]`` (values among ``HOSTILE_NUMBERS``)."""
    return [(f"{'.'.join(map(str, p))}={v}", json.dumps(_set(valid, p, HOSTILE_NUMBERS[v]))) for p, vs in fields
            for v in vs]


class Samples:
    """Valid files of every format (made once), their numeric fields and the hostile variants."""

    def __init__(self, folder: str):
        self.folder = folder
        os.makedirs(folder)
        fuzz = _files(os.path.join(folder, "fuzz"))                # the fuzz's own inputs: a P11 report
        self.report = json.load(open(fuzz["report_p11.json"]))
        from theorylab.graded import ladder as lad
        from theorylab.graded import prereg as pr

        design = lad.geometric_design(0.6, 0.3, 4, 8)
        self.prereg = json.loads(pr.to_json(pr.preregister(design, n_pilot=100, seed=0, bootstrap=4)))
        self.journal = {"id": f"{MUTATE_FILE}::<module>::const(0->1)::78924cea.0", "status": "killed", "seconds": 2.0, "session": 0,
                        "elapsed": 5.0, "certificates": ["P1"], "killed_by": "P1"}
        self.spec = self.write("spec.toml", SPEC_TEMPLATE.format(**SPEC_FIELDS))

    def write(self, name: str, text: str | bytes) -> str:
        path = os.path.join(self.folder, name)
        with open(path, "wb") as fh:
            fh.write(text if isinstance(text, bytes) else text.encode())
        return path

    def valid(self, fmt: str) -> list[tuple[str, str]]:
        """``(file name, text)`` of valid files of ``fmt`` (checked by :func:`test_valid_samples_are_read`)."""
        return {"report": [("report.json", json.dumps(self.report))],
                "prereg": [("prereg.json", json.dumps(self.prereg))],
                "journal": [("journal", json.dumps(self.journal) + "\n")],
                "spec": [("spec.toml", SPEC_TEMPLATE.format(**SPEC_FIELDS))],
                "equivalent": [("eq.toml", f'[equivalent]\n"{MUTATE_FILE}::<module>::const(0->1)::78924cea.0" = "a reason"\n')],
                "numbers": [("v.txt", "0.5, 0.5\n"), ("v.json", "[0.5, 0.5]")],
                "grid": [("g.csv", "dk,T\n64,16\n"), ("g.json", "[[64, 16]]")]}.get(fmt, [])

    def numeric(self, fmt: str) -> list[tuple[str, str, str]]:
        """``(label, file name, text)``: a valid file of ``fmt`` with one numeric field made hostile."""
        every = tuple(HOSTILE_NUMBERS)
        if fmt == "report":       # a 1e308 tolerance is finite: the verdict (exit 1) judges it, not the reader
            c = ("certificates", 0)
            return [(label, "r.json", text) for label, text in _json_cases(
                self.report, [(("seed",), every), (c + ("seconds",), every),
                              (c + ("evidence", 0, "tolerance"), ("inf", "nan"))])]
        if fmt == "prereg":
            return [(label, "p.json", text) for label, text in _json_cases(
                self.prereg, [(p, every) for p in _walk_numbers(self.prereg)])]
        if fmt == "journal":
            return [(label, "journal", text + "\n") for label, text in _json_cases(
                self.journal, [((k,), every) for k in ("seconds", "elapsed", "session")])]
        if fmt == "spec":         # dk, T and c accept 1e308 on the command line (gamma-c --dk, compare --c)
            return [(f"{k}={v}", "s.toml", SPEC_TEMPLATE.format(**{**SPEC_FIELDS, k: TOML_VALUE[v]}))
                    for k in SPEC_FIELDS for v in (every if k not in ("dk", "T", "c") else ("inf", "nan"))]
        if fmt == "numbers":
            return [(f"{v}{ext}", f"n{ext}", text.format(json.dumps(HOSTILE_NUMBERS[v])))
                    for v in every for ext, text in ((".txt", "0.5, {}\n"), (".json", "[0.5, {}]"))]
        if fmt == "grid":         # dk and T accept 1e308 on the command line (gamma-c --dk, --T)
            return [(f"{col}={v}{ext}", f"g{ext}", text) for v in ("inf", "nan") for col, ext, text in (
                ("dk", ".csv", f"dk,T\n{v},16\n"), ("T", ".csv", f"dk,T\n64,{v}\n"),
                ("T", ".json", f"[[64, {json.dumps(HOSTILE_NUMBERS[v])}]]"))]
        return []


FORMATS = {"report": "json", "prereg": "json", "journal": "jsonl", "grid": "csv or json", "numbers": "text or json",
           "equivalent": "toml", "spec": "toml", "store": "sqlite"}
"""The syntax of each format of input file (a marked option of another format fails the suite)."""


def _generic_kinds(fmt: str, samples: Samples) -> dict[str, bytes | None]:
    """Hostile contents of the generic kinds (None: a directory) for a file of ``fmt``."""
    valid = samples.valid(fmt)
    whole = valid[0][1] if valid and FORMATS[fmt] in ("json", "jsonl") else '{"certificates": [{"id": "P11", "x": 1}]}'
    kinds = {"directory": None, "binary": bytes(range(256)) * 4,
             "latin1": "dk,T\n64,512\n\xe9,3\ncaf\xe9 = \"\xe9\"\n".encode("latin-1"),
             "truncated_json": whole[: int(len(whole) * 0.6)].encode(),
             "json_wrong_shape": b'{"unexpected": {"shape": [1, "two", null]}}'}
    if FORMATS[fmt] == "toml":
        kinds["toml_wrong_table"] = b'[unexpected]\nkey = [1, "two"]\n'
        kinds["toml_wrong_value"] = b'equivalent = 5\nsweep = "x"\ngrid = [1, 2]\n'
    return kinds


# ------------------------------------------------------------------------------ running
@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    return Samples(str(tmp_path_factory.mktemp("hostile") / "samples"))


@pytest.fixture
def work(tmp_path, monkeypatch):
    folder = tmp_path / "work"
    folder.mkdir()
    monkeypatch.chdir(folder)
    for k, v in LIMITS.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("COLUMNS", "100")
    return str(folder)


def _run(argv: list[str], cwd: str, inputs: str) -> tuple[int, str]:
    """Run ``argv`` in-process; check exit 2, one stderr line, no traceback, nothing left in ``cwd`` or
    ``inputs``; return the status and the line."""
    before, before_inputs = set(os.listdir(cwd)), set(os.listdir(inputs))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    _check(argv, status, out.getvalue(), err.getvalue(), before, cwd)
    assert set(os.listdir(inputs)) == before_inputs, f"files left beside the input: {argv}"
    lines = _visible_lines(err.getvalue())
    return status, lines[0] if lines else ""


def _make(path: str, content: bytes | None) -> None:
    if content is None:
        os.mkdir(path)
    else:
        with open(path, "wb") as fh:
            fh.write(content)


# ------------------------------------------------------------------------------ tests
def test_the_table_is_derived_from_the_parsers():
    """The marks find every input option (a floor, so a lost mark fails), and REACH names only marked ones."""
    found = {(c, o) for c, o, _ in OPTIONS}
    assert {("certify", "--verify"), ("compare", "--grid"), ("grades", "--alpha"), ("ladder", "--from-prereg"),
            ("ladder", "--a"), ("mutate", "--equivalent"), ("mutate", "--resume"), ("plot", "--store"),
            ("sweep run", "spec"), ("sweep run", "--store"), ("sweep status", "--store"),
            ("sweep export", "--store")} <= found
    assert set(REACH) <= found, f"REACH names unmarked options: {sorted(set(REACH) - found)}"


def test_every_marked_option_has_a_known_format():
    unknown = {f"{c} {o}": a.input_file.format for c, o, a in OPTIONS if a.input_file.format not in FORMATS}
    assert not unknown, f"add these formats (syntax, valid sample, numeric fields) to FORMATS/Samples: {unknown}"


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_valid_samples_are_read(samples, fmt):
    """The samples the numeric cases start from are valid, so each refusal is the hostile field's."""
    from theorylab.mutation import run as mutation
    from theorylab.certify.verify import load_report
    from theorylab.psa.compare import read_grid
    from theorylab.graded import prereg as pr
    from theorylab.graded.io import read_vector
    from theorylab import sweep

    reader = {"report": load_report, "prereg": pr.read, "journal": mutation.read_journal, "spec": sweep.load_spec,
              "numbers": lambda p: read_vector("--x", p), "grid": read_grid, "equivalent": mutation.load_equivalent}
    if not samples.valid(fmt):
        pytest.skip(f"no text sample of a {fmt} file (its kinds are the generic ones)")
    for name, text in samples.valid(fmt):
        assert reader[fmt](samples.write(f"valid-{name}", text)) is not None
    if fmt == "prereg":                                  # every numeric field of the file, three values each
        fields = {label.rsplit("=", 1)[0] for label, _, _ in samples.numeric(fmt)}
        assert {"design.sigma_xi", "design.C", "n_pilot", "seed", "bootstrap", "BC_hat", "Lambda_star_C_hat_ci.0",
                "arms.0.g.0", "arms.0.ip_hat", "arms.0.predicted_rank", "true.BC"} <= fields
        assert len(samples.numeric(fmt)) == 3 * len(fields)


@pytest.mark.parametrize("command, option, action", OPTIONS, ids=IDS)
def test_hostile_files_are_refused_in_one_line(samples, work, tmp_path, command, option, action):
    """Directory, binary, Latin-1, truncated JSON, JSON (and TOML) of the wrong shape: exit 2, one line
    naming the option or the file."""
    inputs = str(tmp_path / "inputs")
    os.mkdir(inputs)
    failures = []
    for kind, content in _generic_kinds(action.input_file.format, samples).items():
        suffix = ".toml" if kind.startswith("toml") else ".json" if "json" in kind else ".txt"
        path = _place(action, inputs, kind + ("" if action.input_file.beside else suffix))
        _make(path, content)
        try:
            status, line = _run(_argv(command, option, action, path, samples.spec), work, inputs)
        except Exception as exc:                 # a traceback or a failed check: listed with the others
            failures.append(f"{kind}: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
            continue
        if status != 2 or (option not in line and path not in line):
            failures.append(f"{kind}: exit {status}: {line}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("command, option, action", OPTIONS, ids=IDS)
def test_hostile_numeric_fields_are_refused_in_one_line(samples, work, tmp_path, command, option, action):
    """Each numeric field of the option's file set to inf, 1e308 (outside its range) or nan: exit 2, one line."""
    cases = samples.numeric(action.input_file.format)
    if not cases:
        pytest.skip(f"a {action.input_file.format} file has no numeric fields")
    inputs = str(tmp_path / "inputs")
    os.mkdir(inputs)
    failures = []
    for i, (label, name, text) in enumerate(cases):
        path = _place(action, inputs, f"{i}-{name}" if not action.input_file.beside else f"case{i}")
        _make(path, text.encode())
        try:
            status, line = _run(_argv(command, option, action, path, samples.spec), work, inputs)
            if status != 2:
                failures.append(f"{label}: exit {status}: {line}")
        except Exception as exc:                 # a traceback or a failed check: listed with the others
            failures.append(f"{label}: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
        os.remove(path)
    assert not failures, "\n".join(failures)


FIFO_RUNNER = r"""
import contextlib, io, json, os, sys, time
sys.path.insert(0, sys.argv[1])                     # the tests folder: the fuzz's own check
from test_cli_fuzz import _check
from theorylab.cli import main

cases = json.loads(sys.argv[2])
left = {}
for i, argv in enumerate(cases):                     # once to import what each command uses (a FIFO read blocks here)
    before = set(os.listdir("."))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(argv)
    left[i] = sorted(set(os.listdir(".")) - before)
for i, argv in enumerate(cases):                     # then timed, warm: a refusal takes milliseconds
    before = set(os.listdir("."))
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    seconds = time.perf_counter() - start
    try:
        _check(argv, status, out.getvalue(), err.getvalue(), before, os.getcwd())
        problem = f"the first pass left {left[i]}" if left[i] else None
    except AssertionError as exc:
        problem = str(exc)
    print(json.dumps({"status": status, "err": err.getvalue(), "seconds": seconds, "problem": problem}), flush=True)
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_a_fifo_is_refused_without_waiting(samples, work, tmp_path):
    """Every marked option given a FIFO (nobody writes to it): exit 2 within seconds, one line naming it.

    All cases run in one child process (one start-up), killed after ``FIFO_TIMEOUT`` s: a reader that
    waits on the FIFO fails the test, naming the case, instead of hanging the suite."""
    inputs = str(tmp_path / "inputs")
    os.mkdir(inputs)
    cases = []
    for i, (command, option, action) in enumerate(OPTIONS):
        path = _place(action, inputs, f"fifo{i}" + ("" if action.input_file.beside else ".json"))
        os.mkfifo(path)
        cases.append((_argv(command, option, action, path, samples.spec), option, path))
    env = {**os.environ, **LIMITS, "COLUMNS": "100",
           "PYTHONPATH": os.pathsep.join([REPO] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
    proc = subprocess.Popen([sys.executable, "-c", FIFO_RUNNER, os.path.join(REPO, "tests"),
                             json.dumps([argv for argv, _, _ in cases])], cwd=work, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = proc.communicate(timeout=FIFO_TIMEOUT)
        hung = False
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        hung = True
    done = [line for line in out.splitlines() if line.startswith("{")]
    assert not hung, (f"blocked on a FIFO: {' '.join(cases[len(done)][0])} did not return ({len(done)} cases done "
                      f"in {FIFO_TIMEOUT:g} s)")
    results = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert proc.returncode == 0 and len(results) == len(cases), err[-3000:]
    failures = []
    for (argv, option, path), r in zip(cases, results):
        line = (_visible_lines(r["err"]) or [""])[0]
        if r["problem"] or r["status"] != 2 or r["seconds"] > FIFO_CASE_SECONDS or "regular file" not in line \
                or (option not in line and path not in line):
            failures.append(f"{' '.join(argv)}: exit {r['status']} in {r['seconds']:.1f} s: {r['problem'] or line}")
    assert not failures, "\n".join(failures)
    assert sorted(os.listdir(inputs)) == sorted(os.path.basename(p) for _, _, p in cases)

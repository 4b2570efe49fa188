"""One CLI vocabulary: every option name from one table with one meaning, file outputs spelled
-o/--out (or --plot, or the two named records), no abbreviations, deprecated spellings that still
work and warn in one line, --no-progress and the resource limits where they belong, JSON lists."""
import argparse
import json
import sqlite3

import pytest

from theorylab.cli import UsageError, build_parser, main
from theorylab.cli._args import DeprecatedOption
from theorylab.cli._vocabulary import OUTPUT_OPTIONS, SHORT_FORMS, VOCABULARY


def parsers():
    """(command name, parser) of the top level and every sub-command, nested ones included."""
    found = []

    def walk(parser, name):
        found.append((name, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for child_name, child in action.choices.items():
                    walk(child, f"{name} {child_name}".strip())

    walk(build_parser(), "")
    return found


def leaves():
    """The commands that run something (no sub-commands of their own)."""
    return [(n, p) for n, p in parsers() if n and not any(isinstance(a, argparse._SubParsersAction)
                                                           for a in p._actions)]


def options(parser, deprecated=False):
    return [a for a in parser._actions if a.option_strings and isinstance(a, DeprecatedOption) == deprecated]


DEPRECATED = {("certify", "--json"): "--out", ("certify", "--jobs"): "--workers",
              ("induction", "--member"): "--variant", ("mutate", "--json"): "--out",
              ("sweep export", "--output"): "--out", ("train induction", "--seed0"): "--seed"}
"""Every former spelling still accepted, and its replacement."""

NAMED_RECORDS = {("certify", "--docs"), ("ladder", "--prereg")}
"""The two file outputs that are neither the result (--out) nor a figure (--plot)."""


def test_every_option_name_is_in_the_one_vocabulary_table():
    unknown = {}
    for name, parser in parsers():
        for action in options(parser):
            for spelling in action.option_strings:
                long = SHORT_FORMS.get(spelling, spelling)
                ok = long in VOCABULARY and (spelling == long or long in action.option_strings)
                if not ok:
                    unknown.setdefault(name or "theorylab", []).append(spelling)
    assert unknown == {}, "add the option to theorylab.cli._vocabulary.VOCABULARY (one meaning) or rename it"
    assert len(parsers()) > 20 and all(m.strip() for m in VOCABULARY.values())


def test_every_file_output_is_spelled_out_or_plot():
    outputs, unmarked = {}, []
    for name, parser in parsers():
        for action in options(parser):
            if getattr(action, "output_file", False):
                outputs[(name, action.option_strings[-1])] = tuple(action.option_strings)
            elif getattr(action, "type", None) is not None and getattr(action.type, "__name__", "") == "path" \
                    and not hasattr(action, "input_file"):
                unmarked.append((name, action.option_strings))
    assert unmarked == [], "a path option must be marked read (reads_file) or written (writes_file)"
    for (name, option), spellings in outputs.items():
        if spellings == ("-o", "--out"):
            continue
        assert spellings == ("--plot",) or (name, option) in NAMED_RECORDS, (name, spellings)
        assert option in OUTPUT_OPTIONS
    spelled = {o for (_, o) in outputs}
    assert spelled == set(OUTPUT_OPTIONS)
    assert {n for (n, o) in outputs if o == "--out"} == {"certify", "mutate", "plot", "sweep export"}
    assert {n for (n, o) in outputs if o == "--plot"} == {"compare", "graded-sim", "induction", "ladder",
                                                          "train induction"}


def test_no_parser_takes_an_abbreviation():
    assert all(p.allow_abbrev is False for _, p in parsers())


@pytest.mark.parametrize("argv, prefix", [
    (["simulate", "--dk", "64", "--T", "16", "--gamma", "1", "--var", "key-only"], "--var"),
    (["compare", "--samp", "10"], "--samp"),
    (["train", "induction", "--see", "3"], "--see"),
    (["sweep", "export", "--store", "x.db", "--ou", "y.csv"], "--ou"),
    (["certify", "--only", "P11", "--work", "1"], "--work"),
])
def test_a_prefix_of_an_option_is_refused(capsys, argv, prefix):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"unrecognized arguments: {prefix}" in err[0]


def test_the_deprecated_spellings_are_exactly_the_documented_ones():
    found = {(name, a.option_strings[0]): a.use for name, p in parsers() for a in options(p, deprecated=True)}
    assert found == DEPRECATED


@pytest.mark.parametrize("command, old", sorted(DEPRECATED))
def test_a_deprecated_spelling_parses_as_the_new_one_and_warns_in_one_line(capsys, command, old):
    new = DEPRECATED[(command, old)]
    value = {"--member": "key-only", "--jobs": "3", "--seed0": "7"}.get(old, "result.json")
    base = command.split() + (["--store", "s.db"] if command == "sweep export" else [])
    parser = build_parser()
    with_new = parser.parse_args(base + [new, value])
    assert capsys.readouterr().err == ""
    with_old = parser.parse_args(base + [old, value])
    assert vars(with_old) == vars(with_new)
    err = capsys.readouterr().err
    assert err == f"theorylab {command}: {old} is deprecated; use {new}\n"


def test_a_deprecated_spelling_runs_the_command_with_its_exit_status(capsys, tmp_path):
    store = tmp_path / "s.db"
    assert main(["sweep", "export", "--store", str(store), "--output", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "theorylab sweep export: --output is deprecated; use --out"
    assert len(err) == 2 and "no such store" in err[1]          # the refusal of the store, as with --out
    status = main(["induction", "--dk", "4", "--T", "9", "--samples", "4", "--gamma", "1",
                   "--member", "key-only", "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0 and err == "theorylab induction: --member is deprecated; use --variant\n"
    mass = json.loads(out)["mass"]
    assert [r["variant"] for r in mass] == ["key-only"] and mass[0]["gamma"] == 1.0


PROGRESS = {"compare", "gamma-c", "graded-sim", "ladder", "mutate", "simulate", "sweep run", "train induction"}
"""The commands that can show a progress bar."""
NOT_LIMITED = {"bench train"}
"""Leaf commands without --max-memory/--max-time (a benchmark of a fixed small size)."""


def test_no_progress_and_resource_limits_where_they_belong():
    with_progress = {n for n, p in leaves() if any(a.option_strings == ["--no-progress"] for a in options(p))}
    assert with_progress == PROGRESS
    for name, parser in leaves():
        spelled = {o for a in options(parser) for o in a.option_strings}
        if name not in NOT_LIMITED:
            assert {"--max-memory", "--max-time"} <= spelled, name


def test_bars_are_drawn_only_on_a_terminal(monkeypatch):
    import io

    from theorylab import _progress
    from theorylab.cli._args import show_progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr("sys.stderr", io.StringIO())
    with _progress.progress(3, "x", "it", enabled=True) as bar:
        assert bar is None
    assert show_progress(argparse.Namespace(no_progress=False)) is False
    monkeypatch.setattr("sys.stderr", Terminal())
    with _progress.progress(3, "x", "it", enabled=True) as bar:
        assert bar is not None
        bar.update(3)
    assert show_progress(argparse.Namespace(no_progress=False)) is True
    assert show_progress(argparse.Namespace(no_progress=True)) is False


def test_the_max_time_option_reaches_the_library_checks(capsys, tmp_path):
    """ladder's profile files are costed by the library with the limits in force: --max-time is one."""
    profile = tmp_path / "a.txt"
    profile.write_text(" ".join(["0.25"] * 4))
    assert main(["ladder", "--a", str(profile), "--s", str(profile), "--max-time", "1e-9s", "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorylab ladder: error: this request would take") and "THEORYLAB_MAX_TIME" in err


def test_a_store_read_is_refused_over_the_memory_limit(capsys, tmp_path):
    store = tmp_path / "s.db"
    sqlite3.connect(store).execute("create table t (x)").connection.commit()
    for argv in (["sweep", "status"], ["sweep", "export"], ["plot", "mass", "-o", str(tmp_path / "f.png")]):
        assert main(argv + ["--store", str(store), "--max-memory", "1"]) == 2
        err = capsys.readouterr().err
        assert "needs about" in err and "over the limit of 1 B (--max-memory)" in err


def test_json_fields_are_lists_not_glued_strings(capsys):
    assert main(["envelope", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert all(isinstance(r["S_levels"], list) and isinstance(r["caps"], list) for r in rows)
    assert main(["envelope", "--format", "csv"]) == 0
    table = [line.split(",") for line in capsys.readouterr().out.splitlines()]
    column = table[0].index("S_levels")
    as_digits = ["".join(map(str, r["S_levels"])) or "-" for r in rows]
    assert [line[column] for line in table[1:]] == as_digits and any(len(r["S_levels"]) > 1 for r in rows)
    argv = ["graded-sim", "--reps", "2", "--m", "4", "4000", "--levels", "2", "--d", "8"]
    assert main(argv + ["--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)["rows"]
    assert main(argv + ["--format", "csv"]) == 0
    lines = [line.split(",") for line in capsys.readouterr().out.splitlines()]
    column = lines[0].index("S_levels")
    risk = [line for line in lines[1:] if line[0] == "risk"]
    assert [line[column] for line in risk] == ["".join(map(str, r["S_levels"])) or "-" for r in listed]
    assert all(isinstance(r["S_levels"], list) for r in listed) and any(r["S_levels"] for r in listed)


def test_induction_columns_use_the_paper_names(capsys):
    assert main(["induction", "--dk", "4", "--T", "9", "--samples", "4", "--gamma", "0.5", "1",
                 "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {r["gamma"] for r in out["rows"]} == {0.5, 1.0} and all("g" not in r for r in out["rows"])
    assert all("member" not in r and r["variant"] == "symmetric" for r in out["mass"])


def test_certify_format_json_prints_the_report(capsys, tmp_path):
    path = tmp_path / "r.json"
    assert main(["certify", "--only", "P11", "--format", "json", "--out", str(path)]) == 0
    out = capsys.readouterr().out
    report = json.loads(out)
    assert path.read_text() == out
    assert report["summary"]["PASS"] == report["summary"]["total"] >= 1
    assert [c["id"] for c in report["certificates"]][0].startswith("P11")
    assert main(["certify", "--only", "P11"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("PASS ") and "certificates:" in lines[-1]
    with pytest.raises(UsageError):
        build_parser().parse_args(["certify", "--format", "csv"])
    assert main(["certify", "--list", "--format", "json"]) == 2
    assert "--format is not read with --list" in capsys.readouterr().err

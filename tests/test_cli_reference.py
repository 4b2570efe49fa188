"""docs/cli.md is generated from the parsers and must be current."""
from pathlib import Path

from theorylab.cli._reference import reference


def test_cli_reference_is_current():
    committed = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    assert committed == reference(), "regenerate: python -m theorylab.cli._reference > docs/cli.md"


def test_cli_reference_does_not_depend_on_the_terminal_or_argparse_layout(monkeypatch):
    """Built from the parsers' structure: the terminal width (argparse wraps help to it) changes nothing,
    and an option's value is shown once, as in ``| `--out`, `-o` | `OUT` |`` (Python 3.13's help prints
    ``--out, -o OUT`` where 3.12 printed ``--out OUT, -o OUT``)."""
    text = reference()
    for columns in ("40", "250"):
        monkeypatch.setenv("COLUMNS", columns)
        assert reference() == text
    assert "| `-o`, `--out` | `PATH` | required. write the figure to this file (.png, .pdf or .svg" in text
    assert "[--workers WORKERS | --scheduler tcp://HOST:PORT | --local-cluster N]" in text

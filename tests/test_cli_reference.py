"""docs/cli.md is generated from the parsers and must be current."""
from pathlib import Path

from theorylab.cli._reference import reference


def test_cli_reference_is_current():
    committed = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    assert committed == reference(), "regenerate: python -m theorylab.cli._reference > docs/cli.md"

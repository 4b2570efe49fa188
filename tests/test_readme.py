"""README carries exactly the two set-up commands, and CI runs the test one verbatim."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAIN = "pip install -e . && theorylab certify"
TESTS = "pip install -e '.[test]' && python -m pytest -q"


def test_readme_has_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    assert readme.count(MAIN) == 1 and readme.count(TESTS) == 1
    assert TESTS in (ROOT / ".ci" / "run").read_text()


def test_readme_tour_output_is_what_the_cli_prints(capsys):
    """Each ``$ theorylab ...`` block in the README is the command's real output (certify's
    excerpt is left out: its seconds differ from run to run)."""
    import re
    import shlex

    from theorylab.cli import main

    blocks = re.findall(r"```text\n\$ (theorylab (?!certify)[^\n]*)\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) >= 6
    for command, shown in blocks:
        main(shlex.split(command)[1:])
        out, err = capsys.readouterr()
        assert (out + err).strip() == shown.strip(), command

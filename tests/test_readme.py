"""README carries exactly the two set-up commands, and CI runs the test one verbatim."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAIN = "pip install -e . && theorylab certify"
TESTS = "pip install -e '.[test]' && python -m pytest -q"

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
CROSS_CPU = 4 * 2.0 ** -24
"""Agreement of a printed Monte Carlo quantity across CPUs, relative to max(1, |x|).

The Monte Carlo kernels compute each sample's target mass in float32 with ``fastmath``:
the code Numba emits for another CPU (FMA or not, vector width) rounds differently, at
the level of float32's unit roundoff u = 2^-24 per sample mass. Means, roots of
M(g) = 1/2 and relative errors of O(1) quantities inherit that, so printed digits
below about u are not reproducible across machines (measured: |d mass| <= 2.1e-8 between
the host, ``generic`` and ``haswell``; docs/simulation.md). 4u leaves a factor of ~10
above the measurement and still fails on any change a reader could see in 6 digits."""


def test_readme_has_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    assert readme.count(MAIN) == 1 and readme.count(TESTS) == 1
    assert TESTS in (ROOT / ".ci" / "run").read_text()


def _half_unit(token: str) -> float:
    """Half a unit in the last printed digit of a decimal token (0 for an integer)."""
    mantissa, _, exponent = token.lower().partition("e")
    if "." not in mantissa:
        return 0.0 if not exponent else 0.5 * 10.0 ** int(exponent)
    decimals = len(mantissa.split(".")[1])
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals)


def same_printout(shown: str, live: str) -> tuple[bool, str]:
    """Compare two printouts: text exactly (up to spacing), integers exactly, decimals to their
    printed precision plus :data:`CROSS_CPU` of their scale."""
    split = lambda s: (NUMBER.split(s), NUMBER.findall(s))
    (text_a, nums_a), (text_b, nums_b) = split(shown), split(live)
    squash = lambda parts: [" ".join(p.split()) for p in parts]
    if squash(text_a) != squash(text_b) or len(nums_a) != len(nums_b):
        return False, "text or layout differs"
    for a, b in zip(nums_a, nums_b):
        integer = [re.fullmatch(r"[-+]?\d+", t) is not None for t in (a, b)]
        if any(integer):
            if not all(integer) or int(a) != int(b):
                return False, f"integer {a} != {b}"
            continue
        x, y = float(a), float(b)
        if abs(x - y) > _half_unit(a) + _half_unit(b) + CROSS_CPU * max(1.0, abs(x)):
            return False, f"{a} != {b} beyond its printed precision"
    return True, ""


def test_readme_tour_output_is_what_the_cli_prints(capsys):
    """Each ``$ theorylab ...`` block in the README is the command's real output (certify's
    excerpt is left out: its seconds differ from run to run)."""
    import shlex

    from theorylab.cli import main

    blocks = re.findall(r"```text\n\$ (theorylab (?!certify)[^\n]*)\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) >= 6
    for command, shown in blocks:
        main(shlex.split(command)[1:])
        out, err = capsys.readouterr()
        same, why = same_printout(shown.strip(), (out + err).strip())
        assert same, f"{command}: {why}\n--- README\n{shown}\n--- live\n{out + err}"


@pytest.mark.parametrize("shown, live, same", [
    ("x 0.786335 8.24983e-05", "x  0.786335  8.24982e-05", True),     # last digit of a tiny MC difference
    ("x 0.786335", "x 0.786337", False),                              # a change a reader can see
    ("dk 64", "dk 65", False), ("dk 64", "dk 64.0", False),          # integers exactly
    ("variant: t4-only", "variant: t3-inclusive", False),
    ('"gamma_c": 0.7867300090777336,', '"gamma_c": 0.7867300090777337,', True),
    ('"gamma_c": 0.7867300090777336,', '"gamma_c": 0.7867310090777336,', False),
])
def test_printout_comparison(shown, live, same):
    assert same_printout(shown, live)[0] is same

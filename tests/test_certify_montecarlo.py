"""The Monte Carlo plumbing of the certificates: false-failure budget, thresholds, --seed."""
import json

import numpy as np
import pytest

from theorylab.certify import Outcome, certificate, run_one, select
from theorylab.certify import montecarlo as mcs
from theorylab.certify.registry import REGISTRY, false_failure_total
from theorylab.cli import main
from theorylab.errors import ParameterError

MC_IDS = ["P10", "P17", "P17.rng", "P17.variants", "P18.plateau", "P18.condensation", "P19.band", "P19.crossover", "P24.mc", "G8",
          "G10", "P21", "P22"]


def test_every_monte_carlo_certificate_declares_its_false_failure_and_the_total_fits_the_budget():
    specs = select()
    mc = [s for s in specs if s.method == "monte-carlo"]
    assert sorted(s.id for s in mc) == sorted(MC_IDS)
    assert all(s.false_failure is not None and 0 < s.false_failure <= mcs.FALSE_FAILURE_BUDGET for s in mc)
    assert all(s.false_failure is None for s in specs if s.method != "monte-carlo")
    total = false_failure_total(specs)
    assert total == pytest.approx(sum(s.false_failure for s in mc)) and total <= mcs.FALSE_FAILURE_BUDGET == 1e-3


def test_registry_requires_a_budget_and_a_seed_for_monte_carlo():
    def with_seed(seed=None):
        return Outcome(True)

    def without_seed():
        return Outcome(True)
    with pytest.raises(ValueError, match="false_failure is required"):
        certificate("ZZ7", title="t", paper="p", claim="c", method="monte-carlo")(with_seed)
    with pytest.raises(ValueError, match="only there"):
        certificate("ZZ7", title="t", paper="p", claim="c", method="exact", false_failure=1e-4)
    with pytest.raises(ValueError, match="must lie in"):
        certificate("ZZ7", title="t", paper="p", claim="c", method="monte-carlo", false_failure=0.01)
    with pytest.raises(ValueError, match="seed keyword"):
        certificate("ZZ7", title="t", paper="p", claim="c", method="monte-carlo", false_failure=1e-4)(without_seed)
    assert "ZZ7" not in REGISTRY


@pytest.mark.parametrize("good", [0, 1, "7", 2**64 - 1, str(2**64 - 1)])
def test_seed_validation_accepts_integers_in_range(good):
    assert mcs.validate_seed(good) == int(good)


@pytest.mark.parametrize("bad", [-1, "-1", 2**64, "1.5", 1.0, "x", "", "²", True])
def test_seed_validation_rejects_everything_else(bad):
    with pytest.raises(ParameterError, match=r"--seed must be an integer in \[0, 2\^64\)"):
        mcs.validate_seed(bad)


def test_derived_seeds_are_stable_and_distinct():
    assert mcs.derived_seed(1, "P17") == mcs.derived_seed(1, "P17") == 1812141184   # same N, same numbers
    seeds = {mcs.derived_seed(n, cid) for n in range(3) for cid in MC_IDS}
    assert len(seeds) == 3 * len(MC_IDS) and all(0 <= s < 2**31 for s in seeds)


def test_thresholds():
    assert mcs.z_threshold(0.05) == pytest.approx(1.959964, abs=1e-6)
    assert mcs.z_threshold(0.05, 5) == pytest.approx(mcs.z_threshold(0.01))
    assert mcs.z_threshold(0.05, two_sided=False) == pytest.approx(1.644854, abs=1e-6)
    assert mcs.t_threshold(0.05, 19) == pytest.approx(2.093024, abs=1e-6)
    lo, hi = mcs.chi2_ratio_bounds(0.05, 19)
    assert lo == pytest.approx(8.906516 / 19, abs=1e-6) and hi == pytest.approx(32.852327 / 19, abs=1e-6)
    assert mcs.binomial_min_hits(9, 0.95, 2.5e-5) == 4     # P(Bin(9, .95) <= 3) = 1.2e-6, P(<= 4) = 3.2e-5
    with pytest.raises(ParameterError):
        mcs.z_threshold(1.5)


def test_bernstein_halfwidth_holds_its_level_on_skewed_samples():
    """Empirical false-failure rate of the empirical Bernstein test at level 0.05 (it is conservative)."""
    rng = np.random.default_rng(0)
    for mu, n in ((0.02, 100), (0.5, 50), (0.97, 400)):
        x = rng.random((4000, n)) < mu                       # Bernoulli: the most skewed [0, 1] samples
        half = np.array([mcs.bernstein_halfwidth(v, n, 0.05) for v in x.var(axis=1, ddof=1)])
        assert np.mean(np.abs(x.mean(axis=1) - mu) > half) <= 0.05


def test_list_prints_the_false_failure_budget(capsys):
    assert main(["certify", "--list"]) == 0
    out = capsys.readouterr().out
    assert "false-failure probability of each Monte Carlo certificate" in out
    for cid in MC_IDS:
        assert any(line.split()[:1] == [cid] for line in out.splitlines() if line.startswith("  "))
    assert f"total {false_failure_total():.1e} (budget 0.001) over {len(MC_IDS)} Monte Carlo certificates" in out


def test_docs_page_prints_the_budget():
    from theorylab.certify.docs import markdown
    page = markdown()
    assert "## False-failure budget" in page and f"| **total** | **{false_failure_total():.1e}** (budget 0.001) | |" in page
    assert "| `P17` | 1.0e-04 | Law vs MC root" in page


def test_seed_changes_monte_carlo_draws_reproducibly_and_leaves_other_methods_alone():
    spec = select(["P19.band"])[0]
    default, a, b, c = run_one(spec), run_one(spec, seed=5), run_one(spec, seed=5), run_one(spec, seed=6)
    assert default.seeds == {"mc": 1900} and a.seeds == {"mc": mcs.derived_seed(5, "P19.band")}
    # same code run twice: bitwise (seed 5 twice)
    assert a.array_sha256 == b.array_sha256 and a.evidence == b.evidence                      # same N, same numbers
    assert a.array_sha256["mc_mass"] != default.array_sha256["mc_mass"] != c.array_sha256["mc_mass"]
    assert all(r.status == "PASS" for r in (default, a, c))
    exact = select(["P11"])[0]
    # same code run twice: bitwise (an exact certificate ignores the seed)
    assert run_one(exact, seed=5).evidence == run_one(exact).evidence


def test_cli_seed_is_recorded_and_verified(tmp_path, capsys):
    path = tmp_path / "r.json"
    assert main(["certify", "--only", "P19.band", "P11", "--seed", "3", "--out", str(path)]) == 0
    report = json.loads(path.read_text())
    assert report["seed"] == 3
    band = next(c for c in report["certificates"] if c["id"] == "P19.band")
    assert band["seeds"] == {"mc": mcs.derived_seed(3, "P19.band")}
    capsys.readouterr()
    assert main(["certify", "--verify", str(path)]) == 0           # re-run under the recorded seed
    assert "2/2 certificates reproduced: report verified" in capsys.readouterr().out
    assert main(["certify", "--only", "P11", "--out", str(path)]) == 0
    assert json.loads(path.read_text())["seed"] is None


@pytest.mark.parametrize("bad", ["-1", "18446744073709551616", "1.5", "abc"])
def test_cli_bad_seed_is_one_line_exit_2(bad, tmp_path, capsys):
    path = tmp_path / "r.json"
    assert main(["certify", "--only", "P11", "--seed", bad, "--out", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--seed: must be an integer in [0, 2^64)" in err[0]
    assert not path.exists()                                     # nothing half-written


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_monte_carlo_certificate_passes_under_other_seeds(seed):
    for spec in select(MC_IDS):
        rec = run_one(spec, seed=seed)
        assert rec.status == "PASS", (spec.id, seed, rec.note, [(e.name, e.value) for e in rec.evidence])

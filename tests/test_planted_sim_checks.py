"""Bugs planted in the simulation helpers make the new checks FAIL (tests/planted.py).

One representative bug per new check: the counter-based normals and polynomial kernels (P17.rng),
the relative precision of 1 - phi (P17.variants) and of the row-entropy moments (P24.interval), the
exact peak search (P24.interval), the peak CI (P24.mc), the per-channel model (P19.crossover), the
graded-risk rows (G8) and the ladder helpers (G10). Cases that recompile the Numba kernels or run
the Monte Carlo are marked slow.
"""
import pytest

from planted import certify_with_bug

RNG, OBS, EXACT, ROWS = ("theorylab/rng.py", "theorylab/psa/observables.py", "theorylab/psa/quadrature.py",
                         "theorylab/psa/row_stats.py")

# label: (file, old text, new text, certificate that must FAIL)
PLANTED = {
    "seed salt off by one (every stream shifts)":
        (RNG, "_SEED_SALT = np.uint64(0x5851F42D4C957F2D)", "_SEED_SALT = np.uint64(0x5851F42D4C957F2C)", "P17.rng"),
    "log32 loses its ln2 low-order term":
        (RNG, "y = y * f * z + _LN2B * e - _HALF * z", "y = y * f * z - _HALF * z", "P17.rng"),
    "float64 kernel sine series with (-1/2)^k":
        (RNG, "tuple((-1.0) ** k / math.factorial(2 * k + 1)", "tuple((-0.5) ** k / math.factorial(2 * k + 1)",
         "P17.rng"),
    "float64 kernel drops the last distractor":
        ("theorylab/psa/montecarlo.py", "for j in range(m):\n                    acc += exp64(ak * za[j] + bk",
         "for j in range(m - 1):\n                    acc += exp64(ak * za[j] + bk", "P17.rng"),
    "left tail of 1 - phi with erfcx(-x/2)":
        (EXACT, "erfcx(-x / np.sqrt(2.0))", "erfcx(-x / np.sqrt(4.0))", "P17.variants"),
    "peak CI upper end loses the root":
        (OBS, "return float(root - half), float(root + half)", "return float(root - half), float(half)", "P24.mc"),
    "linear peak scan":
        (OBS, "SCAN = np.append(0.02 * 1.15 ** np.arange(45), 10.0)", "SCAN = np.append(0.02 * 1.15 * np.arange(45), 10.0)",
         "P24.interval"),
    "second row moment's left tail with sigma^2 for 2 sigma^2":
        (ROWS, "np.exp(2.0 * mu + 2.0 * s2", "np.exp(2.0 * mu + 1.0 * s2", "P24.interval"),
    "symmetric member's T4 weighted by g_q alone":
        ("theorylab/psa/induction.py", "gq * gk * C[None, :, 3]", "gq * C[None, :, 3]", "P19.crossover"),
    "exact row statistics drop the target-noise weights":
        (ROWS, "sum(wi * getattr(r, k) for r, wi in zip(rows, wz))", "sum(getattr(r, k) for r, wi in zip(rows, wz))",
         "P24.interval"),
    "float64 row-statistics kernel sums p for p^2":
        ("theorylab/psa/row_stats_mc.py", "Q += w * w\n                B1 += w * p1", "Q += w\n                B1 += w * p1",
         "P17.rng"),
    "channel model gives T1 a gap":
        ("theorylab/psa/induction.py", 'gap={"T1": (0.0,)', 'gap={"T1": (1.0,)', "P19.crossover"),
}

#: were injected into the certificates' library calls before they lost their test-only parameters
PLANTED_PLATEAU_BAND = {
    "argmax plateau with m = T - 1 distractors":
        ("theorylab/psa/transition.py", "return np.exp(_distractors(T) * log_ndtr(r))",
         "return np.exp((_distractors(T) + 1.0) * log_ndtr(r))", "P18.plateau"),
    # a shift of ~2 SE of the Monte Carlo: the plateau-vs-reference and quadrature checks must catch it
    "argmax plateau shifted by 1.5e-3":
        ("theorylab/psa/transition.py", 'return argmax_probability("t4-only", dk, T)',
         'return argmax_probability("t4-only", dk, T) + 1.5e-3', "P18.plateau"),
    "simulated mass fed the gap with its sign flipped":
        ("theorylab/psa/montecarlo.py", "delta = model._gap(g, dk)", "delta = -model._gap(g, dk)", "P19.band"),
}


@pytest.mark.slow
@pytest.mark.parametrize("label", list(PLANTED_PLATEAU_BAND))
def test_planted_plateau_and_band_bugs_fail(label):
    path, old, new, cid = PLANTED_PLATEAU_BAND[label]
    run = certify_with_bug(path, old, new, [cid])
    assert run.returncode == 1 and run.status(cid) == "FAIL", run.output


FAST = {
    "graded risk skips the last sample size":
        ("theorylab/graded/risk_sim.py", "for i in range(len(m_values)):", "for i in range(len(m_values) - 1):", "G8"),
    "graded m grid keeps duplicates":
        ("theorylab/graded/risk_sim.py", "np.not_equal(grid[1:], grid[:-1], out=keep[1:])",
         "np.not_equal(grid[1:], grid[:1], out=keep[1:])", "G8"),
    "Spearman centred over arms instead of levels":
        ("theorylab/graded/ladder_sim.py", "ry - ry.mean(axis=1, keepdims=True)", "ry - ry.mean(axis=0, keepdims=True)", "G10"),
    "degradation tail interval loses its lower end":
        ("theorylab/graded/ladder_sim.py", '"slope_excess_vs_n_tail_ci": list(slope_tail[1:])',
         '"slope_excess_vs_n_tail_ci": list(slope_tail[2:])', "G10"),
    "ladder grid truncated instead of rounded":
        ("theorylab/graded/ladder_sim.py", "np.unique(np.round(np.geomspace(1, max(top, 16.0), points))",
         "np.unique((np.geomspace(1, max(top, 16.0), points))", "G10"),
}


@pytest.mark.slow
@pytest.mark.parametrize("label", list(PLANTED))
def test_planted_bug_fails_its_certificate(label):
    path, old, new, cid = PLANTED[label]
    run = certify_with_bug(path, old, new, [cid])
    assert run.returncode == 1 and run.status(cid) == "FAIL", run.output


@pytest.mark.parametrize("label", list(FAST))
def test_planted_bug_fails_fast_certificate(label):
    path, old, new, cid = FAST[label]
    run = certify_with_bug(path, old, new, [cid])
    assert run.returncode == 1 and run.status(cid) == "FAIL", run.output

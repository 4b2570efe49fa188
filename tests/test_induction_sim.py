"""Vector-level induction simulation (theorylab.psa.induction) and the ``theorylab induction`` CLI."""
import json

import numpy as np
import pytest

from theorylab.cli import main
from theorylab.errors import ParameterError
from theorylab.psa import rotary, scores
from theorylab.psa import induction as ind
from theorylab.psa import masses, moments as psa_moments, positional


def test_reduced_channel_model_matches_the_spec():
    """The per-channel moments of docs/conventions.md, derived from the score-model variants."""
    m = ind.reduced_channel_model()
    g, dk = 0.7, 64
    assert m.gap_at("T3", g, dk) == pytest.approx(g * 8) and m.gap_at("T4", g, dk) == pytest.approx(g * g * 8)
    assert m.var_at("T1", g) == pytest.approx(1) and m.var_at("T3", g) == pytest.approx(2 * g**2)
    assert m.var_at("T4", g) == pytest.approx(4 * g**4) and m.cov34_at(g) == pytest.approx(2 * g**3)
    assert m.gap_at("T1", g, dk) == 0 and m.gap_at("T2", g, dk) == 0


@pytest.mark.parametrize("placement", ["post", "pre"])
def test_channels_sum_to_the_sheared_score(placement):
    rng = np.random.default_rng(0)
    x, j = ind.induction_batch(rng, 3, 20, 8)
    freqs = ind.frequencies(8, 0.3)
    C = ind.stream_channels(x, freqs, placement)
    g = 0.8
    for n in range(3):
        s = rotary.sheared_stream(x[n], g, freqs, placement=ind.PLACEMENTS[placement])
        direct = ind.HEAD_SIGN * s[:-1] @ s[-1] / np.sqrt(8)
        np.testing.assert_allclose(C[n, 0] + g * C[n, 1] + g * C[n, 2] + g * g * C[n, 3], direct, atol=1e-12)


def test_post_channels_are_the_library_score_channels():
    x, _ = ind.induction_batch(np.random.default_rng(1), 1, 16, 8)
    freqs = ind.frequencies(8, 0.2)
    X = rotary.rope(x[0], freqs)
    ref = scores.score_channels(X, X, 1.0, 1.0)
    C = ind.stream_channels(x, freqs, "post")[0]
    for c in range(4):
        np.testing.assert_allclose(C[c], ind.HEAD_SIGN * ref[c][-1, :-1], atol=1e-12)


def test_batch_is_canonical_induction():
    x, j = ind.induction_batch(np.random.default_rng(2), 50, 12, 4)
    assert np.all((j >= 1) & (j <= 12 - 3))
    np.testing.assert_array_equal(x[:, -1], x[np.arange(50), j - 1])


def test_simulation_is_deterministic_and_prefix_stable():
    a = ind.simulate(8, 16, 0.1, 100, seed=3)
    b = ind.simulate(8, 16, 0.1, 70, seed=3)
    # same code run twice: bitwise: chunks of 64 samples, each from default_rng([seed, c])
    np.testing.assert_array_equal(a.channels[:70], b.channels)
    assert not np.array_equal(ind.simulate(8, 16, 0.1, 10, seed=4).channels, a.channels[:10])


def test_moments_agree_with_the_reduced_model_in_the_bulk_without_rope():
    s = ind.simulate(32, 128, 0.0, 400, seed=5)
    m = psa_moments.channel_moments(s)
    root = np.sqrt(32)
    for c, gap in ((2, root), (3, root)):                      # T3, T4 unit gaps sqrt(dk)
        assert abs(m.gap[c] - gap) <= 5 * m.gap_se[c]
    np.testing.assert_allclose(m.bulk_var, [1, 2, 2, 4], rtol=0.05)
    assert m.bulk_cov34 == pytest.approx(2, rel=0.05)
    np.testing.assert_allclose(m.lag1[2:], [-0.5, -0.5], atol=0.05)   # neighbours share a key vector
    assert abs(m.lag1[0]) < 0.05
    # the special keys: the target's predecessor A and the query's predecessor
    assert m.special["target predecessor j-1"][2] == pytest.approx(-root, rel=0.1)
    assert m.special["query predecessor T-2"][1] == pytest.approx(root, rel=0.1)
    assert m.special["query predecessor T-2"][3] == pytest.approx(root, rel=0.1)
    assert np.all(m.var > m.bulk_var)                          # outliers inflate the all-distractor variance


def test_comparison_rows_scale_with_g():
    s = ind.simulate(16, 32, 0.0, 64, seed=6)
    rows = psa_moments.comparison_rows(s, [0.5, 2.0])
    t4 = [r for r in rows if r["channel"] == "T4"]
    assert t4[1]["gap"] == pytest.approx(16 * t4[0]["gap"]) and t4[1]["var"] == pytest.approx(256 * t4[0]["var"])
    cov = [r for r in rows if r["channel"] == "cov(T3,T4)"]
    assert cov[1]["var_model"] == pytest.approx(2 * 8.0)


def test_rope_match_factor():
    assert psa_moments.rope_match_factor(64, np.zeros(4)) == 1.0
    assert abs(psa_moments.rope_match_factor(512, np.full(4, 0.1))) < 0.05   # the gap averages away over offsets


def test_mass_rows_and_members():
    s = ind.simulate(16, 32, 0.0, 64, seed=7)
    rows = masses.mass_rows(s, [0.0, 1.0], "key-only")
    assert rows[0]["model_variant"] == "key-only" and 0 <= rows[1]["target_mass"] <= 1
    q = masses.target_mass(s, [0.0, 3.0], "query-only")[2]
    assert np.all(q <= 0.2)                                    # no key-side order: near chance


def test_coriolis_ratios_follow_2_sin_half_theta():
    freqs = rotary.rope_frequencies(16)
    r = positional.coriolis_band_ratios(16, 10, freqs, g=0.5, seed=0)
    np.testing.assert_allclose(r, np.broadcast_to(positional.coriolis_gain(freqs), r.shape), rtol=1e-10)


def test_cesaro_positional_means_telescope():
    a = positional.cesaro_averages(512, np.full(4, 0.3), "T3", "positional", seed=0)
    assert np.max(np.arange(1, 513) * np.abs(a)) <= 2.0 + 1e-12
    slope, _, _ = positional.envelope_slope(a, 8)
    assert -1.2 < slope < -0.8
    assert np.all(positional.cesaro_averages(64, np.zeros(4), "T2", "positional") == 0)


@pytest.mark.parametrize("call", [
    lambda: ind.simulate(dk=7),
    lambda: ind.simulate(T=4),
    lambda: ind.simulate(theta=4.0),
    lambda: ind.simulate(samples=1),
    lambda: ind.simulate(placement="middle"),
    lambda: ind.frequencies(8, [0.1, 0.2]),
    lambda: positional.coriolis_band_ratios(8, 5, np.ones(4), g=0.0),
    lambda: positional.envelope_slope(np.ones(10), 8),
])
def test_bad_input(call):
    with pytest.raises(ParameterError):
        call()


def test_cli_json_and_plot(tmp_path, capsys):
    png = tmp_path / "fig.png"
    rc = main(["induction", "--dk", "16", "--T", "32", "--theta", "0.1", "--gamma", "0.5", "1.0", "--samples", "40",
               "--seed", "2", "--placement", "pre", "--format", "json", "--plot", str(png)])
    assert rc == 0 and png.stat().st_size > 1000
    out = json.loads(capsys.readouterr().out)
    assert {r["channel"] for r in out["rows"]} == {"T1", "T2", "T3", "T4", "cov(T3,T4)"}
    assert len(out["rows"]) == 10 and len(out["mass"]) == 2 and out["placement"] == "pre"
    assert out["rows"][2]["gap_model"] == pytest.approx(0.5 * 4)


def test_cli_table_and_bad_input(capsys, tmp_path):
    assert main(["induction", "--dk", "8", "--T", "16", "--samples", "10"]) == 0
    assert "rope_match_factor" in capsys.readouterr().out
    png = tmp_path / "no.png"
    assert main(["induction", "--dk", "9", "--plot", str(png)]) == 2
    assert "dk" in capsys.readouterr().err and not png.exists()


def test_cli_rope_base(capsys):
    assert main(["induction", "--dk", "16", "--T", "32", "--rope-base", "10000", "--samples", "20",
                 "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rope_base"] == 10000 and 0 < out["rope_match_factor"] < 1
    assert main(["induction", "--theta", "0.1", "--rope-base", "100"]) == 2


def test_batch_is_the_nn_tasks_model_in_its_reduced_form():
    from theorylab.nn import tasks
    x, j = ind.induction_batch(np.random.default_rng(9), 64, 16, 4)
    rng = np.random.default_rng(9)
    y, k = tasks.plant_induction(rng, rng.standard_normal((64, 16, 4)), query_is_key=False)
    np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(j, k)


def test_target_at_the_query_predecessor_would_double_the_T4_gap():
    """Why the reduced-model form excludes j = T-2: both momenta then share x_{T-2}."""
    dk, T, n = 256, 10, 64
    x = np.random.default_rng(3).standard_normal((n, T, dk))
    usual, at_pred = x.copy(), x.copy()
    usual[:, -1] = usual[:, 3]                                       # j = 4
    at_pred[:, -1] = at_pred[:, T - 3]                               # j = T-2
    c_usual = ind.stream_channels(usual, ind.frequencies(dk, 0.0))[:, :, 4].mean(0)
    c_pred = ind.stream_channels(at_pred, ind.frequencies(dk, 0.0))[:, :, T - 2].mean(0)
    assert abs(c_usual[3] / np.sqrt(dk) - 1) < 0.05 and abs(c_pred[3] / np.sqrt(dk) - 2) < 0.05
    assert abs(c_usual[1]) < 0.5 and abs(c_pred[1] / np.sqrt(dk) - 1) < 0.05

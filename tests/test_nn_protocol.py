"""Training protocol options: initialisation (gamma-aware, plain), lr scaling, sequence loss, random padding,
the asymmetric member, the step-0 saturation numbers, pointer accuracy, and mlp = 0 meaning no MLP block."""
from __future__ import annotations

import json

import numpy as np
import pytest

from theorylab import ParameterError
from theorylab.cli import main
from theorylab.nn import specs as S
from theorylab.nn import decoder, grad, optim, tasks
from theorylab.nn.evaluation import batch_of, evaluate
from theorylab.nn.train import TrainConfig, head_spec, init_model, stream_gains, train, trainable
from theorylab.nn.trainstats import step0_statistics
from theorylab.nn.params import parameters, with_parameters

TINY = dict(task="canonical", T=8, vocab=12, d_model=8, dk=8, steps=6, batch=4, eval_size=20, log_every=1,
            warmup=2)


@pytest.mark.parametrize("field, value", [("init", "xavier"), ("lr_scale", "sqrt"), ("loss", "all"),
                                          ("padding_placement", "middle"), ("init", 1)])
def test_each_new_field_is_validated_in_one_line(field, value):
    with pytest.raises(ParameterError, match=f"^{field} must be one of ") as e:
        TrainConfig(**{field: value})
    assert "\n" not in str(e.value)


def test_asymmetric_member_is_key_heavy_and_takes_a_coupling():
    spec = head_spec(TrainConfig(variant="asymmetric", gamma=2.0))
    assert isinstance(spec, S.PSA) and (spec.g_q, spec.g_k) == (1.0, 2.0)
    assert stream_gains(spec) == pytest.approx((np.sqrt(5.0), np.sqrt(13.0)), rel=1e-15)


def _streams(config, seed=0, n=256):
    """Sheared query and key streams (n, T, dk) of the initial model on n canonical sequences (distinct tokens)."""
    model = init_model(config, seed)
    trace: list = []
    decoder.hidden_states(model, batch_of(config, n, [seed, 1, 0]).tokens, trace)
    rec = trace[0]["heads"][0]
    return rec["qs"], rec["ks"]


@pytest.mark.parametrize("variant, g", [("symmetric", 2.0), ("symmetric", 4.0), ("asymmetric", 4.0),
                                        ("key-only", 4.0), ("query-only", 4.0), ("low-pass", 2.0)])
def test_gamma_aware_init_gives_unit_variance_filtered_streams_at_step_0(variant, g):
    """Per-coordinate second moment of each filtered stream over positions 1..T-1 (position 0 has no
    predecessor): 1 under gamma-aware, the gain^2 2g^2 + 2g + 1 (13 at g = 2, 41 at g = 4) under plain.

    Tolerance 0.1: the second moment of a 64 x 64 N(0, 1/64) matrix has relative sd sqrt(2/4096) = 0.022, the
    256 x 14 rows of distinct tokens (LayerNorm: |u|^2 = d) add about 0.01, and the correlation of consecutive
    rows of distinct tokens about 1/sqrt(64 x 256 x 14) in the cross term: 0.1 is beyond 4 sd."""
    base = dict(variant=variant, gamma=g, task="canonical", T=15, vocab=64, d_model=64, dk=64)
    gains = np.array(stream_gains(head_spec(TrainConfig(**base)))) ** 2
    aware = [float(np.mean(s[:, 1:] ** 2)) for s in _streams(TrainConfig(init="gamma-aware", **base))]
    plain = [float(np.mean(s[:, 1:] ** 2)) for s in _streams(TrainConfig(init="plain", **base))]
    np.testing.assert_allclose(aware, 1.0, atol=0.1)
    np.testing.assert_allclose(np.divide(plain, gains), 1.0, atol=0.1)   # plain: the filter's own gain


def test_the_two_inits_coincide_without_a_filtered_stream_and_share_the_draws_otherwise():
    for variant, g in (("standard", 0.0), ("symmetric", 0.0), ("free-two-tap", 0.0), ("two-layer", 0.0)):
        a = init_model(TrainConfig(variant=variant, gamma=g, init="gamma-aware", **TINY), 3)
        b = init_model(TrainConfig(variant=variant, gamma=g, init="plain", **TINY), 3)
        pa, pb = parameters(a), parameters(b)
        # same code run twice (a division by exactly 1.0): bitwise
        assert all(np.array_equal(pa[k], pb[k]) for k in pa)
    a = init_model(TrainConfig(variant="key-only", gamma=2.0, init="gamma-aware", **TINY), 3).layers[0]
    b = init_model(TrainConfig(variant="key-only", gamma=2.0, init="plain", **TINY), 3).layers[0]
    assert np.array_equal(a.w_q, b.w_q) and np.array_equal(a.w_v, b.w_v)   # query stream unfiltered: untouched
    np.testing.assert_allclose(a.w_k * np.sqrt(13.0), b.w_k, rtol=1e-15)  # one division, one multiplication


def test_step0_numbers_show_the_plain_init_saturated_and_the_gamma_aware_not():
    base = dict(variant="symmetric", gamma=4.0)
    stats = {}
    for init in ("plain", "gamma-aware"):
        cfg = TrainConfig(init=init, **base)
        stats[init] = step0_statistics(init_model(cfg, 0), batch_of(cfg, 64, [0, 1, 0]).tokens)
    assert stats["plain"][0] > 25 and stats["plain"][1] > 0.9               # ~36 and 0.96 (docs/training.md)
    assert 0.7 < stats["gamma-aware"][0] < 1.2 and stats["gamma-aware"][1] < 0.3
    # TrainResult records the same numbers (the first training batch, the initial model)
    cfg = TrainConfig(variant="symmetric", gamma=4.0, init="plain", **TINY)
    r = train(cfg, 2)
    # same code run twice: bitwise
    assert (r.step0_score_std, r.step0_max_weight) == step0_statistics(init_model(cfg, 2),
                                                                       batch_of(cfg, cfg.batch, [2, 1, 0]).tokens)
    assert r.row()["step0_score_std"] == r.step0_score_std and r.row()["init"] == "plain"


def test_lr_scale_paper_multiplies_the_peak_lr_by_one_plus_two_gamma_to_the_minus_two():
    for g in (0.5, 2.0):
        none = TrainConfig(variant="symmetric", gamma=g, **TINY)
        paper = TrainConfig(variant="symmetric", gamma=g, lr_scale="paper", **TINY)
        assert paper.peak_lr == none.lr / (1 + 2 * g) ** 2 and none.peak_lr == none.lr
        logged = [h["lr"] for h in train(paper, 0).history]
        want = [optim.learning_rate(s, 6, none.lr, 2) / (1 + 2 * g) ** 2 for s in range(6)]
        # the schedule's product with the peak, reassociated: a few ulps
        np.testing.assert_allclose(logged, want, rtol=1e-14)
    assert TrainConfig(variant="standard", gamma=0, lr_scale="paper").peak_lr == TrainConfig().lr


def _mean_sequence_ce(model, tokens, targets) -> float:
    """Mean next-token cross-entropy from the full forward pass (the route under test is the hand-derived VJP)."""
    logits = decoder.forward(model, tokens)                                 # [B, T, V]
    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return float(-np.take_along_axis(logp, targets[..., None], -1).mean())


def test_sequence_loss_gradient_equals_finite_differences():
    """Directional derivatives of the mean cross-entropy over every position, central differences at h = 1e-5:
    truncation ~h^2 |L'''| ~ 1e-10 and rounding ~1e-16 / h = 1e-11, so 1e-7 of |g| |v| is ample; a gradient
    that dropped a position or the tied embedding's input end is off by percents."""
    rng = np.random.default_rng(0)
    model = decoder.random_decoder(vocab=7, d=8, n_head=2, n_layer=2, head=S.PSA(0.5, 1.0), seed=1)
    tokens = rng.integers(0, 7, (3, 6))
    targets = np.concatenate([tokens[:, 1:], rng.integers(0, 7, (3, 1))], axis=1)
    loss, grads, logits = grad.sequence_loss_and_grad(model, tokens, targets)
    assert logits.shape == (3, 6, 7)
    assert loss == pytest.approx(_mean_sequence_ce(model, tokens, targets), rel=1e-13)   # two summation orders
    params, h = parameters(model), 1e-5
    for name in ("wte", "layers.0.w_q", "layers.0.w_k", "layers.1.w_v", "layers.1.b_proj", "ln_f.0"):
        v = rng.normal(size=params[name].shape)
        up = with_parameters(model, {name: params[name] + h * v})
        down = with_parameters(model, {name: params[name] - h * v})
        fd = (_mean_sequence_ce(up, tokens, targets) - _mean_sequence_ce(down, tokens, targets)) / (2 * h)
        assert abs(np.sum(grads[name] * v) - fd) <= 1e-7 * np.linalg.norm(grads[name]) * np.linalg.norm(v), name
    with pytest.raises(ParameterError, match="targets must hold one token id per position"):
        grad.sequence_loss_and_grad(model, tokens, targets[:, :-1])


def test_sequence_loss_trains_and_differs_from_the_query_loss():
    q = train(TrainConfig(**TINY), 0)
    s = train(TrainConfig(loss="sequence", **TINY), 0)
    assert s.history[0]["loss"] != q.history[0]["loss"] and s.row()["loss"] == "sequence"
    cfg = TrainConfig(loss="sequence", **TINY)
    b = batch_of(cfg, cfg.batch, [0, 1, 0])
    targets = np.concatenate([b.tokens[:, 1:], b.tokens[np.arange(4), b.target][:, None]], axis=1)
    assert s.history[0]["loss"] == pytest.approx(_mean_sequence_ce(init_model(cfg, 0), b.tokens, targets), rel=1e-13)


def test_random_padding_keeps_the_pairs_the_query_and_the_answer():
    n, L, P, alphabet = 400, 5, 4, 16
    fixed = tasks.associative_recall(n, L, alphabet, P, seed=7)
    rand = tasks.associative_recall(n, L, alphabet, P, seed=7, padding_placement="random")
    rows = np.arange(n)
    assert rand.tokens.shape == fixed.tokens.shape == (n, 2 * L + P + 1)
    assert np.array_equal(rand.tokens[:, -1], fixed.tokens[:, -1])              # the same query
    assert np.all(rand.tokens[rows, rand.target - 1] == rand.tokens[:, -1])      # the target follows the key
    assert np.array_equal(rand.tokens[rows, rand.target], fixed.tokens[rows, fixed.target])   # the same answer
    body = rand.tokens[:, :-1]
    assert np.all((body == alphabet).sum(axis=1) == P)                           # every PAD kept
    # the pairs in their order, none split: the non-PAD tokens are the fixed layout's k1 v1 ... kL vL, and every
    # key sits right before its value (non-PAD runs have even length)
    assert all(np.array_equal(r[r != alphabet], f[:2 * L]) for r, f in zip(body, fixed.tokens))
    for r in body:
        runs = np.diff(np.flatnonzero(np.diff(np.r_[0, r != alphabet, 0])))[::2]
        assert np.all(runs % 2 == 0)
    assert len(set(rand.target.tolist())) > L and not np.all(body[:, -1] == alphabet)   # PADs do move
    cfg = TrainConfig(pairs=L, alphabet=alphabet, padding=P, padding_placement="random")
    assert np.array_equal(batch_of(cfg, 3, [1]).tokens, tasks.associative_recall(
        3, L, alphabet, P, seed=int(np.random.SeedSequence([1]).generate_state(1)[0]), padding_placement="random").tokens)


def test_pointer_accuracy_on_a_hand_case():
    """W_Q = W_K = 0: every score 0, the query's weights uniform. Attention credit (T positions): 1/T; pointer
    credit (the T - 1 keys before the query): 1/(T - 1), the paper's chance."""
    cfg = TrainConfig(variant="standard", gamma=0, **TINY)
    model = init_model(cfg, 0)
    zero = with_parameters(model, {"layers.0.w_q": np.zeros_like(model.layers[0].w_q)})
    ev = evaluate(cfg, zero, batch_of(cfg, 30, [0, 2]))
    # uniform weights are exactly equal, so the ties are exact
    assert np.all(ev.pointer == 1 / 7) and np.all(ev.attention == 1 / 8)
    # a query that attends only to its own position: attention credit 0; pointer credit over the keys before it
    b = batch_of(cfg, 30, [0, 2])
    trace: list = []
    decoder.hidden_states(model, b.tokens, trace)
    p = trace[0]["heads"][0]["p"][:, -1, :]
    assert np.array_equal(evaluate(cfg, model, b).pointer, tasks.induction_hits(p[:, :-1], b.target))


def test_mlp_zero_means_no_mlp_block():
    cfg = TrainConfig(**TINY)
    names = trainable(cfg, init_model(cfg, 0))
    assert not any(k.endswith(("b_proj", "w_fc", "b_fc", "w_proj", "ln2.0", "ln2.1")) for k in names)
    r = train(cfg, 0, keep_model=True)
    layer = r.model.layers[0]
    assert np.array_equal(layer.b_proj, np.zeros(8)) and np.array_equal(layer.ln2[0], np.ones(8))
    wide = TrainConfig(**{**TINY, "mlp": 4})
    assert {"layers.0.b_proj", "layers.0.w_fc"} <= set(trainable(wide, init_model(wide, 0)))
    assert not np.array_equal(train(wide, 0, keep_model=True).model.layers[0].b_proj, np.zeros(8))


def test_cli_runs_a_gamma_free_config_once_and_takes_the_new_options(capsys):
    argv = ["train", "induction", "--task", "canonical", "--T", "8", "--vocab", "12", "--d-model", "8", "--dk", "8",
            "--steps", "3", "--batch", "4", "--eval-size", "20", "--seeds", "1", "--no-progress", "--workers", "1",
            "--format", "json"]
    assert main([*argv, "--variant", "standard"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["init"] for r in out["rows"]] == ["both"] and len(out["runs"]) == 1 and "run once" in out["init"]
    assert main([*argv, "--variant", "asymmetric", "--gamma", "1", "--init", "plain", "--lr-scale", "paper",
                 "--loss", "sequence"]) == 0
    out = json.loads(capsys.readouterr().out)
    (run,) = out["runs"]
    assert (run["init"], run["lr_scale"], run["loss"], out["rows"][0]["init"]) == ("plain", "paper", "sequence",
                                                                                 "plain")
    assert run["step0_score_std"] > 0 and 0 < run["step0_max_weight"] <= 1 and 0 <= run["pointer_accuracy"] <= 1
    assert main([*argv[:2], "--padding-placement", "random", "--pairs", "3", "--alphabet", "8", "--padding", "2",
                 *argv[8:]]) == 0
    assert json.loads(capsys.readouterr().out)["padding_placement"] == "random"
    assert main([*argv, "--init", "warm"]) == 2
    assert "--init" in capsys.readouterr().err

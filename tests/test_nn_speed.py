"""The fast training step: its GEMM count, the float32 path, and the kernels it runs through.

``theorylab bench train`` compares the step with the time of its matrix products (the FLOP count of
``bench.train.step_flops``, checked here against a hand count); the step runs through private kernels
(LayerNorm parts kept from the forward pass, RoPE as a complex product, the sorted embedding VJP, the
in-place AdamW), each checked here against the public route it replaces.
"""
from __future__ import annotations

import platform
import sys

import numpy as np
import pytest

from theorylab import ParameterError
from theorylab.bench import train as bench
from theorylab.nn import _heap, grad, optim, transformer
from theorylab.nn.evaluation import answers, batch_of
from theorylab.nn.train import TrainConfig, init_model, train
from theorylab.nn.params import parameters, with_parameters
from theorylab.plga import operator as plga

SMALL = dict(task="canonical", T=4, vocab=5, d_model=4, dk=2, batch=3)


def test_step_flops_match_a_hand_count():
    """N = batch T = 12 rows, d = 4, dk = 2, T = 4, V = 5; 2 M K N per product."""
    # forward: 3 projections 3*2*12*4*2 = 576; scores 2*3*4*2*4 = 192; p v 2*3*4*4*2 = 192; a W_O 2*12*2*4 = 192
    # backward: grad W_O 192, da 192; p^T dout, ds ks, ds^T qs 3*192, dout v^T 192; grads W 576; du 576
    layer = 576 + 192 + 192 + 192 + 192 + 192 + 3 * 192 + 192 + 576 + 576          # 3456
    output = 3 * (2 * 3 * 4 * 5)                                                     # logits, dlogits wte, grad wte
    assert bench.step_flops(TrainConfig(**SMALL)) == layer + output == 3816
    # an MLP of width 3: u W_fc twice (forward, recomputed in the backward), gelu W_proj, and four backward products,
    # each 2*12*4*3 = 288
    assert bench.step_flops(TrainConfig(mlp=3, **SMALL)) == 3816 + 7 * 288
    assert bench.step_flops(TrainConfig(variant="two-layer", gamma=0, **SMALL)) == 2 * layer + output
    # the default configuration: 24 N d dk + 12 B T^2 dk + 6 B d V with N = 2048, d = dk = 64, B = 64, T = 32, V = 65
    assert bench.step_flops(TrainConfig()) == 24 * 2048 * 64 * 64 + 12 * 64 * 32 ** 2 * 64 + 6 * 64 * 64 * 65


def test_dtype_is_validated_and_float32_runs_in_float32():
    with pytest.raises(ParameterError):
        TrainConfig(dtype="float16")
    config = TrainConfig(dtype="float32", **SMALL)
    model = init_model(config, 0)
    assert {p.dtype for p in parameters(model).values()} == {np.dtype(np.float32)}
    b = batch_of(config, 6, [0, 1, 0])
    loss, grads, logits = grad.loss_and_grad(model, b.tokens, answers(b))
    assert logits.dtype == np.float32 and {g.dtype for g in grads.values()} == {np.dtype(np.float32)}


@pytest.mark.parametrize("kw", [dict(), dict(variant="free-two-tap", gamma=0, mlp=32, task="canonical", T=10, vocab=16,
                                             d_model=16, dk=16),
                                dict(variant="two-layer", gamma=0, mlp=16, d_model=32, dk=16),
                                dict(variant="symmetric", placement="pre-rope")])
def test_float32_gradients_match_float64_at_float32_precision(kw):
    """Same weights (the float32 ones, widened) and batch: the float32 gradient of every parameter is within 1e-4
    of the float64 one, norm-wise relative. float32 rounds at 6e-8 per operation; a gradient entry is a sum over the
    batch's 2048 rows and a few layers of products, so errors of ~1e-6 are expected (measured up to 2e-6); 1e-4 is
    float32's precision on such sums, far below any error of the formulas (those are O(1))."""
    c64, c32 = TrainConfig(**kw), TrainConfig(dtype="float32", **kw)
    m32 = init_model(c32, 3)
    m64 = with_parameters(init_model(c64, 3), {k: v.astype(np.float64) for k, v in parameters(m32).items()})
    b = batch_of(c64, 32, [3, 1, 0])
    l64, g64, _ = grad.loss_and_grad(m64, b.tokens, answers(b))
    l32, g32, _ = grad.loss_and_grad(m32, b.tokens, answers(b))
    assert abs(l32 - l64) <= 1e-5 * l64
    for k in g64:
        scale = np.linalg.norm(g64[k])
        if scale:
            assert np.linalg.norm(g32[k] - g64[k]) <= 1e-4 * scale, k


def test_float32_loss_curve_follows_float64_for_100_steps():
    """100 steps from the same weights and batches: every logged loss of the float32 run is within 1% of the float64
    run's. The runs differ by float32 rounding, which the optimisation amplifies step by step (measured: 1e-3
    relative at most on this configuration); a wrong float32 formula would be off by O(1) from the first step."""
    kw = dict(task="canonical", T=8, vocab=12, d_model=16, dk=16, batch=16, steps=100, log_every=1, eval_size=50)
    l64 = np.array([h["loss"] for h in train(TrainConfig(**kw), 0).history])
    l32 = np.array([h["loss"] for h in train(TrainConfig(dtype="float32", **kw), 0).history])
    assert len(l64) == len(l32) == 100
    np.testing.assert_allclose(l32, l64, rtol=1e-2)
    assert abs(l32[0] - l64[0]) <= 1e-5 * l64[0]                        # step 0: float32 rounding alone


def test_in_place_adamw_is_the_pure_step():
    """The loop's in-place kernel does the pure step's operations in the same order on the same numbers, so the
    results are the same floats (exactly; a reordering would show as ulp differences)."""
    rng = np.random.default_rng(0)
    params = {"a": rng.normal(size=(3, 4)), "b": rng.normal(size=5)}
    opt = optim.AdamW(1e-2, weight_decay=0.1)
    pure_p, pure_s = params, optim.init_state(params)
    own_p = {k: v.copy() for k, v in params.items()}
    own_s = optim.init_state(own_p)
    for step in range(3):
        grads = {k: rng.normal(size=v.shape) for k, v in params.items()}
        pure_p, pure_s = optim.adamw_step(pure_p, grads, pure_s, opt, 1e-2 * (step + 1), {"a"})
        own_s = optim._adamw_update(own_p, grads, own_s, opt, 1e-2 * (step + 1), {"a"})
    assert own_s.t == pure_s.t == 3
    for k in params:
        assert np.array_equal(own_p[k], pure_p[k]) and np.array_equal(own_s.m[k], pure_s.m[k])
        assert np.array_equal(own_s.v[k], pure_s.v[k])
    assert not np.array_equal(params["a"], pure_p["a"])                 # the pure step left its input alone


def test_layer_norm_parts_are_plga_layer_norm_on_ordinary_and_huge_rows():
    """Ordinary rows: the direct formula, which plga's scaled kernel equals up to rounding (1e-15 relative); rows near
    the float range (1e200, variance beyond it) go through the scaled kernel, and ``den`` stays the rows' spread, so
    the LayerNorm VJP scales as 1/c when x does by c (compared with x * 1e3, where eps is negligible as well: the
    two differ by eps / var ~ 1e-11 relative)."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 6, 8))
    affine = (1 + 0.1 * rng.normal(size=8), 0.1 * rng.normal(size=8))
    out, xhat, den = transformer._layer_norm_parts(x, affine)
    np.testing.assert_allclose(out, plga.layer_norm(x, *affine, eps=transformer.LN_EPS), rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(xhat * den + x.mean(axis=-1, keepdims=True), x, rtol=0, atol=1e-14)
    big = x * 1e200
    out_big, _, den_big = transformer._layer_norm_parts(big, affine)
    assert np.all(np.isfinite(den_big)) and np.all(np.isfinite(out_big))
    np.testing.assert_allclose(out_big, plga.layer_norm(big, *affine, eps=transformer.LN_EPS), rtol=1e-14, atol=1e-14)
    dy = rng.normal(size=x.shape)
    dx, dg, db = grad.layer_norm_vjp(x * 1e3, affine, dy)                # var ~ 1e6: eps shifts it by 1e-11
    dx_big, dg_big, db_big = grad.layer_norm_vjp(big, affine, dy)
    np.testing.assert_allclose(dx_big * 1e197, dx, rtol=1e-9, atol=1e-9 * np.abs(dx).max())
    np.testing.assert_allclose(dg_big, dg, rtol=1e-9, atol=1e-9 * np.abs(dg).max())
    np.testing.assert_allclose(db_big, db, rtol=0, atol=0)               # the bias gradient is sum(dy) either way


def test_embedding_vjp_sums_each_tokens_rows():
    """Against np.add.at (the rows of a token added one by one): the same sums, possibly in another association
    (reduceat may add in blocks), so equal to a few ulp of the sum of the absolute values."""
    rng = np.random.default_rng(2)
    tokens, dx = rng.integers(0, 7, size=(4, 9)), rng.normal(size=(4, 9, 3))
    want = np.zeros((10, 3))
    np.add.at(want, tokens.ravel(), dx.reshape(-1, 3))
    bound = np.zeros((10, 3))
    np.add.at(bound, tokens.ravel(), np.abs(dx).reshape(-1, 3))
    assert np.all(np.abs(grad.embedding_vjp(tokens, dx, 10) - want) <= 4 * np.finfo(float).eps * bound)
    assert np.all(grad.embedding_vjp(tokens, dx, 10)[7:] == 0)           # tokens 7..9 never occur


def test_heap_setting_is_taken_where_glibc_is():
    glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert _heap.retain_freed_memory() is glibc
    assert _heap.retain_freed_memory() is glibc                         # once per process, then the cached answer


def test_cli_trains_in_float32(capsys):
    import json

    from theorylab.cli import main

    argv = ["train", "induction", "--task", "canonical", "--T", "8", "--vocab", "12", "--d-model", "8", "--dk", "8",
            "--steps", "3", "--batch", "4", "--eval-size", "20", "--seeds", "1", "--no-progress", "--workers", "1",
            "--dtype", "float32", "--format", "json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dtype"] == "float32" and 0 <= out["runs"][0]["accuracy"] <= 1
    assert main(argv[:-4] + ["--dtype", "float16"]) == 2                 # refused by argparse, one line

"""Gradient checks: every hand-derived backward pass of theorylab.nn.grad against float64
central finite differences of the forward operation it differentiates (the forward ops are
the library's own: decoder.layer_norm, attention.two_tap, psa.rotary.rope, ...).

Check used throughout: for a random output cotangent ``w`` and a random input direction
``e``, the directional derivative of ``<w, f(x + t e)>`` at t = 0 by central differences
``D(h) = (f(x + h e) - f(x - h e)) . w / (2h)``, Richardson-extrapolated
``(4 D(h/2) - D(h)) / 3`` (error O(h^4); h = 1e-4), must equal ``<vjp(w), e>`` to a
relative 1e-8. Plain central differences at h = 1e-5 leave an O(h^2) truncation error of
up to 4e-7 on the whole model (measured: it falls 100x per 10x in h); a wrong factor,
sign, transpose or missing term is off by O(1).
"""
from __future__ import annotations

import numpy as np
import pytest

from theorylab import ParameterError
from theorylab.nn import attention as A
from theorylab.nn import specs as S
from theorylab.nn import decoder as D
from theorylab.nn import grad as G
from theorylab.nn.params import parameters, with_parameters
from theorylab.psa import shear as psa
from theorylab.psa import rotary

H = 1e-4
RTOL = 1e-8


def directional(f, x, e, w) -> float:
    """``d/dt <w, f(x + t e)>`` at t = 0: central differences at h and h/2, Richardson-extrapolated."""
    def central(h):
        return float(np.sum(w * (f(x + h * e) - f(x - h * e)))) / (2 * h)

    return (4 * central(H / 2) - central(H)) / 3


def check(f, x, vjp_dx, w, rng, trials: int = 3) -> None:
    for _ in range(trials):
        e = rng.normal(size=np.shape(x))
        num, ana = directional(f, x, e, w), float(np.sum(vjp_dx * e))
        assert abs(num - ana) <= RTOL * max(1.0, abs(num)), (num, ana)


@pytest.fixture
def rng():
    return np.random.default_rng(20261130)


def test_embedding(rng):
    wte = rng.normal(size=(7, 4))
    tokens = np.array([[1, 3, 3], [0, 6, 1]])
    w = rng.normal(size=(2, 3, 4))
    check(lambda m: m[tokens], wte, G.embedding_vjp(tokens, w, 7), w, rng)


@pytest.mark.parametrize("base", [10000.0, 3.0, None])
def test_rope(rng, base):
    x = rng.normal(size=(2, 6, 8))
    w = rng.normal(size=x.shape)
    f = (lambda z: z) if base is None else (lambda z: rotary.rope(z, base))
    check(f, x, G.rope_vjp(w, base), w, rng)


@pytest.mark.parametrize("taps", [(1.0, 0.0), (1.7, -0.7), (0.4, 1.3)])
def test_two_tap_filter_and_its_taps(rng, taps):
    x = rng.normal(size=(3, 5, 4))
    w = rng.normal(size=x.shape)
    dx, dtaps = G.two_tap_vjp(x, np.array(taps), w)
    check(lambda z: A.two_tap(z, taps), x, dx, w, rng)
    check(lambda t: A.two_tap(x, t), np.array(taps), dtaps, w, rng)


def test_two_tap_with_shear_taps_is_the_shear(rng):
    x = rng.normal(size=(2, 6, 4))
    np.testing.assert_allclose(A.two_tap(x, psa.stream_taps(0.8)), psa.shear(x, 0.8), rtol=0, atol=1e-15)


SPECS = {"sdpa": S.SDPA(), "psa-post": S.PSA(0.6, 1.4), "psa-pre": S.PSA(0.9, 0.3, "pre-rope"),
         "psa-nope": S.PSA(0.5, 2.0, base=None), "key-only": S.PSA.member("key-only", 2.0),
         "query-only": S.PSA.member("query-only", 2.0),
         "two-tap-post": S.TwoTap(np.array([1.2, -0.5]), np.array([0.7, 0.9])),
         "two-tap-pre": S.TwoTap(np.array([1.2, -0.5]), np.array([0.7, 0.9]), "pre-rope"),
         "two-tap-nope": S.TwoTap(np.array([0.3, 0.8]), np.array([1.1, 0.2]), base=None)}


@pytest.mark.parametrize("name", SPECS)
@pytest.mark.parametrize("stream", ["q", "k"])
def test_query_and_key_streams(rng, name, stream):
    """RoPE + fixed shear (PSA, both placements) or learnable two-tap filter, per stream; taps too."""
    spec = SPECS[name]
    q, k, v = rng.normal(size=(3, 2, 6, 8))
    idx = 0 if stream == "q" else 1
    w = rng.normal(size=q.shape)
    x = q if stream == "q" else k

    def f(z):
        return A.streams(spec, *((z, k, v) if stream == "q" else (q, z, v)))[idx]

    dx, dtaps = G.stream_vjp(spec, x, w, stream)
    check(f, x, dx, w, rng)
    if isinstance(spec, S.TwoTap):
        field = f"{stream}_taps"
        taps = getattr(spec, field)

        def g(t):
            return A.streams(S.TwoTap(**{**{"q_taps": spec.q_taps, "k_taps": spec.k_taps}, field: t},
                                      placement=spec.placement, base=spec.base), q, k, v)[idx]

        check(g, taps, dtaps, w, rng)
    else:
        assert dtaps is None


def test_scores(rng):
    qs, ks = rng.normal(size=(2, 3, 5, 8))
    w = rng.normal(size=(3, 5, 5))
    dqs, dks = G.scores_vjp(qs, ks, w)
    check(lambda z: A.scores(z, ks), qs, dqs, w, rng)
    check(lambda z: A.scores(qs, z), ks, dks, w, rng)


def test_causal_softmax(rng):
    s = 2 * rng.normal(size=(3, 6, 6))
    w = rng.normal(size=s.shape)
    p = A.attention_weights(s)
    check(A.attention_weights, s, G.weights_vjp(p, w), w, rng)
    assert np.all(G.weights_vjp(p, w)[:, np.triu_indices(6, 1)[0], np.triu_indices(6, 1)[1]] == 0)


@pytest.mark.parametrize("name", ["sdpa", "psa-post", "two-tap-post"])
def test_values_and_output_of_a_head(rng, name):
    """The whole head (streams, scores, causal softmax, value average) in q, k and v."""
    spec = SPECS[name]
    q, k, v = rng.normal(size=(3, 2, 6, 8))
    w = rng.normal(size=q.shape)
    trace: list = []
    A.head(spec, q, k, v, trace)
    dq, dk, dv, _ = G.head_vjp(spec, trace[0], w)
    check(lambda z: A.head(spec, z, k, v), q, dq, w, rng)
    check(lambda z: A.head(spec, q, z, v), k, dk, w, rng)
    check(lambda z: A.head(spec, q, k, z), v, dv, w, rng)


def test_layer_norm(rng):
    x = rng.normal(size=(2, 5, 6))
    gain, bias = 1 + 0.3 * rng.normal(size=6), rng.normal(size=6)
    w = rng.normal(size=x.shape)
    dx, dg, db = G.layer_norm_vjp(x, (gain, bias), w)
    check(lambda z: D.layer_norm(z, (gain, bias)), x, dx, w, rng)
    check(lambda z: D.layer_norm(x, (z, bias)), gain, dg, w, rng)
    check(lambda z: D.layer_norm(x, (gain, z)), bias, db, w, rng)


def test_mlp(rng):
    model = D.random_decoder(vocab=5, d=6, n_head=1, n_layer=1, seed=3)
    layer = model.layers[0]
    u = rng.normal(size=(2, 4, 6))
    w = rng.normal(size=u.shape)
    du, grads = G.mlp_vjp(layer, u, w)
    check(lambda z: D.mlp(layer, z), u, du, w, rng)
    for name in ("w_fc", "b_fc", "w_proj", "b_proj"):
        check(lambda z: D.mlp(D.replace(layer, **{name: z}), u), getattr(layer, name), grads[name], w, rng)
    x = rng.normal(size=(3, 7))
    wx = rng.normal(size=x.shape)
    check(D.gelu, x, G.gelu_vjp(x, wx), wx, rng)


def test_unembedding(rng):
    model = D.random_decoder(vocab=9, d=6, n_head=1, n_layer=1, seed=4)
    x = rng.normal(size=(4, 6))
    w = rng.normal(size=(4, 9))
    dx, grads = G.logits_vjp(model, x, w)
    check(lambda z: D.logits(model, z), x, dx, w, rng)
    check(lambda z: D.logits(D.replace(model, wte=z), x), model.wte, grads["wte"], w, rng)
    check(lambda z: D.logits(D.replace(model, ln_f=(z, model.ln_f[1])), x), model.ln_f[0], grads["ln_f.0"], w, rng)


def test_cross_entropy(rng):
    logits = 3 * rng.normal(size=(5, 7))
    answers = np.array([0, 6, 2, 2, 3])
    loss, dz = G.cross_entropy(logits, answers)
    z = logits - logits.max(axis=1, keepdims=True)
    expected = np.mean(np.log(np.exp(z).sum(1)) - z[np.arange(5), answers])
    assert loss == pytest.approx(expected, rel=1e-14)
    check(lambda z: np.array(G.cross_entropy(z, answers)[0]), logits, dz, np.array(1.0), rng)


WHOLE = {"sdpa-mlp": (S.SDPA(), 2), "psa-symmetric": (S.PSA(0.7, 0.7), 1),
         "psa-unequal-pre": (S.PSA(0.2, 1.1, "pre-rope"), 2),
         "two-tap": (S.TwoTap(np.array([1.1, -0.2]), np.array([0.8, 0.5])), 2)}


@pytest.mark.parametrize("name", WHOLE)
def test_whole_model(rng, name):
    """loss_and_grad against finite differences of decoder.forward itself, every parameter array."""
    spec, n_layer = WHOLE[name]
    model = D.random_decoder(vocab=11, d=8, n_head=2, n_layer=n_layer, head=spec, seed=1)
    tokens = rng.integers(0, 11, (3, 7))
    answers = np.array([1, 5, 7])
    loss, grads, logits = G.loss_and_grad(model, tokens, answers)
    # two computations: the last position's logits from a (B, d) GEMM against the (B, T, d) forward pass --
    # different BLAS shapes reassociate the d-term float64 sums (measured: 1 ulp), so compare at 1e-13
    full = D.forward(model, tokens)[:, -1]
    np.testing.assert_allclose(logits, full, rtol=1e-13, atol=1e-13 * np.abs(full).max())
    params = parameters(model)
    assert set(grads) == set(params)
    w = np.array(1.0)
    for key, value in params.items():
        def f(z, key=key):
            return np.array(G.cross_entropy(D.forward(with_parameters(model, {key: z}), tokens)[:, -1], answers)[0])
        check(f, value, grads[key], w, rng, trials=2)


def test_free_taps_get_a_gradient_at_the_identity(rng):
    """At identity taps the key tap b1 still has a gradient: the optimiser can leave standard attention."""
    model = D.random_decoder(vocab=11, d=8, n_head=1, n_layer=1, head=S.TwoTap(np.array([1.0, 0.0]),
                                                                             np.array([1.0, 0.0])), seed=2)
    _, grads, _ = G.loss_and_grad(model, rng.integers(0, 11, (4, 7)), np.array([1, 2, 3, 4]))
    assert abs(grads["layers.0.heads.0.k_taps"][1]) > 1e-6


def test_parameters_round_trip():
    model = D.random_decoder(vocab=5, d=4, n_head=1, n_layer=2, head=S.TwoTap(np.ones(2), np.ones(2)), seed=0)
    params = parameters(model)
    assert "layers.1.heads.0.k_taps" in params and "layers.0.ln2.1" in params
    again = with_parameters(model, {k: v + 1 for k, v in params.items()})
    assert all(np.array_equal(parameters(again)[k], v + 1) for k, v in params.items())


def test_untrainable_heads_are_refused(rng):
    spec = S.Graded(np.zeros(4), 2.0)
    with pytest.raises(ParameterError, match="spec"):
        G.stream_vjp(spec, rng.normal(size=(3, 4)), rng.normal(size=(3, 4)), "q")


def test_two_tap_heads_are_refused_by_the_cache():
    """A learnable two-tap head keeps no retained raw vectors: cached decoding refuses it (full forward only)."""
    model = D.random_decoder(vocab=11, d=8, n_head=1, n_layer=1, head=S.TwoTap(np.array([1.2, -0.2]),
                                                                             np.array([0.9, 0.4])), seed=2)
    with pytest.raises(ParameterError, match="prev"):
        D.decode(model, np.array([1, 2, 3, 4]), 2)


@pytest.mark.parametrize("x, dy, match", [
    (np.array([np.nan, 1.0]), np.ones(2), "^x must be a finite real number"),   # NaN passed through before
    (np.ones(2), np.array([1.0, np.inf]), "^dy must be a finite real number"),
    ("1.0", np.ones(1), "^x must be a real number .got a string"),
    (np.ones(3), np.ones(2), r"^x and dy must have the same shape \(got \(3,\) and \(2,\)\)"),  # was broadcasting
    (np.ones((2, 3)), np.ones(3), "^x and dy must have the same shape"),
    (np.zeros(0), np.zeros(0), "^x must not be empty"),
    (None, np.ones(1), "^x must be a real number .got None"),
])
def test_gelu_vjp_validates_its_inputs(x, dy, match):
    with pytest.raises(ParameterError, match=match):
        G.gelu_vjp(x, dy)


def test_gelu_vjp_is_exact_beyond_the_tanh_range():
    # beyond |x| = 30, tanh is exactly +-1: gelu'(x) is exactly 1 (x > 0) or 0; x**3 overflowed to inf * 0 = NaN
    np.testing.assert_array_equal(G.gelu_vjp([-1e200, -31.0, 31.0, 1e200], [2.0, 2.0, 2.0, 2.0]), [0, 0, 2, 2])
    x = np.linspace(-30, 30, 601)                 # clipping at +-30 is the identity here: the same float computation
    c = np.sqrt(2 / np.pi)
    t = np.tanh(c * (x + 0.044715 * x**3))
    plain = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x)
    np.testing.assert_array_equal(G.gelu_vjp(x, np.ones_like(x)), plain)


def test_backward_pass_calls_the_gelu_kernel_not_the_checked_entry_point(rng, monkeypatch):
    model = D.random_decoder(vocab=5, d=6, n_head=1, n_layer=1, seed=3)
    u, w = rng.normal(size=(2, 4, 6)), rng.normal(size=(2, 4, 6))
    before = G.mlp_vjp(model.layers[0], u, w)[0]

    def refuse(*args):
        raise AssertionError("a library caller went through the public gelu_vjp")

    monkeypatch.setattr(G, "gelu_vjp", refuse)
    np.testing.assert_array_equal(G.mlp_vjp(model.layers[0], u, w)[0], before)   # same kernel, same floats
    G.loss_and_grad(model, np.array([[1, 2, 3]]), np.array([4]))

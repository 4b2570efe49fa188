"""The hand-derived backward pass that trains the P21/P22 models against finite differences of the reference
forward pass (P21.grad; PSA §7.4, §7.5).

Route under test: ``theorylab.nn.grad.loss_and_grad``. Second route, sharing no library code:
``theorylab.certificates.reference.transformer.last_token_loss`` (an independent forward pass, two-tap heads
included) differentiated by fourth-order central differences.
"""

import numpy as np

from theorylab.certificates import _reference_views as view
from theorylab.certificates.reference import transformer as ref
from theorylab.certify import Outcome, certificate, computed
from theorylab.nn import decoder, grad, specs
from theorylab.nn.params import with_parameters

GRAD_TOL = 1e-8
"""Library gradient vs float64 fourth-order central finite differences (step GRAD_H) of the reference loss,
along a random unit direction v per array, relative to ||g||: the stencil's own error is ~1e-10 here
(truncation ~h^4, rounding ~1e-16 / h) and stays < 1e-9 with the random weights' scales changed up to
threefold; a wrong term of any backward pass moves it by > 1e-4."""
GRAD_H = 3e-4
STENCIL = ((2, -1 / 12), (1, 8 / 12), (-1, -8 / 12), (-2, 1 / 12))
"""``f'(x) = (-f(x+2h) + 8 f(x+h) - 8 f(x-h) + f(x-2h)) / (12 h) + O(h^4)``: (multiple of h, weight)."""
_GRAD_HEADS = {(0, 0): specs.SDPA(base=100.0), (0, 1): specs.PSA(g_q=0.6, g_k=1.4, base=100.0),
               (1, 0): specs.PSA(g_q=1.0, g_k=0.5, placement="pre-rope", base=100.0),
               (1, 1): specs.TwoTap(np.array([1.3, -0.4]), np.array([0.7, 0.6]), base=None),
               (2, 0): specs.TwoTap(np.array([0.9, 0.5]), np.array([1.5, -1.1]), base=100.0),
               (2, 1): specs.TwoTap(np.array([1.1, -0.3]), np.array([-0.2, 1.2]), placement="pre-rope",
                                        base=100.0)}
"""Every trainable head: SDPA with RoPE, PSA post- and pre-RoPE, free taps without RoPE, post- and pre-RoPE."""



def _named_arrays(model) -> dict[str, np.ndarray]:
    """The model's arrays under the documented parameter names (read off its fields; data only)."""
    out = {"wte": model.wte, "ln_f.0": model.ln_f[0], "ln_f.1": model.ln_f[1]}
    for i, layer in enumerate(model.layers):
        for name in ("w_q", "w_k", "w_v", "w_o", "w_fc", "b_fc", "w_proj", "b_proj"):
            out[f"layers.{i}.{name}"] = getattr(layer, name)
        for ln in ("ln1", "ln2"):
            out[f"layers.{i}.{ln}.0"], out[f"layers.{i}.{ln}.1"] = getattr(layer, ln)
        for h, spec in enumerate(layer.heads):
            if isinstance(spec, specs.TwoTap):
                out[f"layers.{i}.heads.{h}.q_taps"], out[f"layers.{i}.heads.{h}.k_taps"] = spec.q_taps, spec.k_taps
    return out


def _reference_model(model, arrays: dict) -> dict:
    """The reference decoder (``theorylab.certificates.reference.transformer``) with the named ``arrays`` as its weights."""
    blocks = []
    for i, layer in enumerate(model.layers):
        def a(name):
            return arrays[f"layers.{i}.{name}"]
        heads = [ref.head("two_tap", q_taps=a(f"heads.{h}.q_taps"), k_taps=a(f"heads.{h}.k_taps"),
                          placement=s.placement, base=s.base) if isinstance(s, specs.TwoTap) else view.head(s)
                 for h, s in enumerate(layer.heads)]
        blocks.append({"w_q": a("w_q"), "w_k": a("w_k"), "w_v": a("w_v"), "w_o": a("w_o"), "w_fc": a("w_fc"),
                       "b_fc": a("b_fc"), "w_proj": a("w_proj"), "b_proj": a("b_proj"),
                       "ln_1": (a("ln1.0"), a("ln1.1")), "ln_2": (a("ln2.0"), a("ln2.1")), "heads": heads})
    return {"wte": arrays["wte"], "ln_f": (arrays["ln_f.0"], arrays["ln_f.1"]), "blocks": blocks}


def _no_mlp_gradient() -> tuple[float, bool, np.ndarray]:
    """The trained models' ``mlp = 0`` layers (``init_model``, two layers, d_model 8, dk 4: W_FC 8 x 0, the block's
    output its bias b_proj): the gradient of each b_proj against the stencil on the reference loss along a random
    unit direction (relative to |g|), and the other MLP-block arrays' gradients (W_FC, b_FC, W_PROJ, LayerNorm 2,
    which the reference loss does not depend on) exactly zero, every shape the parameter's. Returns the worst
    relative error, the zero/shape verdict and the library's b_proj gradients."""
    from theorylab.nn.train import TrainConfig, init_model

    model = init_model(TrainConfig(variant="two-layer", gamma=0, task="canonical", T=6, vocab=7, d_model=8, dk=4,
                                   mlp=0), 2)
    rng = np.random.default_rng(23)
    tokens, answers = rng.integers(0, 7, size=(3, 6)), rng.integers(0, 7, size=3)
    grads, arrays = grad.loss_and_grad(model, tokens, answers)[1], _named_arrays(model)
    shapes_ok = all(np.shape(grads.get(k)) == np.shape(a) for k, a in arrays.items())
    block = [f"layers.{i}.{n}" for i in range(2) for n in ("w_fc", "b_fc", "w_proj", "ln2.0", "ln2.1")]
    zeros_ok = shapes_ok and all(not np.any(grads[k]) for k in block)
    err = 0.0
    for name in ("layers.0.b_proj", "layers.1.b_proj"):
        w, v = arrays[name], rng.normal(size=arrays[name].shape)
        v /= np.linalg.norm(v)
        fd = sum(c * ref.last_token_loss(_reference_model(model, {**arrays, name: w + k * GRAD_H * v}), tokens,
                                         answers) for k, c in STENCIL) / GRAD_H
        err = max(err, abs(float(np.sum(grads[name] * v)) - fd) / np.linalg.norm(grads[name]) if shapes_ok else np.inf)
    b_proj = np.concatenate([np.ravel(grads[f"layers.{i}.b_proj"]) for i in range(2)])
    return float(err), bool(zeros_ok), b_proj


def _layer_norm_overflow() -> tuple[float, dict[str, np.ndarray]]:
    """``grad.layer_norm_vjp`` on rows whose variance overflows float64 (the scaled route, |x| ~ 1e160) beside an
    ordinary row: a row of large negative entries with one small positive one (its max is not its max |.|) and a
    mixed-sign row, against the reference's mpmath VJP (``ref.layer_norm_vjp_mp``, 60 digits, no float range).
    Returns the worst error -- dx relative to each row's max |dx|, dgain and dbias relative to their max |.| --
    and the arrays compared."""
    rng = np.random.default_rng(29)
    x = np.stack([rng.normal(size=6), -1e160 * np.array([3.0, 1.2, 2.5, 0.7, 1.9, 0.0]) + np.eye(6)[5] * 0.5,
                  1e160 * rng.normal(size=6)])                                 # [3, 6]
    gain, bias, dy = 1.0 + 0.1 * rng.normal(size=6), 0.1 * rng.normal(size=6), rng.normal(size=(3, 6))
    got, want = grad.layer_norm_vjp(x, (gain, bias), dy), ref.layer_norm_vjp_mp(x, gain, dy)
    err = max(float(np.max(np.abs(got[0] - want[0]) / np.max(np.abs(want[0]), axis=-1, keepdims=True))),
              *(float(np.max(np.abs(a - w)) / np.max(np.abs(w))) for a, w in zip(got[1:], want[1:])))
    return (err if np.isfinite(err) else np.inf), {"ln_overflow_dx": got[0], "ln_overflow_dx_reference": want[0]}


@certificate("P21.grad", title="Hand-derived backward pass equals finite differences of the reference forward pass",
             paper="PSA §7.4, §7.5", method="numeric",
             claim="The gradients that train the P21/P22 models are the derivatives of the next-token "
                   "cross-entropy: every parameter (tied embedding, LayerNorms, projections, MLP weights and "
                   "biases, free two-tap taps) of a model with every trainable head (SDPA, PSA post-/pre-RoPE, "
                   "two-tap with and without RoPE, pre-RoPE) matches central differences of an independent "
                   "forward pass.")
def backward_pass() -> Outcome:
    """Three layers, two heads each (d = 8, dk = 4, vocab 11; the six heads of ``_GRAD_HEADS``), 3 sequences of
    T = 6; one random unit direction per parameter array; the fourth-order stencil STENCIL at step GRAD_H; the
    ``mlp = 0`` layers of the trained models (``_no_mlp_gradient``); the LayerNorm VJP on rows whose variance
    overflows float64 against an mpmath VJP (``_layer_norm_overflow``)."""
    model = decoder.random_decoder(vocab=11, d=8, n_head=2, n_layer=3, head=lambda i, h: _GRAD_HEADS[i, h], seed=5)
    rng = np.random.default_rng(21)
    tokens, answers = rng.integers(0, 11, size=(3, 6)), rng.integers(0, 11, size=3)
    loss, grads, logits = grad.loss_and_grad(model, tokens, answers)
    arrays = _named_arrays(model)
    ref_loss = ref.last_token_loss(_reference_model(model, arrays), tokens, answers)
    ref_logits = np.stack([ref.forward(_reference_model(model, arrays), row)[-1] for row in tokens])
    shapes_ok = set(grads) == set(arrays) and all(np.shape(grads[k]) == np.shape(arrays[k]) for k in arrays)
    worst: dict[str, float] = {}
    for name, w in arrays.items():
        v = rng.normal(size=w.shape)
        v /= np.linalg.norm(v)                                          # a unit direction: the step is h
        fd = sum(c * ref.last_token_loss(_reference_model(model, {**arrays, name: w + k * GRAD_H * v}), tokens,
                                         answers) for k, c in STENCIL) / GRAD_H
        lib = float(np.sum(np.broadcast_to(grads[name], w.shape) * v)) if shapes_ok else np.nan
        err = abs(lib - fd) / (np.linalg.norm(grads[name]) * np.linalg.norm(v)) if shapes_ok else np.inf
        worst[name] = float(err)
    groups = {"embedding (tied)": ["wte"], "final LayerNorm": ["ln_f.0", "ln_f.1"],
              "LayerNorm 1, 2": [k for k in arrays if ".ln" in k],
              "attention projections": [k for k in arrays if k.split(".")[-1] in ("w_q", "w_k", "w_v", "w_o")],
              "MLP weights and biases": [k for k in arrays if k.split(".")[-1] in ("w_fc", "b_fc", "w_proj", "b_proj")],
              "two-tap taps": [k for k in arrays if "taps" in k]}
    err_loss = abs(loss - ref_loss) / abs(ref_loss)
    err_logits = float(np.max(np.abs(logits - ref_logits)) / max(1.0, np.max(np.abs(ref_logits))))
    # with_parameters with a partial dict (documented: missing names keep the model's arrays): one array of each
    # kind replaced at a time, the rest must stay; logits of the whole batch against the reference with that array
    err_partial = 0.0
    for name in ("wte", "ln_f.0", "ln_f.1", "layers.1.ln1.0", "layers.2.ln2.1", "layers.0.w_q", "layers.2.b_proj"):
        new = arrays[name] + 0.5 * rng.normal(size=arrays[name].shape)
        changed = with_parameters(model, {name: new})
        got = np.stack([decoder.forward(changed, r) for r in tokens])
        want = np.stack([ref.forward(_reference_model(model, {**arrays, name: new}), r) for r in tokens])
        err_partial = max(err_partial, float(np.max(np.abs(got - want)) / max(1.0, np.max(np.abs(want)))))
    # the cross-entropy itself far from the origin: logits offset by +-700 (exp overflows unshifted) and spread
    # wide, against scipy's logsumexp and softmax; the loss compared at the offsets' rounding (700 x 2^-52)
    from scipy.special import logsumexp, softmax

    big = rng.normal(scale=30.0, size=(5, 9)) + np.array([[700.0], [-700.0], [0.0], [705.0], [-3.0]])
    picks = np.array([0, 8, 4, 3, 7])
    ce_loss, ce_grad = grad.cross_entropy(big, picks)
    onehot = np.eye(9)[picks]
    err_ce = max(abs(ce_loss - float(np.mean(logsumexp(big, axis=1) - big[np.arange(5), picks]))) / 1e-12,
                 float(np.max(np.abs(ce_grad - (softmax(big, axis=1) - onehot) / 5))) / 1e-15)
    err_no_mlp, no_mlp_zeros, no_mlp_b_proj = _no_mlp_gradient()
    err_ln_big, ln_big = _layer_norm_overflow()
    passed = (shapes_ok and max(worst.values()) <= GRAD_TOL and err_loss <= 1e-13 and err_logits <= 1e-13
              and err_partial <= 1e-13 and err_ce <= 1.0 and err_no_mlp <= GRAD_TOL and no_mlp_zeros
              and err_ln_big <= 1e-12)
    return Outcome(bool(passed), (
        computed("gradient names and shapes = the parameters'", bool(shapes_ok)),
        computed("loss: library vs reference cross-entropy, relative", err_loss, tolerance=1e-13),
        computed("last-position logits: library vs reference", err_logits, tolerance=1e-13),
        computed("cross_entropy, logits offset by +-700 and spread 30: max(|loss - scipy| / 1e-12, "
                 "|grad - scipy softmax| / 1e-15)", err_ce, tolerance=1.0),
        computed("with_parameters, one array replaced (the others kept): logits vs reference, max over 7 names",
                 err_partial, tolerance=1e-13),
        *(computed(f"{label}: max |<g, v> - central difference| / (|g| |v|)", max(worst[k] for k in names),
                   tolerance=GRAD_TOL) for label, names in groups.items()),
        computed("mlp = 0 (init_model, 2 layers, W_FC 8 x 0): b_proj gradients, max |<g, v> - central difference| "
                 "/ (|g| |v|)", err_no_mlp, tolerance=GRAD_TOL),
        computed("layer_norm_vjp on rows of size ~1e160 (variance beyond the float range; one row negative with a "
                 "small positive entry) and an ordinary row vs the reference's 60-digit mpmath VJP: dx relative to "
                 "each row's max |dx|, dgain, dbias", err_ln_big, tolerance=1e-12),
        computed("mlp = 0: gradients of W_FC, b_FC, W_PROJ, LayerNorm 2 exactly 0 (the reference loss does not "
                 "depend on them), every shape the parameter's", no_mlp_zeros)),
        arrays={"relative_error": np.array(list(worst.values())), "no_mlp_b_proj_grad": no_mlp_b_proj, **ln_big},
        note="second route: theorylab.certificates.reference.transformer.last_token_loss (independent forward pass, "
             "two-tap heads included), differentiated by fourth-order central differences; tolerance: module GRAD_TOL")


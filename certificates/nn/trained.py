"""Trained-model certificates P21, P22 (PSA §7.4, §7.5, §2.2).

P21: a tiny one-layer model trained with key-only PSA beats the 1/(T-2) ceiling that standard
attention, trained the same way, stays under. P22: with free two-tap filters on both streams,
training selects a high-pass, predecessor-dominated key filter and leaves the query filter at
the identity, and solves the task; the fixed filters order key-only > symmetric > low-pass.

Route under test: ``theorylab.nn`` end to end -- task, forward pass, hand-derived backward
pass, AdamW, evaluation (``theorylab.nn.train.train``). Second route, sharing no library
code: the trained weights are evaluated again by a forward pass written here with NumPy
primitives only (LayerNorm, interleaved RoPE, the two-tap stream filters, causal softmax, tied
unembedding), on the same held-out sequences; the two must give identical argmax credits. The
ceiling is the closed form 1/(T-2).
"""
from __future__ import annotations

import numpy as np

from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.certify.montecarlo import z_threshold
from theorylab.nn import tasks
from theorylab.nn.evaluation import batch_of, evaluate
from theorylab.nn.train import TrainConfig, train

FALSE_FAILURE = 1e-4
"""Chance that a correct library fails P21 through the held-out sample alone: the pass rule is two
one-sided Wilson-interval comparisons at level FALSE_FAILURE / 2 each (union bound). The training
seed is fixed (the trained weights are reproducible), so ``--seed`` re-draws the held-out
sequences only."""
Z = z_threshold(FALSE_FAILURE, tests=2, two_sided=False)
"""Wilson-interval z of each one-sided comparison (3.89)."""
FALSE_FAILURE_P22 = 2e-5
"""P22's chance of failing a correct library through the held-out sample: its verdict reads five
one-sided interval ends (the free model's lower end; key-only's lower and symmetric's upper end;
symmetric's lower and low-pass's upper end), each at level FALSE_FAILURE_P22 / 5 (union bound).
The learned taps come from a fixed training seed: deterministic, no statistical share."""
Z22 = z_threshold(FALSE_FAILURE_P22, tests=5, two_sided=False)

TINY = dict(task="canonical", T=8, vocab=16, d_model=16, dk=16, steps=300, batch=32, lr=1e-2, warmup=30,
            eval_size=2000)
SEED = 0


def _taps(spec) -> tuple[np.ndarray, np.ndarray]:
    """The query and key stream filters ``(b0, b1)`` of a head, read off its fields: a TwoTap head's taps,
    a PSA head's shear ``(1 + g, -g)``, the identity ``(1, 0)`` for SDPA."""
    if hasattr(spec, "q_taps"):
        return np.asarray(spec.q_taps, float), np.asarray(spec.k_taps, float)
    g_q, g_k = getattr(spec, "g_q", 0.0), getattr(spec, "g_k", 0.0)
    return np.array([1.0 + g_q, -g_q]), np.array([1.0 + g_k, -g_k])


def _independent_logits(model, tokens, attention=None) -> np.ndarray:
    """Last-position logits of a one-layer, one-head, post-RoPE model, NumPy primitives only (no library code);
    the last row's attention weights are appended to the list ``attention`` when one is given."""
    (layer,) = model.layers
    spec = layer.heads[0]

    def ln(x, gain, bias):
        c = x - x.mean(-1, keepdims=True)
        return c / np.sqrt((c * c).mean(-1, keepdims=True) + 1e-5) * gain + bias

    def rope(x):
        n, d = x.shape[-2:]
        ang = np.arange(n)[:, None] * spec.base ** (-2.0 * np.arange(d // 2) / d)[None, :]
        c, s = np.cos(ang), np.sin(ang)
        out = np.empty_like(x)
        out[..., 0::2] = c * x[..., 0::2] - s * x[..., 1::2]
        out[..., 1::2] = s * x[..., 0::2] + c * x[..., 1::2]
        return out

    def filtered(x, taps):                                              # b0 x_t + b1 x_{t-1}, x_{-1} = x_0
        prev = np.concatenate([x[..., :1, :], x[..., :-1, :]], axis=-2)
        return taps[0] * x + taps[1] * prev

    x = model.wte[tokens]                                               # [N, T, d]
    u = ln(x, *layer.ln1)
    q_taps, k_taps = _taps(spec)
    q, k, v = filtered(rope(u @ layer.w_q), q_taps), filtered(rope(u @ layer.w_k), k_taps), u @ layer.w_v
    s = np.einsum("nd,ntd->nt", q[:, -1], k) / np.sqrt(q.shape[-1])     # the last row sees every key
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    if attention is not None:
        attention.append(p)
    mid = x[:, -1] + np.einsum("nt,ntd->nd", p, v) @ layer.w_o
    h = mid + layer.b_proj                                              # MLP of width 0: its bias only
    return ln(h, *model.ln_f) @ model.wte.T


def _trained(variant: str, g: float, seed, z: float):
    """Train the tiny model of ``variant`` (fixed seed) and evaluate it by both routes on the held-out set
    (``seed``: re-drawn from ``[seed, 2]``). Returns the run, the two routes' agreement, the library's
    per-sequence credits, the Wilson intervals (at ``z``) of the accuracy and the attention accuracy, and the
    relative error of the library's held-out loss against the mean cross-entropy of the independent logits."""
    config = TrainConfig(variant=variant, gamma=g, **TINY)
    result = train(config, SEED, keep_model=True)
    batch = batch_of(config, config.eval_size, [SEED if seed is None else seed, 2])
    held_out = result.evaluation if seed is None else evaluate(config, result.model, batch)
    weights = []
    logits = _independent_logits(result.model, batch.tokens, weights)
    answer = batch.tokens[np.arange(len(batch.tokens)), batch.target]
    top = logits == logits.max(-1, keepdims=True)
    credit = top[np.arange(len(top)), answer] / top.sum(-1)             # ties credited 1/k
    top_w = weights[0] == weights[0].max(-1, keepdims=True)             # attention credit of the last query
    attention = top_w[np.arange(len(top_w)), batch.target] / top_w.sum(-1)
    agree = float(max(np.abs(credit - held_out.prediction).max(), np.abs(attention - held_out.attention).max()))
    n = len(credit)
    top_logit = logits.max(-1)                                          # mean cross-entropy of the answers
    ce = np.mean(top_logit + np.log(np.exp(logits - top_logit[:, None]).sum(-1)) - logits[np.arange(n), answer])
    return (result, agree, held_out.prediction, tasks.wilson_interval(held_out.prediction.sum(), n, z=z),
            tasks.wilson_interval(held_out.attention.sum(), n, z=z), abs(held_out.loss / ce - 1))


@certificate("P21", title="Trained one-layer key-only PSA exceeds the 1/(T-2) induction ceiling; standard does not",
             paper="PSA §7.4, §7.5, §2.2", method="monte-carlo", false_failure=FALSE_FAILURE,
             claim="A single attention layer trained by gradient descent solves induction with the key-side shear "
                   "and cannot without it: key-only PSA (gamma = 2) far above 1/(T-2), standard attention at or "
                   "below it.")
def trained_separation(seed=None) -> Outcome:
    """Two tiny models (T = 8, vocab 16, d = dk = 16, 300 AdamW steps, same seed), 2000 held-out sequences
    (``seed``: drawn from ``[seed, 2]`` instead of the run's own held-out stream ``[SEED, 2]``)."""
    from theorylab.certificates.reference import optim as ref_optim

    ceiling = float(tasks.ceiling(TINY["T"]))
    evidence, arrays, passed = [bound("ceiling 1/(T-2)", ceiling, formula="1/(T-2), T = 8")], {}, True
    for variant, g in (("key-only", 2.0), ("standard", 0.0)):
        result, agree, credit, (lo, hi), (alo, ahi), loss_err = _trained(variant, g, seed, Z)
        row, own = result.row(), result.evaluation.prediction                  # the run's table row: 95 % Wilson
        row_err = float(np.max(np.abs(np.subtract((row["ci_low"], row["ci_high"]),
                                                  ref_optim.wilson(own.sum(), len(own), 1.959964)))))
        arrays[variant] = credit
        evidence += [computed(f"{variant}: held-out accuracy (library)", float(credit.mean()), tolerance=0.0),
                     computed(f"{variant}: max |credit difference| library vs independent forward pass", agree,
                              tolerance=0.0),
                     computed(f"{variant}: held-out loss, |library / independent mean cross-entropy - 1|", loss_err,
                              tolerance=1e-12),
                     computed(f"{variant}: summary row's interval vs the 95 % Wilson interval (z = 1.959964)", row_err,
                              tolerance=1e-5, formula="the row rounds z to 1.96"),
                     bound(f"{variant}: Wilson interval of the accuracy", [lo, hi], formula=f"z = {Z:.4f}"),
                     bound(f"{variant}: Wilson interval of the attention accuracy", [alo, ahi],
                           formula=f"query's attention argmax = target; z = {Z:.4f}")]
        passed &= agree == 0.0 and loss_err <= 1e-12 and row_err <= 1e-5
        passed &= lo > 3 * ceiling if variant == "key-only" else alo <= ceiling
    return Outcome(bool(passed), tuple(evidence), arrays=arrays,
                   seeds={"training": SEED, "held-out": SEED if seed is None else seed},
                   note=f"pass: both routes give identical credits; trained key-only accuracy CI above 3x the ceiling; "
                        f"trained standard attention-accuracy CI reaches down to the ceiling. False-failure "
                        f"probability <= {FALSE_FAILURE:g} (held-out sampling only)")


@certificate("P22", title="Free two-tap filters learn a predecessor-dominated high-pass key and an identity query; "
                          "key-only > symmetric > low-pass",
             paper="PSA §7.5, §4.2", method="monte-carlo", false_failure=FALSE_FAILURE_P22,
             claim="Trained with learnable two-tap filters on the query and key streams (initialised at the "
                   "identity), a one-layer model solves induction with a key filter whose taps have opposite "
                   "signs and a dominant predecessor tap, and a query filter that stays the identity; with fixed "
                   "filters, key-only (gamma = 2) > symmetric (gamma = 2) > two-tap low-pass (gamma = 1).")
def free_filters(seed=None) -> Outcome:
    """Four tiny models (T = 8, vocab 16, d = dk = 16, 300 AdamW steps, seed 0), 2000 held-out sequences each.

    Thresholds: the free model's accuracy interval above 0.9 (the paper: 1.000); learned taps
    |q_b1 / q_b0| < 0.1 (query at the identity), k_b0 k_b1 < 0 and |k_b1| > |k_b0| (high-pass, the
    predecessor dominant); each ordering: lower end of the first interval above the upper end of the
    second. Every interval at z = Z22 (FALSE_FAILURE_P22 split over five one-sided ends).
    """
    evidence, arrays, agreements, intervals = [], {}, [], {}
    for variant, g in (("free-two-tap", 0.0), ("key-only", 2.0), ("symmetric", 2.0), ("low-pass", 1.0)):
        result, agree, credit, acc, _, _ = _trained(variant, g, seed, Z22)
        agreements.append(agree)
        intervals[variant] = acc
        arrays[variant] = credit
        evidence.append(bound(f"{variant} (gamma {g:g}): Wilson interval of the accuracy", list(acc),
                              formula=f"z = {Z22:.4f}"))
        if variant == "free-two-tap":
            q_b0, q_b1 = result.model.layers[0].heads[0].q_taps
            k_b0, k_b1 = result.model.layers[0].heads[0].k_taps
            arrays["taps"] = np.array([q_b0, q_b1, k_b0, k_b1])
            last = result.history[-1]                                   # the run's log ends at the final step
            logged = (last["step"] == TINY["steps"] - 1
                      and [last[k] for k in ("q_b0", "q_b1", "k_b0", "k_b1")] == arrays["taps"].tolist())
            evidence.append(computed("learned taps (q_b0, q_b1, k_b0, k_b1)", [float(q_b0), float(q_b1),
                                                                            float(k_b0), float(k_b1)], tolerance=0.0))
    query_identity = abs(q_b1 / q_b0) < 0.1
    key_high_pass = k_b0 * k_b1 < 0 and abs(k_b1) > abs(k_b0)
    solved = intervals["free-two-tap"][0] > 0.9
    ordered = (intervals["key-only"][0] > intervals["symmetric"][1]
               and intervals["symmetric"][0] > intervals["low-pass"][1])
    evidence += [computed("max |credit difference| library vs independent forward pass, 4 models", max(agreements),
                          tolerance=0.0),
                 computed("last logged row: final step, taps = the trained model's", bool(logged)),
                 computed("query filter at the identity |q_b1/q_b0| < 0.1", bool(query_identity)),
                 computed("key filter high-pass, predecessor dominant", bool(key_high_pass)),
                 computed("free filters solve the task (interval > 0.9)", bool(solved)),
                 computed("key-only > symmetric > low-pass (disjoint intervals)", bool(ordered))]
    passed = max(agreements) == 0.0 and logged and query_identity and key_high_pass and solved and ordered
    return Outcome(bool(passed), tuple(evidence), arrays=arrays,
                   seeds={"training": SEED, "held-out": SEED if seed is None else seed},
                   note="paper (3,000 steps, its sizes): free two-tap 1.000, key-only 0.949, symmetric 0.811, low-pass "
                        "0.428; here tiny models (300 steps, T = 8). The key filter the optimiser finds is "
                        "predecessor-dominated (b1/b0 about -4 here, -2.6 to -3.1 in study (i)), high-pass but "
                        "outside the shear family's (-1, 0).")


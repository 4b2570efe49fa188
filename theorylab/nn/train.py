"""Training the minimal transformer on induction tasks (PSA §7.4, §7.5, §7.11, A5, A8.1).

One run = one :class:`TrainConfig` and one seed: a decoder from ``theorylab.nn.decoder``
(its forward pass, ``theorylab.nn.grad`` for the backward pass, AdamW from
``theorylab.nn.optim``) trained on fresh batches of a task from ``theorylab.nn.tasks``,
then scored on a held-out evaluation set (both drawn and scored by ``theorylab.nn.evaluation``).

Conventions (ours where the paper leaves them open; docs/results.md lists them)
-------------------------------------------------------------------------------
* Tasks: ``"recall"`` -- associative recall (``tasks.associative_recall``: shared alphabet,
  ``pairs`` key-value pairs, ``padding`` PAD tokens, then the query key; chance
  ``1/alphabet``); ``"canonical"`` -- the canonical induction model
  (``tasks.induction_sequences``: T distinct tokens, the last repeats the one before the
  target; the key-side order-zero ceiling is ``1/(T-2)``).
* The model predicts the token after the query from the **last position** (``loss="query"``:
  the cross-entropy there; ``loss="sequence"``: next-token cross-entropy at every position,
  the last one predicting the answer); it is right when the argmax of its logits at the query
  is the answer (ties credited ``1/k``, ``tasks.induction_hits``). For one-layer one-head
  models we also report the *attention accuracy*: the query's attention argmax is the target
  position (the quantity of the ``1/(T-2)`` ceiling, PSA §2.2); for every model the *pointer
  accuracy*: the same over the T-1 keys before the query (last layer, first head; chance
  ``1/(T-1)``). Recall's order-zero level is about ``1/L`` (copy some value), not ``1/(T-2)``.
* Recall padding (``padding_placement``): PAD tokens before the query (fixed) or in random
  gaps between the pairs (``tasks.associative_recall``).
* Variants (:data:`VARIANTS`): ``standard`` (SDPA, gamma = 0), the PSA lattice members
  ``symmetric``, ``key-only``, ``query-only`` (fixed gamma, post-RoPE), ``asymmetric``
  (couplings ``(g/2, g)``: the key-heavy unequal member of §4.8, A11.1), ``low-pass`` (fixed
  taps ``(1 + g, +g)`` on both streams: the shear's taps with the momentum sign flipped,
  DC gain ``1 + 2g``, Nyquist gain 1 -- our reading of the "matched-count two-tap
  low-pass"), ``free-two-tap`` (learnable taps on each stream, initialised at the identity
  ``(1, 0)``), ``two-layer`` (two standard layers). One head of width ``dk`` per layer,
  ``d_model``-wide residual stream, tied embeddings, pre-LayerNorm, optional MLP.
* Initialisation: embeddings N(0, 0.02^2); projections N(0, 1/fan_in); LayerNorm gains 1,
  biases 0; MLP biases 0. ``init="gamma-aware"`` (default) then divides W_Q and W_K by their
  stream filter's gain ``sqrt(b0^2 + b1^2)`` (:func:`stream_gains`) so that each filtered
  stream starts at unit variance; ``init="plain"`` keeps the draw (identical without a
  filtered stream). ``lr_scale="paper"`` multiplies the peak lr by ``(1 + 2 gamma)^-2``
  (PSA A31, A35.1). ``mlp = 0``: no MLP block (its bias and LayerNorm are not trained).
  ``dtype``: ``"float64"`` (default) or ``"float32"``:
  parameters, activations, gradients and AdamW moments in that type (the float32 weights are the
  float64 draws rounded, so both types start from the same model); free two-tap taps stay float64.
  docs/training.md gives the reasons and the step-0 numbers.
* Randomness: a run's seed ``s`` gives independent streams through
  ``numpy.random.SeedSequence([s, purpose, step])``: initial weights (purpose 0), the
  training batch of each step (1), the evaluation set (2). All variants with the same seed
  share the initial weights of the common parameters, the training batches and the
  evaluation set (paired comparisons).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from theorylab import _moved
from theorylab.errors import ParameterError, check_memory, choice, positive_int, real_scalar, seed_int
from theorylab.nn import _heap, decoder, evaluation, grad, optim, specs, tasks, trainstats
from theorylab.nn.params import parameters, with_parameters
from theorylab.psa import shear as psa
from theorylab.resources import Cost

VARIANTS = ("standard", "symmetric", "asymmetric", "key-only", "query-only", "free-two-tap", "low-pass", "two-layer")
COUPLED = ("symmetric", "asymmetric", "key-only", "query-only", "low-pass")
"""Variants that take a coupling gamma; the others are gamma-free (gamma must be 0)."""
TASKS = ("recall", "canonical")
DTYPES = ("float64", "float32")
"""Float types of a run: parameters, activations, gradients and AdamW moments (TwoTap taps stay float64)."""
INITS = ("gamma-aware", "plain")
"""Initial W_Q, W_K: scaled so that each filtered stream starts at unit variance, or N(0, 1/fan_in) as drawn."""
LR_SCALES = ("none", "paper")
"""Peak learning rate: as given, or times ``(1 + 2 gamma)^-2`` (PSA A31, A35.1)."""
LOSSES = ("query", "sequence")
"""Training loss: the query position's prediction only, or the next token at every position."""
PADDING_PLACEMENTS = tasks.PADDING_PLACEMENTS
"""Recall task: PAD tokens before the query (fixed) or in random gaps between the pairs (``tasks.associative_recall``)."""
ASYMMETRIC_QUERY_SHARE = 0.5
"""The asymmetric member's query coupling as a share of its key coupling: ``(g_q, g_k) = (g/2, g)``, key-heavy."""


@dataclass(frozen=True)
class TrainConfig:
    """Everything that defines a training run except its seed (defaults: the paper's A5 task, our budget)."""

    variant: str = "key-only"
    gamma: float = 2.0
    task: str = "recall"
    pairs: int = 14
    alphabet: int = 64
    padding: int = 3
    T: int = 15
    vocab: int = 64
    d_model: int = 64
    dk: int = 64
    mlp: int = 0
    steps: int = 800
    batch: int = 64
    lr: float = 5e-3
    weight_decay: float = 0.01
    warmup: int = 100
    clip: float = 1.0
    eval_size: int = 2000
    placement: str = "post-rope"
    base: float = 10000.0
    log_every: int = 50
    init: str = "gamma-aware"
    lr_scale: str = "none"
    loss: str = "query"
    padding_placement: str = "fixed"
    dtype: str = "float64"

    def __post_init__(self):
        """Validate every field; integers and reals are stored as Python ``int`` and ``float``."""
        def put(name, value):
            object.__setattr__(self, name, value)
            return value

        choice("variant", self.variant, VARIANTS)
        choice("task", self.task, TASKS)
        g = put("gamma", real_scalar("gamma", self.gamma, low=0))
        if self.variant not in COUPLED and g != 0:
            raise ParameterError(f"gamma must be 0 for the {self.variant} variant (it has no fixed coupling; "
                                 f"got {g:g})")
        recall = self.task == "recall"                  # the other task's fields must be integers, not in range
        pairs = put("pairs", positive_int("pairs", self.pairs))
        put("alphabet", positive_int("alphabet", self.alphabet, low=max(2, pairs) if recall else 1))
        put("padding", positive_int("padding", self.padding, low=0))
        T = put("T", positive_int("T", self.T, low=4 if not recall else 1))
        put("vocab", positive_int("vocab", self.vocab, low=T - 1 if not recall else 1))
        if put("dk", positive_int("dk", self.dk, low=2)) % 2:
            raise ParameterError(f"dk must be an even integer >= 2 (RoPE pairs; got {self.dk})")
        for name, low in (("d_model", 1), ("mlp", 0), ("steps", 1), ("batch", 1), ("warmup", 0), ("eval_size", 1),
                          ("log_every", 1)):
            put(name, positive_int(name, getattr(self, name), low=low))
        put("lr", real_scalar("lr", self.lr, low=0, low_inclusive=False))
        put("weight_decay", real_scalar("weight_decay", self.weight_decay, low=0))
        put("clip", real_scalar("clip", self.clip, low=0, low_inclusive=False))
        choice("placement", self.placement, psa.PLACEMENTS)
        put("base", real_scalar("base", self.base, low=1, low_inclusive=False))
        choice("dtype", self.dtype, DTYPES)
        choice("init", self.init, INITS)
        choice("lr_scale", self.lr_scale, LR_SCALES)
        choice("loss", self.loss, LOSSES)
        choice("padding_placement", self.padding_placement, PADDING_PLACEMENTS)

    @property
    def peak_lr(self) -> float:
        """The peak learning rate of the schedule: ``lr``, times ``(1 + 2 gamma)^-2`` under ``lr_scale="paper"``."""
        return self.lr / (1.0 + 2.0 * self.gamma) ** 2 if self.lr_scale == "paper" else self.lr

    @property
    def n_layer(self) -> int:
        return 2 if self.variant == "two-layer" else 1

    @property
    def seq_len(self) -> int:
        """Sequence length T of the task."""
        return 2 * self.pairs + self.padding + 1 if self.task == "recall" else self.T

    @property
    def vocab_size(self) -> int:
        """Token ids the model embeds (the recall task adds PAD)."""
        return self.alphabet + 1 if self.task == "recall" else self.vocab

    @property
    def chance(self) -> float:
        """Accuracy of a uniform guess over the answer alphabet."""
        return 1.0 / (self.alphabet if self.task == "recall" else self.vocab)

    @property
    def ceiling(self) -> float | None:
        """The key-side order-zero ceiling ``1/(T-2)`` (canonical task only)."""
        return float(tasks.ceiling(self.T)) if self.task == "canonical" else None


def memory_estimate(config: TrainConfig) -> int:
    """Bytes one run needs at its peak (an upper estimate; one function so a shared limit can call it).

    Largest forward/backward batch (training batch or evaluation chunk) times the per-layer
    intermediates (about ``12 d + 4 mlp + 6 T`` floats per position: projections, streams,
    LayerNorm inputs and outputs, scores and weights), plus parameters, gradients and the two
    AdamW moments, float64.
    """
    rows = max(config.batch, min(config.eval_size, evaluation.EVAL_CHUNK)) * config.seq_len
    per_layer = rows * (12 * max(config.d_model, config.dk) + 4 * config.mlp + 6 * config.seq_len)
    params = config.vocab_size * config.d_model + config.n_layer * (4 * config.d_model * config.dk
                                                                   + 2 * config.d_model * config.mlp)
    return 8 * (config.n_layer * per_layer + 4 * params + rows * config.vocab_size)


STEP_SECONDS = 3e-8
"""Seconds per unit of :func:`train_cost`'s work count (rows x per-layer floats), forward and backward
with the AdamW update, measured on a shared 2-core machine (3.1e-8 to 4.6e-8 under load)."""


def train_cost(config: TrainConfig, runs: int = 1, workers: int = 1) -> Cost:
    """Peak memory and run time of ``runs`` trainings of ``config`` on ``workers`` processes.

    Memory: :func:`memory_estimate` per concurrent run. Time: every training row (``steps x batch``)
    and evaluation row (``eval_size``), each ``seq_len`` positions of about ``12 d + 4 mlp + 6 T``
    floats per layer, at :data:`STEP_SECONDS`, divided among the workers.
    """
    runs, workers = positive_int("runs", runs), positive_int("workers", workers)
    concurrent = min(workers, runs)
    per_position = config.n_layer * (12 * max(config.d_model, config.dk) + 4 * config.mlp + 6 * config.seq_len)
    rows = float(config.steps) * config.batch + config.eval_size
    seconds = runs * rows * config.seq_len * per_position * STEP_SECONDS / concurrent
    return Cost(float(concurrent * memory_estimate(config)), seconds,
                f"{runs} run(s) x {config.steps} steps x batch {config.batch} x T {config.seq_len}")


def head_spec(config: TrainConfig) -> specs.HeadSpec:
    """The head of every layer for ``config.variant`` (fixed parts; free taps start at the identity).

    Examples
    --------
    Two variants of the trained models (PSA §7.5): the key-only lattice member and the low-pass taps:

    >>> import theorylab.nn as nn
    >>> nn.head_spec(nn.TrainConfig(variant="key-only", gamma=1.0))
    PSA(g_q=0.0, g_k=1.0, placement='post-rope', base=10000.0)
    >>> nn.head_spec(nn.TrainConfig(variant="low-pass", gamma=0.5)).k_taps
    array([1.5, 0.5])
    """
    g, v, base = float(config.gamma), config.variant, config.base
    if v in ("standard", "two-layer"):
        return specs.SDPA(base)
    if v in ("symmetric", "key-only", "query-only"):
        return specs.PSA.member(v, g, config.placement, base)
    if v == "asymmetric":
        return specs.PSA(ASYMMETRIC_QUERY_SHARE * g, g, config.placement, base)
    taps = np.array([1.0 + g, g]) if v == "low-pass" else np.array([1.0, 0.0])
    return specs.TwoTap(taps, taps.copy(), config.placement, base)


MLP_PARAMETERS = ("w_fc", "b_fc", "w_proj", "b_proj", "ln2.0", "ln2.1")
"""A layer's MLP block: its weights, biases and input LayerNorm; not trained when ``mlp = 0``."""


def trainable(config: TrainConfig, model: decoder.Decoder) -> list[str]:
    """Names of the trained parameters: all of them except fixed taps (every variant but free-two-tap) and,
    when ``config.mlp == 0``, the MLP block (:data:`MLP_PARAMETERS`).

    ``mlp = 0`` means no MLP block: its weights are empty and its output bias ``b_proj`` and its
    LayerNorm stay at their initial zeros and ones, so each layer adds exactly nothing after attention
    (a trained ``b_proj`` would add a learned constant to the residual stream).

    Examples
    --------
    A one-layer model without MLP (the trained models of PSA §7.4) trains nine arrays:

    >>> import theorylab.nn as nn
    >>> config = nn.TrainConfig(variant="key-only", gamma=1.0, task="canonical", T=8, vocab=16, d_model=16, dk=16)
    >>> nn.trainable(config, nn.init_model(config, seed=0))
    ['wte', 'ln_f.0', 'ln_f.1', 'layers.0.w_q', 'layers.0.w_k', 'layers.0.w_v', 'layers.0.w_o', 'layers.0.ln1.0', 'layers.0.ln1.1']
    """
    def fixed(name: str) -> bool:
        if name.endswith("_taps"):
            return config.variant != "free-two-tap"                     # only free-two-tap learns its taps
        return config.mlp == 0 and name.startswith("layers.") and name.split(".", 2)[2] in MLP_PARAMETERS

    return [k for k in parameters(model) if not fixed(k)]


def init_model(config: TrainConfig, seed: int) -> decoder.Decoder:
    """Initial decoder (see the module docstring); the draws depend on the seed (in [0, 2^64)), not on the variant
    (``init="gamma-aware"`` then scales W_Q and W_K by the variant's stream gains).

    Refuses (before allocating) a config whose run needs more than the memory limit (:func:`memory_estimate`).

    Examples
    --------
    One seed gives every variant the same embedding (paired comparisons of PSA §7.4):

    >>> import dataclasses
    >>> import theorylab.nn as nn
    >>> config = nn.TrainConfig(variant="key-only", gamma=1.0, task="canonical", T=8, vocab=16, d_model=16, dk=16)
    >>> model = nn.init_model(config, seed=0)
    >>> model.wte.shape, len(model.layers), model.layers[0].heads[0].g_k
    ((16, 16), 1, 1.0)
    >>> standard = nn.init_model(dataclasses.replace(config, variant="standard", gamma=0.0), seed=0)
    >>> bool((standard.wte == model.wte).all())
    True
    """
    seed = seed_int("seed", seed)
    check_memory("config (batch, eval_size, T, d_model, dk, mlp, vocab)", memory_estimate(config))
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0]))
    d, dk, m, vocab = config.d_model, config.dk, config.mlp, config.vocab_size

    def w(a, b):
        return rng.normal(0.0, 1.0 / math.sqrt(a), (a, b))

    def ln():
        return np.ones(d), np.zeros(d)

    wte = rng.normal(0.0, 0.02, (vocab, d))
    spec = head_spec(config)
    q_gain, k_gain = stream_gains(spec) if config.init == "gamma-aware" else (1.0, 1.0)
    layers = tuple(decoder.Layer(w(d, dk) / q_gain, w(d, dk) / k_gain, w(d, dk), w(dk, d), w(d, m), np.zeros(m),
                                 w(m, d) if m else np.zeros((0, d)), np.zeros(d), ln(), ln(), (spec,))
                   for _ in range(config.n_layer))
    model = decoder.Decoder(wte, layers, ln())
    if config.dtype == "float64":
        return model
    return with_parameters(model, {k: v.astype(config.dtype) for k, v in parameters(model).items()
                                        if not k.endswith("_taps")})    # the float64 draws, rounded


def stream_gains(spec: specs.HeadSpec) -> tuple[float, float]:
    """Standard-deviation gains ``sqrt(b0^2 + b1^2)`` of the query and key stream filters of a head.

    A causal two-tap filter ``b0 x_t + b1 x_{t-1}`` of a stream whose rows are uncorrelated with
    unit variance per coordinate has variance ``b0^2 + b1^2`` per coordinate: ``(1 + g)^2 + g^2 =
    2 g^2 + 2 g + 1`` for the shear (taps ``(1 + g, -g)``) and for the low-pass taps ``(1 + g, g)``
    alike; 1 for SDPA and for the identity taps ``(1, 0)``. The ``"gamma-aware"`` initialisation
    divides the initial W_Q and W_K by these gains (``init_model``).

    Parameters
    ----------
    spec : SDPA, PSA or TwoTap
        The head (its couplings or taps at initialisation).

    Returns
    -------
    (float, float)
        The query and key gains, each >= 0 (exactly 1.0 for an unfiltered stream).

    Examples
    --------
    Key-only PSA at g = 1 (PSA §4): the key stream's gain is ``sqrt(2 + 2 + 1) = sqrt(5)``:

    >>> import theorylab.nn as nn
    >>> [round(g, 4) for g in nn.stream_gains(nn.PSA.member("key-only", 1.0))]
    [1.0, 2.2361]
    """
    if isinstance(spec, specs.PSA):
        taps = [psa.stream_taps(float(g)) for g in (spec.g_q, spec.g_k)]
    elif isinstance(spec, specs.TwoTap):
        taps = [spec.q_taps, spec.k_taps]
    elif isinstance(spec, specs.SDPA):
        return 1.0, 1.0
    else:
        raise ParameterError(f"spec must be an SDPA, PSA or TwoTap head (got {type(spec).__name__})")
    q, k = (math.hypot(float(b0), float(b1)) for b0, b1 in taps)
    return q, k


@dataclass(frozen=True, eq=False)
class TrainResult:
    """One run: its config and seed, final evaluation and the logged history.

    ``history`` rows: ``step``, ``loss`` (training batch), ``lr``, ``grad_norm`` and, for
    TwoTap heads, the taps ``q_b0, q_b1, k_b0, k_b1`` of layer 0 head 0. ``step0_score_std`` and
    ``step0_max_weight``: ``trainstats.step0_statistics`` of the initial model on the first training batch.
    """

    config: TrainConfig
    seed: int
    evaluation: evaluation.Evaluation
    history: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    model: decoder.Decoder | None = None
    step0_score_std: float = float("nan")
    step0_max_weight: float = float("nan")

    @property
    def accuracy(self) -> float:
        return float(self.evaluation.prediction.mean())

    @property
    def attention_accuracy(self) -> float | None:
        a = self.evaluation.attention
        return None if a is None else float(a.mean())

    @property
    def pointer_accuracy(self) -> float | None:
        """Share of held-out sequences whose query attends most to the target among the T - 1 keys before it."""
        a = self.evaluation.pointer
        return None if a is None else float(a.mean())

    def row(self) -> dict:
        """A flat summary row (for tables, CSV, JSON)."""
        lo, hi = tasks.wilson_interval(self.evaluation.prediction.sum(), len(self.evaluation.prediction), z=1.96)
        c = self.config
        row = {"variant": c.variant, "gamma": float(c.gamma), "task": c.task, "init": c.init,
               "lr_scale": c.lr_scale, "loss": c.loss, "padding_placement": c.padding_placement,
               "dk": c.dk, "seed": self.seed, "steps": c.steps, "accuracy": self.accuracy,
               "ci_low": lo, "ci_high": hi, "attention_accuracy": self.attention_accuracy,
               "pointer_accuracy": self.pointer_accuracy, "step0_score_std": self.step0_score_std,
               "step0_max_weight": self.step0_max_weight, "eval_loss": self.evaluation.loss,
               "final_train_loss": self.history[-1]["loss"] if self.history else None,
               "seconds": self.seconds, "cpu_seconds": self.cpu_seconds}
        if self.history and "k_b0" in self.history[-1]:
            row.update({k: self.history[-1][k] for k in ("q_b0", "q_b1", "k_b0", "k_b1")})
        return row


def train(config: TrainConfig, seed: int = 0, progress: Callable[[int], None] | None = None,
          keep_model: bool = False) -> TrainResult:
    """Train one model with ``config`` and ``seed``; evaluate on the held-out set.

    ``progress`` is called with the number of steps just done (for a progress bar).
    Deterministic: the same config and seed give the same numbers (tests check this
    across BLAS thread counts).
    """
    seed = seed_int("seed", seed)
    _heap.retain_freed_memory()                                 # no page faults step after step (nn._heap)
    start, cpu = time.perf_counter(), time.process_time()
    model = init_model(config, seed)
    names = trainable(config, model)
    decay = {k for k in names if k == "wte" or k.split(".")[-1].startswith("w_")}
    opt = optim.AdamW(config.peak_lr, weight_decay=config.weight_decay)
    params = {k: v.copy() for k, v in parameters(model).items()}   # the loop's own arrays (updated in place)
    state = optim.init_state({k: params[k] for k in names})
    history, step0 = [], None
    for step in range(config.steps):
        batch = evaluation._batch(config, config.batch, [seed, 1, step])
        with np.errstate(over="ignore", invalid="ignore"):      # kernels: the config and batch are valid
            if step == 0:
                step0 = trainstats._step0_statistics(model, batch.tokens)
            if config.loss == "sequence":
                targets = np.concatenate([batch.tokens[:, 1:], evaluation.answers(batch)[:, None]], axis=1)   # [B, T]
                loss, grads, _ = grad._sequence_loss_and_grad(model, batch.tokens, targets)
            else:
                loss, grads, _ = grad._loss_and_grad(model, batch.tokens, evaluation.answers(batch))
            grads, norm = optim._clip_by_norm({k: grads[k] for k in names}, config.clip)
        if not math.isfinite(loss + norm):   # the model's own numbers leaving the float range: the run diverged
            raise ParameterError(f"training diverged at step {step} (the loss or a gradient overflows the float "
                                 f"range); lower lr (got {config.lr:g})")
        lr = optim._learning_rate(step, config.steps, config.peak_lr, config.warmup)
        state = optim._adamw_update(params, grads, state, opt, lr, decay)
        model = with_parameters(model, params)
        if step % config.log_every == 0 or step == config.steps - 1:
            history.append(_log(step, loss, lr, norm, model))
        if progress is not None:
            progress(1)
    scored = evaluation.evaluate(config, model, evaluation.batch_of(config, config.eval_size, [seed, 2]))
    return TrainResult(config, seed, scored, history, time.perf_counter() - start, time.process_time() - cpu,
                       model if keep_model else None, *step0)


def _log(step, loss, lr, norm, model) -> dict:
    row = {"step": step, "loss": loss, "lr": lr, "grad_norm": norm}
    spec = model.layers[0].heads[0]
    if isinstance(spec, specs.TwoTap):
        row.update(q_b0=float(spec.q_taps[0]), q_b1=float(spec.q_taps[1]),
                   k_b0=float(spec.k_taps[0]), k_b1=float(spec.k_taps[1]))
    return row


__all__ = ["VARIANTS", "COUPLED", "TASKS", "DTYPES", "INITS", "LR_SCALES", "LOSSES", "PADDING_PLACEMENTS", "ASYMMETRIC_QUERY_SHARE",
           "MLP_PARAMETERS", "TrainConfig", "memory_estimate", "train_cost", "head_spec", "trainable",
           "init_model", "stream_gains", "TrainResult", "train"]

__getattr__ = _moved.moved_names(__name__, dict.fromkeys(("EVAL_CHUNK", "batch_of", "answers", "Evaluation", "evaluate"),
                                                         "theorylab.nn.evaluation"))
"""The batches and the evaluation moved to :mod:`theorylab.nn.evaluation`; their old path works for one release."""

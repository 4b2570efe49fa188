"""A minimal NumPy transformer: attention heads, decoder with caches, induction tasks, training.

Start here:

* :class:`HeadSpec` (:mod:`theorylab.nn.specs`), :func:`head`, :func:`attend` -- one attention head
  (SDPA, PSA, PLGA, graded);
* :func:`random_decoder`, :func:`logits`, :func:`decode` -- the decoder and its KV caches;
* :func:`induction_sequences`, :func:`induction_accuracy` -- the induction task;
* :class:`TrainConfig`, :func:`init_model`, :func:`evaluate` -- training (``theorylab.nn.train.train``
  runs it: ``theorylab.nn.train`` is the module); :func:`seed_summary`, :func:`gamma_c` -- the trained
  couplings across seeds; :func:`curve_gamma_c`, :func:`ladder_slope` -- the trained dk ladder's three
  gamma_c observables and its log-log slope (:mod:`theorylab.nn.ladder`).

Every other public name of the modules below is re-exported here, imported on first use (backward
passes ``*_vjp`` stay in :mod:`theorylab.nn.grad`).
"""
from __future__ import annotations

from theorylab._lazy import lazy_exports

_EXPORTS = {
    "specs": ("GRAMS", "SDPA", "PSA", "TwoTap", "Graded", "PLGA", "HeadSpec", "grading_diag"),
    "attention": ("streams", "two_tap", "unshear_keys", "scores", "attention_weights", "attend", "plga_operator",
                  "head"),
    "decoder": ("Layer", "Decoder", "random_decoder", "forward", "hidden_states", "logits", "prefix_logits",
                "PrefixConsistency", "prefix_consistency", "prefix_consistency_gap",
                "collapse_invariant_plga", "token_ids", "HeadCache", "Cache", "empty_cache", "cached_head",
                "restore_queries", "cached_attention", "extend", "decode", "commit", "rollback",
                "cache_floats", "compile_grading"),
    "params": ("parameters", "with_parameters"),
    "grad": ("cross_entropy", "loss_and_grad", "sequence_loss_and_grad"),
    "optim": ("AdamW", "AdamState", "init_state", "clip_by_norm", "adamw_step", "learning_rate"),
    "tasks": ("InductionBatch", "target_positions", "plant_induction", "induction_sequences",
              "associative_recall", "embeddings", "slow_planes", "InductionHead", "induction_head",
              "query_scores", "induction_hits", "induction_accuracy", "predecessor_sensitivity", "ceiling",
              "wilson_interval"),
    "train": ("VARIANTS", "COUPLED", "TASKS", "INITS", "LR_SCALES", "LOSSES", "PADDING_PLACEMENTS",
              "ASYMMETRIC_QUERY_SHARE", "TrainConfig", "head_spec", "stream_gains", "trainable", "init_model",
              "TrainResult"),
    "evaluation": ("EVAL_CHUNK", "batch_of", "answers", "Evaluation", "evaluate"),
    "trainstats": ("seed_summary", "gamma_c", "loglog_slope", "bootstrap_gamma_c", "step0_statistics"),
    "ladder": ("plateau_midpoint", "steepest_segment", "half_accuracy", "curve_gamma_c", "ladder_slope"),
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

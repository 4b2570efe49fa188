"""The data of a training run and its evaluation (PSA §7.4, §7.5, A5): task batches, answers, scores.

A run (:class:`~theorylab.nn.train.TrainConfig` and a seed ``s``) draws every batch of its task from
the stream ``numpy.random.SeedSequence(seed_words)``: the training batch of step t from
``[s, 1, t]``, the held-out evaluation set from ``[s, 2]`` (:func:`batch_of`). The model must predict
:func:`answers` -- the token at each sequence's target -- at its last position. :func:`evaluate`
scores a model on a batch, :data:`EVAL_CHUNK` sequences per forward pass: prediction credits (the
logit argmax is the answer; ties credited ``1/k``), attention credits (one-layer models: the query's
attention argmax is the target) and pointer credits (the same over the T - 1 keys before the query,
last layer, first head; chance ``1/(T-1)``), with the mean cross-entropy.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from theorylab.errors import ParameterError, describe, positive_int, seed_int
from theorylab.nn import decoder, grad, tasks

if TYPE_CHECKING:                                               # annotations only: train imports this module
    from theorylab.nn.train import TrainConfig

EVAL_CHUNK = 500
"""Evaluation sequences per forward pass."""


def batch_of(config: TrainConfig, n: int, seed_words: list[int]) -> tasks.InductionBatch:
    """A batch of ``n`` task sequences from the stream ``SeedSequence(seed_words)`` (seed words in [0, 2^64)).

    Examples
    --------
    The training batch of step 0 of seed 0 (stream ``[seed, 1, step]``), canonical task (PSA §2.2):

    >>> import theorylab.nn as nn
    >>> config = nn.TrainConfig(variant="key-only", gamma=1.0, task="canonical", T=8, vocab=16, d_model=16, dk=16)
    >>> batch = nn.batch_of(config, 2, [0, 1, 0])
    >>> batch.tokens, batch.target
    (array([[ 2, 10,  7,  5, 14,  3,  8,  2],
           [ 3,  0, 15,  5, 13,  9,  1,  5]]), array([1, 4]))
    """
    n = positive_int("n", n)
    if not isinstance(seed_words, (list, tuple, np.ndarray)) or not len(seed_words) \
            or (isinstance(seed_words, np.ndarray) and (seed_words.ndim != 1 or seed_words.dtype.kind not in "iu")):
        raise ParameterError(f"seed_words must be a non-empty list of seeds (got {describe(seed_words)})")
    return _batch(config, n, [seed_int("seed_words", w) for w in seed_words])


def _batch(config: TrainConfig, n: int, seed_words: list[int]) -> tasks.InductionBatch:
    """:func:`batch_of` of validated seed words (the config's task sizes were validated by TrainConfig)."""
    seed = int(np.random.SeedSequence(seed_words).generate_state(1)[0])
    if config.task == "recall":
        return tasks._associative_recall(n, config.pairs, config.alphabet, config.padding, seed,
                                         config.padding_placement == "random")
    return tasks._induction_sequences(n, config.T, config.vocab, seed)


def answers(batch: tasks.InductionBatch) -> np.ndarray:
    """The token each sequence must predict at its last position: the token at the target.

    Examples
    --------
    The token after the earlier copy of the query (PSA §2.2):

    >>> import theorylab.nn as nn
    >>> config = nn.TrainConfig(variant="key-only", gamma=1.0, task="canonical", T=8, vocab=16, d_model=16, dk=16)
    >>> nn.answers(nn.batch_of(config, 2, [0, 1, 0]))
    array([10, 13])
    """
    return batch.tokens[np.arange(len(batch.tokens)), batch.target]


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Per-sequence credits on the evaluation set: prediction, (one layer, one head) attention, pointer.

    ``attention``: the query's attention argmax over all T positions is the target (one-layer models,
    else None); ``pointer``: the same over the T - 1 keys before the query (the query's own position
    excluded; chance ``1/(T-1)``), read off the last layer's first head, for every model.
    """

    prediction: np.ndarray
    attention: np.ndarray | None
    loss: float
    pointer: np.ndarray | None = None


def evaluate(config: TrainConfig, model: decoder.Decoder, batch: tasks.InductionBatch,
             chunk: int = EVAL_CHUNK) -> Evaluation:
    """Prediction credits (logit argmax = answer), attention credits (query's attention argmax = target) and
    pointer credits (the same over the keys before the query), ``chunk`` sequences per forward pass.

    Examples
    --------
    An untrained model on 100 held-out sequences (stream ``[seed, 2]``; PSA §7.4):

    >>> import theorylab.nn as nn
    >>> config = nn.TrainConfig(variant="key-only", gamma=1.0, task="canonical", T=8, vocab=16, d_model=16, dk=16)
    >>> result = nn.evaluate(config, nn.init_model(config, seed=0), nn.batch_of(config, 100, [0, 2]))
    >>> result.prediction.shape, float(result.prediction.mean()), float(result.pointer.mean()), round(result.loss, 4)
    ((100,), 0.04, 0.13, 2.7714)
    """
    chunk = positive_int("chunk", chunk)
    pred, att, point, losses = [], [], [], []
    for s in range(0, len(batch.tokens), chunk):
        tok, tgt = batch.tokens[s:s + chunk], batch.target[s:s + chunk]
        trace: list = []
        logits = decoder.logits(model, decoder.hidden_states(model, tok, trace)[..., -1, :])   # [n, V]
        ans = tok[np.arange(len(tok)), tgt]
        pred.append(tasks.induction_hits(logits, ans))
        losses.append(grad.cross_entropy(logits, ans)[0] * len(tok))
        query = trace[-1]["heads"][0]["p"][..., -1, :]                  # [n, T] the query row, last layer
        point.append(tasks.induction_hits(query[:, :-1], tgt))          # the T - 1 keys before the query
        if config.n_layer == 1:
            att.append(tasks.induction_hits(query, tgt))
    return Evaluation(np.concatenate(pred), np.concatenate(att) if att else None, pointer=np.concatenate(point),
                      loss=sum(losses) / len(batch.tokens))


__all__ = ["EVAL_CHUNK", "batch_of", "answers", "Evaluation", "evaluate"]

"""Induction and associative-recall sequences, and a hand-constructed single-layer PSA induction head (PSA §2.2, §6.8).

Canonical induction model
-------------------------
The sequences are those of the canonical induction model of PSA §2.2 and §6.8, defined once
in :mod:`theorylab.psa.canonical` (:func:`plant_induction`, :func:`target_positions`, the
ceiling ``1/(T - 2)``), with the key convention ``query_is_key=True`` (causal attention).

The hand-constructed head
-------------------------
Token embeddings are isotropic Gaussian (unit variance per coordinate). The head reads the
content of each token into the slow RoPE planes only (those with ``theta_i (T-1) <= 1``,
where rotation barely moves a vector over the whole context): ``W_Q = P``, ``W_K = -P``.
With key coupling g the sheared key of position j is ``-(1+g) P e_j + g P e_{j-1}``, so the
query ``P e_A`` scores about ``g |P e_A|^2`` at the target, ``-(1+g) |P e_A|^2`` at the A key
(up to the small slow-plane rotations) and O(sqrt(dk)) noise elsewhere: key-only PSA solves induction. The symmetric member adds the
query ghost ``-g P e_{T-2}``, which gives the key at position T-2 the same expected score as
the target (a structural tie, so about 1/2); the query-only member keeps key-side order zero.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab.errors import (ParameterError, check_memory, choice, finite_output, integer_array, positive_int,
                              real_array, real_scalar, seed_int)
from theorylab.nn import attention, specs
from theorylab.psa import rotary
from theorylab.psa.canonical import ceiling, plant_induction, target_positions
from theorylab.stats import wilson_interval

PADDING_PLACEMENTS = ("fixed", "random")
"""Where :func:`associative_recall` puts its PAD tokens: before the query, or in random gaps between the pairs."""


@dataclass(frozen=True, eq=False)
class InductionBatch:
    """``tokens`` (N, T) and ``target`` (N,) positions j; ``tokens[:, j-1] == tokens[:, -1]``."""

    tokens: np.ndarray
    target: np.ndarray

    @property
    def T(self) -> int:
        return self.tokens.shape[1]


def induction_sequences(n: int, T: int, vocab: int, seed: int = 0) -> InductionBatch:
    """``n`` canonical induction sequences of length T over ``vocab >= T - 1`` tokens (query is a key).

    Examples
    --------
    The canonical induction model (PSA §2.2): the token before the target repeats the query:

    >>> import theorylab.nn as nn
    >>> batch = nn.induction_sequences(3, 6, 10, seed=0)
    >>> batch.tokens
    array([[3, 2, 1, 8, 6, 8],
           [1, 3, 5, 8, 9, 5],
           [0, 1, 5, 4, 3, 5]])
    >>> batch.target, bool((batch.tokens[[0, 1, 2], batch.target - 1] == batch.tokens[:, -1]).all())
    (array([4, 3, 3]), True)
    """
    n, T = positive_int("n", n), positive_int("T", T, low=4)
    vocab = positive_int("vocab", vocab, low=T - 1)
    check_memory("n, vocab", 16 * n * vocab)
    return _induction_sequences(n, T, vocab, seed_int("seed", seed))


def _induction_sequences(n: int, T: int, vocab: int, seed: int) -> InductionBatch:
    rng = np.random.default_rng(seed)
    tokens = np.argsort(rng.random((n, vocab)), axis=1)[:, :T]          # [n, T] distinct tokens
    tokens, target = plant_induction(rng, tokens, query_is_key=True)     # target j in 1..T-2
    return InductionBatch(tokens, target)


def associative_recall(n: int, pairs: int, alphabet: int, padding: int = 0, seed: int = 0,
                       padding_placement: str = "fixed") -> InductionBatch:
    """``n`` associative-recall sequences (PSA §7.4, A5, A8.1): key-value pairs, padding, a query key.

    Layout (length ``T = 2 pairs + padding + 1``), ``padding_placement="fixed"``::

        k_1 v_1 k_2 v_2 ... k_L v_L  PAD ... PAD  q

    Keys and values share one alphabet of ``alphabet`` tokens (ids ``0 .. alphabet-1``; the
    paper's "shared alphabet"); ``PAD`` is id ``alphabet`` (so a model needs
    ``vocab = alphabet + 1``). Keys are distinct within a sequence, values are drawn
    uniformly with replacement (a value may equal a key, including the queried one), and the
    query is ``q = k_i`` for a uniform pair ``i``. The target is the position of ``v_i``
    (``2 i - 1``, 0-based, when fixed), so ``tokens[j - 1] == tokens[-1]`` as in the canonical
    induction model, and the answer is ``tokens[j]``: guessing is right with probability
    ``1 / alphabet``.

    ``padding_placement="random"``: each sequence puts its PAD tokens in random gaps between
    the pairs (before the first, between two, or after the last; a pair is never split, the
    query stays last): of the ``pairs + padding`` slots of pairs and single PADs, a uniform
    subset of ``padding`` holds the PADs, the pairs fill the others in order. The keys, values
    and queried pair are the fixed layout's (the same seed gives the same pairs); only their
    positions move.

    Examples
    --------
    Three pairs over an alphabet of 8 (PAD = 8), two PADs, the query last:

    >>> import theorylab.nn as nn
    >>> batch = nn.associative_recall(2, pairs=3, alphabet=8, padding=2, seed=0)
    >>> batch.tokens, batch.target
    (array([[3, 0, 2, 6, 1, 0, 8, 8, 2],
           [3, 4, 5, 0, 7, 2, 8, 8, 5]]), array([3, 3]))
    >>> nn.associative_recall(2, pairs=3, alphabet=8, padding=2, seed=0, padding_placement="random").tokens
    array([[8, 8, 3, 0, 2, 6, 1, 0, 2],
           [8, 3, 4, 5, 0, 7, 2, 8, 5]])
    """
    n, pairs = positive_int("n", n), positive_int("pairs", pairs)
    alphabet = positive_int("alphabet", alphabet, low=max(2, pairs))
    padding = positive_int("padding", padding, low=0)
    choice("padding_placement", padding_placement, PADDING_PLACEMENTS)
    check_memory("n, alphabet, pairs, padding", 16.0 * n * alphabet + 8.0 * n * (6 * pairs + 3 * padding + 1))
    return _associative_recall(n, pairs, alphabet, padding, seed_int("seed", seed), padding_placement == "random")


def _associative_recall(n: int, pairs: int, alphabet: int, padding: int, seed: int,
                        random_padding: bool = False) -> InductionBatch:
    """:func:`associative_recall` of validated sizes and seed (the training loop's kernel)."""
    T = 2 * pairs + padding + 1
    rng = np.random.default_rng(seed)
    keys = np.argsort(rng.random((n, alphabet)), axis=1)[:, :pairs]      # [n, L] distinct keys
    values = rng.integers(0, alphabet, size=(n, pairs))                  # [n, L] shared alphabet
    pick = rng.integers(0, pairs, size=n)                                # [n] queried pair
    tokens = np.full((n, T), alphabet)                                   # [n, T] PAD everywhere
    rows = np.arange(n)
    tokens[:, -1] = keys[rows, pick]                                     # the query repeats k_i
    if not random_padding:
        tokens[:, 0:2 * pairs:2], tokens[:, 1:2 * pairs:2] = keys, values
        return InductionBatch(tokens, 2 * pick + 1)
    is_pad = np.argsort(rng.random((n, pairs + padding)), axis=1) < padding   # [n, L + P] PAD slots
    width = np.where(is_pad, 1, 2)                                       # a slot holds a PAD or a pair
    start = np.cumsum(width, axis=1) - width                             # [n, L + P] first position of a slot
    key_pos = start[~is_pad].reshape(n, pairs)                           # [n, L] pairs fill the rest in order
    tokens[rows[:, None], key_pos], tokens[rows[:, None], key_pos + 1] = keys, values
    return InductionBatch(tokens, key_pos[rows, pick] + 1)


def embeddings(vocab: int, dk: int, seed: int = 0) -> np.ndarray:
    """Isotropic Gaussian token embeddings ``(vocab, dk)``, unit variance per coordinate.

    Examples
    --------
    The embeddings of the hand-constructed induction head (PSA §6.8):

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> E = nn.embeddings(10, 4, seed=0)
    >>> E.shape, np.round(E[0], 4)
    ((10, 4), array([ 0.1257, -0.1321,  0.6404,  0.1049]))
    """
    vocab, dk = positive_int("vocab", vocab), positive_int("dk", dk)
    check_memory("vocab, dk", 8 * vocab * dk)
    return np.random.default_rng(seed_int("seed", seed)).normal(size=(vocab, dk))


def slow_planes(dk: int, T: int, base: float = 10000.0) -> np.ndarray:
    """0/1 mask (dk,) of the RoPE planes with ``theta_i (T - 1) <= 1`` (the content planes).

    Examples
    --------
    At dk = 16 and T = 32 the five slowest of eight planes barely rotate over the context (PSA §6.8):

    >>> import theorylab.nn as nn
    >>> nn.slow_planes(16, 32)
    array([0., 0., 0., 0., 0., 0., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.])
    """
    theta = rotary.rope_frequencies(dk, base)                               # [dk/2]
    mask = np.repeat(theta * (positive_int("T", T) - 1) <= 1.0, 2).astype(float)
    if not mask.any():
        raise ParameterError(f"dk = {dk} has no RoPE plane with theta (T-1) <= 1 at T = {T}, base = {base:g}")
    return mask


@dataclass(frozen=True, eq=False)
class InductionHead:
    """A single-layer head: spec, query and key maps ``(dk, dk)`` (applied to embeddings)."""

    spec: specs.HeadSpec
    w_q: np.ndarray
    w_k: np.ndarray


def induction_head(member: str, g: float, dk: int, T: int, base: float = 10000.0,
                   placement: str = "post-rope", planes: str = "slow") -> InductionHead:
    """The hand-constructed head: ``W_Q = P``, ``W_K = -P``, PSA ``member`` at coupling g.

    ``planes="slow"`` (default): P projects onto the slow RoPE planes (:func:`slow_planes`);
    ``planes="all"``: P = I, so content also rides the fast planes (placement matters there).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> head = nn.induction_head("key-only", 1.0, dk=32, T=12)
    >>> head.spec
    PSA(g_q=0.0, g_k=1.0, placement='post-rope', base=10000.0)
    >>> int(np.trace(head.w_q)), bool((head.w_k == -head.w_q).all())       # 22 slow coordinates (PSA §6.8)
    (22, True)
    """
    dk = positive_int("dk", dk)
    check_memory("dk", 8 * dk * dk)
    mask = slow_planes(dk, T, base) if choice("planes", planes, ("slow", "all")) == "slow" else np.ones(dk)
    P = np.diag(mask)                                                    # [dk, dk]
    return InductionHead(specs.PSA.member(member, real_scalar("g", g, low=0), placement, base), P, -P)


def _embedding(E, head: InductionHead, batch: InductionBatch) -> np.ndarray:
    """Validate the embedding table: (vocab, dk) reals covering every token of the batch."""
    E = real_array("E", E)
    dk = head.w_q.shape[0]
    if E.ndim != 2 or E.shape[1] != dk or E.shape[0] <= int(batch.tokens.max()):
        raise ParameterError(f"E must be a (vocab, {dk}) table with a row for every token id "
                             f"(max id {int(batch.tokens.max())}; got shape {E.shape})")
    return E


@finite_output("E")
def query_scores(head: InductionHead, E: np.ndarray, batch: InductionBatch) -> np.ndarray:
    """Scores ``(N, T)`` of the last position (the query) against every key.

    Examples
    --------
    The key-only head (PSA §6.8) scores the target highest in most sequences:

    >>> import numpy as np
    >>> import theorylab.nn as nn
    >>> batch = nn.induction_sequences(200, 12, 32, seed=0)
    >>> E = nn.embeddings(32, 32, seed=1)
    >>> s = nn.query_scores(nn.induction_head("key-only", 1.0, 32, 12), E, batch)
    >>> s.shape, float(np.mean(s.argmax(axis=1) == batch.target))
    ((200, 12), 0.7)
    """
    return _query_scores(head, _embedding(E, head, batch), batch.tokens)


def _query_scores(head: InductionHead, E: np.ndarray, tokens: np.ndarray) -> np.ndarray:
    """:func:`query_scores` of a validated table ``E`` covering ``tokens`` (N, T)."""
    x = E[tokens]                                                        # [N, T, dk]
    qs, ks, _ = attention._streams(head.spec, x @ head.w_q, x @ head.w_k, x, 0, None)   # [N, T, dk] x2
    return attention._scores(qs[:, -1:], ks)[:, 0]                      # [N, T]


def induction_hits(s: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per-sequence credit: ``1/k`` if the target is among the k argmax keys of scores ``s`` (N, T), else 0.

    Examples
    --------
    A tie between two keys earns half a hit (the structural tie of symmetric PSA, PSA §6.8):

    >>> import theorylab.nn as nn
    >>> nn.induction_hits([[0.0, 2.0, 2.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [1, 0, 0])
    array([0.5, 1. , 0. ])
    """
    s = real_array("s", s)
    if s.ndim != 2 or s.shape[1] == 0:
        raise ParameterError(f"s must be a (N, T) array of scores (got shape {s.shape})")
    target = integer_array("target", target, low=0, high=s.shape[1] - 1, allow_empty=True)
    if target.shape != (len(s),):
        raise ParameterError(f"target must hold one key position per row of s ({len(s)}; got shape {target.shape})")
    top = s == s.max(axis=1, keepdims=True)                             # [N, T]
    return top[np.arange(len(s)), target] / top.sum(axis=1)             # [N]


def induction_accuracy(head: InductionHead, E: np.ndarray, batch: InductionBatch) -> np.ndarray:
    """Per-sequence induction credit (N,) of ``head`` on ``batch`` (the mean is the accuracy).

    Examples
    --------
    Query-only PSA stays at the order-zero ceiling ``1/(T-2) = 0.1``; key-only solves most
    sequences; symmetric splits the structural tie (PSA §2.2, §6.8):

    >>> import theorylab.nn as nn
    >>> batch = nn.induction_sequences(200, 12, 32, seed=0)
    >>> E = nn.embeddings(32, 32, seed=1)
    >>> [float(nn.induction_accuracy(nn.induction_head(m, 1.0, 32, 12), E, batch).mean())
    ...  for m in ("query-only", "key-only", "symmetric")]
    [0.11, 0.7, 0.51]
    """
    return induction_hits(query_scores(head, E, batch), batch.target)


@finite_output("E")
def predecessor_sensitivity(head: InductionHead, E: np.ndarray, batch: InductionBatch, i: int = 1) -> float:
    """``max |Delta s_{i+1}|``: how much the score of key ``i+1`` moves when the token at ``i`` changes
    (to the next token, ``(t_i + 1) mod vocab``).

    Zero exactly for a key-side order-zero score (key ``i+1`` sees only its own token);
    positive once the key stream carries its predecessor (key-only, symmetric). Requires
    ``i <= T - 4`` so that the query and its predecessor are untouched.

    Examples
    --------
    Query-only PSA is key-side order zero (PSA §2.2); the key-only shear makes key 2 see token 1:

    >>> import theorylab.nn as nn
    >>> batch = nn.induction_sequences(200, 12, 32, seed=0)
    >>> E = nn.embeddings(32, 32, seed=1)
    >>> [round(nn.predecessor_sensitivity(nn.induction_head(m, 1.0, 32, 12), E, batch), 4)
    ...  for m in ("query-only", "key-only")]
    [0.0, 7.7222]
    """
    i = positive_int("i", i, low=0)
    E = _embedding(E, head, batch)
    if i > batch.T - 4:
        raise ParameterError(f"i must be <= T - 4 = {batch.T - 4} (got {i})")
    changed = batch.tokens.copy()
    changed[:, i] = (changed[:, i] + 1) % len(E)                         # a different token at i
    before = _query_scores(head, E, batch.tokens)[:, i + 1]              # [N]
    after = _query_scores(head, E, changed)[:, i + 1]
    return float(np.max(np.abs(after - before)))


__all__ = ["PADDING_PLACEMENTS", "InductionBatch", "target_positions", "plant_induction", "induction_sequences", "associative_recall",
           "embeddings", "slow_planes", "InductionHead", "induction_head",
           "query_scores", "induction_hits", "induction_accuracy", "predecessor_sensitivity", "ceiling",
           "wilson_interval"]

"""The canonical induction model of PSA §2.2 and §6.8: where the target sits, and how a sequence is made.

Our concrete reading of the model: a sequence of T items (tokens in :mod:`theorylab.nn.tasks`; Gaussian vectors in :mod:`theorylab.psa.induction`), all
distinct except one repeat: the last item (the query, position T-1) is ``A``; ``A`` also
sits at position ``j-1`` and the *target* is position ``j`` (item ``B``). This module is the
one definition of that model (:func:`plant_induction`, :func:`target_positions`). Which
positions are keys is the one convention with two forms, chosen by ``query_is_key``:

* ``query_is_key=True`` (default; causal attention, the trained and hand-built heads): the keys are ``0 .. T-1``
  -- a causal head's query always sees its own key -- and ``j`` is uniform on ``1 .. T-2``.
  Besides the target there are ``T - 2`` distractor keys other than the query itself; a
  key-side order-zero score cannot tell the target from the ``T - 3`` other non-``A`` keys,
  so its accuracy is at most ``1/(T - 2)`` (attained by suppressing the two ``A`` keys).
  ``j = T-2`` must be allowed: the ``T - 2`` target positions are then exchangeable with
  the non-``A`` keys, and a head that always answers the query's predecessor (query-only
  PSA) attains the ceiling exactly (P10).
* ``query_is_key=False`` (the reduced model, :mod:`theorylab.psa.induction`): the keys are
  ``0 .. T-2`` (``T - 1`` candidates, ``ln(T - 1)`` in ``psa.scoremodel.log_count``, ``m = T - 2``
  distractors) and ``j`` is uniform on ``1 .. T-3``. ``j = T-2`` is excluded there because
  the target would then be the query's predecessor: both momenta contain ``x_{T-2}``, so
  the target picks up a T2 gap and a doubled T4 gap that the reduced model (one target
  with gaps ``g sqrt(dk)``, ``g^2 sqrt(dk)``) does not have.

The head is right when the query's attention argmax over the keys is the target (a tie
among k maximisers counts ``1/k``).

This module is theory (it imports no simulation): the vector-level simulation
(:mod:`theorylab.psa.induction`) and the trained transformer's tasks (:mod:`theorylab.nn.tasks`)
both build their sequences with it.
"""
from __future__ import annotations

import numpy as np

from theorylab._results import scalar_output
from theorylab.errors import ParameterError, check_memory, positive_int, real_array


def target_positions(T: int, query_is_key: bool = True) -> np.ndarray:
    """Possible target positions ``j`` of the canonical model: ``1 .. T-2`` (query is a key) or ``1 .. T-3``.

    See the module docstring for why the two key conventions differ.

    Examples
    --------
    Targets of a length-8 context, with and without the query counted as a key:

    >>> import theorylab.psa as psa
    >>> psa.target_positions(8).tolist()
    [1, 2, 3, 4, 5, 6]
    >>> psa.target_positions(8, query_is_key=False).tolist()
    [1, 2, 3, 4, 5]
    """
    T = positive_int("T", T, low=3 if query_is_key else 4)
    check_memory("T", 8 * T)
    return np.arange(1, T - 1 if query_is_key else T - 2)


def plant_induction(rng: np.random.Generator, content: np.ndarray, query_is_key: bool = True
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Make sequences canonical: draw each target ``j`` and copy item ``j-1`` to the query position.

    Parameters
    ----------
    rng : the generator; ``j`` is drawn uniformly from :func:`target_positions` after the content.
    content : ``(n, T, ...)`` distinct items per sequence (token ids, or embedding vectors).
    query_is_key : the key convention (module docstring).

    Returns
    -------
    ``(items, j)``: a copy of ``content`` with ``items[:, T-1] = items[:, j-1]``, and ``j`` (n,).

    Examples
    --------
    Plant the induction pattern in random content (query position T-1 copies item j-1 to the target j):

    >>> import theorylab.psa as psa
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> content = rng.normal(size=(2, 8, 4))
    >>> x, j = psa.plant_induction(rng, content)
    >>> x.shape, j.tolist()
    ((2, 8, 4), [6, 2])
    >>> bool(np.array_equal(x[0, -1], x[0, j[0] - 1]))
    True
    """
    if not isinstance(rng, np.random.Generator):
        raise ParameterError(f"rng must be a numpy.random.Generator (got {type(rng).__name__})")
    real_array("content", content)
    items = np.array(content, copy=True)
    if items.ndim < 2:
        raise ParameterError(f"content must have shape (n, T, ...) (got {items.shape})")
    n, T = items.shape[:2]
    allowed = target_positions(T, query_is_key)
    j = rng.integers(int(allowed[0]), int(allowed[-1]) + 1, size=n)     # [n] uniform target positions
    items[:, -1] = items[np.arange(n), j - 1]                            # query item A repeats at j-1
    return items, j


@scalar_output
def ceiling(T) -> np.ndarray:
    """Accuracy ceiling ``1/(T - 2)`` of a key-side order-zero score (PSA §2.2, §6.8).

    Examples
    --------
    The order-zero key-side ceiling at a short and a long context:

    >>> import theorylab.psa as psa
    >>> round(float(psa.ceiling(64)), 6)
    0.016129
    >>> print(psa.ceiling([10, 1026]))
    [0.125      0.00097656]
    """
    return 1.0 / (real_array("T", T, low=3, low_inclusive=False) - 2)


__all__ = ["ceiling", "plant_induction", "target_positions"]

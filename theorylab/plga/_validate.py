"""Input checks shared by the PLGA modules (private; the public functions validate once with them).

Every function with an exact route accepts object arrays (SymPy symbols, ``mpmath.mpf``) checked
entrywise, and numeric arrays as finite reals; numeric-only functions pass ``exact=False``.
"""

from __future__ import annotations

import numpy as np

from theorylab.errors import ParameterError, real_array, real_or_exact


def _is_exact(x) -> bool:
    return isinstance(x, np.ndarray) and x.dtype == object


def _real_or_exact(name: str, x) -> np.ndarray:
    """Validated input of a function with an exact route: object arrays entrywise, numbers as reals."""
    return real_or_exact(name, x, allow_empty=True)


def _square(name: str, M, *, single: bool = False, exact: bool = True) -> np.ndarray:
    """A non-empty square matrix (or a stack of them unless ``single``); object arrays (the exact
    route, unless ``exact=False``: numeric-only functions) are checked entrywise."""
    M = _real_or_exact(name, M) if exact else real_array(name, M)
    if M.ndim < 2 or M.shape[-1] != M.shape[-2] or M.shape[-1] == 0 or (single and M.ndim != 2):
        what = "a non-empty square matrix" + ("" if single else " (or a stack of them)")
        raise ParameterError(f"{name} must be {what} (got shape {M.shape})")
    return M


def _queries(name: str, q, *, exact: bool = True) -> np.ndarray:
    q = _real_or_exact(name, q) if exact else real_array(name, q, allow_empty=True)
    if q.ndim != 2 or q.shape[1] == 0:
        raise ParameterError(f"{name} must be a 2-d array of shape (S, dk), dk >= 1 (got shape {q.shape})")
    return q


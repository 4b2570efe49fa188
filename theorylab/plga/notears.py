"""NOTEARS acyclicity ``h(W) = tr exp(W o W) - d``, its walk series and the DAG-loss floor (PLGA §4.3).

``h(W) = sum_{k>=1} tr((W o W)^k)/k!`` counts weighted closed walks, so ``h = 0`` iff the graph of ``W``
is acyclic (claim A5); for entries ``>= eps`` it is at least ``dk eps^2`` (claim A13), and the authors'
implemented loss is ``DL = |log(tr e^{W o W} / d)| = log1p(h/d)``. Every value is evaluated
overflow-safely, as a logarithm where ``h`` leaves the float range, with full relative accuracy at
the floor.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab._results import scalar_output
from theorylab.errors import ParameterError, finite_result, positive_int, real_array
from theorylab.plga._validate import _square
from theorylab.plga.params import EPS


@dataclass(frozen=True, eq=False)
class NotearsValue:
    """NOTEARS ``h(W) = tr exp(W o W) - d`` evaluated overflow-safely (claims A5, A13).

    ``log_h`` is the natural log of h (finite whenever h > 0, even when h overflows a
    float); ``h`` is ``exp(log_h)`` (``inf`` on overflow, 0.0 when W o W is nilpotent);
    ``method`` is "walk-series" or "shifted-expm".
    """

    h: float
    log_h: float
    method: str


_SERIES_RHO = 8.0


def walk_terms(W, kmax: int = 30) -> np.ndarray:
    """``log( tr((W o W)^k) / k! )`` for k = 1..kmax: log weighted closed-walk counts (claim A5).

    Computed with a renormalised running power, so no term overflows; a zero walk
    count gives ``-inf``. ``W`` one square matrix, ``kmax`` in [1, 10000].

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> W = np.array([[0.0, 1.0], [1.0, 0.0]])                   # one 2-cycle: closed walks of even length (PLGA §4.3)
    >>> np.exp(plga.walk_terms(W, kmax=4)).round(4)
    array([0.    , 1.    , 0.    , 0.0833])
    """
    kmax = positive_int("kmax", kmax, high=10_000)
    return _walk_terms(_squared("W", W), kmax)


def _squared(name: str, W) -> np.ndarray:
    """``W o W`` of one square real matrix, refused if an entry overflows."""
    W = _square(name, W, single=True, exact=False)
    with np.errstate(over="ignore"):
        return finite_result(name, W ** 2)


def _walk_terms(M: np.ndarray, kmax: int) -> np.ndarray:
    out = np.full(kmax, -np.inf)                                        # -inf: a zero walk count
    B, log_scale = np.eye(len(M)), 0.0                                  # M^k/k! = B * exp(log_scale)
    for k in range(1, kmax + 1):
        B = B @ M / k
        s = np.max(B)                                                   # M = W o W >= 0 entrywise, so B >= 0
        if s == 0:
            break                                                       # M^k = 0: every later term is -inf too
        B, log_scale = B / s, log_scale + np.log(s)
        with np.errstate(divide="ignore"):
            out[k - 1] = np.log(np.trace(B)) + log_scale                # trace >= 0; log 0 = -inf
    return out


def notears_h(W) -> NotearsValue:
    """``h(W) = tr exp(W o W) - d = sum_{k>=1} tr((W o W)^k)/k!`` (NOTEARS; PLGA §4.3, claims A5, A13).

    For spectral radius rho(W o W) <= 8 the walk series is summed term by term (all
    terms are >= 0, so no cancellation, and small h keeps full relative accuracy, down
    to the floor dk eps^2); above it ``log tr exp(M) = rho + log tr exp(M - rho I)``,
    which cannot overflow: ``exp(M - rho I) = (e^(-rho/2^s) exp(M/2^s))^(2^s)`` is a power of an
    entrywise nonnegative matrix, squared with a running renormalisation (no cancellation,
    whatever the size of W; the direct ``expm(M - rho I)`` returned 0 or NaN from W ~ 1e10 on).
    Raises ParameterError when W o W is so far from normal (its norm dwarfs its spectral radius)
    that float64 cannot determine ``log h`` to a relative 1e-8.

    Examples
    --------
    A 3-cycle of weight 0.5 is not a DAG: ``h = tr exp(W o W) - 3 > 0`` (PLGA §4.3); no edges give 0.

    >>> import numpy as np
    >>> from theorylab.plga import notears_h
    >>> W = np.array([[0, 0.5, 0], [0, 0, 0.5], [0.5, 0, 0]])
    >>> round(notears_h(W).h, 6), notears_h(np.zeros((3, 3))).h
    (0.007814, 0.0)
    """
    M = _squared("W", W)
    d = len(M)
    top = np.frexp(np.max(M))[1]                                          # rho(M) = 2^top rho(M / 2^top), exactly
    rho = float(np.ldexp(np.max(np.abs(np.linalg.eigvals(np.ldexp(M, -top)))), top))
    if rho <= _SERIES_RHO:
        kmax = d + 60               # every simple cycle (length <= d) is reached, then its multiples fall as 8^k / k!
        logs = _walk_terms(M, kmax)
        finite = logs[np.isfinite(logs)]
        if finite.size == 0:
            return NotearsValue(0.0, -np.inf, "walk-series")
        top = finite.max()
        log_h = float(top + np.log(np.sum(np.exp(finite - top))))
        return NotearsValue(float(np.exp(log_h)), log_h, "walk-series")
    log_t, err = _log_trace_shifted_exp(M, rho)                           # log tr exp(M - rho I)
    log_h = rho + log_t + float(np.log1p(-d * np.exp(-rho - log_t)))
    if not err <= _NOTEARS_RTOL * abs(log_h):
        raise ParameterError(f"W: h(W) is not determined in float64 (W o W is too far from normal: its norm "
                             f"{np.max(M):.3g} dwarfs its spectral radius {rho:.3g}; log h known to +-{err:.3g})")
    with np.errstate(over="ignore"):
        h = float(np.exp(log_h))
    return NotearsValue(h, log_h, "shifted-expm")


_NOTEARS_RTOL = 1e-8
"""Largest relative error bound of ``log h`` that :func:`notears_h` returns (above it: ParameterError)."""


def _log_trace_shifted_exp(M: np.ndarray, rho: float) -> tuple[float, float]:
    """``log tr exp(M - rho I)`` of an entrywise nonnegative ``M`` by scaling and squaring: ``exp((M - rho I)/2^s)
    = e^(-rho/2^s) expm(M/2^s)`` with ``||M/2^s||_inf <= 1``, then ``s`` squarings, each renormalised by its largest
    entry (kept as a logarithm). Every factor is nonnegative, so no step cancels or overflows, and the products'
    entrywise relative errors (``<= d eps`` each) at most double with each squaring: the second value returned,
    ``2^s d eps``, bounds the absolute error of the logarithm (~ ``||M|| eps``: small beside ``rho`` unless M is
    far from normal)."""
    from scipy.linalg import expm

    s = max(0, int(np.frexp(np.max(M))[1]) + int(np.ceil(np.log2(len(M)))))
    B, log_scale = np.maximum(expm(np.ldexp(M, -s)), 0.0), -np.ldexp(rho, -s)      # exp((M - rho I)/2^s)
    for _ in range(s + 1):
        top = np.max(B)
        B, log_scale = B / top, log_scale + np.log(top)
        if _ == s:
            break
        B, log_scale = B @ B, 2 * log_scale
    return float(np.log(np.trace(B)) + log_scale), float(np.ldexp(len(M) * np.finfo(float).eps, s))


def dag_loss(W) -> float:
    """The authors' implemented DAG loss ``DL = |log(tr e^{W o W} / d)| = log1p(h / d)`` (PLGA §4.3; claim A13).

    Computed from :func:`notears_h` (``h = tr e^{W o W} - d >= 0``, so the absolute value is
    redundant): ``log1p(h/d)`` while ``h <= d``, ``log h - log d + log1p(d/h)`` above (finite
    where ``h`` overflows). It keeps full relative accuracy at the floor: for ``W = eps 1 1^T``
    (dk = 64, eps = 1e-9) ``DL = log1p(eps^2) = 1e-18``, where evaluating ``tr e^{W o W}`` first
    (the authors' eigenvalue route) returns ``1 + 1e-18 = 1`` in float64 and DL = 0.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> plga.dag_loss(np.zeros((3, 3)))                           # a DAG: no loss (PLGA §4.3)
    0.0
    >>> print(f"{plga.dag_loss(np.full((64, 64), 1e-9)):.3e}")   # log1p(eps^2) at the floor
    1.000e-18
    """
    M = _square("W", W)
    d = M.shape[-1]
    v = notears_h(M)
    if v.log_h == -np.inf:
        return 0.0
    excess = v.log_h - np.log(d)                                          # log(h / d)
    return float(np.log1p(np.exp(excess)) if excess <= 0 else excess + np.log1p(np.exp(-excess)))


@scalar_output
def dag_floor(dk, eps=EPS) -> np.ndarray:
    """``dk * eps^2``: the lower bound on h(W) when every entry of W is >= eps (claim A13).

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> print(f"{float(plga.dag_floor(64)):.3e}")                 # dk eps^2 at eps = 1e-9 (PLGA §4.3)
    6.400e-17
    """
    with np.errstate(over="ignore"):
        return finite_result("dk, eps", real_array("dk", dk, low=1) * real_array("eps", eps, low=0) ** 2)



__all__ = [
    "NotearsValue", "walk_terms", "notears_h", "dag_loss", "dag_floor"
]

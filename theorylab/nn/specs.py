"""Head specs of the NumPy transformer: which attention a head computes, frozen and validated once.

One frozen dataclass per head family (the data that :mod:`theorylab.nn.attention` computes with):

* :class:`SDPA` -- scaled dot-product attention with RoPE;
* :class:`PSA` -- Phase Space Attention (PSA §4): couplings ``(g_q, g_k)`` of the sheared streams
  ``x + g p`` (symmetric ``g_q = g_k``, key-only ``g_q = 0``, query-only ``g_k = 0``; the order
  lattice members by :meth:`PSA.member`), placement ``post-rope`` (paper) or ``pre-rope``;
* :class:`TwoTap` -- general causal two-tap filters ``b0 x_t + b1 x_{t-1}`` (PSA §4.2, §7.5), the
  shear at coupling g being the taps ``(1 + g, -g)`` (``psa.shear.stream_taps``);
* :class:`Graded` -- one EG-MHSA head (GLLM §3.1): grades ``q``, base ``lam > 1``, optional clip ``C``
  (``lam^q <= C``, §8.1.1), whose diagonal ``M = diag(lam^q)`` is :func:`grading_diag`;
* :class:`PLGA` -- one PLGA head (PLGA eqs. 3.2-3.9): the parameters of ``G_LM`` and the Gram
  convention ``"global"`` (eq. 3.2) or ``"cumulative"`` (eq. 4.16), :data:`GRAMS`.

Conventions: ``base`` is the RoPE base (``10000`` unless given; ``None`` means no RoPE); couplings that
are integers up to 2^53 stay exact integers, other reals become floats (as ``psa.shear`` computes).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from theorylab.errors import ParameterError, choice, real_array, real_scalar
from theorylab.graded.attention import grading_matrix
from theorylab.graded.optimal import clip_bound
from theorylab.plga import operator as plga
from theorylab.psa import shear as psa

GRAMS = ("global", "cumulative")


# ------------------------------------------------------------------------------ head specs
@dataclass(frozen=True)
class SDPA:
    """Scaled dot-product attention with RoPE: ``softmax(R q (R k)^T / sqrt(dk)) v``."""

    base: float | None = 10000.0

    def __post_init__(self):
        _rope_base(self.base)


def _rope_base(base) -> None:
    """``base``: None (no RoPE) or a real number > 1."""
    if base is not None:
        real_array("base", base, low=1, low_inclusive=False)
        if np.ndim(base):
            raise ParameterError(f"base must be None or a single real number > 1 (got shape {np.shape(base)})")


def _scalar(name: str, value) -> float:
    v = real_array(name, value)
    if v.ndim:
        raise ParameterError(f"{name} must be a single real number (got shape {v.shape})")
    return float(v)


def _coupling(name: str, value) -> int | float:
    """A validated coupling as ``psa.shear`` computes with it: integers up to 2^53 stay exact, other reals float."""
    v = _scalar(name, value)
    return int(value) if isinstance(value, numbers.Integral) and abs(int(value)) <= 2 ** 53 else v


@dataclass(frozen=True)
class PSA:
    """Phase Space Attention (PSA §4): sheared post-RoPE streams ``x + g p``.

    ``g_q``, ``g_k`` are the query and key couplings; build the lattice members with
    :meth:`member`. ``placement`` is ``"post-rope"`` (the paper's) or ``"pre-rope"``.
    """

    g_q: float = 0.0
    g_k: float = 0.0
    placement: str = "post-rope"
    base: float | None = 10000.0

    def __post_init__(self):
        object.__setattr__(self, "g_q", _coupling("g_q", self.g_q))
        object.__setattr__(self, "g_k", _coupling("g_k", self.g_k))
        choice("placement", self.placement, psa.PLACEMENTS)
        _rope_base(self.base)

    @classmethod
    def member(cls, name: str, g: float, placement: str = "post-rope", base: float | None = 10000.0) -> "PSA":
        """Order-lattice member ``name`` (standard, query-only, key-only, symmetric) at coupling g."""
        g_q, g_k = psa.lattice_couplings(name, _scalar("g", g))
        return cls(float(g_q), float(g_k), placement, base)


@dataclass(frozen=True, eq=False)
class Graded:
    """One EG-MHSA head (GLLM §3.1): grades ``q`` (dk,), base ``lam > 1``, optional clip ``C >= 1``."""

    grades: np.ndarray
    lam: float
    clip: float | None = None
    base: float | None = 10000.0

    def __post_init__(self):
        if real_array("grades", self.grades, low=0).ndim != 1:
            raise ParameterError(f"grades must be a 1-D vector of dk grades (got shape {np.shape(self.grades)})")
        _scalar("lam", self.lam)
        real_array("lam", self.lam, low=1, low_inclusive=False)
        if self.clip is not None:
            clip_bound(self.clip)
        _rope_base(self.base)
        diag = grading_diag(self.grades, self.lam, self.clip)          # computed (and checked) once
        diag.flags.writeable = False
        object.__setattr__(self, "_diag", diag)

    @property
    def diag(self) -> np.ndarray:
        """Diagonal of ``M = diag(lam^q)``, clipped to ``lam^q <= clip`` (GLLM §3.1, §8.1.1); read-only."""
        return self._diag


@dataclass(frozen=True, eq=False)
class PLGA:
    """One PLGA head (PLGA eqs. 3.2-3.9): parameters of ``G_LM`` and the Gram convention."""

    params: plga.PLGAParams
    gram: str = "global"
    base: float | None = 10000.0

    def __post_init__(self):
        if not isinstance(self.params, plga.PLGAParams):
            raise ParameterError(f"params must be PLGAParams (from plga.operator.init_params; got "
                                 f"{type(self.params).__name__})")
        choice("gram", self.gram, GRAMS)
        _rope_base(self.base)


@dataclass(frozen=True, eq=False)
class TwoTap:
    """Causal two-tap filters ``b0 x_t + b1 x_{t-1}`` on the query and key streams (PSA §4.2, §7.5).

    ``q_taps``, ``k_taps`` are ``(b0, b1)`` (arrays of two reals: learnable in
    ``theorylab.nn.train``); ``x_{-1} = x_0`` (zero momentum at position 0, as PSA). The
    shear at coupling g is the taps ``(1 + g, -g)``; identity is ``(1, 0)``. ``placement``
    is ``"post-rope"`` (filter the rotated stream) or ``"pre-rope"``. Values are untouched.
    """

    q_taps: np.ndarray
    k_taps: np.ndarray
    placement: str = "post-rope"
    base: float | None = 10000.0

    def __post_init__(self):
        for name in ("q_taps", "k_taps"):
            taps = real_array(name, getattr(self, name))
            if taps.shape != (2,):
                raise ParameterError(f"{name} must be two real taps (b0, b1) (got shape {taps.shape})")
            object.__setattr__(self, name, taps)
        choice("placement", self.placement, psa.PLACEMENTS)
        _rope_base(self.base)

    @classmethod
    def shear(cls, g_q: float, g_k: float, placement: str = "post-rope", base: float | None = 10000.0) -> "TwoTap":
        """The PSA shear with couplings ``(g_q, g_k)`` written as taps ``(1 + g, -g)``."""
        return cls(np.array(psa.stream_taps(_scalar("g_q", g_q))), np.array(psa.stream_taps(_scalar("g_k", g_k))),
                   placement, base)


HeadSpec = SDPA | PSA | TwoTap | Graded | PLGA


def grading_diag(grades, lam: float, clip: float | None = None) -> np.ndarray:
    """Diagonal of ``graded.attention.grading_matrix`` with grades clipped so that ``lam^q <= clip``.

    The clip (GLLM §3.1, §8.1.1: ``lambda^q_max <= C``) caps each grade at ``log_lam(C)``.

    Examples
    --------
    >>> import theorylab.nn as nn
    >>> nn.grading_diag([0, 1, 2], 2.0).tolist(), nn.grading_diag([0, 1, 2], 2.0, clip=3.0).tolist()
    ([1.0, 2.0, 4.0], [1.0, 2.0, 3.0])
    """
    q = real_array("grades", grades, low=0)                             # [dk] grades
    lam = real_scalar("lam", lam, low=1, low_inclusive=False)
    if clip is not None:
        q = np.minimum(q, np.log(clip_bound(clip)) / np.log(lam))      # [dk] lam^q <= clip
    return np.diag(grading_matrix(q, lam))                              # [dk] lam^q


def _spec(spec) -> HeadSpec:
    if not isinstance(spec, HeadSpec):
        raise ParameterError(f"spec must be a head spec (SDPA, PSA, TwoTap, Graded or PLGA; got "
                             f"{type(spec).__name__})")
    return spec


__all__ = ["GRAMS", "SDPA", "PSA", "TwoTap", "Graded", "PLGA", "HeadSpec", "grading_diag"]

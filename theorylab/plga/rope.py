"""The RoPE commutant and the rotary twirl (PLGA Prop. 4.1, Lemma 5.9, Appendix D; claims A6, A12).

An operator ``G`` gives offset-only scores ``q^T R_t^T G R_s k`` under nonresonant frequencies iff it
commutes with the rotations; averaging ``R_n G R_n^T`` over positions (the twirl) converges to the
orthogonal projection onto that commutant within ``C_Theta / S``.

Conventions (named here, explained in docs/plga.md)
---------------------------------------------------
* RoPE planes are adjacent coordinate pairs ``(2j, 2j+1)``; the commutant of the
  rotations (Prop. 4.1) is then block-diagonal with 2x2 blocks ``c I + s J``,
  ``J = [[0, -1], [1, 0]]``.
* The rotations are PSA's (:func:`theorylab.psa.rotary.rotate_pairs`), the one stated exception to
  the papers' independence.
* Difference frequencies are listed per unordered plane pair (ours) or per ordered pair (the
  authors' audit): ``PAIR_SETS``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab._results import scalar_output
from theorylab.errors import ParameterError, check_memory, choice, finite_output, positive_int, real_array
from theorylab.plga._validate import _square


J2 = np.array([[0.0, -1.0], [1.0, 0.0]])
"""The 2x2 rotation generator J spanning, with I, each commutant block (Prop. 4.1)."""



def commutant_projection(G) -> np.ndarray:
    """Orthogonal (Frobenius) projection onto the RoPE commutant (Prop. 4.1, Lemma 5.9; claim A12).

    Off-diagonal 2x2 blocks are zeroed; each diagonal block ``B`` becomes
    ``(tr B / 2) I + ((B10 - B01) / 2) J``. Planes are adjacent pairs (2j, 2j+1);
    requires even dk. Works on stacks (..., dk, dk).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> G = np.arange(16.0).reshape(4, 4)                        # PLGA Prop. 4.1, Lemma 5.9
    >>> plga.commutant_projection(G)
    array([[ 2.5, -1.5,  0. ,  0. ],
           [ 1.5,  2.5,  0. ,  0. ],
           [ 0. ,  0. , 12.5, -1.5],
           [ 0. ,  0. ,  1.5, 12.5]])
    """
    G = _square("G", G)
    dk = G.shape[-1]
    if dk % 2:
        raise ParameterError(f"G must have an even size dk (got {dk})")
    out = np.zeros_like(G)
    for j in range(0, dk, 2):
        c = 0.5 * G[..., j, j] + 0.5 * G[..., j + 1, j + 1]          # = 0.5 (a + b), exactly, and no overflow
        s = 0.5 * G[..., j + 1, j] - 0.5 * G[..., j, j + 1]
        out[..., j, j] = out[..., j + 1, j + 1] = c
        out[..., j + 1, j], out[..., j, j + 1] = s, -s
    return out


@scalar_output
def off_commutant_residual(G) -> np.ndarray:
    """``||G - Pi(G)||_F / ||G||_F`` (0 for G = 0) (PLGA Appendix D diagnostic; claim A12).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> float(plga.off_commutant_residual(np.eye(4)))             # I commutes with RoPE (PLGA Prop. 4.1)
    0.0
    >>> round(float(plga.off_commutant_residual(np.arange(16.0).reshape(4, 4))), 4)
    0.8548
    """
    G = _square("G", G, exact=False)
    if G.shape[-1] % 2:
        raise ParameterError(f"G must have an even size dk (got {G.shape[-1]})")
    G = np.ldexp(G, -np.frexp(np.max(np.abs(G), axis=(-2, -1), keepdims=True))[1])   # scale invariant: exact rescale
    num = np.linalg.norm(G - commutant_projection(G), axis=(-2, -1))
    den = np.linalg.norm(G, axis=(-2, -1))
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def plane_rotations(freqs, positions) -> np.ndarray:
    """RoPE rotations ``R_n`` as matrices, shape (len(positions), dk, dk): the library's
    :func:`theorylab.psa.rotary.rotate_pairs` (planes (2j, 2j+1), angle n*theta_j) applied to a basis.

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> R = plga.plane_rotations([np.pi / 2], positions=[1, 2])  # RoPE R_n, angle n theta (PLGA §4, Prop. 4.1)
    >>> R.round(4) + 0.0                                          # + 0.0 clears signed zeros
    array([[[ 0., -1.],
            [ 1.,  0.]],
    <BLANKLINE>
           [[-1.,  0.],
            [ 0., -1.]]])
    """
    from theorylab.psa import rotary

    freqs = real_array("freqs", freqs)
    n = np.atleast_1d(real_array("positions", positions))
    if freqs.ndim != 1 or n.ndim != 1:
        raise ParameterError(f"freqs and positions must be 1-D (got shapes {freqs.shape} and {n.shape})")
    dk = 2 * freqs.size
    check_memory("freqs, positions", 3 * 8 * n.size * dk * dk)
    cos, sin = rotary.rope_tables(n.size, freqs, n)
    basis = np.broadcast_to(np.eye(dk)[:, None, :], (dk, n.size, dk))      # basis[j, n] = e_j
    return np.transpose(rotary.rotate_pairs(basis, cos, sin), (1, 2, 0))      # [n, :, j] = R_n e_j


@finite_output("M")
def position_twirl(M, freqs, S: int) -> np.ndarray:
    """``(1/S) sum_{n=1}^S R_n M R_n^T`` computed by direct summation (Lemma 5.9; claim A12).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> M = np.array([[1.0, 0.0], [0.0, 0.0]])
    >>> plga.position_twirl(M, [np.pi / 2], S=4).round(4) + 0.0    # averages to the commutant (PLGA Lemma 5.9)
    array([[0.5, 0. ],
           [0. , 0.5]])
    >>> plga.commutant_projection(M) + 0.0
    array([[0.5, 0. ],
           [0. , 0.5]])
    """
    M = _square("M", M, single=True, exact=False)
    S = positive_int("S", S)
    freqs = real_array("freqs", freqs)
    if 2 * freqs.size != M.shape[0]:
        raise ParameterError(f"freqs must hold dk/2 = {M.shape[0] // 2} frequencies for M of size {M.shape[0]} "
                             f"(got {np.size(freqs)})")
    R = plane_rotations(freqs, np.arange(1, S + 1))
    return (R @ M @ np.swapaxes(R, -1, -2)).sum(axis=0) / S                # (dk, dk)


PAIR_SETS = ("unordered", "ordered")
"""How the twirl's difference frequencies are listed: each distinct frequency once (ours), or over ordered plane
pairs a != b as in the authors' audit (``build_freqs``), which counts every cross-plane frequency twice."""


def _frequencies(freqs) -> np.ndarray:
    """RoPE frequencies: a 1-D array of finite reals whose doubles and pairwise sums stay finite."""
    th = real_array("freqs", freqs, low=-1e300, high=1e300)
    if th.ndim != 1:
        raise ParameterError(f"freqs must be a 1-D array of frequencies (got shape {th.shape})")
    return th


def twirl_frequencies(freqs, pairs: str = "unordered") -> np.ndarray:
    """The nonzero difference frequencies of the position twirl (Lemma 5.9): ``2 theta_a`` and ``theta_a +- theta_b``.

    ``pairs = "unordered"`` (ours): planes a < b, each frequency once: ``dk/2 + 2 C(dk/2, 2) = dk^2/4``
    entries (1024 at dk = 64). ``"ordered"`` (the authors' audit): planes a != b, so every cross-plane
    frequency twice: ``dk/2 + dk/2 (dk/2 - 1) 2`` entries (2016 at dk = 64). The ordered list is the
    entry weighting: of the ``dk^2 - dk`` off-commutant entries of a matrix in the RoPE eigenbasis,
    ``2`` carry each in-plane frequency and ``4`` each cross-plane one, half of that per ordered list
    entry. C_Theta is the same for both; medians and fractions are not (docs/plga.md).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> plga.twirl_frequencies([1.0, 0.1])                        # 2 theta_a, theta_a +- theta_b (PLGA Lemma 5.9)
    array([2. , 0.2, 1.1, 0.9])
    >>> plga.twirl_frequencies([1.0, 0.1], pairs="ordered").size
    6
    """
    th = _frequencies(freqs)
    choice("pairs", pairs, PAIR_SETS)
    iu = np.triu_indices(th.size, 1)                                     # empty for one plane
    diffs = [2 * th, th[iu[0]] + th[iu[1]], th[iu[0]] - th[iu[1]]]
    if pairs == "ordered":
        diffs += diffs[1:]
    return np.abs(np.concatenate(diffs))


@scalar_output
def twirl_multiplier(omega, S: int) -> np.ndarray:
    """``|(1/S) sum_{n=1}^S e^{i omega n}| = |sin(S omega/2)| / (S |sin(omega/2)|)``: the factor by which the length-S
    position twirl multiplies the frequency-omega component (Lemma 5.9); 1 at a resonance ``sin(omega/2) = 0``.
    It is at most ``min(1, 1/(S |sin(omega/2)|))`` (the Lean ``geom_orbit_bound``).

    Examples
    --------
    >>> import numpy as np
    >>> import theorylab.plga as plga
    >>> plga.twirl_multiplier(np.array([0.0, np.pi, 0.1]), S=4).round(4)   # PLGA Lemma 5.9
    array([1.    , 0.    , 0.9938])
    """
    omega = np.remainder(real_array("omega", omega), 2 * np.pi)          # 2 pi-periodic: no overflow in S omega
    S = positive_int("S", S)
    den = S * np.abs(np.sin(omega / 2))
    return np.divide(np.abs(np.sin(S * omega / 2)), den, out=np.ones_like(den), where=den > 0)


@dataclass(frozen=True)
class TwirlStatistics:
    """The multipliers of one twirl length over one frequency list (the authors' audit table, ``twirl_analytic``)."""

    S: int
    pairs: str
    n: int                   # number of frequencies listed (1024 unordered, 2016 ordered at dk = 64)
    worst: float             # largest multiplier
    median: float
    below_0_1: float         # fraction of multipliers < 0.1
    below_0_01: float        # fraction < 0.01
    slowest_in_plane: float  # multiplier of the smallest in-plane frequency 2 min(theta)
    bound: float             # C_Theta / S, Lemma 5.9's uniform bound on the multipliers


def twirl_statistics(freqs, S: int, pairs: str = "unordered") -> TwirlStatistics:
    """:class:`TwirlStatistics` of the length-``S`` twirl over :func:`twirl_frequencies` ``(freqs, pairs)``.

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> st = plga.twirl_statistics([1.0, 0.1], S=64)               # PLGA Lemma 5.9
    >>> st.n, round(st.worst, 4), round(st.bound, 4)
    (4, 0.0182, 0.1565)
    """
    th = _frequencies(freqs)
    m = twirl_multiplier(twirl_frequencies(th, pairs), S)
    return TwirlStatistics(int(S), pairs, int(m.size), float(m.max()), float(np.median(m)),
                           float(np.mean(m < 0.1)), float(np.mean(m < 0.01)),
                           float(twirl_multiplier(2 * th.min(), S)), twirl_constant(th) / S)


def twirl_constant(freqs) -> float:
    """``C_Theta = max_{omega != 0} 1/|sin(omega/2)|`` over the difference frequencies
    ``2 theta_a`` and ``theta_a +- theta_b`` (Lemma 5.9); ``inf`` if any is resonant.

    Examples
    --------
    >>> import theorylab.plga as plga
    >>> round(plga.twirl_constant([1.0, 0.1]), 4)                 # max 1/|sin(omega/2)| (PLGA Lemma 5.9)
    10.0167
    """
    th = _frequencies(freqs)
    s = np.abs(np.sin(twirl_frequencies(th) / 2))
    return float(np.inf if np.any(s == 0) else 1.0 / s.min())



__all__ = [
    "J2", "commutant_projection", "off_commutant_residual", "plane_rotations", "position_twirl", "PAIR_SETS",
    "twirl_frequencies", "twirl_multiplier", "TwirlStatistics", "twirl_statistics", "twirl_constant"
]

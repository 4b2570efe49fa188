"""Reference PLGA operator and its structural quantities, from the PLGA paper's equations.

Independent of ``theorylab`` (NumPy, SciPy, mpmath only). Equations (PLGA §3.1, §2.2, §5.3, §5.4.1):

    iSwiGLU(u) = u^2 sigma(u)                          (3.1)
    D_Q  = Q~^T Q~                                      (3.2)  rotated queries Q~ (Def. 4.3)
    A    = Phi_res(LN(D_Q))                             (3.3)
    A_LM = iSwiGLU(W A + b_W) + eps                     (3.4)
    A_P  = A_LM^(.P) = exp(P o log A_LM)                (3.5), §2.2 (entrywise power, via exp/log here)
    G_LM = a A_P + b_a                                  (3.6)
    E    = Q~ G_LM K~^T / sqrt(dk)                      (3.7)

Conventions the paper leaves open are the ones the library documents (docs/plga.md), so the mapping
to the library is the identity: LayerNorm acts on each row of D_Q (population variance, eps_LN
inside the square root, affine gamma, beta per column); Phi_res is a stack of residual units applied to
every row, either the authors' ``r -> LN(GLU(...GLU(r)) + r)`` or the additive ``r -> r + silu(r W1 + b1) W2 + b2``
(:func:`residual_unit`); ``W`` and ``a`` act from the left;
RoPE planes are the coordinate pairs (2j, 2j+1).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import mpmath as mp
import numpy as np
from scipy.special import expit


@dataclass(frozen=True, eq=False)
class Psi:
    """Parameters of the map Psi: D_Q -> G_LM (eqs. 3.3-3.6); ``units`` as in :func:`residual_unit`."""

    W: np.ndarray
    b_W: np.ndarray
    P: np.ndarray
    a: np.ndarray
    b_a: np.ndarray
    units: tuple
    gamma: np.ndarray
    beta: np.ndarray
    eps: float
    eps_ln: float


# ------------------------------------------------------------------------------ the operator (3.1)-(3.7)
def iswiglu(u):
    """``u^2 sigma(u)`` with SciPy's logistic ``expit`` (eq. 3.1)."""
    u = np.asarray(u, dtype=float)
    return u * u * expit(u)


def layer_norm_rows(X, gamma=None, beta=None, eps: float = 1e-6) -> np.ndarray:
    """Row-wise LayerNorm: each row minus its mean, over sqrt(population variance + eps), then affine."""
    X = np.asarray(X, dtype=float)
    mean = X.sum(axis=-1, keepdims=True) / X.shape[-1]
    var = ((X - mean) ** 2).sum(axis=-1, keepdims=True) / X.shape[-1]
    out = (X - mean) / np.sqrt(var + eps)
    return out * (1.0 if gamma is None else gamma) + (0.0 if beta is None else beta)


def layer_norm_rows_mp(X, eps: float, dps: int = 40) -> np.ndarray:
    """The same LayerNorm (no affine) evaluated row by row in mpmath at ``dps`` digits, returned as floats."""
    X = np.asarray(X, dtype=float)
    out = np.empty_like(X)
    with mp.workdps(dps):
        for idx in np.ndindex(X.shape[:-1]):
            row = [mp.mpf(float(v)) for v in X[idx]]
            mean = mp.fsum(row) / len(row)
            var = mp.fsum((v - mean) ** 2 for v in row) / len(row)
            scale = mp.sqrt(var + mp.mpf(eps))
            out[idx] = [float((v - mean) / scale) for v in row]
    return out


def silu(u):
    return np.asarray(u, dtype=float) * expit(u)


def glu(A, W1, b1, W2, b2, W3, b3) -> np.ndarray:
    """The gated linear unit ``GLU(x) = W3(silu(W1 x + b1) * (W2 x + b2)) + b3`` on the rows of ``A``."""
    return (silu(A @ W1 + b1) * (A @ W2 + b2)) @ W3 + b3


def residual_unit(A, unit, eps_ln: float) -> np.ndarray:
    """One residual unit of Phi_res on the rows of ``A``.

    ``unit`` is a 4-tuple ``(W1, b1, W2, b2)``: the additive unit ``r + silu(r W1 + b1) W2 + b2``; or a dict with
    ``glus`` (6-tuples ``(W1, b1, W2, b2, W3, b3)``), ``gamma``, ``beta``: the unit of the authors' public model code
    (``ResLayerA.ResUnit``), ``LayerNorm(GLU_m(... GLU_1(r)) + r)`` with the gated linear unit
    ``GLU(x) = W3(silu(W1 x + b1) * (W2 x + b2)) + b3`` written here for row vectors, one gated unit at a time.
    """
    if isinstance(unit, dict):
        h = A
        for weights in unit["glus"]:
            h = glu(h, *weights)
        return layer_norm_rows(h + A, unit["gamma"], unit["beta"], eps_ln)
    W1, b1, W2, b2 = unit
    return A + silu(A @ W1 + b1) @ W2 + b2


def stages(D, p: Psi) -> dict[str, np.ndarray]:
    """Every tensor of eqs. 3.3-3.6 for one density operator ``D`` (dk, dk)."""
    A = layer_norm_rows(D, p.gamma, p.beta, p.eps_ln)
    for unit in p.units:                                            # Phi_res, one residual unit at a time
        A = residual_unit(A, unit, p.eps_ln)
    U = p.W @ A + p.b_W
    A_LM = iswiglu(U) + p.eps
    A_P = np.exp(p.P * np.log(A_LM))                                # §2.2: M^(.P) = exp(P o log M)
    return {"A": A, "U": U, "A_LM": A_LM, "A_P": A_P, "G": p.a @ A_P + p.b_a}


def g_lm(q_rot, p: Psi) -> np.ndarray:
    """``G_LM`` of the global Gram ``D_Q = Q~^T Q~`` of the rotated queries (S, dk)."""
    q = np.asarray(q_rot, dtype=float)
    return stages(q.T @ q, p)["G"]


def g_lm_cumulative(q_rot, p: Psi) -> np.ndarray:
    """``G^(t) = Psi(sum_{n<=t} q~_n q~_n^T)`` for every t (PLGA eq. 4.16), shape (S, dk, dk)."""
    q = np.asarray(q_rot, dtype=float)
    return np.stack([g_lm(q[:t + 1], p) for t in range(len(q))])


# ------------------------------------------------------------------------------ order parameter, stability
def order_parameter(D1, D2) -> float:
    """``m = ||D1 - D2||_rms / (0.5 (||D1||_rms + ||D2||_rms))`` (Def. 5.1), 0 when both vanish; mpmath sums."""
    def rms(X):
        X = np.asarray(X, dtype=float).ravel()
        return mp.sqrt(mp.fsum(mp.mpf(float(v)) ** 2 for v in X) / len(X))

    with mp.workdps(30):
        den = (rms(D1) + rms(D2)) / 2
        return 0.0 if den == 0 else float(rms(np.asarray(D1, float) - np.asarray(D2, float)) / den)


def spectral_norm(M) -> float:
    """Largest singular value, as the square root of the top eigenvalue of ``M^T M``."""
    M = np.asarray(M, dtype=float)
    return float(np.sqrt(max(np.linalg.eigvalsh(M.T @ M).max(), 0.0)))


def row_perturbation_bound(q_t, K, dG) -> float:
    """PLGA §5.3: ``||Delta e_t||_2 <= ||q~_t|| ||G - G'||_2 ||K~||_2 / sqrt(dk)`` (the score-row bound)."""
    q_t = np.asarray(q_t, dtype=float)
    return float(np.sqrt(q_t @ q_t) * spectral_norm(dG) * spectral_norm(K) / np.sqrt(q_t.size))


def perron_root(M, iterations: int = 20000, tol: float = 1e-15) -> tuple[float, np.ndarray]:
    """Perron root and vector (sum 1) of an entrywise positive matrix by power iteration."""
    M = np.asarray(M, dtype=float)
    v = np.full(len(M), 1.0 / len(M))
    rho = 0.0
    for _ in range(iterations):
        w = M @ v
        rho_new, w = w.sum(), w / w.sum()                            # v sums to 1, so sum(Mv) -> rho
        done = np.max(np.abs(w - v)) <= tol * np.max(np.abs(w)) and abs(rho_new - rho) <= tol * rho_new
        v, rho = w, rho_new
        if done:
            break
    return float(rho), v


# ------------------------------------------------------------------------------ rotary twirl (Lemma 5.9)
def rotations(freqs, positions) -> np.ndarray:
    """RoPE rotation matrices ``R_n`` (len(positions), dk, dk): plane j = coordinates (2j, 2j+1) rotated by
    angle n theta_j, i.e. the block [[cos, -sin], [sin, cos]] (RoFormer eq. 34)."""
    freqs, n = np.asarray(freqs, dtype=float), np.atleast_1d(np.asarray(positions, dtype=float))
    R = np.zeros((len(n), 2 * len(freqs), 2 * len(freqs)))
    for j, theta in enumerate(freqs):
        c, s = np.cos(n * theta), np.sin(n * theta)
        R[:, 2 * j, 2 * j], R[:, 2 * j, 2 * j + 1] = c, -s
        R[:, 2 * j + 1, 2 * j], R[:, 2 * j + 1, 2 * j + 1] = s, c
    return R


def position_twirl(M, freqs, S: int) -> np.ndarray:
    """``(1/S) sum_{n=1}^S R_n M R_n^T`` (Lemma 5.9), summed in a loop."""
    M = np.asarray(M, dtype=float)
    total = np.zeros_like(M)
    for R in rotations(freqs, np.arange(1, S + 1)):
        total += R @ M @ R.T
    return total / S


def haar_projection(G) -> np.ndarray:
    """The torus (Haar) average of ``R G R^T``, exactly, as a 3-point average per plane.

    Conjugation puts frequencies in ``{0, +-2 phi_a, +-(phi_a +- phi_b)}`` on the entries; the
    3-point grid ``phi in {0, 2 pi/3, 4 pi/3}`` (independently per plane) averages every nonzero
    one of them to 0 and keeps the zero-frequency part: the orthogonal projection onto the
    commutant (Prop. 4.1, Lemma 5.9).
    """
    G = np.asarray(G, dtype=float)
    planes = G.shape[-1] // 2
    grid = 2 * np.pi * np.arange(3) / 3
    total = np.zeros_like(G)
    for angles in product(grid, repeat=planes):
        R = rotations(np.asarray(angles), [1.0])[0]
        total += R @ G @ R.T
    return total / 3 ** planes


def difference_frequencies(freqs) -> list:
    """The nonzero frequencies of the twirl: ``2 theta_a`` and ``theta_a +- theta_b`` (a < b), with their
    plane pair and type (Lemma 5.9's proof)."""
    out = [(2 * t, (a, a), "2theta") for a, t in enumerate(freqs)]
    for a, b in ((a, b) for a in range(len(freqs)) for b in range(a + 1, len(freqs))):
        out += [(freqs[a] + freqs[b], (a, b), "sum"), (freqs[a] - freqs[b], (a, b), "difference")]
    return out


def twirl_constant(freqs, dps: int = 40) -> float:
    """``C_Theta = max_{omega != 0} 1/|sin(omega/2)|`` over :func:`difference_frequencies`, in mpmath.

    ``freqs`` may be floats or mpmath numbers (exact frequencies: :func:`rope_frequencies_mp`)."""
    with mp.workdps(dps):
        return float(max(1 / abs(mp.sin(mp.mpf(w) / 2)) for w, _, _ in difference_frequencies(list(freqs))))


def rope_frequencies_mp(d: int, base, dps: int = 40) -> list:
    """``theta_i = base^(-2i/d)`` in mpmath at ``dps`` digits (exact input to :func:`twirl_constant`)."""
    with mp.workdps(dps):
        return [mp.power(mp.mpf(base), -mp.mpf(2 * i) / d) for i in range(d // 2)]


def extremal_twirl_input(freqs) -> tuple[np.ndarray, float]:
    """A matrix ``M`` (||M||_F = sqrt 2, Pi(M) = 0) that the twirl sees at the worst frequency only, and that
    frequency: the block of planes (a, b) is I_2 (frequency theta_a - theta_b) or diag(1, -1) (theta_a + theta_b,
    or 2 theta_a on a diagonal block). Its twirl error is exactly ``|sin(S w/2)| / (S |sin(w/2)|) ||M||_F``."""
    omega, (a, b), kind = min(difference_frequencies(list(freqs)), key=lambda f: abs(np.sin(f[0] / 2)))
    M = np.zeros((2 * len(freqs), 2 * len(freqs)))
    M[2 * a:2 * a + 2, 2 * b:2 * b + 2] = np.eye(2) if kind == "difference" else np.diag([1.0, -1.0])
    return M, float(omega)

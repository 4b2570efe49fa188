"""The selection ladder of the GLLM paper (Table 2, §6.5, §8.1.4) in the graded linear model:
designs, the pilot sample, its profile estimates (§7.2) and the six arms as grade constructors.

Every arm is a vector of *level* grades ``g_l = lambda^(v_l)`` (one grade per level ``V_l``,
constant on the level), so the whole ladder lives in the level-stratified setting of Cor. 3,
Prop. 11 and Thm. 4.1; on coordinates ``g_j = g_l`` for ``j in V_l``.  Inner products and
``Lambda`` are evaluated on the level masses, which equals their value on coordinates for a
level-constant grade (Prop. 11, Rem. 9).

Named choices (the paper leaves them open; see docs/graded.md §8):

* Design (same conventions as :class:`theorylab.graded.envelope.StratifiedModel`): equal level
  sizes ``d_l = d/L``; data ``x ~ N(0, diag(tau))`` (total variance 1, so ``sigma_j^2 = tau_j``);
  unit-norm target ``w*_j = sqrt(alpha_j)``; ``y = <w*, x> + xi``, ``xi ~ N(0, sigma_xi^2)``.
* ``Q_BASE``: grades are reported as ``q = ln g`` (base ``lambda = e``).  ``<q, alpha - tau>``
  scales by ``1/ln(lambda)`` under another base, so the ranking of the arms does not depend on it.
* The clip: every arm's grades lie in ``[1, C]`` (``lambda^q_max <= C``, §6.3).
* ``PILOT_FIT``: the pilot sample (disjoint from every training sample, Rem. 10) gives
  ``tau_hat_j = S_jj / tr S`` from the second moments ``S = X^T X`` (the model's mean is known to be
  zero, so they are not centred) and ``alpha_hat_j = w_hat_j^2 / ||w_hat||^2`` with ``w_hat`` the
  least-squares fit of y on x (§7.2); both are pooled on the levels (Prop. 11, §7.5).
* ``PILOT_BLOCKS``: the pilot is drawn in this many blocks ("sentences", the resampling unit of the
  §7.2 bootstrap); each block keeps only its sufficient statistics ``(X^T X, X^T y)``, drawn exactly
  (Bartlett decomposition of the Wishart law, or row by row when a block has fewer than d rows).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorylab._results import scalar_output
from theorylab.errors import (ParameterError, check_memory, finite_result, integer_array, positive_int, real_array,
                              real_scalar, seed_int)
from theorylab.graded import grades, optimal

__all__ = ["ARMS", "Q_BASE", "PILOT_FIT", "PILOT_BLOCKS", "PILOT_MAX", "SIGMA_XI_MAX", "PEAKED",
           "LadderDesign", "profile_design", "geometric_design", "design_from_dict", "Pilot", "pilot_size",
           "draw_pilot", "estimate_levels", "pilot_estimates", "bootstrap_weights", "Arm", "uniform_arm",
           "random_arm", "taxonomic_arm", "proxy_arm", "educated_arm", "oracle_arm", "build_arms", "q_of"]

ARMS = ("uniform", "random", "taxonomic", "proxy", "educated", "oracle")
"""The rungs of Table 2, bottom to top (the paper's 'part-of-speech' rung is ``proxy``)."""
Q_BASE = "e"
PILOT_FIT = "least squares on the pilot; alpha_hat = w_hat^2/||w_hat||^2, tau_hat = diag(X^T X)/tr(X^T X); pooled on levels"
PILOT_BLOCKS = 64
PILOT_MAX = 2 ** 62
"""Largest pilot sample size :func:`draw_pilot` draws (its block sizes are int64 counts)."""
SIGMA_XI_MAX = 1.34e8
"""Largest noise standard deviation ``sigma_xi`` of a ladder design (``2^27 = 1.342e8`` rounded down).

The measurement (:mod:`theorylab.graded.ladder_sim`) needs the end of Lem. 4's window, ``m_ref = m_sat/2`` with
``m_sat = min_l d_l^2 sigma_xi^2 / s_l >= sigma_xi^2`` (``d_l >= 1``, ``s_l <= 1``), as a sample size of at
most ``2^53`` (exact in float64, ``theorylab.graded.ladder_sim.MAX_SIZE``): above ``2^27`` it is beyond that for
every design, so no larger ``sigma_xi`` can be measured (``sigma_xi^2`` itself overflows the float range from
1.3e154).  Below, a design whose own ``m_sat/2`` is beyond ``2^53`` is refused by
:func:`theorylab.graded.ladder_sim.reference_size`."""
PEAKED = ((0.10, 0.60, 0.20, 0.10), (0.40, 0.30, 0.20, 0.10))
"""A non-geometric pair of level profiles ``(a, s)`` (L = 4): the target peaks on level 1 (syntax),
the data variance decays linearly.  Here the taxonomic grading is first-order admissible
(``<q, a - s> > 0``) and yet ``Lambda > 1``: the first-order criterion and Lambda disagree."""


# --------------------------------------------------------------------------- designs
@dataclass(frozen=True)
class LadderDesign:
    """A level-stratified graded linear model (see the module conventions).

    ``a``, ``s``: level masses of the target and data profiles; ``dims``: level sizes;
    ``sigma_xi``: noise standard deviation; ``C``: the grade clip shared by every arm.
    """

    name: str
    a: np.ndarray
    s: np.ndarray
    dims: np.ndarray
    sigma_xi: float
    C: float

    @property
    def levels(self) -> int:
        return int(self.a.size)

    @property
    def d(self) -> int:
        return int(self.dims.sum())

    @property
    def alpha(self) -> np.ndarray:
        """Coordinate target profile ``alpha_j = a_l / d_l``."""
        return grades.expand_levels(self.a, self.dims)

    @property
    def tau(self) -> np.ndarray:
        """Coordinate data profile ``tau_j = s_l / d_l`` (also the variances sigma_j^2)."""
        return grades.expand_levels(self.s, self.dims)

    def target(self) -> np.ndarray:
        """The unit-norm target ``w*_j = sqrt(alpha_j)``."""
        return np.sqrt(self.alpha)

    @property
    def null_risk(self) -> float:
        """Excess risk of the zero predictor, ``||Sigma^(1/2) w*||^2 = sum_j tau_j alpha_j``."""
        return float(np.sum(self.tau * self.alpha))

    def coords(self, level_grades) -> np.ndarray:
        """Coordinate grades of level grades (one real number per level)."""
        g = real_array("level_grades", level_grades)
        if g.shape != self.dims.shape:
            raise ParameterError(f"level_grades must hold one grade per level ({self.levels}) (got shape {g.shape})")
        return np.repeat(g, self.dims)

    def as_dict(self) -> dict:
        return {"name": self.name, "a": self.a.tolist(), "s": self.s.tolist(), "dims": self.dims.tolist(),
                "sigma_xi": self.sigma_xi, "C": self.C}


def profile_design(a, s, d: int = 32, sigma_xi: float = 1.0, C: float = 2.0, name: str | None = None) -> LadderDesign:
    """A design from level profiles ``(a, s)`` (positive, summing to 1) on ``L = len(a)`` equal levels of a
    width-``d`` design (``d`` a multiple of L), noise ``0 < sigma_xi <= SIGMA_XI_MAX`` (1.34e8) and clip
    ``C >= 1``.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> design = gr.profile_design([0.1, 0.6, 0.2, 0.1], [0.4, 0.3, 0.2, 0.1], d=8)   # GLLM Table 2 ladder, §6.5
    >>> design.levels, design.dims, design.C
    (4, array([2, 2, 2, 2]), 2.0)
    >>> round(float(design.null_risk), 4)
    0.135
    """
    a, s = grades.profiles(a, s)
    L = a.size
    d = positive_int("d", d)
    if d % L:
        raise ParameterError(f"d must be a multiple of the number of levels {L} (equal level sizes); got d={d}")
    sigma_xi = real_scalar("sigma_xi", sigma_xi, low=0.0, low_inclusive=False, high=SIGMA_XI_MAX)
    C = optimal.clip_bound(C)
    label = name or "a=(" + ", ".join(f"{x:.3g}" for x in a) + "), s=(" + ", ".join(f"{x:.3g}" for x in s) + ")"
    return LadderDesign(label, a, s, np.full(L, d // L), sigma_xi, C)


def geometric_design(nu: float, mu: float, levels: int = 4, d: int = 32, sigma_xi: float = 1.0,
                     C: float = 2.0) -> LadderDesign:
    """The geometric level profiles of Cor. 3 (``a_l ~ nu^(L-1-l)``, ``s_l ~ mu^l``), as in Table 3.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> design = gr.geometric_design(0.5, 0.25, levels=2, d=8)      # GLLM Cor. 3, as in Table 3
    >>> design.name, design.a.round(4), design.s.round(4)
    ('geometric nu=0.5, mu=0.25', array([0.3333, 0.6667]), array([0.8, 0.2]))
    """
    a, s = grades.geometric_profiles(nu, mu, levels)
    return profile_design(a, s, d, sigma_xi, C, name=f"geometric nu={float(nu):g}, mu={float(mu):g}")


def design_from_dict(data: dict) -> LadderDesign:
    """Rebuild (and re-validate) a design from :meth:`LadderDesign.as_dict`.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> design = gr.geometric_design(0.5, 0.25, levels=2, d=8)      # GLLM Cor. 3
    >>> gr.design_from_dict(design.as_dict()).s.round(4)
    array([0.8, 0.2])
    """
    try:
        a, s, dims = data["a"], data["s"], np.atleast_1d(integer_array("dims", data["dims"], low=1))
        if dims.ndim != 1:
            raise ParameterError(f"dims must be a list of level sizes (got shape {dims.shape})")
        if not isinstance(data["name"], str):
            raise ParameterError(f"name must be a string (got {type(data['name']).__name__})")
        design = profile_design(a, s, int(np.sum(dims)), data["sigma_xi"], data["C"], name=data["name"])
    except (KeyError, TypeError) as exc:
        raise ParameterError(f"design: missing or malformed field ({exc})") from None
    except ParameterError as exc:
        raise ParameterError(f"design: {exc}") from None
    if design.dims.tolist() != list(dims):
        raise ParameterError(f"design: dims must be equal level sizes (got {list(dims)})")
    # validated; keep the recorded numbers bit for bit (no renormalisation)
    return LadderDesign(design.name, np.asarray(a, float), np.asarray(s, float), design.dims, design.sigma_xi,
                        design.C)


# --------------------------------------------------------------------------- the pilot sample (§7.2)
@dataclass(frozen=True)
class Pilot:
    """A pilot sample of ``n`` rows, kept as per-block sufficient statistics ``XtX`` (K, d, d), ``Xty`` (K, d)."""

    n: int
    seed: int
    XtX: np.ndarray
    Xty: np.ndarray


def _block_statistics(rng, design: LadderDesign, rows: int, sd: np.ndarray,
                      w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact draw of ``(X^T X, X^T y)`` for ``rows`` rows of the design, whose coordinate standard deviations
    ``sd = sqrt(tau)`` and target ``w`` the caller computes once for all blocks."""
    d = design.d
    if rows < d:
        X = rng.standard_normal((rows, d)) * sd
        y = X @ w + design.sigma_xi * rng.standard_normal(rows)
        return X.T @ X, X.T @ y
    # Bartlett: Z^T Z = A A^T with A lower triangular, A_ii^2 ~ chi2(rows - i), A_ij ~ N(0, 1) (i > j);
    # given Z, Z^T xi ~ N(0, sigma^2 Z^T Z) = sigma A u.  X = Z diag(sd).
    A = np.tril(rng.standard_normal((d, d)), -1)
    A[np.diag_indices(d)] = np.sqrt(rng.chisquare(rows - np.arange(d)))
    ZtZ = A @ A.T
    Ztxi = design.sigma_xi * (A @ rng.standard_normal(d))
    XtX = ZtZ * sd[:, None] * sd[None, :]
    return XtX, XtX @ w + sd * Ztxi


def pilot_size(design: LadderDesign, n) -> int:
    """Validate a pilot sample size for ``design``: an integer in ``[d + 1, PILOT_MAX]`` (``PILOT_MAX = 2^62``).

    The one check of ``n_pilot``, for the ``--n-pilot`` option and the field of a pre-registration file alike.

    Raises
    ------
    ParameterError
        Naming ``n_pilot`` and the range.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> design = gr.geometric_design(0.5, 0.25, levels=2, d=8)      # the pilot of GLLM §7.2
    >>> gr.pilot_size(design, 200)
    200
    >>> gr.pilot_size(design, 5)
    Traceback (most recent call last):
        ...
    theorylab.errors.ParameterError: n_pilot must be an integer in [9, 4611686018427387904] (got 5)
    """
    return positive_int("n_pilot", n, low=design.d + 1, high=PILOT_MAX)


def draw_pilot(design: LadderDesign, n: int, seed: int = 0, blocks: int = PILOT_BLOCKS) -> Pilot:
    """Draw a pilot sample of ``n`` rows (:func:`pilot_size`: ``d + 1`` to 2^62) in ``blocks`` blocks (stream
    ``SeedSequence(seed)``, ``seed`` in [0, 2^64)).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> design = gr.geometric_design(0.5, 0.25, levels=2, d=8)
    >>> pilot = gr.draw_pilot(design, 200, seed=0)                   # GLLM §7.2: 64 blocks of statistics
    >>> pilot.n, pilot.XtX.shape, pilot.Xty.shape
    (200, (64, 8, 8), (64, 8))
    """
    n = pilot_size(design, n)
    blocks = positive_int("blocks", blocks)
    seed = seed_int("seed", seed)
    check_memory("blocks", 8.0 * min(blocks, n) * (design.d + 2) * (design.d + 1))
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    sizes = np.full(min(blocks, n), n // min(blocks, n))
    sizes[: n % sizes.size] += 1
    sd, w = np.sqrt(design.tau), design.target()
    stats = [_block_statistics(rng, design, int(r), sd, w) for r in sizes]
    return Pilot(n, seed, np.stack([s[0] for s in stats]), np.stack([s[1] for s in stats]))


def estimate_levels(XtX, Xty, dims) -> tuple[np.ndarray, np.ndarray]:
    """Level profile estimates ``(a_hat, s_hat)`` from summed sufficient statistics (``PILOT_FIT``).

    ``XtX`` (d, d) and ``Xty`` (d,) are real; the profiles are scale invariant, so both are first scaled
    by powers of two (exact). Raises ParameterError when ``X^T X`` is singular (a pilot with fewer than
    d informative rows) or the fit is degenerate (a zero coefficient, ``diag X^T X`` not positive).

    Examples
    --------
    Exact statistics of the population (``X^T X = Sigma``, ``X^T y = Sigma w*``) return the true profiles
    (GLLM §7.2):

    >>> import numpy as np
    >>> import theorylab.graded as gr
    >>> tau = np.array([0.4, 0.4, 0.1, 0.1])
    >>> w = np.sqrt([0.1, 0.1, 0.4, 0.4])
    >>> a_hat, s_hat = gr.estimate_levels(np.diag(tau), tau * w, dims=[2, 2])
    >>> a_hat.round(4), s_hat.round(4)
    (array([0.2, 0.8]), array([0.8, 0.2]))
    """
    XtX, Xty = real_array("XtX", XtX), real_array("Xty", Xty)
    if XtX.ndim != 2 or XtX.shape != (Xty.size, Xty.size) or Xty.ndim != 1 or not Xty.size:
        raise ParameterError(f"XtX must be (d, d) and Xty (d,) (got shapes {XtX.shape} and {Xty.shape})")
    XtX = np.ldexp(XtX, -int(np.frexp(np.max(np.abs(XtX)))[1]))
    diag = np.diag(XtX)
    if np.any(diag <= 0):
        raise ParameterError(f"XtX must have a positive diagonal (second moments; got min {diag.min():g})")
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            w_hat = np.linalg.solve(XtX, np.ldexp(Xty, -int(np.frexp(np.max(np.abs(Xty)))[1])))
    except np.linalg.LinAlgError:
        raise ParameterError("the pilot's X^T X is singular: n_pilot must exceed the design width d") from None
    w_hat = finite_result("XtX, Xty", w_hat)
    w_hat = np.ldexp(w_hat, -int(np.frexp(np.max(np.abs(w_hat)))[1]))          # alpha_hat is scale invariant
    alpha_hat = w_hat ** 2 / np.sum(w_hat ** 2)
    tau_hat = diag / np.sum(diag)
    return grades.reduce_levels(alpha_hat, dims), grades.reduce_levels(tau_hat, dims)


def pilot_estimates(pilot: Pilot, dims, weights=None) -> tuple[np.ndarray, np.ndarray]:
    """``(a_hat, s_hat)`` of the pilot; ``weights`` (K,) >= 0 resample its blocks (the §7.2 bootstrap).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> design = gr.geometric_design(0.5, 0.25, levels=2, d=8)      # true a = (1/3, 2/3), s = (0.8, 0.2)
    >>> a_hat, s_hat = gr.pilot_estimates(gr.draw_pilot(design, 2000, seed=0), design.dims)   # GLLM §7.2
    >>> a_hat.round(1), s_hat.round(1)
    (array([0.3, 0.7]), array([0.8, 0.2]))
    """
    K = pilot.XtX.shape[0]
    w = np.ones(K) if weights is None else real_array("weights", weights, low=0)
    if w.shape != (K,) or not np.any(w > 0):
        raise ParameterError(f"weights must be {K} block weights >= 0, not all 0 (got shape {w.shape})")
    return estimate_levels(np.tensordot(w, pilot.XtX, 1), w @ pilot.Xty, dims)


def bootstrap_weights(pilot: Pilot, resamples: int, seed: int) -> np.ndarray:
    """Multinomial block counts (resamples, K) of the §7.2 bootstrap (resample the blocks with replacement).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> design = gr.geometric_design(0.5, 0.25, levels=2, d=8)
    >>> w = gr.bootstrap_weights(gr.draw_pilot(design, 200, seed=0), resamples=3, seed=1)   # GLLM §7.2
    >>> w.shape, w.sum(axis=1)
    ((3, 64), array([64, 64, 64]))
    """
    K = pilot.XtX.shape[0]
    resamples = positive_int("bootstrap", resamples)
    check_memory("bootstrap", 8.0 * resamples * K)
    rng = np.random.default_rng(np.random.SeedSequence(seed_int("seed", seed), spawn_key=(1,)))
    return rng.multinomial(K, np.full(K, 1.0 / K), size=resamples)


# --------------------------------------------------------------------------- the arms (Table 2)
@dataclass(frozen=True)
class Arm:
    """One rung: level grades ``g`` in ``[1, C]`` and what they consulted."""

    name: str
    g: np.ndarray
    consults: str
    rule: str
    paper: str


def uniform_arm(design: LadderDesign) -> Arm:
    """The standard transformer: ``g = 1`` (q = 0), whose inner product is 0 for every pair of
    profiles (gauge invariance, Prop. 8(i), (iii); §6.5).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> arm = gr.uniform_arm(gr.geometric_design(0.5, 0.25, levels=2, d=8))    # GLLM Table 2, §6.5
    >>> arm.name, arm.g
    ('uniform', array([1., 1.]))
    """
    return Arm("uniform", np.ones(design.levels), "nothing", "g_l = 1", "Prop. 8(i),(iii); §6.5")


def random_arm(design: LadderDesign, seed: int = 0) -> Arm:
    """The control of §8.1.4: level grades ``g_l = C^(U_l)``, ``U_l`` iid Uniform(0, 1) (log-uniform on
    ``[1, C]``), stream ``SeedSequence(seed, spawn_key=(2,))``; drawn independently of the profiles, so its
    inner product has either sign and its predicted position is fixed by its draw (§8.2.5).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> arm = gr.random_arm(gr.geometric_design(0.5, 0.25, levels=2, d=8), seed=0)   # GLLM §8.1.4
    >>> arm.name, arm.g.round(3)
    ('random', array([1.788, 1.06 ]))
    """
    seed = seed_int("seed", seed)
    u = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2,))).uniform(size=design.levels)
    return Arm("random", design.C ** u, "noise", "g_l = C^U_l, U_l ~ Uniform(0,1) iid", "§8.1.4, §8.2.5")


def taxonomic_arm(design: LadderDesign) -> Arm:
    """The level ordering alone (Rem. 9, §7.4): ``q`` affine and increasing in the level, spanning the clip,
    ``g_l = C^(l/(L-1))`` (``g = 1`` when L = 1).  Admissible a priori under geometric profiles.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> arm = gr.taxonomic_arm(gr.geometric_design(0.5, 0.25, levels=3, d=6))   # g_l = C^(l/(L-1)), GLLM §7.4
    >>> arm.g.round(4)
    array([1.    , 1.4142, 2.    ])
    """
    L = design.levels
    g = design.C ** (np.arange(L) / (L - 1)) if L > 1 else np.ones(1)
    return Arm("taxonomic", g, "the level ordering", "g_l = C^(l/(L-1))", "Rem. 9; §7.4")


def proxy_arm(design: LadderDesign, pilot: Pilot) -> Arm:
    """Corpus-statistics proxy for the part-of-speech rung (§8.1.2): a *partial* statistic.  It reads
    only the data's second moments on the pilot (``s_hat``, no labels) and replaces the unknown target
    profile by the uniform one (``a = 1/L``, maximum entropy); its grades are the clipped optimum
    (Prop. 10-11) of that pair, ``g ~ s_hat^(-1/4)`` clipped to ``[1, C]``.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> design = gr.geometric_design(0.5, 0.25, levels=2, d=8)
    >>> arm = gr.proxy_arm(design, gr.draw_pilot(design, 2000, seed=0))   # GLLM §8.1.2
    >>> arm.name, arm.g.round(2)
    ('proxy', array([1.  , 1.41]))
    """
    _, s_hat = pilot_estimates(pilot, design.dims)
    g = optimal.clipped_grades(np.full(design.levels, 1.0 / design.levels), s_hat, design.C).g
    return Arm("proxy", g, "corpus statistics (s_hat only)", "q*_C of (uniform a, s_hat)", "§8.1.2; Prop. 10-11")


def educated_arm(design: LadderDesign, pilot: Pilot) -> Arm:
    """The educated grading ``q*_C`` (Prop. 10-11, §7.5): the clipped optimum of the level program on the
    pilot's estimates ``(a_hat, s_hat)`` (§7.2), the pilot disjoint from the training sample (Rem. 10).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> design = gr.geometric_design(0.5, 0.25, levels=2, d=8)
    >>> arm = gr.educated_arm(design, gr.draw_pilot(design, 2000, seed=0))   # GLLM §7.5
    >>> arm.g.round(2), gr.oracle_arm(design).g.round(2)
    (array([1.  , 1.73]), array([1.  , 1.68]))
    """
    a_hat, s_hat = pilot_estimates(pilot, design.dims)
    g = optimal.clipped_grades(a_hat, s_hat, design.C).g
    return Arm("educated", g, "both estimated profiles", "q*_C of (a_hat, s_hat)", "Prop. 10-11; §7.5")


def oracle_arm(design: LadderDesign) -> Arm:
    """The diagnostic ceiling: ``q*_C`` of the true level profiles ``(a, s)`` (Prop. 10-11).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> design = gr.geometric_design(0.5, 0.25, levels=2, d=8)
    >>> arm = gr.oracle_arm(design)                                  # q*_C of GLLM Prop. 10-11
    >>> arm.g.round(4), round(gr.Lambda(arm.g, design.a, design.s), 4)
    (array([1.    , 1.6818]), 0.7771)
    """
    g = optimal.clipped_grades(design.a, design.s, design.C).g
    return Arm("oracle", g, "the held-out target", "q*_C of (a, s)", "Prop. 10-11")


def build_arms(design: LadderDesign, pilot: Pilot, seed: int = 0) -> list[Arm]:
    """The six arms of Table 2 in the order of ``ARMS``.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> design = gr.geometric_design(0.5, 0.25, levels=2, d=8)
    >>> arms = gr.build_arms(design, gr.draw_pilot(design, 200, seed=0))   # GLLM Table 2
    >>> [arm.name for arm in arms]
    ['uniform', 'random', 'taxonomic', 'proxy', 'educated', 'oracle']
    """
    return [uniform_arm(design), random_arm(design, seed), taxonomic_arm(design), proxy_arm(design, pilot),
            educated_arm(design, pilot), oracle_arm(design)]


@scalar_output
def q_of(g) -> np.ndarray:
    """Grades ``q = ln g`` (``Q_BASE``) of grades ``g > 0``.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.q_of([1.0, 2.0]).round(4)                                 # q = ln g (GLLM §3.1, lambda = e)
    array([0.    , 0.6931])
    """
    return np.log(real_array("g", g, low=0, low_inclusive=False))

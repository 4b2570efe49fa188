"""The offline step of the selection ladder (GLLM §7.2-7.4, Table 2): the pre-registration.

Before any training sample exists, each arm's grades are fixed and published with its admissibility
inner product ``<q, alpha_hat - tau_hat>`` (Eq. 15, §7.4) and its predicted ``Lambda`` on the pilot's
estimates; the predicted ordering of the arms is the ordering of the inner products (§6.5, §8.3.3).
The uncertainty is the bootstrap of §7.2: resample the pilot's blocks, refit, recompute; report the
fraction of resamples on which each inner product keeps its sign, and percentile intervals.

The record is a JSON file (``FORMAT``) written first and read back by the measurement
(:mod:`theorylab.graded.ladder_sim`), which takes the arms' grades from the file and never writes to it.
Columns marked ``true`` use the true profiles: known only because this is a simulation, they are
recorded beside the predictions, never used to make them.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import numpy as np

from theorylab._io import parse_json
from theorylab.errors import (ParameterError, check_memory, describe, positive_int, real_array, real_scalar,
                              seed_int)
from theorylab.graded import grades, optimal
from theorylab.graded import ladder as lad

__all__ = ["FORMAT", "CI_LEVEL", "ArmRecord", "Preregistration", "average_ranks", "predicted_ranks",
           "preregister", "to_json", "RECOMPUTED_RTOL", "from_json", "write", "PREREG_MAX_BYTES", "read"]

FORMAT = "theorylab-ladder-preregistration/1"
CI_LEVEL = 0.95
"""Two-sided level of every bootstrap percentile interval."""


@dataclass(frozen=True)
class ArmRecord:
    """One arm as pre-registered (level grades ``g``, ``q = ln g``)."""

    name: str
    consults: str
    rule: str
    paper: str
    g: tuple
    ip_hat: float
    ip_hat_ci: tuple
    sign_kept: float
    Lambda_hat: float
    Lambda_hat_ci: tuple
    predicted_rank: float
    ip_true: float
    Lambda_true: float

    @property
    def q(self) -> np.ndarray:
        return lad.q_of(self.g)


@dataclass(frozen=True)
class Preregistration:
    """The published offline step: design, pilot estimates with bootstrap intervals, the arms."""

    design: lad.LadderDesign
    n_pilot: int
    seed: int
    bootstrap: int
    a_hat: tuple
    s_hat: tuple
    BC_hat: float
    BC_hat_ci: tuple
    Lambda_star_C_hat: float
    Lambda_star_C_hat_ci: tuple
    BC_true: float
    Lambda_star_C_true: float
    arms: tuple

    @property
    def predicted_order(self) -> list[str]:
        """Arm names from the highest predicted rank (1 = largest inner product) down."""
        return [a.name for a in sorted(self.arms, key=lambda a: (a.predicted_rank, a.name))]

    def arm(self, name: str) -> ArmRecord:
        """The arm called ``name`` (one of the pre-registered arms' names), else ParameterError."""
        if not isinstance(name, str):
            raise ParameterError(f"name must be the name of an arm ({', '.join(a.name for a in self.arms)}) "
                                 f"(got {describe(name)})")
        for a in self.arms:
            if a.name == name:
                return a
        raise ParameterError(f"pre-registration has no arm {name!r} (arms: {', '.join(a.name for a in self.arms)})")


def _interval(x) -> tuple:
    lo = (1 - CI_LEVEL) / 2
    return tuple(float(v) for v in np.quantile(np.asarray(x, float), [lo, 1 - lo]))


def average_ranks(values) -> np.ndarray:
    """Ranks 1..n along the last axis (1 for the smallest) of real ``values``; ties share their average rank.

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.average_ranks([0.3, -0.1, 0.3, 0.0])                    # ties share their rank (GLLM §8.3.3)
    array([3.5, 1. , 3.5, 2. ])
    """
    x = real_array("values", values)
    if x.ndim < 1:
        raise ParameterError("values must have at least one axis (the one ranked)")
    check_memory("values", 16.0 * x.size * x.shape[-1])
    less = np.sum(x[..., None, :] < x[..., :, None], axis=-1)
    equal = np.sum(x[..., None, :] == x[..., :, None], axis=-1)
    return less + (equal + 1) / 2.0


def predicted_ranks(values) -> np.ndarray:
    """Rank 1 for the largest value; ties share their average rank (``values`` as :func:`average_ranks`).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> gr.predicted_ranks([0.3, -0.1, 0.3, 0.0])                  # largest inner product first (GLLM §6.5)
    array([1.5, 4. , 1.5, 3. ])
    """
    return average_ranks(-real_array("values", values))


def preregister(design: lad.LadderDesign, n_pilot: int, seed: int = 0, bootstrap: int = 200) -> Preregistration:
    """Draw the pilot, build the six arms, compute every offline quantity (see the module docstring).

    ``seed`` names the pilot stream (``SeedSequence(seed)``), the random arm (``spawn_key=(2,)``) and the
    bootstrap (``spawn_key=(1,)``); ``bootstrap`` resamples of the pilot's blocks, an integer in [2, 2^63).

    Examples
    --------
    >>> import theorylab.graded as gr
    >>> prereg = gr.preregister(gr.geometric_design(0.5, 0.25, levels=2, d=8), n_pilot=200, bootstrap=10)
    >>> prereg.predicted_order                                     # GLLM §7.4, Table 2
    ['educated', 'taxonomic', 'oracle', 'proxy', 'uniform', 'random']
    >>> [(arm.name, round(arm.ip_hat, 2)) for arm in prereg.arms[:3]]
    [('uniform', 0.0), ('random', -0.4), ('taxonomic', 0.53)]
    """
    bootstrap = _bootstrap(bootstrap)
    pilot = lad.draw_pilot(design, n_pilot, seed)
    arms = lad.build_arms(design, pilot, seed)
    a_hat, s_hat = lad.pilot_estimates(pilot, design.dims)
    weights = lad.bootstrap_weights(pilot, bootstrap, seed)
    boot = [lad.pilot_estimates(pilot, design.dims, w) for w in weights]
    ip_hat = [grades.admissibility(lad.q_of(arm.g), a_hat, s_hat) for arm in arms]
    ranks = predicted_ranks(ip_hat)
    records = []
    for arm, ip, rank in zip(arms, ip_hat, ranks):
        q = lad.q_of(arm.g)
        ip_b = np.array([grades.admissibility(q, a, s) for a, s in boot])
        lam_b = np.array([float(grades.Lambda(arm.g, a, s)) for a, s in boot])
        records.append(ArmRecord(arm.name, arm.consults, arm.rule, arm.paper, tuple(float(x) for x in arm.g),
                                 float(ip), _interval(ip_b), float(np.mean(np.sign(ip_b) == np.sign(ip))),
                                 float(grades.Lambda(arm.g, a_hat, s_hat)), _interval(lam_b), float(rank),
                                 grades.admissibility(q, design.a, design.s),
                                 float(grades.Lambda(arm.g, design.a, design.s))))
    bc_b = [grades.bhattacharyya(a, s) for a, s in boot]
    lsc_b = [optimal.clipped_grades(a, s, design.C).Lambda for a, s in boot]
    return Preregistration(design, int(n_pilot), int(seed), bootstrap, tuple(map(float, a_hat)),
                           tuple(map(float, s_hat)), grades.bhattacharyya(a_hat, s_hat), _interval(bc_b),
                           optimal.clipped_grades(a_hat, s_hat, design.C).Lambda, _interval(lsc_b),
                           grades.bhattacharyya(design.a, design.s),
                           optimal.clipped_grades(design.a, design.s, design.C).Lambda, tuple(records))


# --------------------------------------------------------------------------- the file
def to_json(prereg: Preregistration) -> str:
    """The pre-registration as JSON text (``FORMAT``)."""
    body = {"format": FORMAT, "design": prereg.design.as_dict(), "n_pilot": prereg.n_pilot, "seed": prereg.seed,
            "bootstrap": prereg.bootstrap, "pilot_fit": lad.PILOT_FIT, "pilot_blocks": lad.PILOT_BLOCKS,
            "q_base": lad.Q_BASE, "ci_level": CI_LEVEL,
            "a_hat": list(prereg.a_hat), "s_hat": list(prereg.s_hat), "BC_hat": prereg.BC_hat,
            "BC_hat_ci": list(prereg.BC_hat_ci), "Lambda_star_C_hat": prereg.Lambda_star_C_hat,
            "Lambda_star_C_hat_ci": list(prereg.Lambda_star_C_hat_ci),
            "true": {"BC": prereg.BC_true, "Lambda_star_C": prereg.Lambda_star_C_true},
            "predicted_order": prereg.predicted_order,
            "arms": [{**{k: getattr(a, k) for k in ArmRecord.__dataclass_fields__},
                      "g": list(a.g), "q": a.q.tolist(), "ip_hat_ci": list(a.ip_hat_ci),
                      "Lambda_hat_ci": list(a.Lambda_hat_ci)} for a in prereg.arms]}
    return json.dumps(body, indent=2, allow_nan=False) + "\n"


RECOMPUTED_RTOL = 1e-9
"""Relative tolerance of a recorded field against its recomputation from the recorded inputs
(:func:`from_json`): the same formulas on the same numbers agree to a few ulps (another platform's
``log``/``sqrt`` may round differently; the clipped optimum stops within 4 ulps), far inside 1e-9, while
an edited value (a changed digit among the first nine, an infinity, 1e308) is caught."""


def from_json(text: str, source: str = "pre-registration") -> Preregistration:
    """Parse and validate :func:`to_json` output; a malformed file is one ParameterError line.

    Every field is checked with the validator its parameter has (the design as
    :func:`theorylab.graded.ladder.profile_design`, ``n_pilot`` as :func:`theorylab.graded.ladder.pilot_size`,
    ``seed`` in [0, 2^64), ``bootstrap`` as :func:`preregister`), the estimates against their ranges
    (profiles; BC in (0, 1]; Lambda in [C^-2, C^2]; inner products within ``2 ln C``; sign fractions in
    [0, 1]; intervals ordered), and every field that is a function of the others -- the pilot's BC and
    Lambda*_C, each arm's ``q``, inner products, Lambda and predicted rank, the true columns, the
    predicted order -- against its recomputation (``RECOMPUTED_RTOL``).

    Raises
    ------
    ParameterError
        One line: ``SOURCE: what is wrong`` (not JSON, another format, a missing field, a field of the
        wrong type, out of its range or inconsistent with the others).
    """
    body = parse_json(text, source)
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise ParameterError(f"{source} is not a ladder pre-registration (expected format {FORMAT!r})")
    try:
        return _from_body(body)
    except ParameterError as exc:
        raise ParameterError(f"{source}: {exc}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise ParameterError(f"{source}: missing or malformed field ({type(exc).__name__}: {exc})") from None


def _bootstrap(value) -> int:
    """Bootstrap resamples of the pilot: an integer in [2, 2^63) (the one check, for :func:`preregister`
    and the file)."""
    return positive_int("bootstrap", value, low=2, high=2 ** 63 - 1)


def _interval_field(name: str, value, **bounds) -> tuple:
    if not isinstance(value, list) or len(value) != 2:
        raise ParameterError(f"{name} must be an interval [low, high] (got {describe(value)})")
    lo, hi = (real_scalar(name, v, **bounds) for v in value)
    if lo > hi:
        raise ParameterError(f"{name} must be an interval with low <= high (got [{lo:g}, {hi:g}])")
    return lo, hi


def _recorded(name: str, value, fresh: float, atol: float = 0.0) -> float:
    """A recorded field that must equal its recomputation ``fresh`` (see ``RECOMPUTED_RTOL``)."""
    x = real_scalar(name, value)
    if not abs(x - fresh) <= RECOMPUTED_RTOL * abs(fresh) + atol:
        raise ParameterError(f"{name} is {x:.10g} but the recorded inputs give {fresh:.10g} (the file was edited "
                             f"or is inconsistent)")
    return x


def _text(name: str, value) -> str:
    if not isinstance(value, str):
        raise ParameterError(f"{name} must be a string (got {describe(value)})")
    return value


def _from_body(body: dict) -> Preregistration:
    """The checks of :func:`from_json` (messages without the source)."""
    if not isinstance(body["design"], dict):
        raise ParameterError(f"design must be an object (got {describe(body['design'])})")
    design = lad.design_from_dict(body["design"])
    n_pilot, seed, bootstrap = lad.pilot_size(design, body["n_pilot"]), seed_int("seed", body["seed"]), \
        _bootstrap(body["bootstrap"])
    if "pilot_blocks" in body:
        positive_int("pilot_blocks", body["pilot_blocks"], high=2 ** 63 - 1)
    if "ci_level" in body:
        real_scalar("ci_level", body["ci_level"], low=0, high=1, low_inclusive=False, high_inclusive=False)
    C, L = design.C, design.levels
    qmax = float(np.log(C))
    a_fit, s_fit = grades.profile("a_hat", body["a_hat"]), grades.profile("s_hat", body["s_hat"])
    if a_fit.shape != (L,) or s_fit.shape != (L,):
        raise ParameterError(f"a_hat and s_hat must hold one mass per level ({L}) (got {a_fit.size} and {s_fit.size})")
    a_hat, s_hat = (tuple(float(x) for x in real_array(k, body[k])) for k in ("a_hat", "s_hat"))   # as recorded
    bc_hat = _recorded("BC_hat", body["BC_hat"], grades.bhattacharyya(a_fit, s_fit))
    lsc_hat = _recorded("Lambda_star_C_hat", body["Lambda_star_C_hat"], optimal.clipped_grades(a_fit, s_fit, C).Lambda)
    true = body["true"]
    if not isinstance(true, dict):
        raise ParameterError(f"true must be an object (got {describe(true)})")
    bc_true = _recorded("true.BC", true["BC"], grades.bhattacharyya(design.a, design.s))
    lsc_true = _recorded("true.Lambda_star_C", true["Lambda_star_C"],
                         optimal.clipped_grades(design.a, design.s, C).Lambda)
    if not isinstance(body["arms"], list):
        raise ParameterError(f"arms must be a list (got {describe(body['arms'])})")
    arms = [_arm(a, design, a_fit, s_fit, qmax) for a in body["arms"]]
    names = [a.name for a in arms]
    if len(set(names)) != len(names) or "uniform" not in names or len(arms) < 2:
        raise ParameterError(f"arms must have distinct names, include 'uniform' and number >= 2 (got {names})")
    if len(set(arms[names.index("uniform")].g)) != 1:
        raise ParameterError(f"the uniform arm's grades must all be equal (got {arms[names.index('uniform')].g})")
    ranks = predicted_ranks([a.ip_hat for a in arms])
    for a, rank in zip(arms, ranks):
        if a.predicted_rank != rank:
            raise ParameterError(f"arm {a.name!r}: predicted_rank is {a.predicted_rank:g} but its inner product "
                                 f"ranks {rank:g} among the arms")
    lsc_band = {"low": (1 - RECOMPUTED_RTOL) / C / C, "high": 1.0 + RECOMPUTED_RTOL}   # C^-2 <= Lambda*_C <= 1
    prereg = Preregistration(design, n_pilot, seed, bootstrap, a_hat, s_hat, bc_hat,
                             _interval_field("BC_hat_ci", body["BC_hat_ci"], low=0, high=1), lsc_hat,
                             _interval_field("Lambda_star_C_hat_ci", body["Lambda_star_C_hat_ci"], **lsc_band),
                             bc_true, lsc_true, tuple(arms))
    if "predicted_order" in body and body["predicted_order"] != prereg.predicted_order:
        raise ParameterError(f"predicted_order is {describe(body['predicted_order'])} but the arms' predicted ranks "
                             f"give {prereg.predicted_order}")
    return prereg


def _arm(a, design: lad.LadderDesign, a_fit, s_fit, qmax: float) -> ArmRecord:
    """One arm of the file, checked (see :func:`from_json`)."""
    if not isinstance(a, dict):
        raise ParameterError(f"every arm must be an object (got {describe(a)})")
    name = _text("arm name", a["name"])
    where = f"arm {name!r}"
    g = real_array(f"{where}: g", a["g"])
    if g.shape != (design.levels,) or np.any(g < 1 - 1e-12) or np.any(g > design.C * (1 + 1e-12)):
        raise ParameterError(f"{where} must have {design.levels} grades in [1, C={design.C:g}] (got {a['g']})")
    q = lad.q_of(g)
    if "q" in a:
        recorded = real_array(f"{where}: q", a["q"])
        if recorded.shape != q.shape or not np.all(np.abs(recorded - q) <= RECOMPUTED_RTOL * np.abs(q) + 1e-15):
            raise ParameterError(f"{where}: q must be ln g (got {describe(a['q'])} for g = {g.tolist()})")
    atol = 1e-12 * (1.0 + qmax)                   # an inner product may be 0 (the uniform arm)
    # the ranges of the bootstrap intervals, widened by the recomputation tolerance for rounding:
    # |<q, a - s>| <= max|q| ||a - s||_1 <= 2 ln C, and g in [1, C] gives C^-2 <= Lambda <= C^2
    ip_band = {"low": -2 * qmax - atol, "high": 2 * qmax + atol}
    with np.errstate(over="ignore", under="ignore"):             # C^2 may be beyond the float range: no bound
        c2 = float(np.float64(design.C) ** 2)
    lam_band = {"low": (1 - RECOMPUTED_RTOL) / c2, "high": c2 * (1 + RECOMPUTED_RTOL)}
    return ArmRecord(name, _text(f"{where}: consults", a["consults"]), _text(f"{where}: rule", a["rule"]),
                     _text(f"{where}: paper", a["paper"]), tuple(float(x) for x in g),
                     _recorded(f"{where}: ip_hat", a["ip_hat"], grades.admissibility(q, a_fit, s_fit), atol),
                     _interval_field(f"{where}: ip_hat_ci", a["ip_hat_ci"], **ip_band),
                     real_scalar(f"{where}: sign_kept", a["sign_kept"], low=0, high=1),
                     _recorded(f"{where}: Lambda_hat", a["Lambda_hat"], float(grades.Lambda(g, a_fit, s_fit))),
                     _interval_field(f"{where}: Lambda_hat_ci", a["Lambda_hat_ci"], **lam_band),
                     real_scalar(f"{where}: predicted_rank", a["predicted_rank"]),
                     _recorded(f"{where}: ip_true", a["ip_true"], grades.admissibility(q, design.a, design.s), atol),
                     _recorded(f"{where}: Lambda_true", a["Lambda_true"], float(grades.Lambda(g, design.a, design.s))))


def write(prereg: Preregistration, path: str) -> str:
    """Write the pre-registration atomically; return the SHA-256 of the bytes written."""
    from theorylab._io import write_text_atomic

    text = to_json(prereg)
    write_text_atomic(path, text)
    return hashlib.sha256(text.encode()).hexdigest()


PREREG_MAX_BYTES = 1 << 24
"""Largest pre-registration file read (one is a few kilobytes: six arms of L grades)."""


def read(path: str) -> tuple[Preregistration, str]:
    """Read a pre-registration file; return it and the SHA-256 of its bytes.

    The file goes through :func:`theorylab._io.read_bytes` (a regular file of at most ``PREREG_MAX_BYTES``,
    checked before reading: a pipe is refused, never waited on) and must be UTF-8 JSON text
    (:func:`from_json`).

    Raises
    ------
    ParameterError
        One line naming the file and what is wrong with it.
    """
    from theorylab._io import decode_text, read_bytes

    data = read_bytes("pre-registration", path, PREREG_MAX_BYTES)
    text = decode_text("pre-registration", path, data)
    return from_json(text, source=repr(path)), hashlib.sha256(data).hexdigest()

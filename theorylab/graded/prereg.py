"""The offline step of the selection ladder (GLLM §7.2-7.4, Table 2): the pre-registration.

Before any training sample exists, each arm's grades are fixed and published with its admissibility
inner product ``<q, alpha_hat - tau_hat>`` (Eq. 15, §7.4) and its predicted ``Lambda`` on the pilot's
estimates; the predicted ordering of the arms is the ordering of the inner products (§6.5, §8.3.3).
The uncertainty is the bootstrap of §7.2: resample the pilot's blocks, refit, recompute; report the
fraction of resamples on which each inner product keeps its sign, and percentile intervals.

The record is a JSON file (``FORMAT``) written first and read back by the measurement
(:mod:`theorylab.sim.ladder`), which takes the arms' grades from the file and never writes to it.
Columns marked ``true`` use the true profiles: known only because this is a simulation, they are
recorded beside the predictions, never used to make them.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import numpy as np

from theorylab._io import parse_json
from theorylab.errors import ParameterError, check_memory, describe, positive_int, real_array
from theorylab.graded import grades
from theorylab.graded import ladder as lad

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
    """Ranks 1..n along the last axis (1 for the smallest) of real ``values``; ties share their average rank."""
    x = real_array("values", values)
    if x.ndim < 1:
        raise ParameterError("values must have at least one axis (the one ranked)")
    check_memory("values", 16.0 * x.size * x.shape[-1])
    less = np.sum(x[..., None, :] < x[..., :, None], axis=-1)
    equal = np.sum(x[..., None, :] == x[..., :, None], axis=-1)
    return less + (equal + 1) / 2.0


def predicted_ranks(values) -> np.ndarray:
    """Rank 1 for the largest value; ties share their average rank (``values`` as :func:`average_ranks`)."""
    return average_ranks(-real_array("values", values))


def preregister(design: lad.LadderDesign, n_pilot: int, seed: int = 0, bootstrap: int = 200) -> Preregistration:
    """Draw the pilot, build the six arms, compute every offline quantity (see the module docstring).

    ``seed`` names the pilot stream (``SeedSequence(seed)``), the random arm (``spawn_key=(2,)``) and the
    bootstrap (``spawn_key=(1,)``); ``bootstrap >= 2`` resamples of the pilot's blocks.
    """
    bootstrap = positive_int("bootstrap", bootstrap, low=2)
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
    lsc_b = [grades.clipped_grades(a, s, design.C).Lambda for a, s in boot]
    return Preregistration(design, int(n_pilot), int(seed), bootstrap, tuple(map(float, a_hat)),
                           tuple(map(float, s_hat)), grades.bhattacharyya(a_hat, s_hat), _interval(bc_b),
                           grades.clipped_grades(a_hat, s_hat, design.C).Lambda, _interval(lsc_b),
                           grades.bhattacharyya(design.a, design.s),
                           grades.clipped_grades(design.a, design.s, design.C).Lambda, tuple(records))


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


def from_json(text: str, source: str = "pre-registration") -> Preregistration:
    """Parse and validate :func:`to_json` output; a malformed file is one ParameterError line."""
    body = parse_json(text, source)
    if not isinstance(body, dict) or body.get("format") != FORMAT:
        raise ParameterError(f"{source} is not a ladder pre-registration (expected format {FORMAT!r})")
    try:
        design = lad.design_from_dict(body["design"])
        arms = []
        for a in body["arms"]:
            g = np.asarray(a["g"], float)
            if g.shape != (design.levels,) or not np.all(np.isfinite(g)) or np.any(g < 1 - 1e-12) \
                    or np.any(g > design.C * (1 + 1e-12)):
                raise ParameterError(f"{source}: arm {a.get('name')!r} must have {design.levels} grades in "
                                     f"[1, C={design.C:g}] (got {a['g']})")
            arms.append(ArmRecord(str(a["name"]), str(a["consults"]), str(a["rule"]), str(a["paper"]),
                                  tuple(float(x) for x in g), float(a["ip_hat"]), tuple(map(float, a["ip_hat_ci"])),
                                  float(a["sign_kept"]), float(a["Lambda_hat"]),
                                  tuple(map(float, a["Lambda_hat_ci"])), float(a["predicted_rank"]),
                                  float(a["ip_true"]), float(a["Lambda_true"])))
        names = [a.name for a in arms]
        if len(set(names)) != len(names) or "uniform" not in names or len(arms) < 2:
            raise ParameterError(f"{source}: arms must have distinct names, include 'uniform' and number >= 2 "
                                 f"(got {names})")
        return Preregistration(design, int(body["n_pilot"]), int(body["seed"]), int(body["bootstrap"]),
                               tuple(map(float, body["a_hat"])), tuple(map(float, body["s_hat"])),
                               float(body["BC_hat"]), tuple(map(float, body["BC_hat_ci"])),
                               float(body["Lambda_star_C_hat"]), tuple(map(float, body["Lambda_star_C_hat_ci"])),
                               float(body["true"]["BC"]), float(body["true"]["Lambda_star_C"]), tuple(arms))
    except ParameterError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise ParameterError(f"{source}: missing or malformed field ({type(exc).__name__}: {exc})") from None


def write(prereg: Preregistration, path: str) -> str:
    """Write the pre-registration atomically; return the SHA-256 of the bytes written."""
    from theorylab._io import write_text_atomic

    text = to_json(prereg)
    write_text_atomic(path, text)
    return hashlib.sha256(text.encode()).hexdigest()


def read(path: str) -> tuple[Preregistration, str]:
    """Read a pre-registration file; return it and the SHA-256 of its bytes."""
    if not isinstance(path, str) or not path:
        raise ParameterError(f"the pre-registration must be named by a file path (got {path!r})")
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise ParameterError(f"cannot read the pre-registration {path!r} ({exc.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ParameterError(f"{path!r} is not a UTF-8 text file") from None
    return from_json(text, source=repr(path)), hashlib.sha256(data).hexdigest()

"""Scalar input gives Python scalars: every function of ``theorylab.psa``, ``graded`` and ``plga``.

The rule is theorylab/_results.py's: a public function called with scalar input returns Python scalars
(``float``, ``int``, ``bool``, ``str``), never NumPy scalars (``np.float64(0.5)`` under NumPy 2) or 0-d
arrays. Each function of a package's ``__all__`` is called with the valid call of tests/api_surface.py
(:data:`CASES`), every array or list of numbers replaced by its first entry as a Python scalar, and every
numeric leaf of the result -- recursively through tuples, lists, dicts and dataclass fields -- must be a
Python scalar (arrays of one or more dimensions are arrays, not leaves).

Functions that take arrays by design (a stream with a position axis, a profile over coordinates, a
curve over a grid) are listed in :data:`ARRAYS` with the reason: called with scalars they raise
``ParameterError`` (asserted, so the list cannot go stale), and called with their arrays a result that is
one number (a reduction: a norm, a log-partition value) must be a Python scalar too. Functions without a
valid call (their inputs are objects built elsewhere, long studies, Numba kernels) are api_surface's
``SKIP`` or :data:`NOT_CALLED`, with the reason.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect

import numpy as np
import pytest

from api_surface import SKIP, build_cases
from theorylab.errors import ParameterError

PACKAGES = ("theorylab.psa", "theorylab.graded", "theorylab.plga")
CASES, _ = build_cases()

NOT_CALLED: dict[str, str] = {
    "psa.exp32": "Numba intrinsic of the Monte Carlo kernels (machine floats inside compiled code)",
    "psa.exp64": "Numba intrinsic of the Monte Carlo kernels (machine floats inside compiled code)",
}
"""Functions of the packages with no valid call in api_surface and not in its ``SKIP`` (by package name)."""

ARRAYS: dict[str, str] = {}
"""Functions that take arrays by design, ``"package.name"`` -> the reason."""


def _arrays(reason: str, *names: str) -> None:
    for n in names:
        ARRAYS[n] = reason


_arrays("a stream or query/key sequence: an array with a position axis (T, d)",
        "psa.momentum", "psa.range_growth", "psa.coriolis_term", "psa.coupling_split", "psa.place_shear",
        "psa.rope", "psa.rotate_pairs", "psa.score_channels", "psa.sheared_stream", "psa.stream_channels",
        "psa.plant_induction")
_arrays("a frequency table: one entry per rotation plane (dk/2 of them)",
        "psa.cesaro_averages", "psa.coriolis_band_ratios", "psa.rope_tables")
_arrays("a curve sampled on a grid of >= 2 points", "psa.envelope_slope", "psa.first_crossing")
_arrays("data points of a fit (>= 3 points, two distinct x and y; >= 2 head widths for the exponent)",
        "psa.power_law_fit", "psa.loglog_fit", "psa.large_dk_exponent")
_arrays("a d x d matrix (the Jacobian of the shear's map)", "psa.shear_jacobian")
_arrays("a probability vector along the last axis", "psa.softmax_jacobian", "psa.softmax_response")
_arrays("a profile or vector over the d coordinates or the levels (alpha, tau, a, s, q, u, w, g per level)",
        "graded.profile", "graded.profiles", "graded.expand_levels", "graded.reduce_levels", "graded.Lambda",
        "graded.Lambda_q", "graded.log_Lambda_u", "graded.bhattacharyya", "graded.Lambda_star", "graded.tilted",
        "graded.gradient_u", "graded.admissibility", "graded.boundary_polynomial", "graded.optimal_grades",
        "graded.clipped_grades", "graded.level_program", "graded.moment_maps", "graded.clipped_lower_bound",
        "graded.profile_design", "graded.design_from_dict", "graded.grading_matrix", "graded.grade",
        "graded.ellipsoid_semi_axes", "graded.worth_estimating", "graded.upper_regime", "graded.cap_ratio",
        "graded.grade_condition", "graded.stratified_model", "graded.pilot_estimates", "graded.profile_error",
        "graded.exact_risk", "graded.least_favourable_target", "graded.learning_curves")
_arrays("a matrix or a table of repetitions (normal equations, fits, risks, values ranked along an axis)",
        "graded.estimate_levels", "graded.constrained_fit", "graded.summarize", "graded.average_ranks",
        "graded.predicted_ranks", "graded.spearman")
_arrays("a grid of sample sizes with one value per point (>= 2 or >= 3 points)",
        "graded.crossing", "graded.degradation")
_arrays("queries or points as rows: a 2-d array (S, dk)",
        "plga.density_operator", "plga.cumulative_density_operators", "plga.plga_stages", "plga.g_lm",
        "plga.g_lm_cumulative", "plga.scores", "plga.density_report", "plga.metric_learner", "plga.glu",
        "plga.gated_unit", "plga.layer_norm", "plga.diameter", "plga.pairwise_ratios", "plga.logit_margin",
        "plga.ln_scale_error", "plga.ln_scale_proxy", "plga.row_clone")
_arrays("a square matrix (an operator, a Gram matrix, a weighted adjacency)",
        "plga.stages_from_density", "plga.absorb_operator", "plga.perron_frobenius",
        "plga.collatz_wielandt_bounds", "plga.walk_terms", "plga.notears_h", "plga.dag_loss",
        "plga.commutant_projection", "plga.off_commutant_residual", "plga.position_twirl",
        "plga.row_perturbation_bound")
_arrays("a frequency table: one entry per rotation plane", "plga.plane_rotations", "plga.twirl_frequencies",
        "plga.twirl_statistics", "plga.twirl_constant")


def _package_functions() -> list[tuple[str, object]]:
    out = []
    for package in PACKAGES:
        pkg = importlib.import_module(package)
        short = package.rsplit(".", 1)[1]
        for name in pkg.__all__:
            obj = getattr(pkg, name)
            if callable(obj) and not inspect.isclass(obj):
                out.append((f"{short}.{name}", obj))
    return out


FUNCTIONS = _package_functions()


def _key(fn) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


DRIVEN = [(name, fn) for name, fn in FUNCTIONS if _key(fn) in CASES]


def _scalar(value):
    """The first entry of an array or list of numbers, as a Python scalar; anything else unchanged."""
    if isinstance(value, np.ndarray) and value.ndim >= 1 and value.size and value.dtype != object:
        return value.flat[0].item()
    if isinstance(value, list) and value and all(type(v) in (int, float) for v in value):
        return value[0]
    return value


def scalar_args(case) -> dict:
    """``case``'s arguments with every array or list of numbers (not a ``fixed`` one) a scalar."""
    return {k: v if k in case.fixed else _scalar(v) for k, v in case.args.items()}


def numpy_leaves(value, path: str = "result") -> list[str]:
    """Where ``value`` holds a NumPy scalar or a 0-d array: ``["result[0]: float64", ...]``."""
    if isinstance(value, np.generic) or (isinstance(value, np.ndarray) and value.ndim == 0):
        return [f"{path}: {type(value).__name__} {value.dtype}"]
    if isinstance(value, (tuple, list)):
        return [leaf for i, v in enumerate(value) for leaf in numpy_leaves(v, f"{path}[{i}]")]
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in numpy_leaves(v, f"{path}[{k!r}]")]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [leaf for f in dataclasses.fields(value) for leaf in numpy_leaves(getattr(value, f.name),
                                                                                  f"{path}.{f.name}")]
    return []


def test_numpy_leaves_finds_numpy_scalars_at_any_depth():
    @dataclasses.dataclass
    class Record:
        a: object
        b: object

    assert numpy_leaves(0.5) == [] and numpy_leaves(np.array([0.5])) == []
    assert numpy_leaves(np.float64(0.5)) == ["result: float64 float64"]
    assert numpy_leaves(Record((1, {"x": np.array(2.0)}), [np.bool_(True)])) == \
        ["result.a[1]['x']: ndarray float64", "result.b[0]: bool bool"]


def test_every_function_is_called_or_listed_with_a_reason():
    unlisted = [name for name, fn in FUNCTIONS
                if _key(fn) not in CASES and _key(fn) not in SKIP and name not in NOT_CALLED]
    assert not unlisted, f"no valid call in tests/api_surface.py and no reason here: {unlisted}"
    driven = {name for name, _ in DRIVEN}
    assert set(ARRAYS) <= driven and not set(NOT_CALLED) & driven
    assert len(DRIVEN) > 200      # psa, graded and plga together


@pytest.mark.parametrize("name, fn", DRIVEN, ids=[name for name, _ in DRIVEN])
def test_scalar_input_gives_python_scalars(name, fn):
    case = CASES[_key(fn)]
    args = scalar_args(case)
    if name in ARRAYS:
        with pytest.raises(ParameterError):
            case.fn(**args)
        args = case.args                 # its arrays: a one-number result is a Python scalar all the same
    leaves = numpy_leaves(case.fn(**args))
    assert not leaves, f"{name} returns NumPy scalars: {leaves[:4]}"

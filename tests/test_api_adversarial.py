"""Hostile input for every public function of the library packages (issue 11, item 4).

Each driven function has one valid call (tests/api_surface.py). Hypothesis replaces one
argument at a time by an adversarial value -- 0, negative, huge, tiny, NaN, inf, complex,
strings, booleans, None, empty arrays, wrong shapes, wrong dtypes, elementwise-corrupted
arrays -- and the call must either

* raise :class:`theorylab.ParameterError`, or
* return a result whose every number is finite (NaN/inf only where the function documents
  them as results, e.g. "no root") and, when the replacement kept the argument's shape and
  kind, whose arrays have the shapes of the valid call's result.

A value that is not a number where numbers are expected (a string, a boolean, None, a complex
number, NaN or inf outside the arguments documented to take missing values, an object array
outside the exact route, an invalid choice or seed) must be refused: accepting it is a failure
even when the result looks finite (it would be a silent conversion).

Any other exception (TypeError, IndexError, OverflowError, ZeroDivisionError, ...) fails.

A second deterministic sweep (:func:`test_generic_kinds_are_refused`) gives every argument the
generic kinds -- NaN, inf, -inf (as the value and as an entry of an array argument), None, a string
of Python code (never evaluated: a probe module would be imported), an empty array, and for
functions taking related arrays a mismatched shape -- and requires ParameterError (ResourceError
included) in one line. Where a kind is valid input the surface says so per function
(``nan_input``, ``none_input``, ``empty_input``, ``api_surface.NOT_APPLICABLE`` with the reason).
Deterministic (``derandomize=True``); the default run uses ``EXAMPLES`` examples per
function, the ``slow``-marked run ``DEEP_EXAMPLES``. Allocation sizes are bounded by
``THEORYLAB_MAX_MEMORY`` (set low here, so large valid sizes are refused at once).
"""
from __future__ import annotations

import dataclasses
import math
import numbers
import os
import signal
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from api_surface import SKIP, build_cases, public_callables
from theorylab import ParameterError

EXAMPLES = int(os.environ.get("THEORYLAB_API_EXAMPLES", "40"))
DEEP_EXAMPLES = 400
PHASES = ((Phase.explicit, Phase.generate) if os.environ.get("THEORYLAB_API_NO_SHRINK")
          else (Phase.explicit, Phase.generate, Phase.shrink))
"""Set THEORYLAB_API_NO_SHRINK=1 to report the first failing example of each function without shrinking."""
CALL_CPU_SECONDS = 60
"""An adversarial call using more CPU time than this fails the test (a hang is a finding). CPU time,
not wall time, so a loaded machine does not fail it; valid calls (which may compile Numba kernels
on first use) are not timed."""

CASES, _ = build_cases()


@pytest.fixture(autouse=True)
def _small_memory_limit(monkeypatch):
    monkeypatch.setenv("THEORYLAB_MAX_MEMORY", str(64 * 2 ** 20))


# ------------------------------------------------------------------------------ adversarial values
class Obj:
    """An arbitrary object (not a number)."""

    def __repr__(self):
        return "Obj()"


REAL_BAD = [math.nan, -math.nan, math.inf, -math.inf, 1 + 1j, complex(2, 0), "1.5", "nan", b"1.5", True, False,
            None, Obj(), [], np.array([]), {"a": 1.0}, np.array(1.0, dtype=object), np.complex128(1.0),
            np.array([np.nan]), np.bool_(True), np.datetime64("2020-01-01"), [1.0], [1.0, 2.0], np.array([[0.5]])]
REAL_GOOD = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3, 64, 1e-300, 5e-324, -1e-300, 1e300, -1e300, 1.7976931348623157e308,
             10 ** 400, -10 ** 400, 2 ** 64, np.float32(2.5), np.int64(7), np.uint64(2 ** 64 - 1), np.float16(0.5),
             np.array(3.0)]
INT_BAD = [1.5, -0.5, math.nan, math.inf, -math.inf, "3", b"3", True, False, None, 1 + 0j, [3], Obj(),
           np.float64(2.5), np.array([2, 3])]
INT_GOOD = [0, -1, 1, 2, 3, 4, 5, 8, 9, 16, 2 ** 20, 2 ** 31, 2 ** 40, 2 ** 63 - 1, 2 ** 63, 2 ** 64, 10 ** 30,
            -2 ** 63, 3.0, 1e300, np.int8(3), np.int64(4), np.uint64(2 ** 64 - 1), np.float32(4.0)]
SEED_GOOD = [0, 1, 2 ** 32, 2 ** 63, 2 ** 64 - 1, np.uint64(2 ** 64 - 1)]
SEED_BAD = [2 ** 64, -1, 10 ** 30, 1.5, 3.0, "7", True, None, math.nan, np.int64(-3), [1, 2]]
CHOICE_VALUES = ["", "nope", " t4-only", "T4-ONLY", None, 1, 1.5, b"t4-only", ["t4-only"], True, Obj(),
                 np.array(["t4-only"])]


def _real_entry(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) and math.isfinite(float(v))


def not_a_number(value, exact: bool = False, nan_input: bool = False, none_input: bool = False,
                 mask_input: bool = False) -> bool:
    """Whether ``value`` is of a kind the contract refuses wherever numbers are expected."""
    if value is None:
        return not none_input
    if isinstance(value, np.ndarray) and value.dtype.kind == "b" and mask_input:
        return False
    if isinstance(value, (bool, np.bool_, str, bytes, dict, complex, np.complexfloating, Obj, np.datetime64)):
        return True
    if isinstance(value, (float, np.floating)):
        return not math.isfinite(value) and not (nan_input and math.isnan(value))
    if isinstance(value, (list, tuple)):
        try:
            value = np.asarray(value)
        except ValueError:
            return True                                          # ragged
    if isinstance(value, np.ndarray):
        kind = value.dtype.kind
        if kind in "bcUSMm":
            return True
        if kind == "O":
            return not exact or not all(_real_entry(v) for v in value.flat)
        if kind == "f":
            return bool(np.any(np.isinf(value)) or (np.any(np.isnan(value)) and not nan_input))
    return False


def _is_size_like(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def array_variants(base: np.ndarray, exact: bool) -> list:
    """Adversarial replacements of an array argument: shape, dtype and content."""
    base = np.asarray(base)
    out = [np.zeros((0,) + base.shape[1:]), np.zeros(base.shape[:-1] + (0,)) if base.ndim else np.zeros(0),
           base[..., None], base[None], np.stack([base, base]), base.T.copy(),
           base.astype(complex), base.astype(str), base.astype(bool), base.tolist(),
           np.asarray(base, dtype=np.float32), np.round(base).astype(np.int64) if base.dtype.kind == "f" else base,
           "1,2,3", None, 1.0, 0, True, [[1.0, 2.0], [3.0]]]
    if base.ndim:
        out += [base[..., :1], base[..., :-1], np.concatenate([base, base[..., :1]], axis=-1), base[:1]]
    if not exact:
        out.append(base.astype(object))
    else:
        bad = base.astype(object)
        if bad.size:
            bad.flat[0] = "x"
        out += [base.astype(object), bad]
    for special in (np.nan, np.inf, -np.inf, 0.0, -1.0, 1e300, -1e300, 1e-300, 1e150):
        if base.size and base.dtype.kind in "fiu":
            v = base.astype(float).copy()
            v.flat[0] = special
            out.append(v)
            out.append(np.full_like(base, special, dtype=float))
    if base.size and base.dtype.kind in "fiu":
        out.append(base * 1e200)
        out.append(base * 1e-200)
        out.append(-base)
    return out


def strategy(case, name: str):
    """Adversarial values for argument ``name`` of ``case`` as triples ``(value, same, refuse)``:
    ``same`` when the value keeps the argument's shape and kind (the result's shapes must match
    the valid call's), ``refuse`` when the contract requires ParameterError for it."""
    base = case.args[name]
    cap = case.work.get(name)

    def flagged(values, refuse):
        return st.sampled_from([(v, False, refuse) for v in values])

    if name == "seed":
        return st.one_of(flagged(SEED_GOOD, False), flagged(SEED_BAD, True))
    if isinstance(base, str):
        return flagged(CHOICE_VALUES, True)
    if isinstance(base, bool):
        return flagged([None, 1.5, "x"], False)
    if _is_size_like(base):
        good = [v for v in INT_GOOD if cap is None or not isinstance(v, numbers.Real) or float(v) <= cap]
        return st.one_of(flagged(good, False), flagged(INT_BAD, True),
                         st.integers(-3, cap if cap is not None else 64).map(lambda v: (v, False, False)))
    if isinstance(base, float):
        same = st.one_of(st.sampled_from(REAL_GOOD), st.floats(allow_nan=False, allow_infinity=False))
        return st.one_of(same.map(lambda v: (v, np.ndim(v) == 0, False)), flagged(REAL_BAD, False))
    if isinstance(base, (np.ndarray, list, tuple)) and not _holds_objects(base):
        arr = np.asarray(base)
        if cap is not None:            # integer arrays that scale the work (e.g. sample sizes)
            return flagged([np.array([-1]), np.array([0]), np.array([2.5]), np.array([cap]),
                            np.array([np.nan]), "x", None, []], False)
        variants = array_variants(arr, name in case.exact)
        triples = [(v, isinstance(v, np.ndarray) and v.shape == arr.shape and v.dtype.kind in "fiu", False)
                   for v in variants]
        elementwise = st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=arr.size,
                               max_size=arr.size).map(lambda xs: (np.array(xs).reshape(arr.shape), True, False))
        return st.one_of(st.sampled_from(triples), elementwise) if arr.size else st.sampled_from(triples)
    if isinstance(base, (list, tuple)):        # a list of arrays (e.g. P_blocks)
        first = np.asarray(base[0])
        bad = [[], None, "x", [None], [first.astype(complex)] + list(base[1:]),
               [np.full_like(first, np.nan)] + list(base[1:])]
        return st.one_of(flagged(bad, True), flagged([list(base) + [first[:1]], [first]], False))
    raise AssertionError(f"no strategy for {name}={base!r}")


def _holds_objects(value) -> bool:
    if isinstance(value, np.ndarray):
        return False
    return any(isinstance(v, (np.ndarray, list, tuple)) for v in value)


def perturbable(case) -> list[str]:
    return [n for n, v in case.args.items() if n not in case.fixed and v is not None]


# ------------------------------------------------------------------------------ result checks
def leaves(x, path="result"):
    """Every number or numeric array inside a result (arrays, scalars, tuples, dicts, dataclasses)."""
    if x is None or isinstance(x, (str, bytes, bool, np.bool_)):
        return
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        for f in dataclasses.fields(x):
            yield from leaves(getattr(x, f.name), f"{path}.{f.name}")
    elif isinstance(x, dict):
        for k, v in x.items():
            yield from leaves(v, f"{path}[{k!r}]")
    elif isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            yield from leaves(v, f"{path}[{i}]")
    elif isinstance(x, np.ndarray):
        if x.dtype == object:
            for i, v in enumerate(x.flat):
                yield from leaves(v, f"{path}.flat[{i}]")
        elif x.dtype.kind in "fciub":
            yield path, x
    elif isinstance(x, (int, float, complex, np.number)):
        yield path, np.asarray(x)
    elif getattr(x, "is_finite", None) is True and getattr(x, "is_real", None) is True:
        yield path, np.zeros(())               # an exact finite real SymPy number (may exceed the float range)
    else:
        try:                                   # SymPy / mpmath numbers: finite if convertible
            yield path, np.asarray(complex(x))
        except (TypeError, ValueError, OverflowError):
            return


def check_result(case, result, same_shape: bool, baseline_shapes) -> None:
    for path, arr in leaves(result):
        if arr.dtype.kind == "c":
            assert not np.any(arr.imag), f"{path} is complex: {arr!r}"
            arr = arr.real
        if arr.dtype.kind == "f" and not case.nan_ok:
            assert np.all(np.isfinite(arr)), f"{path} is not finite: {arr!r}"[:400]
    if same_shape and baseline_shapes is not None:
        shapes = [(p, a.shape) for p, a in leaves(result)]
        assert shapes == baseline_shapes, f"shapes {shapes} differ from the valid call's {baseline_shapes}"[:400]


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang(f"call used more than {CALL_CPU_SECONDS} s of CPU time")


def call(case, args, timed: bool = True):
    old = signal.signal(signal.SIGPROF, _alarm)
    if timed:
        signal.setitimer(signal.ITIMER_PROF, CALL_CPU_SECONDS)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return case.fn(**args)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


_BASELINES: dict[str, list] = {}


def baseline_shapes(name):
    if name not in _BASELINES:
        case = CASES[name]
        _BASELINES[name] = [(p, a.shape) for p, a in leaves(call(case, dict(case.args), timed=False))]
    return _BASELINES[name]


# ------------------------------------------------------------------------------ tests
def test_every_public_callable_is_driven_or_skipped():
    public = set(public_callables())
    driven = {n.split("[")[0] for n in CASES}
    missing = public - driven - set(SKIP)
    stale = (driven | set(SKIP)) - public
    assert not missing, f"public callables neither driven nor skipped: {sorted(missing)}"
    assert not stale, f"cases or skips for names that are not public callables: {sorted(stale)}"
    assert not driven & set(SKIP), f"both driven and skipped: {sorted(driven & set(SKIP))}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_valid_call_gives_a_finite_result(name):
    case = CASES[name]
    result = call(case, dict(case.args), timed=False)
    check_result(case, result, False, None)


def drive(name: str, examples: int) -> None:
    case = CASES[name]
    params = perturbable(case)
    if not params:
        pytest.skip("no perturbable argument")
    shapes = baseline_shapes(name)

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck), phases=PHASES)
    @given(st.data())
    def run(data):
        param = data.draw(st.sampled_from(params), label="param")
        value, same, refuse = data.draw(strategy(case, param), label="value")
        args = dict(case.args)
        args[param] = value
        base = case.args[param]
        refuse = refuse and not (value is None and param in case.none_input)
        if not isinstance(base, (str, bool)) and not (isinstance(base, (list, tuple)) and _holds_objects(base)):
            refuse = refuse or not_a_number(value, param in case.exact, param in case.nan_input,
                                            param in case.none_input, param in case.mask_input)
        try:
            result = call(case, args)
        except ParameterError as exc:
            assert str(exc) and "\n" not in str(exc), f"ParameterError message must be one line: {exc!r}"
            return
        except Exception as exc:  # noqa: BLE001 -- any other exception is the finding
            raise AssertionError(f"{name}({param}={value!r}) raised {type(exc).__name__}: {exc}"[:600]) from exc
        assert not refuse, f"{name}({param}={value!r}) accepted a value that is not a number or not valid"[:600]
        try:
            check_result(case, result, same and param not in case.shape_free, shapes)
        except AssertionError as exc:
            raise AssertionError(f"{name}({param}={value!r}): {exc}"[:800]) from None

    run()


def canonical_bad(case, name: str) -> list:
    """A fixed set of values of the wrong kind for argument ``name``: each must be refused."""
    base = case.args[name]
    none = [] if name in case.none_input else [None]
    if name == "seed":
        return [2 ** 64, -1, 1.5, True, "7"] + none
    if isinstance(base, str):
        return ["nope", "", 1] + none
    if _is_size_like(base):
        return [1.5, "3", True, math.nan, 1 + 0j] + none
    if isinstance(base, float):
        return ["1.5", True, 1 + 1j, math.nan, math.inf, Obj()] + none
    if isinstance(base, (list, tuple)) and _holds_objects(base):
        return ["x", [None]] + none
    arr = np.asarray(base)
    bad = [arr.astype(str), arr.astype(complex) + 1j, None, "1, 2", Obj()]
    if name not in case.mask_input:
        bad.append(arr.astype(bool))
    if name not in case.exact:
        bad.append(arr.astype(object))
    if arr.size and arr.dtype.kind in "fiu":
        with_inf = arr.astype(float)
        with_inf.flat[0] = np.inf
        bad.append(with_inf)
        if name not in case.nan_input:
            with_nan = arr.astype(float)
            with_nan.flat[0] = np.nan
            bad.append(with_nan)
    return [v for v in bad if not (v is None and name in case.none_input)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_of_the_wrong_kind_are_refused(name):
    """Deterministic sweep: every argument, a fixed set of non-numbers (strings, booleans, None,
    complex, NaN, inf, object arrays, invalid choices and seeds) -> ParameterError in one line."""
    case = CASES[name]
    for param in perturbable(case):
        if param in case.work and not _is_size_like(case.args[param]) and not isinstance(case.args[param], float):
            continue                                      # work-scaling integer arrays: covered by the strategy
        for value in canonical_bad(case, param):
            args = dict(case.args)
            args[param] = value
            try:
                call(case, args)
            except ParameterError as exc:
                assert "\n" not in str(exc), f"{name}({param}={value!r}): message not one line: {exc!r}"
                continue
            except Exception as exc:  # noqa: BLE001
                raise AssertionError(f"{name}({param}={value!r}) raised {type(exc).__name__}: {exc}"[:600]) from exc
            raise AssertionError(f"{name}({param}={value!r}) accepted a value of the wrong kind"[:600])


@pytest.mark.parametrize("name", sorted(CASES))
def test_adversarial_argument(name):
    drive(name, CASES[name].examples or EXAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_adversarial_argument_deep(name):
    drive(name, 10 * (CASES[name].examples or EXAMPLES) if CASES[name].examples else DEEP_EXAMPLES)


# ------------------------------------------------------------------------------ generic kinds
CODE_STRING = "__import__('os').getpid()"
"""A string that is Python code: a function that evaluated it would return this process's id."""
PROBE_MODULE = "theorylab_eval_probe"
PROBE_STRING = f"__import__({PROBE_MODULE!r})"
"""Code whose evaluation is visible: it imports a module that nothing else imports (written by :func:`eval_probe`)."""
GENERIC_KINDS = ("nan", "inf", "-inf", "None", "code", "empty", "mismatch")


@pytest.fixture(scope="module")
def eval_probe(tmp_path_factory):
    """Put the probe module on sys.path: evaluating :data:`PROBE_STRING` would import it."""
    folder = tmp_path_factory.mktemp("eval-probe")
    (folder / f"{PROBE_MODULE}.py").write_text("EVALUATED = True\n")
    sys.path.insert(0, str(folder))
    yield
    sys.path.remove(str(folder))
    sys.modules.pop(PROBE_MODULE, None)


def test_the_eval_probe_sees_an_evaluation(eval_probe):
    """The probe can fail: SymPy's sympify (what symbolic.exact used) evaluates the string and imports it."""
    import sympy

    sys.modules.pop(PROBE_MODULE, None)
    sympy.sympify(PROBE_STRING)
    assert PROBE_MODULE in sys.modules
    sys.modules.pop(PROBE_MODULE, None)


def _numeric_array(value) -> np.ndarray | None:
    """``value`` as an array if it is a numeric array argument of ndim >= 1 (not a list of arrays), else None."""
    if isinstance(value, (list, tuple)) and (not value or _holds_objects(value)):
        return None
    if not isinstance(value, (np.ndarray, list, tuple)):
        return None
    arr = np.asarray(value)
    return arr if arr.ndim and arr.dtype.kind in "fiu" else None


def paired_arrays(case) -> list[str]:
    """The arguments of the ``mismatch`` kind: numeric arrays whose shape the function relates to another's
    (two or more non-fixed arrays that are not ``shape_free``)."""
    names = [n for n in perturbable(case) if n not in case.shape_free and _numeric_array(case.args[n]) is not None]
    return names if len(names) >= 2 else []


def generic_values(case, name: str) -> list[tuple[str, object]]:
    """``(kind, value)`` for argument ``name``: each must be refused with ParameterError."""
    base = case.args[name]
    arr = _numeric_array(base)
    out = []
    for kind, x in (("nan", math.nan), ("inf", math.inf), ("-inf", -math.inf)):
        out.append((kind, x))
        if arr is not None and arr.size:
            one = arr.astype(float)
            one.flat[0] = x
            out.append((kind, one))
    out += [("None", None), ("code", CODE_STRING), ("code", PROBE_STRING), ("empty", np.array([]))]
    if arr is not None and arr.ndim >= 2:
        out.append(("empty", np.zeros((0,) + arr.shape[1:])))
    if name in paired_arrays(case):
        other = arr[..., :-1] if arr.shape[-1] >= 3 else np.concatenate([arr, arr[..., :1]], axis=-1)   # not broadcastable (unless 1)
        out.append(("mismatch", other))
    return out


def applies(case, name: str, kind: str) -> bool:
    """Whether ``kind`` must be refused for argument ``name`` (documented inputs and the surface's
    :attr:`Case.not_applicable` data say where not)."""
    if kind in case.not_applicable or f"{kind}:{name}" in case.not_applicable:
        return False
    return not ((kind == "nan" and name in case.nan_input) or (kind == "None" and name in case.none_input)
                or (kind == "empty" and name in case.empty_input))


def test_not_applicable_entries_name_real_kinds_and_arguments():
    """Every ``not_applicable`` entry of the surface names a generic kind and an argument of its call (with a
    reason), and every ``empty_input`` an argument."""
    stale = []
    for name, case in CASES.items():
        for key, reason in case.not_applicable.items():
            kind, _, arg = key.partition(":")
            if kind not in GENERIC_KINDS or (arg and arg not in case.args) or not reason.strip():
                stale.append(f"{name}: {key!r}")
        stale += [f"{name}: empty_input {arg!r}" for arg in case.empty_input if arg not in case.args]
    assert not stale, f"not_applicable entries without a kind, argument or reason: {stale}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_generic_kinds_are_refused(name, eval_probe):
    """Every argument of every driven call, the generic kinds: NaN, inf, -inf (as the value, and as an entry
    of an array argument), None, a string of Python code, an empty array, and (where the function takes two
    related arrays) a mismatched shape -> ParameterError (ResourceError included) in one line, the code never
    evaluated. A return or any other exception is a finding, listed all at once."""
    case = CASES[name]
    findings = []
    for param in perturbable(case):
        for kind, value in generic_values(case, param):
            if not applies(case, param, kind):
                continue
            args = dict(case.args)
            args[param] = value
            sys.modules.pop(PROBE_MODULE, None)
            try:
                result = call(case, args)
                outcome = f"returned {describe_result(result)}"
            except ParameterError as exc:
                outcome = None if "\n" not in str(exc) else f"ParameterError message not one line: {exc!r}"
            except Exception as exc:  # noqa: BLE001 -- any other exception is the finding
                outcome = f"raised {type(exc).__name__}: {exc}"
            if PROBE_MODULE in sys.modules:
                outcome = f"EVALUATED the string ({outcome or 'then refused it'})"
            if outcome:
                findings.append(f"[{kind}] {name}({param}={_short(value)}) {outcome}"[:300])
    assert not findings, f"{len(findings)} generic-kind findings:\n" + "\n".join(findings)


def _short(value) -> str:
    if isinstance(value, np.ndarray):
        return f"array{value.shape}" + ("" if not value.size else f"[{value.flat[0]}...]")
    return repr(value)


def describe_result(result) -> str:
    values = [a for _, a in leaves(result)]
    flat = np.concatenate([np.ravel(a).astype(complex) for a in values]) if values else np.zeros(0)
    return (f"{type(result).__name__}" + (f" with {flat.size} numbers, first {flat[0].real:g}" if flat.size else ""))

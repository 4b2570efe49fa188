"""The library API contract (docs/api.md): each hostile-input case of issue 11, before -> after.

Silent NaNs that have a defined value now return it; invalid inputs raise ParameterError;
seeds are integers in [0, 2^64) in every entry point, whatever the first call was.
"""
import inspect

import numpy as np
import pytest

from theorylab import ParameterError
from theorylab.psa import compare
from theorylab.errors import derived_seed, real_array, seed_int
from theorylab.graded import grades, ladder as lad, prereg
from theorylab.nn import tasks, train, trainstats
from theorylab.plga import operator as op
from theorylab.psa import transition
from theorylab.psa import mc_crossing, montecarlo as competition
from theorylab.psa import quadrature as exact
from theorylab.psa import induction
from theorylab.psa import moments as psa_moments, positional
from theorylab.graded import ladder_sim as sladder
from theorylab.graded import pilot_cost
from theorylab.psa import observables, peaks
from theorylab import rng
from theorylab.psa import row_stats_mc

ALPHA, TAU = [0.3, 0.7], [0.6, 0.4]


# ------------------------------------------------------------------ silent NaNs with a defined value
@pytest.mark.parametrize("scale", [1e200, 1e-200, 2.0 ** 1000, 2.0 ** -1000])
def test_Lambda_is_scale_invariant_at_extreme_grades(scale):
    g = np.array([1.0, 1.7])
    assert grades.Lambda(scale * g, ALPHA, TAU) == pytest.approx(grades.Lambda(g, ALPHA, TAU), rel=1e-15)
    assert grades.Lambda([scale, scale], ALPHA, TAU) == pytest.approx(1.0, rel=1e-15)   # was NaN


def test_Lambda_beyond_the_float_range_is_refused_not_inf():
    assert grades.Lambda([1e100, 1.0], ALPHA, TAU) == pytest.approx(0.7 * 0.6 * 1e200, rel=1e-12)
    with pytest.raises(ParameterError, match="^g: Lambda overflows"):
        grades.Lambda([1e200, 1.0], ALPHA, TAU)
    assert grades.Lambda_q([1e300, 1e300], ALPHA, TAU) == pytest.approx(1.0, rel=1e-15)   # q -> q + c


def test_Lambda_normalisation_leaves_ordinary_grades_bit_for_bit():
    rng_ = np.random.default_rng(0)
    for _ in range(50):
        a, t = rng_.dirichlet(np.ones(5)), rng_.dirichlet(np.ones(5))
        g = np.exp(rng_.normal(size=5))
        plain = np.sum(a * g ** -2.0) * np.sum(t * g ** 2.0)
        assert grades.Lambda(g, a, t) == pytest.approx(plain, rel=4e-16)


@pytest.mark.parametrize("sigma", [1e10, 1e100, 1e300, 1.7e308])
def test_mass_given_tends_to_two_to_the_minus_m_for_huge_sigma(sigma):
    assert exact.mass_given(0.0, sigma, 5) == pytest.approx(2.0 ** -5, rel=1e-12)      # 1e300: was NaN
    assert exact.mass_given(3.0, sigma, 7) == pytest.approx(2.0 ** -7, rel=1e-8)


def test_mass_given_edge_values():
    assert exact.mass_given(0.0, 1.0, 0) == 1.0                                           # no distractor
    assert exact.mass_given(1e300, 1.0, 5) == pytest.approx(1.0, abs=1e-15)              # target far above
    assert exact.mass_given(-1e300, 1.0, 5) == 0.0                                       # target far below


def test_layer_norm_of_a_constant_row_with_eps_zero_is_zero_plus_beta():
    beta = np.array([0.5, -1.0, 2.0])
    out = op.layer_norm(np.full((2, 3), 7.0), beta=beta, eps=0.0)                       # was NaN
    np.testing.assert_array_equal(out, np.broadcast_to(beta, (2, 3)))
    np.testing.assert_array_equal(op.layer_norm(np.full((1, 3), 7.0), eps=1e-6), np.zeros((1, 3)))


def test_layer_norm_is_exact_at_extreme_scales_and_unchanged_in_range():
    rng_ = np.random.default_rng(1)
    x = rng_.normal(size=(4, 6))
    ref = op.layer_norm(x, eps=0.0)
    for scale in (2.0 ** 600, 2.0 ** -600, 1e200, 1e-200):
        np.testing.assert_allclose(op.layer_norm(scale * x, eps=0.0), ref, rtol=1e-14, atol=1e-14)
    for eps in (0.0, 1e-6, 1.0):                     # the power-of-two rescaling is exact: same bits
        centred = x - x.mean(axis=-1, keepdims=True)
        plain = centred / (np.mean(centred * centred, axis=-1, keepdims=True) + eps) ** 0.5
        np.testing.assert_array_equal(op.layer_norm(x, eps=eps), plain)


def test_induction_bulk_moments_need_T_at_least_9():
    for T in (5, 6, 7, 8):                           # documented minimum of simulate: 5; moments were NaN
        sample = induction.simulate(dk=4, T=T, samples=8)
        with pytest.raises(ParameterError, match="T must be >= 9"):
            psa_moments.channel_moments(sample)
    m = psa_moments.channel_moments(induction.simulate(dk=4, T=psa_moments.BULK_MIN_T, samples=8))
    assert np.all(np.isfinite(m.bulk_var)) and np.all(np.isfinite(m.lag1)) and np.isfinite(m.bulk_cov34)


@pytest.mark.parametrize("variant", ["t4-only", "t3-inclusive", "key-only", "symmetric-key-convention"])
def test_argmax_probability_at_extreme_couplings_is_the_limit(variant):
    dk, T = 64.0, 512.0
    large, small = (float(transition.argmax_probability(variant, dk, T, g)) for g in (1e200, 1e-200))  # were NaN
    assert large == pytest.approx(float(transition.argmax_probability(variant, dk, T)), rel=1e-12)
    assert small == pytest.approx(float(transition.argmax_probability(variant, dk, T, 2.0 ** -99)), rel=1e-12)
    across = [float(transition.argmax_probability(variant, dk, T, g)) for g in (2.0 ** 100, 2.0 ** 100 * 1.0001)]
    assert across[0] == pytest.approx(across[1], rel=1e-12)                  # continuous at the switch


# ------------------------------------------------------------------ invalid input -> ParameterError
@pytest.mark.parametrize("call, name", [
    (lambda: exact.one_minus_phi([0.0], 0.0, -1), "sigma"),                 # was 0.618
    (lambda: op.row_perturbation_bound(np.ones(3), np.ones((4, 5)), np.ones((2, 2))), "q_t (dk,), K"),   # was 8.94
    (lambda: grades.Lambda([1 + 1j, 1.0], ALPHA, TAU), "g"),
    (lambda: grades.Lambda(["1.5", "1"], ALPHA, TAU), "g"),                 # was 1.17 (converted)
    (lambda: grades.Lambda([True, True], ALPHA, TAU), "g"),                 # was 1.0 (read as 1)
    (lambda: exact.mass_given("1.5", 1.0, 5), "delta"),                     # was 0.39 (converted)
    (lambda: op.rms(["1", "2"]), "X"),                                      # was 1.58 (converted)
    (lambda: op.sigmoid("0.5"), "u"),
    (lambda: grades.geometric_parameters("0.5", 0.3), "nu"),
    (lambda: mc_crossing.first_crossing([], []), "gamma"),                  # was IndexError
    (lambda: compare.validate_grid([]), "grid"),
    (lambda: compare.validate_grid(5), "grid"),                             # was TypeError
    (lambda: transition.t4_band([1.0, 2.0], [10.0, 20.0, 30.0]), "dk and T"),   # was a broadcast ValueError
    (lambda: op.perron_frobenius(np.zeros((0, 0))), "M"),
    (lambda: op.notears_h(np.zeros((0, 0))), "W"),
    (lambda: exact.integer_context_length([3]), "T"),
])
def test_invalid_input_names_the_parameter(call, name):
    with pytest.raises(ParameterError) as err:
        call()
    msg = str(err.value)
    assert msg.startswith(name) and "\n" not in msg, msg


def test_real_array_refuses_what_is_not_a_real_number():
    for value in (1 + 1j, "1.5", b"1", True, np.bool_(False), None, [1, "a"], np.array([1.0], dtype=object),
                  [[1.0, 2.0], [3.0]], np.ones(2, dtype=complex), np.array(["1"])):
        with pytest.raises(ParameterError, match="^x must be a real number"):
            real_array("x", value)
    assert real_array("x", 10 ** 3) == 1000.0 and real_array("x", np.float32(0.5)) == 0.5
    with pytest.raises(ParameterError, match="finite"):
        real_array("x", 10 ** 400)                                          # beyond float: inf


# ------------------------------------------------------------------ seeds
def test_a_small_seed_then_the_largest_seed_in_one_process():
    """Numba typed the first seed as int64, then 2^64 - 1 raised OverflowError; now both run."""
    g = np.array([1.0])
    small = competition.simulate_mass("t4-only", 64.0, 16, g, samples=8, seed=1)
    big = competition.simulate_mass("t4-only", 64.0, 16, g, samples=8, seed=2 ** 64 - 1)
    again = competition.simulate_mass("t4-only", 64.0, 16, g, samples=8, seed=1)
    assert np.isfinite(small.mass).all() and np.isfinite(big.mass).all()
    # same code run twice: bitwise (seed 1 again)
    np.testing.assert_array_equal(small.mass, again.mass)
    assert not np.array_equal(small.mass, big.mass)
    per = competition.per_sample_mass("t4-only", 64.0, 16, g, 0, 8, seed=2 ** 64 - 1, dtype="float32")
    np.testing.assert_allclose(per.mean(axis=0), big.mass, rtol=1e-12)
    assert rng.normals(1, [0], [0]).shape == rng.normals(2 ** 64 - 1, [0], [0]).shape == (1, 1, 2)


SEEDED = {
    "theorylab.plga.params.init_params": lambda seed: op.init_params(2, seed=seed),
    "theorylab.nn.transformer.random_decoder": lambda seed: __import__("theorylab.nn.decoder", fromlist=["x"])
    .random_decoder(vocab=4, d=4, n_head=1, n_layer=1, seed=seed),
    "theorylab.nn.tasks.induction_sequences": lambda seed: __import__("theorylab.nn.tasks", fromlist=["x"])
    .induction_sequences(2, 4, 4, seed=seed),
    "theorylab.nn.tasks.embeddings": lambda seed: __import__("theorylab.nn.tasks", fromlist=["x"])
    .embeddings(2, 2, seed=seed),
    "theorylab.rng.normals": lambda seed: rng.normals(seed, [0], [0]),
    "theorylab.psa.montecarlo.simulate_mass": lambda seed: competition.simulate_mass("t4-only", 8.0, 8, [1.0],
                                                                                      samples=4, seed=seed),
    "theorylab.psa.montecarlo.per_sample_mass": lambda seed: competition.per_sample_mass("t4-only", 8.0, 8, [1.0],
                                                                                          0, 2, seed=seed),
    "theorylab.psa.mc_crossing.mc_gamma_c": lambda seed: mc_crossing.mc_gamma_c("t4-only", 64.0, 16, samples=40,
                                                                                seed=seed, fine_points=4),
    "theorylab.psa.induction.simulate": lambda seed: induction.simulate(4, 9, samples=2, seed=seed),
    "theorylab.psa.positional.coriolis_band_ratios": lambda seed: positional.coriolis_band_ratios(2, 3, [0.1],
                                                                                                seed=seed),
    "theorylab.psa.positional.cesaro_averages": lambda seed: positional.cesaro_averages(4, [0.1], seed=seed),
    "theorylab.graded.risk_sim.simulate": lambda seed: __import__("theorylab.graded.risk_sim", fromlist=["x"])
    .simulate(__import__("theorylab.graded.envelope", fromlist=["x"]).stratified_model(0.6, 0.3, 2, 4), [8],
              reps=2, seed=seed),
    "theorylab.psa.grid.compare_grid": lambda seed: compare.compare_grid("t4-only", [(64.0, 16)], samples=40,
                                                                        seed=seed),
    "theorylab.psa.compare.t3_t4_crossover": lambda seed: compare.t3_t4_crossover(4, 9, samples=40, seed=seed),
    "theorylab.psa.compare.band_edge_check": lambda seed: compare.band_edge_check(gammas=(2.0,), samples=8, seed=seed),
    "theorylab.psa.compare.plateau_check": lambda seed: compare.plateau_check(((16.0, 8),), samples=8, seed=seed),
    "theorylab.psa.compare.calibrate_condensation_c": lambda seed: compare.calibrate_condensation_c(
        ((16.0, 12),), samples=40, seed=seed),
}

DESIGN = lad.geometric_design(0.6, 0.3, levels=2, d=4)
PILOT = lad.draw_pilot(DESIGN, 8, seed=0, blocks=4)
PREREG = prereg.preregister(DESIGN, 8, seed=0, bootstrap=4)
TINY = train.TrainConfig(pairs=2, alphabet=4, padding=1, d_model=8, dk=4, steps=2, batch=4, warmup=1, eval_size=8)
MS = [2, 4, 8]
RISKS = sladder.learning_curves(DESIGN, [a.g for a in PREREG.arms], MS, reps=4)
PEAK = dict(method="mc", samples=40, fine_points=4)
SEEDED.update({
    "theorylab.graded.ladder.draw_pilot": lambda seed: lad.draw_pilot(DESIGN, 8, seed=seed),
    "theorylab.graded.ladder.bootstrap_weights": lambda seed: lad.bootstrap_weights(PILOT, 4, seed),
    "theorylab.graded.ladder.random_arm": lambda seed: lad.random_arm(DESIGN, seed),
    "theorylab.graded.ladder.build_arms": lambda seed: lad.build_arms(DESIGN, PILOT, seed),
    "theorylab.graded.prereg.preregister": lambda seed: prereg.preregister(DESIGN, 8, seed=seed, bootstrap=4),
    "theorylab.nn.tasks.associative_recall": lambda seed: tasks.associative_recall(2, 2, 4, seed=seed),
    "theorylab.nn.train.init_model": lambda seed: train.init_model(TINY, seed),
    "theorylab.nn.train.train": lambda seed: train.train(TINY, seed),
    "theorylab.nn.trainstats.bootstrap_gamma_c": lambda seed: trainstats.bootstrap_gamma_c(
        [0.0, 1.0, 2.0], [[0.1, 0.6, 0.9], [0.2, 0.5, 0.8]], draws=4, seed=seed),
    "theorylab.nn.ladder.ladder_slope": lambda seed: __import__("theorylab.nn.ladder", fromlist=["x"]).ladder_slope(
        [8, 16], [0.0, 1.0, 2.0], [[[0.1, 0.6, 0.9], [0.2, 0.5, 0.8]]] * 2, "plateau-midpoint", draws=4, seed=seed),
    "theorylab.graded.ladder_sim.learning_curves": lambda seed: sladder.learning_curves(DESIGN, [[1.0, 1.0]], MS, reps=2,
                                                                                 seed=seed),
    "theorylab.graded.ladder_sim.measure": lambda seed: sladder.measure(PREREG, MS, reps=4, seed=seed, bootstrap=4),
    "theorylab.graded.ladder_sim.summarize": lambda seed: sladder.summarize(PREREG, MS, RISKS, seed=seed, bootstrap=4),
    "theorylab.graded.pilot_cost.degradation": lambda seed: pilot_cost.degradation(DESIGN, [6, 8, 12], draws=2, seed=seed,
                                                                         reps=4, m_values=MS),
    "theorylab.psa.observables.mass_half": lambda seed: observables.mass_half("t4-only", 64.0, 16, seed=seed),
    "theorylab.psa.observables.half_plateau": lambda seed: observables.half_plateau("t4-only", 64.0, 16,
                                                                                    method="mc", samples=40, seed=seed),
    "theorylab.psa.peaks.inflection": lambda seed: peaks.inflection("t4-only", 64.0, 16, seed=seed,
                                                                                **PEAK),
    "theorylab.psa.peaks.entropy_peak": lambda seed: peaks.entropy_peak("t4-only", 64.0, 16, seed=seed,
                                                                                    **PEAK),
    "theorylab.psa.peaks.distractor_entropy_peak": lambda seed: peaks.distractor_entropy_peak(
        "t4-only", 64.0, 16, seed=seed, **PEAK),
    "theorylab.psa.row_stats_mc.per_sample_row_stats": lambda seed: row_stats_mc.per_sample_row_stats(
        "t4-only", 8.0, 8, [1.0], 0, 2, seed=seed),
    "theorylab.psa.row_stats_mc.simulate_row_stats": lambda seed: row_stats_mc.simulate_row_stats(
        "t4-only", 8.0, 8, [1.0], samples=4, seed=seed),
})


def test_every_seed_taking_function_is_in_the_seed_table():
    from api_surface import SKIP, public_callables

    kernels = {n for n, why in SKIP.items() if why.startswith("Numba kernel")}   # machine words, not seeds
    seeded = {name for name, fn in public_callables().items()
              if callable(fn) and not inspect.isclass(fn) and "seed" in _parameters(fn) and name not in kernels}
    assert seeded == set(SEEDED), sorted(seeded ^ set(SEEDED))


def _parameters(fn):
    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}


@pytest.mark.parametrize("name", sorted(SEEDED))
def test_seeds_are_integers_in_0_to_2_to_the_64_everywhere(name):
    call = SEEDED[name]
    call(2 ** 64 - 1)
    for bad in (2 ** 64, -1, 1.5, 3.0, True, "7", None):
        with pytest.raises(ParameterError, match="seed must be an integer in \\[0, 2\\^64\\)"):
            call(bad)


def test_derived_seeds_wrap_modulo_2_to_the_64():
    assert derived_seed(2 ** 64 - 1, 1) == 0 and derived_seed(5, 3) == 8
    assert seed_int("seed", np.uint64(2 ** 64 - 1)) == 2 ** 64 - 1
    res = compare.compare_grid("t4-only", [(64.0, 16), (64.0, 32)], samples=40, seed=2 ** 64 - 1)
    assert [r["seed"] for r in res.rows] == [2 ** 64 - 1, 0]


# ------------------------------------------------------------------ memory
def test_allocations_beyond_the_memory_limit_are_refused_up_front(monkeypatch):
    from theorylab.nn import tasks

    monkeypatch.setenv("THEORYLAB_MAX_MEMORY", "1M")
    with pytest.raises(ParameterError, match="^n, vocab too large: the call needs .* over the limit 1 MiB"):
        tasks.induction_sequences(10 ** 6, 4, 10)
    assert tasks.induction_sequences(4, 4, 10).tokens.shape == (4, 4)
    monkeypatch.setenv("THEORYLAB_MAX_MEMORY", "lots")
    with pytest.raises(ParameterError, match="^THEORYLAB_MAX_MEMORY must be"):
        tasks.induction_sequences(4, 4, 10)


# ------------------------------------------------------------------ files read by the library
@pytest.mark.parametrize("name, content", [
    ("bin.csv", b"\xff\xfe\x00"),                          # was UnicodeDecodeError
    ("short.csv", b"dk,T\n64\n"),                          # was TypeError (None cell)
    ("abc.csv", b"dk,T\nabc,16\n"),                        # was ValueError outside the handler
    ("three.json", b"[[64, 16, 3]]"),                      # was ValueError (unpacking)
    ("bool.json", b"[[true, 16]]"),                        # was read as dk = 1.0
    ("deep.json", b"[" * 100_000 + b"]" * 100_000),        # was RecursionError
    ("empty.csv", b""),
])
def test_malformed_grid_files_are_refused_in_one_line(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ParameterError) as err:
        compare.read_grid(str(path))
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("content", [b"\xff\xfe\x00", b"nan, 0.5", b"1e400, 0.2", b"[]"])
def test_malformed_vector_files_are_refused(tmp_path, content):
    from theorylab.graded.io import read_vector

    path = tmp_path / ("v.json" if content == b"[]" else "v.txt")
    path.write_bytes(content)
    with pytest.raises(ParameterError):
        read_vector("alpha", str(path))


@pytest.mark.parametrize("bad", [None, 1, True, b"grid.csv", ["grid.csv"]])
def test_file_cost_estimates_refuse_what_is_not_a_path(bad):
    """Every string is a valid argument of the file-input cost estimates (the adversarial suite skips them);
    anything else is refused (True used to stat stdout, None raised TypeError)."""
    from theorylab.graded.io import read_vector_cost

    for cost in (compare.read_grid_cost, read_vector_cost):
        with pytest.raises(ParameterError):
            cost(bad)


# ------------------------------------------------------------------ strings are data, never code
CODE = "__import__('os').getpid()"


@pytest.mark.parametrize("value, match", [
    (CODE, "^value must be a finite real number or a SymPy expression .got a string .*strings are not parsed"),
    ("no-such-name", "got a string 'no-such-name'"),                 # was a SymPy Symbol
    (float("nan"), r"\(got nan\)"), (float("inf"), r"\(got inf\)"), (float("-inf"), r"\(got -inf\)"),  # were 0
    (None, r"\(got None\)"),                                         # was AttributeError
    (True, r"\(got True\)"), (1 + 2j, "got"), ([1, 2], r"\(got \[1, 2\]\)"),
])
def test_exact_refuses_strings_and_non_finite_values(value, match):
    from theorylab.symbolic.exact import exact

    with pytest.raises(ParameterError, match=match):
        exact(value)


def test_exact_converts_numbers_by_type():
    import fractions

    import sympy as sp

    from theorylab.symbolic.exact import exact

    x = sp.Symbol("x")
    assert exact(3) == sp.Integer(3) and exact(np.int64(-2)) == -2 and exact(10**400) == sp.Integer(10**400)
    assert exact(0.1) == sp.Rational(3602879701896397, 2**55)         # the float's exact binary value
    assert exact(fractions.Fraction(1, 3)) == sp.Rational(1, 3)       # was the float 1/3's rational
    assert exact(np.array(0.5)) == sp.Rational(1, 2) and exact(0.5 * x) == x / 2
    with pytest.raises(ParameterError, match="without infinities or NaN"):
        exact(sp.oo * x)


def test_symbolic_helpers_never_evaluate_a_string(tmp_path, monkeypatch):
    """Each helper that handed its input to a SymPy function that sympifies (Matrix, expand, together, ...)."""
    import sys

    import sympy as sp

    from theorylab.symbolic import exact as ex, graded as sg, plga as sy, psa as sps

    (tmp_path / "theorylab_eval_probe_c.py").write_text("EVALUATED = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    probe, x = "__import__('theorylab_eval_probe_c')", sp.Symbol("x")
    calls = [lambda: ex.exact(probe), lambda: ex.matrix([[probe, x]]), lambda: ex.is_zero(probe, [x]),
             lambda: ex.is_zero(x - x, [probe]), lambda: ex.equal(probe, x, [x]), lambda: ex.positive(probe),
             lambda: ex.matrix_is_zero([[probe]], [x]), lambda: ex.symbols_of([probe]),
             lambda: sg.is_zero_rational(probe), lambda: sg.matrix_is_zero([[probe]]), lambda: sg.to_exact([probe]),
             lambda: sy.plane_rotation(probe, x), lambda: sy.torus_rotation([(probe, x)]),
             lambda: sy.torus_haar_average([[probe, x], [x, x]]), lambda: sy.span_equal([[[probe]]], [[[x]]]),
             lambda: sy.closed_walk_sum([[probe]], 2), lambda: sy.trace_power([[probe]], 2),
             lambda: sy.walk_series_value([[probe]], 2), lambda: sy.symmetric_part_eigenvalues([[probe]]),
             lambda: sy.matrix_eigenvalues([[probe]]), lambda: sps.jacobian([probe], [x]),
             lambda: sps.jacobian([x], [probe])]
    for i, call in enumerate(calls):
        sys.modules.pop("theorylab_eval_probe_c", None)
        with pytest.raises(ParameterError):
            call()
        assert "theorylab_eval_probe_c" not in sys.modules, f"call {i} evaluated the string"


def test_symbolic_helpers_still_decide_exactly():
    import sympy as sp

    from theorylab.symbolic import exact as ex, plga as sy, psa as sps

    x, y = sp.symbols("x y")
    assert ex.is_zero((x + y) ** 2 - x**2 - 2 * x * y - y**2, (x, y)) and not ex.is_zero(x - 0.5 * x, (x,))
    assert ex.equal(np.array([x, 0.25]), sp.Matrix([x, sp.Rational(1, 4)]), (x,))
    assert sy.trace_power(np.array([[1, 2], [3, 4]]), 2) == 29 and sy.closed_walk_sum([[x]], 3) == x**3
    assert sps.jacobian([x * y, 0.5 * x], [x, y]) == sp.Matrix([[y, x], [sp.Rational(1, 2), 0]])


# ------------------------------------------------------------------ cost arithmetic
@pytest.mark.parametrize("shape", [(float("nan"),), (-1, 10), ("1.5", 10), (1.5,), (True,), (None,), (-float("inf"),)])
def test_bytes_of_refuses_sizes_that_are_not_counts(shape):
    from theorylab.resources import bytes_of

    with pytest.raises(ParameterError, match=r"^shape entries must be an integer >= 0"):
        bytes_of(*shape)                                  # were nan, -80, 120, 12, 8, TypeError, -inf


def test_bytes_of_counts():
    from theorylab.resources import bytes_of

    assert bytes_of(3, 4) == 96.0 and bytes_of(3.0, np.int64(2), itemsize=4) == 24.0 and bytes_of() == 8.0
    assert bytes_of(float("inf"), 2) == float("inf") and bytes_of(10**400) == float("inf")   # hostile: refused later
    with pytest.raises(ParameterError, match="^itemsize must be an integer >= 1"):
        bytes_of(3, itemsize=0)

"""The public surface of the library packages and one valid call of each function.

Used by tests/test_api_adversarial.py, which perturbs one argument of a valid call at a
time with adversarial values and asserts: a finite result of the same structure, or
ParameterError.

* :func:`public_callables` enumerates every public callable of the library packages
  (``theorylab.psa``, ``graded``, ``plga``, ``nn``, ``sim`` except ``sweep``,
  ``symbolic``, ``compare``): every module-level function or class defined in the module
  whose name does not start with ``_``, plus the public methods of the classes.
* :data:`CASES` holds one valid call per driven callable; :data:`SKIP` the callables not
  driven, each with its reason. A test checks that the two cover the surface exactly.

Argument kinds (what the adversarial values are) are inferred from the valid value:
float -> a real number, int -> an integer, str -> a choice, float array or list -> an array
of reals; ``seed`` parameters are seeds. Objects built by other library functions
(models, parameters, samples, caches, generators) are kept as built: their own
constructors are the boundary that validates them.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import os
import pkgutil
import tempfile

import numpy as np

PACKAGES = ("theorylab.psa", "theorylab.graded", "theorylab.plga", "theorylab.nn", "theorylab.symbolic")
MODULES_EXTRA = ("theorylab.rng", "theorylab.stats")
EXCLUDED_PACKAGES = ("theorylab.sweep", "theorylab.psa.sweep", "theorylab.nn.sweep")   # sweep plumbing (also
#                                                                   psa.sweep_compute); tests/test_sweep_train.py


def library_modules() -> list[str]:
    names = []
    for pkg in PACKAGES:
        mod = importlib.import_module(pkg)
        for info in pkgutil.walk_packages(mod.__path__, pkg + "."):
            if not info.name.startswith(EXCLUDED_PACKAGES):
                names.append(info.name)
    return sorted(names) + list(MODULES_EXTRA)


def public_callables() -> dict[str, object]:
    """``{"module.name": callable}`` for every public function and class, and ``"module.Class.method"``
    for the public methods and properties of the classes."""
    out = {}
    for mn in library_modules():
        mod = importlib.import_module(mn)
        for name, obj in vars(mod).items():
            if name.startswith("_") or not callable(obj) or getattr(obj, "__module__", None) != mn:
                continue
            out[f"{mn}.{name}"] = obj
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    if inspect.isfunction(member) or isinstance(member, (property, classmethod, staticmethod)):
                        out[f"{mn}.{name}.{attr}"] = member
    return out


@dataclasses.dataclass
class Case:
    """One valid call: ``fn(**args)``.

    fixed : arguments kept as given (objects built elsewhere, callables, flags).
    nan_ok : the documented result may hold NaN/inf ("no root" is a result).
    examples : hypothesis examples for this function (default: the suite's setting).
    work : integer arguments that only scale the run time, mapped to the largest valid value the
        suite passes (the library does not bound run time; the CLI estimates it).
    shape_free : arguments whose values decide the result's shape (no shape comparison).
    exact : arguments that also take object arrays (the exact/symbolic route).
    nan_input : arguments documented to take NaN entries (missing values).
    none_input : arguments documented to take None (a default meaning, e.g. the large-g limit).
    mask_input : arguments documented to take boolean masks.
    empty_input : arguments documented to take empty arrays (an empty grid, no values).
    not_applicable : generic kinds of tests/test_api_adversarial.py (``nan``, ``inf``, ``-inf``, ``None``,
        ``code``, ``empty``, ``mismatch``) that do not apply, as ``{"kind:argument": reason}`` (or
        ``{"kind": reason}`` for every argument), each with the reason the value is valid input there.
    """

    fn: object
    args: dict
    fixed: tuple = ()
    nan_ok: bool = False
    examples: int | None = None
    work: dict = dataclasses.field(default_factory=dict)
    shape_free: tuple = ()
    exact: tuple = ()
    nan_input: tuple = ()
    none_input: tuple = ()
    mask_input: tuple = ()
    empty_input: tuple = ()
    not_applicable: dict = dataclasses.field(default_factory=dict)


def _a(*shape, seed=0, low=None):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape)
    return np.abs(x) + low if low is not None else x


def build_cases() -> tuple[dict[str, Case], dict[str, str]]:
    """The valid calls and the skip list (built lazily: constructing fixtures runs library code)."""
    from theorylab.psa import compare
    from theorylab.graded import attention as gatt, embedding, envelope, grades, io as gio, ladder as lad, optimal, prereg as pr
    from theorylab.nn import attention as att, decoder as dec, grad, ladder, optim, runner, tasks, train, trainstats
    from theorylab.nn import evaluation, specs
    from theorylab.plga import contraction, envelopes as penv, operator as op
    from theorylab.psa import crossing, deploy, scoremodel, shear, softmax, transition
    from theorylab.psa import rotary, scores, symplectic
    from theorylab.psa import laws
    from theorylab.graded import overhead
    from theorylab.psa import mc_crossing, montecarlo as competition
    from theorylab.psa import quadrature as exact
    from theorylab.graded import risk_sim as graded_risk
    from theorylab.psa import induction
    from theorylab.psa import masses, moments as psa_moments, positional
    from theorylab.graded import budget_fit
    from theorylab.graded import ladder_sim as sladder
    from theorylab.graded import pilot_cost
    from theorylab.psa import observables, peaks
    from theorylab import rng
    from theorylab.psa import row_stats
    from theorylab.psa import row_stats_mc
    from theorylab.symbolic import exact as sx, graded as sg, plga as sp_, psa as sps, softmax as ssm

    sm = scoremodel.score_model("t3-inclusive")
    design = lad.geometric_design(0.6, 0.3, levels=2, d=4)
    pilot = lad.draw_pilot(design, 8, seed=0, blocks=4)
    prereg = pr.preregister(design, 8, seed=0, bootstrap=4)
    params = op.init_params(4, seed=1)
    q4 = _a(6, 4, seed=2)
    stages = op.plga_stages(q4, params)
    model = dec.random_decoder(vocab=8, d=8, n_head=2, n_layer=1, head=specs.PSA(0.5, 0.5), seed=0)
    cache = dec.extend(model, dec.empty_cache(model), [1, 2, 3])[1]
    layer = model.layers[0]
    hc = cache.layers[0][0]
    psa_spec = specs.PSA(0.5, 0.5)
    batch = tasks.induction_sequences(4, 8, 10, seed=0)
    E = tasks.embeddings(10, 8, seed=0)
    ihead = tasks.induction_head("key-only", 1.0, 8, 8)
    sample = induction.simulate(dk=4, T=9, samples=8, seed=0)
    moments = psa_moments.channel_moments(sample)
    strat = envelope.stratified_model(0.6, 0.3, 2, 4)
    lc = strat.uniform
    alpha, tau = np.array([0.2, 0.3, 0.5]), np.array([0.5, 0.3, 0.2])
    P2 = np.linalg.qr(_a(4, 4, seed=3))[0]
    Pb = [P2[:, :2], P2[:, 2:]]
    qb = [np.array([0.0, 1.0]), np.array([2.0, 3.0])]
    g_grid = np.linspace(0.5, 1.5, 5)
    mass_curve = np.linspace(0.2, 0.8, 5)
    W = 0.3 * _a(3, 3, seed=4)
    Gm = _a(4, 4, seed=5)
    freqs2 = np.array([0.3, 0.05])
    cos2, sin2 = rotary.rope_tables(5, freqs2)
    x54 = _a(5, 4, seed=6)

    C: dict[str, Case] = {}

    def case(fn, _key=None, **kw):
        opts = {k: kw.pop(k) for k in ("fixed", "nan_ok", "examples", "work", "shape_free", "exact", "nan_input",
                                       "none_input", "mask_input", "empty_input", "not_applicable") if k in kw}
        C[_key or f"{fn.__module__}.{fn.__qualname__}"] = Case(fn, kw, **opts)

    # ------------------------------------------------------------------ psa.deploy
    case(deploy.kv_cache_floats, T=128.0, d=64.0, layers=2.0)
    case(deploy.extra_state_floats, d=64.0, layers=2.0)
    case(deploy.extra_state_fraction, T=128.0)
    case(deploy.shear_flops, d=64.0)
    case(deploy.insert_sheared, x_prev=_a(4), x=_a(4, seed=1), g=0.5, exact=("x_prev", "x"))
    case(deploy.int8_headroom_bits, g=0.5)
    case(deploy.range_growth, stream=_a(5, 2), g=0.5, exact=("stream", "g"))
    case(deploy.alternating_stream, T=5, d=2, shape_free=("T", "d"))
    # ------------------------------------------------------------------ psa.scoremodel
    case(scoremodel.score_model, variant="t4-only")
    case(scoremodel.resolve_model, variant="t4-only")
    case(scoremodel.log_count, T=512.0)
    case(scoremodel.distractors, T=512.0)
    case(scoremodel.context_length, T=512.0)
    case(scoremodel.head_width, dk=64.0)
    case(sm.gap, "theorylab.psa.scoremodel.ScoreModel.gap", g=np.array([0.5, 1.0]), dk=64.0)
    case(sm.variance, "theorylab.psa.scoremodel.ScoreModel.variance", g=np.array([0.5, 1.0]))
    # ------------------------------------------------------------------ psa.shear
    case(shear.momentum, stream=x54, axis=-2, exact=("stream",))
    case(shear.upper_shear, q=_a(3), p=_a(3, seed=1), g=0.5, exact=("q", "p", "g"))
    case(shear.lower_shear, q=_a(3), p=_a(3, seed=1), g=0.5, exact=("q", "p", "g"))
    case(shear.shear, stream=x54, g=0.5, axis=-2, exact=("stream", "g"))
    case(shear.shear_step, x_prev=_a(4), x=_a(4, seed=1), g=0.5, exact=("x_prev", "x", "g"))
    case(shear.unshear_step, y=_a(4), r_prev=_a(4, seed=1), g=0.5, exact=("y", "r_prev", "g"))
    case(symplectic.symplectic_form, d=2, shape_free=("d",))
    case(symplectic.upper_shear_matrix, g=0.5, d=2, shape_free=("d",), exact=("g",))
    case(symplectic.lower_shear_matrix, g=0.5, d=2, shape_free=("d",), exact=("g",))
    case(shear.lattice_couplings, member="symmetric", g=0.5, exact=("g",))
    case(symplectic.lattice_matrix, g_q=0.5, g_k=0.25, d=2, shape_free=("d",), exact=("g_q", "g_k"))
    case(symplectic.nonlinear_shear, q=_a(3), p=_a(3, seed=1), f=np.tanh, fixed=("f",), exact=("q", "p"))
    case(symplectic.shear_jacobian, dfdp=_a(2, 2), exact=("dfdp",))
    case(symplectic.symplectic_shear_codimension, dk=64)
    case(shear.stream_taps, g=0.5, exact=("g",))
    case(shear.stream_gain_sq, g=0.5, cos_omega=np.array([-1.0, 0.0, 1.0]), exact=("g", "cos_omega"))
    case(rotary.rope_frequencies, d=8, base=10000.0, shape_free=("d",))
    case(rotary.rope_tables, T=5, freqs=freqs2, positions=np.arange(5.0), shape_free=("T",), none_input=("positions",))
    case(rotary.rotate_pairs, x=x54, cos=cos2, sin=sin2, axis=-2, exact=("x", "cos", "sin"))
    case(rotary.rope, x=x54, freqs=10000.0, positions=np.arange(5.0), axis=-2, none_input=("positions",), exact=("x",))
    case(rotary.place_shear, x=x54, g=0.5, cos=cos2, sin=sin2, placement="post-rope", axis=-2,
         exact=("x", "g", "cos", "sin"))
    case(rotary.sheared_stream, x=x54, g=0.5, freqs=10000.0, positions=np.arange(5.0), placement="pre-rope",
         axis=-2, exact=("x", "g"), none_input=("positions",))
    case(rotary.coriolis_term, x=x54, g=0.5, cos=cos2, sin=sin2, axis=-2, exact=("x", "g", "cos", "sin"))
    case(scores.score_channels, q=x54, k=_a(5, 4, seed=7), g_q=0.5, g_k=0.25, scaled=True, fixed=("scaled",),
         exact=("g_q", "g_k"))
    case(scores.coupling_split, q=x54, k=_a(5, 4, seed=7), g_q=0.5, g_k=0.25, exact=("q", "k", "g_q", "g_k"))
    # ------------------------------------------------------------------ psa.softmax
    case(softmax.softmax, s=_a(3, 4), axis=-1, mask=np.tril(np.ones((3, 4), bool)), fixed=("mask",))
    case(softmax.softmax, "theorylab.psa.softmax.softmax[unmasked]", s=_a(3, 4), axis=-1)
    case(softmax.softmax_jacobian, p=np.array([0.2, 0.3, 0.5]), exact=("p",))
    case(softmax.softmax_response, p=np.array([0.2, 0.3, 0.5]), ds=_a(3), exact=("p", "ds"))
    # ------------------------------------------------------------------ psa.transition
    dkT = dict(dk=np.array([64.0, 128.0]), T=512.0)
    case(transition.crossover_dk, T=512.0)
    case(transition.key_only_threshold, T=512.0)
    case(transition.freezing_coupling, T=512.0)
    case(transition.t4_band, nan_ok=True, **dkT)
    case(transition.annealed_gamma_c, variant="t3-inclusive", nan_ok=True, **dkT)
    case(crossing.crossing_polynomial, model=sm, fixed=("model",), **dkT)
    case(crossing.crossing_residual, model=sm, g=0.5, fixed=("model",), **dkT)
    case(crossing.crossing_root, model=sm, newton_steps=4, fixed=("model",), nan_ok=True, work={"newton_steps": 64},
         **dkT)
    case(transition.condensed_gamma_c, T=512.0, c=0.854)
    case(transition.gamma_c, variant="t4-only", c=0.854, nan_ok=True, **dkT)
    case(transition.t4_asymptote, **dkT)
    case(transition.t3_asymptote, **dkT)
    case(transition.t4_above_one_interval, T=512.0)
    case(transition.argmax_probability, variant="t3-inclusive", g=0.7, none_input=("g",), **dkT)
    case(transition.argmax_plateau, **dkT)
    case(transition.gamma_c_cost, points=4, nan_ok=True)     # a cost estimate: inf beyond the float range
    # ------------------------------------------------------------------ psa.laws
    case(laws.band_gamma_c, dk=16.0, T_low=25.0, T_high=127.0, c=0.741)
    case(laws.power_law_fit, x=np.array([1.0, 2.0, 4.0, 8.0]), y=np.array([4.0, 3.0, 1.25, 0.75]))
    case(laws.loglog_fit, x=np.array([1.0, 2.0, 4.0, 8.0]), y=np.array([4.0, 3.0, 1.25, 0.75]))
    case(laws.power_law, prefactor=4.17, exponent=0.73, x=np.array([1.0, 12.0]))
    case(laws.implied_exponent, prefactor=4.17, y=np.array([0.8, 0.5]), x=np.array([12.0, 16.0]))
    case(laws.large_dk_exponent, variant="t3-inclusive", T=512.0, dk=np.array([256.0, 1024.0, 4096.0]), c=0.748)
    case(laws.gap_fraction, baseline=-0.254, improved=-0.461, target=-1.13)
    case(laws.chance_multiple, accuracy=np.array([0.626, 0.511]), n=np.array([24.0, 31.0]))
    # ------------------------------------------------------------------ graded.overhead
    case(overhead.grading_overhead, d=1024, layers=24, heads=16, vocab=50257, params=345e6)
    # ------------------------------------------------------------------ graded.attention, embedding
    case(gatt.grading_matrix, q=np.array([0.0, 1.0, 2.0]), lam=1.5)
    case(gatt.grade, X=_a(2, 3), q=np.array([0.0, 1.0, 2.0]), lam=1.5)
    case(gatt.ellipsoid_semi_axes, q=np.array([0.0, 1.0, 2.0]), lam=1.5, B=2.0)
    case(embedding.mlge_grading, P_blocks=Pb, q_blocks=qb, lam=1.5)
    case(embedding.graded_basis_defect, P_blocks=Pb, q_blocks=qb, lam=1.5)
    case(embedding.orthogonality_defect, P_blocks=Pb)
    case(embedding.gram_defect, P_blocks=Pb)
    case(embedding.prop6_bound, q_blocks=qb, lam=1.5, eta=0.1)
    # ------------------------------------------------------------------ graded.envelope
    case(envelope.caps, sigma2=np.array([0.5, 0.25]), D=np.array([1.0, 2.0]), B=1.5)
    case(envelope.eps2, sigma_xi=1.0, m=np.array([4.0, 16.0]))
    lev = dict(cap=np.array([0.5, 0.1]), dims=np.array([2.0, 2.0]), sigma_xi=1.0, m=np.array([4.0, 40.0]))
    case(envelope.envelope, **lev)
    case(envelope.worth_estimating, **lev)
    case(envelope.upper_regime, **lev)
    case(envelope.m_sat, d0=2.0, sigma_xi=1.0, cap0_unif=0.1)
    case(envelope.window, msat=40.0, shape_free=("msat",))
    case(envelope.cap_ratio, g=np.array([1.0, 1.5]), a=np.array([0.4, 0.6]))
    case(envelope.grade_condition, g=np.array([1.0, 1.2]), nu=0.6, mu=0.3)
    case(envelope.theorem41_factors, nu=0.6, mu=0.3)
    case(envelope.stratified_model, nu=0.6, mu=0.3, levels=2, d=4, sigma_xi=1.0, g=np.array([1.0, 1.5]), C=2.0,
         shape_free=("levels", "d"), none_input=("g",))
    case(lc.coords, "theorylab.graded.envelope.LinearClass.coords", per_level=np.array([0.5, 2.0]),
         mask_input=("per_level",))
    # ------------------------------------------------------------------ graded.grades
    at = dict(alpha=alpha, tau=tau)
    case(grades.profile, name="alpha", value=alpha, fixed=("name",))
    case(grades.profiles, **at)
    case(grades.geometric_parameters, nu=0.6, mu=0.3, ordered=False, fixed=("ordered",))
    case(grades.geometric_profiles, nu=0.6, mu=0.3, levels=3, shape_free=("levels",))
    case(grades.expand_levels, level_profile=np.array([0.4, 0.6]), dims=np.array([2, 3]), shape_free=("dims",))
    case(grades.reduce_levels, coord_profile=np.full(5, 0.2), dims=np.array([2, 3]), shape_free=("dims",))
    case(grades.Lambda, g=np.array([1.0, 1.5, 2.0]), **at)
    case(grades.Lambda_q, q=np.array([0.0, 1.0, 2.0]), lam=1.5, **at)
    case(grades.log_Lambda_u, u=np.array([0.0, 1.0, 2.0]), **at)
    case(grades.bhattacharyya, **at)
    case(grades.Lambda_star, **at)
    case(grades.bc_geometric, nu=0.6, mu=0.3, levels=4)
    case(grades.tilted, p=alpha, u=np.array([0.0, 1.0, 2.0]))
    case(grades.gradient_u, u=np.array([0.0, 1.0, 2.0]), **at)
    case(grades.admissibility, q=np.array([0.0, 1.0, 2.0]), **at)
    case(grades.boundary_polynomial, t=np.array([1.0, 2.0, 3.0]), **at)
    case(optimal.optimal_grades, **at)
    case(optimal.clip_bound, C=2.0)
    case(optimal.clipped_grades, C=2.0, shape_free=("alpha", "tau", "C"), **at)
    case(optimal.level_program, alpha=np.repeat([0.2, 0.8], [2, 2]) / 2, tau=np.repeat([0.6, 0.4], [2, 2]) / 2,
         dims=np.array([2, 2]), C=2.0, shape_free=("alpha", "tau", "C", "dims"))
    case(optimal.moment_maps, u=np.array([0.0, 1.0, 2.0]), **at)
    case(optimal.recession_slope, v=np.array([0.0, 1.0, 3.0]))
    case(optimal.clipped_lower_bound, C=2.0, **at)
    case(optimal.table3_row, nu=0.6, mu=0.3, levels=4, C=2.0, shape_free=("levels",))
    case(gio.read_vector, name="alpha", source="0.2, 0.3 0.5", fixed=("name",))
    case(optimal.clipped_grades_cost, n=8, nan_ok=True)   # cost estimates: inf for sizes beyond the float range
    case(envelope.stratified_model_cost, levels=4, nan_ok=True)
    # ------------------------------------------------------------------ graded.ladder, prereg
    case(lad.profile_design, a=np.array([0.4, 0.6]), s=np.array([0.7, 0.3]), d=4, sigma_xi=1.0, C=2.0,
         shape_free=("d",))
    case(lad.geometric_design, nu=0.6, mu=0.3, levels=2, d=4, sigma_xi=1.0, C=2.0, shape_free=("levels", "d"))
    C["theorylab.graded.ladder.design_from_dict"] = Case(
        lambda name, a, s, dims, sigma_xi, C: lad.design_from_dict(dict(name=name, a=a, s=s, dims=dims,
                                                                        sigma_xi=sigma_xi, C=C)),
        dict(name="d", a=[0.4, 0.6], s=[0.7, 0.3], dims=[2, 2], sigma_xi=1.0, C=2.0), fixed=("name",),
        shape_free=("dims",))
    case(design.coords, "theorylab.graded.ladder.LadderDesign.coords", level_grades=np.array([1.0, 1.5]))
    case(lad.draw_pilot, design=design, n=8, seed=0, blocks=4, fixed=("design",), shape_free=("n", "blocks"),
         work={"blocks": 64})
    case(lad.pilot_size, design=design, n=8, fixed=("design",), shape_free=("n",))
    case(lad.estimate_levels, XtX=pilot.XtX.sum(axis=0), Xty=pilot.Xty.sum(axis=0), dims=design.dims,
         shape_free=("dims",))
    case(lad.pilot_estimates, pilot=pilot, dims=design.dims, weights=np.array([1.0, 2.0, 0.0, 1.0]),
         fixed=("pilot",), shape_free=("dims",), none_input=("weights",))
    case(lad.bootstrap_weights, pilot=pilot, resamples=8, seed=0, fixed=("pilot",), shape_free=("resamples",),
         work={"resamples": 64})
    case(lad.random_arm, design=design, seed=0, fixed=("design",))
    case(lad.build_arms, design=design, pilot=pilot, seed=0, fixed=("design", "pilot"))
    case(lad.q_of, g=np.array([1.0, 1.5, 2.0]))
    case(pr.average_ranks, values=_a(2, 4))
    case(pr.predicted_ranks, values=np.array([0.0, 0.5, 0.5, -1.0]))
    case(pr.preregister, design=design, n_pilot=8, seed=0, bootstrap=4, fixed=("design",), work={"bootstrap": 16},
         examples=20)
    case(pr.from_json, text=pr.to_json(prereg), source="test", fixed=("source",))
    prereg_file = os.path.join(tempfile.mkdtemp(prefix="theorylab-api-"), "prereg.json")
    pr.write(prereg, prereg_file)
    case(pr.read, path=prereg_file)
    case(prereg.arm, "theorylab.graded.prereg.Preregistration.arm", name="oracle")
    # ------------------------------------------------------------------ plga.operator
    case(op.init_params, dk=4, seed=0, n_res=2, hidden=3, eps=1e-9, eps_ln=1e-6, shape_free=("dk", "hidden", "n_res"),
         none_input=("hidden",))
    case(op.sigmoid, u=_a(3, 2), exact=("u",))
    case(op.iswiglu, u=_a(3, 2), exact=("u",))
    case(op.silu, u=_a(3, 2), exact=("u",))
    case(op.density_operator, q_rot=q4, exact=("q_rot",))
    case(op.cumulative_density_operators, q_rot=q4, mask=np.array([1.0, 1, 0, 1, 1, 0]), none_input=("mask",),
         exact=("q_rot",))
    case(op.layer_norm, x=_a(3, 4), gamma=_a(4, seed=1), beta=_a(4, seed=2), eps=1e-6, exact=("x", "gamma", "beta"),
         none_input=("gamma", "beta"))
    case(op.metric_learner, x=_a(3, 4), params=params, fixed=("params",))
    case(op.stages_from_density, D=op.density_operator(q4), params=params, fixed=("params",), exact=("D",))
    case(op.plga_stages, q_rot=q4, params=params, fixed=("params",), exact=("q_rot",))
    case(op.g_lm, q_rot=q4, params=params, fixed=("params",), exact=("q_rot",))
    case(op.g_lm_cumulative, q_rot=q4, params=params, mask=np.ones(6), fixed=("params",), none_input=("mask",),
         exact=("q_rot",))
    case(op.scores, q_rot=q4, k_rot=_a(5, 4, seed=3), G=Gm, exact=("q_rot", "k_rot", "G"))
    case(op.row_perturbation_bound, q_t=_a(4), K=_a(5, 4, seed=3), dG=Gm)
    case(op.positivity_margins, stages=stages, eps=1e-9, fixed=("stages",))
    case(op.perron_frobenius, M=np.abs(Gm))
    case(op.collatz_wielandt_bounds, M=np.abs(Gm), v=np.ones(4) + 0.5, none_input=("v",))
    case(op.walk_terms, W=W, kmax=10, nan_ok=True, work={"kmax": 10_000}, shape_free=("kmax",))
    case(op.notears_h, W=W, nan_ok=True)
    case(op.dag_floor, dk=4.0, eps=1e-9)
    case(op.commutant_projection, G=Gm, exact=("G",))
    case(op.off_commutant_residual, G=Gm)
    case(op.plane_rotations, freqs=freqs2, positions=np.arange(3.0))
    case(op.position_twirl, M=Gm, freqs=freqs2, S=8, work={"S": 10_000})
    case(op.twirl_constant, freqs=freqs2, nan_ok=True)
    case(op.rms, X=_a(3, 4))
    case(op.order_parameter, D1=Gm, D2=Gm + 0.1)
    case(op.density_report, q_rot=q4)
    case(op.ln_scale_error, D=op.density_operator(q4), S=6.0, eps=1e-6, exact=("D",))
    case(op.ln_scale_proxy, D=op.density_operator(q4), S=6.0, eps=1e-6, nan_ok=True)   # inf: a constant row
    unit = params.units[0]
    case(op.glu, x=_a(3, 4), g=unit.glus[0], fixed=("g",))
    case(op.gated_unit, x=_a(3, 4), u=unit, eps_ln=1e-6, fixed=("u",))
    case(op.hadamard_power, A=_a(4, 4, low=0.1), P=_a(4, 4, seed=1), exact=("A", "P"))
    case(op.row_clone, alpha=_a(3), exact=("alpha",), shape_free=("alpha",))
    case(op.dag_loss, W=W)
    case(op.twirl_frequencies, freqs=freqs2, pairs="ordered", shape_free=("freqs",))
    case(op.twirl_multiplier, omega=np.array([0.1, 2.0, 0.0]), S=8)
    case(op.twirl_statistics, freqs=freqs2, S=8, pairs="unordered", nan_ok=True)
    case(op.absorb_operator, W=_a(3, 4), b=_a(4, seed=1), G=Gm, exact=("W", "b", "G"))
    # ------------------------------------------------------------------ plga.envelopes, contraction
    case(penv.silu_prime, u=_a(3, 2))
    case(penv.iswiglu_prime, u=_a(3, 2))
    case(penv.silu_prime_envelope, U=np.array([0.0, 1.0, 4.0]))
    case(penv.iswiglu_prime_envelope, U=np.array([0.0, 1.0, 4.0]))
    case(penv.silu_prime_sup)
    case(penv.logit_margin, logits=_a(3, 5))
    case(penv.greedy_margin_ok, B=np.array([0.1, 0.5]), margin=np.array([0.3, 0.8]))
    case(contraction.diameter, X=_a(4, 3))
    case(contraction.composition_bound, lipschitz=np.array([1.1, 1.3]), diam=2.0)
    case(contraction.pairwise_ratios, f=np.tanh, X=_a(4, 3), Y=_a(4, 3, seed=1), fixed=("f",))
    # ------------------------------------------------------------------ nn.attention
    case(specs.SDPA, base=10000.0, none_input=("base",))
    case(specs.PSA, g_q=0.5, g_k=0.25, placement="post-rope", base=10000.0, none_input=("base",))
    case(specs.PSA.member, "theorylab.nn.specs.PSA.member", name="symmetric", g=0.5, placement="post-rope",
         base=10000.0, none_input=("base",))
    case(specs.Graded, grades=np.array([0.0, 1.0, 2.0, 3.0]), lam=1.5, clip=2.0, base=10000.0,
         none_input=("base", "clip"))
    case(specs.PLGA, params=params, gram="cumulative", base=10000.0, fixed=("params",), none_input=("base",))
    case(specs.grading_diag, grades=np.array([0.0, 1.0, 2.0]), lam=1.5, clip=2.0, none_input=("clip",))
    case(att.streams, spec=psa_spec, q=x54, k=_a(5, 4, seed=1), v=_a(5, 4, seed=2), start=3,
         prev=(_a(4, seed=3), _a(4, seed=4)), fixed=("spec",), none_input=("prev",), exact=("q", "k", "v"))
    case(att.unshear_keys, spec=psa_spec, ks=x54, start=2, prev_k=_a(4, seed=3), fixed=("spec",),
         none_input=("prev_k",))
    case(att.scores, qs=x54, ks=_a(6, 4, seed=1), G=Gm, none_input=("G",), exact=("qs", "ks", "G"))
    case(att.attend, s=_a(3, 5), vs=_a(5, 2, seed=1))
    case(att.plga_operator, spec=specs.PLGA(params, "cumulative"), qs=q4, fixed=("spec",), exact=("qs",))
    case(att.head, spec=psa_spec, q=x54, k=_a(5, 4, seed=1), v=_a(5, 4, seed=2), fixed=("spec",))
    case(specs.TwoTap, q_taps=np.array([1.0, 0.0]), k_taps=np.array([1.5, -0.5]), placement="pre-rope", base=10000.0,
         none_input=("base",))
    case(specs.TwoTap.shear, "theorylab.nn.specs.TwoTap.shear", g_q=0.5, g_k=0.25, placement="post-rope",
         base=10000.0, none_input=("base",))
    case(att.attention_weights, s=_a(3, 5))
    case(att.two_tap, x=x54, taps=np.array([1.2, -0.2]), exact=("x",))
    # ------------------------------------------------------------------ nn.transformer, nn.decoder (one import)
    case(dec.random_decoder, vocab=8, d=8, n_head=2, n_layer=1, head=specs.SDPA(), seed=0, fixed=("head",),
         shape_free=("vocab", "d", "n_head", "n_layer"))
    case(dec.layer_norm, x=_a(3, 8), affine=(np.ones(8), np.zeros(8)), exact=("x",))
    case(dec.gelu, x=_a(3, 8))
    case(dec.mlp, layer=layer, x=_a(3, 8), fixed=("layer",))
    case(dec.split_heads, x=_a(3, 8), n_head=2)
    case(dec.merge_heads, x=_a(2, 3, 4))
    case(dec.projections, layer=layer, x=_a(3, 8), fixed=("layer",))
    case(dec.token_ids, model=model, tokens=np.array([1, 2, 3]), fixed=("model",), shape_free=("tokens",))
    case(dec.forward, model=model, tokens=np.array([1, 2, 3]), fixed=("model",), shape_free=("tokens",))
    case(dec.prefix_logits, model=model, tokens=np.array([1, 2, 3]), fixed=("model",), shape_free=("tokens",))
    case(dec.prefix_consistency_gap, model=model, tokens=np.array([1, 2, 3]), fixed=("model",))
    case(dec.cached_head, spec=psa_spec, hc=hc, q=_a(1, 4), k=_a(1, 4, seed=1), v=_a(1, 4, seed=2), start=3,
         fixed=("spec", "hc"))
    case(dec.cached_attention, layer=layer, caches=cache.layers[0], x=_a(1, 8), start=3, fixed=("layer", "caches"))
    case(dec.extend, model=model, cache=cache, tokens=np.array([4, 5]), fixed=("model", "cache"),
         shape_free=("tokens",))
    case(dec.decode, model=model, tokens=np.array([1, 2, 3, 4]), prompt=2, fixed=("model",), shape_free=("tokens",))
    case(dec.rollback, cache=cache, length=2, fixed=("cache",))
    case(dec.hidden_states, model=model, tokens=np.array([[1, 2, 3], [4, 5, 6]]), trace=None, fixed=("model",),
         shape_free=("tokens",))
    case(dec.logits, model=model, x=_a(2, 8), fixed=("model",))
    case(dec.prefix_consistency, F=lambda t: dec.forward(model, t), tokens=np.array([1, 2, 3]), fixed=("F",))
    case(dec.PrefixConsistency(True, 0.0).holds, "theorylab.nn.prefix.PrefixConsistency.holds", tol=0.0)
    # ------------------------------------------------------------------ nn.grad, optim, runner
    tok2 = np.array([[1, 2, 3], [4, 5, 6]])
    case(grad.cross_entropy, logits=_a(3, 5), answers=np.array([0, 4, 2]))
    case(grad.gelu_vjp, x=_a(3, 8), dy=_a(3, 8, seed=1))
    case(grad.loss_and_grad, model=model, tokens=tok2, answers=np.array([3, 7]), fixed=("model",),
         shape_free=("tokens",))
    case(grad.sequence_loss_and_grad, model=model, tokens=tok2, targets=np.array([[2, 3, 1], [5, 6, 0]]),
         fixed=("model",), shape_free=("tokens",))
    pdict, gdict = {"w": _a(3, 2), "b": _a(2, seed=1)}, {"w": _a(3, 2, seed=2), "b": _a(2, seed=3)}
    case(optim.AdamW, lr=3e-3, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.01)
    case(optim.clip_by_norm, grads=gdict, max_norm=1.0, fixed=("grads",), none_input=("max_norm",))
    case(optim.adamw_step, params=pdict, grads=gdict, state=optim.init_state(pdict), opt=optim.AdamW(), lr=1e-3,
         decay=frozenset({"w"}), fixed=("params", "grads", "state", "opt", "decay"), none_input=("lr",))
    case(optim.learning_rate, step=3, steps=10, peak=1e-3, warmup=2)
    case(runner.default_workers)
    # ------------------------------------------------------------------ nn.tasks
    case(tasks.target_positions, T=8, query_is_key=True, fixed=("query_is_key",), shape_free=("T",))
    case(tasks.plant_induction, rng=np.random.default_rng(0), content=np.arange(16.0).reshape(2, 8),
         query_is_key=True, fixed=("rng", "query_is_key"))
    case(tasks.induction_sequences, n=4, T=8, vocab=10, seed=0, shape_free=("n", "T", "vocab"))
    case(tasks.embeddings, vocab=10, dk=8, seed=0, shape_free=("vocab", "dk"))
    case(tasks.slow_planes, dk=8, T=8, base=10000.0, shape_free=("dk",))
    case(tasks.induction_head, member="key-only", g=1.0, dk=8, T=8, base=10000.0, placement="post-rope",
         planes="slow")
    case(tasks.query_scores, head=ihead, E=E, batch=batch, fixed=("head", "batch"))
    case(tasks.induction_hits, s=_a(4, 8), target=np.array([1, 2, 3, 4]))
    case(tasks.induction_accuracy, head=ihead, E=E, batch=batch, fixed=("head", "batch"))
    case(tasks.predecessor_sensitivity, head=ihead, E=E, batch=batch, i=1, fixed=("head", "batch"))
    case(tasks.ceiling, T=8.0)
    case(tasks.wilson_interval, hits=3.0, n=10, z=2.5758)
    case(tasks.associative_recall, n=4, pairs=3, alphabet=8, padding=1, seed=0, padding_placement="random",
         shape_free=("n", "pairs", "padding"))
    # ------------------------------------------------------------------ nn.train, trainstats
    tiny = dict(variant="key-only", gamma=1.0, task="recall", pairs=2, alphabet=4, padding=1, T=6, vocab=8,
                d_model=8, dk=4, mlp=0, steps=2, batch=4, lr=5e-3, weight_decay=0.01, warmup=1, clip=1.0,
                eval_size=8, placement="post-rope", base=10000.0, log_every=1, init="gamma-aware", lr_scale="paper",
                loss="sequence", padding_placement="random")
    cfg = train.TrainConfig(**tiny)
    case(train.TrainConfig, **tiny)
    case(train.train, config=cfg, seed=0, progress=None, keep_model=False, fixed=("config", "keep_model"))
    sizes = {"pairs": 4, "alphabet": 16, "padding": 4, "d_model": 16, "dk": 8, "mlp": 16, "steps": 3, "batch": 8,
             "eval_size": 16, "warmup": 4, "log_every": 4}
    C["theorylab.nn.train.train[config]"] = Case(lambda **kw: train.train(train.TrainConfig(**kw)), dict(tiny),
                                                work=sizes, shape_free=tuple(sizes), examples=30)
    case(train.train_cost, config=cfg, runs=3, workers=2, fixed=("config",), nan_ok=True)   # inf beyond floats
    case(evaluation.batch_of, config=cfg, n=4, seed_words=[0, 1, 2], fixed=("config",), shape_free=("n",),
         work={"n": 64})
    case(evaluation.evaluate, config=cfg, model=train.init_model(cfg, 0), batch=evaluation.batch_of(cfg, 8, [0, 2]), chunk=3,
         fixed=("config", "model", "batch"))
    case(train.init_model, config=cfg, seed=0, fixed=("config",))
    case(train.stream_gains, spec=train.head_spec(cfg), fixed=("spec",))
    case(trainstats.step0_statistics, model=train.init_model(cfg, 0), tokens=evaluation.batch_of(cfg, 4, [0, 1, 0]).tokens,
         fixed=("model",), shape_free=("tokens",))
    acc = np.array([[0.1, 0.3, 0.8, 0.9], [0.1, 0.2, 0.7, 0.9], [0.2, 0.5, 0.9, 0.9]])
    case(trainstats.seed_summary, accuracies=np.array([0.6, 0.7, 0.65]), hits=130.0, n=200, nan_ok=True)
    case(trainstats.gamma_c, gammas=np.array([0.0, 0.5, 1.0, 2.0]), accuracy=acc[0],
         shape_free=("gammas", "accuracy"))                       # None (documented) for a curve that never rises
    case(trainstats.loglog_slope, x=np.array([16.0, 32.0, 64.0]), y=np.array([1.0, 1.4, 2.1]))
    case(trainstats.bootstrap_gamma_c, gammas=np.array([0.0, 0.5, 1.0, 2.0]), per_seed=acc, draws=20, seed=0,
         nan_ok=True, work={"draws": 200}, shape_free=("draws",))
    lg = np.array([0.0, 0.5, 1.0, 2.0])
    case(ladder.plateau_midpoint, gammas=lg, accuracy=acc[0], shape_free=("gammas", "accuracy"))
    case(ladder.steepest_segment, gammas=lg, accuracy=acc[0], shape_free=("gammas", "accuracy"))
    case(ladder.half_accuracy, gammas=lg, accuracy=acc[0], level=0.5, shape_free=("gammas", "accuracy"))
    case(ladder.curve_gamma_c, gammas=lg, accuracy=acc[0], observable="steepest-segment",
         shape_free=("gammas", "accuracy"))
    case(ladder.ladder_slope, dks=np.array([8.0, 16.0]), gammas=lg, per_seed=[acc, acc * 0.9],
         observable="plateau-midpoint", draws=20, seed=0, nan_ok=True, work={"draws": 200}, shape_free=("draws",))
    # ------------------------------------------------------------------ psa.montecarlo, exact, rng
    case(competition.loading_variance_poly, variant="t3-inclusive")
    case(competition.loadings, variant="t3-inclusive", g=np.array([0.5, 1.0]))
    case(competition.per_sample_mass, variant="t4-only", dk=64.0, T=16, gammas=np.array([0.5, 1.0]), start=0,
         count=4, seed=0, sigma0=0.1, dtype="float64", work={"start": 2 ** 62, "count": 256, "T": 4096},
         shape_free=("count",))
    case(competition.simulated_model, variant="t4-only")
    case(competition.simulate_mass, variant="t4-only", dk=64.0, T=16, gammas=np.array([0.5, 1.0]), samples=64, seed=0,
         sigma0=0.0, dtype="float32", progress=False, fixed=("progress",), work={"samples": 256, "T": 4096})
    case(mc_crossing.first_crossing, gamma=g_grid, mass=mass_curve, level=0.5, nan_ok=True, nan_input=("mass",))
    case(mc_crossing.mc_gamma_c, variant="t4-only", dk=64.0, T=16, samples=40, seed=0, level=0.5, confidence=0.95,
         fine_points=4, progress=False, fixed=("progress",), nan_ok=True, examples=8,
         work={"samples": 64, "fine_points": 8, "T": 256},
         shape_free=("variant", "dk", "T", "samples", "seed", "level", "confidence", "fine_points"))
    case(exact.one_minus_phi, t=np.array([-1.0, 0.0, 1.0]), delta=1.0, sigma=0.8, refine=1, work={"refine": 2})
    case(exact.integer_context_length, T=512)
    case(exact.mass_given, delta=1.0, sigma=0.8, m=5.0, refine=1, work={"refine": 2})
    case(exact.exact_mass, variant="t4-only", dk=64.0, T=16, gammas=np.array([0.5, 1.0]), sigma0=0.1, refine=1,
         work={"refine": 2})
    case(exact.exact_gamma_c, variant="t4-only", dk=64.0, T=16, level=0.5, xtol=1e-6, nan_ok=True, examples=6)
    case(exact.argmax_limit, variant="t4-only", dk=64.0, T=16.0)
    case(rng.normals, seed=1, samples=np.array([0, 1]), indices=np.array([0, 5]), shape_free=("samples", "indices"))
    cost = dict(nan_ok=True)    # cost estimates: inf for sizes beyond the float range (resources.check refuses it)
    case(competition.simulate_cost, T=16, n_gamma=4, samples=64, dtype="float64", **cost)
    case(mc_crossing.mc_gamma_c_cost, T=16, samples=64, fine_points=8, **cost)
    case(exact.exact_mass_cost, n_gamma=4, sigma0=0.1, **cost)
    case(exact.exact_gamma_c_cost)
    # ------------------------------------------------------------------ psa.row_stats, row_stats_mc
    g2 = np.array([0.5, 1.0])
    case(row_stats.bump_expectations, t=np.array([-2.0, 0.0, 1.0]), delta=1.0, sigma=0.8, refine=1,
         work={"refine": 2})
    case(row_stats.row_moments_given, delta=1.0, sigma=0.8, m=5.0, refine=1, distractor=True, fixed=("distractor",),
         work={"refine": 2})
    case(row_stats.exact_row_stats, variant="t4-only", dk=64.0, T=16, gammas=g2, sigma0=0.1, refine=1,
         distractor=True, fixed=("distractor",), work={"refine": 2}, examples=20)
    case(row_stats.exact_entropy, variant="t3-inclusive", dk=64.0, T=16, gammas=g2, refine=1, work={"refine": 2})
    case(row_stats.exact_distractor_entropy, variant="key-only", dk=64.0, T=16, gammas=g2, refine=1,
         work={"refine": 2})
    case(row_stats_mc.score_polynomials, variant="t3-inclusive", g=g2, dk=64.0)
    case(row_stats_mc.per_sample_row_stats, variant="t4-only", dk=64.0, T=16, gammas=g2, start=0, count=4, seed=0,
         sigma0=0.1, dtype="float64", work={"start": 2 ** 62, "count": 256, "T": 4096}, shape_free=("count",))
    case(row_stats_mc.simulate_row_stats, variant="t4-only", dk=64.0, T=16, gammas=g2, samples=64, seed=0,
         sigma0=0.0, dtype="float32", progress=False, fixed=("progress",), work={"samples": 256, "T": 4096})
    curve = row_stats_mc.simulate_row_stats("t4-only", 64.0, 16, g2, samples=64)
    for method in ("stat", "stat_se", "batch_stat"):
        case(getattr(curve, method), f"theorylab.psa.row_stats_mc.RowStatsCurve.{method}", name="entropy")
    case(row_stats_mc.row_stats_cost, T=16, n_gamma=4, samples=64, dtype="float32", **cost)
    # ------------------------------------------------------------------ psa.observables
    obs = dict(variant="t4-only", dk=64.0, T=16, samples=40, seed=0, confidence=0.95, sigma0=0.0, dtype="float32",
               progress=False, fixed=("progress",), nan_ok=True, work={"samples": 64, "T": 256})
    case(observables.mass_half, method="exact", **obs)
    case(observables.half_plateau, method="exact", **obs)
    peak_kw = dict(fine_points=4, work={**obs["work"], "fine_points": 8},   # a peak at an end of the scan: NaN
                   shape_free=("dk", "T", "samples", "seed", "confidence", "sigma0", "fine_points"))  # on the coarse curve
    for peak in (peaks.inflection, peaks.entropy_peak, peaks.distractor_entropy_peak):
        case(peak, method="mc", **{**obs, **peak_kw})
    case(observables.plateau_level, variant="t3-inclusive", dk=64.0, T=16)
    case(observables.observable, name="entropy-peak")
    case(observables.measure, name="entropy-peak", method="mc", **{**obs, **peak_kw})
    case(observables.measure_cost, name="entropy-peak", T=16, method="mc", samples=64, fine_points=8,
         dtype="float32", **cost)
    # ------------------------------------------------------------------ graded.risk_sim
    case(graded_risk.estimable_levels, cls=lc, sigma_xi=1.0, m=20, fixed=("cls",))
    case(graded_risk.exact_risk, cls=lc, w=strat.target(), sigma_xi=1.0, m=20, levels_mask=np.array([True, False]),
         fixed=("cls", "levels_mask"), nan_ok=True)
    case(graded_risk.least_favourable_target, cls=lc, levels_mask=np.array([True, False]), fallback=strat.target(),
         fixed=("cls", "levels_mask"))
    case(graded_risk.two_point_lower_bound, cap=0.5, sigma_xi=1.0, m=20, nodes=8, work={"nodes": 64})
    case(graded_risk.simulate, model=strat, m_values=np.array([8, 20]), reps=4, seed=0, progress=False,
         fixed=("model", "progress"), work={"reps": 16, "m_values": 64}, examples=10)
    case(graded_risk.default_m_grid, model=strat, points=5, fixed=("model",), shape_free=("points",),
         work={"points": 1000})
    case(graded_risk.simulate_cost, model=strat, m_values=np.array([8, 20]), reps=4, fixed=("model",), **cost)
    case(graded_risk.default_m_grid_cost, points=5, **cost)
    case(graded_risk.rows_per_draw, d=4)
    # ------------------------------------------------------------------ graded.budget_fit, graded.ladder_sim
    arm_g = np.array([a.g for a in prereg.arms])
    ladder_ms = np.array([2, 4, 8])
    risks = sladder.learning_curves(design, arm_g, ladder_ms, reps=4, seed=0)
    case(budget_fit.constrained_fit, obs=_a(3, 4), precision=np.array([1.0, 2.0, 0.5, 4.0]),
         g=np.array([1.0, 1.0, 2.0, 2.0]), B=0.5)
    case(sladder.learning_curves, design=design, level_grades=arm_g, m_values=ladder_ms, reps=4, seed=0,
         progress=False, fixed=("design", "progress"), work={"reps": 16, "m_values": 64},
         shape_free=("level_grades", "reps"))
    case(sladder.grid, name="m_values", m_values=ladder_ms, fixed=("name",), shape_free=("m_values",))
    case(sladder.crossing, m_values=ladder_ms.astype(float), curves=risks.mean(axis=2), level=0.3, nan_ok=True,
         nan_input=("curves",))
    case(sladder.default_grid, design=design, target=0.5, points=8, fixed=("design",), work={"points": 1000},
         shape_free=("target", "points"))
    case(sladder.target_risk, design=design, target=0.5, fixed=("design",))
    case(sladder.memory_estimate, arms=6, points=3, reps=4, d=4, bootstrap=4)
    case(sladder.check_memory, estimate=1000.0, what="a test", fixed=("what",))
    case(sladder.spearman, x=np.array([1.0, 3.0, 2.0]), Y=_a(2, 3), nan_ok=True, nan_input=("Y",))
    case(sladder.measure, prereg=prereg, m_values=ladder_ms, reps=4, seed=0, target=0.5, bootstrap=4, progress=False,
         fixed=("prereg", "progress"), nan_ok=True, work={"reps": 16, "bootstrap": 16, "m_values": 64},
         shape_free=("m_values",), none_input=("m_values",), examples=20)
    case(sladder.summarize, prereg=prereg, m_values=ladder_ms, risks=risks, target=0.5, seed=0, bootstrap=4,
         fixed=("prereg",), nan_ok=True, work={"bootstrap": 16}, examples=20)
    case(pilot_cost.profile_error, a_hat=np.array([0.3, 0.7]), s_hat=np.array([0.6, 0.4]), a=np.array([0.4, 0.6]),
         s=np.array([0.7, 0.3]))
    case(pilot_cost.degradation, design=design, n_values=np.array([6, 8, 12]), draws=2, seed=0, reps=4, target=0.5,
         m_values=ladder_ms, progress=False, fixed=("design", "progress"), nan_ok=True, examples=6,
         work={"draws": 3, "reps": 8, "n_values": 64, "m_values": 64}, shape_free=("n_values",),
         none_input=("m_values",))
    # ------------------------------------------------------------------ psa.induction
    case(induction.frequencies, dk=8, theta=0.1, shape_free=("dk",))
    case(induction.induction_batch, rng=np.random.default_rng(0), n=2, T=8, dk=4, fixed=("rng",),
         shape_free=("n", "T", "dk"))
    case(induction.stream_channels, x=_a(2, 8, 4), freqs=np.array([0.1, 0.2]), placement="post")
    case(induction.simulate, dk=4, T=9, theta=0.1, samples=8, seed=0, placement="post",
         shape_free=("dk", "T", "samples"), work={"samples": 256, "T": 256})
    case(psa_moments.channel_moments, sample=sample, fixed=("sample",))
    case(psa_moments.rope_match_factor, T=9, freqs=np.array([0.1, 0.2]), placement="pre", work={"T": 10_000})
    case(masses.scores_at, sample=sample, g=np.array([0.5, 1.0]), member="symmetric", fixed=("sample",))
    case(masses.target_mass, sample=sample, g=np.array([0.5, 1.0]), member="key-only", fixed=("sample",))
    case(masses.mass_rows, sample=sample, g=np.array([0.5, 1.0]), member="query-only", fixed=("sample",),
         nan_ok=True)
    case(psa_moments.comparison_rows, sample=sample, g=np.array([0.5, 1.0]), moments=moments,
         fixed=("sample", "moments"))
    case(positional.coriolis_gain, theta=np.array([0.1, 1.0]))
    case(positional.coriolis_band_ratios, dk=4, T=6, freqs=np.array([0.1, 0.2]), g=1.0, seed=0, shape_free=("T",),
         work={"T": 10_000})
    case(positional.cesaro_averages, N=64, freqs=np.array([0.1, 0.2]), channel="T3", part="content", seed=0,
         shape_free=("N",), work={"N": 10_000})
    case(positional.envelope_slope, averages=1.0 / np.arange(1.0, 129.0), start=16, nan_ok=True)
    case(induction.simulate_cost, dk=4, T=9, samples=8, **cost)
    case(psa_moments.moments_cost, T=9, samples=8, **cost)
    case(masses.mass_rows_cost, T=9, samples=8, n_gamma=2, member="key-only", **cost)
    # ------------------------------------------------------------------ compare
    case(compare.pearson_r, x=np.array([1.0, 2.0, 3.0, 4.0]), y=np.array([1.0, 2.5, 2.9, 4.2]), nan_ok=True,
         nan_input=("x", "y"))
    case(compare.relative_error, predicted=np.array([1.0, 2.0]), simulated=np.array([1.1, 2.0]), nan_ok=True,
         nan_input=("predicted", "simulated"))
    case(compare.validate_grid, points=[(64.0, 16), (32.0, 64)])
    grid_file = os.path.join(tempfile.mkdtemp(prefix="theorylab-api-"), "grid.csv")
    with open(grid_file, "w", encoding="utf-8") as fh:
        fh.write("dk,T\n64,16\n32,64\n")
    case(compare.read_grid, path=grid_file)
    case(compare.compare_grid, variant="t4-only", points=[(64.0, 16)], samples=40, seed=0, c=0.854, progress=False,
         fixed=("progress",), nan_ok=True, examples=4, work={"samples": 64}, none_input=("c",))
    case(compare.annealed_mass, variant="t4-only", dk=64.0, T=16.0, gammas=np.array([0.5, 1.0]))
    case(compare.gap_crossover, model=sm, fixed=("model",), nan_ok=True)
    case(compare.t3_t4_crossover, dk=4, T=9, theta=0.0, samples=40, seed=0, placement="post", model=sm,
         fixed=("model",), examples=10, work={"samples": 80, "T": 64})
    case(compare.compare_grid_cost, points=[(64.0, 16), (32.0, 64)], samples=64, observable="entropy-peak",
         monte_carlo=True, fixed=("monte_carlo",), nan_ok=True)
    # ------------------------------------------------------------------ symbolic (numeric sizes only)
    case(sg.squared_grading, q=np.array([0.0, 1.0]), lam=2.0)
    case(sg.lagrange_residual, d=2, work={"d": 3})
    case(sg.scale_residual, d=2, work={"d": 3})
    case(sg.unit_residual, d=2, work={"d": 3})
    case(sg.variance_residual, d=2, work={"d": 3})
    case(sg.level_reduction_residual, dims=np.array([1, 2]), work={"dims": 3})
    case(sg.cor3_residual, L=3, work={"L": 5})
    case(sps.lift, d=2, work={"d": 4}, shape_free=("d",))
    case(sps.rational_rotation, T=2, d=2, work={"T": 3, "d": 4}, shape_free=("T", "d"))
    case(sp_.commutant_basis, planes=2, work={"planes": 3}, shape_free=("planes",))
    case(ssm.symbols, n=3, work={"n": 5}, shape_free=("n",))
    case(sx.exact, value=0.5, exact=("value",))
    C["theorylab.symbolic.exact.symbol_array"] = Case(lambda name, rows, cols: sx.symbol_array(name, rows, cols),
                                                     dict(name="x", rows=2, cols=3), fixed=("name",),
                                                     work={"rows": 4, "cols": 4}, shape_free=("rows", "cols"))
    for key, args in EMPTY_INPUT.items():
        C[key].empty_input += args
    for key, entries in NOT_APPLICABLE.items():
        C[key].not_applicable.update(entries)
    return C, SKIP


EMPTY_INPUT: dict[str, tuple] = {
    # elementwise and row-wise maps: an empty array gives an empty result (docs/api.md, 'Empty arrays')
    **{k: ("x",) for k in ("theorylab.nn.transformer.gelu", "theorylab.nn.transformer.layer_norm",
                           "theorylab.plga.chain.gated_unit", "theorylab.plga.chain.glu",
                           "theorylab.plga.chain.layer_norm")},
    **{k: ("u",) for k in ("theorylab.plga.chain.iswiglu", "theorylab.plga.chain.sigmoid",
                           "theorylab.plga.chain.silu")},
    "theorylab.plga.diagnostics.ln_scale_error": ("D",), "theorylab.plga.perron.row_clone": ("alpha",),
    "theorylab.plga.chain.absorb_operator": ("W",), "theorylab.psa.montecarlo.loadings": ("g",),
    "theorylab.psa.quadrature.one_minus_phi": ("t",), "theorylab.rng.normals": ("samples", "indices"),
    "theorylab.nn.attention.scores": ("qs", "ks"), "theorylab.plga.chain.scores": ("q_rot", "k_rot"),
    "theorylab.nn.attention.plga_operator": ("qs",),
    # empty sums and products with a defined value: D_Q of no queries is 0, the composition of no maps the identity
    "theorylab.plga.chain.density_operator": ("q_rot",), "theorylab.plga.chain.g_lm": ("q_rot",),
    "theorylab.plga.chain.plga_stages": ("q_rot",), "theorylab.plga.contraction.composition_bound": ("lipschitz",),
}
"""Arguments documented to take empty arrays, by driven call (merged into :attr:`Case.empty_input`)."""

_FREE_M = "m is a grid of sample sizes: its length is free (one result per m), unrelated to the levels of cap, dims"
NOT_APPLICABLE: dict[str, dict[str, str]] = {
    "theorylab.graded.envelope.envelope": {"mismatch:m": _FREE_M},
    "theorylab.graded.envelope.worth_estimating": {"mismatch:m": _FREE_M},
    "theorylab.graded.envelope.upper_regime": {"mismatch:m": _FREE_M},
    "theorylab.nn.attention.attend": {"mismatch:vs": "the value width (last axis of vs) is free"},
    "theorylab.nn.attention.head": {"mismatch:v": "the value width (last axis of v) is free"},
    "theorylab.nn.attention.streams": {"mismatch:v": "the value width (last axis of v) is free"},
    "theorylab.nn.attention.two_tap": {"mismatch:x": "the width of x is free: the taps act along positions"},
    "theorylab.nn.tasks.induction_hits": {"mismatch:s": "the number of keys (last axis of s) is free: target indexes "
                                                        "it (out-of-range targets are refused)"},
    "theorylab.plga.chain.cumulative_density_operators": {
        "mismatch:q_rot": "dk (last axis of q_rot) is free; mask is tied to its rows (a mask of another length is "
                          "refused)"},
    "theorylab.plga.rope.plane_rotations": {"mismatch:freqs": "freqs and positions are independent grids",
                                                "mismatch:positions": "freqs and positions are independent grids"},
    "theorylab.psa.rotary.rope_tables": {"mismatch:freqs": "freqs is independent of positions (which has T entries)"},
    "theorylab.graded.ladder_sim.summarize": {"mismatch:risks": "the last axis of risks counts the repetitions (any number)"},
}
"""Generic kinds that do not apply, by driven call and argument, with the reason (merged into
:attr:`Case.not_applicable`)."""


SKIP: dict[str, str] = {}


def _skip(reason: str, *names: str) -> None:
    for n in names:
        SKIP[n] = reason


_skip("result record: a frozen dataclass that library functions fill in; nothing to validate",
      "theorylab.psa.transition.CriticalCoupling", "theorylab.graded.optimal.ClippedOptimum",
      "theorylab.graded.optimal.GradeRow", "theorylab.plga.chain.PLGAStages",
      "theorylab.plga.diagnostics.PositivityMargins", "theorylab.plga.perron.PerronPair",
      "theorylab.plga.rope.TwirlStatistics",
      "theorylab.plga.notears.NotearsValue", "theorylab.plga.diagnostics.DensityReport",
      "theorylab.nn.tasks.InductionBatch", "theorylab.psa.montecarlo.MassCurve",
      "theorylab.psa.mc_crossing.MCGammaC", "theorylab.graded.risk_sim.RiskSimulation",
      "theorylab.psa.induction.InductionSample", "theorylab.psa.moments.ChannelMoments",
      "theorylab.psa.grid.PaperStatistics", "theorylab.psa.grid.Comparison", "theorylab.psa.compare.Calibration",
      "theorylab.psa.compare.Crossover", "theorylab.symbolic.exact.Undecided",
      "theorylab.graded.envelope.StratifiedModel", "theorylab.nn.decoder.Cache", "theorylab.nn.decoder.HeadCache",
      "theorylab.graded.ladder.Pilot", "theorylab.graded.ladder.Arm", "theorylab.graded.prereg.ArmRecord",
      "theorylab.graded.prereg.Preregistration", "theorylab.graded.ladder_sim.LadderResult", "theorylab.graded.pilot_cost.Degradation",
      "theorylab.nn.prefix.PrefixConsistency", "theorylab.nn.optim.AdamState", "theorylab.nn.evaluation.Evaluation",
      "theorylab.nn.train.TrainResult", "theorylab.psa.measurement.Measurement", "theorylab.psa.row_stats.RowMoments",
      "theorylab.psa.row_stats.RowStatistics", "theorylab.psa.row_stats_mc.RowStatsCurve",
      "theorylab.graded.overhead.GradingOverhead", "theorylab.psa.laws.CouplingBand", "theorylab.psa.laws.PowerLawFit")
_skip("parameter record built by a validated constructor (score_model, init_params, random_decoder, "
      "stratified_model, induction_head, reduced_channel_model); mutation tests build altered ones on purpose",
      "theorylab.psa.scoremodel.ScoreModel", "theorylab.plga.params.ResidualUnit",
      "theorylab.plga.params.GLU", "theorylab.plga.params.GatedResidualUnit",
      "theorylab.plga.params.PLGAParams", "theorylab.nn.transformer.Layer", "theorylab.nn.transformer.Decoder",
      "theorylab.nn.tasks.InductionHead", "theorylab.graded.envelope.LinearClass",
      "theorylab.graded.ladder.LadderDesign",
      "theorylab.psa.induction.ChannelModel")
_skip("property or method of a record whose only input is the record itself (built by a validated constructor)",
      "theorylab.plga.params.PLGAParams.dk", "theorylab.plga.diagnostics.PositivityMargins.positive",
      "theorylab.nn.specs.Graded.diag",
      "theorylab.nn.transformer.Decoder.n_head", "theorylab.nn.transformer.Decoder.d",
      "theorylab.nn.tasks.InductionBatch.T",
      "theorylab.graded.envelope.LinearClass.caps", "theorylab.graded.envelope.StratifiedModel.dims",
      "theorylab.graded.envelope.StratifiedModel.m_sat", "theorylab.graded.envelope.StratifiedModel.window",
      "theorylab.graded.envelope.StratifiedModel.cap_ratio", "theorylab.graded.envelope.StratifiedModel.Lambda",
      "theorylab.graded.envelope.StratifiedModel.target", "theorylab.psa.grid.Comparison.summary",
      "theorylab.psa.grid.Comparison.to_frame", "theorylab.psa.transition.CriticalCoupling.rows",
      "theorylab.psa.transition.CriticalCoupling.to_frame",
      "theorylab.psa.induction.ChannelModel.gap_at", "theorylab.psa.induction.ChannelModel.var_at",
      "theorylab.psa.induction.ChannelModel.cov34_at", "theorylab.graded.ladder.LadderDesign.alpha",
      "theorylab.graded.ladder.LadderDesign.tau", "theorylab.graded.ladder.LadderDesign.d",
      "theorylab.graded.ladder.LadderDesign.levels", "theorylab.graded.ladder.LadderDesign.null_risk",
      "theorylab.graded.ladder.LadderDesign.target", "theorylab.graded.ladder.LadderDesign.as_dict",
      "theorylab.graded.prereg.ArmRecord.q", "theorylab.graded.prereg.Preregistration.predicted_order",
      "theorylab.graded.prereg.to_json", "theorylab.nn.train.TrainConfig.ceiling",
      "theorylab.nn.train.TrainConfig.chance", "theorylab.nn.train.TrainConfig.n_layer",
      "theorylab.nn.train.TrainConfig.seq_len", "theorylab.nn.train.TrainConfig.vocab_size",
      "theorylab.nn.train.TrainResult.accuracy", "theorylab.nn.train.TrainResult.attention_accuracy",
      "theorylab.nn.train.TrainResult.pointer_accuracy", "theorylab.nn.train.TrainConfig.peak_lr",
      "theorylab.nn.train.TrainResult.row", "theorylab.psa.measurement.Measurement.row",
      "theorylab.psa.row_stats.RowStatistics.participation",
      "theorylab.graded.ladder_sim.LadderResult.to_frame", "theorylab.graded.risk_sim.RiskSimulation.to_frame",
      "theorylab.psa.compare.Calibration.to_frame", "theorylab.psa.mc_crossing.MCGammaC.row",
      "theorylab.psa.mc_crossing.MCGammaC.to_frame", "theorylab.psa.montecarlo.MassCurve.rows",
      "theorylab.psa.montecarlo.MassCurve.to_frame", "theorylab.psa.measurement.Measurement.to_frame",
      "theorylab.psa.row_stats.RowStatistics.rows", "theorylab.psa.row_stats.RowStatistics.to_frame",
      "theorylab.psa.row_stats_mc.RowStatsCurve.rows", "theorylab.psa.row_stats_mc.RowStatsCurve.to_frame")
_skip("takes only objects built elsewhere (parameters, caches, samples, models): no value to perturb",
      "theorylab.plga.params.sdpa_params", "theorylab.plga.contraction.unit_lipschitz",
      "theorylab.plga.contraction.row_map_lipschitz", "theorylab.nn.decoder.empty_cache", "theorylab.nn.decoder.commit",
      "theorylab.nn.decoder.cache_floats", "theorylab.nn.compiled.compile_grading",
      "theorylab.nn.decoder.restore_queries", "theorylab.psa.induction.reduced_channel_model",
      "theorylab.nn.compiled.collapse_invariant_plga", "theorylab.nn.params.parameters",
      "theorylab.nn.params.with_parameters",
      "theorylab.nn.optim.init_state", "theorylab.nn.evaluation.answers", "theorylab.nn.train.head_spec",
      "theorylab.nn.train.trainable", "theorylab.nn.train.memory_estimate", "theorylab.graded.ladder.uniform_arm",
      "theorylab.graded.ladder.taxonomic_arm", "theorylab.graded.ladder.oracle_arm", "theorylab.graded.ladder.proxy_arm",
      "theorylab.graded.ladder.educated_arm", "theorylab.graded.ladder_sim.window_end", "theorylab.graded.ladder_sim.reference_size",
      "theorylab.graded.ladder_sim.inverted_pairs")
_skip("process-wide allocator setting (glibc M_TOP_PAD) called once by nn.train.train; no arguments",
      "theorylab.nn._heap.retain_freed_memory")
_skip("writes a file (I/O at the edge): its inputs are a record built by preregister and an output path, which the "
      "CLI checks (_io.check_output_path) before computing; every string is a path",
      "theorylab.graded.prereg.write")
_skip("Numba kernel or intrinsic: called from compiled code with machine words; the validated entry points "
      "are rng.normals, psa.montecarlo.simulate_mass and per_sample_mass",
      "theorylab.rng.mix64", "theorylab.rng.sample_key", "theorylab.rng.uniform_pair",
      "theorylab.rng.normal_pair", "theorylab.rng.bits_as_float", "theorylab.rng.float_as_bits",
      "theorylab.rng.log32", "theorylab.rng.normal_pair32", "theorylab.rng.fill_normals32",
      "theorylab.rng.log64", "theorylab.rng.normal_pair64", "theorylab.rng.fill_normals64",
      "theorylab.psa.mc_kernels.exp32", "theorylab.psa.mc_kernels.exp64")
_skip("backward pass (vector-Jacobian product): its inputs are a forward pass's intermediates (the trace of "
      "decoder.hidden_states / attention.head) and upstream gradients; the validated entry point is "
      "nn.grad.loss_and_grad (tokens, answers), which the suite drives",
      "theorylab.nn.grad.layer_norm_vjp", "theorylab.nn.grad.mlp_vjp",
      "theorylab.nn.grad.logits_vjp", "theorylab.nn.grad.embedding_vjp", "theorylab.nn.grad.rope_vjp",
      "theorylab.nn.grad.two_tap_vjp", "theorylab.nn.grad.stream_vjp", "theorylab.nn.grad.scores_vjp",
      "theorylab.nn.grad.weights_vjp", "theorylab.nn.grad.head_vjp", "theorylab.nn.grad.hidden_vjp")
_skip("cost estimate of a file input: every string is a valid argument (a missing file costs nothing; the reader, "
      "compare.read_grid / graded.io.read_vector, which the suite drives, refuses it); non-strings are refused "
      "(tests/test_api_contract.py)",
      "theorylab.psa.grid.read_grid_cost", "theorylab.graded.io.read_vector_cost")
_skip("its input is a function to run (a FLOP counter / mutation-test hook), not a value",
      "theorylab.psa.deploy.count_flops")
_skip("its input is the chunk runner of a validated entry point (simulate_mass, simulate_row_stats, which the suite "
      "drives), not a value", "theorylab.psa.montecarlo.batch_means")
_skip("long-running study (minutes: tens of thousands of samples per point); its numeric arguments go through "
      "validate_grid, seed_int and mc_gamma_c/simulate_mass, which the suite drives",
      "theorylab.psa.compare.calibrate_condensation_c", "theorylab.psa.compare.band_edge_check",
      "theorylab.psa.compare.plateau_check")
_skip("long-running study (trains many models in spawned worker processes, minutes); each run's numbers go through "
      "TrainConfig and train, and workers through positive_int, which the suite drives",
      "theorylab.nn.runner.run_many")
_skip("symbolic certificate helper: its inputs are SymPy expressions and matrices built by the certificates "
      "(exact arithmetic decides identities; there is no numeric range to validate)",
      "theorylab.symbolic.exact.matrix", "theorylab.symbolic.exact.is_zero",
      "theorylab.symbolic.exact.matrix_is_zero", "theorylab.symbolic.exact.equal", "theorylab.symbolic.exact.positive",
      "theorylab.symbolic.exact.symbols_of", "theorylab.symbolic.graded.is_zero_rational",
      "theorylab.symbolic.graded.matrix_is_zero", "theorylab.symbolic.graded.symbol_matrix",
      "theorylab.symbolic.graded.to_exact", "theorylab.symbolic.graded.graded_logits_residual",
      "theorylab.symbolic.graded.symbols", "theorylab.symbolic.graded.Lambda_expr",
      "theorylab.symbolic.graded.hessian_residual", "theorylab.symbolic.graded.gradient_at_zero_residual",
      "theorylab.symbolic.graded.geometric_profiles_exact", "theorylab.symbolic.graded.bc_geometric_exact",
      "theorylab.symbolic.graded.boundary_polynomial_expr", "theorylab.symbolic.graded.tilted_exact",
      "theorylab.symbolic.plga.symbol_matrix", "theorylab.symbolic.plga.plane_rotation",
      "theorylab.symbolic.plga.torus_rotation", "theorylab.symbolic.plga.torus_haar_average",
      "theorylab.symbolic.plga.rational_plane", "theorylab.symbolic.plga.commuting_solutions",
      "theorylab.symbolic.plga.span_equal", "theorylab.symbolic.plga.closed_walk_sum",
      "theorylab.symbolic.plga.trace_power", "theorylab.symbolic.plga.walk_series_value",
      "theorylab.symbolic.plga.symmetric_part_eigenvalues", "theorylab.symbolic.plga.matrix_eigenvalues",
      "theorylab.symbolic.psa.gap_expr", "theorylab.symbolic.psa.variance_expr", "theorylab.symbolic.psa.jacobian",
      "theorylab.symbolic.softmax.probabilities", "theorylab.symbolic.softmax.derivative")

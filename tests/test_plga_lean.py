"""The PLGA author's conventions in the library (issue 13): residual unit, twirl pair sets, DL, signed order
parameter, LayerNorm proxy, rank-one route, envelopes, contraction, collapse, Definition 4.8's shape conjunct,
and the reproduction script of the authors' audit figures."""
import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from theorylab.errors import ParameterError
from theorylab.nn import decoder, specs
from theorylab.plga import contraction as con
from theorylab.plga import envelopes as env
from theorylab.plga import operator as op
from theorylab.psa.rotary import rope_frequencies

ROOT = Path(__file__).resolve().parents[1]
RANK_RTOL = 64 * float(np.finfo(np.float32).eps)
"""The authors' numerical-rank tolerance (audit ``numrank``): singular values > 64 eps_float32 s_1 count."""


# ------------------------------------------------------------------------------ residual unit
@pytest.mark.parametrize("residual, rank", [("glu-ln", 63), ("additive", 64)])
def test_random_init_metric_has_rank_63_only_with_the_final_layer_norm(residual, rank):
    """The authors' random-init control: numerical rank of A is 63 of 64 with their unit LN(GLU(r) + r) (each row of A
    is mean-zero, so A 1 = 0) and 64 with the additive unit; tolerance 64 eps_float32 s_1 (theirs). The margin is
    wide: s_64/s_1 ~ 1e-17 (glu-ln) and ~ 1e-3 (additive) against 7.6e-6."""
    q = np.random.default_rng(40)
    for seed in range(3):
        params = op.init_params(64, seed, n_res=8, n_dense=2, hidden=180, residual=residual)
        A = op.plga_stages(q.standard_normal((40, 64)), params).A
        s = np.linalg.svd(A, compute_uv=False)
        assert int(np.sum(s > RANK_RTOL * s[0])) == rank
        assert (s[-1] / s[0] < 1e-14) if residual == "glu-ln" else (s[-1] / s[0] > 100 * RANK_RTOL)


def test_gated_unit_is_layer_norm_of_glu_plus_skip():
    p = op.init_params(8, 2, n_res=1, n_dense=2)
    u = p.units[0]
    x = np.random.default_rng(0).normal(size=(5, 8))
    h = x
    for g in u.glus:
        h = (op.silu(h @ g.W1 + g.b1) * (h @ g.W2 + g.b2)) @ g.W3 + g.b3
    np.testing.assert_allclose(op.metric_learner(x, p), op.layer_norm(h + x, eps=op.EPS_LN), rtol=0, atol=1e-14)


def test_additive_residual_keeps_the_first_convention():
    p = op.init_params(8, 1, n_res=2, residual="additive")
    assert all(isinstance(u, op.ResidualUnit) for u in p.units)
    x = np.random.default_rng(1).normal(size=(3, 8))
    y = x
    for u in p.units:
        y = y + op.silu(y @ u.W1 + u.b1) @ u.W2 + u.b2
    # two computations (the library's loop and this restatement of eq. 3.3): equal only while both evaluate
    # in the same order; the additive convention is what is checked, at float64 GEMM rounding over dk = 8 terms
    np.testing.assert_allclose(op.metric_learner(x, p), y, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("call", [lambda: op.init_params(8, residual="ln-glu"), lambda: op.init_params(8, n_dense=0)])
def test_bad_residual_options_are_refused(call):
    with pytest.raises(ParameterError):
        call()


# ------------------------------------------------------------------------------ twirl pair sets
def test_pair_sets_list_the_same_frequencies_with_different_weights():
    fr = rope_frequencies(64, 1e4)
    un, ordered = op.twirl_frequencies(fr, "unordered"), op.twirl_frequencies(fr, "ordered")
    assert (un.size, ordered.size) == (1024, 2016) == (64 ** 2 // 4, 32 + 2 * 32 * 31)
    cross = np.sort(un[32:])
    # exact: the ordered list repeats the very entries of the unordered one
    np.testing.assert_array_equal(np.sort(ordered[32:]), np.sort(np.concatenate([cross, cross])))
    # a value recorded on one machine: base^(-2j/dk) and sin may round an ulp apart under another CPU's SIMD
    # kernels, and the smallest difference frequency theta_30 - theta_31 amplifies that about 4x: rel 1e-14
    assert op.twirl_constant(fr) == pytest.approx(44968.27712271532, rel=1e-14)


def test_ordered_statistics_are_the_authors_table():
    """``audit/audit_results.json`` (twirl_analytic) of the authors' public audit, S = 1024 row."""
    st = op.twirl_statistics(rope_frequencies(64, 1e4), 1024, "ordered")
    assert (st.worst, st.median, st.below_0_1, st.below_0_01, st.slowest_in_plane) == (
        0.9999135779644395, 0.012758660064596179, 0.7534722222222222, 0.45882936507936506, 0.9968951306183299)
    assert st.bound == pytest.approx(43.91433312765168, rel=1e-15)


def test_twirl_multiplier_is_the_ergodic_average():
    w = np.array([0.3, 1e-4, 2.0])
    for S in (1, 7, 64):
        direct = np.abs(np.exp(1j * np.outer(w, np.arange(1, S + 1))).mean(axis=1))
        np.testing.assert_allclose(op.twirl_multiplier(w, S), direct, rtol=1e-12)
    assert op.twirl_multiplier(2 * np.pi, 5) == 1.0                          # resonance: no averaging


def test_bad_pair_set_is_refused():
    with pytest.raises(ParameterError):
        op.twirl_frequencies([0.1, 0.2], "both")


# ------------------------------------------------------------------------------ DL beside h
@pytest.mark.parametrize("scale", [1e-9, 1e-4, 0.1, 1.0, 3.0])
def test_dl_is_log1p_of_h_over_d(scale):
    W = scale * np.random.default_rng(int(-np.log10(scale) + 10)).uniform(0, 1, (8, 8))
    h = op.notears_h(W).h
    assert op.dag_loss(W) == pytest.approx(math.log1p(h / 8), rel=1e-13, abs=0)


def test_dl_resolves_the_floor_where_the_trace_first_returns_zero():
    W = np.full((64, 64), op.EPS)
    assert op.notears_h(W).h == pytest.approx(64 * op.EPS ** 2, rel=1e-14)
    assert op.dag_loss(W) == pytest.approx(math.log1p(op.EPS ** 2), rel=1e-14)
    lam = np.linalg.eigvals(W * W)                                          # the authors' evaluation, restated
    m = lam.real.max()
    assert abs(m + math.log(np.exp(lam - m).sum().real) - math.log(64)) == 0.0


def test_dl_is_finite_where_h_overflows():
    W = np.full((8, 8), 40.0)
    assert op.notears_h(W).h == np.inf
    assert op.dag_loss(W) == pytest.approx(8 * 1600 - math.log(8), rel=1e-14)


# ------------------------------------------------------------------------------ order parameter, LayerNorm proxy
def test_signed_order_parameter_cases():
    m = op.order_parameter
    assert m(np.ones((2, 2)), -np.ones((2, 2)), normalization="signed") == 2.0
    assert m(np.array([1.0, -1.0]), np.array([-1.0, 1.0]), normalization="signed") == np.inf
    assert m(np.zeros(3), np.zeros(3), normalization="signed") == 0.0
    D = np.random.default_rng(2).normal(size=(4, 4))
    assert m(D, D + 1, normalization="signed") >= m(D, D + 1)
    with pytest.raises(ParameterError):
        m(D, D, normalization="mean")


def test_layer_norm_proxy_bounds_the_direct_error_without_affine():
    rows = np.random.default_rng(3).normal(size=(6, 16)) * np.logspace(-4, 1, 6)[:, None]
    direct = np.linalg.norm(op.ln_scale_error(rows, 40, 1e-6), axis=1) / np.linalg.norm(
        op.layer_norm(rows / 40, eps=1e-6), axis=1)
    assert np.all(direct <= op.ln_scale_proxy(rows, 40, 1e-6) * (1 + 1e-12))
    assert op.ln_scale_proxy(np.full(5, 2.0), 40)[()] == np.inf


# ------------------------------------------------------------------------------ rank one
def test_perron_frobenius_answers_the_nilpotent_rank_one_case():
    A = op.row_clone(np.array([1.0, 2.0, -3.0]) / 8)
    pf = op.perron_frobenius(A)
    assert (pf.rho, pf.eigenvalue, pf.second) == (0.0, 0.0, 0.0)
    assert np.max(np.abs(A @ A)) == 0.0                                     # nilpotent: A^2 = 0
    with pytest.raises(ParameterError):
        op.perron_frobenius(np.array([[1.0, -1.0], [0.5, 2.0]]))            # negative entries, not rank one


def test_row_clone_refuses_a_matrix():
    with pytest.raises(ParameterError):
        op.row_clone(np.eye(2))


# ------------------------------------------------------------------------------ envelopes, contraction
def test_silu_prime_sup_and_envelopes():
    u, s = env.silu_prime_sup()
    assert round(u, 4) == 2.3994 and round(s, 4) == 1.0998
    assert abs(u * math.tanh(u / 2) - 2) < 1e-14
    for U in (0.01, 0.5, 3.0, 30.0):
        grid = np.linspace(-U, U, 4001)
        assert env.silu_prime_envelope(U) >= np.max(np.abs(env.silu_prime(grid)))
        assert env.iswiglu_prime_envelope(U) >= np.max(np.abs(env.iswiglu_prime(grid)))


def test_greedy_margin_needs_the_factor_two():
    assert not env.greedy_margin_ok(0.6, 1.0) and env.greedy_margin_ok(0.49, 1.0) and not env.greedy_margin_ok(0.5, 1.0)
    assert env.logit_margin([1.0, 3.5, 2.0]) == 1.5


def test_diameter_and_lipschitz():
    X = np.array([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0]])
    assert con.diameter(X) == 5.0 and con.diameter(X[:1]) == 0.0
    assert con.composition_bound([2.0, 0.5, 3.0], 1.5) == 4.5
    with pytest.raises(ParameterError):
        con.unit_lipschitz(op.init_params(4, 0, n_res=1).units[0])       # the gated unit has no global constant
    K = con.row_map_lipschitz(op.init_params(4, 0, n_res=2, residual="additive"))
    assert len(K) == 2 and min(K) > 1


# ------------------------------------------------------------------------------ decoder: shape conjunct, collapse
def test_prefix_consistency_has_the_shape_conjunct():
    nil = decoder.prefix_consistency(lambda x: np.zeros((0, 1)), [0, 1])
    assert (nil.length_preserving, nil.gap, nil.holds()) == (False, 0.0, False)
    glob = decoder.prefix_consistency(lambda x: (np.asarray(x) + np.sum(x))[:, None], [0, 1])
    assert (glob.length_preserving, glob.gap) == (True, 1.0)


def test_collapse_refuses_an_input_dependent_head():
    model = decoder.random_decoder(head=specs.PLGA(op.init_params(8, 0)), seed=0)
    with pytest.raises(ParameterError):
        decoder.collapse_invariant_plga(model)


# ------------------------------------------------------------------------------ the reproduction script
def _study():
    spec = importlib.util.spec_from_file_location("h_plga_lean", ROOT / "simulations" / "h_plga_lean.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "simulations"))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "simulations"))
    return module


def test_every_recomputed_audit_figure_agrees_or_names_its_convention():
    rows, out_of_reach = _study().figures()
    assert rows and not [r for r in rows if r["status"] == "disagree"]
    assert {r["status"] for r in rows} == {"agree", "convention", "from their inputs"}
    twirl = [r for r in rows if r["area"] == "twirl" and r["convention"].startswith("theirs: ordered")]
    assert len(twirl) == 13 and all(r["status"] == "agree" for r in twirl)       # 12 table entries and the count
    assert len(out_of_reach) >= 10


def test_the_script_writes_csv_and_json(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "simulations" / "h_plga_lean.py"), "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    summary = json.loads((tmp_path / "h_plga_lean.json").read_text())
    assert summary["disagree"] == 0 and summary["figures"] == len(summary["rows"]) > 50
    assert (tmp_path / "h_plga_lean.csv").read_text().count("\n") == summary["figures"] + 1

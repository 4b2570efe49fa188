"""The head interface: each head computes what its paper says, blocks equal full passes."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from theorylab import ParameterError
from theorylab.graded.attention import grading_matrix
from theorylab.nn import attention as A
from theorylab.nn import specs as S
from theorylab.plga import operator as plga
from theorylab.psa import shear as psa
from theorylab.psa import rotary
from theorylab.psa.softmax import softmax


RoPE_TOL = 4 * np.finfo(float).eps
"""|A._rope(x) - rotary.rope(x)| / max|x|: each entry is a sum of two products of |x| entries and unit-bounded cos,
sin, each rounded once or fused (one rounding fewer), so the two routes differ by a few ulp of |x|."""

def qkv(T=10, dk=8, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(T, dk)), rng.normal(size=(T, dk)), rng.normal(size=(T, dk))


def test_psa_at_zero_coupling_is_sdpa_bitwise():
    q, k, v = qkv()
    # exact: a shear by 0 returns its input bit for bit, then both heads run the same code
    assert np.array_equal(A.head(S.PSA(0.0, 0.0), q, k, v), A.head(S.SDPA(), q, k, v))


def test_psa_scores_are_the_sheared_post_rope_scores():
    q, k, v = qkv()
    spec = S.PSA(0.4, 0.9)
    qs, ks, vs = A.streams(spec, q, k, v)
    # the decoder's RoPE is a complex product per pair (possibly fused multiply-adds): it equals psa's rope to a
    # few ulp of the entries (RoPE_TOL); the shear is then the same code, so the streams agree to that too
    np.testing.assert_allclose(qs, psa.shear(rotary.rope(q), 0.4), rtol=0, atol=RoPE_TOL * 2 * np.abs(q).max())
    np.testing.assert_allclose(ks, psa.shear(rotary.rope(k), 0.9), rtol=0, atol=RoPE_TOL * 3 * np.abs(k).max())
    assert vs is v                                                       # values never sheared (PSA §4.7)
    np.testing.assert_allclose(A.streams(S.PSA(0.4, 0.9, "pre-rope"), q, k, v)[0], rotary.rope(psa.shear(q, 0.4)),
                               rtol=0, atol=RoPE_TOL * 2 * np.abs(q).max())


def test_lattice_members():
    assert (S.PSA.member("key-only", 2.0).g_q, S.PSA.member("key-only", 2.0).g_k) == (0.0, 2.0)
    assert (S.PSA.member("query-only", 2.0).g_q, S.PSA.member("query-only", 2.0).g_k) == (2.0, 0.0)
    assert S.PSA.member("symmetric", 2.0) == S.PSA(2.0, 2.0)


@settings(max_examples=25, deadline=None)
@given(split=st.integers(1, 9), g_q=st.floats(0, 3), g_k=st.floats(0, 3), pre=st.booleans())
def test_block_with_retained_vectors_equals_full_rows(split, g_q, g_k, pre):
    """A block computed from the retained raw vectors equals the same rows of the full pass."""
    q, k, v = qkv()
    spec = S.PSA(g_q, g_k, "pre-rope" if pre else "post-rope")
    full = A.streams(spec, q, k, v)
    block = A.streams(spec, q[split:], k[split:], v[split:], start=split, prev=(q[split - 1], k[split - 1]))
    # two computations: the block's RoPE tables are cos/sin of a shorter array than the full pass's, and
    # NumPy's SIMD cos/sin need not round a value alike in every array position (an ulp); the shear
    # (1 + g) x - g x' with g <= 3 carries that to a few ulp of the O(10) entries: 1e-14
    for f, b in zip(full, block):
        np.testing.assert_allclose(b, f[split:], rtol=1e-14, atol=1e-14)


def test_psa_block_needs_retained_vectors():
    q, k, v = qkv()
    with pytest.raises(ParameterError, match="prev"):
        A.streams(S.PSA(1.0, 1.0), q[3:], k[3:], v[3:], start=3)


def test_graded_scores_are_q_m2_kT():
    """GLLM Eq. 12: Q'K'^T = Q M^2 K^T (no RoPE, so the identity is direct)."""
    q, k, v = qkv()
    grades = np.linspace(0, 3, 8)
    spec = S.Graded(grades, 1.5, base=None)
    qs, ks, vs = A.streams(spec, q, k, v)
    M = grading_matrix(grades, 1.5)
    np.testing.assert_allclose(A.scores(qs, ks), q @ M @ M @ k.T / np.sqrt(8), rtol=1e-13)
    np.testing.assert_allclose(vs, v @ M, rtol=1e-15)


def test_grading_clip():
    d = S.grading_diag([0.0, 1.0, 5.0], np.e, clip=np.e ** 2)
    np.testing.assert_allclose(d, [1.0, np.e, np.e ** 2])
    with pytest.raises(ParameterError, match="C"):
        S.Graded(np.zeros(4), 1.1, clip=0.5)


def test_plga_head_uses_g_lm_of_rotated_queries():
    q, k, v = qkv()
    params = plga.init_params(8, seed=3)
    spec = S.PLGA(params)
    G = plga.g_lm(rotary.rope(q), params)
    expected = A.attend(rotary.rope(q) @ G @ rotary.rope(k).T / np.sqrt(8), v)
    np.testing.assert_allclose(A.head(spec, q, k, v), expected, rtol=1e-13)
    # exact: G_LM is exactly I (test_plga_operator), and q @ I = q in any summation order
    np.testing.assert_array_equal(A.head(S.PLGA(plga.sdpa_params(params)), q, k, v), A.head(S.SDPA(), q, k, v))


def test_plga_cumulative_rows_use_their_own_gram():
    q, k, v = qkv()
    params = plga.init_params(8, seed=3)
    out = A.head(S.PLGA(params, "cumulative"), q, k, v)
    for t in (0, 4, 9):
        last = A.head(S.PLGA(params, "global"), q[:t + 1], k[:t + 1], v[:t + 1])[-1]
        np.testing.assert_allclose(out[t], last, rtol=1e-12, atol=1e-13)


def test_attend_is_causal():
    rng = np.random.default_rng(0)
    s, v = rng.normal(size=(4, 6)), rng.normal(size=(6, 3))
    out = A.attend(s, v)                                                 # rows are positions 2..5
    w = np.exp(s[0, :3]) / np.exp(s[0, :3]).sum()
    np.testing.assert_allclose(out[0], w @ v[:3])


@pytest.mark.parametrize("bad", [lambda: S.PSA(0.5, 0.5, "mid-rope"), lambda: S.PLGA(plga.init_params(4), "rolling"),
                                 lambda: S.Graded(np.zeros(4), 1.0), lambda: S.PSA(float("nan"), 0.0)])
def test_bad_specs_raise(bad):
    with pytest.raises(ParameterError):
        bad()


@pytest.mark.parametrize("spec", [S.PSA(0.5, 0.9), S.PSA(0.5, 0.9, "pre-rope"), S.PSA(0.3, 2.0, base=None)])
def test_unshear_keys_inverts_the_key_filter(spec):
    q, k, v = qkv(12)
    _, ks, _ = A.streams(spec, q, k, v)
    np.testing.assert_allclose(A.unshear_keys(spec, ks), k, rtol=0, atol=1e-14)
    np.testing.assert_allclose(A.unshear_keys(spec, ks[5:], 5, k[4]), k[5:], rtol=0, atol=1e-14)


@pytest.mark.parametrize("base", [10000.0, 500.0])
def test_rope_kernel_is_psa_rope(base):
    """The decoder's unchecked RoPE is psa.rotary.rope's rotation (same tables from psa) written as one complex
    product per pair, ``(x_2i + i x_2i+1)(cos + i sin)``: the same products and sums, which NumPy may fuse into
    multiply-adds, so the two agree to RoPE_TOL |x| (two roundings of each of the two products of an entry) at
    positive and negative positions; float32 rows give float32 rows at float32's precision; object rows (the
    exact route) go through psa's own kernel and agree exactly."""
    x = np.random.default_rng(3).normal(size=(2, 7, 8))
    for pos in (np.arange(3, 10, dtype=float), -np.arange(7, dtype=float)):
        np.testing.assert_allclose(A._rope(x, pos, base), rotary.rope(x, base, pos), rtol=0,
                                   atol=RoPE_TOL * np.abs(x).max())
        x32 = A._rope(x.astype(np.float32), pos, base)
        assert x32.dtype == np.float32
        np.testing.assert_allclose(x32, rotary.rope(x, base, pos), rtol=0, atol=4 * 2.0 ** -23 * np.abs(x).max())
        assert np.array_equal(A._rope(x.astype(object), pos, base), rotary.rope(x.astype(object), base, pos))


def test_causal_softmax_kernel_is_psa_softmax():
    """The unchecked causal softmax does psa.softmax.softmax(s, mask=past)'s arithmetic (masked scores -inf, the same
    shift, exp and normalisation), so the weights agree exactly; future keys get weight exactly 0."""
    s = np.random.default_rng(4).normal(size=(3, 4, 6)) * 5
    past = np.arange(6)[None, :] <= np.arange(2, 6)[:, None]
    p = A._attention_weights(s)
    assert np.array_equal(p, softmax(s, mask=past))
    assert np.all(p[..., ~past] == 0.0)


def test_graded_diag_is_computed_once_and_read_only():
    spec = S.Graded(np.array([0.0, 1.0, 2.0, 3.0]), 2.0)
    assert spec.diag is spec.diag
    assert np.array_equal(spec.diag, [1.0, 2.0, 4.0, 8.0])                 # 2^q: powers of two are exact
    with pytest.raises(ValueError):
        spec.diag[0] = 3.0

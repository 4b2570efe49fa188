"""Bugs planted in the library SOURCE make `theorylab certify` FAIL (issue 10, items 1-2 and 7).

Each case copies ``theorylab/`` and ``certificates/`` (tests/planted.py), plants one plausible
one-line bug (or one formula changed the same way in two modules) and runs only the certificates
that must catch it. The certificates hold the library against ``certificates/reference`` (routes
sharing no library code), against golden values, or show a bound attained on an extremal example,
so none of these bugs can be repeated on both sides of a comparison.
"""
import pytest

from planted import assert_caught, certify_with_bug

NN, SHEAR = "theorylab/nn/attention.py", "theorylab/psa/shear.py"
DECODER, OPERATOR = "theorylab/nn/decoder.py", "theorylab/plga/operator.py"
ENVELOPE, GRADES = "theorylab/graded/envelope.py", "theorylab/graded/grades.py"

#: label -> (path, old, new, further replacements, certificates that must FAIL)
BUGS = {
    "decoder MLP drops its output bias": (
        DECODER, "@ layer.w_proj + layer.b_proj", "@ layer.w_proj", (), ["A8", "A9", "P20.numeric", "G1.numeric"]),
    "decoder MLP drops its hidden bias": (
        DECODER, "gelu(x @ layer.w_fc + layer.b_fc)", "gelu(x @ layer.w_fc)", (), ["P20.numeric", "G1.numeric"]),
    "RoPE frequencies base^(-i/d)": (
        SHEAR, "base ** (-np.arange(0, d, 2) / d)", "base ** (-np.arange(0, d // 2) / d)", (),
        ["A9", "P20.numeric", "G1.numeric", "A12.numeric", "P9.numeric"]),
    "score scale dk instead of sqrt(dk), SDPA and PLGA alike": (
        NN, "/ np.sqrt(qs.shape[-1])", "/ qs.shape[-1]",
        ((OPERATOR, "q @ G @ k.T / np.sqrt(dk)", "q @ G @ k.T / dk"),
         (OPERATOR, 'np.einsum("ti,tij,sj->ts", q, G, k) / np.sqrt(dk)', 'np.einsum("ti,tij,sj->ts", q, G, k) / dk')),
        ["A1", "A1.symbolic", "A9", "P20.numeric", "G1.numeric"]),
    "PLGA power A_LM**(2P)": (
        OPERATOR, "    return A ** P\n", "    return A ** (2 * P)\n", (), ["A2.numeric", "A9"]),
    "twirl constant loosened x2": (
        OPERATOR, "else 1.0 / s.min())", "else 2.0 / s.min())", (), ["A12.numeric"]),
    "row perturbation bound loosened x2": (
        OPERATOR, "np.linalg.norm(dG, 2) / np.sqrt(q_t.size))", "np.linalg.norm(dG, 2) * 2 / np.sqrt(q_t.size))", (),
        ["A10.stability"]),
    "Thm 4.1 lower factor loosened x1/2": (
        ENVELOPE, "return 1.0 - np.sqrt(mu / nu), 1.0 / (1.0 - mu)",
        "return 0.5 * (1.0 - np.sqrt(mu / nu)), 1.0 / (1.0 - mu)", (), ["G8.numeric"]),
    "Thm 4.1 upper factor loosened x2": (
        ENVELOPE, "return 1.0 - np.sqrt(mu / nu), 1.0 / (1.0 - mu)",
        "return 1.0 - np.sqrt(mu / nu), 2.0 / (1.0 - mu)", (), ["G8.numeric"]),
    "EG-MHSA head ignores the clip": (
        NN, "diag = grading_diag(self.grades, self.lam, self.clip)", "diag = grading_diag(self.grades, self.lam)", (),
        ["G1.numeric"]),
    "gradient_u: sign of the alpha tilt flipped": (
        GRADES, "return _tilted(t, u) - _tilted(a, -u)", "return _tilted(t, u) - _tilted(a, u)", (), ["G4"]),
}


ATTENTION, ENVELOPE_ = NN, ENVELOPE
#: further plausible mutants in the code these certificates cover (slow: run with -m slow)
MORE_BUGS = {
    "momentum p_0 = x_0 (first-token impulse)": (SHEAR, "p[:1] = x[:1] - x[:1]", "p[:1] = x[:1]", (),
                                                 ["A9", "P20.numeric"]),
    "causal mask lets row i see key i+1": (
        ATTENTION, "<= np.arange(m - n, m)[:, None]", "<= np.arange(m - n + 1, m + 1)[:, None]", (), ["A9"]),
    "RoPE rotates by -theta (sign of the sin term)": (SHEAR, "out[..., 0::2] = cos * even - sin * odd",
                                                      "out[..., 0::2] = cos * even + sin * odd", (),
                                                      ["P9.numeric"]),
    "decoder RoPE rotates by -theta (sign of the sin term)": (NN, "out[..., 0::2] = cos * even - sin * odd",
                                                              "out[..., 0::2] = cos * even + sin * odd", (),
                                                              ["A9", "P20.numeric", "G1.numeric"]),
    "GELU constant 0.0447": (DECODER, "0.044715 * x**3", "0.0447 * x**3", (), ["A9"]),
    "decoder LayerNorm eps 1e-6": (DECODER, "LN_EPS = 1e-5", "LN_EPS = 1e-6", (), ["A9"]),
    "final LayerNorm skipped in forward": (DECODER, "return _layer_norm(x, model.ln_f) @ model.wte.T  ",
                                           "return x @ model.wte.T  ", (), ["A9", "P20.numeric"]),
    "G-cache recomputed from the new rows at every step": (
        DECODER, "G = frozen = hc.G if start else attention._plga_operator(spec, qs)",
        "G = frozen = attention._plga_operator(spec, qs)", (), ["A8"]),
    "cumulative Gram without the cumulative sum": (OPERATOR, "return np.cumsum(outer, axis=0)", "return outer", (),
                                                   ["A9"]),
    "LayerNorm eps outside the square root": (OPERATOR, "den = np.sqrt(var + eps_y)",
                                              "den = np.sqrt(var) + eps_y", (), ["A11.numeric", "A2.numeric"]),
    "metric learner without its residual": (OPERATOR, "x = x + _silu(x @ u.W1 + u.b1) @ u.W2 + u.b2",
                                            "x = _silu(x @ u.W1 + u.b1) @ u.W2 + u.b2", (), ["A2.metric"]),
    "G_LM = A_P a (right action)": (OPERATOR, "G = params.a @ A_P + params.b_a", "G = A_P @ params.a + params.b_a", (),
                                    ["A2.numeric"]),
    "Perron vector normalised by its max": (OPERATOR, "v = v / v.sum()", "v = v / v.max()", (), ["A3"]),
    "commutant projection: J part with the wrong sign": (
        OPERATOR, "s = 0.5 * B[..., 1, 0] - 0.5 * B[..., 0, 1]", "s = 0.5 * B[..., 0, 1] - 0.5 * B[..., 1, 0]", (),
        ["A12.numeric"]),
    "position twirl over n = 0..S-1": (OPERATOR, "plane_rotations(freqs, np.arange(1, S + 1))",
                                       "plane_rotations(freqs, np.arange(S))", (), ["A12.numeric"]),
    "twirl constant ignores the sum frequencies": (
        OPERATOR, "diffs += [th[iu[0]] + th[iu[1]], th[iu[0]] - th[iu[1]]]", "diffs += [th[iu[0]] - th[iu[1]]]", (),
        ["A12.numeric"]),
    "order parameter without the 1/2": (OPERATOR, "den = 0.5 * (_rms(D1) + _rms(D2))", "den = _rms(D1) + _rms(D2)", (),
                                        ["A10"]),
    "row bound with the Frobenius norm of K": (OPERATOR, "np.linalg.norm(K, 2) * np.linalg.norm(dG, 2)",
                                               "np.linalg.norm(K) * np.linalg.norm(dG, 2)", (), ["A10.stability"]),
    "unshear with the wrong sign": (SHEAR, "return (y + g * r_prev) / (1 + g)", "return (y - g * r_prev) / (1 + g)",
                                    (), ["P20.numeric"]),
    "grading clip at C^2": (ATTENTION, "np.log(clip_bound(clip)) / np.log(lam))",
                            "2 * np.log(clip_bound(clip)) / np.log(lam))", (), ["G1.numeric"]),
    "cap ratio without g_0^2": (ENVELOPE_, 'finite_result("g", g[0] ** 2 * np.sum(a / g ** 2))',
                                'finite_result("g", np.sum(a / g ** 2))', (), ["G8.numeric"]),
    "tilted profile without the max shift (overflows at large u)": (
        GRADES, "shift = u - np.max(u)", "shift = u", (), ["G4"]),
}


def _assert_caught(path, old, new, also, catchers):
    assert_caught(path, old, new, catchers, also=also)


@pytest.mark.parametrize("label", list(BUGS))
def test_planted_bug_makes_certify_fail(label):
    _assert_caught(*BUGS[label])


@pytest.mark.slow
@pytest.mark.parametrize("label", list(MORE_BUGS))
def test_further_planted_bug_makes_certify_fail(label):
    _assert_caught(*MORE_BUGS[label])


def test_the_unplanted_copy_passes_the_same_certificates():
    """The same certificates PASS on an unmodified copy (so a FAIL above is the bug's doing)."""
    catchers = sorted({cid for *_, ids in BUGS.values() for cid in ids})
    path, old, *_ = BUGS["twirl constant loosened x2"]
    run = certify_with_bug(path, old, old, catchers)
    assert run.returncode == 0 and all(run.status(cid) == "PASS" for cid in catchers), run.output[-2000:]

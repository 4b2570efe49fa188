"""Bugs planted in the library SOURCE make the certificates of the PLGA Lean areas FAIL (issue 13).

Each case copies ``theorylab/`` and ``certificates/`` (tests/planted.py), plants one plausible bug
in a library module and runs only the certificates that must catch it. Every certificate of the
Lean areas (``LEAN_CERTIFICATES``, in the subject modules of ``certificates/plga/``) is caught by at
least one case of ``BUGS`` (checked below).
"""
import pytest

from planted import assert_caught, certify_with_bug

DECODER = "theorylab/nn/decoder.py"
CHAIN = "theorylab/plga/chain.py"
PERRON = "theorylab/plga/perron.py"
NOTEARS = "theorylab/plga/notears.py"
ROPE = "theorylab/plga/rope.py"
DIAGNOSTICS = "theorylab/plga/diagnostics.py"
ENVELOPES, CONTRACTION = "theorylab/plga/envelopes.py", "theorylab/plga/contraction.py"
SOFTMAX, SYM_SOFTMAX = "theorylab/psa/softmax.py", "theorylab/symbolic/softmax.py"

#: label -> (path, old, new, further replacements, certificates that must FAIL)
BUGS = {
    "gated residual unit without its final LayerNorm": (
        CHAIN, "    return layer_norm(h + x, u.ln_gamma, u.ln_beta, eps_ln)", "    return h + x", (),
        ["A2.metric", "A2.numeric"]),
    "prefix check without the shape conjunct": (
        DECODER, "shaped, gap = len(full) == len(x), 0.0", "shaped, gap = True, 0.0",
        ((DECODER, "shaped &= len(part) == r + 1", "shaped &= True"),), ["A9.shape"]),
    "signed order parameter without the 1/2": (
        DIAGNOSTICS, "0.5 * (abs(_mean(D1)) + abs(_mean(D2)))", "(abs(_mean(D1)) + abs(_mean(D2)))", (),
        ["A10.signed"]),
    "twirl multiplier at (S + 1) omega": (
        ROPE, "np.abs(np.sin(S * omega / 2))", "np.abs(np.sin((S + 1) * omega / 2))", (), ["A12.standard"]),
    "DAG loss as log(1 + x) (loses the floor)": (
        NOTEARS, "np.log1p(np.exp(excess)) if excess <= 0", "np.log(1 + np.exp(excess)) if excess <= 0", (),
        ["A13.dl"]),
    "Hadamard power with |P|": (CHAIN, "    return A ** P\n", "    return A ** np.abs(P)\n", (),
                                ["A14.symbolic", "A14.numeric", "A2.numeric"]),
    "LayerNorm eps outside the square root": (
        CHAIN, "den = (var + eps) ** 0.5", "den = var ** 0.5 + eps",
        ((CHAIN, "den = np.sqrt(var + eps_y)", "den = np.sqrt(var) + eps_y"),),
        ["A15.symbolic", "A15.numeric"]),
    "LayerNorm proxy without the 2": (
        DIAGNOSTICS, "eps * s_mant ** 2 / (2 * v)", "eps * s_mant ** 2 / v",
        (), ["A15.numeric"]),
    "rank-one route sums |alpha|": (PERRON, "s = math.fsum(M[0])", "s = math.fsum(np.abs(M[0]))", (), ["A16"]),
    "softmax mask ignored": (SOFTMAX, "s = np.where(keep, s, -np.inf)", "s = np.where(keep, s, s)", (),
                             ["A17.numeric"]),
    "exact softmax normaliser off by u_0": (SYM_SOFTMAX, "    total = sum(u)\n", "    total = sum(u) + u[0]\n", (),
                                            ["A17.symbolic"]),
    "diameter over consecutive rows only": (
        CONTRACTION, "np.linalg.norm(X[i + 1:] - X[i], axis=1)", "np.linalg.norm(X[i + 1:i + 2] - X[i], axis=1)", (),
        ["A18"]),
    "additive-unit Lipschitz constant with sup|SiLU'| = 1": (
        CONTRACTION, "return 1.0 + SILU_PRIME_SUP * float(", "return 1.0 + 1.0 * float(", (), ["A18"]),
    "absorbed operator transposed": (CHAIN, "    return W @ G, b @ G\n", "    return W @ G.T, b @ G.T\n", (),
                                     ["A19.symbolic", "A19.numeric"]),
    "SiLU' envelope sigma(U) + U/8": (ENVELOPES, "return sigmoid(U) + U / 4", "return sigmoid(U) + U / 8", (),
                                      ["A20", "A20.numeric"]),
    "greedy criterion B < margin": (
        ENVELOPES, "return 2 * B < margin", "return B < margin",
        (), ["A20"]),
}

#: further plausible mutants (slow: run with -m slow)
MORE_BUGS = {
    "prefix check: a row present on one side only is not flagged": (
        DECODER, "            gap = np.inf                                                    # Some row vs None",
        "            pass                                                            # Some row vs None", (),
        ["A9.shape"]),
    "ordered twirl list equal to the unordered one": (ROPE, "        diffs += diffs[1:]\n", "        pass\n", (),
                                                      ["A12.standard"]),
    "Hadamard power of A + 1e-12": (CHAIN, "    return A ** P\n", "    return (A + 1e-12) ** P\n", (),
                                    ["A14.numeric"]),
    "perron_frobenius without the identical-rows route": (
        PERRON, "if M.size and np.all(M == M[:1]):", "if False and np.all(M == M[:1]):", (), ["A16"]),
    "iSwiGLU' envelope U sigma(U) + U^2/4": (ENVELOPES, "return 2 * U * sigmoid(U) + U * U / 4",
                                             "return U * sigmoid(U) + U * U / 4", (), ["A20", "A20.numeric"]),
    "Newton for u* aims at u tanh(u/2) = 2.1": (ENVELOPES, "step = (u * t - 2) /", "step = (u * t - 2.1) /", (),
                                                ["A20"]),
    "collapse absorbs b_a transposed": (
        DECODER, "plga.absorb_operator(layer.w_q[:, cols], np.zeros(dk), s.params.b_a)",
        "plga.absorb_operator(layer.w_q[:, cols], np.zeros(dk), s.params.b_a.T)", (), ["A19.numeric"]),
}

LEAN_CERTIFICATES = ["A2.metric", "A9.shape", "A10.signed", "A12.standard", "A13.dl", "A14.symbolic", "A14.numeric",
                     "A15.symbolic", "A15.numeric", "A16", "A17.symbolic", "A17.numeric", "A18", "A19.symbolic",
                     "A19.numeric", "A20", "A20.numeric"]


def _assert_caught(path, old, new, also, catchers):
    assert_caught(path, old, new, catchers, also=also)


PAPER_CERTIFICATES = ["A2.symbolic", "A2.numeric", "A3", "A4", "A5.symbolic", "A5.numeric", "A6", "A7", "A10",
                      "A10.stability", "A11.symbolic", "A11.numeric", "A12.symbolic", "A12.numeric", "A13.symbolic",
                      "A13.numeric"]
"""The other certificates of certificates/plga/ (the paper's statements; their planted bugs are in
tests/test_planted_certificates.py and the round files)."""


def test_every_lean_area_certificate_has_a_planted_bug():
    from theorylab.certify import select

    registered = {s.id for s in select() if s.check.__module__.startswith("theorylab.certificates.plga.")}
    assert registered == set(LEAN_CERTIFICATES) | set(PAPER_CERTIFICATES)
    assert set(LEAN_CERTIFICATES) <= {cid for *_, ids in BUGS.values() for cid in ids}


@pytest.mark.parametrize("label", list(BUGS))
def test_planted_bug_makes_certify_fail(label):
    _assert_caught(*BUGS[label])


@pytest.mark.slow
@pytest.mark.parametrize("label", list(MORE_BUGS))
def test_further_planted_bug_makes_certify_fail(label):
    _assert_caught(*MORE_BUGS[label])


def test_the_unplanted_copy_passes_the_same_certificates():
    """The same certificates PASS on an unmodified copy (so a FAIL above is the bug's doing)."""
    path, old, *_ = BUGS["DAG loss as log(1 + x) (loses the floor)"]
    run = certify_with_bug(path, old, old, LEAN_CERTIFICATES + ["A2.numeric"])
    assert run.returncode == 0 and all(run.status(cid) == "PASS" for cid in LEAN_CERTIFICATES), run.output[-2000:]

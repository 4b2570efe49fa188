"""Bugs planted in the PLGA library SOURCE that the mutation run once found surviving now make certify FAIL.

One case per check added against those survivors (``theorylab mutate``; the surviving ids are in the
commit messages): each copies ``theorylab/`` and ``certificates/`` (tests/planted.py), plants the bug and
runs only the certificate whose new evidence must catch it.
"""
import pytest

from planted import assert_caught

CONTRACTION = "theorylab/plga/contraction.py"
PARAMS = "theorylab/plga/params.py"
CHAIN = "theorylab/plga/chain.py"
PERRON = "theorylab/plga/perron.py"
ROPE = "theorylab/plga/rope.py"
DIAGNOSTICS = "theorylab/plga/diagnostics.py"

#: label -> (path, old, new, certificates that must FAIL)
BUGS = {
    "gated unit's first bias b1 dropped": (
        CHAIN, "silu(x @ g.W1 + g.b1)", "silu(x @ g.W1)", ["A2.metric"]),
    "additive unit subtracts b2": (
        CHAIN, "x = x + _silu(x @ u.W1 + u.b1) @ u.W2 + u.b2", "x = x + _silu(x @ u.W1 + u.b1) @ u.W2 - u.b2",
        ["A2.metric"]),
    "Glorot-normal with fan_out only": (
        PARAMS, "np.sqrt(2.0 / (m + n))", "np.sqrt(2.0 / n)", ["A2.metric"]),
    "one gated residual unit too many": (
        PARAMS, "np.ones(dk), np.zeros(dk))\n                      for _ in range(n_res))",
        "np.ones(dk), np.zeros(dk))\n                      for _ in range(n_res + 1))", ["A2.metric"]),
    "rank-one residual reported as 0": (
        PERRON, "float(np.max(np.abs(M @ v - s * v)))", "0.0", ["A3"]),
    "second eigenvalue modulus taken as the smallest": (
        PERRON, "second = float(np.max(np.abs(np.delete(vals, lead))))",
        "second = float(np.min(np.abs(np.delete(vals, lead))))", ["A3"]),
    "order parameter scaled by max D2 instead of max |D2|": (
        DIAGNOSTICS, "max(np.max(np.abs(D1)), np.max(np.abs(D2)))", "max(np.max(np.abs(D1)), np.max(D2))", ["A10"]),
    "signed mean of a zero tensor is 1": (
        DIAGNOSTICS, "return 0.0 if top == 0 else top * float(np.mean(X / top))",
        "return 1.0 if top == 0 else top * float(np.mean(X / top))", ["A10.signed"]),
    "density report eigenvalues of D + D^T": (
        DIAGNOSTICS, "np.linalg.eigvalsh(0.5 * (D + D.T))", "np.linalg.eigvalsh(D + D.T)", ["A11.numeric"]),
    "off-commutant residual not normalised below ||G|| = 1": (
        ROPE, "np.divide(num, den,", "np.divide(num, np.maximum(den, 1.0),", ["A12.numeric"]),
    "twirl multiplier 2 at a resonance": (
        ROPE, "den, out=np.ones_like(den), where=den > 0)", "den, out=np.full_like(den, 2.0), where=den > 0)",
        ["A12.standard"]),
    "exact LayerNorm centred by column means": (
        CHAIN, "centred = x - x.mean(axis=-1, keepdims=True)", "centred = x - x.mean(axis=0, keepdims=True)",
        ["A15.symbolic"]),
    "pairwise ratios of ||f(x)|| instead of ||f(x) - f(y)||": (
        CONTRACTION, "np.asarray(f(X)) - np.asarray(f(Y))", "np.asarray(f(X))", ["A18"]),
}


#: bugs whose first symptom is a float overflow: certify turns the RuntimeWarning into ERROR (also a non-PASS)
OVERFLOWS = {"order parameter scaled by max D2 instead of max |D2|"}


@pytest.mark.parametrize("label", list(BUGS))
def test_planted_bug_makes_certify_fail(label):
    path, old, new, catchers = BUGS[label]
    run = assert_caught(path, old, new, catchers, accept=("FAIL", "ERROR") if label in OVERFLOWS else ("FAIL",))
    if label in OVERFLOWS:
        assert "overflow" in run.output, run.output[-2000:]

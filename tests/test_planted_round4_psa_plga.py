"""Bugs planted in the PSA, PLGA and symbolic library source make `theorylab certify` FAIL (issue 10, item 5, round 4).

One representative per check added in round 4 (each check holds the whole function against an independent route,
so the planted line's neighbours die too).
"""
import pytest

from planted import assert_caught

ENVELOPES = "theorylab/plga/envelopes.py"
PARAMS = "theorylab/plga/params.py"
CHAIN = "theorylab/plga/chain.py"
PERRON = "theorylab/plga/perron.py"
NOTEARS = "theorylab/plga/notears.py"
ROPE = "theorylab/plga/rope.py"
DIAGNOSTICS = "theorylab/plga/diagnostics.py"
SHEAR, DEPLOY, TRANSITION = "theorylab/psa/shear.py", "theorylab/psa/deploy.py", "theorylab/psa/transition.py"
SYMBOLIC = "theorylab/symbolic/plga.py"

#: label -> (path, old, new, certificates that must FAIL[, accepted statuses])
BUGS = {
    "Perron root picked by modulus (periodic matrices)": (
        PERRON, "lead = int(np.argmax(vals.real))", "lead = int(np.argmax(np.abs(vals)))", ["A3"]),
    "Perron residual field of the signed maximum": (
        PERRON, "float(np.max(np.abs(M @ v - rho * v))), rho)", "float(np.max(M @ v - rho * v)), rho)", ["A3"]),
    "silu_prime_sup's Newton derivative t + u/2": (
        ENVELOPES, "step = (u * t - 2) / (t + u * (1 - t * t) / 2)", "step = (u * t - 2) / (t + u / 2)", ["A20"]),
    "positivity accepts A_LM = 0 at eps = 0": (
        DIAGNOSTICS, "self.min_A_LM > 0 and", "self.min_A_LM >= 0 and", ["A2.numeric"]),
    "logit margin sorted along the first axis": (
        ENVELOPES, "top = np.sort(z, axis=-1)", "top = np.sort(z, axis=0)", ["A20"]),
    "off-commutant residual rescaled up, not down": (
        ROPE, "G = np.ldexp(G, -np.frexp(", "G = np.ldexp(G, np.frexp(", ["A12.numeric"], ("FAIL", "ERROR")),
    "LayerNorm row scale along axis 1": (
        CHAIN, "np.frexp(np.max(np.abs(x), axis=-1, keepdims=True))",
        "np.frexp(np.max(np.abs(x), axis=1, keepdims=True))", ["A11.numeric"]),
    "init_params default n_dense 1": (
        PARAMS, 'residual: str = "glu-ln", n_dense: int = 2)', 'residual: str = "glu-ln", n_dense: int = 1)',
        ["A11.numeric"]),
    "NOTEARS error bound without ceil(log2 d)": (
        NOTEARS, "int(np.ceil(np.log2(len(M))))", "int(np.log2(len(M)))", ["A5.numeric"]),
    "range growth of the signed maximum": (
        DEPLOY, "return np.max(np.abs(psa.shear(x, g))) / top", "return np.max(psa.shear(x, g)) / top", ["P20.exact"]),
    "string couplings converted by float()": (
        SHEAR, "if isinstance(g, numbers.Real) and not isinstance(g, np.ndarray):",
        "if isinstance(g, numbers.Real) or not isinstance(g, np.ndarray):", ["P1"]),
    "Newton derivative off by one power": (
        TRANSITION, "deriv = flat[:, 1:] * np.arange(1, n + 1)", "deriv = flat[:, 1:] * np.arange(2, n + 2)", ["P15"]),
    "circle moment without (i - 1)!!": (
        SYMBOLIC, "sp.factorial2(i - 1) * sp.factorial2(j - 1)", "sp.factorial2(j - 1)", ["A12.symbolic"]),
}


@pytest.mark.parametrize("label", list(BUGS))
def test_planted_round4_bug_makes_certify_fail(label):
    path, old, new, catchers, *accept = BUGS[label]
    assert_caught(path, old, new, catchers, accept=accept[0] if accept else ("FAIL",))

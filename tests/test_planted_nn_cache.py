"""Wrong cache insertions, key streams and grading compiles planted in theorylab/nn make `theorylab certify` FAIL.

These bugs were once injected through public parameters that existed only for tests
(``decoder.extend/decode(streams=)``, ``tasks.induction_accuracy(streams=)``,
``decoder.compile_grading(diag=)``); they are now planted in the library source instead.
"""
import pytest

from planted import assert_caught

DECODER, TASKS = "theorylab/nn/decoder.py", "theorylab/nn/tasks.py"
COMPILED = "theorylab/nn/compiled.py"
INSERT = "qs, ks, vs = attention._streams(spec, q, k, v, start, prev)"
QUERY = "qs, ks, _ = attention._streams(head.spec, x @ head.w_q, x @ head.w_k, x, 0, None)"
SCALES = "m = np.concatenate([s.diag if isinstance(s, Graded)"

#: label -> (path, old, new, certificates that must FAIL)
BUGS = {
    "cached block's momentum restarts (retained raw vectors ignored)": (
        DECODER, INSERT, "qs, ks, vs = attention._streams(spec, q, k, v, 0, None)", ["P20.numeric"]),
    "cache holds rotated raw keys instead of sheared keys": (
        DECODER, INSERT, INSERT + "; ks = attention._streams(specs.SDPA(spec.base), q, k, v, start, None)[1]",
        ["P20.numeric"]),
    "cache shears before RoPE while the full pass shears after it": (
        DECODER, INSERT, "qs, ks, vs = attention._streams(replace(spec, placement='pre-rope') if isinstance(spec, PSA)"
                         " else spec, q, k, v, start, prev)", ["P20.numeric"]),
    "cached rows rotated as if at position zero": (
        DECODER, INSERT, "qs, ks, vs = attention._streams(spec, q, k, v, 0, prev)", ["A8"]),
    "induction key stream without its shear": (
        TASKS, QUERY, QUERY + "; ks = attention._streams(specs.SDPA(head.spec.base), x @ head.w_q, x @ head.w_k, "
                              "x, 0, None)[1]", ["P10"]),
    "grading compiled without its clip": (
        COMPILED, SCALES, "m = np.concatenate([s.lam ** s.grades if isinstance(s, Graded)", ["G1.numeric"]),
    "grading compiled as M^2 instead of M": (
        COMPILED, SCALES, "m = np.concatenate([s.diag ** 2 if isinstance(s, Graded)", ["G1.numeric"]),
}


@pytest.mark.parametrize("label", list(BUGS))
def test_planted_nn_cache_bug_makes_certify_fail(label):
    path, old, new, catchers = BUGS[label]
    assert_caught(path, old, new, catchers)

"""Bugs planted in the graded and nn library SOURCE (survivors of a seeded `theorylab mutate` sample) make the
strengthened certificates FAIL (issue 10, item 5).

Each case copies ``theorylab/`` and ``certificates/`` (tests/planted.py), plants one representative mutant of the
code a new check covers, and runs only the certificates named. A few run by default, the rest with -m slow.
"""
import pytest

from planted import assert_caught

GRADES, ENVELOPE, ATTN = "theorylab/graded/grades.py", "theorylab/graded/envelope.py", "theorylab/graded/attention.py"
LADDER, PREREG = "theorylab/graded/ladder.py", "theorylab/graded/prereg.py"
DECODER, NN_ATTN, OPTIM = "theorylab/nn/decoder.py", "theorylab/nn/attention.py", "theorylab/nn/optim.py"
TASKS, TRAIN, STATS = "theorylab/nn/tasks.py", "theorylab/nn/train.py", "theorylab/nn/trainstats.py"

#: label -> (path, old, new, certificates that must FAIL)
BUGS = {
    "grade(X) returns the diagonal": (ATTN, 'return finite_result("X, q, lam", X * m)',
                                      'return finite_result("X, q, lam", m)', ["G2"]),
    "Lambda_star = BC^3": (GRADES, "return bhattacharyya(alpha, tau) ** 2", "return bhattacharyya(alpha, tau) ** 3",
                           ["G3"]),
    "Lambda_q centred at a quarter of max q": (
        GRADES, "centre = 0.5 * np.max(q, axis=-1, keepdims=True)", "centre = 0.25 * np.max(q, axis=-1, keepdims=True)",
        ["G4"]),
    "geometric sum's r = 1 limit tested at 2": (GRADES, "np.isclose(x, 1.0, rtol=0, atol=1e-12)",
                                                "np.isclose(x, 2.0, rtol=0, atol=1e-12)", ["G5"]),
    "full-support guard one level early": (GRADES, "a, s = nu ** (L - 1 - l), mu ** l", "a, s = nu ** (L - l), mu ** l",
                                           ["G5"]),
    "clipped_grades bracket hi = U + min rho + 1": (GRADES, "U - rho.min() + 1.0", "U + rho.min() + 1.0", ["G6"]),
    "grade condition reads g_1 >= 1": (ENVELOPE, "return bool(g[0] >= 1 - tol", "return bool(g[1] >= 1 - tol",
                                       ["G8.numeric"]),
    "boundary polynomial sums tau t over the batch axis": (GRADES, "np.sum(t_ * t, axis=-1) - prod",
                                                           "np.sum(t_ * t, axis=0) - prod", ["G9"]),
    "moment maps tilt alpha by +u": (GRADES, "return _tilted(a, -u), _tilted(t, u)", "return _tilted(a, u), _tilted(t, u)",
                                     ["G9"]),
    "average ranks count ties over the batch axis": (PREREG, "x[..., None, :] == x[..., :, None], axis=-1)",
                                                     "x[..., None, :] == x[..., :, None], axis=0)",
                                                     ["G10"]),
    "pilot fit rescaled by max w_hat, not max |w_hat|": (LADDER, "np.max(np.abs(w_hat))", "np.max(w_hat)", ["G10"]),
    "unnamed design labelled None": (LADDER, "label = name or", "label = name and", ["G10"]),
    "compile_grading of a non-graded head reads w_q.shape[2]": (
        DECODER, "np.ones(layer.w_q.shape[1] // len(layer.heads))", "np.ones(layer.w_q.shape[2] // len(layer.heads))",
        ["G1.numeric"]),
    "one-token blocks at start 1 skip the previous position": (NN_ATTN, "if start > 0:", "if start > 1:",
                                                               ["P20.numeric"]),
    "restored queries sized by a second head": (DECODER, "dk = caches[0].values.shape[1]",
                                                "dk = caches[1].values.shape[1]", ["P20.numeric"]),
    "committed cache keeps every Gram but the first": (DECODER, "gram=hc.gram[-1:]", "gram=hc.gram[1:]", ["A9"]),
    "cache floats without the Grams": (DECODER, "hc.raw_q.size + hc.raw_k.size + hc.gram.size",
                                       "hc.raw_q.size + hc.raw_k.size", ["A9"]),
    "slow planes with theta T <= 1": (TASKS, 'theta * (positive_int("T", T) - 1) <= 1.0',
                                      'theta * positive_int("T", T) <= 1.0', ["P10"]),
    "cosine decay over max(2, S - W) steps": (OPTIM, "max(1, steps - warmup)", "max(2, steps - warmup)",
                                              ["P21.training"]),
    "recall vocabulary without PAD": (TRAIN, "return self.alphabet + 1 if", "return self.alphabet if",
                                      ["P21.training"]),
    "d_model = 0 accepted": (TRAIN, '(("d_model", 1), ("mlp", 0)', '(("d_model", 0), ("mlp", 0)', ["P21.training"]),
    "initial projections with std 2/sqrt(fan_in)": (TRAIN, "rng.normal(0.0, 1.0 / math.sqrt(a), (a, b))",
                                                    "rng.normal(0.0, 2.0 / math.sqrt(a), (a, b))", ["P21.training"]),
    "seed bootstrap never draws seed 0": (STATS, "rng.integers(0, acc.shape[0],", "rng.integers(1, acc.shape[0],",
                                          ["P23.estimator"]),
    "held-out loss summed, not averaged": (TRAIN, "sum(losses) / len(batch.tokens))", "sum(losses))", ["P21"]),
}
FAST = ("Lambda_star = BC^3", "grade condition reads g_1 >= 1", "cosine decay over max(2, S - W) steps",
        "committed cache keeps every Gram but the first")


@pytest.mark.parametrize("label", [pytest.param(k, marks=() if k in FAST else pytest.mark.slow) for k in BUGS])
def test_planted_round2_bug_makes_certify_fail(label):
    path, old, new, catchers = BUGS[label]
    assert_caught(path, old, new, catchers, accept=("FAIL", "ERROR"))

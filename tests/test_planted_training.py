"""Bugs planted in the training route's library source make `theorylab certify` FAIL (issue 10, item 5).

The backward passes, the optimiser, the accuracy intervals, the task layout and the ladder
estimators are held against ``certificates/reference`` (P21.grad, P21.training, P23.estimator);
the cache's restored query and running Gram against the reference decoder (P20.numeric, A9).
"""
import pytest

from planted import assert_caught, certify_with_bug

GRAD, OPTIM, TASKS = "theorylab/nn/grad.py", "theorylab/nn/optim.py", "theorylab/nn/tasks.py"
DECODER, TRAIN, STATS = "theorylab/nn/decoder.py", "theorylab/nn/train.py", "theorylab/nn/trainstats.py"

#: label -> (path, old, new, certificates that must FAIL)
BUGS = {
    "GELU derivative without the 1/2": (GRAD, "return dy * (0.5 * (1 + t)", "return dy * ((1 + t)", ["P21.grad"]),
    "LayerNorm gain gradient summed over every axis": (
        GRAD, "axes = tuple(range(dy.ndim - 1))", "axes = tuple(range(dy.ndim))", ["P21.grad"]),
    "RoPE backward rotates forward": (GRAD, "attention._rope(dy, -_positions(dy), base)",
                                      "attention._rope(dy, _positions(dy), base)", ["P21.grad"]),
    "predecessor-tap gradient divides": (GRAD, "np.sum(dy * prev)", "np.sum(dy / prev)", ["P21.grad"]),
    "clipping by the squared norm": (OPTIM, "norm = math.sqrt(sum(float(np.sum(g * g)) for g in grads.values()))",
                                     "norm = sum(float(np.sum(g * g)) for g in grads.values())", ["P21.training"]),
    "cosine phase counted from -warmup": (OPTIM, "frac = (step - warmup)", "frac = (step + warmup)", ["P21.training"]),
    "Wilson centre with z^2/n": ("theorylab/stats.py", "centre = (p + z * z / (2 * n))", "centre = (p + z * z / n)",
                                 ["P21.training"]),
    "recall without its padding": (TASKS, "T = 2 * pairs + padding + 1", "T = 2 * pairs + 1", ["P21.training"]),
    "gamma_c midpoint fixed at 1/2": (STATS, "half = 0.5 * (a[0] + a.max())", "half = 0.5", ["P23.estimator"]),
    "rollback keeps the rejected running Grams": (DECODER, "drop = cache.length - length", "drop = -length", ["A9"]),
    "restored raw query zero at g_q = 1": (DECODER, "raw_q=(q[h] if s.g_q != 0 else", "raw_q=(q[h] if s.g_q != 1 else",
                                           ["P20.numeric"]),
}


@pytest.mark.parametrize("label", list(BUGS))
def test_planted_training_bug_makes_certify_fail(label):
    path, old, new, catchers = BUGS[label]
    assert_caught(path, old, new, catchers)


@pytest.mark.slow
def test_planted_log_that_misses_the_last_step_makes_p22_fail():
    run = certify_with_bug(TRAIN, "step == config.steps - 1:", "step == config.steps - 2:", ["P22"])
    assert run.returncode == 1 and run.status("P22") == "FAIL", run.output[-2000:]


def test_the_unplanted_copy_passes_the_training_certificates():
    catchers = sorted({cid for *_, ids in BUGS.values() for cid in ids})
    run = certify_with_bug(GRAD, "axes = tuple(range(dy.ndim - 1))", "axes = tuple(range(dy.ndim - 1))", catchers)
    assert run.returncode == 0 and all(run.status(cid) == "PASS" for cid in catchers), run.output[-2000:]

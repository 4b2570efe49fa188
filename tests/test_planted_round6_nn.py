"""Round-6 mutants of theorylab/nn planted in the library source make `theorylab certify` FAIL (issue 10, item 5).

Batched block streams with a retained previous position (P20.numeric), predecessor_sensitivity's default
position (P10), TrainResult.row and the recorded run times (P21.training), the two-seed summary (P23.estimator).
"""
import pytest

from planted import assert_caught

ATTENTION, TASKS = "theorylab/nn/attention.py", "theorylab/nn/tasks.py"
TRAIN, STATS = "theorylab/nn/train.py", "theorylab/nn/trainstats.py"

#: label -> (path, old, new, certificates that must FAIL)
BUGS = {
    "summary row reports the second logged loss": (
        TRAIN, '"final_train_loss": self.history[-1]["loss"]', '"final_train_loss": self.history[-2]["loss"]',
        ["P21.training"]),
    "wall-clock seconds added to the start time": (
        TRAIN, "time.perf_counter() - start,", "time.perf_counter() + start,", ["P21.training"]),
    "CPU seconds since the process began": (
        TRAIN, "time.process_time() - cpu,", "time.process_time(),", ["P21.training"]),
    "t interval only from three seeds": (STATS, "if a.size > 1:", "if a.size > 2:", ["P23.estimator"]),
}


@pytest.mark.parametrize("label", list(BUGS))
def test_planted_round6_nn_bug_makes_certify_fail(label):
    path, old, new, catchers = BUGS[label]
    assert_caught(path, old, new, catchers)


def test_retained_row_shaped_by_the_row_axis_makes_p20_error():
    # the library refuses the right retained rows of a batched block (ParameterError): certify ERRORs
    assert_caught(ATTENTION, "_previous(prev, q.shape[:-2] + q.shape[-1:])",
                  "_previous(prev, q.shape[:-2] + q.shape[1:])", ["P20.numeric"], accept=("ERROR",))


def test_one_seed_summary_with_a_warning_makes_p23_error():
    assert_caught(STATS, "if a.size > 1:", "if a.size > 0:", ["P23.estimator"], accept=("ERROR",))


@pytest.mark.slow
def test_predecessor_sensitivity_default_moved_makes_p10_fail():
    assert_caught(TASKS, "i: int = 1) -> float:", "i: int = 2) -> float:", ["P10"])

"""P21 (trained separation) FAILs when a bug is planted in the library source: one in the backward
pass (training goes wrong), one in the forward pass (the two evaluation routes disagree)."""
import pytest
from planted import certify_with_bug

pytestmark = pytest.mark.slow          # each trains two tiny models in a fresh interpreter

BACKWARD = ("theorylab/nn/grad.py", "return ds @ ks * scale, np.swapaxes(ds, -1, -2) @ qs * scale",
            "return -ds @ ks * scale, np.swapaxes(ds, -1, -2) @ qs * scale")     # query gradient of the wrong sign
FORWARD = ("theorylab/nn/attention.py", "ks = _sheared(k, spec.g_k, pos, spec)",
           "ks = _sheared(k, spec.g_q, pos, spec)")                           # keys sheared with the query coupling


def test_p21_fails_with_a_wrong_backward_pass():
    run = certify_with_bug(*BACKWARD, ["P21"])
    assert run.returncode == 1 and run.status("P21") == "FAIL"


def test_p21_fails_with_a_wrong_key_stream():
    run = certify_with_bug(*FORWARD, ["P21"])
    assert run.returncode == 1 and run.status("P21") == "FAIL"


TAP_GRADIENT = ("theorylab/nn/grad.py", "return dx, np.array([np.sum(dy * x), np.sum(dy * prev)])",
                "return dx, np.array([np.sum(dy * x), np.sum(dy * x)])")       # the predecessor tap sees x_t


def test_p22_fails_when_the_tap_gradient_reads_the_wrong_position():
    run = certify_with_bug(*TAP_GRADIENT, ["P22"])
    assert run.returncode == 1 and run.status("P22") == "FAIL"


def test_p22_fails_when_the_free_filters_are_frozen():
    run = certify_with_bug("theorylab/nn/train.py", 'config.variant != "free-two-tap"', "True", ["P22"])
    assert run.returncode == 1 and run.status("P22") == "FAIL"

"""PLGA certificates (A2-A7, A10-A13): each PASSes on the library and FAILs on a deliberate mutant."""
import dataclasses

import numpy as np
import pytest
import sympy as sp

from theorylab.certify import run_one, select
from theorylab.plga import operator as op
from theorylab.symbolic import plga as sy

IDS = ["A2.symbolic", "A2.numeric", "A3", "A4", "A5.symbolic", "A5.numeric", "A6", "A7", "A10", "A10.stability",
       "A11.symbolic", "A11.numeric", "A12.symbolic", "A12.numeric", "A13.symbolic", "A13.numeric"]


def _status(cid, **overrides):
    return run_one(select([cid])[0], **overrides).status


@pytest.mark.parametrize("cid", IDS)
def test_library_passes(cid):
    assert _status(cid) == "PASS"


def _sharpened_softmax(z):
    from theorylab.psa.softmax import softmax

    return softmax(4 * np.asarray(z))


def _no_eps(D, p):
    return op.stages_from_density(D, dataclasses.replace(p, eps=0.0))


def _naive_h(W):
    from scipy.linalg import expm

    with np.errstate(over="ignore", invalid="ignore"):
        h = float(np.trace(expm(np.asarray(W) ** 2))) - len(W)
    return op.NotearsValue(h, float(np.log(h)) if h > 0 else -np.inf, "naive")


def _tanh_iswiglu(u):
    u = np.asarray(u, dtype=float)
    return u * u * 0.5 * (1.0 + np.tanh(0.5 * u))


def _diag_only_projection(G):
    out = np.zeros_like(G)
    for j in range(0, G.shape[-1], 2):
        out[..., j:j + 2, j:j + 2] = G[..., j:j + 2, j:j + 2]   # keeps whole blocks: not the commutant
    return out


def _no_convention(D1, D2):
    D1, D2 = np.asarray(D1, float), np.asarray(D2, float)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return float(np.sqrt(np.mean((D1 - D2) ** 2)) / (0.5 * (np.sqrt(np.mean(D1 ** 2)) + np.sqrt(np.mean(D2 ** 2)))))


MUTANTS = {
    "A2.symbolic: silu instead of iSwiGLU (negative values)": ("A2.symbolic", dict(iswiglu=op.silu)),
    "A2.numeric: eps floor missing": ("A2.numeric", dict(stages=_no_eps)),
    "A2.numeric: tanh-form sigmoid loses the negative tail": ("A2.numeric", dict(iswiglu=_tanh_iswiglu)),
    "A3: Perron pair of the transpose": ("A3", dict(perron=lambda M: op.perron_frobenius(np.asarray(M).T))),
    "A4: eigenvalues of M instead of its symmetric part": ("A4", dict(spectrum=sy.matrix_eigenvalues)),
    "A5.symbolic: trace of powers replaced by power of trace":
        ("A5.symbolic", dict(trace_power=lambda M, k: sp.expand(sp.Matrix(M).trace() ** k))),
    "A5.numeric: naive tr expm - d (overflows)": ("A5.numeric", dict(notears=_naive_h)),
    "A6: projection keeps whole diagonal blocks": ("A6", dict(projection=_diag_only_projection)),
    "A7: softmax with an extra unit in the denominator":
        ("A7", dict(probabilities=lambda u: np.array([ui / (1 + sum(u)) for ui in u], dtype=object))),
    "A10: order parameter without the piecewise zero convention": ("A10", dict(m=_no_convention)),
    "A10: mean instead of rms (zero-mean differences invisible)":
        ("A10", dict(m=lambda a, b: abs(float(np.mean(np.asarray(a) - np.asarray(b)))))),
    "A10.stability: bound shrunk 1000x":
        ("A10.stability", dict(row_bound=lambda q, K, dG: 1e-3 * op.row_perturbation_bound(q, K, dG))),
    "A10.stability: sharpened softmax (temperature 1/4, Lipschitz 2)":
        ("A10.stability", dict(softmax=_sharpened_softmax)),
    "A11.symbolic: Q Q^T instead of Q^T Q": ("A11.symbolic", dict(density=lambda Q: Q @ Q.T)),
    "A11.numeric: eps-LN error by proxy (assumed scale invariant)":
        ("A11.numeric", dict(ln_error=lambda D, S, eps=op.EPS_LN: np.zeros(np.shape(D)))),
    "A12.symbolic: projection keeps whole diagonal blocks": ("A12.symbolic", dict(projection=_diag_only_projection)),
    "A12.numeric: no averaging over positions": ("A12.numeric", dict(twirl=lambda M, f, S: M)),
    "A13.symbolic: floor dk eps instead of dk eps^2": ("A13.symbolic", dict(floor=lambda dk, eps: dk * eps)),
    "A13.numeric: naive tr expm - d (cancels at the floor)": ("A13.numeric", dict(notears=_naive_h)),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # mutants without the eps floor divide by zero
@pytest.mark.parametrize("label", list(MUTANTS))
def test_mutant_fails(label):
    cid, overrides = MUTANTS[label]
    assert _status(cid, **overrides) == "FAIL"

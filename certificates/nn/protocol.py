"""The training protocol's named conventions (P21.protocol; PSA §4, §4.8, §7.5, A31, A35.1).

Route under test: ``theorylab.nn.train`` -- ``TrainConfig.peak_lr`` (the paper's learning-rate scaling),
``head_spec`` (each variant's couplings or taps), ``stream_gains`` and ``init_model`` (the gamma-aware
initialisation). Second route: the definitions written here from the paper's operators -- the shear
``x + g (x - x_prev)`` has taps ``(1 + g, -g)``, the low-pass ``(1 + g, g)``, a two-tap filter of white unit
rows has standard deviation ``sqrt(b0^2 + b1^2)``, the scaling is ``(1 + 2 g)^-2`` of the key coupling.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.nn import specs
from theorylab.nn.train import TrainConfig, head_spec, init_model

GAMMAS = (0.0, 0.5, 2.0, 4.0)
COUPLINGS = {"symmetric": lambda g: (g, g), "key-only": lambda g: (0.0, g), "query-only": lambda g: (g, 0.0),
             "asymmetric": lambda g: (g / 2, g)}
"""(g_q, g_k) of each sheared member at coupling g; the asymmetric ratio g/2 : g is theorylab's reading of §4.8."""
TAPS = {"low-pass": lambda g: (1.0 + g, g), "free-two-tap": lambda g: (1.0, 0.0)}
"""The fixed (or initial) taps of both streams of the two-tap members."""


def _gain(b0: float, b1: float) -> float:
    return math.sqrt(b0 * b0 + b1 * b1)


def _learning_rates() -> tuple[float, dict]:
    """|peak_lr - lr (1 + 2 g_k)^-2| / that under "paper", and |peak_lr - lr| under "none", over GAMMAS x members."""
    err, rows = 0.0, {}
    for variant in ("symmetric", "key-only", "asymmetric"):
        for g in GAMMAS:
            c = TrainConfig(variant=variant, gamma=g, lr=5e-3)
            want = 5e-3 / (1.0 + 2.0 * g) ** 2
            got = dataclasses.replace(c, lr_scale="paper").peak_lr
            err = max(err, abs(got - want) / want, abs(c.peak_lr - 5e-3) / 5e-3)
            rows[f"{variant} g={g:g}"] = got
    return err, rows


def _heads() -> tuple[bool, dict]:
    """Every member's head at every g of GAMMAS: its couplings or taps equal the definitions exactly."""
    ok, seen = True, {}
    for g in GAMMAS:
        for variant, pair in COUPLINGS.items():
            h = head_spec(TrainConfig(variant=variant, gamma=g))
            ok &= isinstance(h, specs.PSA) and (float(h.g_q), float(h.g_k)) == pair(g)
            seen[f"{variant} g={g:g}"] = (float(h.g_q), float(h.g_k))
        for variant, taps in TAPS.items():
            if variant == "free-two-tap" and g:
                continue                                    # its taps are learned: it takes no coupling
            h = head_spec(TrainConfig(variant=variant, gamma=g))
            ok &= isinstance(h, specs.TwoTap) and tuple(h.q_taps) == taps(g) and tuple(h.k_taps) == taps(g)
        ok &= isinstance(head_spec(TrainConfig(variant="standard", gamma=0.0)), specs.SDPA)
    return bool(ok), seen


def _initialisation() -> tuple[float, dict]:
    """gamma-aware W_Q, W_K times the stream gain == the plain init's (same seed), per member at g = 2; every other
    parameter equal."""
    err, gains = 0.0, {}
    for variant in ("symmetric", "key-only", "query-only", "asymmetric", "low-pass"):
        base = TrainConfig(variant=variant, gamma=2.0, task="canonical", T=8, vocab=16, d_model=16, dk=16)
        plain = init_model(dataclasses.replace(base, init="plain"), 1).layers[0]
        aware = init_model(base, 1).layers[0]
        taps = TAPS.get(variant)
        q, k = (taps(2.0), taps(2.0)) if taps else [(1.0 + x, -x) for x in COUPLINGS[variant](2.0)]
        gq, gk = _gain(*q), _gain(*k)
        gains[variant] = (gq, gk)
        for got, want in ((aware.w_q * gq, plain.w_q), (aware.w_k * gk, plain.w_k), (aware.w_v, plain.w_v),
                          (aware.w_o, plain.w_o)):
            err = max(err, float(np.max(np.abs(got - want)) / np.max(np.abs(want))))
    return err, gains


@certificate("P21.protocol", title="The training conventions: the paper's lr scaling, each member's head, the "
                                   "gamma-aware initialisation", paper="PSA §4, §4.8, §7.5, A31, A35.1",
             method="numeric",
             claim="lr_scale='paper' multiplies the peak learning rate by (1 + 2 g)^-2 of the key coupling; the "
                   "members' heads are symmetric (g, g), key-only (0, g), query-only (g, 0), asymmetric (g/2, g), "
                   "low-pass taps (1 + g, g) on both streams, free taps starting at (1, 0); init='gamma-aware' "
                   "divides the plain init's W_Q and W_K by sqrt(b0^2 + b1^2) of each stream's filter.")
def training_protocol() -> Outcome:
    """Four couplings x the members, against the definitions written in this module."""
    lr_err, lrs = _learning_rates()
    heads_ok, heads = _heads()
    init_err, gains = _initialisation()
    g4 = lrs["symmetric g=4"]
    passed = lr_err <= 1e-15 and heads_ok and init_err <= 1e-15 and abs(g4 - 5e-3 / 81) <= 1e-15 * 5e-3 / 81
    return Outcome(bool(passed), (
        computed("peak lr under lr_scale='paper' per member and g (library)", lrs),
        computed("max relative |peak_lr - lr (1 + 2 g_k)^-2| ('paper'), |peak_lr - lr| ('none')", lr_err,
                 tolerance=1e-15),
        bound("symmetric g = 4: lr / 81 attained", g4, formula="5e-3 / 81 to 1e-15 relative"),
        computed("(g_q, g_k) per member and g (library); low-pass, free taps and standard checked too", heads),
        computed("every head equals its definition exactly", heads_ok),
        computed("stream gains (query, key) at g = 2, from the taps", gains),
        computed("max relative |gamma-aware W x gain - plain W| (W_Q, W_K; W_V, W_O unscaled), seed 1", init_err,
                 tolerance=1e-15)),
        arrays={"peak_lr_library": np.array(list(lrs.values())),
                "couplings_library": np.array(list(heads.values()), dtype=float)},
        note="second route: the taps and gains written from the shear x + g (x - x_prev) and the low-pass; the "
             "scaling written from A31")

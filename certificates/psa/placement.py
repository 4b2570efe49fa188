"""Certificates of PSA placement and positional cancellation (PSA §5.3, §6.5): the Coriolis term exactly
(P9.symbolic, symbolic streams through the library's shear and pair rotation) and measured (P9.numeric), and
the Cesaro cancellation (P13).

The Coriolis term is measured as the difference of the library's two placements
(``theorylab.psa.shear.coriolis_term``) on random streams, held against the same difference
computed by the reference PSA streams (``theorylab.certificates.reference.transformer``, RoPE frequencies
``base^(-2i/d)`` from the paper, complex rotation of the interleaved pairs) and compared per
rotation plane with ``2|sin(theta/2)|`` (and the library's ``coriolis_gain``); the Cesaro means come from
``theorylab.psa.induction.cesaro_averages`` (the library's RoPE and momentum). Wrong placements, gains
and momenta are planted in the library source (``tests/planted/psa.py``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from theorylab.certificates.reference import transformer as ref
from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.psa import shear
from theorylab.psa import symplectic
from theorylab.psa import scores
from theorylab.psa import rotary
from theorylab.psa import positional
from theorylab.psa import induction as ind

if TYPE_CHECKING:
    import sympy as sp


@certificate("P9.numeric", title="Pre- vs post-RoPE: Coriolis term 2|sin(theta/2)| |g q| per plane, measured",
             paper="PSA §5.3, §7.8",
             claim="Post-RoPE minus pre-RoPE sheared streams has per-plane norm 2|sin(theta/2)| |g q_{t-1}|: zero as "
                   "theta -> 0 and largest in the high-frequency bands.", method="numeric")
def coriolis_numeric() -> Outcome:
    """dk = 64, T = 64, standard RoPE (base 1e4) and monochromatic theta in {1e-8, 0.01, 0.1, 1, pi}, g = 0.7;
    the library's frequencies and placement difference against the reference's."""
    coriolis, gain, ratios = rotary.coriolis_term, positional.coriolis_gain, positional.coriolis_band_ratios
    dk, T, g = 64, 64, 0.7
    freqs = rotary.rope_frequencies(dk)
    freq_err = float(np.max(np.abs(freqs / ref.rope_frequencies(dk, 10000.0) - 1)))
    x = np.random.default_rng(1).standard_normal((T, dk))
    lib_diff = coriolis(x, g, *rotary.rope_tables(T, freqs))
    ref_diff = ref.psa_stream(x, g, "post-rope") - ref.psa_stream(x, g, "pre-rope")     # base 1e4, its own freqs
    diff_err = float(np.max(np.abs(lib_diff - ref_diff)) / np.max(np.abs(ref_diff)))
    r = ratios(dk, T, freqs, g, seed=1, coriolis=coriolis)                  # (T-1, dk/2)
    exact_gain = 2 * np.abs(np.sin(ref.rope_frequencies(dk, 10000.0) / 2))
    rel = float(np.max(np.abs(r - exact_gain[None]) / exact_gain[None]))
    angles = np.concatenate([freqs, [-0.3, -2.5, 7.0, 10.0, -20.0]])        # beyond (0, 2 pi): the |.| matters
    gain_err = float(np.max(np.abs(gain(angles) / (2 * np.abs(np.sin(angles / 2))) - 1)))
    band = r.mean(0)
    ordered = bool(np.all(np.diff(band) < 0)) and int(np.argmax(band)) == 0
    mono = {}
    for th in (1e-8, 0.01, 0.1, 1.0, np.pi):
        rr = ratios(dk, T, np.full(dk // 2, th), g, seed=2, coriolis=coriolis)
        mono[th] = (float(rr.max()), float(np.max(np.abs(rr - gain(th)))))
    mono_err = float(np.max([e for _, e in mono.values()]))
    vanish = mono[1e-8][0]
    xs = x[:40]                                              # T != d: the width is read from the right axis
    stream_err = max(float(np.max(np.abs(rotary.sheared_stream(xs, g, placement=pl) - ref.psa_stream(xs, g, pl))))
                     / float(np.max(np.abs(ref.psa_stream(xs, g, pl)))) for pl in ("post-rope", "pre-rope"))
    k = np.random.default_rng(3).standard_normal((T, dk))
    rq, rk = ref.rope(x), ref.rope(k)
    rope_err = float(np.max(np.abs(rotary.rope(x) - rq)) / np.max(np.abs(rq)))   # the library's default base 1e4
    scores_ref = (rq + g * ref.momentum(rq)) @ (rk + 0.3 * ref.momentum(rk)).T / np.sqrt(dk)
    scores_lib = sum(scores.score_channels(rq, rk, g, 0.3, scaled=True))
    score_err = float(np.max(np.abs(scores_lib - scores_ref)) / np.max(np.abs(scores_ref)))
    chan_err, chan_arrays = _channels_check()
    ok = freq_err <= 1e-14 and diff_err <= 1e-13 and gain_err <= 1e-15 and rel <= 1e-9 and ordered \
        and mono_err <= 1e-12 and vanish <= 1e-7 and stream_err <= 1e-13 and score_err <= 1e-13 and rope_err <= 1e-13 \
        and chan_err <= 1e-13
    return Outcome(ok, (computed("max rel |library RoPE frequency - base^(-2i/d)|, d = 64, base 1e4", freq_err,
                                 tolerance=1e-14),
                        computed("max |library rope(x) (default base) - reference RoPE, base 1e4| / max |reference|",
                                 rope_err, tolerance=1e-13),
                        computed("max |library post - pre placement - reference| / max |reference|", diff_err,
                                 tolerance=1e-13),
                        computed("sheared_stream (both placements) vs reference, max rel error", stream_err,
                                 tolerance=1e-13),
                        computed("scaled score channels T1+..+T4 vs reference sheared scores / sqrt(dk), g_k = 0.3",
                                 score_err, tolerance=1e-13),
                        computed("induction.stream_channels (post and pre placement) vs the reference sheared streams' "
                                 "unit-coupling channels x HEAD_SIGN (-1) / sqrt(dk), max rel", chan_err, tolerance=1e-13,
                                 formula="<= 1e-13 (inf: refused)"),
                        computed("max rel |coriolis_gain - 2|sin(theta/2)|| (the RoPE angles and +-0.3..20)", gain_err, tolerance=1e-15),
                        computed("max rel |measured ratio - 2|sin(theta_a/2)|| over 32 bands x 63 positions "
                                 "(theta_a from the reference)", rel, tolerance=1e-9),
                        computed("band-mean ratio strictly decreasing with band index (frequency), max at band 0",
                                 ordered),
                        computed("band-mean ratio, first and last band", [float(band[0]), float(band[-1])]),
                        computed("monochromatic: max |ratio - 2|sin(theta/2)|| over theta", mono_err, tolerance=1e-12),
                        computed("theta = 1e-8: largest ratio (-> 0)", vanish),
                        computed("theta = pi: ratio (maximum 2)", mono[np.pi][0])),
                   arrays={"ratios": r, "library_difference": lib_diff, **chan_arrays},
                   seeds={"streams": 1, "monochromatic": 2, "channels": 4})


def _channels_check() -> tuple[float, dict]:
    """``induction.stream_channels`` (the public route, both placements) on 3 random streams (T = 9, dk = 8,
    standard RoPE) against the reference: with ``S_g`` the reference sheared stream (``psa_stream``, the same
    frequencies), query ``S_g[-1]`` and keys ``S_g[:-1]``, the channels (c1, c2, c3, c4) are the dot products
    (q, k), (p_q, k), (q, p_k), (p_q, p_k) with ``p = S_1 - S_0`` (the momentum), times the documented head sign
    ``HEAD_SIGN = -1`` and 1/sqrt(dk). Returns the max rel error (inf when the library refuses) and the arrays."""
    from theorylab import ParameterError

    x = np.random.default_rng(4).standard_normal((3, 9, 8))
    freqs, dk, err, arrays = rotary.rope_frequencies(8), 8, 0.0 if ind.HEAD_SIGN == -1.0 else np.inf, {}
    for short, pl in (("post", "post-rope"), ("pre", "pre-rope")):
        want = []
        for xs in x:
            s0, s1 = ref.psa_stream(xs, 0.0, pl, freqs=freqs), ref.psa_stream(xs, 1.0, pl, freqs=freqs)
            q, pq, k, pk = s0[-1], s1[-1] - s0[-1], s0[:-1], s1[:-1] - s0[:-1]
            want.append(-np.stack([k @ q, k @ pq, pk @ q, pk @ pq]) / np.sqrt(dk))
        want = np.array(want)
        try:
            got = np.asarray(ind.stream_channels(x, freqs, short))
        except ParameterError:
            got = np.full_like(want, np.nan)
        e = float(np.max(np.abs(got - want)) / np.max(np.abs(want))) if got.shape == want.shape else np.inf
        err = max(err, e if np.isfinite(e) else np.inf)
        arrays |= {f"channels_{short}": got, f"reference_channels_{short}": want}
    return err, arrays


def _envelope_known_answers(slope) -> bool:
    """``envelope_slope`` on sequences whose dyadic envelope is known in closed form (default start 16; 128 entries:
    blocks [16, 32), [32, 64), [64, 128)): |a(N')| = N' with alternating signs (each block's maximum at its LAST entry,
    2N - 1), a(N') = 16 / N' (maximum at its FIRST entry, 16 / N: slope exactly -1, first envelope exactly 1), the same
    with the last block zero (slope -inf, the envelope kept), and 127 entries (two blocks: ParameterError)."""
    from theorylab import ParameterError

    n = np.arange(1.0, 129.0)
    blocks = np.array([16.0, 32.0, 64.0])
    up = slope((-1.0) ** n * n)                                        # the default start, 16
    up_ok = bool(np.array_equal(up[1], blocks) and np.array_equal(up[2], 2 * blocks - 1)
                 and abs(up[0] - np.polyfit(np.log(blocks), np.log(2 * blocks - 1), 1)[0]) <= 1e-12)
    down = slope(16.0 / n, 16)
    down_ok = bool(np.array_equal(down[1], blocks) and np.allclose(down[2], 16.0 / blocks, rtol=1e-15, atol=0)
                   and abs(down[0] + 1.0) <= 1e-12)
    cut = np.where(n < 64, 16.0 / n, 0.0)
    zero = slope(cut, 16)
    zero_ok = bool(zero[0] == -np.inf and np.array_equal(zero[1], blocks)
                   and np.allclose(zero[2], [1.0, 0.5, 0.0], rtol=1e-15, atol=0))
    try:
        slope(16.0 / n[:-1], 16)
        short_ok = False
    except ParameterError:
        short_ok = True
    return up_ok and down_ok and zero_ok and short_ok


@certificate("P13", title="Cesaro cancellation of the positional g-linear channels at O(1/N)",
             paper="PSA §6.5",
             claim="Pure positional parts of the T2/T3 channels average away at O(1/N) under RoPE: dyadic-envelope "
                   "slope -1 (+-0.15) where N theta >> 1, and N |mean| <= 2 |q||x|/sqrt(dk) at every N and "
                   "frequency (telescoping; attained at theta N = pi), unlike the undifferenced (T1-type) positional "
                   "mean.", method="numeric")
def cesaro() -> Outcome:
    """N = 4096; monochromatic theta = 0.1, 1.0, standard bands (dk = 16, base 100); theta = 1e-3 and no RoPE;
    ``envelope_slope`` also on sequences with closed-form envelopes (:func:`_envelope_known_answers`); the content
    part telescopes (:func:`_content_telescoping`)."""
    averages, slope, momentum = positional.cesaro_averages, positional.envelope_slope, shear.momentum
    N, start = 4096, 128
    cases = {"theta=0.1": np.full(8, 0.1), "theta=1": np.full(8, 1.0),
             "bands base 100": rotary.rope_frequencies(16, 100.0)}
    n = np.arange(1, N + 1)
    slopes, worst, arrays, envelope_ok = {}, 0.0, {}, True
    for name, freqs in cases.items():      # T2 (p_q . k) and T3 (q . p_k) are one form with roles exchanged
        a = averages(N, freqs, "T3", "positional", seed=7, momentum=momentum)
        got_slope, got_N, got_env = slope(a, start)
        slopes[name] = got_slope
        # the dyadic blocks [N, 2N) for N = start, 2 start, ... while 2N <= len(a), and their log-log fit, recomputed
        want_N = start * 2.0 ** np.arange(int(np.log2(N // start)))
        want_env = np.array([np.abs(a[int(b) - 1:2 * int(b) - 1]).max() for b in want_N])
        want_slope = float(np.polyfit(np.log(want_N), np.log(want_env), 1)[0])
        envelope_ok &= bool(np.array_equal(got_N, want_N) and np.array_equal(got_env, want_env)
                            and abs(got_slope - want_slope) <= 1e-12)
        worst = max(worst, float(np.max(n * np.abs(a))))
        arrays[name] = a
    slow = averages(N, np.full(8, 1e-3), "T3", "positional", seed=7, momentum=momentum)
    worst = max(worst, float(np.max(n * np.abs(slow))))
    undifferenced = averages(N, np.full(8, 1e-3), "T3", "positional", seed=7, momentum=lambda x: x)
    contrast = float(np.max(n * np.abs(undifferenced)))
    nope = averages(N, np.zeros(8), "T3", "positional", seed=7, momentum=momentum)
    arrays |= {"theta_1e-3": slow, "no_rope": nope}
    # the telescoping bound attained: theta N = pi makes R_N = -I, and q along (R_N - R_0) x gives exactly 2
    Nx, x = 64, np.random.default_rng(8).standard_normal(16)
    stream = rotary.rope(np.broadcast_to(x, (Nx + 1, 16)), np.full(8, np.pi / Nx))     # R_n x, n = 0..N
    q = stream[-1] - stream[0]
    attained = float(abs(np.sum(np.asarray(momentum(stream))[1:] @ q)) / (np.linalg.norm(q) * np.linalg.norm(x)))
    ok = all(-1.15 <= v <= -0.85 for v in slopes.values()) and worst <= 2.0 + 1e-9 and abs(attained - 2) <= 1e-12 \
        and float(np.max(np.abs(nope))) == 0.0 and contrast > 2.0 and envelope_ok
    known_ok = _envelope_known_answers(slope)
    content_err, content = _content_telescoping(averages, momentum)
    ok = ok and known_ok and content_err <= 1e-10
    arrays |= content
    return Outcome(ok, (computed("envelope slopes of |positional mean| (T2 = T3 up to the query/key exchange), "
                                 "fitted on N = 128..4096", slopes),
                        computed("envelope blocks [N, 2N) (N = 128 .. 2048), their maxima and the fitted slope "
                                 "recomputed", envelope_ok, formula="blocks and maxima equal, slope to 1e-12"),
                        computed("envelope_slope known answers: |a| = N' (block maxima at the last entry), 16/N' (at "
                                 "the first; slope -1), a zero block (-inf), too short (ParameterError)", known_ok),
                        bound("max over N and frequencies of N |mean| / (|q||x|/sqrt(dk))", worst,
                              formula="telescoping: sum_n (R_n - R_{n-1}) x = (R_N - R_0) x, norm <= 2|x|"),
                        computed("the bound attained: theta N = pi, q along (R_N - R_0) x, N = 64: N |mean| / (|q||x|)",
                                 attained, tolerance=1e-12),
                        computed("theta = 1e-3, undifferenced stream (T1-type): max N |mean| (no cancellation)",
                                 contrast),
                        computed("no RoPE: max |positional mean| (momentum of a constant stream is 0)",
                                 float(np.max(np.abs(nope)))),
                        computed("content part (iid content, N = 512, theta = 1): max |N' a(N') - v . (S_N' - S_0)| / "
                                 "max |N' a(N')|, v fitted (least squares) on the stream handed to the momentum; T2 "
                                 "= T3", content_err, tolerance=1e-10,
                                 formula="<= 1e-10: telescoping (inf: a length, the T2/T3 identity or the stream wrong)")),
                   arrays=arrays, seeds={"positional": 7})


def _content_telescoping(averages, momentum) -> tuple[float, dict]:
    """``cesaro_averages(part="content")`` (iid content, N = 512, theta = 1, dk = 16): the stream S handed to the
    momentum has N + 1 rows (positions 0..N) with distinct content (per-plane norms differ: not R_n x of one x); ``N' a(N')`` must be one fixed linear form of
    ``S_N' - S_0`` (the sum of first differences telescopes; the form, q / (|q||x|), fitted by least squares);
    T2 gives the same numbers (roles exchanged). Returns the max relative residual (inf if a check fails)."""
    N, seen = 512, []

    def spy(stream):
        seen.append(np.array(stream))
        return momentum(stream)

    try:
        a = np.asarray(averages(N, np.full(8, 1.0), "T3", "content", seed=7, momentum=spy))
        same = np.array_equal(a, averages(N, np.full(8, 1.0), "T2", "content", seed=7, momentum=momentum))
    except ValueError:
        return np.inf, {}
    S = seen[0]
    if a.shape != (N,) or S.shape != (N + 1, 16) or not same or np.allclose(*np.hypot(S[1:3, 0::2], S[1:3, 1::2])):
        return np.inf, {"content": a}
    y, A = np.arange(1, N + 1) * a, S[1:] - S[0]
    v = np.linalg.lstsq(A, y, rcond=None)[0]
    return float(np.max(np.abs(A @ v - y)) / np.max(np.abs(y))), {"content": a}


# ----------------------------------------------------------------------------------------- P9.symbolic
D = 2  # width of the symbolic streams of P9.symbolic (as in .symplectic)


@certificate("P9.symbolic", title="Placement: pre-RoPE shear differs by a Coriolis term 2|sin(theta/2)| |g q|",
             paper="PSA §5.3",
             claim="Post-RoPE minus pre-RoPE sheared streams is g (R_t - R_{t-1}) q_{t-1}, of norm "
                   "2|sin(theta/2)| |g q_{t-1}| per rotation plane, zero at theta = 0 and increasing with theta "
                   "on [0, pi); both placements are symplectic.", method="exact")
def placement_coriolis() -> Outcome:
    """Rotation tables at positions 0, 1, 2 with the rational parametrisation t = tan(theta/2)."""
    import sympy as sp

    from theorylab.symbolic import exact as ex
    from theorylab.symbolic.psa import g, jacobian, lift, rational_rotation, tan_half

    coriolis, rotate, op, form = rotary.coriolis_term, rotary.rotate_pairs, shear.upper_shear, symplectic.symplectic_form

    T = 3
    x = ex.symbol_array("x", T, D)
    cos, sin = rational_rotation(T, D)
    term = coriolis(x, g, cos, sin)
    gens = ex.symbols_of(x) + (g, tan_half)
    sin_half_sq = tan_half ** 2 / (1 + tan_half ** 2)                # sin^2(theta/2)
    sizes = [ex.is_zero(sum(ex.exact(v) ** 2 for v in term[t]) - 4 * sin_half_sq * g ** 2 *
                        sum(ex.exact(v) ** 2 for v in x[t - 1]), gens) for t in (1, 2)]
    first = ex.matrix_is_zero(term[0], gens)
    vanishes = all(ex.is_zero(ex.exact(v).subs(tan_half, 0), gens) for v in term.flat)
    increasing = ex.positive(sp.factor(sp.diff(4 * sin_half_sq, tan_half)).subs(tan_half, sp.Symbol("u", positive=True)))
    # both placements are compositions of symplectic maps: the rotation acts on (q, p) as R (+) R
    R = _rotation_matrix(rotate, cos[1], sin[1])
    J = ex.matrix(form(D))
    RR = sp.diag(R, R)
    rot_symplectic = ex.matrix_is_zero(RR.T * J * RR - J, (tan_half,))
    M = jacobian(np.concatenate(op(*lift(D), g)), np.concatenate(lift(D)))
    composite = RR * M
    both = ex.matrix_is_zero(composite.T * J * composite - J, (tan_half, g)) and \
        ex.matrix_is_zero((M * RR).T * J * (M * RR) - J, (tan_half, g))
    theta = 0.7                                              # the exact tables are cos(t theta), sin(t theta)
    at = {tan_half: sp.tan(sp.Rational(7, 20))}
    table_err = max(abs(float(ex.exact(tab[t, 0]).subs(at)) - fn(t * theta))
                    for tab, fn in ((cos, np.cos), (sin, np.sin)) for t in range(T))
    ok = all(sizes) and first and vanishes and increasing and rot_symplectic and both and table_err <= 1e-15
    return Outcome(ok, (computed("|Coriolis_t|^2 == 4 sin^2(theta/2) g^2 |q_{t-1}|^2 (t = 1, 2)", all(sizes)),
                        computed("exact RoPE tables at theta = 0.7 vs (cos, sin)(t theta), max error", table_err,
                                 tolerance=1e-15),
                        computed("zero at the first position", first), computed("zero at theta = 0", vanishes),
                        computed("4 sin^2(theta/2) increasing on [0, pi)", increasing),
                        computed("R (+) R symplectic; R M and M R symplectic", rot_symplectic and both)))


def _rotation_matrix(rotate, cos_row, sin_row) -> sp.Matrix:
    """The d x d matrix the library's pair rotation applies at one position (columns = images of e_j)."""
    import sympy as sp

    from theorylab.symbolic import exact as ex

    basis = np.eye(D, dtype=int).astype(object)
    cols = [rotate(basis[j][None, :], cos_row[None, :], sin_row[None, :])[0] for j in range(D)]
    return sp.Matrix.hstack(*[ex.matrix(c) for c in cols])

"""The induction ceiling of key-side order zero on the minimal transformer (P10; PSA §2.2, §6.8).

Canonical induction sequences through ``theorylab.nn.tasks``: a query-only half-lift stays at the 1/(T-2)
ceiling, the hand-constructed key-only and symmetric PSA heads exceed it.
"""
from __future__ import annotations


import numpy as np

from theorylab.certificates.reference import transformer as ref
from theorylab.certify import Outcome, bound, certificate, computed
from theorylab.nn import tasks


# ------------------------------------------------------------------------------ P10
P10_FALSE_FAILURE = 1e-4


@certificate("P10", title="Induction ceiling 1/(T-2) for key-side order zero; key-only and symmetric PSA exceed it",
             paper="PSA §2.2, §6.8", method="monte-carlo", false_failure=P10_FALSE_FAILURE,
             claim="A query-only half-lift keeps key-side order zero and stays at the 1/(T-2) induction "
                   "accuracy ceiling (not significantly above or below it), while the hand-constructed key-only and "
                   "symmetric PSA heads are far above it.")
def induction_ceiling(seed=None) -> Outcome:
    """Canonical induction sequences (T = 24, dk = 64, 2000 sequences; seeds 61029, 61030 by default).

    The ceiling is counted on the batch: a key-side order-zero score cannot tell the target from the
    other keys whose token differs from the query's, so its accuracy is at most 1 / #{such keys} per
    sequence (T - 2: every key but the query and the query token's earlier copy); the library's
    ``ceiling(T)`` must equal the counted value exactly. Query-only (g = 0.5, 1, 2, 3): predecessor
    sensitivity exactly 0, and the number of hits is consistent with the counted ceiling by an exact
    two-sided binomial test (Bonferroni over 4, half the false-failure share). Key-only and symmetric:
    the one-sided Clopper-Pearson lower bound (Bonferroni over 2, the other half) exceeds 10x and 5x the
    ceiling. The library's 99 % Wilson intervals are reported and checked against Clopper-Pearson.
    """
    T, dk, vocab, n = 24, 64, 128, 2000
    seed = 61029 if seed is None else seed
    batch = tasks.induction_sequences(n, T, vocab, seed)
    E = tasks.embeddings(vocab, dk, seed + 1)
    others = (batch.tokens != batch.tokens[:, -1:]).sum(axis=1)       # keys whose token is not the query's
    counted = float(np.mean(1.0 / others))
    library = float(np.asarray(tasks.ceiling(T)))
    runs = [("query-only", g) for g in (0.5, 1.0, 2.0, 3.0)] + [("key-only", 2.0), ("symmetric", 2.0)]
    n_q = sum(member == "query-only" for member, _ in runs)
    a_q, a_far = P10_FALSE_FAILURE / 2 / n_q, P10_FALSE_FAILURE / 2 / (len(runs) - n_q)
    evidence = [computed("ceiling counted on the batch: mean 1/#{keys with a token other than the query's}", counted,
                         formula="order-zero ceiling per sequence"),
                computed("distinct target positions in the batch", int(np.unique(batch.target).size)),
                computed("library ceiling(T)", library, formula="== each sequence's counted ceiling, exactly")]
    # exact: each sequence's counted ceiling 1/#keys and the library's 1/(T - 2) are one correctly rounded
    # division of the same integers (the batch mean above is a sum of n terms: it is reported, not compared)
    arrays, passed = {}, bool(np.all(1.0 / others == library)) and bool(np.all(others == others[0]))
    # the documented target ranges 1..T-2 (query is a key) and 1..T-3, each end attained by the batch
    ranges_ok = (batch.T == T and batch.tokens.shape == (n, T)
                 and np.array_equal(tasks.target_positions(T), np.arange(1, T - 1))
                 and np.array_equal(tasks.target_positions(T, query_is_key=False), np.arange(1, T - 2))
                 and set(np.unique(batch.target)) == set(range(1, T - 1))
                 and bool(np.all(batch.tokens[np.arange(n), batch.target - 1] == batch.tokens[:, -1])))
    evidence.append(computed("batch length T and target positions: library ranges == 1..T-2 (query is a key), "
                             "1..T-3 (it is not); the batch attains every target in 1..T-2", bool(ranges_ok)))
    passed &= ranges_ok
    probe = tasks.InductionBatch(batch.tokens[:200], batch.target[:200])   # for the exact order-zero probe
    ones = probe.tokens.copy()
    ones[:, T // 2] = 1                                                    # every row: token 1 at the changed position
    probe_1 = tasks.InductionBatch(ones, probe.target)
    passed &= _member_runs(runs, batch, probe, probe_1, E, counted, (a_q, a_far), evidence, arrays)
    passed &= _reference_head(probe, E, dk, T, vocab, evidence)
    planes_ok, planes_rows = _slow_planes_vs_exact()
    evidence.append(computed("slow_planes(16, T) (default base) == exact {i : 10000^(-i/8) (T - 1) <= 1} at each "
                             "plane's last T and the T after it (refused when no plane is left)", planes_rows))
    passed &= planes_ok
    return Outcome(bool(passed), tuple(evidence), arrays=arrays, seeds={"sequences": seed, "embeddings": seed + 1},
                   note="pass: the library ceiling equals the counted one; query-only key scores ignore the "
                        "predecessor exactly and its hits are binomial at the ceiling (two-sided); key-only and "
                        "symmetric lower bounds exceed 10x and 5x the ceiling")


def _member_runs(runs, batch, probe, probe_1, E, counted: float, levels, evidence: list, arrays: dict) -> bool:
    """Each (member, g) of ``runs``: predecessor sensitivity on the two probes, accuracy and the library's Wilson
    interval against Clopper-Pearson; query-only two-sided binomial against the counted ceiling, key-only and
    symmetric one-sided lower bounds above 10x and 5x it (``levels``: their Bonferroni levels)."""
    from scipy.stats import beta, binomtest

    a_q, a_far = levels
    (n, T), dk = batch.tokens.shape, E.shape[1]
    passed = True
    for member, g in runs:
        both = [tasks.predecessor_sensitivity(tasks.induction_head(member, g, dk, T), E, b, i=T // 2) for b in (probe, probe_1)]
        sensitivity = max(both) if member == "query-only" else min(both)   # the weaker probe decides
        evidence.append(computed(f"{member} g={g}: max |change of key score| when its predecessor changes (min/max "
                                 "over two probes, one with token 1 at the changed position in every row)",
                                 sensitivity, tolerance=1e-9))
        credit = tasks.induction_accuracy(tasks.induction_head(member, g, dk, T), E, batch)
        arrays[f"{member}@{g}"] = credit
        hits = float(credit.sum())
        lo, hi = tasks.wilson_interval(hits, n)
        cp = (beta.ppf(0.005, hits, n - hits + 1) if hits > 0 else 0.0,
              beta.isf(0.005, hits + 1, n - hits) if hits < n else 1.0)           # 99 % Clopper-Pearson
        wilson_ok = max(abs(lo - cp[0]), abs(hi - cp[1])) <= 0.25 * (cp[1] - cp[0]) / 2
        evidence += [computed(f"{member} g={g} accuracy", float(credit.mean()), tolerance=0.0),
                     bound(f"{member} g={g} 99% CI", [lo, hi], formula="library Wilson score interval, z = 2.5758; "
                           "within a quarter half-width of Clopper-Pearson")]
        if member == "query-only":
            k = [int(np.floor(hits)), int(np.ceil(hits))]               # fractional credit only from ties
            p_value = max(binomtest(x, n, counted).pvalue for x in k)
            evidence.append(computed(f"{member} g={g} two-sided binomial p-value vs the counted ceiling", p_value,
                                     tolerance=1e-9, formula=f">= {a_q:g}"))
            passed &= sensitivity == 0.0 and p_value >= a_q and wilson_ok
        else:
            factor = 10 if member == "key-only" else 5
            low = float(beta.ppf(a_far, hits, n - hits + 1)) if hits > 0 else 0.0
            evidence.append(bound(f"{member} g={g} one-sided lower confidence bound", low,
                                  formula=f"> {factor} x ceiling (Clopper-Pearson, level {a_far:g})"))
            passed &= sensitivity > 1.0 and low > factor * counted and wilson_ok
    return bool(passed)


def _reference_head(probe, E, dk: int, T: int, vocab: int, evidence: list) -> bool:
    """The hand-constructed key-only head at its default RoPE base against the reference sheared streams (query
    scores of 50 probe sequences) and ``predecessor_sensitivity`` at its default i = 1 against the reference move."""
    # the hand-constructed head at its default RoPE base (10000) against the reference sheared streams, W_Q = P and
    # W_K = -P read off the head as data: query scores of 50 probe sequences, key-only at g = 2
    kh, few = tasks.induction_head("key-only", 2.0, dk, T), tasks.InductionBatch(probe.tokens[:50], probe.target[:50])
    want = np.array([ref.psa_stream(x @ kh.w_k, 2.0, base=10000.0) @ ref.psa_stream(x @ kh.w_q, 0.0,
                                                                                     base=10000.0)[-1]
                     for x in E[few.tokens]]) / np.sqrt(dk)
    err_head = float(np.max(np.abs(tasks.query_scores(kh, E, few) - want)) / np.max(np.abs(want)))
    evidence.append(computed("key-only g=2 head (default base) query scores vs reference streams at base 10000, max "
                             "relative error (50 sequences)", err_head, tolerance=1e-12))
    # predecessor_sensitivity at its documented default i = 1 (token 1 replaced by the next token, mod vocab): the
    # move of key 2's reference score
    moved = few.tokens.copy()
    moved[:, 1] = (moved[:, 1] + 1) % vocab
    want_moved = np.array([ref.psa_stream(x @ kh.w_k, 2.0, base=10000.0) @ ref.psa_stream(x @ kh.w_q, 0.0,
                                                                                           base=10000.0)[-1]
                           for x in E[moved]]) / np.sqrt(dk)
    want_sens = float(np.max(np.abs(want_moved[:, 2] - want[:, 2])))
    err_sens = abs(tasks.predecessor_sensitivity(kh, E, few) - want_sens) / want_sens
    evidence.append(computed("key-only g=2: predecessor_sensitivity at the default i = 1 (token 1 -> next token mod "
                             "vocab) vs the reference move of key 2's score, relative error", err_sens,
                             tolerance=1e-12))
    return bool(err_head <= 1e-12 and err_sens <= 1e-12)


def _slow_planes_vs_exact(dk: int = 16) -> tuple[bool, list]:
    """The content-plane mask against the exact rule in mpmath (RoPE base 10000, the documented default):
    plane i is slow iff theta_i (T - 1) <= 1, theta_i = 10000^(-2i/dk); for each plane its last slow T,
    floor(1/theta_i) + 1, and the next T (the rule's edge, attained from both sides; exact ties skipped)."""
    import mpmath as mp

    from theorylab.errors import ParameterError

    with mp.workdps(30):
        theta = [mp.mpf(10000) ** (mp.mpf(-2 * i) / dk) for i in range(dk // 2)]
        edges = sorted({int(mp.floor(1 / th)) + 1 + k for th in theta for k in (0, 1)
                        if abs(1 / th - mp.nint(1 / th)) > mp.mpf(10) ** -9})
        ok, rows = True, []
        for T in edges:
            want = np.repeat([bool(th * (T - 1) <= 1) for th in theta], 2).astype(float)
            try:
                got = tasks.slow_planes(dk, T)
            except ParameterError:
                got = None                                    # refused: right only when no plane is slow
            hit = (not want.any()) if got is None else bool(want.any() and np.array_equal(got, want))
            ok &= hit
            rows.append([T, int(want.sum()) // 2, hit])
        # exact ties theta_i (T - 1) == 1 in floating point (the rule is "<=": a tied plane is slow): plane 0
        # (theta_0 = 1) at T = 2, and base b = 4^k with dk = 4, where theta_1 = b^(-1/2) = 2^-k exactly
        for dk_t, T, base in ((dk, 2, 10000.0), (4, 3, 4.0), (4, 5, 16.0), (4, 9, 64.0)):
            th = [mp.mpf(base) ** (mp.mpf(-2 * i) / dk_t) for i in range(dk_t // 2)]
            want = np.repeat([bool(t * (T - 1) <= 1) for t in th], 2).astype(float)
            try:
                hit = bool(np.array_equal(tasks.slow_planes(dk_t, T, base), want))
            except ParameterError:                        # refused: wrong, every tie case has a slow plane
                hit = False
            ok &= hit
            rows.append([T, int(want.sum()) // 2, hit])
    return bool(ok), rows



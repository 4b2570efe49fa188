"""Reference route to the induction simulation's channel moments (PSA §5), one sample at a time.

Input: the raw channels ``C`` (n, 4, K) of n simulated queries (K = T - 1 keys) and each query's
target position ``j``. Per sample, the distractors are every key but the target; the *bulk*
distractors also leave out the four special keys (key 0, the target's neighbours j - 1 and j + 1,
the query's predecessor K - 1). Written from those definitions with per-sample NumPy primitives
(``mean``, ``var(ddof=1)``, ``cov``), not from the library's masked array code:

- gap: target score minus the distractors' mean, per channel, averaged over samples (SE: sample SD / sqrt n;
  gap_cov: their covariance matrix / n);
- var, cov34: distractor variance per channel and the Cov(c3, c4), unbiased, averaged (and their SEs);
- bulk_var, bulk_cov34: the same over the bulk distractors;
- lag1: neighbouring bulk pairs' pooled product of deviations over the pooled squared deviations,
  the latter rescaled by (pairs / bulk keys) so a constant correlation r gives r;
- special: each special key's score minus its sample's bulk mean, averaged;
- quenched_var_cv: coefficient of variation (SD ddof = 1 / mean) of the per-sample bulk variance.
"""
from __future__ import annotations

import numpy as np


def channel_moments(C, j) -> dict:
    C, j = np.asarray(C, float), np.asarray(j, int)
    n, _, K = C.shape
    gap, var, cov, bvar, bcov, special = [], [], [], [], [], {}
    num, sq, pairs, bulk_keys = np.zeros(4), np.zeros(4), 0, 0
    for i in range(n):
        distractors = [p for p in range(K) if p != j[i]]
        specials = {"key 0": 0, "target predecessor j-1": j[i] - 1, "target successor j+1": j[i] + 1,
                    "query predecessor T-2": K - 1}
        bulk = [p for p in distractors if p not in specials.values()]
        D, B = C[i][:, distractors], C[i][:, bulk]
        gap.append(C[i][:, j[i]] - D.mean(axis=1))
        var.append(D.var(axis=1, ddof=1))
        cov.append(np.cov(D[2], D[3])[0, 1])
        bvar.append(B.var(axis=1, ddof=1))
        bcov.append(np.cov(B[2], B[3])[0, 1])
        bmean = B.mean(axis=1)
        for name, p in specials.items():
            special.setdefault(name, []).append(C[i][:, p] - bmean)
        dev = {p: C[i][:, p] - bmean for p in bulk}
        for p in bulk:
            sq += dev[p] ** 2
            if p + 1 in dev:
                num += dev[p] * dev[p + 1]
                pairs += 1
        bulk_keys += len(bulk)
    gap, var, cov, bvar, bcov = map(np.array, (gap, var, cov, bvar, bcov))
    se = lambda a: a.std(axis=0, ddof=1) / np.sqrt(n)  # noqa: E731
    return {"gap": gap.mean(0), "gap_se": se(gap), "gap_cov": np.cov(gap.T) / n, "var": var.mean(0), "var_se": se(var),
            "cov34": cov.mean(), "cov34_se": se(cov), "bulk_var": bvar.mean(0), "bulk_cov34": bcov.mean(),
            "bulk_cov34_se": se(bcov), "lag1": num / (sq * pairs / bulk_keys),
            "special": {k: np.mean(v, axis=0) for k, v in special.items()},
            "quenched_var_cv": bvar.std(axis=0, ddof=1) / bvar.mean(0)}

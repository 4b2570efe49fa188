"""Reading a sweep store: its spec, its status, its rows, and the agreement of two routes."""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from theorylab.errors import choice
from theorylab.sim.sweep.spec import SweepSpec, spec_from_canonical
from theorylab.sim.sweep.store import SweepStore

ROUTES = {"law": "law_gamma_c", "exact": "exact_gamma_c", "mc": "mc_gamma_c"}


def spec_of_store(store_path: str) -> SweepSpec:
    """The spec a store is bound to."""
    with SweepStore(store_path) as store:
        return spec_from_canonical(store.spec, source=f"store {store_path}")


def store_status(store_path: str) -> dict:
    """Summary of a store: spec name and hash, points done / total, code versions, times."""
    with SweepStore(store_path) as store:
        spec = spec_from_canonical(store.spec, source=f"store {store_path}")
        done = store.provenance()
        meta = store.meta
    total = spec.n_points()
    return {"name": spec.name, "kind": spec.kind, "spec_sha256": meta["spec_hash"],
            "created_at": meta["created_at"], "points_done": done["points_done"], "points_total": total,
            "complete": done["points_done"] == total, "first_started": done["first_started"],
            "last_finished": done["last_finished"], "code_versions": done["code_versions"],
            "compute": ",".join(spec.compute), "samples": spec.samples, "seed": spec.seed}


def export_rows(store_path: str) -> list[dict]:
    """Every stored row (parameters, estimates, errors, seed, code version, timestamps)."""
    with SweepStore(store_path) as store:
        rows = store.rows()
    for r in rows:
        for k in ("dk", "T"):
            if r[k] is not None and float(r[k]).is_integer():
                r[k] = int(r[k])
    return rows


def agreement(predicted, simulated) -> dict:
    """Agreement of predicted with simulated gamma_c over the points where both exist.

    Returns ``n`` (points used), ``pearson_r`` and the median and maximum relative error
    ``|predicted - simulated| / simulated`` (the paper's statistics, PSA §7.9-7.10),
    computed by :func:`theorylab.compare.pearson_r` and :func:`theorylab.compare.relative_error`.
    ``None`` (no root) counts as missing.
    """
    from theorylab.compare import pearson_r, relative_error

    p, s = np.asarray(list(predicted), float), np.asarray(list(simulated), float)  # None -> NaN
    ok = np.isfinite(p) & np.isfinite(s) & (s != 0)
    rel = relative_error(p[ok], s[ok])
    n = int(ok.sum())
    return {"n": n, "pearson_r": pearson_r(p[ok], s[ok]),
            "median_rel_err": float(np.median(rel)) if n else float("nan"),
            "max_rel_err": float(rel.max()) if n else float("nan")}


def compare_rows(rows: Sequence[Mapping], predicted: str = "law", simulated: str = "mc") -> dict:
    """:func:`agreement` of two stored routes (``law``, ``exact`` or ``mc``)."""
    p, s = (ROUTES[choice(name, v, tuple(ROUTES))] for name, v in (("predicted", predicted),
                                                                  ("simulated", simulated)))
    return agreement([r.get(p) for r in rows], [r.get(s) for r in rows])

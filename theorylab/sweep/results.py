"""Reading a sweep store: its spec, its status, its rows, and the agreement of two routes."""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from theorylab.errors import ParameterError, choice
from theorylab.sweep.spec import SweepSpec, spec_from_canonical
from theorylab.sweep.store import SweepStore
from theorylab.sweep.tasks import check_rows

ROUTES = {"law": "law_gamma_c", "exact": "exact_gamma_c", "mc": "mc_gamma_c"}


def read_store(store_path: str, spec_hash: str | None = None) -> tuple[SweepSpec, list[dict], dict]:
    """Open and verify a store (integrity check, schema, spec record, every row; nothing is
    written); return its spec, every row ordered by point index (dk and T as ints where
    whole), and its provenance (:meth:`SweepStore.provenance` plus the spec hash and
    creation time). With ``spec_hash``, a store bound to another spec is refused."""
    with SweepStore(store_path, spec_hash=spec_hash) as store:
        spec = spec_of_record(store.spec, store.meta["spec_hash"], store_path)
        rows = store.rows()
        info = {**store.provenance(), "spec_sha256": store.meta["spec_hash"], "created_at": store.meta["created_at"]}
    check_rows(spec, rows, store_path)
    for r in rows:
        for k in ("dk", "T"):
            if float(r[k]).is_integer():
                r[k] = int(r[k])
    return spec, rows, info


def spec_of_record(record, spec_hash: str, store_path: str) -> SweepSpec:
    """The spec a store's spec record describes, validated again; it must hash to ``spec_hash``."""
    def damaged(why: str) -> ParameterError:
        return ParameterError(f"--store: {store_path!r} is damaged ({why}); the file was left unchanged")

    try:
        spec = spec_from_canonical(record, source="record")
    except ParameterError as exc:
        raise damaged(f"its spec record is not a valid spec: {str(exc).removeprefix('record: ')}") from None
    if spec.hash != spec_hash:
        raise damaged(f"its spec record re-validates to sha256 {spec.hash[:12]}, not {spec_hash[:12]}; "
                      f"was it written by another theorylab version?")
    return spec


def spec_of_store(store_path: str) -> SweepSpec:
    """The spec a store is bound to."""
    return read_store(store_path)[0]


def store_status(store_path: str) -> dict:
    """Summary of a store: spec name and hash, points done / total, code versions, times."""
    spec, _, info = read_store(store_path)
    total = spec.n_points()
    return {"name": spec.name, "kind": spec.kind, "spec_sha256": info["spec_sha256"],
            "created_at": info["created_at"], "points_done": info["points_done"], "points_total": total,
            "complete": info["points_done"] == total, "first_started": info["first_started"],
            "last_finished": info["last_finished"], "code_versions": info["code_versions"],
            "compute": ",".join(spec.compute), "samples": spec.samples, "seed": spec.seed}


def export_rows(store_path: str) -> list[dict]:
    """Every stored row (parameters, estimates, errors, seed, code version, timestamps)."""
    return read_store(store_path)[1]


def agreement(predicted, simulated) -> dict:
    """Agreement of predicted with simulated gamma_c over the points where both exist.

    Returns ``n`` (points used), ``pearson_r`` and the median and maximum relative error
    ``|predicted - simulated| / simulated`` (the paper's statistics, PSA §7.9-7.10),
    computed by :func:`theorylab.psa.compare.pearson_r` and :func:`theorylab.psa.compare.relative_error`.
    ``None`` (no root) counts as missing.
    """
    from theorylab.psa.compare import pearson_r, relative_error

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

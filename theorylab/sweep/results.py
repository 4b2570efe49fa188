"""Reading a sweep store: its spec, its status and its rows (for any task).

How a task's stored routes are compared is the task's (PSA: :func:`theorylab.psa.sweep.compare_rows`).
"""
from __future__ import annotations

from theorylab.errors import ParameterError
from theorylab.sweep.registry import task_of
from theorylab.sweep.spec import SweepSpec, spec_from_canonical
from theorylab.sweep.store import SweepStore
from theorylab.sweep.tasks import check_rows


def read_store(store_path: str, spec_hash: str | None = None) -> tuple[SweepSpec, list[dict], dict]:
    """Open and verify a store (integrity check, schema, spec record, every row; nothing is
    written); return its spec, every row ordered by point index (the task's
    ``WHOLE_NUMBER_COLUMNS`` as ints where whole, NULL left as None), and its provenance (:meth:`SweepStore.provenance` plus the spec hash and
    creation time). With ``spec_hash``, a store bound to another spec is refused."""
    with SweepStore(store_path, spec_hash=spec_hash) as store:
        spec = spec_of_record(store.spec, store.meta["spec_hash"], store_path)
        rows = store.rows()
        info = {**store.provenance(), "spec_sha256": store.meta["spec_hash"], "created_at": store.meta["created_at"]}
    check_rows(spec, rows, store_path)
    whole = task_of(spec).WHOLE_NUMBER_COLUMNS
    for r in rows:
        for k in whole:
            if r[k] is not None and float(r[k]).is_integer():   # a nullable column may be NULL
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
    """Summary of a store: spec name and hash, points done / total, code versions, times, and
    the task's own fields (its ``status_fields``)."""
    spec, _, info = read_store(store_path)
    total = spec.n_points()
    fields = task_of(spec).status_fields(spec)
    return {"name": spec.name, **({"kind": fields.pop("kind")} if "kind" in fields else {}),
            "spec_sha256": info["spec_sha256"], "created_at": info["created_at"],
            "points_done": info["points_done"], "points_total": total, "complete": info["points_done"] == total,
            "first_started": info["first_started"], "last_finished": info["last_finished"],
            "code_versions": info["code_versions"], **fields}


def export_rows(store_path: str) -> list[dict]:
    """Every stored row (parameters, estimates, errors, seed, code version, timestamps)."""
    return read_store(store_path)[1]

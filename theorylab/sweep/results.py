"""Reading a sweep store: its spec, its status and its rows (for any task), and its rows as a
``pandas.DataFrame`` (:func:`to_frame`) or an ``xarray.Dataset`` over the grid axes (:func:`to_dataset`).

How a task's stored routes are compared is the task's (PSA: :func:`theorylab.psa.sweep.compare_rows`).
"""
from __future__ import annotations

from theorylab._results import to_frame as _frame
from theorylab.errors import ParameterError
from theorylab.sweep.registry import task_of
from theorylab.sweep.spec import SweepSpec, spec_from_canonical
from theorylab.sweep.store import SweepStore
from theorylab.sweep.tasks import check_rows


def read_store(store_path: str, spec_hash: str | None = None) -> tuple[SweepSpec, list[dict], dict]:
    """Open and verify a store (integrity check, schema, spec record, every row; nothing is
    written); return its spec, every row ordered by point index (the task's
    ``WHOLE_NUMBER_COLUMNS`` as ints where whole, NULL left as None), and its provenance (:meth:`SweepStore.provenance` plus the spec hash and
    creation time). With ``spec_hash``, a store bound to another spec is refused.

    Examples
    --------
    A store's spec, rows and provenance:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> store = os.path.join(tmp.name, 'tiny.sqlite')
    >>> _ = sweep.run_sweep(spec, store, sweep.SerialExecutor(), progress=False)
    >>> spec_read, rows, info = sweep.read_store(store)
    >>> spec_read.hash == spec.hash, len(rows), info['points_done']
    (True, 2, 2)
    >>> [(r['dk'], round(r['law_gamma_c'], 4)) for r in rows]
    [(16, 0.8974), (64, 0.7819)]
    >>> tmp.cleanup()
    """
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
    """The spec a store's spec record describes, validated again; it must hash to ``spec_hash``.

    Examples
    --------
    The spec of a store's record, checked against its hash:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> import json
    >>> record = json.loads(spec.canonical_json())
    >>> sweep.spec_of_record(record, spec.hash, 'tiny.sqlite').name
    'tiny'
    """
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
    """The spec a store is bound to.

    Examples
    --------
    The spec a store is bound to:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> store = os.path.join(tmp.name, 'tiny.sqlite')
    >>> _ = sweep.run_sweep(spec, store, sweep.SerialExecutor(), progress=False)
    >>> sweep.spec_of_store(store).hash == spec.hash
    True
    >>> tmp.cleanup()
    """
    return read_store(store_path)[0]


def store_status(store_path: str) -> dict:
    """Summary of a store: spec name and hash, points done / total, code versions, times, and
    the task's own fields (its ``status_fields``).

    Examples
    --------
    Progress of a store:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> store = os.path.join(tmp.name, 'tiny.sqlite')
    >>> _ = sweep.run_sweep(spec, store, sweep.SerialExecutor(), progress=False)
    >>> status = sweep.store_status(store)
    >>> status['points_done'], status['points_total'], status['complete']
    (2, 2, True)
    >>> tmp.cleanup()
    """
    spec, _, info = read_store(store_path)
    total = spec.n_points()
    fields = task_of(spec).status_fields(spec)
    return {"name": spec.name, **({"kind": fields.pop("kind")} if "kind" in fields else {}),
            "spec_sha256": info["spec_sha256"], "created_at": info["created_at"],
            "points_done": info["points_done"], "points_total": total, "complete": info["points_done"] == total,
            "first_started": info["first_started"], "last_finished": info["last_finished"],
            "code_versions": info["code_versions"], **fields}


def export_rows(store_path: str) -> list[dict]:
    """Every stored row (parameters, estimates, errors, seed, code version, timestamps).

    Examples
    --------
    Every stored row:

    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({'sweep': {'name': 'tiny', 'compute': ['annealed']},
    ...                              'grid': {'dk': [16, 64], 'T': [64]}})
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> store = os.path.join(tmp.name, 'tiny.sqlite')
    >>> _ = sweep.run_sweep(spec, store, sweep.SerialExecutor(), progress=False)
    >>> [r['law_branch'] for r in sweep.export_rows(store)]
    ['condensed', 'mean-field']
    >>> tmp.cleanup()
    """
    return read_store(store_path)[1]


def to_frame(store_path: str):
    """Every stored row of a store as a ``pandas.DataFrame`` (the rows of :func:`read_store`, one per point).

    Parameters
    ----------
    store_path : str
        A sweep store (verified as :func:`read_store` does).

    Returns
    -------
    pandas.DataFrame
        One row per point, ordered by point index; the columns of :func:`store_columns`.

    Raises
    ------
    ImportError
        Without pandas (the optional extra ``theorylab[pandas]``).

    Examples
    --------
    >>> import os, tempfile
    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({"sweep": {"name": "tiny", "compute": ["annealed"]},
    ...                              "grid": {"dk": [16, 64], "T": [64, 1024]}})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     store = os.path.join(tmp, "tiny.sqlite")
    ...     _ = sweep.run_sweep(spec, store, sweep.SerialExecutor(), progress=False)
    ...     frame = sweep.to_frame(store)
    >>> print(frame[["dk", "T", "law_branch"]].to_string(index=False))
     dk    T law_branch
     16   64  condensed
     16 1024  condensed
     64   64 mean-field
     64 1024 mean-field
    >>> print(frame["law_gamma_c"].round(4).tolist())
    [0.8974, 1.0206, 0.7819, 1.1264]
    """
    return _frame(read_store(store_path)[1])


def to_dataset(store_path: str):
    """A store's rows as an ``xarray.Dataset`` over its grid: the task's parameter columns that are set
    (PSA: variant, dk, T and, for a mass sweep, gamma) are the coordinates, the seed and the result
    columns that hold a value in some row are the variables (NaN where a point has none).

    Parameters
    ----------
    store_path : str
        A sweep store (verified as :func:`read_store` does).

    Returns
    -------
    xarray.Dataset
        Attributes ``name`` and ``spec_sha256`` name the sweep.

    Raises
    ------
    ImportError
        Without xarray (the optional extra ``theorylab[xarray]``, which brings pandas).

    Examples
    --------
    >>> import os, tempfile
    >>> import theorylab.sweep as sweep
    >>> spec = sweep.spec_from_dict({"sweep": {"name": "tiny", "compute": ["annealed"]},
    ...                              "grid": {"dk": [16, 64], "T": [64, 1024]}})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     store = os.path.join(tmp, "tiny.sqlite")
    ...     _ = sweep.run_sweep(spec, store, sweep.SerialExecutor(), progress=False)
    ...     ds = sweep.to_dataset(store)
    >>> print(dict(ds.sizes))
    {'variant': 1, 'dk': 2, 'T': 2}
    >>> print(ds["law_gamma_c"].sel(variant="t4-only", dk=64).round(4).values.tolist())
    [0.7819, 1.1264]
    """
    try:
        import xarray  # noqa: F401  (to_xarray below needs it)
    except ImportError:
        raise ImportError("to_dataset needs xarray: pip install 'theorylab[xarray]' (or use to_frame or "
                          "read_store)") from None
    spec, rows, info = read_store(store_path)
    task = task_of(spec)
    axes = [n for n, _ in task.PARAMETER_COLUMNS if any(r[n] is not None for r in rows)]
    values = ["seed"] + [n for n, _ in task.RESULT_COLUMNS if any(r[n] is not None for r in rows)]
    frame = _frame([{k: r[k] for k in axes + values} for r in rows]).set_index(axes)
    dataset = frame.to_xarray()
    dataset.attrs.update(name=spec.name, spec_sha256=info["spec_sha256"])
    return dataset

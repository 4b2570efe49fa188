"""The Dask path: the same sweep on an in-process LocalCluster equals the serial run."""
from __future__ import annotations

import pytest

from theorylab import sweep
from test_sweep_specs import RESULT_FIELDS, small_spec_text

distributed = pytest.importorskip(
    "distributed", reason="dask.distributed is not installed (pip install -e '.[distributed]')")


def test_dask_local_cluster_matches_serial(tmp_path):
    spec_path = tmp_path / "spec.toml"
    spec_path.write_text(small_spec_text())
    spec = sweep.load_spec(str(spec_path))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        report = sweep.run_sweep(spec, str(tmp_path / "dask.db"), executor=sweep.DaskExecutor(client=client),
                                 progress=False)
    assert report.computed == spec.n_points() and report.executor.startswith("dask")
    sweep.run_sweep(spec, str(tmp_path / "serial.db"), executor=sweep.SerialExecutor(), progress=False)
    on_dask = {r["key"]: [r[c] for c in RESULT_FIELDS] for r in sweep.export_rows(str(tmp_path / "dask.db"))}
    serial = {r["key"]: [r[c] for c in RESULT_FIELDS] for r in sweep.export_rows(str(tmp_path / "serial.db"))}
    assert len(on_dask) == spec.n_points() and on_dask == serial


@pytest.mark.slow
def test_cli_local_cluster(tmp_path, capsys):
    import json

    from theorylab.cli import main
    spec_path = tmp_path / "spec.toml"
    spec_path.write_text(small_spec_text())
    assert main(["sweep", "run", str(spec_path), "--store", str(tmp_path / "lc.db"), "--local-cluster", "2",
                 "--no-progress", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)[0]
    assert report["computed"] == 24 and report["executor"].startswith("dask (tcp://")

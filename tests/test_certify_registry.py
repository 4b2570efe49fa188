"""The main job cannot pass empty: discovery is theorylab's own, and the registry must cover the catalogue."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from theorylab.certify.catalogue import CATALOGUE
from theorylab.mutation.planting import copy_library, run_certify
from theorylab.certify.registry import IncompleteRegistry, check_complete, discover


def test_every_catalogue_row_is_registered():
    check_complete(discover())      # raises otherwise


def test_an_empty_registry_is_refused():
    with pytest.raises(IncompleteRegistry, match="no certificates are registered"):
        check_complete({})


def test_a_missing_catalogue_row_is_named():
    registry = {cid: spec for cid, spec in discover().items() if spec.claim_id not in ("P4", "G3")}
    with pytest.raises(IncompleteRegistry, match=r"lacks certificates for 2 catalogue row\(s\): P4, G3"):
        check_complete(registry)
    assert {"P4", "G3"} <= set(CATALOGUE)


def test_certify_ignores_a_foreign_certificates_package(tmp_path):
    """A folder holding another package named ``certificates`` (one exists on the package index):
    certify never imports it and runs theorylab's own."""
    foreign = tmp_path / "certificates"
    foreign.mkdir()
    (foreign / "__init__.py").write_text("raise SystemExit('the foreign certificates package was imported')\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-m", "theorylab", "certify", "--only", "P1", "P11"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert "foreign" not in proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 certificates: 2 PASS, 0 FAIL, 0 ERROR, 0 SKIP" in proc.stdout


def _copy_without(tmp_path: Path, keep) -> Path:
    dest = tmp_path / "copy"
    copy_library(dest)
    import shutil

    for module in (dest / "theorylab" / "certificates").iterdir():
        if module.name in ("__init__.py", "reference") or keep(module.name):
            continue
        if module.is_dir():
            shutil.rmtree(module)          # a paper's subpackage of certificates
        elif module.suffix == ".py":
            module.unlink()
    return dest


def test_certify_with_no_certificates_exits_1(tmp_path):
    run = run_certify(_copy_without(tmp_path, keep=lambda name: False), [], timeout=300)
    lines = run.output.strip().splitlines()
    assert run.returncode == 1 and len(lines) == 1, run.output
    assert "no certificates are registered" in lines[0]


def test_certify_with_a_catalogue_row_missing_exits_1(tmp_path):
    rows = {s.claim_id for s in discover().values() if s.check.__module__ == "theorylab.certificates.psa.filter_order"}
    assert rows == {"P4", "P5", "P6"}       # the rows of that module, and no other module covers them
    copy = _copy_without(tmp_path, keep=lambda name: True)
    (copy / "theorylab" / "certificates" / "psa" / "filter_order.py").unlink()
    run = run_certify(copy, ["--only", "P1"], timeout=300)
    assert run.returncode == 1, run.output
    assert run.output.strip().splitlines() == [
        "theorylab certify: the registry lacks certificates for 3 catalogue row(s): P4, P5, P6"], run.output


def test_a_certificate_is_a_function_of_its_seed_only():
    """No registered check takes a parameter that lets a caller swap the library function under test (the proof
    that a check can fail is a bug planted in the library: tests/planted/); ``seed`` is the only parameter."""
    import inspect

    from theorylab.certify.registry import REGISTRY, discover

    discover()
    extra = {spec.id: [p for p in inspect.signature(spec.check).parameters if p != "seed"]
             for spec in REGISTRY.values()}
    assert not {k: v for k, v in extra.items() if v}, extra

"""The checked-in generated code is what the generator makes of the
server's current OpenAPI document, and it runs on Python 3.9."""

from __future__ import annotations

import filecmp
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import wingman_bin

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import generate  # noqa: E402 (generate.py lives beside the package, not in it)


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    out = tmp_path_factory.mktemp("regenerated")
    env = {**os.environ, "WINGMAN_BIN": wingman_bin()}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "generate.py"), "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out, proc.stdout + proc.stderr


def differences(left: Path, right: Path) -> list:
    """Every file that differs, or is in only one of two trees."""
    found = []
    comparison = filecmp.dircmp(left, right, ignore=["__pycache__"])
    found += [f"only in the checked-in code: {left / n}" for n in comparison.left_only]
    found += [f"only in the regenerated code: {n}" for n in comparison.right_only]
    for name in comparison.common_files:
        if (left / name).read_bytes() != (right / name).read_bytes():
            found.append(f"differs: {left / name}")
    for name in comparison.common_dirs:
        found += differences(left / name, right / name)
    return found


def test_checked_in_document_is_the_servers(regenerated):
    out, _ = regenerated
    assert (out / "openapi.json").read_bytes() == (ROOT / "openapi.json").read_bytes(), (
        "the server's OpenAPI document changed: run generate.py"
    )


def test_checked_in_code_is_regenerated_unchanged(regenerated):
    out, _ = regenerated
    found = differences(ROOT / "wingman_client" / "api_gen", out / "api_gen")
    assert not found, "run generate.py:\n" + "\n".join(found)


def test_generator_reports_no_warning(regenerated):
    _, report = regenerated
    warnings = generate.generator_warnings(report)
    assert not warnings, "the generator left parts of the document out:\n" + report


def test_package_runs_on_python_39():
    """vermin reads the syntax and the standard library's names that each file
    uses; the package, generated code included, must need no more than 3.9."""
    vermin = Path(sys.executable).parent / "vermin"
    proc = subprocess.run(
        [str(vermin), "--no-tips", "--violations", "--target=3.9-", str(ROOT / "wingman_client")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_operation_of_the_document_is_callable():
    from wingman_client import Wingman, _base

    document = json.loads((ROOT / "openapi.json").read_text())
    operations = {
        op["operationId"]
        for item in document["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and "operationId" in op
    }
    assert len(operations) > 50
    missing = sorted(name for name in operations if _base.operation(name) is None)
    assert not missing, f"operations without generated code: {missing}"
    with Wingman(base_url="http://wingman.test") as client:
        for name in operations:
            assert callable(getattr(client.api, name))
        assert operations <= set(dir(client.api))

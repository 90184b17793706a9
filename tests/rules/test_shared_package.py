"""Two distributions of one import package (rules/duplicates.py)."""

from __future__ import annotations

from typing import Any

import pytest

from envcheck.doctor import diagnose
from envcheck.model.snapshot import Snapshot


def _snap(packages: dict[str, str], os_name: str = "linux", **extra: Any) -> Snapshot:
    return Snapshot.from_json(
        {
            "platform": {"os": os_name, "arch": "x86_64"},
            "python": {"version": "3.11.9"},
            "driver": {"version": "550.54.15"},
            "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
            "packages": packages,
            **extra,
        }
    )


@pytest.mark.parametrize(
    "packages",
    [
        {"paddlepaddle": "2.6.1", "paddlepaddle-gpu": "2.6.1"},
        {"tensorflow": "2.15.0", "tensorflow-gpu": "2.10.0"},
        {"cupy": "13.3.0", "cupy-cuda12x": "13.3.0"},
        {"cupy-cuda11x": "13.3.0", "cupy-cuda12x": "13.3.0"},
    ],
)
def test_two_distributions_of_one_package_are_an_error(
    matrix: Any, packages: dict[str, str]
) -> None:
    found = [
        f
        for f in diagnose(_snap(packages), matrix).findings
        if f.id == "two-distributions-one-package"
    ]
    assert [f.severity.value for f in found] == ["error"]
    assert found[0].sources and all(name in found[0].title for name in packages)
    assert "pip uninstall -y" in (found[0].fix or "")


def test_one_distribution_is_fine(matrix: Any) -> None:
    found = {f.id for f in diagnose(_snap({"onnxruntime-gpu": "1.18.0"}), matrix).findings}
    assert "two-distributions-one-package" not in found


def test_the_fix_reinstalls_the_detected_build_from_its_index(matrix: Any) -> None:
    """The framework was detected as cupy-cuda12x 13.3.0 (PyPI): remove both, then
    reinstall that one; on Windows the commands are quoted for cmd."""
    fw = [{"name": "cupy", "version": "13.3.0", "package": "cupy-cuda12x", "variant": "cu12x"}]
    packages = {"cupy": "13.3.0", "cupy-cuda12x": "13.3.0"}
    for os_name in ("linux", "windows"):
        snap = _snap(packages, os_name, frameworks=fw)
        fix = next(
            f.fix
            for f in diagnose(snap, matrix).findings
            if f.id == "two-distributions-one-package"
        )
        assert fix is not None
        lines = [line.strip() for line in fix.splitlines()]
        assert lines[1:] == [
            "pip uninstall -y cupy cupy-cuda12x",
            "pip install cupy-cuda12x==13.3.0",
        ]


def test_onnxruntime_beside_its_gpu_package_is_the_cpu_only_rules(matrix: Any) -> None:
    packages = {"onnxruntime": "1.18.0", "onnxruntime-gpu": "1.18.0"}
    found = {f.id for f in diagnose(_snap(packages), matrix).findings}
    assert "two-distributions-one-package" not in found

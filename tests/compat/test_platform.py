"""No GPU build of a release for the platform (compat.platform) and its consumers."""

from __future__ import annotations

from typing import Any

import pytest

from envcheck.compat.judge import Level
from envcheck.compat.platform import gpu_platform_reason, last_gpu_release
from envcheck.doctor import diagnose
from envcheck.model.finding import Category, Severity
from envcheck.model.snapshot import Snapshot

WIN = "windows-x86_64"


def test_tensorflow_after_the_last_native_windows_gpu_release(matrix: Any) -> None:
    last = last_gpu_release(matrix, "tensorflow", WIN)
    assert last is not None and last.startswith("2.10.")  # read from the rows
    reason = gpu_platform_reason(matrix, "tensorflow", "2.15.1", WIN)
    assert reason is not None
    assert (reason.level, reason.category) == (Level.ERROR, Category.PLATFORM_UNSUPPORTED)
    assert f"the last release with one is {last}" in reason.message
    assert reason.sources
    assert gpu_platform_reason(matrix, "tensorflow", last, WIN) is None
    assert gpu_platform_reason(matrix, "tensorflow", "2.15.1", "linux-x86_64") is None


def test_jax_has_no_native_windows_gpu_release_at_all(matrix: Any) -> None:
    reason = gpu_platform_reason(matrix, "jax", "0.4.30", WIN)
    assert reason is not None and "no release has one" in reason.message


@pytest.mark.parametrize(
    ("framework", "version"), [("torch", "2.5.1"), ("tensorflow", "9.9.9"), ("cupy", "13.3.0")]
)
def test_releases_with_windows_gpu_builds_or_unknown_are_not_judged(
    matrix: Any, framework: str, version: str
) -> None:
    assert gpu_platform_reason(matrix, framework, version, WIN) is None


def _windows(framework: dict[str, Any]) -> Snapshot:
    return Snapshot.from_json(
        {
            "platform": {"os": "windows", "arch": "AMD64"},
            "python": {"version": "3.10.11"},
            "driver": {"version": "551.78", "cuda_version": "12.4"},
            "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 3060", "compute_capability": "8.6"}],
            "frameworks": [framework],
            "probes": ["platform", "python", "driver", "frameworks"],
        }
    )


def _ids(snapshot: Snapshot, matrix: Any) -> dict[str, Severity]:
    return {f.id: f.severity for f in diagnose(snapshot, matrix).findings}


def test_doctor_jax_on_native_windows(matrix: Any) -> None:
    snap = _windows({"name": "jax", "version": "0.4.30", "package": "jax"})
    assert _ids(snap, matrix).get("no-gpu-build-for-platform") is Severity.ERROR


def test_tensorflow_2_15_without_build_info_on_windows(matrix: Any) -> None:
    """Detection no longer rewrites the build as CPU-only on Windows; the judgement
    comes from the matrix rows, with or without build facts."""
    snap = _windows({"name": "tensorflow", "version": "2.15.1", "package": "tensorflow"})
    found = {f.id: f for f in diagnose(snap, matrix).findings}
    finding = found["no-gpu-build-for-platform"]
    assert finding.severity is Severity.ERROR
    assert "WSL2" in (finding.fix or "")
    assert "cpu-only-build" not in found


def test_a_cpu_tensorflow_2_10_on_windows_is_a_cpu_only_build(matrix: Any) -> None:
    """2.10 has native Windows GPU builds: a CPU one installed there is the CPU-only
    cause (the platform rule used to hide every Windows TensorFlow)."""
    snap = _windows(
        {"name": "tensorflow", "version": "2.10.1", "package": "tensorflow", "cpu_only": True}
    )
    ids = _ids(snap, matrix)
    assert "no-gpu-build-for-platform" not in ids
    assert "cpu-only-build" in ids


def test_findings_carry_the_judges_reason_code(matrix: Any) -> None:
    """Every finding a verdict decided names the reason code (doctor --json: reason)."""
    from envcheck.compat import judge as J

    snap = _windows({"name": "jax", "version": "0.4.30", "package": "jax"})
    report = diagnose(snap, matrix)
    by_id = {f.id: f for f in report.findings}
    assert by_id["no-gpu-build-for-platform"].reason == J.PLATFORM
    cpu = _windows(
        {"name": "tensorflow", "version": "2.10.1", "package": "tensorflow", "cpu_only": True}
    )
    assert {f.id: f for f in diagnose(cpu, matrix).findings}["cpu-only-build"].reason == (
        J.CPU_ONLY
    )
    old = Snapshot.from_json(
        {
            "platform": {"os": "linux", "arch": "x86_64"},
            "driver": {"version": "470.256.02"},
            "gpus": [{"index": 0, "compute_capability": "8.6"}],
            "frameworks": [{"name": "torch", "version": "2.6.0+cu126", "cuda_version": "12.6"}],
        }
    )
    found = {f.id: f for f in diagnose(old, matrix).findings}
    assert found["driver-too-old"].reason == J.DRIVER
    from tests.test_cli import validate_doctor_json

    doc = report.to_json()
    validate_doctor_json(doc)
    assert any(f["reason"] == J.PLATFORM for f in doc["findings"])

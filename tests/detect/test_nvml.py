"""NVML facade: every answer and every error becomes data, shutdown always runs."""

from __future__ import annotations

from typing import Any

import pytest

from envcheck.detect.nvml import (
    FakeNvml,
    format_cuda_driver_version,
    parse_nvml_library_version,
    read_nvml,
)
from envcheck.model.snapshot import Gpu

RTX4090: dict[str, Any] = {
    "name": "NVIDIA GeForce RTX 4090",
    "uuid": "GPU-5b2c8f1e-0a7d-4c3e-9f12-3d8e6a1b2c4d",
    "compute_capability": [8, 9],
    "memory_total_mib": 24564,
    "mig_mode": None,
    "pcie": [4, 16, 4, 16],
    "bus_id": "00000000:01:00.0",
}
HEALTHY: dict[str, Any] = {
    "driver_version": "550.54.14",
    "cuda_driver_version": 12040,
    "nvml_version": "12.550.54.14",
    "gpus": [RTX4090],
}


def test_reads_driver_and_gpu() -> None:
    nvml = FakeNvml(HEALTHY)
    report = read_nvml(nvml)
    assert report.available
    assert report.driver_version == "550.54.14"
    assert report.cuda_version == "12.4"
    assert report.library_version == "550.54.14"
    assert report.gpus == [
        Gpu(
            index=0,
            name="NVIDIA GeForce RTX 4090",
            uuid="GPU-5b2c8f1e-0a7d-4c3e-9f12-3d8e6a1b2c4d",
            compute_capability="8.9",
            memory_total_mib=24564,
            mig_mode=None,
            pcie_generation=4,
            pcie_width=16,
            pcie_max_generation=4,
            pcie_max_width=16,
            bus_id="00000000:01:00.0",
        )
    ]
    assert report.errors == []
    assert nvml.shutdowns == 1


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        ("NVMLError_LibraryNotFound", "NVML Shared Library Not Found"),
        ("NVMLError_DriverNotLoaded", "Driver Not Loaded"),
        ("NVMLError_LibRmVersionMismatch", "Driver/library version mismatch"),
        ("NVMLError_NoPermission", "Insufficient Permissions"),
    ],
)
def test_init_errors_are_one_line_data(cls: str, message: str) -> None:
    nvml = FakeNvml({"error": {"class": cls, "message": message}})
    report = read_nvml(nvml)
    assert not report.available
    assert report.errors == [f"nvmlInit: {cls}: {message}"]
    assert report.gpus == []
    assert nvml.shutdowns == 0


def test_lost_gpu_is_recorded_and_others_still_read() -> None:
    lost = {
        **RTX4090,
        "errors": {
            "nvmlDeviceGetHandleByIndex": {
                "class": "NVMLError_GpuIsLost",
                "message": "GPU is lost",
                "value": 15,
            }
        },
    }
    nvml = FakeNvml({**HEALTHY, "gpus": [lost, RTX4090]})
    report = read_nvml(nvml)
    assert report.errors == ["nvmlDeviceGetHandleByIndex(0): NVMLError_GpuIsLost: GPU is lost"]
    assert [g.index for g in report.gpus] == [1]
    assert nvml.shutdowns == 1


def test_per_field_error_keeps_the_rest_of_the_gpu() -> None:
    gpu = {
        **RTX4090,
        "errors": {"nvmlDeviceGetUUID": {"class": "NVMLError_Unknown", "message": "Unknown Error"}},
    }
    report = read_nvml(FakeNvml({**HEALTHY, "gpus": [gpu]}))
    assert report.gpus[0].uuid is None
    assert report.gpus[0].compute_capability == "8.9"
    assert report.errors == ["GPU 0 nvmlDeviceGetUUID: NVMLError_Unknown: Unknown Error"]


def test_mig_enabled_and_not_supported() -> None:
    a100 = {**RTX4090, "name": "NVIDIA A100-SXM4-80GB", "mig_mode": 1}
    report = read_nvml(FakeNvml({**HEALTHY, "gpus": [a100, RTX4090]}))
    assert [g.mig_mode for g in report.gpus] == ["Enabled", None]
    assert report.errors == []


def test_shutdown_runs_when_reading_raises_unexpectedly() -> None:
    class Broken(FakeNvml):
        def nvmlDeviceGetCount(self) -> Any:
            raise KeyboardInterrupt

    nvml = Broken(HEALTHY)
    with pytest.raises(KeyboardInterrupt):
        read_nvml(nvml)
    assert nvml.shutdowns == 1


@pytest.mark.parametrize(
    ("value", "expected"),
    [(12040, "12.4"), (13010, "13.1"), (11080, "11.8"), (0, None), ("12040", None), (None, None)],
)
def test_format_cuda_driver_version(value: Any, expected: Any) -> None:
    assert format_cuda_driver_version(value) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12.550.54.14", "550.54.14"),
        ("11.470.82.01", "470.82.01"),
        ("13.580.65.06", "580.65.06"),
        ("550.54.14", "550.54.14"),
        ("", None),
        ("garbage", None),
        (None, None),
    ],
)
def test_parse_nvml_library_version(text: Any, expected: Any) -> None:
    assert parse_nvml_library_version(text) == expected


def test_missing_libnvidia_ml_fails_like_pynvml_without_importing_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ctypes
    import sys

    from envcheck.detect.nvml import load_nvml, read_nvml

    tried: list[str] = []

    def no_library(name: str, *args: Any, **kwargs: Any) -> Any:
        tried.append(name)
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.setattr(ctypes, "CDLL", no_library)
    monkeypatch.delitem(sys.modules, "pynvml", raising=False)
    nvml = load_nvml("linux")
    assert tried == ["libnvidia-ml.so.1"]
    assert "pynvml" not in sys.modules
    report = read_nvml(nvml)
    assert not report.available
    # The same line pynvml's own NVMLError_LibraryNotFound gives (machine fixtures).
    assert report.errors == ["nvmlInit: NVMLError_LibraryNotFound: NVML Shared Library Not Found"]

"""Driver probe: recorded /proc, nvidia-smi and NVML answers; every failure is data."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Optional

import pytest

from envcheck.detect.context import Context
from envcheck.detect.driver import (
    SMI_FIELDS,
    SMI_FIELDS_OLD,
    parse_nvidia_smi_csv,
    parse_nvidia_smi_cuda_version,
    parse_nvidia_smi_driver_version,
    parse_nvml_library_filename,
    parse_proc_driver_version,
    parse_sys_module_version,
    probe_driver,
)
from envcheck.detect.nvml import FakeNvml
from envcheck.detect.system import CommandResult, System
from envcheck.model.snapshot import Driver, Gpu, ProbeError
from tests.conftest import FakeRunner, make_system, write_tree

PROC_550 = (
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
    "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n"
)
PROC_OPEN_560 = (
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release Build  "
    "(dvs-builder@U16-I3-B13-3-2)  Fri Aug 16 21:21:48 UTC 2024\n"
    "GCC version:  gcc version 13.2.0 (Ubuntu 13.2.0-23ubuntu4) \n"
)
PROC_AARCH64 = (
    "NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104.05  Sat Aug 19 01:13:38 UTC 2023\n"
    "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04) \n"
)
PROC_OPEN_AARCH64 = (
    "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  570.86.15  Release Build  "
    "(dvs-builder@U16-I2-C03-12-4)  Thu Jan 23 22:51:19 UTC 2025\n"
)
PROC_535 = (
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC 2024\n"
    "GCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04) \n"
)

SMI_CSV_4090 = (
    "0, NVIDIA GeForce RTX 4090, GPU-5b2c8f1e-0a7d-4c3e-9f12-3d8e6a1b2c4d, 550.54.14, "
    "24564, 8.9, 00000000:01:00.0, 4, 16, 4, 16, [N/A]\n"
)
SMI_CSV_OLD = (
    "0, Tesla K80, GPU-6e8f3c2a-1b4d-4e5f-8a9b-0c1d2e3f4a5b, 470.256.02, 11441, "
    "00000000:00:04.0, 3, 16, 3, 16, [Not Supported]\n"
)
SMI_PLAIN_550 = """\
Fri Mar 15 10:12:01 2024
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.14              Driver Version: 550.54.14      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0  On |                  Off |
|  0%   38C    P8             21W /  450W |     512MiB /  24564MiB |      2%      Default |
+-----------------------------------------+------------------------+----------------------+
"""
SMI_PLAIN_470 = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.256.02   Driver Version: 470.256.02   CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
"""
SMI_QUERY = " ".join(
    ("nvidia-smi", "--query-gpu=" + ",".join(SMI_FIELDS), "--format=csv,noheader,nounits")
)
SMI_QUERY_OLD = " ".join(
    ("nvidia-smi", "--query-gpu=" + ",".join(SMI_FIELDS_OLD), "--format=csv,noheader,nounits")
)

GPU_4090 = Gpu(
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
NVML_4090: dict[str, Any] = {
    "driver_version": "550.54.14",
    "cuda_driver_version": 12040,
    "nvml_version": "12.550.54.14",
    "gpus": [
        {
            "name": "NVIDIA GeForce RTX 4090",
            "uuid": "GPU-5b2c8f1e-0a7d-4c3e-9f12-3d8e6a1b2c4d",
            "compute_capability": [8, 9],
            "memory_total_mib": 24564,
            "pcie": [4, 16, 4, 16],
            "bus_id": "00000000:01:00.0",
        }
    ],
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (PROC_550, "550.54.14"),
        (PROC_OPEN_560, "560.35.03"),
        (PROC_AARCH64, "535.104.05"),
        (PROC_OPEN_AARCH64, "570.86.15"),
        (PROC_550[:40], None),
        ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  ", None),
        ("\x00\xff garbage", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_proc_driver_version(text: Optional[str], expected: Optional[str]) -> None:
    assert parse_proc_driver_version(text) == expected


def test_parse_sys_module_and_library_filename() -> None:
    assert parse_sys_module_version("550.54.14\n") == "550.54.14"
    assert parse_sys_module_version("junk") is None
    assert parse_nvml_library_filename("libnvidia-ml.so.550.54.14") == "550.54.14"
    assert parse_nvml_library_filename("libnvidia-ml.so.1") is None
    assert parse_nvml_library_filename("libnvidia-ml.so") is None


def test_parse_nvidia_smi_csv() -> None:
    assert parse_nvidia_smi_csv(SMI_CSV_4090) == ("550.54.14", (GPU_4090,))


def test_parse_nvidia_smi_csv_old_driver_without_compute_cap() -> None:
    parsed = parse_nvidia_smi_csv(SMI_CSV_OLD, SMI_FIELDS_OLD)
    assert parsed is not None
    driver, gpus = parsed
    assert driver == "470.256.02"
    assert gpus[0].name == "Tesla K80"
    assert gpus[0].compute_capability is None
    assert gpus[0].memory_total_mib == 11441
    assert gpus[0].mig_mode is None


@pytest.mark.parametrize(
    "text",
    [
        SMI_CSV_4090[:50],
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
        'Field "compute_cap" is not a valid field to query.',
        "x, y",
        "",
    ],
)
def test_parse_nvidia_smi_csv_garbage(text: str) -> None:
    assert parse_nvidia_smi_csv(text) is None


def test_parse_nvidia_smi_plain() -> None:
    assert parse_nvidia_smi_cuda_version(SMI_PLAIN_550) == "12.4"
    assert parse_nvidia_smi_driver_version(SMI_PLAIN_550) == "550.54.14"
    assert parse_nvidia_smi_cuda_version(SMI_PLAIN_470) == "11.4"
    assert parse_nvidia_smi_driver_version(SMI_PLAIN_470) == "470.256.02"
    assert parse_nvidia_smi_cuda_version(SMI_PLAIN_550[:120]) is None
    assert parse_nvidia_smi_cuda_version("Failed to initialize NVML: Unknown Error") is None


def _probe(system: System) -> Context:
    ctx = Context()
    probe_driver(system, ctx)
    return ctx


def _with_nvml(system: System, data: dict[str, Any]) -> System:
    return dataclasses.replace(system, nvml=lambda: FakeNvml(data))


def test_nvml_and_proc(tmp_path: Path) -> None:
    write_tree(tmp_path, {"proc/driver/nvidia/version": PROC_550})
    system = _with_nvml(make_system(tmp_path), NVML_4090)
    ctx = _probe(system)
    assert ctx.driver == Driver(
        version="550.54.14",
        cuda_version="12.4",
        source="nvml+proc",
        kernel_module_version="550.54.14",
        nvml_library_version="550.54.14",
    )
    assert ctx.gpus == [GPU_4090]
    assert ctx.errors == []
    assert isinstance(system.run, FakeRunner)
    assert system.run.calls == []


def test_nvml_version_mismatch_after_upgrade(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "proc/driver/nvidia/version": PROC_535,
            "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.14": "",
        },
    )
    mismatch = CommandResult(
        18,
        "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.54\n",
    )
    system = _with_nvml(
        make_system(
            tmp_path,
            outputs={"nvidia-smi": mismatch},
            executables={"nvidia-smi": "/usr/bin/nvidia-smi"},
        ),
        {
            "error": {
                "class": "NVMLError_LibRmVersionMismatch",
                "message": "Driver/library version mismatch",
            }
        },
    )
    ctx = _probe(system)
    assert ctx.driver == Driver(
        version="535.183.01",
        cuda_version=None,
        source="proc",
        kernel_module_version="535.183.01",
        nvml_library_version="550.54.14",
    )
    assert ctx.gpus == []
    assert ctx.errors == [
        ProbeError(
            "driver",
            "NVML nvmlInit: NVMLError_LibRmVersionMismatch: Driver/library version mismatch",
        ),
        ProbeError(
            "driver",
            "nvidia-smi exited with status 18: Failed to initialize NVML: "
            "Driver/library version mismatch",
        ),
    ]


def test_nvidia_smi_fallback(tmp_path: Path) -> None:
    write_tree(tmp_path, {"proc/driver/nvidia/version": PROC_550})
    system = make_system(
        tmp_path,
        outputs={"/usr/bin/" + SMI_QUERY: SMI_CSV_4090, "nvidia-smi": SMI_PLAIN_550},
        executables={"nvidia-smi": "/usr/bin/nvidia-smi"},
    )
    ctx = _probe(system)
    assert ctx.driver == Driver(
        version="550.54.14",
        cuda_version="12.4",
        source="nvidia-smi+proc",
        kernel_module_version="550.54.14",
        nvml_library_version=None,
    )
    assert ctx.gpus == [GPU_4090]
    assert ctx.errors == []
    assert isinstance(system.run, FakeRunner)
    assert all(timeout <= 10 for _, timeout in system.run.calls)


def test_nvidia_smi_old_driver_retries_without_compute_cap(tmp_path: Path) -> None:
    invalid = CommandResult(2, "", 'Field "compute_cap" is not a valid field to query.\n')
    system = make_system(
        tmp_path,
        outputs={
            "/usr/bin/" + SMI_QUERY: invalid,
            "/usr/bin/" + SMI_QUERY_OLD: SMI_CSV_OLD,
            "nvidia-smi": SMI_PLAIN_470,
        },
        executables={"nvidia-smi": "/usr/bin/nvidia-smi"},
    )
    ctx = _probe(system)
    assert ctx.driver.version == "470.256.02"
    assert ctx.driver.cuda_version == "11.4"
    assert ctx.driver.source == "nvidia-smi"
    assert [(g.name, g.compute_capability) for g in ctx.gpus] == [("Tesla K80", None)]
    assert ctx.errors == []


def test_nvidia_smi_hang_is_one_error_and_one_timeout(tmp_path: Path) -> None:
    write_tree(tmp_path, {"proc/driver/nvidia/version": PROC_550})
    hung = CommandResult(None, timed_out=True, error="timed out after 5s")
    system = make_system(
        tmp_path,
        outputs={"nvidia-smi": hung},
        executables={"nvidia-smi": "/usr/bin/nvidia-smi"},
    )
    ctx = _probe(system)
    assert ctx.errors == [ProbeError("driver", "nvidia-smi: timed out after 5s")]
    assert isinstance(system.run, FakeRunner)
    assert len(system.run.calls) == 1
    assert system.run.calls[0][1] <= 10
    assert ctx.driver.version == "550.54.14"
    assert ctx.driver.source == "proc"


def test_wsl2_nvidia_smi_in_usr_lib_wsl(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"usr/lib/wsl/lib/nvidia-smi": "", "usr/lib/wsl/lib/libnvidia-ml.so.1": ""},
    )
    system = make_system(
        tmp_path,
        outputs={
            "/usr/lib/wsl/lib/" + SMI_QUERY: SMI_CSV_4090.replace("550.54.14", "552.22"),
            "nvidia-smi": SMI_PLAIN_550.replace("550.54.14", "552.22"),
        },
        executables={},
    )
    ctx = _probe(system)
    assert ctx.driver == Driver(version="552.22", cuda_version="12.4", source="nvidia-smi")
    assert ctx.gpus[0].name == "NVIDIA GeForce RTX 4090"
    assert isinstance(system.run, FakeRunner)
    assert system.run.calls[0][0][0] == "/usr/lib/wsl/lib/nvidia-smi"


def test_windows_system32(tmp_path: Path) -> None:
    write_tree(tmp_path, {"C:/Windows/System32/nvidia-smi.exe": ""})
    exe = "C:\\Windows\\System32\\nvidia-smi.exe"
    system = make_system(
        tmp_path,
        outputs={
            exe: SMI_PLAIN_550.replace("550.54.14", "551.86"),
            exe + SMI_QUERY[len("nvidia-smi") :]: SMI_CSV_4090.replace("550.54.14", "551.86"),
        },
        platform="win32",
        machine="AMD64",
        executables={},
    )
    ctx = _probe(system)
    assert ctx.driver == Driver(version="551.86", cuda_version="12.4", source="nvidia-smi")
    assert ctx.gpus == [GPU_4090]
    assert ctx.errors == []


def test_macos_has_no_nvidia_driver(tmp_path: Path) -> None:
    system = make_system(tmp_path, platform="darwin", machine="arm64")
    ctx = _probe(system)
    assert ctx.driver == Driver()
    assert ctx.gpus == []
    assert ctx.errors == []
    assert isinstance(system.run, FakeRunner)
    assert system.run.calls == []


def test_fake_root_without_factory_does_not_load_nvml(tmp_path: Path) -> None:
    ctx = _probe(make_system(tmp_path))
    assert ctx.driver == Driver()
    assert ctx.errors == []


def test_nvml_factory_failure_is_recorded(tmp_path: Path) -> None:
    def missing() -> Any:
        raise ImportError("No module named 'pynvml'")

    system = dataclasses.replace(make_system(tmp_path), nvml=missing)
    ctx = _probe(system)
    assert ctx.errors == [
        ProbeError("driver", "NVML not available: ImportError: No module named 'pynvml'")
    ]


# --- R610+: "KMD Version" / "CUDA UMD Version" (tests/fixtures/nvidia_smi/README.md) ---

SMI_DIR = Path(__file__).parent.parent / "fixtures" / "nvidia_smi"


def smi_fixture(name: str) -> str:
    return (SMI_DIR / name).read_text(encoding="utf-8")


def test_every_nvidia_smi_fixture_is_listed_with_its_source() -> None:
    readme = smi_fixture("README.md")
    for path in sorted(SMI_DIR.glob("*.txt")):
        assert f"| {path.name} | https://github.com/" in readme or (
            f"| {path.name} | **not a recorded output**" in readme
        )


@pytest.mark.parametrize(
    ("name", "driver", "cuda"),
    [
        ("r610-plain-2x-b200.txt", "610.43.02", "13.3"),
        ("r610-plain-rtx5070.txt", "610.43.02", "13.3"),
        ("r610-plain-rtx3080-610.43.03.txt", "610.43.03", "13.3"),
        ("r610-q-documented.txt", "610.57.04", "13.3"),
    ],
)
def test_parse_nvidia_smi_r610_labels(name: str, driver: str, cuda: str) -> None:
    text = smi_fixture(name)
    assert parse_nvidia_smi_driver_version(text) == driver
    assert parse_nvidia_smi_cuda_version(text) == cuda


def test_parse_nvidia_smi_q_layout_before_r610() -> None:
    # The aligned colon of ``nvidia-smi -q`` (https://github.com/NVIDIA/nvidia-docker/issues/1330).
    text = (
        "Driver Version                      : 440.82\nCUDA Version                        : 10.2\n"
    )
    assert parse_nvidia_smi_driver_version(text) == "440.82"
    assert parse_nvidia_smi_cuda_version(text) == "10.2"


def test_parse_nvidia_smi_prefers_the_new_label() -> None:
    text = "Driver Version : 610.1.1\nCUDA Version : 12.4\nKMD Version : 610.2.2\nCUDA UMD Version : 13.3\n"
    assert parse_nvidia_smi_driver_version(text) == "610.2.2"
    assert parse_nvidia_smi_cuda_version(text) == "13.3"


@pytest.mark.parametrize(
    "text",
    [
        # ``nvidia-smi --version`` on R610 keeps the old keys with a pointer, no number.
        (
            'DRIVER version      : Deprecated, see "KMD version" instead\n'
            'CUDA version        : Deprecated, see "CUDA UMD version" instead\n'
        ),
        "| NVIDIA-SMI 575.64.03    Driver Version: 575.64.03    CUDA Version: N/A |",
        "support will be removed in CUDA 14.0",
        "CUDA UMD\nVersion : 13.3",
    ],
)
def test_parse_nvidia_smi_cuda_label_without_a_version(text: str) -> None:
    assert parse_nvidia_smi_cuda_version(text) is None


def test_nvidia_smi_fallback_on_r610_reads_the_umd_cuda(tmp_path: Path) -> None:
    # No NVML: the CSV query gives driver and GPU, the R610 table the CUDA version.
    plain = smi_fixture("r610-plain-rtx5070.txt")
    csv = SMI_CSV_4090.replace("550.54.14", "610.43.02")
    system = make_system(
        tmp_path,
        outputs={"/usr/bin/" + SMI_QUERY: csv, "nvidia-smi": plain},
        executables={"nvidia-smi": "/usr/bin/nvidia-smi"},
    )
    ctx = _probe(system)
    assert ctx.driver == Driver(version="610.43.02", cuda_version="13.3", source="nvidia-smi")
    assert ctx.errors == []


def test_nvidia_smi_r610_table_alone_gives_the_kmd_version(tmp_path: Path) -> None:
    failed = CommandResult(6, "", "query failed\n")
    system = make_system(
        tmp_path,
        outputs={
            "/usr/bin/" + SMI_QUERY: failed,
            "nvidia-smi": smi_fixture("r610-plain-rtx3080-610.43.03.txt"),
        },
        executables={"nvidia-smi": "/usr/bin/nvidia-smi"},
    )
    ctx = _probe(system)
    assert (ctx.driver.version, ctx.driver.cuda_version) == ("610.43.03", "13.3")
    assert ctx.driver.source == "nvidia-smi"

"""GPU access: device files, WSL 1 and 2, containers (compat.access and its consumers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from envcheck.compat.access import CONTAINER_NO_DEVICES, WSL1, WSL_NO_DXG, access_reasons
from envcheck.compat.judge import Level
from envcheck.detect import detect
from envcheck.detect.platform import wsl_version_of
from envcheck.doctor import diagnose
from envcheck.model.finding import Category, Severity
from envcheck.model.snapshot import Platform, Snapshot
from tests.detect.test_machines import MACHINES, machine_system


@pytest.mark.parametrize(
    ("release", "version"),
    [
        ("4.4.0-19041-Microsoft", 1),
        ("4.4.0-18362-Microsoft", 1),
        ("4.19.104-microsoft-standard", 2),
        ("5.15.153.1-microsoft-standard-WSL2", 2),
        ("6.6.36.3-microsoft-standard-WSL2+", 2),
        (None, None),
    ],
)
def test_wsl_version_from_the_kernel_release(release: Any, version: Any) -> None:
    assert wsl_version_of(release) == version


def _codes(platform: Platform) -> list[str]:
    return [r.code for r in access_reasons(platform)]


def test_unknown_device_files_are_not_judged() -> None:
    # A pasted or flag-made snapshot never listed /dev: nothing is observed absent.
    assert _codes(Platform(os="linux", container="docker")) == []
    assert _codes(Platform(os="linux", wsl=True, wsl_version=2)) == []


def test_a_container_without_nvidia_device_files_has_no_gpu_access() -> None:
    (reason,) = access_reasons(
        Platform(os="linux", container="docker", gpu_device_nodes=("full", "null"))
    )
    assert reason.code == CONTAINER_NO_DEVICES
    assert (reason.level, reason.category) == (Level.ERROR, Category.CONTAINER_NO_GPU)
    assert reason.sources
    with_gpu = Platform(os="linux", container="docker", gpu_device_nodes=("nvidia0", "nvidiactl"))
    assert _codes(with_gpu) == []
    # The same /dev on a host (no container) is not judged by this rule.
    assert _codes(Platform(os="linux", gpu_device_nodes=())) == []


def test_wsl1_and_wsl2_without_dxg() -> None:
    wsl1 = Platform(os="linux", wsl=True, wsl_version=1, kernel="4.4.0-19041-Microsoft")
    assert _codes(wsl1) == [WSL1]
    assert _codes(Platform(os="linux", wsl=True, wsl_version=2, gpu_device_nodes=())) == [
        WSL_NO_DXG
    ]
    assert _codes(Platform(os="linux", wsl=True, wsl_version=2, gpu_device_nodes=("dxg",))) == []


def _machine(name: str, tmp_path: Path) -> Snapshot:
    return detect(machine_system(MACHINES / name, tmp_path))


def _errors(snapshot: Snapshot, matrix: Any) -> dict[str, Any]:
    return {f.id: f for f in diagnose(snapshot, matrix).findings if f.severity is Severity.ERROR}


def test_container_showing_the_hosts_module_but_no_devices(tmp_path: Path, matrix: Any) -> None:
    """/proc/driver/nvidia is the host kernel's: a driver version is read, yet the
    container was started without GPUs. The doctor says so from /dev."""
    snap = _machine("container-no-gpu-host-module", tmp_path)
    assert snap.driver.version == "550.54.15"
    assert snap.platform.gpu_device_nodes == ()
    # No CUDA framework is installed in this image: a warning (an error beside one).
    found = {f.id: f for f in diagnose(snap, matrix).findings}
    finding = found["container-no-gpu"]
    assert finding.severity is Severity.WARNING
    assert finding.category is Category.CONTAINER_NO_GPU
    assert any("/dev has no nvidia" in e for e in finding.evidence)
    assert any("host's kernel module" in e for e in finding.evidence)
    assert "--gpus all" in (finding.fix or "")


def test_wsl1_machine_is_a_platform_limit_not_a_missing_driver(tmp_path: Path, matrix: Any) -> None:
    snap = _machine("wsl1", tmp_path)
    assert (snap.platform.wsl, snap.platform.wsl_version) == (True, 1)
    errors = _errors(snap, matrix)
    assert "wsl1-no-gpu" in errors
    assert "wsl-no-windows-driver" not in errors
    assert "wsl --set-version" in (errors["wsl1-no-gpu"].fix or "")


def test_wsl2_machine_with_dxg_raises_no_access_error(tmp_path: Path, matrix: Any) -> None:
    snap = _machine("wsl2", tmp_path)
    assert snap.platform.gpu_device_nodes is not None
    assert "dxg" in snap.platform.gpu_device_nodes
    errors = _errors(snap, matrix)
    assert not {"wsl1-no-gpu", "wsl-no-windows-driver", "container-no-gpu"} & set(errors)


def test_old_snapshots_without_device_files_keep_their_meaning(matrix: Any) -> None:
    """A snapshot written before gpu_device_nodes existed reads it as unknown (None),
    never as "looked, none there"."""
    snap = Snapshot.from_json(
        {
            "platform": {"os": "linux", "container": "docker"},
            "driver": {"version": "550.54.15"},
            "gpus": [{"index": 0, "name": "NVIDIA A100", "compute_capability": "8.0"}],
            "probes": ["platform", "driver"],
        }
    )
    assert snap.platform.gpu_device_nodes is None
    assert "container-no-gpu" not in _errors(snap, matrix)


# -- explain adopts the access judgement -----------------------------------------

# https://github.com/microsoft/WSL/issues/5554 (a maintainer: that kernel release is
# WSL 1). The rule was written from microsoft/WSL#3847; this report did not motivate it.
WSL1_REPORT = """\
NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that \
the latest NVIDIA driver is installed and running.
Error! Your kernel headers for kernel 4.4.0-19041-Microsoft cannot be found.
Please install the linux-headers-4.4.0-19041-Microsoft package,
or use the --kernelsourcedir option to tell DKMS where it's located
"""

# https://github.com/NVIDIA/nvidia-docker/issues/400 (the title; fixed by
# starting the container with --gpus all).
CONTAINER_REPORT = "CUDA driver version is insufficient for CUDA runtime version\n"


def test_explain_names_wsl1_from_the_kernel_release_in_the_text(matrix: Any) -> None:
    from envcheck.explain import explain

    report = explain(WSL1_REPORT, None, matrix)
    first = report.findings[0]
    assert first.category is Category.PLATFORM_UNSUPPORTED
    assert "WSL 1" in (first.detail or "")
    assert "wsl --set-version" in (first.fix or "")


def test_explain_names_the_container_for_error_35_on_a_machine_without_devices(
    tmp_path: Path, matrix: Any
) -> None:
    from envcheck.explain import explain

    snap = _machine("container-no-gpu-host-module", tmp_path)
    first = explain(CONTAINER_REPORT, snap, matrix).findings[0]
    assert first.category is Category.CONTAINER_NO_GPU
    assert "--gpus all" in (first.fix or "")
    # On a machine with GPU access whose driver runs its torch build, the process that
    # printed it did not load that driver (a container without GPU access, or a stub).
    host = _machine("ubuntu-rtx4090-driver550-torch-cu124", tmp_path / "host")
    found = explain(CONTAINER_REPORT, host, matrix).findings[0]
    assert found.category is Category.CONTAINER_NO_GPU
    assert "did not load that driver" in " ".join((found.detail or "", *found.evidence))

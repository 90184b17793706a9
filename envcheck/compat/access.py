"""Can this process reach a GPU at all: the judge's access reasons.

A driver version (read from ``/proc/driver/nvidia``) says a kernel module is
loaded somewhere; it does not say this process may use a GPU. Inside a
container started without GPUs the host's module still shows through ``/proc``,
and only the device files (``/dev/nvidiactl``, ``/dev/nvidiaN``) tell (the
runtime's variables are ``rules/env_vars``'s). Under WSL the GPU comes through WSL 2's ``/dev/dxg``;
WSL 1 has no GPU path at all.

``access_reasons(platform)`` returns the judge's ``Reason``
values (the same type every verdict carries) for these facts of the machine
alone, like ``gpu_driver_reasons``. Facts that are unknown (a pasted or flag-made
snapshot never listed /dev) are not judged. Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envcheck.compat.judge import Level, Reason
from envcheck.model.finding import Category

if TYPE_CHECKING:
    from envcheck.model.snapshot import Platform

WSL1 = "wsl1_no_gpu"
WSL_NO_DXG = "wsl_no_dxg"
CONTAINER_NO_DEVICES = "container_no_gpu_devices"

WSL_GUIDE = "https://docs.nvidia.com/cuda/wsl-user-guide/index.html"
WSL_VERSIONS = "https://learn.microsoft.com/en-us/windows/wsl/compare-versions"
TOOLKIT = "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/index.html"
"""The NVIDIA Container Toolkit mounts /dev/nvidia* into a container only when it is
asked for GPUs (``--gpus``, CDI devices, a Kubernetes ``nvidia.com/gpu`` limit)."""


def _nvidia_nodes(nodes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(n for n in nodes if n.startswith("nvidia"))


def access_reasons(platform: Platform) -> tuple[Reason, ...]:
    """Errors (and the evidence for them) that keep every CUDA program on this
    machine from any GPU, whatever its build; empty when nothing known stands in
    the way."""
    reasons: list[Reason] = []
    nodes = platform.gpu_device_nodes
    if platform.wsl and platform.wsl_version == 1:
        reasons.append(
            Reason(
                WSL1,
                Level.ERROR,
                Category.PLATFORM_UNSUPPORTED,
                "the distribution runs under WSL 1, which has no GPU access: CUDA on WSL "
                f"needs WSL 2 (kernel {platform.kernel})",
                (WSL_GUIDE, WSL_VERSIONS),
            )
        )
    elif platform.wsl and nodes is not None and "dxg" not in nodes:
        reasons.append(
            Reason(
                WSL_NO_DXG,
                Level.ERROR,
                Category.NO_DRIVER,
                "WSL 2 offers this distribution no GPU: /dev/dxg, the device the Windows "
                "driver's GPU comes through, is missing",
                (WSL_GUIDE,),
            )
        )
    if platform.container and not platform.wsl and nodes is not None and not _nvidia_nodes(nodes):
        reasons.append(
            Reason(
                CONTAINER_NO_DEVICES,
                Level.ERROR,
                Category.CONTAINER_NO_GPU,
                f"the {platform.container} container has no /dev/nvidia* device files: it was "
                "started without GPU access (a driver version read from /proc is the host's)",
                (TOOLKIT,),
            )
        )
    return tuple(reasons)

"""Rules about the NVIDIA driver: presence, age for each CUDA runtime, NVML mismatch."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from envcheck.compat.driver import NO, driver_supports
from envcheck.model.finding import Category, Finding, Severity
from envcheck.model.versions import parse_cuda_version, parse_driver_version
from envcheck.rules._facts import driver_of, fw_label, target_of

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

NO_DRIVER = "no-driver"
NO_GPU = "no-gpu"
TOOLKIT_NEWER_THAN_DRIVER = "toolkit-newer-than-driver"
NVML_MISMATCH = "nvml-mismatch"
GPU_DROPPED_BY_DRIVER = "gpu-dropped-by-driver"

DRIVER_DOWNLOAD = "https://www.nvidia.com/en-us/drivers/"


def _gpu_frameworks(snapshot: Snapshot) -> list[str]:
    return [fw_label(f) for f in snapshot.frameworks if f.cpu_only is False]


def check_driver_present(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    """No driver or no GPU, on a platform where NVIDIA GPUs can exist."""
    p = snapshot.platform
    if p.os == "darwin" or p.container or p.wsl:
        return  # macOS, containers and WSL2 have rules of their own
    if snapshot.driver.version is not None:
        return
    nvidia = snapshot.nvidia()
    if nvidia is None or any(
        f.build.get("is_cuda_available") == "True" for f in snapshot.frameworks
    ):
        return  # not looked for (a hand-written or pasted report), or CUDA ran: not absent
    driver_errors = tuple(f"{e.probe}: {e.message}" for e in snapshot.errors if e.probe == "driver")
    gpu_fws = _gpu_frameworks(snapshot)
    if snapshot.gpus:
        if not snapshot.observed("driver"):
            return
        yield Finding(
            NO_DRIVER,
            Category.NO_DRIVER,
            Severity.ERROR,
            "GPUs are visible but no working NVIDIA driver was found",
            evidence=(f"gpus = {len(snapshot.gpus)}", "driver.version = unknown", *driver_errors),
            fix=f"Install the NVIDIA driver for your GPU ({DRIVER_DOWNLOAD}), then reboot.",
        )
    elif gpu_fws:
        yield Finding(
            NO_DRIVER,
            Category.NO_GPU,
            Severity.ERROR,
            "CUDA builds are installed but no NVIDIA GPU or driver was found",
            evidence=(*(f"{f} is a CUDA build" for f in gpu_fws), *driver_errors),
            fix=(
                "If this machine has an NVIDIA GPU, install its driver "
                f"({DRIVER_DOWNLOAD}) and reboot; check `lspci | grep -i nvidia`. "
                "If it has none, these frameworks run on the CPU only (envcheck plan "
                "--gpu none picks CPU builds)."
            ),
        )
    else:
        yield Finding(
            NO_GPU,
            Category.NO_GPU,
            Severity.INFO,
            "No NVIDIA GPU or driver found on this machine",
            evidence=("gpus = []", "driver.version = unknown", *driver_errors),
        )


def check_toolkit_driver(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    """A system CUDA toolkit newer than the driver supports (programs it compiles
    fail to start). Framework builds are judged by ``rules.builds``."""
    driver = driver_of(snapshot)
    if driver is None:
        return
    os_name = target_of(snapshot, matrix).driver_os
    for tk in snapshot.cuda_toolkits:
        cuda = parse_cuda_version(tk.version)
        if cuda is None or tk.source in ("pip", "conda"):
            continue
        if driver_supports(matrix, driver, cuda, os_name) == NO:
            req = matrix.driver_requirement(cuda, os_name)
            need = req.floor or req.native
            yield Finding(
                TOOLKIT_NEWER_THAN_DRIVER,
                Category.DRIVER_TOO_OLD,
                Severity.WARNING,
                f"CUDA toolkit {tk.version} at {tk.path} is newer than driver "
                f"{driver.raw} supports",
                evidence=(
                    f"cuda_toolkits: {tk.version} ({tk.source}) at {tk.path}",
                    f"driver.version = {driver.raw}",
                ),
                fix=(
                    "Programs compiled with this nvcc will fail to start; upgrade the "
                    f"driver to {need.raw if need else 'a newer branch'} or use an "
                    "older toolkit."
                ),
                sources=tuple(o.cite() for o in req.origins),
            )


def check_nvml_mismatch(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    """Kernel module and user-space NVIDIA libraries of different versions."""
    d = snapshot.driver
    kernel = parse_driver_version(d.kernel_module_version)
    library = parse_driver_version(d.nvml_library_version)
    mismatch_errors = [
        f"{e.probe}: {e.message}"
        for e in snapshot.errors
        if e.message and "mismatch" in e.message.lower()
    ]
    differs = kernel is not None and library is not None and kernel.key != library.key
    if not differs and not mismatch_errors:
        return
    evidence = []
    if d.kernel_module_version:
        evidence.append(f"kernel module = {d.kernel_module_version}")
    if d.nvml_library_version:
        evidence.append(f"NVML library = {d.nvml_library_version}")
    evidence.extend(mismatch_errors)
    yield Finding(
        NVML_MISMATCH,
        Category.NVML_MISMATCH,
        Severity.ERROR,
        "NVIDIA kernel module and user-space driver libraries differ "
        "(Driver/library version mismatch)",
        evidence=tuple(evidence),
        fix=(
            "The driver was upgraded but the old kernel module is still loaded. Reboot, "
            "or unload and reload it: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset "
            "nvidia && sudo modprobe nvidia"
        ),
    )


def check_retired_gpu(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    """A GPU whose architecture the installed driver branch no longer supports."""
    from envcheck.compat.judge import gpu_driver_reasons

    driver = driver_of(snapshot)
    for reason in gpu_driver_reasons(target_of(snapshot, matrix), matrix):
        yield Finding(
            GPU_DROPPED_BY_DRIVER,
            Category.GPU_ARCH_UNSUPPORTED,
            Severity.ERROR,
            reason.message.split(":")[0],
            evidence=(f"driver.version = {driver.raw if driver else '?'}", reason.message),
            fix=reason.message.split(": ", 1)[-1].capitalize() + ".",
            sources=reason.sources,
        )

"""A container started without GPU access."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from envcheck.model.finding import Category, Finding, Severity

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

CONTAINER_NO_GPU = "container-no-gpu"

_FIXES = {
    "docker": "docker run --gpus all ... (needs the NVIDIA Container Toolkit on the host)",
    "podman": "podman run --device nvidia.com/gpu=all ... (CDI, NVIDIA Container Toolkit)",
    "kubernetes": "request the GPU in the pod spec: resources.limits: nvidia.com/gpu: 1 "
    "(needs the NVIDIA device plugin)",
    "singularity": "singularity exec --nv ...",
    "apptainer": "apptainer exec --nv ...",
}


def check_container(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    """A container without GPU access: judged from its /dev device files and the
    runtime's variables where detection read them (``compat.access``), else from
    seeing neither a driver nor a GPU."""
    from envcheck.compat.access import CONTAINER_NO_DEVICES, access_reasons

    kind = snapshot.platform.container
    if not kind:
        return
    gpu_fws = [f for f in snapshot.frameworks if f.cpu_only is False]
    severity = Severity.ERROR if gpu_fws else Severity.WARNING
    fw_lines = tuple(f"{f.name} {f.version} is a CUDA build" for f in gpu_fws)
    fix = _FIXES.get(kind, "Start the container with GPU access (NVIDIA Container Toolkit).")
    no_devices = next(
        (r for r in access_reasons(snapshot.platform) if r.code == CONTAINER_NO_DEVICES), None
    )
    if no_devices is not None:
        module = snapshot.driver.kernel_module_version or snapshot.driver.version
        seen: tuple[str, ...] = (
            "platform.gpu_device_nodes = none (/dev has no nvidia* device files)",
            *(
                (f"driver {module} is the host's kernel module, seen through /proc",)
                if module
                else ()
            ),
        )
    elif not snapshot.gpus and not snapshot.driver.version:
        seen = ("no NVIDIA driver or GPU visible inside the container",)
    else:
        return
    yield Finding(
        CONTAINER_NO_GPU,
        Category.CONTAINER_NO_GPU,
        severity,
        f"Running in a {kind} container with no GPU passed in",
        evidence=(f"platform.container = {kind}", *seen, *fw_lines),
        fix=fix,
        sources=no_devices.sources if no_devices else (),
        reason=no_devices.code if no_devices else None,
    )

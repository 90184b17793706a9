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
    kind = snapshot.platform.container
    if not kind or snapshot.gpus or snapshot.driver.version:
        return
    gpu_fws = [f for f in snapshot.frameworks if f.cpu_only is False]
    yield Finding(
        CONTAINER_NO_GPU,
        Category.CONTAINER_NO_GPU,
        Severity.ERROR if gpu_fws else Severity.WARNING,
        f"Running in a {kind} container with no GPU passed in",
        evidence=(
            f"platform.container = {kind}",
            "no NVIDIA driver or GPU visible inside the container",
            *(f"{f.name} {f.version} is a CUDA build" for f in gpu_fws),
        ),
        fix=_FIXES.get(kind, "Start the container with GPU access (NVIDIA Container Toolkit)."),
    )

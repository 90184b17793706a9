"""A CPU-only framework build on a machine with an NVIDIA GPU."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from envcheck.model.finding import Category, Finding, Severity
from envcheck.rules._facts import fw_label, target_of
from envcheck.rules._fix import install_fix

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

CPU_ONLY_BUILD = "cpu-only-build"

_WHY = {
    "torch": "a +cpu wheel (or a build without CUDA)",
    "tensorflow": "a CPU-only TensorFlow package",
    "jax": "jax without a CUDA plugin (jax[cuda12] / jax[cuda13])",
    "onnxruntime": "the CPU package onnxruntime instead of onnxruntime-gpu",
    "paddle": "paddlepaddle instead of paddlepaddle-gpu",
    "cupy": "a CuPy without CUDA",
}


def check_cpu_only(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    nvidia = snapshot.nvidia()
    if nvidia is False or snapshot.platform.os == "darwin":
        return
    target = target_of(snapshot, matrix)
    # Frameworks built with CUDA. Where one of them is there, GPU acceleration is
    # set up on this machine and a CPU-only package beside it (onnxruntime is often
    # pulled in as another package's dependency) may be the user's choice: a
    # warning, not an error that fails CI on a healthy machine.
    on_gpu = [fw for fw in snapshot.frameworks if fw.cpu_only is False and fw.name != "keras"]
    for fw in snapshot.frameworks:
        if fw.cpu_only is not True or fw.name == "keras":
            continue
        if fw.name == "tensorflow" and snapshot.platform.os == "windows":
            continue  # native Windows TensorFlow: the platform rule explains it
        fix = install_fix(
            fw.name or "", target, matrix, snapshot.packages, fw.version, fw.package or fw.name
        )
        if not nvidia:
            title = (
                f"{fw_label(fw)} is a CPU-only build: it cannot use an NVIDIA GPU "
                "(whether this machine has one is not known)"
            )
        elif on_gpu:
            title = (
                f"{fw_label(fw)} is a CPU-only build: it runs on the CPU, while "
                f"{', '.join(fw_label(g) for g in on_gpu)} can use the NVIDIA GPU"
            )
        else:
            title = f"{fw_label(fw)} is a CPU-only build on a machine with an NVIDIA GPU"
        yield Finding(
            CPU_ONLY_BUILD,
            Category.CPU_ONLY_BUILD,
            Severity.ERROR if nvidia and not on_gpu else Severity.WARNING,
            title,
            evidence=(
                f"{fw.name}: {_WHY.get(fw.name or '', 'CPU-only build')}"
                + (f" (package {fw.package})" if fw.package else ""),
                f"gpus = {len(snapshot.gpus)}, driver = {snapshot.driver.version or '?'}",
            ),
            fix=(
                f"Replace it with a CUDA build:\n  {fix}"
                if fix
                else f"Replace {fw.package or fw.name} with a CUDA build "
                f"(see `envcheck plan {fw.name}`)."
            ),
            framework=fw.name,
        )

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
    for fw in snapshot.frameworks:
        if fw.cpu_only is not True or fw.name == "keras":
            continue
        if fw.name == "tensorflow" and snapshot.platform.os == "windows":
            continue  # native Windows TensorFlow: the platform rule explains it
        fix = install_fix(fw.name or "", target, matrix, snapshot.packages)
        yield Finding(
            CPU_ONLY_BUILD,
            Category.CPU_ONLY_BUILD,
            Severity.ERROR if nvidia else Severity.WARNING,
            f"{fw_label(fw)} is a CPU-only build on a machine with an NVIDIA GPU"
            if nvidia
            else f"{fw_label(fw)} is a CPU-only build: it cannot use an NVIDIA GPU "
            "(whether this machine has one is not known)",
            evidence=(
                f"{fw.name}: {_WHY.get(fw.name or '', 'CPU-only build')}"
                + (f" (package {fw.package})" if fw.package else ""),
                f"gpus = {len(snapshot.gpus)}, driver = {snapshot.driver.version or '?'}",
            ),
            fix=(
                f"Replace it with a CUDA build:\n  pip uninstall -y {fw.package or fw.name}"
                f"\n  {fix}"
                if fix
                else f"Replace {fw.package or fw.name} with a CUDA build "
                f"(see `envcheck plan {fw.name}`)."
            ),
        )

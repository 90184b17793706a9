"""A CPU-only framework build on a machine with an NVIDIA GPU."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Optional

from envcheck.compat import judge as J
from envcheck.compat.candidate import candidates_for_installed
from envcheck.model.finding import Category, Finding, Severity
from envcheck.rules._facts import fw_label, target_of
from envcheck.rules._fix import install_fix
from envcheck.rules.platform import no_gpu_build_reason

if TYPE_CHECKING:
    from envcheck.compat.target import Target
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Framework, Snapshot

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
        if fw.name == "keras":
            continue
        judged = None if fw.cpu_only is True else _judged_cpu_only(fw, target, matrix)
        if fw.cpu_only is not True and judged is None:
            continue
        if snapshot.platform.os == "windows" and no_gpu_build_reason(fw, snapshot, matrix):
            continue  # no GPU build exists here: the platform rule explains it
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
                *(() if judged is None else (f"the matrix: {judged.message}",)),
                _machine_line(snapshot),
            ),
            sources=() if judged is None else judged.sources,
            fix=(
                f"Replace it with a CUDA build:\n  {fix}"
                if fix
                else f"Replace {fw.package or fw.name} with a CUDA build "
                f"(see `envcheck plan {fw.name}`)."
            ),
            framework=fw.name,
            reason=J.CPU_ONLY,
        )


def _machine_line(snapshot: Snapshot) -> str:
    """The GPUs and driver as evidence; unknown (not 0) where no probe looked."""
    looked = "driver" in snapshot.probes or bool(snapshot.gpus)
    gpus = str(len(snapshot.gpus)) if looked else "unknown"
    return f"gpus = {gpus}, driver = {snapshot.driver.version or ('not found' if looked else 'unknown')}"


def _judged_cpu_only(fw: Framework, target: Target, matrix: Matrix) -> Optional[J.Reason]:
    """The judge's CPU-only reason where every build the installed framework may be
    is CPU-only (onnxruntime 1.18.0 from the ``onnxruntime`` package, with no
    ``cpu_only`` recorded); None otherwise."""
    candidates = candidates_for_installed(fw, matrix, target.platform)
    if not candidates:
        return None
    verdicts = J.judge_set(candidates, target, matrix).verdicts
    found = [v.of(J.CPU_ONLY) for v in verdicts]
    if not all(found):
        return None
    return found[0][0]

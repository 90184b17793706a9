"""Derived facts shared by the rules: GPUs with known capabilities, matched builds.

Everything here is a pure function of (snapshot, matrix).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from envcheck.compat.target import GpuChoice, Target, read_gpu_name, target_from_snapshot
from envcheck.model._frozen import record
from envcheck.model.versions import (
    ComputeCapability,
    CudaVersion,
    DriverVersion,
    parse_compute_capability,
    parse_cuda_version,
    parse_driver_version,
)

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import Build
    from envcheck.model.snapshot import Framework, Gpu, Snapshot

CUDA_FRAMEWORKS = ("torch", "tensorflow", "jax", "cupy", "onnxruntime", "paddle")


@record
class GpuFacts:
    gpu: Gpu
    cc: Optional[ComputeCapability]
    """From the snapshot, else from the matrix by name; None when unknown."""
    architecture: Optional[str]
    inferred: Optional[str] = None
    """What the capability was inferred from ("the family: ...", "the driver: ...")."""
    vendor: Optional[str] = None
    """``amd``, ``intel`` or ``apple`` when the name is another vendor's GPU."""
    choice: Optional[GpuChoice] = None
    """The chips a name shared by several may be, when the capability is not known."""

    @property
    def label(self) -> str:
        name = self.gpu.name or "unknown GPU"
        idx = "" if self.gpu.index is None else f"GPU {self.gpu.index} "
        cc = f" (sm_{self.cc.major}{self.cc.minor})" if self.cc else ""
        return f"{idx}{name}{cc}"


def gpu_facts(snapshot: Snapshot, matrix: Matrix) -> tuple[GpuFacts, ...]:
    out = []
    driver = parse_driver_version(snapshot.driver.version)
    for gpu in snapshot.gpus:
        cc = parse_compute_capability(gpu.compute_capability)
        inferred = vendor = choice = None
        if cc is None and gpu.name:
            from envcheck.matrix.gpu_names import gpu_vendor_of

            vendor = gpu_vendor_of(gpu.name)
            if vendor in (None, "nvidia"):
                reading = read_gpu_name(gpu.name, matrix, driver)
                cc, inferred, choice = reading.cc, reading.basis, reading.choice
        arch_name = gpu.architecture
        if arch_name is None and cc is not None:
            arch = matrix.architecture_for(cc)
            arch_name = arch.name if arch else None
        other = vendor if vendor not in (None, "nvidia") else None
        out.append(GpuFacts(gpu, cc, arch_name, inferred, other, choice))
    return tuple(out)


def target_of(snapshot: Snapshot, matrix: Matrix) -> Target:
    """The snapshot's target, with GPU capabilities filled in from names."""
    return target_from_snapshot(snapshot, matrix)


def framework_cuda(fw: Framework) -> Optional[CudaVersion]:
    return parse_cuda_version(fw.cuda_version)


def matched_build(fw: Framework, snapshot: Snapshot, matrix: Matrix) -> Optional[Build]:
    """The matrix build row that describes an installed framework, if any: the
    first of the judge's candidates for it (``compat.candidate``)."""
    from envcheck.compat.candidate import candidates_for_installed

    platform = target_from_snapshot(snapshot).platform
    for c in candidates_for_installed(fw, matrix, platform):
        if c.build is not None:
            return c.build
    return None


def driver_of(snapshot: Snapshot) -> Optional[DriverVersion]:
    return parse_driver_version(snapshot.driver.version)


def fw_label(fw: Framework) -> str:
    pkg = fw.package or fw.name or "framework"
    return f"{pkg} {fw.version or '(version unknown)'}"

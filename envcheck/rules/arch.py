"""Rules about GPU architectures: is the GPU's compute capability in the build?"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Optional

from envcheck.matrix import code_runs_on
from envcheck.model.finding import Category, Finding, Severity
from envcheck.model.versions import ComputeCapability, parse_compute_capability
from envcheck.rules._facts import fw_label, gpu_facts, matched_build, target_of
from envcheck.rules._fix import install_fix

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

GPU_ARCH_UNSUPPORTED = "gpu-arch-unsupported"
GPU_ARCH_PTX_ONLY = "gpu-arch-ptx-only"
GPU_UNKNOWN = "gpu-unknown"


def parse_arch_list(
    text: Optional[str],
) -> Optional[tuple[tuple[ComputeCapability, ...], tuple[ComputeCapability, ...]]]:
    """``sm_50,sm_60,compute_80`` (TensorFlow's build_info) → (SASS, PTX); None if absent."""
    if not text:
        return None
    sass: list[ComputeCapability] = []
    ptx: list[ComputeCapability] = []
    for item in text.split(","):
        item = item.strip().lower()
        cc = parse_compute_capability(item)
        if cc is None:
            continue
        (ptx if item.startswith("compute_") else sass).append(cc)
    if not sass and not ptx:
        return None
    return tuple(sass), tuple(ptx)


def check_gpu_arch(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    gpus = gpu_facts(snapshot, matrix)
    for g in gpus:
        if g.cc is None:
            yield Finding(
                GPU_UNKNOWN,
                Category.OTHER,
                Severity.WARNING,
                f"Compute capability of {g.gpu.name or 'a GPU'} is unknown",
                evidence=(f"gpus[{g.gpu.index}].name = {g.gpu.name}",),
                fix="Architecture checks were skipped for this GPU; run envcheck with "
                "a working driver (NVML reports the capability) or update the matrix.",
            )
    target = target_of(snapshot, matrix)
    for fw in snapshot.frameworks:
        if fw.cpu_only or fw.cuda_version is None:
            continue
        build = matched_build(fw, snapshot, matrix)
        # The installed build's own list (TensorFlow's build_info.py) beats the matrix.
        own = parse_arch_list(fw.build.get("cuda_compute_capabilities"))
        if own is not None:
            archs, ptx = own
            where = "the installed build_info.py"
        elif build is not None and build.archs is not None:
            archs, ptx = build.archs, build.ptx or ()
            where = f"the matrix ({build.variant})"
        else:
            continue
        built_for = ", ".join(f"sm_{c.major}{c.minor}" for c in archs) + (
            f" + PTX {', '.join(str(p) for p in ptx)}" if ptx else ""
        )
        sources = (build.origin.cite(),) if build is not None and own is None else ()
        for g in gpus:
            if g.cc is None:
                continue
            runs = code_runs_on(archs, ptx, g.cc)
            sass = any(a.major == g.cc.major and a.minor <= g.cc.minor for a in archs)
            if not runs:
                fix = install_fix(fw.name or "", target, matrix, snapshot.packages)
                yield Finding(
                    GPU_ARCH_UNSUPPORTED,
                    Category.GPU_ARCH_UNSUPPORTED,
                    Severity.ERROR,
                    f"{fw_label(fw)} has no kernels for {g.label}",
                    evidence=(
                        f"{g.label}: compute capability {g.cc}",
                        f"{fw_label(fw)} is built for {built_for} (from {where})",
                    ),
                    fix=(
                        f"Install a build compiled for sm_{g.cc.major}{g.cc.minor}:\n  {fix}"
                        if fix
                        else "No build in the matrix runs on this GPU with this driver; "
                        "see `envcheck plan " + (fw.name or "") + " --explain`."
                    ),
                    sources=sources,
                )
            elif not sass:
                yield Finding(
                    GPU_ARCH_PTX_ONLY,
                    Category.GPU_ARCH_UNSUPPORTED,
                    Severity.WARNING,
                    f"{fw_label(fw)} runs on {g.label} only by JIT-compiling PTX",
                    evidence=(f"{fw_label(fw)} is built for {built_for} (from {where})",),
                    fix="Expect a slow first start while kernels compile; install a build "
                    f"with native sm_{g.cc.major}{g.cc.minor} kernels if one exists.",
                    sources=sources,
                )

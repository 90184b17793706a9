"""Rules about GPU architectures: is the GPU's compute capability in the build?"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from envcheck.matrix import build_runs_on
from envcheck.model.finding import Category, Finding, Severity
from envcheck.resolve.constraints import sm_list
from envcheck.rules._facts import fw_label, gpu_facts, matched_build, target_of
from envcheck.rules._fix import install_fix

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

GPU_ARCH_UNSUPPORTED = "gpu-arch-unsupported"
GPU_ARCH_PTX_ONLY = "gpu-arch-ptx-only"
GPU_UNKNOWN = "gpu-unknown"


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
        if build is None or build.archs is None:
            continue
        for g in gpus:
            if g.cc is None:
                continue
            runs = build_runs_on(build, g.cc)
            sass = any(a.major == g.cc.major and a.minor <= g.cc.minor for a in build.archs)
            if runs is False:
                fix = install_fix(fw.name or "", target, matrix, snapshot.packages)
                yield Finding(
                    GPU_ARCH_UNSUPPORTED,
                    Category.GPU_ARCH_UNSUPPORTED,
                    Severity.ERROR,
                    f"{fw_label(fw)} has no kernels for {g.label}",
                    evidence=(
                        f"{g.label}: compute capability {g.cc}",
                        f"{fw_label(fw)} ({build.variant}) is built for {sm_list(build)}"
                        + (f" + PTX {', '.join(str(p) for p in build.ptx)}" if build.ptx else ""),
                    ),
                    fix=(
                        f"Install a build compiled for sm_{g.cc.major}{g.cc.minor}:\n  {fix}"
                        if fix
                        else "No build in the matrix runs on this GPU with this driver; "
                        "see `envcheck plan " + (fw.name or "") + " --explain`."
                    ),
                    sources=(build.origin.cite(),),
                )
            elif runs and not sass:
                yield Finding(
                    GPU_ARCH_PTX_ONLY,
                    Category.GPU_ARCH_UNSUPPORTED,
                    Severity.WARNING,
                    f"{fw_label(fw)} runs on {g.label} only by JIT-compiling PTX",
                    evidence=(f"{fw_label(fw)} is built for {sm_list(build)}",),
                    fix="Expect a slow first start while kernels compile; install a build "
                    f"with native sm_{g.cc.major}{g.cc.minor} kernels if one exists.",
                    sources=(build.origin.cite(),),
                )

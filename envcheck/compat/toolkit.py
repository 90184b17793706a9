"""Does a CUDA toolkit release work on a target: the driver that runs it, and the
GPUs its nvcc can compile for.

``toolkit_verdict`` answers `matrix why cuda==12.4` with the judge's ``Verdict``:
the driver reach (``compat.driver``) and, per GPU, what the release's nvcc lists
(cuda_toolkit rows in cuda_arch.toml): a target it compiles SASS for (warned when
deprecated), a GPU older than every target (dropped: fails), a GPU newer than
every target (only PTX JIT can reach it: a warning). Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envcheck.compat.driver import MINOR_COMPAT, NATIVE, NO, driver_supports, max_cuda_for_driver
from envcheck.compat.judge import (
    DRIVER,
    DRIVER_MINOR_COMPAT,
    DRIVER_UNKNOWN,
    GPU_ARCH,
    GPU_ARCH_UNKNOWN,
    PLATFORM,
    Level,
    Reason,
    Status,
    Verdict,
)
from envcheck.model.finding import Category

if TYPE_CHECKING:
    from envcheck.compat.target import Target
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import CudaRelease


def toolkit_verdict(release: CudaRelease, target: Target, matrix: Matrix) -> Verdict:
    """Whether CUDA ``release`` runs on ``target`` and can compile for its GPUs."""
    from envcheck.compat.candidate import Candidate

    cuda = release.cuda
    reasons: list[Reason] = []
    if target.driver is not None:
        support = driver_supports(matrix, target.driver, cuda, target.driver_os)
        req = matrix.driver_requirement(cuda, target.driver_os)
        sources = tuple(o.cite() for o in req.origins)
        driver = target.driver.raw
        if support == NATIVE and req.native is not None:
            reasons.append(
                Reason(
                    DRIVER,
                    Level.OK,
                    Category.OTHER,
                    f"driver {driver} >= {req.native.raw}, the minimum for CUDA {cuda} on "
                    f"{target.driver_os}",
                    sources,
                )
            )
        elif support == MINOR_COMPAT and req.floor is not None:
            reasons.append(
                Reason(
                    DRIVER_MINOR_COMPAT,
                    Level.WARNING,
                    Category.DRIVER_TOO_OLD,
                    f"driver {driver} is below {req.native.raw if req.native else '?'} "
                    f"but >= {req.floor.raw}: CUDA {cuda} runs through minor-version "
                    "compatibility" + (f" (not covered: {req.caveats[0]})" if req.caveats else ""),
                    sources,
                    subject=req.native.raw if req.native else None,
                )
            )
        elif support == NO:
            need = req.floor or req.native
            top = max_cuda_for_driver(matrix, target.driver, target.driver_os)
            reasons.append(
                Reason(
                    DRIVER,
                    Level.ERROR,
                    Category.DRIVER_TOO_OLD,
                    f"CUDA {cuda} needs driver >= {need.raw if need else '?'} on "
                    f"{target.driver_os}; driver {driver} supports CUDA up to {top or '?'}",
                    sources,
                )
            )
        else:
            reasons.append(
                Reason(
                    DRIVER_UNKNOWN,
                    Level.WARNING,
                    Category.DRIVER_TOO_OLD,
                    f"the matrix does not know the driver CUDA {cuda} needs",
                )
            )
    archs = matrix.toolkit_archs_for(cuda)
    for cc in target.gpus:
        if archs is None:
            reasons.append(
                Reason(
                    GPU_ARCH_UNKNOWN,
                    Level.WARNING,
                    Category.GPU_ARCH_UNSUPPORTED,
                    f"the matrix does not know which GPUs CUDA {cuda} targets",
                )
            )
            continue
        cite = (archs.origin.cite(),)
        known = archs.compute_capabilities
        if cc in known:
            old = cc in archs.deprecated
            reasons.append(
                Reason(
                    GPU_ARCH,
                    Level.WARNING if old else Level.OK,
                    Category.GPU_ARCH_UNSUPPORTED if old else Category.OTHER,
                    f"nvcc {cuda} can target {cc.sm}" + (" (deprecated)" if old else ""),
                    cite,
                )
            )
        elif all(c > cc for c in known):
            reasons.append(
                Reason(
                    GPU_ARCH,
                    Level.ERROR,
                    Category.GPU_ARCH_UNSUPPORTED,
                    f"CUDA {cuda} no longer supports {cc.sm} (oldest: {min(known).sm})",
                    cite,
                )
            )
        elif max(known) < cc:
            reasons.append(
                Reason(
                    GPU_ARCH,
                    Level.WARNING,
                    Category.GPU_ARCH_UNSUPPORTED,
                    f"{cc.sm} is newer than CUDA {cuda} knows (newest {max(known).sm}); only "
                    "PTX JIT can run on it",
                    cite,
                )
            )
        else:
            reasons.append(
                Reason(
                    GPU_ARCH,
                    Level.ERROR,
                    Category.GPU_ARCH_UNSUPPORTED,
                    f"nvcc {cuda} cannot target {cc.sm}",
                    cite,
                )
            )
    if target.os == "macos":
        reasons.append(
            Reason(
                PLATFORM,
                Level.ERROR,
                Category.PLATFORM_UNSUPPORTED,
                "CUDA is not available on macOS",
            )
        )
    failed = any(r.level is Level.ERROR for r in reasons)
    candidate = Candidate(
        framework="cuda", version=str(cuda), package="cuda-toolkit", cuda=cuda, cpu_only=False
    )
    return Verdict(candidate, Status.FAILS if failed else Status.RUNS, tuple(reasons))

"""Does a cuDNN build work with a CUDA release and on a target: ``cudnn_verdict``.

A cuDNN release is built per CUDA major (cudnn.toml rows: the CUDA span it was
built for, the OSes, the minimum driver, the GPUs it supports). Before CUDA 11 a
CUDA minor outside the span fails; from CUDA 11 a newer minor of the same major
runs through CUDA minor-version compatibility (a warning). Answers `matrix why
cudnn==X` with the judge's ``Verdict``. Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from envcheck.compat.judge import (
    DRIVER,
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
    from envcheck.matrix.rows import CudnnRelease
    from envcheck.model.versions import CudaVersion

CUDNN_CUDA = "cudnn_cuda"
"""The cuDNN build against the CUDA release it is used with."""


def cudnn_span(row: CudnnRelease) -> str:
    """``CUDA 12.0 and later 12.x``, ``CUDA 11.0 to 11.8``: what the row was built for."""
    span = f"CUDA {row.cuda_min or f'{row.cuda_major}.x'}"
    if row.cuda_max is None:
        span += f" and later {row.cuda_major}.x"
    elif row.cuda_max != row.cuda_min:
        span += f" to {row.cuda_max}"
    return span


def cudnn_verdict(
    row: CudnnRelease, target: Target, cuda: Optional[CudaVersion], matrix: Matrix
) -> Verdict:
    """Whether cuDNN ``row`` works with CUDA ``cuda`` (None: not given) on ``target``."""
    from envcheck.compat.candidate import Candidate

    cite = (row.origin.cite(),)
    span = cudnn_span(row)
    reasons: list[Reason] = []
    if cuda is not None:
        outside = cuda.major != row.cuda_major or (row.cuda_min is not None and cuda < row.cuda_min)
        # Past the row's newest CUDA is outside too for a CUDA major without minor-version
        # compatibility (cuda_driver.toml's [[minor_compat]] rows: from CUDA 11 on).
        beyond = row.cuda_max is not None and cuda > row.cuda_max
        if outside or (beyond and matrix.minor_compat_for(cuda.major) is None):
            reasons.append(
                Reason(
                    CUDNN_CUDA,
                    Level.ERROR,
                    Category.CUDNN_MISMATCH,
                    f"CUDA {cuda} is outside {span}",
                    cite,
                )
            )
        elif row.cuda_max is not None and cuda > row.cuda_max:
            reasons.append(
                Reason(
                    CUDNN_CUDA,
                    Level.WARNING,
                    Category.CUDNN_MISMATCH,
                    f"CUDA {cuda} is newer than the highest tested ({row.cuda_max}); "
                    f"same major, so it relies on CUDA {cuda.major}.x compatibility",
                    cite,
                )
            )
        else:
            reasons.append(
                Reason(CUDNN_CUDA, Level.OK, Category.OTHER, f"CUDA {cuda} is within {span}", cite)
            )
    if target.os is not None and row.os:
        os_name = "linux" if target.os == "wsl" else target.os
        ok = os_name in row.os
        reasons.append(
            Reason(
                PLATFORM,
                Level.OK if ok else Level.ERROR,
                Category.OTHER if ok else Category.PLATFORM_UNSUPPORTED,
                f"{'available' if ok else 'not available'} for {os_name} (built for {', '.join(row.os)})",
                cite,
            )
        )
    need = row.windows_min_driver if target.driver_os == "windows" else row.linux_min_driver
    if target.driver is not None and need is not None:
        ok = target.driver.key >= need.key
        reasons.append(
            Reason(
                DRIVER,
                Level.OK if ok else Level.ERROR,
                Category.OTHER if ok else Category.DRIVER_TOO_OLD,
                f"driver {target.driver.raw} {'>=' if ok else '<'} {need.raw}, the minimum for this build",
                cite,
            )
        )
    for cc in target.gpus:
        if not row.compute_capabilities:
            reasons.append(
                Reason(
                    GPU_ARCH_UNKNOWN,
                    Level.WARNING,
                    Category.GPU_ARCH_UNSUPPORTED,
                    f"the matrix does not list the GPUs this build supports ({cc.sm} not checked)",
                    cite,
                )
            )
            continue
        ok = cc in row.compute_capabilities or any(
            c.major == cc.major and c.minor <= cc.minor for c in row.compute_capabilities
        )
        reasons.append(
            Reason(
                GPU_ARCH,
                Level.OK if ok else Level.ERROR,
                Category.OTHER if ok else Category.GPU_ARCH_UNSUPPORTED,
                f"{cc.sm} {'is' if ok else 'is not'} among the supported compute capabilities",
                cite,
            )
        )
    failed = any(r.level is Level.ERROR for r in reasons)
    candidate = Candidate(framework="cudnn", version=row.version, package="cudnn", cuda=cuda)
    return Verdict(candidate, Status.FAILS if failed else Status.RUNS, tuple(reasons))

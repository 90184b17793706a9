"""Whether one framework build can run on a target, and why not.

This is the single copy of the constraint logic: the resolver, ``envcheck
check`` and the doctor's fixes all ask it. Pure functions of (build, target,
matrix).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from envcheck.matrix import build_runs_on

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import Build
    from envcheck.resolve.target import Target

DRIVER = "driver"
GPU_ARCH = "gpu_arch"
PYTHON = "python"
PLATFORM = "platform"


@dataclass(frozen=True)
class Blocker:
    """One reason a build cannot run on a target."""

    constraint: str
    """driver, gpu_arch, python or platform."""
    message: str
    sources: tuple[str, ...] = ()


def build_label(build: Build, version: str) -> str:
    suffix = "" if build.variant in ("", "default") else f" ({build.variant})"
    return f"{build.package} {version}{suffix}"


def sm_list(build: Build) -> str:
    if build.archs is None:
        return "unknown architectures"
    return ", ".join(f"sm_{c.major}{c.minor}" for c in build.archs)


def check_build(build: Build, version: str, target: Target, matrix: Matrix) -> tuple[Blocker, ...]:
    """Every constraint of ``target`` that ``build`` violates (empty: it runs)."""
    label = build_label(build, version)
    blockers: list[Blocker] = []
    platform = target.platform
    if platform is not None and build.platforms and platform not in build.platforms:
        where = "native Windows" if target.os == "windows" else platform
        blockers.append(
            Blocker(
                PLATFORM,
                f"{label} has no build for {where}",
                (build.origin.cite(),),
            )
        )
    if target.python is not None and build.python and target.python not in build.python:
        blockers.append(
            Blocker(
                PYTHON,
                f"{label} supports Python {', '.join(build.python)}, not {target.python}",
                (build.origin.cite(),),
            )
        )
    if build.cuda is not None and target.driver is not None:
        support = matrix.driver_supports(target.driver, build.cuda, target.driver_os)
        if support == "no":
            req = matrix.driver_requirement(build.cuda, target.driver_os)
            need = req.floor or req.native
            top = matrix.max_cuda_for_driver(target.driver, target.driver_os)
            top_text = f"supports CUDA up to {top}" if top else "is older than every CUDA row"
            blockers.append(
                Blocker(
                    DRIVER,
                    f"{label} needs CUDA {build.cuda}, which needs driver "
                    f">= {need.raw if need else '?'}; driver {target.driver.raw} {top_text}",
                    tuple(o.cite() for o in req.origins),
                )
            )
    if build.cuda is not None or build.variant.startswith("cu"):
        for cc in target.gpus:
            runs = build_runs_on(build, cc)
            if runs is False:
                blockers.append(
                    Blocker(
                        GPU_ARCH,
                        f"{label} has no kernels for sm_{cc.major}{cc.minor}"
                        f" (built for {sm_list(build)})",
                        (build.origin.cite(),),
                    )
                )
    return tuple(blockers)


def build_caveats(build: Build, target: Target, matrix: Matrix) -> tuple[str, ...]:
    """Things that work but deserve a warning (minor-version compatibility, unknowns)."""
    notes: list[str] = []
    if build.cuda is not None and target.driver is not None:
        support = matrix.driver_supports(target.driver, build.cuda, target.driver_os)
        if support == "minor_compat":
            req = matrix.driver_requirement(build.cuda, target.driver_os)
            notes.append(
                f"runs through CUDA minor-version compatibility (driver below "
                f"{req.native.raw if req.native else '?'}); not covered: "
                + "; ".join(req.caveats[:1])
            )
        elif support is None:
            notes.append(f"the matrix does not know the driver needed for CUDA {build.cuda}")
    if build.cuda is not None and target.gpus and build.archs is None:
        notes.append("the GPU architectures compiled into this build are not in the matrix")
    return tuple(notes)

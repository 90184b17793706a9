"""Whether a driver runs a CUDA release: the judge's driver reach.

The matrix stores the minimum drivers (cuda_driver.toml, driver_branches.toml) and
indexes them (``Matrix.driver_requirement``, ``Matrix.driver_branch``); the
judgements built on them (which CUDA a driver reaches) live here, beside the other
compatibility judgements.

Pure: a function of (driver, CUDA release, OS, matrix).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.versions import CudaVersion, DriverVersion

NATIVE = "native"
MINOR_COMPAT = "minor_compat"
NO = "no"


def driver_supports(
    matrix: Matrix, driver: DriverVersion, cuda: CudaVersion, os_name: str = "linux"
) -> Optional[str]:
    """``native``, ``minor_compat`` or ``no``; None when the matrix cannot tell.

    Native from the CUDA release's own minimum driver; through minor-version
    compatibility from its major's floor; for a CUDA release the matrix does not
    list, against the highest CUDA the driver's branch supports."""
    req = matrix.driver_requirement(cuda, os_name)
    if req.native is not None and driver.key >= req.native.key:
        return NATIVE
    if req.floor is not None and driver.key >= req.floor.key:
        return MINOR_COMPAT
    if req.native is None and req.floor is None:
        top = max_cuda_for_driver(matrix, driver, os_name)
        if top is None:
            return None
        return NATIVE if cuda <= top else NO
    return NO


def max_cuda_for_driver(
    matrix: Matrix, driver: DriverVersion, os_name: str = "linux"
) -> Optional[CudaVersion]:
    """Highest CUDA major.minor the driver supports natively (a CUDA release's own
    minimum driver, or its release branch's highest CUDA); None when unknown."""
    windows = os_name == "windows"
    best: Optional[CudaVersion] = None
    for row in matrix.cuda_releases:
        need = row.windows_min_driver if windows else row.linux_min_driver
        if need is not None and driver.key >= need.key and (best is None or row.cuda > best):
            best = row.cuda
    branch = matrix.driver_branch(matrix.branch_of(driver))
    if branch is not None and (best is None or branch.max_cuda > best):
        best = branch.max_cuda
    return best

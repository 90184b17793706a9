"""Fix text for findings: the resolver's commands (``envcheck.resolve.fix``), indented."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from envcheck.compat.target import Target
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Framework, Snapshot
    from envcheck.model.versions import CudaVersion


def commands_text(commands: Optional[list[str]]) -> Optional[str]:
    """Commands one per line, indented under the finding's first fix line."""
    return "\n  ".join(commands) if commands else None


def install_fix(
    framework: str,
    target: Target,
    matrix: Matrix,
    installed: Optional[Mapping[str, Optional[str]]] = None,
    version: Optional[str] = None,
    replacing: Optional[str] = None,
) -> Optional[str]:
    """Commands installing a GPU build of ``framework`` (and its installed companions,
    e.g. torchvision) that runs on ``target``, replacing the installed ``replacing``
    package: of the user's own release ``version`` where one runs, else the newest;
    None when the matrix has none."""
    # The resolver loads only when a finding needs a fix (most reports need none).
    from envcheck.resolve.fix import replace_build

    return commands_text(replace_build(framework, target, matrix, installed, version, replacing))


def route_fix(
    framework: str, version: Optional[str], target: Target, matrix: Matrix, package: str
) -> Optional[str]:
    """The matrix's route (``[[route]]``) for a release whose own builds cannot run
    on the target's GPUs, as commands; None when none applies."""
    from envcheck.resolve.fix import route_commands

    return commands_text(route_commands(framework, version, target, matrix, package))


def libraries_fix(
    fw: Framework,
    snapshot: Snapshot,
    matrix: Matrix,
    *,
    cudnn: Optional[str] = None,
    cuda: Optional[CudaVersion] = None,
    cudnn_only: bool = False,
) -> str:
    """The resolver's commands that give ``fw`` the CUDA libraries (``cudnn`` and, unless
    ``cudnn_only``, the runtime of ``cuda``) it loads from the system on this target."""
    from envcheck.rules._facts import framework_cuda

    cuda = cuda or framework_cuda(fw)
    try:
        commands = _supply(fw, snapshot, matrix, cudnn, cuda, cudnn_only)
    except Exception:  # noqa: BLE001 - a fix suggestion must never break the doctor
        return f"Install the CUDA libraries {fw.package or fw.name} {fw.version or ''} loads."
    what = f"cuDNN {cudnn}" if cudnn_only and cudnn else "the CUDA libraries"
    lead = f"Install {what} {fw.package or fw.name} {fw.version or ''} loads, where it looks:"
    return " ".join(lead.split()) + "\n  " + "\n  ".join(commands)


def _supply(
    fw: Framework,
    snapshot: Snapshot,
    matrix: Matrix,
    cudnn: Optional[str],
    cuda: Optional[CudaVersion],
    cudnn_only: bool,
) -> list[str]:
    from envcheck.resolve.fix import supply_libraries
    from envcheck.rules._facts import target_of

    return supply_libraries(
        fw.name or "",
        fw.package or fw.name or "",
        fw.version,
        cuda.major if cuda else None,
        cudnn,
        target_of(snapshot, matrix),
        matrix,
        env_kind=snapshot.python.env_kind,
        installed=snapshot.packages,
        cudnn_only=cudnn_only,
    )


def reinstall_fix(fw: Framework, snapshot: Snapshot, matrix: Matrix) -> Optional[str]:
    """Reinstall ``fw``'s build with the pip dependencies that bring its CUDA libraries."""
    from envcheck.resolve.fix import reinstall
    from envcheck.rules._facts import target_of

    if not fw.name or not fw.version:
        return None
    commands = reinstall(
        fw.name, fw.version, target_of(snapshot, matrix), matrix, snapshot.packages
    )
    text = commands_text(commands)
    return f"Reinstall {fw.package or fw.name} with its dependencies:\n  {text}" if text else None


def plan_fix(
    requests: list[str], target: Target, snapshot: Snapshot, matrix: Matrix, replacing: str
) -> Optional[str]:
    """The resolver's commands installing ``requests`` on ``target`` in place of
    ``replacing`` (conda where the wheels lack their CUDA libraries)."""
    from envcheck.resolve.fix import install_commands

    return commands_text(
        install_commands(
            requests,
            target,
            matrix,
            env_kind=snapshot.python.env_kind,
            installed=snapshot.packages,
            replacing=replacing,
        )
    )

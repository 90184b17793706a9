"""Fix text for findings: exact install commands, chosen by the resolver."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from envcheck.compat.target import Target
    from envcheck.matrix import Matrix


def install_fix(
    framework: str,
    target: Target,
    matrix: Matrix,
    installed: Optional[Mapping[str, Optional[str]]] = None,
    version: Optional[str] = None,
) -> Optional[str]:
    """pip commands installing a GPU build of ``framework`` (and its installed
    companions, e.g. torchvision) that runs on ``target``: of the user's own
    release ``version`` where one runs, else the newest; None when the matrix
    has none."""
    # The resolver loads only when a finding needs a fix (most reports need none).
    from envcheck import names
    from envcheck.resolve.emit import emit_pip
    from envcheck.resolve.plan import plan

    package = names.GPU_PACKAGE.get(framework, framework)
    companions = [c for c in names.COMPANIONS.get(framework, ()) if installed and c in installed]
    tries = [[package, *companions]]
    if version:
        tries.insert(0, [f"{package}=={version.split('+')[0]}", *companions])
    text = None
    for requests in tries:
        try:
            result = plan(requests, target, matrix)
        except Exception:  # noqa: BLE001, S112 - a fix suggestion must never break the doctor
            continue
        if result.ok:
            text = emit_pip(result)
            break
    if text is None:
        return None
    commands = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return "\n  ".join(commands) or None

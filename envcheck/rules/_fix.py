"""Fix text for findings: exact install commands, chosen by the resolver."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.resolve.target import Target

PACKAGE_OF = {
    "torch": "torch",
    "tensorflow": "tensorflow",
    "jax": "jax",
    "cupy": "cupy",
    "onnxruntime": "onnxruntime-gpu",
    "paddle": "paddlepaddle-gpu",
}
COMPANIONS = {"torch": ("torchvision", "torchaudio")}


def install_fix(
    framework: str,
    target: Target,
    matrix: Matrix,
    installed: Optional[Mapping[str, str]] = None,
) -> Optional[str]:
    """pip commands installing the newest GPU build of ``framework`` (and its
    installed companions, e.g. torchvision) that runs on ``target``; None when
    the matrix has none."""
    # The resolver loads only when a finding needs a fix (most reports need none).
    from envcheck.resolve.emit import emit_pip
    from envcheck.resolve.plan import plan

    requests = [PACKAGE_OF.get(framework, framework)]
    requests += [c for c in COMPANIONS.get(framework, ()) if installed and c in installed]
    try:
        result = plan(requests, target, matrix)
        if not result.ok:
            return None
        text = emit_pip(result)
    except Exception:  # noqa: BLE001 - a fix suggestion must never break the doctor
        return None
    commands = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return "\n  ".join(commands) or None

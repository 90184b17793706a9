"""Fix text for findings: exact install commands chosen by the resolver's constraints."""

from __future__ import annotations

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


def install_fix(framework: str, target: Target, matrix: Matrix) -> Optional[str]:
    """A pip command installing the newest GPU build of ``framework`` that runs on
    ``target``, or None when the matrix has none."""
    try:
        from envcheck.resolve.emit import emit_pip
        from envcheck.resolve.plan import plan
    except ImportError:  # pragma: no cover - the resolver ships with envcheck
        return None
    try:
        result = plan([PACKAGE_OF.get(framework, framework)], target, matrix)
    except Exception:  # noqa: BLE001 - a fix suggestion must never break the doctor
        return None
    if not getattr(result, "ok", False):
        return None
    try:
        return emit_pip(result).strip()
    except Exception:  # noqa: BLE001
        return None

"""Findings: what the doctor (and explain) report about a snapshot."""

from __future__ import annotations

import enum
from typing import Any, Optional

from envcheck.model._frozen import record


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


class Category(str, enum.Enum):
    """The finding categories of the doctor's public JSON contract."""

    NO_GPU = "no_gpu"
    NO_DRIVER = "no_driver"
    DRIVER_TOO_OLD = "driver_too_old"
    GPU_ARCH_UNSUPPORTED = "gpu_arch_unsupported"
    CPU_ONLY_BUILD = "cpu_only_build"
    CUDNN_MISMATCH = "cudnn_mismatch"
    CUDA_RUNTIME_MISSING = "cuda_runtime_missing"
    LIB_PATH_CONFLICT = "lib_path_conflict"
    NVML_MISMATCH = "nvml_mismatch"
    PLATFORM_UNSUPPORTED = "platform_unsupported"
    ENV_VAR_HIDES_GPU = "env_var_hides_gpu"
    CONTAINER_NO_GPU = "container_no_gpu"
    PYTHON_UNSUPPORTED = "python_unsupported"
    MIXED_WHEELS = "mixed_wheels"
    CAPABILITY = "capability"
    OTHER = "other"


@record
class Finding:
    """One diagnosis: a stable id, what was seen (evidence) and how to fix it."""

    id: str
    """Stable identifier, e.g. ``driver-too-old-for-cuda``."""
    category: Category
    severity: Severity
    title: str
    """One line."""
    evidence: tuple[str, ...] = ()
    """The facts that led to the finding (``driver.version = 535.104.05``)."""
    fix: Optional[str] = None
    """What to do; exact commands where a command fixes it."""
    detail: Optional[str] = None
    sources: tuple[str, ...] = ()
    """Matrix source URLs behind the finding."""
    framework: Optional[str] = None
    """The installed framework the finding judges (``torch``); None for findings
    about the machine as a whole."""
    reason: Optional[str] = None
    """The judge's reason code the finding reports (``compat.judge``: ``driver``,
    ``gpu_arch``, ``platform``; ``compat.access``: ``container_no_gpu_devices``);
    None for findings no verdict decided."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "category": self.category.value,
            "severity": self.severity.value,
            "title": self.title,
            "evidence": list(self.evidence),
            "fix": self.fix,
            "detail": self.detail,
            "sources": list(self.sources),
            "framework": self.framework,
            "reason": self.reason,
        }


def sort_findings(findings: list[Finding]) -> tuple[Finding, ...]:
    """Most important first: errors, then warnings, then info; stable within."""
    return tuple(sorted(findings, key=lambda f: f.severity.rank))

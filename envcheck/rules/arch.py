"""A GPU whose compute capability is unknown (builds are judged by ``rules.builds``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from envcheck.model.finding import Category, Finding, Severity
from envcheck.rules._facts import gpu_facts

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

GPU_UNKNOWN = "gpu-unknown"
GPU_SEVERAL_CHIPS = "gpu-several-chips"


def check_gpu_known(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    """A GPU whose compute capability neither the snapshot nor the matrix knows."""
    gpus = gpu_facts(snapshot, matrix)
    for g in gpus:
        if g.choice is not None:
            from envcheck.compat.target import HOW_TO_TELL_CC

            yield Finding(
                GPU_SEVERAL_CHIPS,
                Category.OTHER,
                Severity.INFO,
                f"{g.choice.describe()}: NVIDIA sold this name with {len(g.choice.chips)} "
                "chips, so its compute capability is not known",
                evidence=(f"gpus[{g.gpu.index}].name = {g.gpu.name}",),
                fix=f"Builds were judged for every chip; {HOW_TO_TELL_CC}.",
                sources=(g.choice.source,) if g.choice.source else (),
            )
        elif g.cc is None and g.vendor is None:  # another vendor's GPU: gpu-not-nvidia says it
            yield Finding(
                GPU_UNKNOWN,
                Category.OTHER,
                Severity.WARNING,
                f"Compute capability of {g.gpu.name or 'a GPU'} is unknown",
                evidence=(f"gpus[{g.gpu.index}].name = {g.gpu.name}",),
                fix="Architecture checks were skipped for this GPU; run envcheck with "
                "a working driver (NVML reports the capability) or update the matrix.",
            )

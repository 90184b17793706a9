"""Environment variables that hide GPUs from CUDA or from the container runtime."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from envcheck.model.finding import Category, Finding, Severity

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

CUDA_VISIBLE_DEVICES_HIDES = "cuda-visible-devices-hides-gpus"
NVIDIA_VISIBLE_DEVICES_NONE = "nvidia-visible-devices-none"
NVIDIA_CAPABILITIES_NO_COMPUTE = "nvidia-driver-capabilities-no-compute"


def _visible_entries(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def check_visible_devices(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    env = snapshot.env
    value = env.get("CUDA_VISIBLE_DEVICES")
    if value is not None:
        entries = _visible_entries(value)
        count = len(snapshot.gpus)
        uuids = {g.uuid for g in snapshot.gpus if g.uuid}
        hides_all = False
        reason = ""
        first = entries[0] if entries else ""
        if not entries:
            hides_all, reason = True, "it is empty"
        elif first.lstrip("-").isdigit() and int(first) < 0:
            hides_all, reason = True, f"{first} is not a device index"
        elif first.isdigit():
            # CUDA stops at the first invalid index, so later entries are ignored.
            if count and int(first) >= count:
                hides_all, reason = True, f"index {first} does not exist ({count} GPUs)"
        elif first.startswith("MIG-"):
            pass  # MIG instance UUIDs are not in the snapshot: cannot tell
        elif first.startswith("GPU-"):
            if uuids and not any(u.startswith(first) for u in uuids):
                hides_all, reason = True, f"{first} matches no GPU UUID"
        else:
            # Neither an index nor a UUID (-1's siblings: none, void, NoDevFiles, a
            # typo): CUDA's parser stops at it and exposes no device at all.
            hides_all, reason = True, f"{first!r} is neither a device index nor a GPU UUID"
        if hides_all:
            yield Finding(
                CUDA_VISIBLE_DEVICES_HIDES,
                Category.ENV_VAR_HIDES_GPU,
                Severity.ERROR,
                f"CUDA_VISIBLE_DEVICES hides every GPU ({reason})",
                evidence=(f"CUDA_VISIBLE_DEVICES={value!r}", f"gpus = {count}"),
                fix="unset CUDA_VISIBLE_DEVICES  (or set it to valid indices, e.g. 0,1)",
            )
    nvd = env.get("NVIDIA_VISIBLE_DEVICES")
    if nvd is not None and nvd.strip().lower() in ("none", "void", ""):
        yield Finding(
            NVIDIA_VISIBLE_DEVICES_NONE,
            Category.ENV_VAR_HIDES_GPU,
            Severity.ERROR if not snapshot.gpus else Severity.WARNING,
            f"NVIDIA_VISIBLE_DEVICES={nvd!r} asks the container runtime for no GPU",
            evidence=(f"NVIDIA_VISIBLE_DEVICES={nvd!r}",),
            fix="Start the container with NVIDIA_VISIBLE_DEVICES=all (or --gpus all).",
        )
    caps = env.get("NVIDIA_DRIVER_CAPABILITIES")
    if caps is not None:
        parts = {c.strip().lower() for c in caps.split(",")}
        if "all" not in parts and "compute" not in parts:
            yield Finding(
                NVIDIA_CAPABILITIES_NO_COMPUTE,
                Category.ENV_VAR_HIDES_GPU,
                Severity.WARNING,
                "NVIDIA_DRIVER_CAPABILITIES lacks 'compute': CUDA libraries are not "
                "mounted into the container",
                evidence=(f"NVIDIA_DRIVER_CAPABILITIES={caps!r}",),
                fix="Set NVIDIA_DRIVER_CAPABILITIES=compute,utility (or all).",
            )

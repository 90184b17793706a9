"""Environment variables that hide GPUs from CUDA or from the container runtime.

On a machine where detection found no NVIDIA GPU and no driver (``nvidia()``
is False: observed absent, not unknown), a hiding variable hides nothing: CPU
CI images set ``CUDA_VISIBLE_DEVICES=`` or ``-1`` on purpose. There each
finding is information; with a GPU or a driver present, or when that is not
known (a hand-written snapshot), it keeps its severity.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Optional

from envcheck.model.finding import Category, Finding, Severity

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

CUDA_VISIBLE_DEVICES_HIDES = "cuda-visible-devices-hides-gpus"
NVIDIA_VISIBLE_DEVICES_NONE = "nvidia-visible-devices-none"
NVIDIA_CAPABILITIES_NO_COMPUTE = "nvidia-driver-capabilities-no-compute"


def _visible_entries(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


CPU_ONLY_NOTE = "no NVIDIA GPU or driver was found on this machine, so it hides nothing here"
CPU_ONLY_TIP = "Nothing to do on a CPU-only machine; unset it where a GPU should be used."


def hiding_reason(value: str, count: int, uuids: set[str]) -> Optional[str]:
    """Why CUDA_VISIBLE_DEVICES=``value`` exposes no device on a machine with ``count``
    GPUs (0: not known) whose UUIDs are ``uuids``; None when it names one, or when that
    cannot be told (an index on a machine whose GPUs are unknown, a MIG instance)."""
    entries = _visible_entries(value)
    first = entries[0] if entries else ""
    if not entries:
        return "it is empty"
    if first.lstrip("-").isdigit() and int(first) < 0:
        return f"{first} is not a device index"
    if first.isdigit():
        # CUDA stops at the first invalid index, so later entries are ignored.
        if count and int(first) >= count:
            return f"index {first} does not exist ({count} GPU{'s' if count != 1 else ''})"
        return None
    if first.startswith("MIG-"):
        return None  # MIG instance UUIDs are not in the snapshot: cannot tell
    if first.startswith("GPU-"):
        if uuids and not any(u.startswith(first) for u in uuids):
            return f"{first} matches no GPU UUID"
        return None
    # Neither an index nor a UUID (-1's siblings: none, void, NoDevFiles, a typo): CUDA's
    # parser stops at it and exposes no device at all.
    return f"{first!r} is neither a device index nor a GPU UUID"


def check_visible_devices(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    env = snapshot.env
    cpu_only = snapshot.nvidia() is False
    value = env.get("CUDA_VISIBLE_DEVICES")
    if value is not None:
        count = len(snapshot.gpus)
        reason = hiding_reason(value, count, {g.uuid for g in snapshot.gpus if g.uuid})
        hides_all = reason is not None
        if hides_all and cpu_only:
            yield Finding(
                CUDA_VISIBLE_DEVICES_HIDES,
                Category.ENV_VAR_HIDES_GPU,
                Severity.INFO,
                f"CUDA_VISIBLE_DEVICES would hide every GPU ({reason})",
                evidence=(f"CUDA_VISIBLE_DEVICES={value!r}", CPU_ONLY_NOTE),
                fix=CPU_ONLY_TIP,
            )
        elif hides_all:
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
        if cpu_only:
            severity = Severity.INFO
        else:
            severity = Severity.ERROR if not snapshot.gpus else Severity.WARNING
        yield Finding(
            NVIDIA_VISIBLE_DEVICES_NONE,
            Category.ENV_VAR_HIDES_GPU,
            severity,
            f"NVIDIA_VISIBLE_DEVICES={nvd!r} asks the container runtime for no GPU",
            evidence=(f"NVIDIA_VISIBLE_DEVICES={nvd!r}",) + ((CPU_ONLY_NOTE,) if cpu_only else ()),
            fix=CPU_ONLY_TIP
            if cpu_only
            else "Start the container with NVIDIA_VISIBLE_DEVICES=all (or --gpus all).",
        )
    caps = env.get("NVIDIA_DRIVER_CAPABILITIES")
    # Empty is the runtime's default, "utility,compute" (NVIDIA Container Toolkit,
    # "Driver Capabilities").
    if caps is not None and caps.strip():
        parts = {c.strip().lower() for c in caps.split(",")}
        if "all" not in parts and "compute" not in parts:
            yield Finding(
                NVIDIA_CAPABILITIES_NO_COMPUTE,
                Category.ENV_VAR_HIDES_GPU,
                Severity.INFO if cpu_only else Severity.WARNING,
                "NVIDIA_DRIVER_CAPABILITIES lacks 'compute': CUDA libraries are not "
                "mounted into the container",
                evidence=(f"NVIDIA_DRIVER_CAPABILITIES={caps!r}",)
                + ((CPU_ONLY_NOTE,) if cpu_only else ()),
                fix=CPU_ONLY_TIP
                if cpu_only
                else "Set NVIDIA_DRIVER_CAPABILITIES=compute,utility (or all).",
            )

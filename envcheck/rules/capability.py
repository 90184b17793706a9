"""What the hardware can do: Tensor Cores, bf16, fp8, memory, PCIe link state."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from envcheck.model.finding import Category, Finding, Severity
from envcheck.rules._facts import gpu_facts

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot
    from envcheck.model.versions import ComputeCapability

GPU_CAPABILITIES = "gpu-capabilities"
PCIE_LINK_DEGRADED = "pcie-link-degraded"
MULTI_GPU = "multi-gpu"
GPU_LEGACY_CUDA = "gpu-legacy-cuda"
GPU_NOT_NVIDIA = "gpu-not-nvidia"


def _features(flags: list[tuple[str, bool | None]]) -> str:
    have = [name for name, on in flags if on]
    return ", ".join(have) if have else "no Tensor Cores"


def check_capability(snapshot: Snapshot, matrix: Matrix) -> Iterator[Finding]:
    gpus = gpu_facts(snapshot, matrix)
    for g in gpus:
        if g.vendor is not None:
            from envcheck.compat.target import non_nvidia_message

            yield Finding(
                GPU_NOT_NVIDIA,
                Category.CAPABILITY,
                Severity.WARNING,
                f"{g.label} is not an NVIDIA GPU: envcheck checks NVIDIA CUDA stacks only",
                evidence=(f"GPU name {g.gpu.name!r}",),
                fix=non_nvidia_message(g.gpu.name or "this GPU", g.vendor).split("; ", 1)[-1],
            )
            continue
        arch = matrix.architecture_for(g.cc) if g.cc else None
        evidence = [f"compute capability {g.cc or '?'}"]
        unknown = "unknown architecture"
        if g.cc is None and g.choice is not None:
            # A name sold on several chips: each chip's architecture, none for sure.
            found = (matrix.architecture_for(cc) for _, cc in g.choice.chips)
            names = list(dict.fromkeys(a.name for a in found if a is not None))
            evidence[0] = "compute capability " + " or ".join(str(cc) for _, cc in g.choice.chips)
            unknown = " or ".join(names) or unknown
        if g.inferred:
            evidence[0] += f" (inferred from {g.inferred})"
        if g.gpu.memory_total_mib is not None:
            evidence.append(f"memory {g.gpu.memory_total_mib / 1024:.1f} GiB")
        if arch is not None:
            feats = _features(
                [
                    ("Tensor Cores", arch.tensor_cores),
                    ("TF32", arch.tf32),
                    ("bf16", arch.bf16),
                    ("fp8", arch.fp8),
                    ("fast fp16", arch.fp16_fast),
                ]
            )
            evidence.append(f"{arch.name}: {feats}")
            advice = (
                "Use bf16 autocast for training (torch.autocast('cuda', dtype=torch.bfloat16))."
                if arch.bf16
                else "Use fp16 mixed precision with loss scaling."
                if arch.tensor_cores
                else "No Tensor Cores: mixed precision brings little speed-up here."
            )
        else:
            advice = None
        if g.cc is not None:
            yield from _legacy(g.label, g.cc, matrix)
        elif g.choice is not None:
            # Legacy whatever the chip: even the newest one it may be.
            yield from _legacy(g.choice.describe(), max(cc for _, cc in g.choice.chips), matrix)
        yield Finding(
            GPU_CAPABILITIES,
            Category.CAPABILITY,
            Severity.INFO,
            f"{g.label}: " + (arch.name if arch else unknown),
            evidence=tuple(evidence),
            fix=advice,
            sources=(arch.origin.cite(),) if arch else (),
        )
        gen, width = g.gpu.pcie_generation, g.gpu.pcie_width
        max_gen, max_width = g.gpu.pcie_max_generation, g.gpu.pcie_max_width
        if width is not None and max_width is not None and width < max_width:
            yield Finding(
                PCIE_LINK_DEGRADED,
                Category.CAPABILITY,
                Severity.WARNING,
                f"{g.label}: PCIe link runs at x{width} of x{max_width} lanes",
                evidence=(f"PCIe Gen{gen} x{width} (max Gen{max_gen} x{max_width})",),
                fix="Reseat the card or move it to a full-width slot; check riser cables "
                "and BIOS lane settings. (A lower PCIe generation at idle is normal power "
                "saving; a lower lane count is not.)",
            )
    if len(gpus) > 1:
        names = sorted({g.gpu.name or "?" for g in gpus})
        yield Finding(
            MULTI_GPU,
            Category.CAPABILITY,
            Severity.INFO if len(names) == 1 else Severity.WARNING,
            f"{len(gpus)} GPUs"
            + ("" if len(names) == 1 else f" of different models ({', '.join(names)})"),
            evidence=tuple(g.label for g in gpus),
            fix=None
            if len(names) == 1
            else "Mixed GPUs: a build must include every GPU's architecture; use "
            "CUDA_VISIBLE_DEVICES to pick one model for a job.",
        )


def _legacy(label: str, cc: ComputeCapability, matrix: Matrix) -> Iterator[Finding]:
    """A GPU that no CUDA release current framework builds use can target (data:
    cuda_arch.toml for the toolkits, the framework files for what they use)."""
    current = matrix.oldest_current_cuda()
    rows = matrix.toolkit_archs
    if current is None or not rows:
        return
    in_use = matrix.toolkit_archs_for(current)
    if (
        in_use is None
        or not in_use.compute_capabilities
        or cc >= min(in_use.compute_capabilities)  # supported, or newer than that toolkit
    ):
        return
    last = matrix.last_cuda_for(cc)
    first = min(r.cuda for r in rows)
    since = f"the last one was CUDA {last}" if last else f"none since CUDA {first} does"
    yield Finding(
        GPU_LEGACY_CUDA,
        Category.GPU_ARCH_UNSUPPORTED,
        Severity.WARNING,
        f"{label}: no CUDA release that current frameworks use supports {cc.sm}; {since}",
        evidence=(
            f"the newest framework releases use CUDA {current} and newer",
            f"CUDA {in_use.cuda}'s nvcc targets {min(in_use.compute_capabilities).sm} and newer",
        ),
        fix=(
            f"Only framework builds for CUDA {last} or older can carry {cc.sm} code, and "
            f"few do: `envcheck plan "
            f"FRAMEWORK --gpu {cc.sm}` says which release still runs, else build from source"
            if last
            else "Use a newer GPU: current CUDA toolkits cannot target this one"
        ),
        sources=(in_use.origin.cite(),),
    )

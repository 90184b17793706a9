"""The snapshot as text: tables for a terminal (rich) or plain text (pipes)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from envcheck.render.blocks import Block, Table, emit

if TYPE_CHECKING:
    from envcheck.model.snapshot import Gpu, Platform, Snapshot

GpuLookup = Callable[[str], Optional[tuple[str, str]]]
"""GPU name → (compute capability, architecture) from the matrix, or None."""


def _v(value: object) -> str:
    """A fact for display; unknown facts show as a dash."""
    if value is None or value == "":
        return "-"
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return str(value)


def _kv_table(title: str, rows: list[tuple[str, object]]) -> Table:
    return Table(title, None, [[key, _v(value)] for key, value in rows])


def _table(title: str, headers: list[str], rows: list[list[object]]) -> Table:
    return Table(title, headers, [[_v(c) for c in row] for row in rows])


def _container(snapshot: Snapshot) -> str:
    """``container`` null means "none found" only where detection looked (Linux)."""
    p = snapshot.platform
    if p.container:
        return p.container
    if snapshot.source == "detect" and p.os == "linux":
        return "none detected"
    return "unknown"


def _gpu_cc_arch(gpu: Gpu, lookup: Optional[GpuLookup]) -> tuple[Optional[str], Optional[str]]:
    """The GPU's CC and architecture; from its name (marked) when not reported."""
    cc, arch = gpu.compute_capability, gpu.architecture
    if (cc and arch) or lookup is None or not gpu.name:
        return cc, arch
    found = lookup(gpu.name)
    if found is None:
        return cc, arch
    return cc or f"{found[0]} (by name)", arch or f"{found[1]} (by name)"


def _wsl(p: Platform) -> object:
    """no, yes, or which WSL (WSL 1 has no GPU); None (shown as unknown) when not known."""
    if p.wsl and p.wsl_version:
        return f"WSL {p.wsl_version}"
    return p.wsl


def _devices(p: Platform) -> Optional[str]:
    """The GPU device files in /dev; None (unknown) when /dev was not looked at."""
    if p.gpu_device_nodes is None:
        return None
    return ", ".join(f"/dev/{n}" for n in p.gpu_device_nodes) or "none in /dev"


def snapshot_sections(snapshot: Snapshot, gpu_lookup: Optional[GpuLookup] = None) -> list[Block]:
    """The tables describing a snapshot, in reading order."""
    p, py, d = snapshot.platform, snapshot.python, snapshot.driver
    distro = " ".join(x for x in (p.distro, p.distro_version) if x) or None
    sections: list[Block] = [
        _kv_table(
            "System",
            [
                ("OS", " ".join(x for x in (p.os, p.arch) if x) or None),
                ("Distribution", distro),
                ("Kernel", p.kernel),
                ("glibc", p.glibc),
                ("WSL", _wsl(p)),
                ("Container", _container(snapshot)),
                ("GPU devices", _devices(p)),
                ("Python", f"{_v(py.version)} ({_v(py.implementation)})"),
                ("Interpreter", py.executable),
                (
                    "Environment",
                    " ".join(x for x in (py.env_kind, py.conda_env) if x) or None,
                ),
            ],
        ),
        _kv_table(
            "NVIDIA driver",
            [
                ("Version", d.version),
                ("Max CUDA", d.cuda_version),
                ("Kernel module", d.kernel_module_version),
                ("NVML library", d.nvml_library_version),
                ("Source", d.source),
            ],
        ),
    ]
    if snapshot.gpus:
        sections.append(
            _table(
                "GPUs",
                ["#", "Name", "CC", "Architecture", "Memory", "MIG", "PCIe"],
                [
                    [
                        g.index,
                        g.name,
                        *_gpu_cc_arch(g, gpu_lookup),
                        None if g.memory_total_mib is None else f"{g.memory_total_mib} MiB",
                        g.mig_mode,
                        None
                        if g.pcie_generation is None
                        else f"Gen{g.pcie_generation} x{_v(g.pcie_width)}",
                    ]
                    for g in snapshot.gpus
                ],
            )
        )
    else:
        sections.append(_kv_table("GPUs", [("Detected", "none")]))
    if snapshot.cuda_toolkits:
        sections.append(
            _table(
                "CUDA toolkits",
                ["Version", "Path", "Source"],
                [[t.version, t.path, t.source] for t in snapshot.cuda_toolkits],
            )
        )
    if snapshot.libraries:
        sections.append(
            _table(
                "CUDA libraries",
                ["Library", "Version", "Source", "Path"],
                [[lib.name, lib.version, lib.source, lib.path] for lib in snapshot.libraries],
            )
        )
    if snapshot.frameworks:
        sections.append(
            _table(
                "Frameworks",
                ["Name", "Version", "Package", "CUDA", "cuDNN", "CPU only"],
                [
                    [
                        f.name,
                        f.version,
                        f.package,
                        f.cuda_shown,
                        f.cudnn_version,
                        f.cpu_only,
                    ]
                    for f in snapshot.frameworks
                ],
            )
        )
    if snapshot.env:
        sections.append(
            _kv_table(
                "Environment variables",
                [(k, _shorten(v, ENV_VALUE_WIDTH)) for k, v in snapshot.env.items()],
            )
        )
    if snapshot.errors:
        sections.append(
            _table(
                "Probe errors",
                ["Probe", "Message"],
                [[e.probe, e.message] for e in snapshot.errors],
            )
        )
        sections.extend(
            stderr_tail_block(f"{e.probe} probe", e.detail) for e in snapshot.errors if e.detail
        )
    return sections


def stderr_tail_block(label: str, tail: str) -> str:
    """A failed child's stderr tail, indented under a label (plain text: markup
    is off on every console, so brackets in a traceback stay as they are)."""
    lines = tail.splitlines()
    return "\n".join(
        [f"  {label}: end of stderr ({len(lines)} lines)"] + [f"    {x}" for x in lines]
    )


# nvidia/cuda container images set NVIDIA_REQUIRE_CUDA to a list of ~2 000 characters;
# the text report shows the start of such a value, --json all of it.
ENV_VALUE_WIDTH = 160


def _shorten(value: str, width: int) -> str:
    if len(value) <= width:
        return value
    return f"{value[: width - 40].rstrip()} ... ({len(value)} characters; --json shows all)"


def render_snapshot(snapshot: Snapshot, console: Any, title: Optional[str] = None) -> None:
    """Print the snapshot on a rich Console or a ``PlainConsole``."""
    if title:
        emit(console, title)
    for section in snapshot_sections(snapshot):
        emit(console, section)
        emit(console, "")


def matrix_gpu_lookup(matrix: Any) -> GpuLookup:
    """A ``GpuLookup`` over the matrix's GPU table (exact names and families)."""

    def lookup(name: str) -> Optional[tuple[str, str]]:
        match = matrix.gpu_match(name)
        if match is None:
            return None
        return str(match.compute_capability), match.architecture

    return lookup

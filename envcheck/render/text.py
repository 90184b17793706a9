"""Terminal rendering with rich (imported lazily by the callers' modules)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from rich.console import Console

    from envcheck.model.snapshot import Snapshot


def _v(value: object) -> str:
    """A fact for display; unknown facts show as a dash."""
    if value is None or value == "":
        return "-"
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return str(value)


def _kv_table(title: str, rows: list[tuple[str, object]]) -> object:
    from rich.table import Table

    table = Table(title=title, title_justify="left", show_header=False, box=None)
    table.add_column(style="bold")
    table.add_column()
    for key, value in rows:
        table.add_row(key, _v(value))
    return table


def _table(title: str, headers: list[str], rows: list[list[object]]) -> object:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for h in headers:
        table.add_column(h)
    for row in rows:
        table.add_row(*(_v(c) for c in row))
    return table


def snapshot_sections(snapshot: Snapshot) -> list[object]:
    """The rich renderables describing a snapshot, in reading order."""
    p, py, d = snapshot.platform, snapshot.python, snapshot.driver
    distro = " ".join(x for x in (p.distro, p.distro_version) if x) or None
    sections: list[object] = [
        _kv_table(
            "System",
            [
                ("OS", " ".join(x for x in (p.os, p.arch) if x) or None),
                ("Distribution", distro),
                ("Kernel", p.kernel),
                ("glibc", p.glibc),
                ("WSL2", p.wsl),
                ("Container", p.container or ("no" if p.container is None else None)),
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
                        g.compute_capability,
                        g.architecture,
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
                        f.cuda_version,
                        f.cudnn_version,
                        f.cpu_only,
                    ]
                    for f in snapshot.frameworks
                ],
            )
        )
    if snapshot.env:
        sections.append(_kv_table("Environment variables", list(snapshot.env.items())))
    if snapshot.errors:
        sections.append(
            _table(
                "Probe errors",
                ["Probe", "Message"],
                [[e.probe, e.message] for e in snapshot.errors],
            )
        )
    return sections


def render_snapshot(snapshot: Snapshot, console: Console, title: Optional[str] = None) -> None:
    if title:
        console.print(title)
    for section in snapshot_sections(snapshot):
        console.print(section)
        console.print()

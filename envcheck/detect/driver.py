"""Probe: the NVIDIA driver and the GPUs it sees.

Sources, in order:

1. ``/proc/driver/nvidia/version`` and ``/sys/module/nvidia/version`` (Linux):
   the loaded kernel module.
2. NVML through ``System.nvml`` (default: ``pynvml`` on the real root only):
   driver, CUDA driver version, NVML library version, every GPU.
3. ``nvidia-smi`` when NVML gave no answer (Linux, WSL2's
   ``/usr/lib/wsl/lib/nvidia-smi``, Windows ``System32``): the CSV GPU query
   and the plain output's "CUDA Version" header. From R610 on nvidia-smi labels
   them "KMD Version" and "CUDA UMD Version" (NVIDIA's nvidia-smi page,
   https://docs.nvidia.com/deploy/nvidia-smi/index.html: the old labels are
   deprecated); ``-q`` prints both, the old ones with a "[Deprecated; ...]" note.
   The parsers read every spelling and prefer the new one.

The user-space library version also comes from the ``libnvidia-ml.so.X.Y.Z``
file name, so a kernel module / library mismatch is visible even when NVML
refuses to start ("Driver/library version mismatch").
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any, Optional

from envcheck.detect.context import Context
from envcheck.detect.nvml import load_nvml, read_nvml
from envcheck.detect.system import CommandResult, System
from envcheck.model.snapshot import Driver, Gpu

PROBE = "driver"
SMI_TIMEOUT = 5.0
SMI_BUDGET = 6.0
"""Seconds all nvidia-smi calls of one probe may take together (query, retry, plain)."""

SMI_FIELDS = (
    "index",
    "name",
    "uuid",
    "driver_version",
    "memory.total",
    "compute_cap",
    "pci.bus_id",
    "pcie.link.gen.current",
    "pcie.link.width.current",
    "pcie.link.gen.max",
    "pcie.link.width.max",
    "mig.mode.current",
)
SMI_FIELDS_OLD = tuple(f for f in SMI_FIELDS if f != "compute_cap")
"""Drivers before 510 reject ``compute_cap``."""

_VERSION = r"(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)"
_PROC_RE = re.compile(r"NVRM version:.*?Kernel Module(?:\s+for\s+\S+)?\s+" + _VERSION + r"\b")
_BARE_VERSION_RE = re.compile(r"^\s*" + _VERSION + r"\s*$")
# "CUDA Version: 12.4" (plain, before R610), "CUDA UMD Version: 13.3" (R610+), and the
# ``-q`` layout "CUDA UMD Version   : 13.3"; ``nvidia-smi --version`` writes "version".
# A label whose value is no number ("Deprecated, see ...", "N/A") gives nothing.
_SMI_CUDA_RE = re.compile(
    r"\bCUDA (UMD )?Version[ \t]{0,60}:[ \t]{0,8}(\d{1,2}\.\d{1,2})\b", re.IGNORECASE
)
_SMI_DRIVER_RE = re.compile(
    r"\b(?:(KMD)|Driver) Version[ \t]{0,60}:[ \t]{0,8}" + _VERSION, re.IGNORECASE
)
_NVML_LIB_RE = re.compile(r"^libnvidia-ml\.so\." + _VERSION + r"$")
_MISSING = {"", "[n/a]", "n/a", "[not supported]", "not supported", "[unknown error]"}

NVML_LIB_DIRS = (
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/lib/wsl/lib",
)


def parse_proc_driver_version(text: Optional[str]) -> Optional[str]:
    """The kernel module version from ``/proc/driver/nvidia/version``.

    Handles "NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb ...", the
    "Open Kernel Module for x86_64" and aarch64 variants. None for anything else.
    """
    if not text:
        return None
    m = _PROC_RE.search(text)
    return m.group(1) if m else None


def parse_sys_module_version(text: Optional[str]) -> Optional[str]:
    """``/sys/module/nvidia/version`` holds just ``550.54.14``."""
    if not text:
        return None
    m = _BARE_VERSION_RE.match(text)
    return m.group(1) if m else None


def parse_nvml_library_filename(name: str) -> Optional[str]:
    """``libnvidia-ml.so.550.54.14`` → ``550.54.14``; other names → None."""
    m = _NVML_LIB_RE.match(name)
    return m.group(1) if m else None


def _labelled(pattern: re.Pattern[str], text: Optional[str]) -> Optional[str]:
    """The value of the first new-style label (group 1 set), else of the first old one."""
    if not text:
        return None
    old: Optional[str] = None
    for m in pattern.finditer(text):
        if m.group(1):
            return m.group(2)
        old = old or m.group(2)
    return old


def parse_nvidia_smi_cuda_version(text: Optional[str]) -> Optional[str]:
    """The highest CUDA the driver supports from ``nvidia-smi`` or ``nvidia-smi -q``
    output: "CUDA UMD Version: 13.3" (R610+) or "CUDA Version: 12.4"; None when
    neither label carries a version."""
    return _labelled(_SMI_CUDA_RE, text)


def parse_nvidia_smi_driver_version(text: Optional[str]) -> Optional[str]:
    """The driver version from ``nvidia-smi`` or ``nvidia-smi -q`` output:
    "KMD Version: 610.43.02" (R610+) or "Driver Version: 550.54.14"; None when
    neither label carries a version."""
    return _labelled(_SMI_DRIVER_RE, text)


def _cell(value: str) -> Optional[str]:
    value = value.strip()
    return None if value.lower() in _MISSING else value


def _cell_int(value: str) -> Optional[int]:
    cell = _cell(value)
    if cell is None:
        return None
    try:
        return int(float(cell)) if "." in cell else int(cell)
    except ValueError:
        return None


def parse_nvidia_smi_csv(
    text: Optional[str], fields: tuple[str, ...] = SMI_FIELDS
) -> Optional[tuple[Optional[str], tuple[Gpu, ...]]]:
    """Parse ``--query-gpu=FIELDS --format=csv,noheader,nounits`` output.

    Returns ``(driver_version, gpus)``, or None when no line has the expected
    number of columns (garbage, an error message, truncated output).
    """
    if not text:
        return None
    driver: Optional[str] = None
    gpus: list[Gpu] = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != len(fields):
            continue
        row = dict(zip(fields, cells))
        index = _cell_int(row.get("index", ""))
        if index is None:
            continue
        driver = driver or _cell(row.get("driver_version", ""))
        mig = _cell(row.get("mig.mode.current", ""))
        gpus.append(
            Gpu(
                index=index,
                name=_cell(row.get("name", "")),
                uuid=_cell(row.get("uuid", "")),
                compute_capability=_cell(row.get("compute_cap", "")),
                memory_total_mib=_cell_int(row.get("memory.total", "")),
                mig_mode=mig,
                pcie_generation=_cell_int(row.get("pcie.link.gen.current", "")),
                pcie_width=_cell_int(row.get("pcie.link.width.current", "")),
                pcie_max_generation=_cell_int(row.get("pcie.link.gen.max", "")),
                pcie_max_width=_cell_int(row.get("pcie.link.width.max", "")),
                bus_id=_cell(row.get("pci.bus_id", "")),
            )
        )
    if not gpus:
        return None
    return driver, tuple(gpus)


def _read_text(path: Path) -> Optional[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def read_kernel_module_version(system: System) -> Optional[str]:
    """The loaded kernel module's version (Linux), or None."""
    version = parse_proc_driver_version(_read_text(system.path("/proc/driver/nvidia/version")))
    if version is None:
        version = parse_sys_module_version(_read_text(system.path("/sys/module/nvidia/version")))
    return version


def read_nvml_library_file_version(system: System) -> Optional[str]:
    """The user-space NVML version from a ``libnvidia-ml.so.X.Y.Z`` file name."""
    for directory in NVML_LIB_DIRS:
        try:
            names = sorted(os.listdir(system.path(directory)))  # noqa: PTH208 - names only, no Path per entry
        except OSError:
            continue
        for name in names:
            version = parse_nvml_library_filename(name)
            if version:
                return version
    return None


def _nvml_factory(system: System) -> Optional[Any]:
    if system.nvml is not None:
        return system.nvml
    if system.root == Path("/") and system.platform != "darwin":
        return load_nvml
    return None


def find_nvidia_smi(system: System) -> Optional[str]:
    """nvidia-smi on PATH, in WSL2's /usr/lib/wsl/lib, or on Windows in System32
    (DCH drivers) or ``%ProgramFiles%\\NVIDIA Corporation\\NVSMI`` (older ones)."""
    if system.platform == "darwin":
        return None
    found = system.find_executable("nvidia-smi")
    if found:
        return found
    candidates: tuple[str, ...]
    if system.platform == "win32":
        env = system.env
        windows = (env.get("SystemRoot") or env.get("SYSTEMROOT") or "C:\\Windows").rstrip("\\")
        programs = (
            env.get("ProgramFiles") or env.get("PROGRAMFILES") or "C:\\Program Files"
        ).rstrip("\\")
        candidates = (
            f"{windows}\\System32\\nvidia-smi.exe",
            f"{programs}\\NVIDIA Corporation\\NVSMI\\nvidia-smi.exe",
        )
    else:
        candidates = ("/usr/lib/wsl/lib/nvidia-smi", "/usr/bin/nvidia-smi")
    for candidate in candidates:
        if system.path(candidate).is_file():
            return candidate
    return None


def _smi_failure(result: CommandResult, argv0: str) -> str:
    return result.describe_failure(argv0)


class SmiTimeout(Exception):
    """nvidia-smi hung; no further nvidia-smi calls are worth their timeout."""


class _SmiClock:
    """The nvidia-smi share of the detection budget: retries do not add up."""

    def __init__(self, budget: float) -> None:
        self.deadline = time.monotonic() + budget

    def timeout(self) -> float:
        return min(SMI_TIMEOUT, self.deadline - time.monotonic())


def run_nvidia_smi_query(
    system: System, exe: str, ctx: Context, clock: Optional[_SmiClock] = None
) -> Optional[tuple[Optional[str], tuple[Gpu, ...]]]:
    """The CSV GPU query; retries without ``compute_cap`` for old drivers.

    Raises ``SmiTimeout`` (after recording it) when nvidia-smi hangs.
    """
    clock = clock or _SmiClock(SMI_BUDGET)
    for fields in (SMI_FIELDS, SMI_FIELDS_OLD):
        argv = (
            exe,
            "--query-gpu=" + ",".join(fields),
            "--format=csv,noheader,nounits",
        )
        left = clock.timeout()
        if left <= 0.05:
            ctx.error(PROBE, f"nvidia-smi: not retried, its {SMI_BUDGET:g}s budget is spent")
            raise SmiTimeout
        result = system.run(argv, left)
        output = result.stdout + "\n" + result.stderr
        if result.timed_out:
            ctx.error(PROBE, _smi_failure(result, "nvidia-smi"))
            raise SmiTimeout
        if "not a valid field" in output.lower() and fields is SMI_FIELDS:
            continue
        if not result.ok:
            ctx.error(PROBE, _smi_failure(result, "nvidia-smi"))
            return None
        parsed = parse_nvidia_smi_csv(result.stdout, fields)
        if parsed is None:
            ctx.error(PROBE, "nvidia-smi: unrecognised --query-gpu output")
        return parsed
    return None


def probe_driver(system: System, ctx: Context) -> None:
    """Fill ``ctx.driver`` and ``ctx.gpus``."""
    kernel: Optional[str] = None
    library: Optional[str] = None
    if system.platform.startswith("linux"):
        kernel = read_kernel_module_version(system)
        library = read_nvml_library_file_version(system)

    version: Optional[str] = None
    cuda: Optional[str] = None
    sources: list[str] = []
    gpus: tuple[Gpu, ...] = ()

    factory = _nvml_factory(system)
    nvml_ok = False
    if factory is not None:
        try:
            nvml = factory()
        except Exception as exc:  # noqa: BLE001 - pynvml missing is data
            ctx.error(PROBE, f"NVML not available: {type(exc).__name__}: {exc}".splitlines()[0])
            nvml = None
        if nvml is not None:
            report = read_nvml(nvml)
            for message in report.errors:
                ctx.error(PROBE, f"NVML {message}")
            if report.available:
                nvml_ok = True
                sources.append("nvml")
                version = report.driver_version
                cuda = report.cuda_version
                library = report.library_version or library
                gpus = tuple(report.gpus)

    if not nvml_ok:
        exe = find_nvidia_smi(system)
        clock = _SmiClock(SMI_BUDGET)
        if exe is not None:
            try:
                parsed = run_nvidia_smi_query(system, exe, ctx, clock)
            except SmiTimeout:
                parsed, exe = None, None
            if parsed is not None:
                sources.append("nvidia-smi")
                version, gpus = parsed
        if exe is not None and clock.timeout() > 0.05:
            plain = system.run((exe,), clock.timeout())
            if plain.ok:
                cuda = parse_nvidia_smi_cuda_version(plain.stdout)
                if version is None:
                    version = parse_nvidia_smi_driver_version(plain.stdout)
                    if version is not None and "nvidia-smi" not in sources:
                        sources.append("nvidia-smi")
            elif parsed is not None:
                ctx.error(PROBE, _smi_failure(plain, "nvidia-smi"))

    if kernel is not None:
        sources.append("proc")
        if version is None:
            version = kernel
    if not sources and library is None:
        return
    ctx.driver = Driver(
        version=version,
        cuda_version=cuda,
        source="+".join(sources) or None,
        kernel_module_version=kernel,
        nvml_library_version=library,
    )
    ctx.gpus = list(gpus)

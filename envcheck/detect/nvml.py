"""NVML behind a small facade, so tests inject a fake and never load the driver.

``load_nvml()`` imports ``pynvml`` (nvidia-ml-py) lazily, and not at all on Linux when
libnvidia-ml.so.1 cannot be loaded. ``read_nvml(nvml)``
calls it and turns every answer and every error into data: an ``NvmlReport``
with the facts read and one line per failure. ``nvmlShutdown`` always runs once
``nvmlInit`` succeeded. ``FakeNvml`` replays a JSON description (the machine
fixtures' ``nvml.json``) through the same API.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Optional, Protocol

from envcheck.model.snapshot import Gpu

_NOT_SUPPORTED = 3
"""NVML_ERROR_NOT_SUPPORTED: the GPU has no such feature (MIG on a GeForce)."""


class NvmlFacade(Protocol):
    """The subset of the ``pynvml`` module API envcheck uses."""

    def nvmlInit(self) -> None: ...
    def nvmlShutdown(self) -> None: ...
    def nvmlSystemGetDriverVersion(self) -> Any: ...
    def nvmlSystemGetCudaDriverVersion_v2(self) -> Any: ...
    def nvmlSystemGetNVMLVersion(self) -> Any: ...
    def nvmlDeviceGetCount(self) -> Any: ...
    def nvmlDeviceGetHandleByIndex(self, index: int) -> Any: ...


class NvmlReport:
    """What NVML said; ``available`` is False when nvmlInit failed.

    A plain class, not a dataclass: importing ``dataclasses`` (and ``inspect``)
    would cost every detection a few ms."""

    def __init__(self) -> None:
        self.available = False
        self.driver_version: Optional[str] = None
        self.cuda_version: Optional[str] = None
        self.library_version: Optional[str] = None
        self.gpus: list[Gpu] = []
        self.errors: list[str] = []


NVML_CLOCK_MEM = 2
"""nvmlClockType_t NVML_CLOCK_MEM (nvml.h); kept here so the fake needs no pynvml."""


class NVMLError_LibraryNotFound(Exception):
    """pynvml's error for a missing libnvidia-ml, raised without importing pynvml."""


class _NoNvmlLibrary:
    """Stands in for pynvml where libnvidia-ml.so.1 cannot be loaded: nvmlInit fails
    exactly as pynvml's would, and importing pynvml (~30 ms) is skipped."""

    @staticmethod
    def nvmlInit() -> None:
        raise NVMLError_LibraryNotFound("NVML Shared Library Not Found")


def load_nvml(platform: str = sys.platform) -> Any:
    """The real ``pynvml`` module (imported here only, so startup stays fast).

    On Linux, pynvml loads ``libnvidia-ml.so.1`` by that name; when the dynamic
    loader cannot find it (a container or machine without the driver), NVML cannot
    start, so the same failure is reported without importing pynvml."""
    if platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL("libnvidia-ml.so.1")
        except OSError:
            return _NoNvmlLibrary()
    import pynvml

    return pynvml


def describe_error(exc: BaseException) -> str:
    """An NVML exception as one line: ``NVMLError_LibRmVersionMismatch: Driver/...``."""
    lines = str(exc).strip().splitlines()
    detail = lines[0][:200] if lines else ""
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def _is_not_supported(exc: BaseException) -> bool:
    return getattr(exc, "value", None) == _NOT_SUPPORTED or "NotSupported" in type(exc).__name__


def _text(value: Any) -> Optional[str]:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return None
    value = value.strip()
    return value or None


def format_cuda_driver_version(value: Any) -> Optional[str]:
    """NVML's integer CUDA driver version: ``12040`` → ``"12.4"``, ``13010`` → ``"13.1"``."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return None
    return f"{value // 1000}.{(value % 1000) // 10}"


_NVML_VERSION_RE = re.compile(r"^\s*(?:\d{1,2}\.)?(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)\s*$")


def parse_nvml_library_version(text: Optional[str]) -> Optional[str]:
    """``nvmlSystemGetNVMLVersion()`` (``"12.550.54.14"``) → driver part ``"550.54.14"``."""
    if not text:
        return None
    parts = text.strip().split(".")
    # NVML prefixes the CUDA major: 12.550.54.14 (4 parts) or 11.470.82 (3 parts).
    if len(parts) >= 3 and len(parts[0]) <= 2 and len(parts[1]) >= 3:
        text = ".".join(parts[1:])
    m = _NVML_VERSION_RE.match(text)
    return m.group(1) if m else None


def read_nvml(nvml: Any) -> NvmlReport:
    """Ask NVML for the driver and every GPU; never raises for NVML errors."""
    report = NvmlReport()
    try:
        nvml.nvmlInit()
    except Exception as exc:  # noqa: BLE001 - every NVML failure is data
        report.errors.append(f"nvmlInit: {describe_error(exc)}")
        return report
    report.available = True
    try:
        _read_system(nvml, report)
        _read_gpus(nvml, report)
    finally:
        try:
            nvml.nvmlShutdown()
        except Exception as exc:  # noqa: BLE001
            report.errors.append(f"nvmlShutdown: {describe_error(exc)}")
    return report


def _call(nvml: Any, report: NvmlReport, name: str, *args: Any) -> Any:
    try:
        return getattr(nvml, name)(*args)
    except Exception as exc:  # noqa: BLE001
        if not _is_not_supported(exc):
            where = f"{name}({', '.join(map(str, args))})" if args else name
            report.errors.append(f"{where}: {describe_error(exc)}")
        return None


def _read_system(nvml: Any, report: NvmlReport) -> None:
    report.driver_version = _text(_call(nvml, report, "nvmlSystemGetDriverVersion"))
    report.cuda_version = format_cuda_driver_version(
        _call(nvml, report, "nvmlSystemGetCudaDriverVersion_v2")
    )
    report.library_version = parse_nvml_library_version(
        _text(_call(nvml, report, "nvmlSystemGetNVMLVersion"))
    )


def _int(value: Any) -> Optional[int]:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def _read_gpus(nvml: Any, report: NvmlReport) -> None:
    count = _int(_call(nvml, report, "nvmlDeviceGetCount"))
    for index in range(count or 0):
        handle = _call(nvml, report, "nvmlDeviceGetHandleByIndex", index)
        if handle is None:
            continue
        report.gpus.append(_read_gpu(nvml, report, index, handle))


def _read_gpu(nvml: Any, report: NvmlReport, index: int, handle: Any) -> Gpu:
    def get(name: str, *args: Any) -> Any:
        try:
            return getattr(nvml, name)(handle, *args)
        except Exception as exc:  # noqa: BLE001
            if not _is_not_supported(exc):
                report.errors.append(f"GPU {index} {name}: {describe_error(exc)}")
            return None

    cc = get("nvmlDeviceGetCudaComputeCapability")
    capability = None
    if isinstance(cc, Sequence) and len(cc) == 2 and all(_int(x) is not None for x in cc):
        capability = f"{cc[0]}.{cc[1]}"
    memory = get("nvmlDeviceGetMemoryInfo")
    total = _int(getattr(memory, "total", None))
    mig = get("nvmlDeviceGetMigMode")
    mig_mode = None
    if isinstance(mig, Sequence) and mig and _int(mig[0]) is not None:
        mig_mode = "Enabled" if mig[0] == 1 else "Disabled"
    pci = get("nvmlDeviceGetPciInfo")
    bus_id = _text(getattr(pci, "busId", None))
    return Gpu(
        index=index,
        name=_text(get("nvmlDeviceGetName")),
        uuid=_text(get("nvmlDeviceGetUUID")),
        compute_capability=capability,
        memory_total_mib=total // (1024 * 1024) if total is not None else None,
        mig_mode=mig_mode,
        pcie_generation=_int(get("nvmlDeviceGetCurrPcieLinkGeneration")),
        pcie_width=_int(get("nvmlDeviceGetCurrPcieLinkWidth")),
        pcie_max_generation=_int(get("nvmlDeviceGetMaxPcieLinkGeneration")),
        pcie_max_width=_int(get("nvmlDeviceGetMaxPcieLinkWidth")),
        bus_id=bus_id,
        memory_bus_width=_int(get("nvmlDeviceGetMemoryBusWidth")),
        memory_clock_max_mhz=_int(get("nvmlDeviceGetMaxClockInfo", NVML_CLOCK_MEM)),
    )


class _Struct:
    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)


def _make_error(spec: Mapping[str, Any]) -> Exception:
    """An exception of the class named in ``spec`` (``NVMLError_GpuIsLost`` ...)."""
    cls: type[Exception] = type(str(spec.get("class", "NVMLError")), (Exception,), {})
    exc = cls(str(spec.get("message", "")))
    setattr(exc, "value", spec.get("value"))  # noqa: B010 - a dynamic class
    return exc


class FakeNvml:
    """Replays an NVML description (tests, machine fixtures) through pynvml's API.

    ``{"error": {"class": ..., "message": ...}}`` makes nvmlInit raise. Otherwise
    ``driver_version``, ``cuda_driver_version`` (int), ``nvml_version`` and
    ``gpus`` (each: name, uuid, compute_capability [major, minor],
    memory_total_mib, mig_mode 0/1, pcie [gen, width, max_gen, max_width],
    bus_id, and ``errors``: {function name: error spec}).
    """

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.data = data
        self.initialised = False
        self.shutdowns = 0

    def _raise_for(self, name: str, gpu: Optional[Mapping[str, Any]] = None) -> None:
        errors = (gpu if gpu is not None else self.data).get("errors") or {}
        if name in errors:
            raise _make_error(errors[name])

    def nvmlInit(self) -> None:
        if "error" in self.data:
            raise _make_error(self.data["error"])
        self.initialised = True

    def nvmlShutdown(self) -> None:
        self.shutdowns += 1

    def nvmlSystemGetDriverVersion(self) -> Any:
        self._raise_for("nvmlSystemGetDriverVersion")
        return self.data.get("driver_version")

    def nvmlSystemGetCudaDriverVersion_v2(self) -> Any:
        self._raise_for("nvmlSystemGetCudaDriverVersion_v2")
        return self.data.get("cuda_driver_version")

    def nvmlSystemGetNVMLVersion(self) -> Any:
        self._raise_for("nvmlSystemGetNVMLVersion")
        return self.data.get("nvml_version")

    def nvmlDeviceGetCount(self) -> Any:
        self._raise_for("nvmlDeviceGetCount")
        return len(self.data.get("gpus") or [])

    def nvmlDeviceGetHandleByIndex(self, index: int) -> Any:
        gpu = (self.data.get("gpus") or [])[index]
        self._raise_for("nvmlDeviceGetHandleByIndex", gpu)
        return gpu

    def _field(self, gpu: Mapping[str, Any], name: str, key: str) -> Any:
        self._raise_for(name, gpu)
        if gpu.get(key) is None:
            raise _make_error(
                {"class": "NVMLError_NotSupported", "message": "Not Supported", "value": 3}
            )
        return gpu[key]

    def nvmlDeviceGetName(self, h: Mapping[str, Any]) -> Any:
        return self._field(h, "nvmlDeviceGetName", "name")

    def nvmlDeviceGetUUID(self, h: Mapping[str, Any]) -> Any:
        return self._field(h, "nvmlDeviceGetUUID", "uuid")

    def nvmlDeviceGetCudaComputeCapability(self, h: Mapping[str, Any]) -> Any:
        return tuple(self._field(h, "nvmlDeviceGetCudaComputeCapability", "compute_capability"))

    def nvmlDeviceGetMemoryInfo(self, h: Mapping[str, Any]) -> Any:
        mib = self._field(h, "nvmlDeviceGetMemoryInfo", "memory_total_mib")
        return _Struct(total=int(mib) * 1024 * 1024)

    def nvmlDeviceGetMigMode(self, h: Mapping[str, Any]) -> Any:
        mode = self._field(h, "nvmlDeviceGetMigMode", "mig_mode")
        return (mode, mode)

    def _pcie(self, h: Mapping[str, Any], name: str, i: int) -> Any:
        return self._field(h, name, "pcie")[i]

    def nvmlDeviceGetCurrPcieLinkGeneration(self, h: Mapping[str, Any]) -> Any:
        return self._pcie(h, "nvmlDeviceGetCurrPcieLinkGeneration", 0)

    def nvmlDeviceGetCurrPcieLinkWidth(self, h: Mapping[str, Any]) -> Any:
        return self._pcie(h, "nvmlDeviceGetCurrPcieLinkWidth", 1)

    def nvmlDeviceGetMaxPcieLinkGeneration(self, h: Mapping[str, Any]) -> Any:
        return self._pcie(h, "nvmlDeviceGetMaxPcieLinkGeneration", 2)

    def nvmlDeviceGetMaxPcieLinkWidth(self, h: Mapping[str, Any]) -> Any:
        return self._pcie(h, "nvmlDeviceGetMaxPcieLinkWidth", 3)

    def nvmlDeviceGetMemoryBusWidth(self, h: Mapping[str, Any]) -> Any:
        return self._field(h, "nvmlDeviceGetMemoryBusWidth", "memory_bus_width")

    def nvmlDeviceGetMaxClockInfo(self, h: Mapping[str, Any], clock: int) -> Any:
        assert clock == NVML_CLOCK_MEM, "envcheck only asks for the memory clock"
        return self._field(h, "nvmlDeviceGetMaxClockInfo", "memory_clock_max_mhz")

    def nvmlDeviceGetPciInfo(self, h: Mapping[str, Any]) -> Any:
        return _Struct(busId=self._field(h, "nvmlDeviceGetPciInfo", "bus_id"))

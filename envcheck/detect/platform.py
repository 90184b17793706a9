"""Probe: operating system, distribution, kernel, glibc, WSL2 and containers.

Sources, in order: ``System.platform``/``machine`` (what Python says), then
files under the System root: ``/etc/os-release``, ``/proc/sys/kernel/osrelease``,
``/proc/sys/fs/binfmt_misc/WSLInterop``, ``/.dockerenv``, ``/run/.containerenv``,
``/proc/1/cgroup`` and ``/proc/1/environ``; then environment variables
(``WSL_DISTRO_NAME``, ``KUBERNETES_SERVICE_HOST``, ``SINGULARITY_CONTAINER``,
``APPTAINER_CONTAINER``). glibc is read with ``os.confstr`` on the real root only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Optional

from envcheck.detect.context import Context
from envcheck.detect.system import System
from envcheck.model.snapshot import Platform

MAX_READ = 64 * 1024


def parse_os_release(text: str) -> dict[str, str]:
    """``KEY=value`` lines of os-release(5) → dict; quotes removed, junk skipped."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        if not re.match(r"^[A-Z][A-Z0-9_]*$", key):
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[key] = value
    return out


def parse_glibc_version(text: Optional[str]) -> Optional[str]:
    """``glibc 2.35`` (os.confstr) → ``2.35``; None when unknown."""
    if not text:
        return None
    m = re.match(r"^\s*glibc\s+(\d+\.\d+)", text)
    return m.group(1) if m else None


def is_wsl_kernel(release: Optional[str]) -> bool:
    """WSL kernels say so in their release string (…-microsoft-standard-WSL2)."""
    return bool(release) and bool(re.search(r"microsoft|wsl", release or "", re.IGNORECASE))


def wsl_version_of(release: Optional[str]) -> Optional[int]:
    """1 or 2 from a WSL kernel release; None when the release is unknown.

    WSL 1 has no Linux kernel: it reports a fixed release ending in ``-Microsoft``
    (``4.4.0-19041-Microsoft``); WSL 2 kernels say ``microsoft-standard`` in lower
    case. WSL's own check is the capital M (a WSL maintainer in
    https://github.com/microsoft/vscode/pull/99949)."""
    if not release:
        return None
    return 1 if "Microsoft" in release else 2


GPU_DEVICE_PREFIXES = ("nvidia", "dxg")
"""/dev entries that give a process a GPU: the NVIDIA driver's nvidiactl, nvidiaN,
nvidia-uvm, nvidia-modeset, nvidia-caps, and WSL 2's paravirtual /dev/dxg."""
MAX_DEVICE_NODES = 256


def gpu_device_nodes(system: System, ctx: Context) -> Optional[tuple[str, ...]]:
    """The GPU device files in /dev, sorted; None when /dev cannot be listed (a
    fake or foreign root without one: not looked at, not observed absent)."""
    try:
        names = [p.name for p in system.path("/dev").iterdir()]
    except FileNotFoundError:
        return None
    except OSError as exc:
        ctx.error("platform", f"cannot list /dev: {exc.strerror or exc}")
        return None
    found = sorted(n for n in names if n.startswith(GPU_DEVICE_PREFIXES))
    return tuple(found[:MAX_DEVICE_NODES])


def parse_cgroup_container(text: str) -> Optional[str]:
    """Container runtime named in ``/proc/1/cgroup``; None when not obvious."""
    lowered = text.lower()
    for marker, kind in (
        ("kubepods", "kubernetes"),
        ("docker", "docker"),
        ("libpod", "podman"),
        ("containerd", "containerd"),
        ("/lxc/", "lxc"),
    ):
        if marker in lowered:
            return kind
    return None


def parse_environ_container(data: bytes) -> Optional[str]:
    """The ``container=`` variable from a NUL-separated ``/proc/1/environ``."""
    for item in data.split(b"\0"):
        if item.startswith(b"container="):
            value = item[len(b"container=") :].decode("utf-8", "replace").strip()
            return value or None
    return None


def normalise_os(sys_platform: str) -> str:
    if sys_platform.startswith("linux"):
        return "linux"
    if sys_platform in ("win32", "cygwin", "msys"):
        return "windows"
    if sys_platform == "darwin":
        return "darwin"
    return sys_platform


def normalise_machine(machine: str) -> Optional[str]:
    m = machine.strip().lower()
    if not m:
        return None
    return {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64"}.get(m, m)


def _read(path: Path) -> Optional[str]:
    try:
        with path.open("rb") as fh:
            return fh.read(MAX_READ).decode("utf-8", "replace")
    except OSError:
        return None


def _read_bytes(path: Path) -> Optional[bytes]:
    try:
        with path.open("rb") as fh:
            return fh.read(MAX_READ)
    except OSError:  # /proc/1/environ needs root on most systems: not an error
        return None


def detect_container(system: System) -> Optional[str]:
    env = system.env
    if env.get("KUBERNETES_SERVICE_HOST"):
        return "kubernetes"
    if env.get("APPTAINER_CONTAINER") or env.get("APPTAINER_NAME"):
        return "apptainer"
    if env.get("SINGULARITY_CONTAINER") or env.get("SINGULARITY_NAME"):
        return "singularity"
    if system.path("/.dockerenv").exists():
        return "docker"
    if system.path("/run/.containerenv").exists():
        return "podman"
    environ = _read_bytes(system.path("/proc/1/environ"))
    if environ:
        kind = parse_environ_container(environ)
        if kind:
            return kind
    cgroup = _read(system.path("/proc/1/cgroup"))
    return parse_cgroup_container(cgroup) if cgroup else None


def probe_platform(system: System, ctx: Context) -> None:
    os_name = normalise_os(system.platform)
    arch = normalise_machine(system.machine)
    distro = distro_version = kernel = glibc = None
    wsl: Optional[bool] = None
    wsl_version: Optional[int] = None
    container: Optional[str] = None
    nodes: Optional[tuple[str, ...]] = None
    if os_name == "linux":
        release = parse_os_release(
            _read(system.path("/etc/os-release")) or _read(system.path("/usr/lib/os-release")) or ""
        )
        distro = release.get("ID")
        distro_version = release.get("VERSION_ID")
        raw_kernel = _read(system.path("/proc/sys/kernel/osrelease"))
        kernel = raw_kernel.strip() or None if raw_kernel else None
        wsl = (
            is_wsl_kernel(kernel)
            or system.path("/proc/sys/fs/binfmt_misc/WSLInterop").exists()
            or bool(system.env.get("WSL_DISTRO_NAME"))
        )
        wsl_version = wsl_version_of(kernel) if wsl else None
        nodes = gpu_device_nodes(system, ctx)
        if system.root == Path("/") and hasattr(os, "confstr"):
            try:
                glibc = parse_glibc_version(os.confstr("CS_GNU_LIBC_VERSION"))
            except (ValueError, OSError):
                glibc = None
        container = detect_container(system)
    elif os_name == "windows":
        distro = "windows"
        if system.root == Path("/"):
            import platform as _platform

            distro_version = _platform.version() or None
        wsl = False
    elif os_name == "darwin":
        distro = "macos"
        if system.root == Path("/"):
            import platform as _platform

            distro_version = _platform.mac_ver()[0] or None
        wsl = False
    ctx.platform = Platform(
        os=os_name,
        arch=arch,
        distro=distro,
        distro_version=distro_version,
        kernel=kernel,
        glibc=glibc,
        wsl=wsl,
        container=container,
        wsl_version=wsl_version,
        gpu_device_nodes=nodes,
    )

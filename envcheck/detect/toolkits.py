"""Probe: CUDA toolkits on disk, in conda and in pip wheels.

Sources, in order (the first path that names a toolkit directory wins; the
same directory reached through a symlink is reported once):

1. ``CUDA_HOME``, ``CUDA_PATH``, ``CUDA_ROOT``, then Windows ``CUDA_PATH_V12_4``;
2. ``/usr/local/cuda``, ``/usr/local/cuda-*``, ``/opt/cuda``, Windows
   ``C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v*``;
3. ``nvcc`` on PATH (``nvcc --version`` is run once);
4. conda packages (cuda-nvcc, cudatoolkit, cuda-cudart, cuda-version);
5. pip wheels (nvidia-cuda-runtime-cu12, nvidia-cuda-nvcc-cu12, and the
   CUDA 13 names without the suffix).

A directory's version comes from ``version.json``, ``version.txt``, the
``dist-info`` directories of a toolkit assembled from wheels, or its own
``bin/nvcc --version``.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Optional

from envcheck.detect.context import Context
from envcheck.detect.system import System
from envcheck.model.snapshot import CudaToolkit

PROBE = "toolkits"
NVCC_TIMEOUT = 5.0

_NVCC_RE = re.compile(r"Cuda compilation tools,\s*release\s*(\d+\.\d+),\s*V(\d+\.\d+(?:\.\d+)?)")
_NVCC_RELEASE_RE = re.compile(r"Cuda compilation tools,\s*release\s*(\d+\.\d+)")
_VERSION_TXT_RE = re.compile(r"CUDA Version\s+(\d+\.\d+(?:\.\d+)?)")
_DIST_INFO_RE = re.compile(
    r"^(nvidia[_-]cuda[_-](?:nvcc|runtime|cudart)(?:[_-]cu\d+)?)-(\d+\.\d+(?:\.\d+)*)\.dist-info$"
)
_FULL_VERSION_RE = re.compile(r"^\d+\.\d+(?:\.\d+)*$")
_CUDA_PATH_VAR_RE = re.compile(r"^CUDA_PATH_V(\d+)_(\d+)$")

WINDOWS_TOOLKITS = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"
CONDA_TOOLKIT_PACKAGES = ("cuda-nvcc", "cudatoolkit", "cuda-cudart", "cuda-version")
PIP_TOOLKIT_PACKAGES = (
    "nvidia-cuda-runtime-cu12",
    "nvidia-cuda-runtime-cu11",
    "nvidia-cuda-runtime",
    "nvidia-cuda-nvcc-cu12",
    "nvidia-cuda-nvcc-cu11",
    "nvidia-cuda-nvcc",
)


def parse_nvcc_version(text: Optional[str]) -> Optional[str]:
    """``nvcc --version`` → ``"13.0.88"`` (the V number), or the release ``"11.0"``."""
    if not text:
        return None
    m = _NVCC_RE.search(text)
    if m:
        return m.group(2)
    m = _NVCC_RELEASE_RE.search(text)
    return m.group(1) if m else None


def parse_cuda_version_json(text: Optional[str]) -> Optional[str]:
    """``version.json``'s ``{"cuda": {"version": "12.4.1"}}`` → ``"12.4.1"``."""
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    cuda = data.get("cuda") if isinstance(data, dict) else None
    version = cuda.get("version") if isinstance(cuda, dict) else None
    if isinstance(version, str) and _FULL_VERSION_RE.match(version.strip()):
        return version.strip()
    return None


def parse_cuda_version_txt(text: Optional[str]) -> Optional[str]:
    """``version.txt``'s ``CUDA Version 11.2.152`` → ``"11.2.152"``."""
    if not text:
        return None
    m = _VERSION_TXT_RE.search(text)
    return m.group(1) if m else None


def parse_toolkit_dist_info(names: Iterable[str]) -> Optional[str]:
    """The toolkit version from wheel ``dist-info`` directory names.

    ``nvidia_cuda_nvcc-13.0.88.dist-info`` wins over the runtime's, because
    that is what ``nvcc --version`` reports.
    """
    found: dict[str, str] = {}
    for name in names:
        m = _DIST_INFO_RE.match(name)
        if m:
            kind = "nvcc" if "nvcc" in m.group(1) else "runtime"
            found.setdefault(kind, m.group(2))
    return found.get("nvcc") or found.get("runtime")


def parse_conda_meta_filename(name: str) -> Optional[tuple[str, str]]:
    """``cudatoolkit-11.8.0-h6a678d5_0.json`` → ``("cudatoolkit", "11.8.0")``."""
    if not name.endswith(".json"):
        return None
    parts = name[: -len(".json")].rsplit("-", 2)
    if len(parts) != 3 or not parts[0] or not parts[1][:1].isdigit():
        return None
    return parts[0], parts[1]


def _read(path: Path) -> Optional[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _listdir(path: Path) -> list[str]:
    try:
        return sorted(os.listdir(path))  # noqa: PTH208 - names only, no Path per entry
    except OSError:
        return []


def _is_windows(system: System) -> bool:
    return system.platform == "win32"


def _norm(system: System, machine_path: str) -> str:
    if _is_windows(system):
        return machine_path.replace("/", "\\").rstrip("\\").lower()
    return posixpath.normpath(machine_path)


def resolve_machine_path(system: System, machine_path: str) -> str:
    """Follow symlinks of a machine path inside ``system.root``.

    Absolute link targets are machine paths too, so ``/usr/local/cuda`` →
    ``/usr/local/cuda-13.0`` stays inside a fake root.
    """
    if _is_windows(system):
        return machine_path
    parts = [p for p in posixpath.normpath(machine_path).split("/") if p]
    done = "/"
    for _ in range(64):
        if not parts:
            return done
        part = parts.pop(0)
        candidate = posixpath.join(done, part)
        host = system.path(candidate)
        if host.is_symlink():
            try:
                target = str(host.readlink())
            except OSError:
                done = candidate
                continue
            if target.startswith("/"):
                done = "/"
            parts = [p for p in target.split("/") if p and p != "."] + parts
        elif part == "..":
            done = posixpath.dirname(done) or "/"
        else:
            done = candidate
    return done


def _join(system: System, base: str, *names: str) -> str:
    sep = "\\" if _is_windows(system) else "/"
    return sep.join([base.rstrip("/\\"), *names])


def read_toolkit_version(system: System, machine_dir: str) -> Optional[tuple[str, str]]:
    """(version, source) for a toolkit directory, read from its files."""
    host = system.path(machine_dir)
    version = parse_cuda_version_json(_read(host / "version.json"))
    if version:
        return version, "version.json"
    version = parse_cuda_version_txt(_read(host / "version.txt"))
    if version:
        return version, "version.txt"
    version = parse_toolkit_dist_info(_listdir(host / "dist-info") + _listdir(host))
    if version:
        return version, "dist-info"
    return None


def _has_toolkit_layout(system: System, machine_dir: str) -> bool:
    host = system.path(machine_dir)
    nvcc = "nvcc.exe" if _is_windows(system) else "nvcc"
    return (
        (host / "bin" / nvcc).is_file()
        or (host / "version.json").is_file()
        or (host / "version.txt").is_file()
        or (host / "include" / "cuda_runtime.h").is_file()
    )


def _run_nvcc(system: System, ctx: Context, exe: str) -> Optional[str]:
    result = system.run((exe, "--version"), NVCC_TIMEOUT)
    if not result.ok:
        ctx.error(PROBE, result.describe_failure(exe))
        return None
    version = parse_nvcc_version(result.stdout)
    if version is None:
        ctx.error(PROBE, f"{exe} --version: unrecognised output")
    return version


_EXEC_NVCC_RE = re.compile(r"^\s*exec\s+\"?(/[^\s\"]*/bin/nvcc)\"?(?:\s|$)", re.MULTILINE)


def _wrapped_nvcc(system: System, path: str) -> Optional[str]:
    """The nvcc a small ``#!`` wrapper script (``exec /usr/local/cuda/bin/nvcc "$@"``)
    runs; None for a real binary or anything else."""
    if _is_windows(system):
        return None
    try:
        with system.path(path).open("rb") as fh:
            head = fh.read(4096)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    m = _EXEC_NVCC_RE.search(head.decode("utf-8", "replace"))
    return m.group(1) if m else None


def _candidate_dirs(system: System) -> list[str]:
    env = system.env
    dirs: list[str] = []
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"):
        value = env.get(var, "").strip()
        if value:
            dirs.append(value)
    versioned = sorted(
        (m.group(1), m.group(2), value)
        for var, value in env.items()
        for m in [_CUDA_PATH_VAR_RE.match(var)]
        if m and value.strip()
    )
    dirs.extend(value.strip() for _, _, value in versioned)
    if _is_windows(system):
        for name in _listdir(system.path(WINDOWS_TOOLKITS)):
            if name.lower().startswith("v"):
                dirs.append(_join(system, WINDOWS_TOOLKITS, name))
    else:
        dirs.append("/usr/local/cuda")
        dirs.extend(
            f"/usr/local/{name}"
            for name in _listdir(system.path("/usr/local"))
            if name.startswith("cuda-")
        )
        dirs.append("/opt/cuda")
    return dirs


def _conda_packages(system: System, ctx: Context) -> tuple[Optional[str], Mapping[str, str]]:
    prefix = ctx.conda_prefix or system.env.get("CONDA_PREFIX") or None
    if ctx.conda_packages:
        return prefix, ctx.conda_packages
    if not prefix:
        return None, {}
    packages: dict[str, str] = {}
    for name in _listdir(system.path(prefix) / "conda-meta"):
        parsed = parse_conda_meta_filename(name)
        if parsed:
            packages.setdefault(parsed[0], parsed[1])
    return prefix, packages


def probe_toolkits(system: System, ctx: Context) -> None:
    """Fill ``ctx.cuda_toolkits``."""
    seen: dict[str, int] = {}
    toolkits: list[CudaToolkit] = []

    def add(tk: CudaToolkit, key: Optional[str]) -> None:
        if key is not None:
            if key in seen:
                return
            seen[key] = len(toolkits)
        toolkits.append(tk)

    for machine_dir in _candidate_dirs(system):
        # Read through the resolved path: an absolute symlink inside a fake
        # root must not lead to the real machine's /usr/local/cuda-*.
        real_dir = resolve_machine_path(system, machine_dir)
        if not system.path(real_dir).is_dir() or not _has_toolkit_layout(system, real_dir):
            continue
        key = _norm(system, real_dir)
        if key in seen:
            continue
        found = read_toolkit_version(system, real_dir)
        if found is None:
            nvcc = _join(system, machine_dir, "bin", "nvcc.exe" if _is_windows(system) else "nvcc")
            real_nvcc = _join(
                system, real_dir, "bin", "nvcc.exe" if _is_windows(system) else "nvcc"
            )
            version = _run_nvcc(system, ctx, nvcc) if system.path(real_nvcc).is_file() else None
            found = (version, "nvcc") if version else None
        if found is None:
            ctx.error(PROBE, f"CUDA toolkit at {machine_dir}: version not readable")
        add(
            CudaToolkit(
                version=found[0] if found else None,
                path=machine_dir,
                source=found[1] if found else None,
            ),
            key,
        )

    nvcc_path = system.find_executable("nvcc")
    if nvcc_path is not None:
        resolved = resolve_machine_path(system, _wrapped_nvcc(system, nvcc_path) or nvcc_path)
        sep = "\\" if _is_windows(system) else "/"
        if _is_windows(system):
            resolved = resolved.replace("/", "\\")
        home = sep.join(resolved.split(sep)[:-2]) or sep
        home_key = _norm(system, resolve_machine_path(system, home))
        known = home_key in seen
        if known and toolkits[seen[home_key]].version:
            # Its toolkit's version files already said: nvcc would only repeat it.
            nvcc_path = None
    if nvcc_path is not None:
        version = _run_nvcc(system, ctx, nvcc_path)
        # /usr/local/bin/nvcc may be a wrapper script: same version, same toolkit.
        same = any(tk.version == version for tk in toolkits if tk.source not in ("conda", "pip"))
        if version and not known and not same:
            add(CudaToolkit(version=version, path=home, source="nvcc"), _norm(system, home))

    prefix, conda = _conda_packages(system, ctx)
    for name in CONDA_TOOLKIT_PACKAGES:
        if name in conda:
            add(CudaToolkit(version=conda[name], path=prefix, source="conda"), None)
            break

    pip_versions: set[str] = set()
    for name in PIP_TOOLKIT_PACKAGES:
        version = ctx.packages.get(name)
        if version and version not in pip_versions:
            pip_versions.add(version)
            add(
                CudaToolkit(version=version, path=_pip_path(system, ctx, name), source="pip"),
                None,
            )

    ctx.cuda_toolkits.extend(toolkits)


def _pip_path(system: System, ctx: Context, package: str) -> Optional[str]:
    """``<site>/nvidia/cuda_runtime`` (cu11/cu12) or ``<site>/nvidia/cu13``."""
    sub = "cuda_nvcc" if "nvcc" in package else "cuda_runtime"
    for site in ctx.site_dirs:
        for rel in (f"nvidia/{sub}", "nvidia/cu13"):
            candidate = posixpath.join(site.replace("\\", "/"), rel)
            if system.path(candidate).is_dir():
                return candidate
    return ctx.site_dirs[0] if ctx.site_dirs else None

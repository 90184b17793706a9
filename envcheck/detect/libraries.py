"""Probe: cuDNN, cuBLAS, cudart, NCCL, nvJitLink and TensorRT libraries.

Places, in order (one entry per library, major version and directory):

1. each ``LD_LIBRARY_PATH`` entry, in order (source ``LD_LIBRARY_PATH``), so
   the doctor sees what the loader finds first;
2. the CUDA toolkits found earlier: ``include/cudnn_version.h`` (``cudnn.h`` for
   cuDNN 7 and older), ``lib64``, ``lib``, Windows ``bin`` (source ``toolkit``);
3. the system: ``/usr/include``, ``/usr/lib/x86_64-linux-gnu``, ``/usr/lib64``
   ... and the linker cache through ``ldconfig -p`` (source ``system``);
4. Windows ``PATH`` entries (source ``PATH``);
5. the conda prefix ``lib/`` plus conda-meta versions (source ``conda``);
6. pip wheels: ``nvidia-cudnn-cu12`` & co. (source ``pip``).

A header's full version refines a bare ``libcudnn.so.9`` found in the same place.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Optional

from envcheck.detect.context import Context
from envcheck.detect.system import System
from envcheck.detect.toolkits import parse_conda_meta_filename, resolve_machine_path
from envcheck.model.snapshot import Library

PROBE = "libraries"
LDCONFIG_TIMEOUT = 5.0
LD_SO_CACHE = "/etc/ld.so.cache"
MAX_LD_SO_CACHE = 64 * 1024 * 1024

_SO_NAMES = {
    "libcudnn": "cudnn",
    "libcublas": "cublas",
    "libcudart": "cudart",
    "libnccl": "nccl",
    "libnvjitlink": "nvjitlink",
    "libnvinfer": "tensorrt",
}
_SO_RE = re.compile(r"^(lib[A-Za-z]+)\.so\.(\d+(?:\.\d+)*)$")
_DLL_RE = re.compile(
    r"^(cudnn|cublas|cudart|nvjitlink|nvinfer)(?:64)?_(\d+)(?:_\d+)?\.dll$", re.IGNORECASE
)
_DEFINE_RE = re.compile(
    r"^\s*#\s*define\s+(CUDNN_MAJOR|CUDNN_MINOR|CUDNN_PATCHLEVEL)\s+(\d+)\b", re.MULTILINE
)
_LDCONFIG_RE = re.compile(r"^\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S.*?)\s*$")

SYSTEM_INCLUDE_DIRS = (
    "/usr/include",
    "/usr/include/x86_64-linux-gnu",
    "/usr/include/aarch64-linux-gnu",
)
SYSTEM_LIB_DIRS = (
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
)
PIP_LIBRARIES = (
    ("nvidia-cudnn-cu13", "cudnn", "cudnn"),
    ("nvidia-cudnn-cu12", "cudnn", "cudnn"),
    ("nvidia-cudnn-cu11", "cudnn", "cudnn"),
    ("nvidia-cublas", "cublas", "cublas"),
    ("nvidia-cublas-cu12", "cublas", "cublas"),
    ("nvidia-cublas-cu11", "cublas", "cublas"),
    ("nvidia-cuda-runtime", "cudart", "cuda_runtime"),
    ("nvidia-cuda-runtime-cu12", "cudart", "cuda_runtime"),
    ("nvidia-cuda-runtime-cu11", "cudart", "cuda_runtime"),
    ("nvidia-nccl-cu13", "nccl", "nccl"),
    ("nvidia-nccl-cu12", "nccl", "nccl"),
    ("nvidia-nccl-cu11", "nccl", "nccl"),
    ("nvidia-nvjitlink", "nvjitlink", "nvjitlink"),
    ("nvidia-nvjitlink-cu12", "nvjitlink", "nvjitlink"),
    ("tensorrt", "tensorrt", "tensorrt_libs"),
    ("tensorrt-cu12-libs", "tensorrt", "tensorrt_libs"),
)
CONDA_LIBRARIES = (
    ("cudnn", "cudnn"),
    ("nccl", "nccl"),
    ("libcublas", "cublas"),
    ("cuda-cudart", "cudart"),
    ("libnvjitlink", "nvjitlink"),
    ("tensorrt", "tensorrt"),
)


def parse_cudnn_version_header(text: Optional[str]) -> Optional[str]:
    """``#define CUDNN_MAJOR 8`` / ``MINOR 9`` / ``PATCHLEVEL 7`` → ``"8.9.7"``.

    Works on ``cudnn_version.h`` (cuDNN 8+) and ``cudnn.h`` (cuDNN 7 and older);
    None when the three defines are not all there.
    """
    if not text:
        return None
    found: dict[str, str] = {}
    for m in _DEFINE_RE.finditer(text):
        found.setdefault(m.group(1), m.group(2))
    try:
        return ".".join(found[k] for k in ("CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL"))
    except KeyError:
        return None


def parse_library_filename(name: str) -> Optional[tuple[str, str]]:
    """``libcudnn.so.8.9.7`` → ``("cudnn", "8.9.7")``; ``cudnn64_9.dll`` → ``("cudnn", "9")``.

    ``cudart64_110.dll`` → ``("cudart", "11.0")``. Unversioned names, sub-libraries
    (``libcudnn_ops.so.9``, ``libcublasLt.so.12``) and other files give None.
    """
    m = _SO_RE.match(name)
    if m:
        lib = _SO_NAMES.get(m.group(1).lower())
        return (lib, m.group(2)) if lib else None
    m = _DLL_RE.match(name)
    if m:
        lib = {"nvinfer": "tensorrt"}.get(m.group(1).lower(), m.group(1).lower())
        version = m.group(2)
        if lib == "cudart" and len(version) == 3:
            version = f"{version[:2]}.{version[2]}"
        return lib, version
    return None


def parse_ldconfig_p(text: Optional[str]) -> list[tuple[str, str]]:
    """``ldconfig -p`` lines → ``[(soname, path), ...]`` in cache order."""
    entries: list[tuple[str, str]] = []
    for line in (text or "").splitlines():
        m = _LDCONFIG_RE.match(line)
        if m:
            entries.append((m.group(1), m.group(3)))
    return entries


_CACHE_NEW = b"glibc-ld.so.cache1.1"
_CACHE_OLD = b"ld.so-1.7.0"
_HEADER_NEW = 48  # magic+version 20, nlibs, len_strings, flags+pad, extension, unused[3]
_ENTRY_NEW = 24  # flags, key, value, osversion, hwcap (u64)


def parse_ld_so_cache(data: bytes) -> Optional[list[tuple[str, str]]]:
    """``/etc/ld.so.cache`` (glibc's binary format) → ``[(soname, path), ...]`` in
    cache order, as ``ldconfig -p`` lists them; None when the data is not a cache
    this parser understands (then ``ldconfig -p`` is asked instead).

    The "new" format (glibc >= 2.32 writes only it; older ones append it to the
    old format) is a 48-byte header, ``nlibs`` 24-byte entries and a string table;
    each entry's key (soname) and value (path) are offsets from the header.
    """
    import struct

    start = 0 if data.startswith(_CACHE_NEW) else data.find(_CACHE_NEW)
    if start < 0 or (start > 0 and not data.startswith(_CACHE_OLD)):
        return None
    order = "<" if sys.byteorder == "little" else ">"
    if len(data) < start + _HEADER_NEW:
        return None
    nlibs = struct.unpack_from(order + "I", data, start + 20)[0]
    end_entries = start + _HEADER_NEW + nlibs * _ENTRY_NEW
    if end_entries > len(data):
        return None
    out: list[tuple[str, str]] = []
    for i in range(nlibs):
        _flags, key, value = struct.unpack_from(order + "iII", data, start + _HEADER_NEW + i * 24)
        soname = _cstring(data, start + key, end_entries)
        path = _cstring(data, start + value, end_entries)
        if soname is None or path is None:
            return None
        out.append((soname, path))
    return out


def _cstring(data: bytes, offset: int, floor: int) -> Optional[str]:
    if not floor <= offset < len(data):
        return None
    end = data.find(b"\0", offset, offset + 4096)
    if end < 0:
        return None
    return data[offset:end].decode("utf-8", "surrogateescape")


def _major(version: Optional[str]) -> str:
    return (version or "").split(".")[0]


def _listdir(path: Path) -> list[str]:
    try:
        return sorted(os.listdir(path))  # noqa: PTH208 - names only, no Path per entry
    except OSError:
        return []


def _read(path: Path) -> Optional[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


class _Collector:
    def __init__(self, system: System) -> None:
        self.system = system
        self.libraries: list[Library] = []
        self.seen: set[tuple[str, str, str]] = set()
        self.resolved: dict[str, str] = {}

    def _dir_key(self, machine_dir: str) -> str:
        # Asked once per library found: follow the directory's links once.
        key = self.resolved.get(machine_dir)
        if key is None:
            key = self.resolved[machine_dir] = resolve_machine_path(self.system, machine_dir)
        return key

    def add(self, lib: Library, machine_dir: Optional[str]) -> None:
        assert lib.name is not None
        key = (lib.name, _major(lib.version), self._dir_key(machine_dir) if machine_dir else "")
        if machine_dir and key in self.seen:
            return
        if machine_dir:
            self.seen.add(key)
        self.libraries.append(lib)

    def scan_dir(
        self,
        machine_dir: str,
        source: str,
        headers: Optional[Mapping[str, str]] = None,
    ) -> set[str]:
        """Add the libraries in one directory; returns the names found."""
        best: dict[tuple[str, str], tuple[str, str]] = {}
        for name in _listdir(self.system.path(self._dir_key(machine_dir))):
            parsed = parse_library_filename(name)
            if parsed is None:
                continue
            lib, version = parsed
            slot = (lib, _major(version))
            if slot not in best or len(version) > len(best[slot][0]):
                best[slot] = (version, name)
        sep = "\\" if self.system.platform == "win32" else "/"
        for (lib, major), (version, name) in sorted(best.items()):
            header = (headers or {}).get(lib)
            if header and _major(header) == major and len(header) > len(version):
                version = header
            self.add(
                Library(
                    name=lib,
                    version=version,
                    path=f"{machine_dir.rstrip('/')}{sep}{name}",
                    source=source,
                ),
                machine_dir,
            )
        return {lib for lib, _ in best}


def read_cudnn_headers(
    system: System, ctx: Context, include_dirs: Iterable[str]
) -> list[tuple[str, str]]:
    """(version, header path) for each readable cuDNN header in ``include_dirs``."""
    found: list[tuple[str, str]] = []
    for directory in include_dirs:
        host = system.path(resolve_machine_path(system, directory))
        names = ["cudnn_version.h"] + [
            n for n in _listdir(host) if re.match(r"^cudnn_version_v\d+\.h$", n)
        ]
        if not (host / "cudnn_version.h").is_file():
            names.append("cudnn.h")
        for name in names:
            text = _read(host / name)
            if text is None:
                continue
            version = parse_cudnn_version_header(text)
            path = posixpath.join(directory.replace("\\", "/"), name)
            if version is None:
                if name != "cudnn.h" or "CUDNN_MAJOR" in text:
                    ctx.error(PROBE, f"{path}: no CUDNN_MAJOR/MINOR/PATCHLEVEL defines")
                continue
            if all(v != version for v, _ in found):
                found.append((version, path))
    return found


_VERSION_JSON_KEYS = {"cuda_cudart": "cudart", "libcublas": "cublas", "libnvjitlink": "nvjitlink"}
_DIST_INFO_LIB_RE = re.compile(
    r"^nvidia_(cuda_runtime|cublas|nvjitlink)(?:_cu\d+)?-(\d+\.\d+(?:\.\d+)*)\.dist-info$"
)


def parse_toolkit_component_versions(
    version_json: Optional[str], dist_info_names: Iterable[str] = ()
) -> dict[str, str]:
    """Library versions a toolkit declares: ``version.json`` components
    (``cuda_cudart``, ``libcublas``, ``libnvjitlink``) or wheel dist-info names."""
    found: dict[str, str] = {}
    try:
        data = json.loads(version_json) if version_json else None
    except ValueError:
        data = None
    if isinstance(data, dict):
        for key, lib in _VERSION_JSON_KEYS.items():
            entry = data.get(key)
            version = entry.get("version") if isinstance(entry, dict) else None
            if isinstance(version, str) and re.match(r"^\d+(\.\d+)*$", version):
                found[lib] = version
    for name in dist_info_names:
        m = _DIST_INFO_LIB_RE.match(name)
        if m:
            lib = {"cuda_runtime": "cudart"}.get(m.group(1), m.group(1))
            found.setdefault(lib, m.group(2))
    return found


def _place(
    col: _Collector,
    ctx: Context,
    include_dirs: Iterable[str],
    lib_dirs: Iterable[str],
    source: str,
    known: Optional[Mapping[str, str]] = None,
) -> None:
    """One place: headers (and a toolkit's own manifest) refine the libraries
    found next to them."""
    headers = read_cudnn_headers(col.system, ctx, include_dirs)
    header_map = dict(known or {})
    if headers:
        header_map["cudnn"] = headers[0][0]
    found: set[str] = set()
    for directory in lib_dirs:
        found |= col.scan_dir(directory, source, header_map)
    if "cudnn" not in found:
        for version, path in headers:
            col.add(Library(name="cudnn", version=version, path=path, source=source), None)


def _conda(system: System, ctx: Context, col: _Collector) -> None:
    prefix = ctx.conda_prefix or system.env.get("CONDA_PREFIX") or None
    if not prefix:
        return
    packages: Mapping[str, str] = ctx.conda_packages
    if not packages:
        meta: dict[str, str] = {}
        for name in _listdir(system.path(prefix) / "conda-meta"):
            parsed = parse_conda_meta_filename(name)
            if parsed:
                meta.setdefault(parsed[0], parsed[1])
        packages = meta
    windows = system.platform == "win32"
    lib_dir = f"{prefix}\\Library\\bin" if windows else posixpath.join(prefix, "lib")
    inc_dir = f"{prefix}\\Library\\include" if windows else posixpath.join(prefix, "include")
    header_map = {lib: packages[pkg] for pkg, lib in CONDA_LIBRARIES if pkg in packages}
    headers = read_cudnn_headers(system, ctx, (inc_dir,))
    if headers and "cudnn" not in header_map:
        header_map["cudnn"] = headers[0][0]
    found = col.scan_dir(lib_dir, "conda", header_map)
    for lib, version in header_map.items():
        if lib not in found:
            col.add(Library(name=lib, version=version, path=prefix, source="conda"), None)


def _pip(system: System, ctx: Context, col: _Collector) -> None:
    done: set[str] = set()
    for package, lib, subdir in PIP_LIBRARIES:
        version = ctx.packages.get(package)
        if not version or lib in done:
            continue
        done.add(lib)
        path: Optional[str] = None
        for site in ctx.site_dirs:
            base = site.replace("\\", "/").rstrip("/")
            for rel in (f"nvidia/{subdir}/lib", f"nvidia/{subdir}", subdir, "nvidia/cu13/lib"):
                candidate = f"{base}/{rel}"
                if system.path(candidate).is_dir():
                    path = candidate
                    break
            if path:
                break
        col.add(Library(name=lib, version=version, path=path, source="pip"), None)


def _system_cache(system: System) -> Optional[list[tuple[str, str]]]:
    """The dynamic linker's cache read from ``/etc/ld.so.cache`` (no subprocess)."""
    try:
        with system.path(LD_SO_CACHE).open("rb") as fh:
            data = fh.read(MAX_LD_SO_CACHE + 1)
    except OSError:
        return None
    if len(data) > MAX_LD_SO_CACHE:
        return None
    return parse_ld_so_cache(data)


def _ldconfig(system: System, ctx: Context, col: _Collector) -> None:
    entries = _system_cache(system)
    if entries is None:
        entries = _ldconfig_p(system, ctx)
    for soname, path in entries:
        parsed = parse_library_filename(soname)
        if parsed is None:
            continue
        directory = posixpath.dirname(path)
        lib, version = parsed
        col.add(Library(name=lib, version=version, path=path, source="system"), directory)


def _ldconfig_p(system: System, ctx: Context) -> list[tuple[str, str]]:
    """Fallback when the cache file is missing or unparseable: ``ldconfig -p``."""
    exe = system.find_executable("ldconfig")
    if exe is None:
        for candidate in ("/sbin/ldconfig", "/usr/sbin/ldconfig"):
            if system.path(candidate).is_file():
                exe = candidate
                break
    if exe is None:
        return []
    result = system.run((exe, "-p"), LDCONFIG_TIMEOUT)
    if not result.ok:
        if result.timed_out:
            ctx.error(PROBE, result.describe_failure("ldconfig -p"))
        return []
    return parse_ldconfig_p(result.stdout)


def probe_libraries(system: System, ctx: Context) -> None:
    """Fill ``ctx.libraries``."""
    col = _Collector(system)
    windows = system.platform == "win32"
    if not windows:
        for entry in system.env.get("LD_LIBRARY_PATH", "").split(":"):
            if entry.strip():
                col.scan_dir(entry.strip(), "LD_LIBRARY_PATH")
    for tk in ctx.cuda_toolkits:
        if not tk.path or tk.source in ("conda", "pip"):
            continue
        sep = "\\" if windows else "/"
        base = tk.path.rstrip("/\\")
        libs = ("bin", "lib\\x64") if windows else ("lib64", "lib", "targets/x86_64-linux/lib")
        host = system.path(base)
        known = parse_toolkit_component_versions(
            _read(host / "version.json"), _listdir(host / "dist-info")
        )
        _place(
            col,
            ctx,
            (f"{base}{sep}include",),
            tuple(f"{base}{sep}{d}" for d in libs),
            "toolkit",
            known,
        )
    if system.platform.startswith("linux"):
        _place(col, ctx, SYSTEM_INCLUDE_DIRS, SYSTEM_LIB_DIRS, "system")
        _ldconfig(system, ctx, col)
    if windows:
        for entry in system.env.get("PATH", "").split(";"):
            if entry.strip():
                col.scan_dir(entry.strip(), "PATH")
    _conda(system, ctx, col)
    _pip(system, ctx, col)
    ctx.libraries.extend(col.libraries)

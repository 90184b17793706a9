"""Load the matrix TOML files into frozen rows, validating as we go.

A malformed or inconsistent file raises ``InputError`` naming the file, the line
of the offending row and the field. TOML syntax errors carry the parser's line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

from envcheck.errors import InputError
from envcheck.matrix.rows import (
    ArchFloor,
    Architecture,
    Build,
    BuildRoute,
    Companion,
    CondaAbsent,
    CondaCudaPackage,
    CondaPackage,
    CudaRelease,
    CudnnRelease,
    DriverBranch,
    ForwardCompat,
    GpuModel,
    KerasPin,
    KerasRelease,
    LibraryLoader,
    MinorCompat,
    NvidiaPin,
    Origin,
    PatchRule,
    RetiredArch,
    SharedGpuName,
    ToolkitArchs,
)
from envcheck.model.versions import (
    ComputeCapability,
    CudaVersion,
    DriverVersion,
    parse_compute_capability,
    parse_cuda_version,
    parse_driver_version,
)

SCHEMA_VERSION = 1
FRAMEWORK_FILES = ("torch", "tensorflow", "jax", "cupy", "onnxruntime", "paddle")
DOMAINS = (
    "cuda_driver",
    "cuda_arch",
    "gpus",
    "cudnn",
    "driver_branches",
    *FRAMEWORK_FILES,
    "keras",
    "conda",
)
_COMMON = {"source", "verified", "note"}
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
T = TypeVar("T")


class RowReader:
    """Typed access to one TOML row; every failure names file, line and field."""

    def __init__(self, file: str, table: str, index: int, line: int, data: Any) -> None:
        self.file = file
        self.table = table
        self.index = index
        self.line = line
        if not isinstance(data, dict):
            self.fail(None, "must be a table")
        self.data: dict[str, Any] = data
        self.used: set[str] = set(_COMMON)

    def fail(self, key: Optional[str], message: str) -> InputError:
        where = f"[[{self.table}]] #{self.index + 1}"
        if key:
            where += f" field '{key}'"
        raise InputError(self.file, self.line, f"{where}: {message}")

    def _get(self, key: str, required: bool) -> Any:
        self.used.add(key)
        value = self.data.get(key)
        if value is None and required:
            self.fail(key, "is required")
        return value

    def string(self, key: str, required: bool = True) -> Any:
        value = self._get(key, required)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            self.fail(key, f"expected a non-empty string, got {value!r}")
        return value

    def url(self, key: str) -> Optional[str]:
        value = self.string(key, required=False)
        if value is not None and not re.match(r"^https?://", value):
            self.fail(key, f"must be an http(s) URL, got {value!r}")
        return value  # type: ignore[no-any-return]

    def boolean(self, key: str, required: bool = False) -> Optional[bool]:
        value = self._get(key, required)
        if value is not None and not isinstance(value, bool):
            self.fail(key, f"expected true or false, got {value!r}")
        return None if value is None else bool(value)

    def integer(self, key: str, required: bool = True) -> Any:
        value = self._get(key, required)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            self.fail(key, f"expected an integer, got {value!r}")
        return value

    def number(self, key: str) -> Optional[float]:
        value = self._get(key, False)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            self.fail(key, f"expected a number, got {value!r}")
        return None if value is None else float(value)

    def strings(self, key: str, required: bool = False) -> tuple[str, ...]:
        value = self._get(key, required)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(key, f"expected a list of strings, got {value!r}")
        return tuple(value)

    def driver(self, key: str, required: bool = False) -> Optional[DriverVersion]:
        raw = self.string(key, required)
        if raw is None:
            return None
        parsed = parse_driver_version(raw)
        if parsed is None:
            self.fail(key, f"expected a driver version like '535.104.05', got {raw!r}")
        return parsed

    def cuda(self, key: str, required: bool = False) -> Optional[CudaVersion]:
        raw = self.string(key, required)
        if raw is None:
            return None
        if not re.match(r"^\d{1,2}\.\d{1,2}(\.\d+)?$", raw):
            self.fail(key, f"expected a CUDA version like '12.4', got {raw!r}")
        return parse_cuda_version(raw)

    def cc(self, key: str, example: str = "8.9") -> ComputeCapability:
        """A required compute capability written ``major.minor``."""
        raw = self.string(key)
        cc = parse_compute_capability(raw)
        if cc is None or not re.match(r"^\d{1,2}\.\d$", raw):
            self.fail(key, f"expected e.g. {example!r}, got {raw!r}")
        assert cc is not None
        return cc

    def specifier(self, key: str, required: bool = True) -> Any:
        """A PEP 440 version specifier (``>=2.16,<2.17``), kept as written."""
        spec = self.string(key, required=required)
        if spec is not None:
            from packaging.specifiers import InvalidSpecifier, SpecifierSet

            try:
                SpecifierSet(spec)
            except InvalidSpecifier:
                self.fail(key, f"{spec!r} is not a PEP 440 specifier")
        return spec

    def ccs(self, key: str, required: bool = False) -> tuple[ComputeCapability, ...]:
        out = []
        for raw in self.strings(key, required):
            if not re.match(r"^\d{1,2}\.\d$", raw):
                self.fail(key, f"expected compute capabilities like '8.9', got {raw!r}")
            cc = parse_compute_capability(raw)
            assert cc is not None
            out.append(cc)
        return tuple(out)

    def python_versions(self, key: str, required: bool = False) -> tuple[str, ...]:
        values = self.strings(key, required)
        for raw in values:
            if not re.match(r"^3\.\d{1,2}$|^2\.7$", raw):
                self.fail(key, f"expected Python versions like '3.11', got {raw!r}")
        return values

    def origin(self) -> Origin:
        source = self.string("source")
        if not re.match(r"^https?://", source):
            self.fail("source", f"must be an http(s) URL, got {source!r}")
        verified = self.boolean("verified", required=True)
        assert verified is not None
        note = self.string("note", required=False)
        return Origin(source, verified, self.file, self.line, note)

    def finish(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            self.fail(unknown[0], "unknown field (typo?)")


def _table_lines(text: str, table: str) -> list[int]:
    """Line numbers of each ``[[table]]`` header, in order."""
    pattern = re.compile(r"^[ \t]*\[\[[ \t]*" + re.escape(table) + r"[ \t]*\]\]", re.MULTILINE)
    lines, line, pos = [], 1, 0
    for m in pattern.finditer(text):  # count on from the previous header, not from 0
        line += text.count("\n", pos, m.start())
        pos = m.start()
        lines.append(line)
    return lines


def _rows(
    file: str,
    text: str,
    doc: Mapping[str, Any],
    table: str,
    build: Callable[[RowReader], T],
) -> list[T]:
    items = doc.get(table, [])
    if not isinstance(items, list):
        raise InputError(file, None, f"'{table}' must be an array of tables ([[{table}]])")
    lines = _table_lines(text, table)
    out = []
    for i, item in enumerate(items):
        line = lines[i] if i < len(lines) else 1
        row = RowReader(file, table, i, line, item)
        out.append(build(row))
        row.finish()
    return out


def parse_toml(text: str, file: str) -> dict[str, Any]:
    """Parse TOML text through the input gate; errors are ``file:line: message``."""
    from envcheck.inputs import parse_toml as gated

    return gated(text, file)


def check_header(doc: Mapping[str, Any], file: str, what: str = "matrix") -> str:
    """Validate ``schema_version``/``data_version``; returns the data version."""
    version = doc.get("schema_version")
    if version is None:
        raise InputError(file, 1, "missing schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise InputError(file, 1, f"schema_version must be an integer, got {version!r}")
    if version > SCHEMA_VERSION:
        raise InputError(
            file,
            1,
            f"{what} schema_version {version} is newer than this envcheck; upgrade",
        )
    data_version = doc.get("data_version")
    if not isinstance(data_version, str) or not _DATE_RE.match(data_version):
        raise InputError(file, 1, f"data_version must be a date 'YYYY-MM-DD', got {data_version!r}")
    return data_version


def _unknown_tables(doc: Mapping[str, Any], file: str, text: str, known: Iterable[str]) -> None:
    allowed = {"schema_version", "data_version", *known}
    for key in doc:
        if key not in allowed:
            lines = _table_lines(text, key)
            raise InputError(file, lines[0] if lines else None, f"unknown table '{key}'")


def read_cuda_driver(file: str, text: str, doc: Mapping[str, Any]) -> dict[str, Any]:
    def release(r: RowReader) -> CudaRelease:
        version = r.string("version")
        cuda = r.cuda("version", required=True)
        assert cuda is not None
        return CudaRelease(
            version=version,
            cuda=cuda,
            label=r.string("label", required=False),
            linux_min_driver=r.driver("linux_min_driver"),
            windows_min_driver=r.driver("windows_min_driver"),
            origin=r.origin(),
        )

    def minor(r: RowReader) -> MinorCompat:
        return MinorCompat(
            cuda_major=r.integer("cuda_major"),
            linux_min_driver=r.driver("linux_min_driver"),
            windows_min_driver=r.driver("windows_min_driver"),
            not_covered=r.strings("not_covered"),
            origin=r.origin(),
        )

    def forward(r: RowReader) -> ForwardCompat:
        return ForwardCompat(
            cuda_major=r.integer("cuda_major"),
            gpus=r.string("gpus", required=False),
            notes=r.string("notes", required=False),
            origin=r.origin(),
        )

    _unknown_tables(doc, file, text, ("release", "minor_compat", "forward_compat"))
    return {
        "cuda_releases": _rows(file, text, doc, "release", release),
        "minor_compat": _rows(file, text, doc, "minor_compat", minor),
        "forward_compat": _rows(file, text, doc, "forward_compat", forward),
    }


def read_cuda_arch(file: str, text: str, doc: Mapping[str, Any]) -> dict[str, Any]:
    def toolkit(r: RowReader) -> ToolkitArchs:
        cuda = r.cuda("cuda", required=True)
        assert cuda is not None
        return ToolkitArchs(
            cuda=cuda,
            compute_capabilities=r.ccs("compute_capabilities", required=True),
            deprecated=r.ccs("deprecated"),
            origin=r.origin(),
        )

    _unknown_tables(doc, file, text, ("toolkit",))
    return {"toolkit_archs": _rows(file, text, doc, "toolkit", toolkit)}


def read_gpus(file: str, text: str, doc: Mapping[str, Any]) -> dict[str, Any]:
    def arch(r: RowReader) -> Architecture:
        return Architecture(
            name=r.string("name"),
            compute_capabilities=r.ccs("compute_capabilities", required=True),
            tensor_cores=r.boolean("tensor_cores"),
            bf16=r.boolean("bf16"),
            tf32=r.boolean("tf32"),
            fp8=r.boolean("fp8"),
            fp16_fast=r.boolean("fp16_fast"),
            last_driver_branch=r.string("last_driver_branch", required=False),
            origin=r.origin(),
        )

    def gpu(r: RowReader) -> GpuModel:
        return GpuModel(
            name=r.string("name"),
            compute_capability=r.cc("compute_capability"),
            architecture=r.string("architecture"),
            segment=r.string("segment", required=False),
            aliases=r.strings("aliases"),
            memory_gib=r.number("memory_gib"),
            memory_bandwidth_gbs=r.number("memory_bandwidth_gbs"),
            origin=r.origin(),
        )

    def shared(r: RowReader) -> SharedGpuName:
        chips = r.strings("chips", required=True)
        ccs = r.ccs("compute_capabilities", required=True)
        if len(chips) != len(ccs):
            r.fail("chips", f"{len(chips)} chips but {len(ccs)} compute capabilities")
        if len(set(ccs)) < 2:
            r.fail(
                "compute_capabilities",
                "needs two or more different values (one name for one capability is a [[gpu]] row)",
            )
        return SharedGpuName(
            name=r.string("name"),
            aliases=r.strings("aliases"),
            segment=r.string("segment", required=False),
            chips=chips,
            compute_capabilities=ccs,
            origin=r.origin(),
        )

    _unknown_tables(doc, file, text, ("architecture", "gpu", "shared_name"))
    return {
        "architectures": _rows(file, text, doc, "architecture", arch),
        "gpus": _rows(file, text, doc, "gpu", gpu),
        "shared_gpu_names": _rows(file, text, doc, "shared_name", shared),
    }


def read_cudnn(file: str, text: str, doc: Mapping[str, Any]) -> dict[str, Any]:
    def release(r: RowReader) -> CudnnRelease:
        version = r.string("version")
        if not re.match(r"^\d+\.\d+(\.\d+){0,2}$", version):
            r.fail("version", f"expected a cuDNN version like '8.9.7', got {version!r}")
        return CudnnRelease(
            version=version,
            cuda_major=r.integer("cuda_major"),
            cuda_min=r.cuda("cuda_min"),
            cuda_max=r.cuda("cuda_max"),
            linux_min_driver=r.driver("linux_min_driver"),
            windows_min_driver=r.driver("windows_min_driver"),
            compute_capabilities=r.ccs("compute_capabilities"),
            os=r.strings("os"),
            origin=r.origin(),
        )

    _unknown_tables(doc, file, text, ("release",))
    return {"cudnn_releases": _rows(file, text, doc, "release", release)}


def read_driver_branches(file: str, text: str, doc: Mapping[str, Any]) -> dict[str, Any]:
    def branch(r: RowReader) -> DriverBranch:
        raw = r.string("branch")
        if not raw.isdigit():
            r.fail("branch", f"expected a branch number like '535', got {raw!r}")
        cuda = r.cuda("max_cuda", required=True)
        assert cuda is not None
        return DriverBranch(branch=int(raw), max_cuda=cuda, origin=r.origin())

    def retired(r: RowReader) -> RetiredArch:
        raw = r.string("last_branch")
        if not raw.isdigit():
            r.fail("last_branch", f"expected a branch number like '470', got {raw!r}")
        return RetiredArch(
            architecture=r.string("architecture"),
            last_branch=int(raw),
            origin=r.origin(),
        )

    _unknown_tables(doc, file, text, ("branch", "retired"))
    return {
        "driver_branches": _rows(file, text, doc, "branch", branch),
        "retired_archs": _rows(file, text, doc, "retired", retired),
    }


def _check_version(r: RowReader, key: str, raw: str) -> None:
    from packaging.version import InvalidVersion, Version

    try:
        Version(raw)
    except InvalidVersion:
        r.fail(key, f"{raw!r} is not a valid version")


def read_framework(
    name: str,
) -> Callable[[str, str, Mapping[str, Any]], dict[str, Any]]:
    def read(file: str, text: str, doc: Mapping[str, Any]) -> dict[str, Any]:
        def build(r: RowReader) -> Build:
            versions = r.strings("versions", required=True)
            if not versions:
                r.fail("versions", "must not be empty")
            for v in versions:
                _check_version(r, "versions", v)
            archs = r.ccs("archs") if "archs" in r.data else None
            ptx = r.ccs("ptx") if "ptx" in r.data else None
            platforms = r.strings("platforms")
            for p in platforms:
                if p not in PLATFORMS:
                    r.fail(
                        "platforms",
                        f"unknown platform {p!r} (known: {', '.join(PLATFORMS)})",
                    )
            return Build(
                framework=name,
                versions=versions,
                variant=r.string("variant"),
                package=r.string("package"),
                extra=r.string("extra", required=False),
                cuda=r.cuda("cuda"),
                cudnn=r.string("cudnn", required=False),
                bundles_cuda=r.boolean("bundles_cuda"),
                python=r.python_versions("python"),
                platforms=platforms,
                archs=archs,
                ptx=ptx,
                index_url=r.string("index_url", required=False),
                pypi_default=r.boolean("pypi_default"),
                origin=r.origin(),
                find_links=r.url("find_links"),
                withdrawn=r.boolean("withdrawn") is True,
            )

        def companion(r: RowReader) -> Companion:
            version = r.string("version")
            _check_version(r, "version", version)
            return Companion(
                version=version,
                torchvision=r.string("torchvision", required=False),
                torchaudio=r.string("torchaudio", required=False),
                origin=r.origin(),
            )

        def arch_floor(r: RowReader) -> ArchFloor:
            spec = r.specifier("versions")
            return ArchFloor(
                framework=name,
                versions=spec,
                compute_capability=r.cc("compute_capability", example="3.5"),
                origin=r.origin(),
                cuda=r.specifier("cuda", required=False),
            )

        def loader(r: RowReader) -> LibraryLoader:
            platforms = _known_platforms(r)
            search = r.string("search")
            if search not in LOADER_SEARCHES:
                r.fail("search", f"unknown search {search!r} (known: {', '.join(LOADER_SEARCHES)})")
            return LibraryLoader(
                framework=name,
                versions=r.specifier("versions"),
                platforms=platforms,
                search=search,
                origin=r.origin(),
            )

        def route(r: RowReader) -> BuildRoute:
            platforms = _known_platforms(r)
            index = r.url("index_url")
            if index is None:
                r.fail("index_url", "is required")
            return BuildRoute(
                framework=name,
                versions=r.specifier("versions"),
                package=r.string("package"),
                index_url=index or "",
                platforms=platforms,
                python=r.python_versions("python"),
                min_compute_capability=r.cc("min_compute_capability", example="8.0"),
                origin=r.origin(),
            )

        def patch_rule(r: RowReader) -> PatchRule:
            return PatchRule(framework=name, versions=r.specifier("versions"), origin=r.origin())

        def nvidia_pin(r: RowReader) -> NvidiaPin:
            versions = r.strings("versions", required=True)
            if not versions:
                r.fail("versions", "must not be empty")
            for v in versions:
                _check_version(r, "versions", v)
            requires = r.strings("requires", required=True)
            from packaging.requirements import InvalidRequirement, Requirement

            for text_ in requires:
                try:
                    req = Requirement(text_)
                except InvalidRequirement:
                    r.fail("requires", f"{text_!r} is not a PEP 508 requirement")
                if req.marker is not None:
                    r.fail("requires", f"{text_!r}: leave markers out (the pins are linux-x86_64)")
            return NvidiaPin(
                framework=name,
                package=r.string("package"),
                extra=r.string("extra", required=False),
                variant=r.string("variant"),
                versions=versions,
                requires=requires,
                origin=r.origin(),
            )

        tables: tuple[str, ...] = ("build", "patch_rule")
        if name == "torch":
            tables += ("companion", "arch_floor")
        if name in NVIDIA_PIN_FILES:
            tables += ("nvidia_pin",)
        tables += ("loader", "route")
        _unknown_tables(doc, file, text, tables)
        out: dict[str, Any] = {
            "builds": _rows(file, text, doc, "build", build),
            "patch_rules": _rows(file, text, doc, "patch_rule", patch_rule),
        }
        if name == "torch":
            out["companions"] = _rows(file, text, doc, "companion", companion)
            out["arch_floors"] = _rows(file, text, doc, "arch_floor", arch_floor)
        if name in NVIDIA_PIN_FILES:
            out["nvidia_pins"] = _rows(file, text, doc, "nvidia_pin", nvidia_pin)
        out["library_loaders"] = _rows(file, text, doc, "loader", loader)
        out["build_routes"] = _rows(file, text, doc, "route", route)
        return out

    return read


def _known_platforms(r: RowReader) -> tuple[str, ...]:
    """A row's required ``platforms``, each one the loader knows."""
    platforms = r.strings("platforms", required=True)
    for p in platforms:
        if p not in PLATFORMS:
            r.fail("platforms", f"unknown platform {p!r} (known: {', '.join(PLATFORMS)})")
    return platforms


def read_keras(file: str, text: str, doc: Mapping[str, Any]) -> dict[str, Any]:
    def release(r: RowReader) -> KerasRelease:
        versions = r.strings("versions", required=True)
        for v in versions:
            _check_version(r, "versions", v)
        spec = r.specifier("tensorflow", required=False)
        requires_python = r.specifier("requires_python", required=False)
        return KerasRelease(
            versions=versions,
            tensorflow=spec,
            backends=r.strings("backends"),
            python=r.python_versions("python"),
            requires_python=requires_python,
            origin=r.origin(),
        )

    def pin(r: RowReader) -> KerasPin:
        tensorflow = r.strings("tensorflow", required=True)
        for v in tensorflow:
            _check_version(r, "tensorflow", v)
        keras = r.specifier("keras")
        return KerasPin(tensorflow=tensorflow, keras=keras, origin=r.origin())

    _unknown_tables(doc, file, text, ("release", "tensorflow_pin"))
    return {
        "keras_releases": _rows(file, text, doc, "release", release),
        "keras_pins": _rows(file, text, doc, "tensorflow_pin", pin),
    }


# Framework files that may hold [[nvidia_pin]] rows (wheel Requires-Dist pins).
NVIDIA_PIN_FILES = ("torch", "tensorflow")
LOADER_SEARCHES = ("path",)
"""``[[loader]]`` searches: ``path`` = the OS search order only (see ``LibraryLoader``)."""

PLATFORMS = (
    "linux-x86_64",
    "linux-aarch64",
    "linux-ppc64le",
    "windows-x86_64",
    "macos-arm64",
    "macos-x86_64",
)

CONDA_CHANNELS = ("defaults", "conda-forge", "pytorch", "nvidia")


CONDA_CUDA_PACKAGES = ("cuda-version", "cudatoolkit")


def read_conda(file: str, text: str, doc: Mapping[str, Any]) -> dict[str, Any]:
    def channel(r: RowReader) -> str:
        value = r.string("channel")
        if value not in CONDA_CHANNELS:
            r.fail("channel", f"expected one of {', '.join(CONDA_CHANNELS)}, got {value!r}")
        return str(value)

    def package(r: RowReader) -> CondaPackage:
        chan = channel(r)
        name = r.string("name")
        versions = r.strings("versions", required=True)
        for v in versions:
            _check_version(r, "versions", v)
        cuda = r.string("cuda", required=False)
        if cuda is not None and not re.match(r"^\d{1,2}\.\d{1,2}$", cuda):
            r.fail("cuda", f"expected MAJOR.MINOR like '10.0', got {cuda!r}")
        cudnn = r.string("cudnn", required=False)
        if cudnn is not None and not re.match(r"^\d{1,2}$", cudnn):
            r.fail("cudnn", f"expected a cuDNN major like '7', got {cudnn!r}")
        return CondaPackage(
            channel=chan,
            name=name,
            pip=r.string("pip"),
            versions=versions,
            platforms=_known_platforms(r),
            python=r.python_versions("python"),
            cuda=cuda,
            cudnn=cudnn,
            origin=r.origin(),
        )

    def absent(r: RowReader) -> CondaAbsent:
        return CondaAbsent(
            channel=channel(r),
            name=r.string("name"),
            pip=r.strings("pip", required=True),
            platforms=_known_platforms(r),
            origin=r.origin(),
        )

    def cuda_package(r: RowReader) -> CondaCudaPackage:
        chan = channel(r)
        name = r.string("name")
        if name not in CONDA_CUDA_PACKAGES:
            r.fail("name", f"expected one of {', '.join(CONDA_CUDA_PACKAGES)}, got {name!r}")
        versions = r.strings("versions", required=True)
        for v in versions:
            if not re.match(r"^\d{1,2}\.\d{1,2}$", v):
                r.fail("versions", f"expected MAJOR.MINOR like '12.4', got {v!r}")
        return CondaCudaPackage(channel=chan, name=name, versions=versions, origin=r.origin())

    _unknown_tables(doc, file, text, ("package", "absent", "cuda_package"))
    return {
        "conda_packages": _rows(file, text, doc, "package", package),
        "conda_absent": _rows(file, text, doc, "absent", absent),
        "conda_cuda_packages": _rows(file, text, doc, "cuda_package", cuda_package),
    }


READERS: dict[str, Callable[[str, str, Mapping[str, Any]], dict[str, Any]]] = {
    "cuda_driver": read_cuda_driver,
    "cuda_arch": read_cuda_arch,
    "gpus": read_gpus,
    "cudnn": read_cudnn,
    "driver_branches": read_driver_branches,
    **{name: read_framework(name) for name in FRAMEWORK_FILES},
    "keras": read_keras,
    "conda": read_conda,
}


def read_domain(domain: str, text: str, file: str) -> tuple[str, dict[str, Any]]:
    """Parse and validate one domain file; returns (data_version, rows by kind)."""
    doc = parse_toml(text, file)
    data_version = check_header(doc, file)
    return data_version, READERS[domain](file, text, doc)


def matrix_dir_files(directory: Path) -> dict[str, Path]:
    """The domain files present in a matrix directory (anything at the path: a
    FIFO or directory there is refused by the reader, not silently skipped)."""
    return {d: directory / f"{d}.toml" for d in DOMAINS if (directory / f"{d}.toml").exists()}

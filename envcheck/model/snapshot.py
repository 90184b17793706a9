"""The machine snapshot: one versioned, serialisable description of a GPU stack.

Everything after detection (doctor, plan, check) is a pure function of a
``Snapshot`` and the matrix. The JSON keys here are a public contract
(``envcheck/schemas/snapshot-1.schema.json``); unknown facts are ``null``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Optional

from envcheck.model._fields import (
    OPT_STR_MAP,
    STR_MAP,
    Many,
    SchemaError,
    dump_fields,
    frozen_map,
    load_fields,
    unknown_keys,
)
from envcheck.model._frozen import field, record, replace

SCHEMA = "envcheck.snapshot/1"
SCHEMA_PREFIX = "envcheck.snapshot/"
SCHEMA_VERSION = 1
UNKNOWN_KEY_PROBE = "snapshot"
UNREADABLE_VALUE_PROBE = "snapshot-value"
"""Probe name of a snapshot value the flag parser would refuse (``"driver": {"version":
"abc"}``): the value is dropped (unknown) and the doctor says so."""
"""The probe name under which keys a snapshot file had but envcheck does not
know are reported."""


MAX_ENTRIES: Mapping[str, int] = {
    "gpus": 1024,
    "cuda_toolkits": 64,
    "libraries": 4096,
    "packages": 20_000,
    "conda_packages": 20_000,
    "frameworks": 16,
    "env": 4096,
    "errors": 1024,
    "probes": 256,
}
"""The most entries a snapshot file may list per section (README, "Snapshots").

Generous for any real machine (a node has at most a few hundred GPUs, an
environment a few thousand packages, a handful of frameworks) and small enough
that ``doctor`` on a snapshot at every cap stays well under a second: some
checks cost milliseconds per framework or GPU."""
MAX_BUILD_FACTS = 1024
"""The most entries of one framework's ``build`` object."""


def check_sizes(data: Mapping[str, Any]) -> None:
    """Refuse a snapshot section longer than :data:`MAX_ENTRIES` allows."""
    for name, cap in MAX_ENTRIES.items():
        value = data.get(name)
        if isinstance(value, (list, dict)) and len(value) > cap:
            raise SchemaError(
                name, f"{len(value)} entries, more than the {cap} a snapshot may list"
            )
    frameworks = data.get("frameworks")
    if isinstance(frameworks, list):
        for i, fw in enumerate(frameworks):
            build = fw.get("build") if isinstance(fw, dict) else None
            if isinstance(build, dict) and len(build) > MAX_BUILD_FACTS:
                raise SchemaError(
                    f"frameworks[{i}].build",
                    f"{len(build)} entries, more than the {MAX_BUILD_FACTS} a snapshot may list",
                )


class _Model:
    """Shared ``to_json``/``from_json`` driven by the class's ``_FIELDS``."""

    _FIELDS: ClassVar[tuple[tuple[str, Any], ...]] = ()

    def to_json(self) -> dict[str, Any]:
        return dump_fields(self)

    @classmethod
    def from_json(cls, data: Any, path: str = "") -> Any:
        return load_fields(cls, data, path)


@record
class Platform(_Model):
    os: Optional[str] = None
    """linux, windows or darwin."""
    arch: Optional[str] = None
    distro: Optional[str] = None
    distro_version: Optional[str] = None
    kernel: Optional[str] = None
    glibc: Optional[str] = None
    wsl: Optional[bool] = None
    container: Optional[str] = None
    """None, or docker / podman / kubernetes / lxc / containerd / singularity ..."""
    wsl_version: Optional[int] = None
    """1 or 2 under WSL (from the kernel release); None elsewhere or unknown."""
    gpu_device_nodes: Optional[tuple[str, ...]] = None
    """The GPU device files in /dev (``nvidiactl``, ``nvidia0``, ``nvidia-uvm``,
    ``dxg``): what this process can open, which decides GPU access in a container
    even where /proc/driver/nvidia shows the host's module. None: not looked at;
    empty: looked, none there."""

    _FIELDS: ClassVar[tuple[tuple[str, Any], ...]] = (
        ("os", str),
        ("arch", str),
        ("distro", str),
        ("distro_version", str),
        ("kernel", str),
        ("glibc", str),
        ("wsl", bool),
        ("container", str),
        ("wsl_version", int),
        ("gpu_device_nodes", Many(str, optional=True)),
    )


@record
class PythonInfo(_Model):
    version: Optional[str] = None
    implementation: Optional[str] = None
    executable: Optional[str] = None
    prefix: Optional[str] = None
    env_kind: Optional[str] = None
    """venv, conda or system."""
    conda_env: Optional[str] = None

    _FIELDS: ClassVar[tuple[tuple[str, Any], ...]] = (
        ("version", str),
        ("implementation", str),
        ("executable", str),
        ("prefix", str),
        ("env_kind", str),
        ("conda_env", str),
    )


@record
class Driver(_Model):
    version: Optional[str] = None
    """The driver version as NVIDIA prints it (raw string, e.g. ``535.104.05``)."""
    cuda_version: Optional[str] = None
    """Highest CUDA the driver supports (nvidia-smi's "CUDA Version")."""
    source: Optional[str] = None
    """nvml, nvidia-smi, proc or a combination."""
    kernel_module_version: Optional[str] = None
    nvml_library_version: Optional[str] = None

    _FIELDS: ClassVar[tuple[tuple[str, Any], ...]] = (
        ("version", str),
        ("cuda_version", str),
        ("source", str),
        ("kernel_module_version", str),
        ("nvml_library_version", str),
    )


@record
class Gpu(_Model):
    index: Optional[int] = None
    name: Optional[str] = None
    uuid: Optional[str] = None
    compute_capability: Optional[str] = None
    architecture: Optional[str] = None
    memory_total_mib: Optional[int] = None
    mig_mode: Optional[str] = None
    pcie_generation: Optional[int] = None
    pcie_width: Optional[int] = None
    pcie_max_generation: Optional[int] = None
    pcie_max_width: Optional[int] = None
    bus_id: Optional[str] = None
    memory_bus_width: Optional[int] = None
    """Memory interface width in bits (NVML)."""
    memory_clock_max_mhz: Optional[int] = None
    """Maximum memory clock in MHz (NVML); with the bus width it gives the peak
    memory bandwidth that --deep compares with."""

    _FIELDS: ClassVar[tuple[tuple[str, Any], ...]] = (
        ("index", int),
        ("name", str),
        ("uuid", str),
        ("compute_capability", str),
        ("architecture", str),
        ("memory_total_mib", int),
        ("mig_mode", str),
        ("pcie_generation", int),
        ("pcie_width", int),
        ("pcie_max_generation", int),
        ("pcie_max_width", int),
        ("bus_id", str),
        ("memory_bus_width", int),
        ("memory_clock_max_mhz", int),
    )


@record
class CudaToolkit(_Model):
    version: Optional[str] = None
    path: Optional[str] = None
    source: Optional[str] = None
    """nvcc, version.json, version.txt, conda, pip or CUDA_HOME."""

    _FIELDS: ClassVar[tuple[tuple[str, Any], ...]] = (
        ("version", str),
        ("path", str),
        ("source", str),
    )


FROM_MESSAGE = "message"
"""A fact's ``source`` (driver, library) when an error message (``explain``) states
it: true of the failing process, not found on this machine."""
LIB_NOT_LOADABLE = "not-loadable"
"""A library's source when a process was seen failing to open a library of that name
and major (its version): observed absent for that run, not installed."""


@record
class Library(_Model):
    name: Optional[str] = None
    """cudnn, cublas, cudart, nccl, nvjitlink, tensorrt, ..."""
    version: Optional[str] = None
    path: Optional[str] = None
    source: Optional[str] = None
    """system, toolkit, conda, pip or LD_LIBRARY_PATH; from ``explain``'s overlay,
    FROM_MESSAGE or LIB_NOT_LOADABLE."""

    _FIELDS: ClassVar[tuple[tuple[str, Any], ...]] = (
        ("name", str),
        ("version", str),
        ("path", str),
        ("source", str),
    )


@record
class Framework(_Model):
    name: Optional[str] = None
    """torch, tensorflow, jax, cupy, onnxruntime, paddle, keras, caffe."""
    version: Optional[str] = None
    cuda_version: Optional[str] = None
    """The CUDA the build was compiled with; None for CPU builds or when unknown."""
    cudnn_version: Optional[str] = None
    cpu_only: Optional[bool] = None
    package: Optional[str] = None
    """The distribution that provides it (tensorflow-gpu, cupy-cuda12x, ...)."""
    variant: Optional[str] = None
    """cpu, cu124, rocm6.2, cuda12 ..."""
    rocm_version: Optional[str] = None
    path: Optional[str] = None
    build: Mapping[str, str] = field(default_factory=frozen_map)
    """Other build facts read from files (key → value as text)."""

    _FIELDS: ClassVar[tuple[tuple[str, Any], ...]] = (
        ("name", str),
        ("version", str),
        ("cuda_version", str),
        ("cudnn_version", str),
        ("cpu_only", bool),
        ("package", str),
        ("variant", str),
        ("rocm_version", str),
        ("path", str),
        ("build", STR_MAP),
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "build", frozen_map(self.build))

    @property
    def cuda_shown(self) -> Optional[str]:
        """The build's CUDA as far as it is known: its version (``12.4``), or the
        major alone that a JAX plugin or a cupy-cudaXXx name gives (``13.x``)."""
        major = self.build.get("cuda_major")
        return self.cuda_version or (f"{major}.x" if major else None)


@record
class ProbeError(_Model):
    probe: Optional[str] = None
    message: Optional[str] = None
    detail: Optional[str] = None
    """The last lines a failed child process wrote to stderr (a traceback's end),
    bounded; None when there is nothing more than the message."""

    _FIELDS: ClassVar[tuple[tuple[str, Any], ...]] = (
        ("probe", str),
        ("message", str),
        ("detail", str),
    )

    def to_json(self) -> dict[str, Any]:
        # ``detail`` only where there is one: most errors are one line.
        data = dump_fields(self)
        if data.get("detail") is None:
            del data["detail"]
        return data


@record
class Snapshot(_Model):
    """Everything envcheck knows about one machine and one Python environment."""

    platform: Platform = field(default_factory=Platform)
    python: PythonInfo = field(default_factory=PythonInfo)
    driver: Driver = field(default_factory=Driver)
    gpus: tuple[Gpu, ...] = ()
    cuda_toolkits: tuple[CudaToolkit, ...] = ()
    libraries: tuple[Library, ...] = ()
    packages: Mapping[str, Optional[str]] = field(default_factory=frozen_map)
    """Installed distributions: name -> version; None when installed in an
    unknown version."""
    conda_packages: Mapping[str, Optional[str]] = field(default_factory=frozen_map)
    frameworks: tuple[Framework, ...] = ()
    env: Mapping[str, str] = field(default_factory=frozen_map)
    errors: tuple[ProbeError, ...] = ()
    envcheck_version: Optional[str] = None
    created_at: Optional[str] = None
    source: Optional[str] = None
    """Where the snapshot came from: detect, a file, collect_env, flags."""
    probes: tuple[str, ...] = ()
    """The detection probes that ran. A fact a probe that ran did not find is
    observed absent; a fact no probe looked for (a hand-written or pasted
    snapshot) is unknown."""

    _FIELDS: ClassVar[tuple[tuple[str, Any], ...]] = (
        ("platform", Platform),
        ("python", PythonInfo),
        ("driver", Driver),
        ("gpus", Many(Gpu)),
        ("cuda_toolkits", Many(CudaToolkit)),
        ("libraries", Many(Library)),
        ("packages", OPT_STR_MAP),
        ("conda_packages", OPT_STR_MAP),
        ("frameworks", Many(Framework)),
        ("env", STR_MAP),
        ("errors", Many(ProbeError)),
        ("envcheck_version", str),
        ("created_at", str),
        ("source", str),
        ("probes", Many(str)),
    )

    def __post_init__(self) -> None:
        # A frozen dataclass is only shallowly frozen: make mappings read-only.
        for name in ("packages", "conda_packages", "env"):
            object.__setattr__(self, name, frozen_map(getattr(self, name)))

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, **dump_fields(self)}

    def observed(self, probe: str) -> bool:
        """Whether ``probe`` ran, so that what it did not find is absent, not unknown."""
        return probe in self.probes

    def nvidia(self) -> Optional[bool]:
        """True: an NVIDIA GPU or driver is seen; False: the driver probe ran and
        found neither (and failed on nothing that hides one); None: not known."""
        if self.gpus or self.driver.version is not None:
            return True
        if any(
            f.build.get("is_cuda_available") == "True" and not f.rocm_version
            for f in self.frameworks
        ):
            return True  # a framework's own report: CUDA initialised
        if not self.observed("driver"):
            return None
        hidden = ("mismatch", "permission", "denied", "timed out", "timeout")
        for e in self.errors:
            if e.probe == "driver" and any(h in (e.message or "").lower() for h in hidden):
                return None
        return False

    @classmethod
    def from_json(cls, data: Any, path: str = "") -> Snapshot:
        """Load a snapshot dict; refuses other schemas and newer versions.

        Missing sections load as unknown (``None`` or empty), so hand-written
        partial snapshots work.
        """
        if not isinstance(data, dict):
            raise SchemaError(path, "a snapshot must be a JSON object")
        from envcheck.errors import clip, clip_repr

        schema = data.get("schema", SCHEMA)
        if not isinstance(schema, str) or not schema.startswith(SCHEMA_PREFIX):
            raise SchemaError(
                "schema", f"not an envcheck snapshot (schema is {clip_repr(schema, 60)})"
            )
        version = schema[len(SCHEMA_PREFIX) :]
        if not version.isdigit():
            raise SchemaError("schema", f"unknown snapshot schema {clip_repr(schema, 60)}")
        # No int() of an unbounded digit run (Python refuses over 4 300 digits).
        if len(version) > 6 or int(version) > SCHEMA_VERSION:
            raise SchemaError(
                "",
                f"snapshot written by a newer envcheck ({clip(schema, 60)}); upgrade envcheck",
            )
        # /1 is the only version so far; a /2 reader would migrate /1 here.
        for required_object in ("platform", "python", "driver"):
            if data.get(required_object) is None:
                data = {**data, required_object: {}}
        check_sizes(data)
        fields = {k: v for k, v in data.items() if k != "schema"}
        snapshot = _unreadable_values(load_fields(cls, fields, path))
        unknown = unknown_keys(cls, fields)
        if not unknown:
            return snapshot
        # Kept as probe errors so every consumer (doctor, fleet) reports them.
        notes = tuple(ProbeError(UNKNOWN_KEY_PROBE, line) for line in unknown[:20])
        return replace(snapshot, errors=snapshot.errors + notes)


def _unreadable_values(snapshot: Snapshot) -> Snapshot:
    """The snapshot with values ``--driver``/``--gpu`` would refuse made unknown, each
    recorded as an ``UNREADABLE_VALUE_PROBE`` error naming its JSON path.

    Refusing the file would also refuse snapshots envcheck wrote on a machine whose
    nvidia-smi printed something odd; dropping the value silently gave "no errors
    found" on a driver nobody could read (issue 26).
    """
    from envcheck.model.versions import (
        parse_compute_capability,
        parse_cuda_version,
        parse_driver_version,
    )

    notes: list[ProbeError] = []

    def readable(where: str, value: Optional[str], parse: Any, what: str) -> Optional[str]:
        if value is None or parse(value) is not None:
            return value
        shown = value if len(value) <= 60 else value[:57] + "..."
        notes.append(
            ProbeError(
                UNREADABLE_VALUE_PROBE, f"{where} {shown!r} is not {what}; treated as unknown"
            )
        )
        return None

    d = snapshot.driver
    driver = replace(
        d,
        version=readable("driver.version", d.version, parse_driver_version, "a driver version"),
        cuda_version=readable(
            "driver.cuda_version", d.cuda_version, parse_cuda_version, "a CUDA version"
        ),
    )
    gpus = tuple(
        replace(
            g,
            compute_capability=readable(
                f"gpus[{i}].compute_capability",
                g.compute_capability,
                parse_compute_capability,
                "a compute capability",
            ),
        )
        for i, g in enumerate(snapshot.gpus)
    )
    if not notes:
        return snapshot
    return replace(snapshot, driver=driver, gpus=gpus, errors=snapshot.errors + tuple(notes[:20]))

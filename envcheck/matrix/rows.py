"""Frozen row types of the compatibility matrix.

Every row carries where it came from (``source`` URL, ``verified``) and where it
is written (``file``, ``line``) so reports can cite it and errors can point at it.
"""

from __future__ import annotations

from typing import Optional

from envcheck.model._frozen import record
from envcheck.model.versions import ComputeCapability, CudaVersion, DriverVersion


@record
class Origin:
    """Provenance of a matrix fact."""

    source: str
    verified: bool
    file: str
    line: int
    note: Optional[str] = None

    def cite(self) -> str:
        mark = "" if self.verified else " (unverified)"
        return f"{self.source}{mark}"


@record
class CudaRelease:
    version: str
    cuda: CudaVersion
    label: Optional[str]
    linux_min_driver: Optional[DriverVersion]
    windows_min_driver: Optional[DriverVersion]
    origin: Origin


@record
class MinorCompat:
    cuda_major: int
    linux_min_driver: Optional[DriverVersion]
    windows_min_driver: Optional[DriverVersion]
    not_covered: tuple[str, ...]
    origin: Origin


@record
class ForwardCompat:
    cuda_major: int
    gpus: Optional[str]
    notes: Optional[str]
    origin: Origin


@record
class ToolkitArchs:
    cuda: CudaVersion
    compute_capabilities: tuple[ComputeCapability, ...]
    deprecated: tuple[ComputeCapability, ...]
    origin: Origin


@record
class Architecture:
    name: str
    compute_capabilities: tuple[ComputeCapability, ...]
    tensor_cores: Optional[bool]
    bf16: Optional[bool]
    tf32: Optional[bool]
    fp8: Optional[bool]
    fp16_fast: Optional[bool]
    last_driver_branch: Optional[str]
    origin: Origin


@record
class GpuModel:
    name: str
    compute_capability: ComputeCapability
    architecture: str
    segment: Optional[str]
    aliases: tuple[str, ...]
    memory_gib: Optional[float]
    memory_bandwidth_gbs: Optional[float]
    """Peak device memory bandwidth in GB/s from NVIDIA's datasheet (--deep compares)."""
    origin: Origin


@record
class SharedGpuName:
    """A product name NVIDIA gave to boards with different chips (GeForce GT 730:
    GF108, GK107 or GK208B), so the name alone does not tell the compute capability."""

    name: str
    aliases: tuple[str, ...]
    segment: Optional[str]
    chips: tuple[str, ...]
    compute_capabilities: tuple[ComputeCapability, ...]
    """One per chip, in the same order; at least two differ."""
    origin: Origin

    @property
    def choices(self) -> tuple[tuple[str, ComputeCapability], ...]:
        return tuple(zip(self.chips, self.compute_capabilities))


@record
class CudnnRelease:
    version: str
    cuda_major: int
    cuda_min: Optional[CudaVersion]
    cuda_max: Optional[CudaVersion]
    linux_min_driver: Optional[DriverVersion]
    windows_min_driver: Optional[DriverVersion]
    compute_capabilities: tuple[ComputeCapability, ...]
    os: tuple[str, ...]
    origin: Origin


@record
class DriverBranch:
    branch: int
    max_cuda: CudaVersion
    origin: Origin


@record
class RetiredArch:
    architecture: str
    last_branch: int
    origin: Origin


@record
class Build:
    """One framework build variant shared by one or more releases."""

    framework: str
    versions: tuple[str, ...]
    variant: str
    package: str
    extra: Optional[str]
    cuda: Optional[CudaVersion]
    cudnn: Optional[str]
    bundles_cuda: Optional[bool]
    python: tuple[str, ...]
    platforms: tuple[str, ...]
    archs: Optional[tuple[ComputeCapability, ...]]
    """SASS compiled in; None when unknown."""
    ptx: Optional[tuple[ComputeCapability, ...]]
    index_url: Optional[str]
    pypi_default: Optional[bool]
    origin: Origin
    find_links: Optional[str] = None
    """A pip ``--find-links`` page that serves the build (old jaxlib CUDA wheels)."""
    withdrawn: bool = False
    """Its files are gone from the index that served them: pip cannot install it now,
    but an environment may still have it installed."""

    @property
    def cpu_only(self) -> bool:
        return self.cuda is None and not self.variant.startswith("rocm")


@record
class ArchFloor:
    """The lowest compute capability any build of a range of a framework's releases
    carries code (SASS or PTX) for: a bound on a build whose exact list is unknown."""

    framework: str
    versions: str
    """PEP 440 specifier of the releases the floor holds for."""
    compute_capability: ComputeCapability
    origin: Origin
    cuda: Optional[str] = None
    """PEP 440 specifier of the CUDA versions of the builds it holds for (``>=12.8,<13``):
    a variant family with its own architecture policy. Siblings of a release share
    an architecture list only within one floor's family (``compat.judge``)."""

    def describe(self) -> str:
        """``>=2.7.0 builds with CUDA >=12.8,<13``; ``>=0.3.1 builds``."""
        return f"{self.versions} builds" + (f" with CUDA {self.cuda}" if self.cuda else "")


@record
class PatchRule:
    """A rule that a patch release of a framework the matrix does not list is built
    as its minor release is (same variants, CUDA and architecture lists): judged
    with the builds of the newest listed patch of that minor, marked inferred."""

    framework: str
    versions: str
    """PEP 440 specifier of the releases the rule holds for."""
    origin: Origin


@record
class LibraryLoader:
    """How a range of a framework's releases finds the CUDA and cuDNN libraries it
    loads on some platforms: ``search = "path"`` means by bare file name through the
    operating system's search order only (native Windows: the DLL directories and
    ``PATH``), so the directories of pip's ``nvidia-*`` wheels are never searched and
    the libraries must come from a CUDA/cuDNN install on ``PATH`` or from conda."""

    framework: str
    versions: str
    """PEP 440 specifier of the releases."""
    platforms: tuple[str, ...]
    search: str
    origin: Origin


@record
class BuildRoute:
    """Another package that runs a range of a framework's releases where their own
    builds cannot (NVIDIA's ``nvidia-tensorflow`` for TensorFlow 1.15 on GPUs newer
    than its CUDA 10 libraries), and the index that serves it."""

    framework: str
    versions: str
    """PEP 440 specifier of the releases the route replaces."""
    package: str
    index_url: str
    platforms: tuple[str, ...]
    python: tuple[str, ...]
    min_compute_capability: ComputeCapability
    """The GPUs (this capability and newer) the route is for."""
    origin: Origin


@record
class Companion:
    version: str
    torchvision: Optional[str]
    torchaudio: Optional[str]
    origin: Origin


@record
class KerasRelease:
    versions: tuple[str, ...]
    tensorflow: Optional[str]
    """PEP 440 specifier of the TensorFlow it needs (Keras 2.x)."""
    backends: tuple[str, ...]
    python: tuple[str, ...]
    requires_python: Optional[str]
    """The release's Requires-Python (PEP 440 specifier), what pip enforces."""
    origin: Origin


@record
class KerasPin:
    """The keras a TensorFlow release requires (its wheels' Requires-Dist)."""

    tensorflow: tuple[str, ...]
    keras: str
    """PEP 440 specifier: pip refuses a keras outside it next to these releases."""
    origin: Origin


@record
class NvidiaPin:
    """The NVIDIA wheels a framework release requires on linux-x86_64 (its wheel
    METADATA ``Requires-Dist``): what pip installs beside it."""

    framework: str
    package: str
    extra: Optional[str]
    variant: str
    """The build these pins belong to (the variant PyPI serves)."""
    versions: tuple[str, ...]
    requires: tuple[str, ...]
    """PEP 508 requirements without markers: ``nvidia-cudnn-cu12==9.1.0.70``."""
    origin: Origin


@record
class CondaPackage:
    """Builds a conda channel ships of one package (what a conda emitter may pin)."""

    channel: str
    """``defaults`` (repo.anaconda.com main), ``conda-forge``, ``pytorch``, ``nvidia``."""
    name: str
    """The conda package name (``tensorflow-gpu``, ``pytorch``)."""
    pip: str
    """The PyPI distribution a plan picks that this package stands for."""
    versions: tuple[str, ...]
    platforms: tuple[str, ...]
    python: tuple[str, ...]
    """Python versions built for (empty: not known / noarch)."""
    cuda: Optional[str]
    """CUDA MAJOR.MINOR these builds are for (None: CPU builds): the ``cudatoolkit``
    they pull on defaults, the ``cuda-version`` they need on conda-forge."""
    cudnn: Optional[str]
    """cuDNN major these builds pin (``7``)."""
    origin: Origin


@record
class CondaCudaPackage:
    """The CUDA releases a channel's CUDA metapackage or toolkit package exists for
    (conda-forge ``cuda-version``, ``cudatoolkit``): an emitter pins one only for a
    release listed here."""

    channel: str
    name: str
    versions: tuple[str, ...]
    """CUDA releases, ``MAJOR.MINOR``."""
    origin: Origin


@record
class CondaAbsent:
    """A channel that ships no build of a package for some platforms."""

    channel: str
    name: str
    pip: tuple[str, ...]
    """PyPI distributions a plan picks that this package would stand for."""
    platforms: tuple[str, ...]
    origin: Origin

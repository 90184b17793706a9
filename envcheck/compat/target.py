"""The machine a plan or check is for: from a snapshot or from command-line flags."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Optional

from envcheck.model._frozen import record
from envcheck.model.versions import (
    ComputeCapability,
    CudaVersion,
    DriverVersion,
    parse_compute_capability,
    parse_cuda_version,
    parse_driver_version,
)

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.model.snapshot import Snapshot

OS_NAMES = ("linux", "windows", "wsl", "macos")
ARCHES = ("x86_64", "aarch64")


HOW_TO_TELL_CC = (
    "the GPU's compute capability tells which: `nvidia-smi --query-gpu=name,compute_cap "
    "--format=csv` (recent drivers), `torch.cuda.get_device_capability()` or the CUDA "
    "samples' deviceQuery"
)


@record
class GpuChoice:
    """A GPU known by a name NVIDIA gave to boards with different chips: its compute
    capability is one of ``chips`` (chip name, capability), two or more."""

    name: str
    chips: tuple[tuple[str, ComputeCapability], ...]
    source: Optional[str] = None
    """The ``[[shared_name]]`` row's citation."""

    def label(self, chip: str, cc: ComputeCapability) -> str:
        return f"{self.name} ({chip}, {cc.sm})"

    def describe(self) -> str:
        return f"{self.name} ({' or '.join(f'{chip} {cc.sm}' for chip, cc in self.chips)})"


@record
class GpuReading:
    """What a GPU name tells: a capability, the chips it may be, or nothing."""

    cc: Optional[ComputeCapability] = None
    basis: Optional[str] = None
    """What the capability was inferred from, when it was ("the family: ...", or
    "the driver: ..." for the one chip of a shared name the driver supports)."""
    choice: Optional[GpuChoice] = None
    """Set when the name is shared by chips of different capabilities."""


def read_gpu_name(name: str, matrix: Matrix, driver: Optional[DriverVersion] = None) -> GpuReading:
    """A GPU name's capability from gpus.toml. A name shared by several chips is
    narrowed to the chips ``driver``'s branch still supports (a GPU the driver
    does not support would not be listed); one left decides it."""
    found = matrix.gpu_match(name)
    if found is not None:
        basis = None if found.model is not None else f"the family: {found.basis}"
        return GpuReading(found.compute_capability, basis)
    shared = matrix.gpu_shared(name)
    if shared is None:
        return GpuReading()
    chips = shared.choices
    if driver is not None:
        kept = tuple((chip, cc) for chip, cc in chips if not matrix.dropped_by(driver, cc))
        if len(kept) == 1:
            ((chip, cc),) = kept
            return GpuReading(
                cc,
                f"the driver: {chip} is the only chip sold as {shared.name} that "
                f"driver branch {matrix.branch_of(driver)} supports",
            )
        chips = kept or chips
    return GpuReading(choice=GpuChoice(name, chips, shared.origin.cite()))


@record
class Target:
    """What a framework build must run on. Unknown facts are None (not checked)."""

    os: Optional[str] = None
    """linux, windows, wsl or macos."""
    arch: Optional[str] = None
    """x86_64 or aarch64."""
    driver: Optional[DriverVersion] = None
    driver_cuda: Optional[CudaVersion] = None
    """The highest CUDA the driver supports (nvidia-smi's "CUDA Version", or a
    message's "found version 11040"); judged on only when ``driver`` is unknown."""
    gpus: tuple[ComputeCapability, ...] = ()
    gpu_names: tuple[str, ...] = ()
    gpu_choices: tuple[GpuChoice, ...] = ()
    """GPUs whose name is shared by chips of different capabilities (not in
    ``gpus``/``gpu_names``): the judge judges every chip they may be."""
    python: Optional[str] = None
    """``3.11``"""
    nvidia: Optional[bool] = None
    """True: an NVIDIA GPU or driver is present; False: detection ran and found
    none (or ``--gpu none``); None: not known."""

    @property
    def platform(self) -> Optional[str]:
        """The build platform tag (``linux-x86_64``); WSL2 runs Linux wheels."""
        if self.os is None:
            return None
        arch = self.arch or "x86_64"
        if self.os in ("linux", "wsl"):
            return f"linux-{arch}"
        if self.os == "windows":
            return "windows-x86_64"
        return f"macos-{'arm64' if arch in ('aarch64', 'arm64') else 'x86_64'}"

    @property
    def driver_os(self) -> str:
        """Which driver table applies: under WSL2 the driver is the Windows one."""
        return "windows" if self.os in ("windows", "wsl") else "linux"

    def describe(self) -> str:
        parts = []
        if self.os:
            parts.append(self.os + (f"/{self.arch}" if self.arch else ""))
        if self.driver:
            parts.append(f"driver {self.driver.raw}")
        gpus = list(self.gpu_names) or [f"sm_{c.major}{c.minor}" for c in self.gpus]
        gpus.extend(c.describe() for c in self.gpu_choices)
        if gpus:
            parts.append(", ".join(gpus))
        if self.python:
            parts.append(f"Python {self.python}")
        return "; ".join(parts) or "an unspecified machine"


def target_from_snapshot(snapshot: Snapshot, matrix: Optional[Matrix] = None) -> Target:
    """The target described by a snapshot's platform, driver, GPUs and Python.

    With ``matrix``, a GPU recorded by name only (no compute capability, as in
    nvidia-smi fallbacks and collect_env reports) is looked up in gpus.toml.
    """
    p = snapshot.platform
    os_name: Optional[str] = None
    if p.os == "linux":
        os_name = "wsl" if p.wsl else "linux"
    elif p.os == "windows":
        os_name = "windows"
    elif p.os == "darwin":
        os_name = "macos"
    arch = normalise_arch(p.arch)
    driver = parse_driver_version(snapshot.driver.version)
    # Each GPU's name stays beside its own capability: eight A100s are one
    # (8.0, "A100") pair, a V100 beside them another.
    pairs: dict[tuple[ComputeCapability, Optional[str]], None] = {}
    unknown = []
    choices: dict[GpuChoice, None] = {}
    for g in snapshot.gpus:
        cc = parse_compute_capability(g.compute_capability)
        if cc is None and matrix is not None and g.name:
            reading = read_gpu_name(g.name, matrix, driver)
            cc = reading.cc
            if reading.choice is not None:
                choices[reading.choice] = None
                continue
        if cc is not None:
            pairs[(cc, g.name or None)] = None
        elif g.name:
            unknown.append(g.name)
    ccs = [cc for cc, _ in pairs]
    names = [n or cc.sm for cc, n in pairs] if any(n for _, n in pairs) else []
    names += unknown
    python = None
    if snapshot.python.version:
        python = ".".join(snapshot.python.version.split(".")[:2])
    return Target(
        os=os_name,
        arch=arch,
        driver=driver,
        driver_cuda=parse_cuda_version(snapshot.driver.cuda_version),
        gpus=tuple(ccs),
        gpu_names=tuple(names),
        gpu_choices=tuple(choices),
        python=python,
        nvidia=snapshot.nvidia(),
    )


def normalise_arch(arch: Optional[str]) -> Optional[str]:
    if not arch:
        return None
    a = arch.lower()
    if a in ("x86_64", "amd64", "x64"):
        return "x86_64"
    if a in ("aarch64", "arm64"):
        return "aarch64"
    return a


def resolve_gpu(text: str, matrix: Matrix) -> tuple[ComputeCapability, Optional[str]]:
    """``sm_89``, ``8.9`` or a product name → (compute capability, display name).

    A name the table lacks but whose family is unambiguous resolves with a display
    name that says "inferred from the family". Raises ValueError with a helpful
    message when the GPU is unknown or not an NVIDIA GPU.
    """
    cc = parse_compute_capability(text)
    if cc is not None:
        check_capability(cc, text, matrix)
        return cc, None
    from envcheck.matrix.gpu_names import gpu_vendor_of

    vendor = gpu_vendor_of(text)
    if vendor not in (None, "nvidia"):
        raise ValueError(non_nvidia_message(text, vendor))
    found = matrix.gpu_match(text)
    if found is None:
        shared = matrix.gpu_shared(text)
        if shared is not None:
            raise ValueError(
                f"{text!r} names {GpuChoice(shared.name, shared.choices).describe()}: give "
                "its compute capability instead (e.g. --gpu "
                f"{shared.compute_capabilities[0].sm}): {HOW_TO_TELL_CC}"
            )
        raise ValueError(
            f"unknown GPU {text!r}: give its compute capability instead (e.g. --gpu sm_89)"
        )
    if found.model is not None:
        return found.compute_capability, found.model.name
    cc = found.compute_capability
    return cc, f"{text} (sm_{cc.major}{cc.minor} inferred from the family: {found.basis})"


BRANCH_HEADROOM = 100
"""Driver branches newer than the matrix's newest that may exist already: NVIDIA has
numbered about 20 branches a year (driver_branches.toml), so a matrix a few years
old is within 100; a driver beyond that (``--driver 9999``) is no branch at all."""


def check_driver_branch(driver: DriverVersion, matrix: Matrix) -> None:
    """Refuse a driver whose branch cannot exist; ValueError names the known range."""
    branches = sorted(b.branch for b in matrix.driver_branches)
    if not branches or driver.key[0] <= branches[-1] + BRANCH_HEADROOM:
        return
    raise ValueError(
        f"no NVIDIA driver branch {driver.key[0]} (from {driver.raw[:40]!r}): the matrix"
        f" knows branches {branches[0]} to {branches[-1]} (e.g. --driver {branches[-1]})"
    )


def check_capability(cc: ComputeCapability, text: str, matrix: Matrix) -> None:
    """Refuse a compute capability no NVIDIA architecture has (``sm_999``);
    ValueError lists the known ones (gpus.toml)."""
    known = sorted({c for a in matrix.architectures for c in a.compute_capabilities})
    if not known or cc in known:
        return
    listed = ", ".join(f"sm_{c.major}{c.minor}" for c in known)
    raise ValueError(
        f"no NVIDIA GPU has compute capability {cc.major}.{cc.minor} ({text[:40]!r}):"
        f" known capabilities are {listed}"
    )


def non_nvidia_message(name: str, vendor: str) -> str:
    """What to tell a user whose GPU is not an NVIDIA one."""
    label = {"amd": "an AMD", "intel": "an Intel", "apple": "an Apple"}.get(vendor, "a non-NVIDIA")
    hint = {
        "amd": "for AMD GPUs use the frameworks' ROCm builds (e.g. PyTorch's rocm wheels)",
        "intel": "for Intel GPUs use the frameworks' XPU/oneAPI builds",
        "apple": "on Apple silicon use the frameworks' Metal (MPS) builds",
    }.get(vendor, "use the frameworks' builds for that vendor")
    return (
        f"{name!r} is {label} GPU: envcheck checks NVIDIA CUDA stacks only; {hint}, "
        "or plan CPU builds with --gpu none"
    )


def target_from_flags(
    matrix: Matrix,
    *,
    driver: Optional[str] = None,
    gpus: tuple[str, ...] = (),
    os_name: Optional[str] = None,
    arch: Optional[str] = None,
    python: Optional[str] = None,
    base: Optional[Target] = None,
) -> Target:
    """A target from ``--driver/--gpu/--os/--arch/--python-version``.

    Flags override ``base`` (a detected or loaded machine). Without a base, the
    OS defaults to linux and the architecture to x86_64; ``--os macos`` without
    ``--arch`` means Apple silicon (aarch64). Raises ValueError with a
    one-line message for a value it cannot read.
    """
    from dataclasses import replace

    if base is None:
        base = Target(os="linux", arch="x86_64")
    changes: dict[str, object] = {}
    if driver is not None:
        parsed = parse_driver_version(driver)
        if parsed is None:
            raise ValueError(f"cannot read driver version {driver[:80]!r} (e.g. 535.104.05)")
        check_driver_branch(parsed, matrix)
        changes["driver"] = parsed
    if any(g.strip().lower() == "none" for g in gpus):
        # --gpu none: a machine known to have no NVIDIA GPU (plans CPU builds).
        changes["nvidia"] = False
        gpus = tuple(g for g in gpus if g.strip().lower() != "none")
    if driver is not None or gpus:
        changes["nvidia"] = True
    if gpus:
        # A name shared by chips of different capabilities is judged for each chip
        # (the one chip the driver's branch supports, when only one is left).
        resolved: list[tuple[ComputeCapability, Optional[str]]] = []
        choices: dict[GpuChoice, None] = {}
        known_driver = parse_driver_version(driver) if driver is not None else base.driver
        for g in gpus:
            reading = None
            if parse_compute_capability(g) is None and matrix.gpu_match(g) is None:
                reading = read_gpu_name(g, matrix, known_driver)
            if reading is not None and reading.choice is not None:
                choices[reading.choice] = None
            elif reading is not None and reading.cc is not None:
                resolved.append(
                    (reading.cc, f"{g} ({reading.cc.sm} inferred from {reading.basis})")
                )
            else:
                resolved.append(resolve_gpu(g, matrix))
        changes["gpus"] = tuple(dict.fromkeys(cc for cc, _ in resolved))
        changes["gpu_names"] = tuple(name for _, name in resolved if name)
        changes["gpu_choices"] = tuple(choices)
    if os_name is not None:
        changes["os"] = os_name
    if arch is not None:
        changes["arch"] = normalise_arch(arch)
    elif os_name == "macos" and base.os != "macos":
        # A Mac named by flag is Apple silicon unless --arch says otherwise: every
        # Mac sold since 2023 is, and macOS 11 is the first to run on it.
        changes["arch"] = "aarch64"
    if python is not None:
        parts = python.strip().split(".")
        if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
            raise ValueError(f"cannot read Python version {python!r} (e.g. 3.12)")
        changes["python"] = ".".join(parts[:2])
    return replace(base, **changes)  # type: ignore[arg-type]


def gpu_union(
    targets: Iterable[Target],
) -> tuple[tuple[ComputeCapability, ...], tuple[str, ...], tuple[GpuChoice, ...]]:
    """The GPUs of several targets as one (a fleet's environment): each GPU keeps its
    own name beside its own capability (a V100 is never labelled with an A100's
    name); ordered by capability, then name. Returns (capabilities, names, the GPUs
    known only by a name several chips share)."""
    pairs: dict[tuple[ComputeCapability, str], None] = {}
    choices: dict[GpuChoice, None] = {}
    for t in targets:
        named = len(t.gpu_names) == len(t.gpus)
        for i, cc in enumerate(t.gpus):
            pairs[(cc, t.gpu_names[i] if named else cc.sm)] = None
        choices.update(dict.fromkeys(t.gpu_choices))
    ordered = sorted(pairs)
    return (
        tuple(cc for cc, _ in ordered),
        tuple(name for _, name in ordered),
        tuple(choices),
    )

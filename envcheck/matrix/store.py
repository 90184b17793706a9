"""The matrix's rows and the index over them (``Matrix``).

The matrix stores rows and answers lookups about them; it does not judge
compatibility (that is ``envcheck.compat``). Queries are pure and return ``None``
when the matrix does not know.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional

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
from envcheck.model._frozen import field, record
from envcheck.model.versions import (
    FINAL_RELEASE_RE,
    ComputeCapability,
    CudaVersion,
    DriverVersion,
    normalise_release,
    release_key,
)

if TYPE_CHECKING:
    from envcheck.matrix.gpu_names import GpuIndex, GpuMatch


@record
class DriverRequirement:
    """What a CUDA runtime needs from the driver on one OS."""

    cuda: CudaVersion
    native: Optional[DriverVersion]
    """Minimum driver of that exact CUDA major.minor (GA) release."""
    floor: Optional[DriverVersion]
    """Minor-version compatibility floor of the CUDA major (None: not available)."""
    caveats: tuple[str, ...]
    origins: tuple[Origin, ...]


@record
class Matrix:
    """All matrix rows, plus where they came from."""

    data_version: str
    location: str
    cuda_releases: tuple[CudaRelease, ...] = ()
    minor_compat: tuple[MinorCompat, ...] = ()
    forward_compat: tuple[ForwardCompat, ...] = ()
    toolkit_archs: tuple[ToolkitArchs, ...] = ()
    architectures: tuple[Architecture, ...] = ()
    gpus: tuple[GpuModel, ...] = ()
    shared_gpu_names: tuple[SharedGpuName, ...] = ()
    cudnn_releases: tuple[CudnnRelease, ...] = ()
    driver_branches: tuple[DriverBranch, ...] = ()
    retired_archs: tuple[RetiredArch, ...] = ()
    builds: Mapping[str, tuple[Build, ...]] = field(default_factory=dict)
    companions: tuple[Companion, ...] = ()
    arch_floors: tuple[ArchFloor, ...] = ()
    patch_rules: tuple[PatchRule, ...] = ()
    keras_releases: tuple[KerasRelease, ...] = ()
    keras_pins: tuple[KerasPin, ...] = ()
    nvidia_pins: tuple[NvidiaPin, ...] = ()
    library_loaders: tuple[LibraryLoader, ...] = ()
    build_routes: tuple[BuildRoute, ...] = ()
    conda_packages: tuple[CondaPackage, ...] = ()
    conda_absent: tuple[CondaAbsent, ...] = ()
    conda_cuda_packages: tuple[CondaCudaPackage, ...] = ()
    file_versions: Mapping[str, str] = field(default_factory=dict)

    if not TYPE_CHECKING:  # type checkers keep flagging unknown attributes

        def __getattr__(self, name: str) -> Any:
            # Reached only when ``name`` is not in the instance: a field of a matrix
            # read from the compiled cache is unpickled on first use (see ``cache``).
            lazy = self.__dict__.get("_lazy")
            if lazy is None or name not in lazy.pending:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            value = lazy.load(name)
            object.__setattr__(self, name, value)
            return value

    def __getstate__(self) -> dict[str, Any]:
        """Pickle (and copy) every field, loaded, without the lazy loader or the
        answers derived from the fields (cached properties such as ``memo``, whose
        keys name rows by identity): the copy derives its own."""
        state = {name: getattr(self, name) for name in self.__record_fields__}  # type: ignore[attr-defined]
        derived = {
            k for k, v in vars(type(self)).items() if isinstance(v, functools.cached_property)
        }
        state.update(
            (k, v)
            for k, v in self.__dict__.items()
            if k not in state and k != "_lazy" and k not in derived
        )
        return state

    @property
    def version(self) -> str:
        """The label reports print: ``schema 1, data YYYY-MM-DD``."""
        return f"1/{self.data_version}"

    # -- CUDA and drivers ------------------------------------------------------

    def cuda_release(self, cuda: CudaVersion) -> Optional[CudaRelease]:
        """The first (GA) release row of a CUDA major.minor; None when unknown."""
        return self._first_releases.get(cuda)

    @functools.cached_property
    def _first_releases(self) -> dict[CudaVersion, CudaRelease]:
        # The resolver asks this for every candidate build: index it once.
        first: dict[CudaVersion, CudaRelease] = {}
        for row in sorted(self.cuda_releases, key=lambda r: release_key(r.version)):
            first.setdefault(row.cuda, row)
        return first

    def minor_compat_for(self, major: int) -> Optional[MinorCompat]:
        for row in self.minor_compat:
            if row.cuda_major == major:
                return row
        return None

    @functools.cached_property
    def _driver_requirements(self) -> dict[tuple[CudaVersion, bool], DriverRequirement]:
        return {}

    @functools.cached_property
    def memo(self) -> dict[Any, Any]:
        """Answers derived from this matrix alone that callers keep for its lifetime
        (the judge's inferred architecture bounds, keyed by row and GPU)."""
        return {}

    def driver_requirement(self, cuda: CudaVersion, os_name: str = "linux") -> DriverRequirement:
        """Minimum drivers for a CUDA runtime: exact release and minor-compat floor."""
        # The judge asks this twice for every candidate build: remember the answers.
        key = (cuda, os_name == "windows")
        known = self._driver_requirements.get(key)
        if known is None:
            known = self._driver_requirements[key] = self._driver_requirement(cuda, key[1])
        return known

    def _driver_requirement(self, cuda: CudaVersion, windows: bool) -> DriverRequirement:
        release = self.cuda_release(cuda)
        compat = self.minor_compat_for(cuda.major)
        native = None
        origins: list[Origin] = []
        if release is not None:
            native = release.windows_min_driver if windows else release.linux_min_driver
            origins.append(release.origin)
        floor = None
        caveats: tuple[str, ...] = ()
        if compat is not None:
            floor = compat.windows_min_driver if windows else compat.linux_min_driver
            caveats = compat.not_covered
            origins.append(compat.origin)
        return DriverRequirement(cuda, native, floor, caveats, tuple(origins))

    def branch_of(self, driver: DriverVersion) -> int:
        """The release branch a driver belongs to: the highest known branch at or
        below its major number (Windows numbers run past it: 472.12 and 474.04 are
        R470, 391.35 is R390, 581.57 is R580); its major when no branch is known."""
        major = driver.branch
        known = [b.branch for b in self.driver_branches if b.branch <= major]
        return max(known, default=major)

    def driver_branch(self, branch: int) -> Optional[DriverBranch]:
        for row in self.driver_branches:
            if row.branch == branch:
                return row
        return None

    def min_driver_for_cuda(
        self, cuda: CudaVersion, os_name: str = "linux", minor_compat: bool = True
    ) -> Optional[DriverVersion]:
        req = self.driver_requirement(cuda, os_name)
        if minor_compat and req.floor is not None:
            return req.floor
        return req.native

    # -- GPUs and architectures ------------------------------------------------

    def gpu(self, name: str) -> Optional[GpuModel]:
        """Find a GPU model by the name NVML, nvidia-smi or a user spells.

        Also answers for a laptop variant or a longer spelling of a listed GPU
        (``gpu_match`` tells those apart); None when no row fits."""
        return self._gpu_names.lookup(name)

    def gpu_match(self, name: str) -> Optional[GpuMatch]:
        """Like ``gpu``, but also infers the compute capability of an unlisted GPU
        from its family (all known RTX 40 models are 8.9), and says whether the
        answer was ``inferred``. None for unknown and non-NVIDIA names."""
        memo = self._gpu_matches
        if name not in memo:
            if len(memo) >= 4096:
                memo.clear()
            memo[name] = self._gpu_names.match(name)
        return memo[name]

    @functools.cached_property
    def _gpu_matches(self) -> dict[str, Optional[GpuMatch]]:
        # gpu_match per name: the checks ask for every GPU of a snapshot, several times.
        return {}

    @functools.cached_property
    def _gpu_names(self) -> GpuIndex:
        # Once per matrix: hashing the GPU table for the shared cache costs
        # milliseconds, and a snapshot may list a thousand GPUs.
        return _gpu_index(self.gpus, self.shared_gpu_names)

    def gpu_shared(self, name: str) -> Optional[SharedGpuName]:
        """The ``[[shared_name]]`` row when ``name`` is a product name NVIDIA gave to
        boards with different chips (``gpu_match`` is None for it); else None."""
        return self._gpu_names.shared(name)

    def architecture_for(self, cc: ComputeCapability) -> Optional[Architecture]:
        for arch in self.architectures:
            if cc in arch.compute_capabilities:
                return arch
        return None

    def architecture_named(self, name: str) -> Optional[Architecture]:
        wanted = name.strip().lower()
        for arch in self.architectures:
            if arch.name.lower() == wanted:
                return arch
        return None

    def dropped_by(self, driver: DriverVersion, cc: ComputeCapability) -> Optional[RetiredArch]:
        """The ``[[retired]]`` row of ``cc``'s architecture when ``driver``'s branch is
        past its last branch (the driver no longer drives such a GPU); else None."""
        arch = self.architecture_for(cc)
        retired = None if arch is None else self.retired_arch(arch.name)
        if retired is None or self.branch_of(driver) <= retired.last_branch:
            return None
        return retired

    def retired_arch(self, architecture: str) -> Optional[RetiredArch]:
        for row in self.retired_archs:
            if row.architecture.lower() == architecture.lower():
                return row
        return None

    def toolkit_archs_for(self, cuda: CudaVersion) -> Optional[ToolkitArchs]:
        """The nvcc target list in force for a CUDA release (latest row ≤ cuda)."""
        rows = [r for r in self.toolkit_archs if r.cuda <= cuda]
        return max(rows, key=lambda r: r.cuda) if rows else None

    def last_cuda_for(self, cc: ComputeCapability) -> Optional[CudaVersion]:
        """The newest CUDA release whose nvcc still targets ``cc`` (cuda_arch.toml);
        None when no row lists it (older than the table) or every row still does."""
        rows = sorted(self.toolkit_archs, key=lambda r: r.cuda)
        listed = [r.cuda for r in rows if cc in r.compute_capabilities]
        if not listed or (rows and rows[-1].cuda in listed):
            return None
        # The release before the first row that dropped it: rows are per first release,
        # so the last supporting release is the dropping row's predecessor in the table.
        after = [r.cuda for r in rows if r.cuda > max(listed)]
        last_cudas = [c.cuda for c in self.cuda_releases if c.cuda < min(after)]
        return max(last_cudas, default=max(listed))

    def oldest_current_cuda(self) -> Optional[CudaVersion]:
        """The oldest CUDA among the builds of each framework's newest release: what
        "CUDA releases current frameworks use" starts at."""
        return self._oldest_current_cuda

    @functools.cached_property
    def _oldest_current_cuda(self) -> Optional[CudaVersion]:
        # Asked once per GPU of a snapshot: scan the builds once per matrix.
        oldest: Optional[CudaVersion] = None
        for builds in self.builds.values():
            cuda_builds = [b for b in builds if b.cuda is not None]
            if not cuda_builds:
                continue
            newest = max(
                (v for b in cuda_builds for v in b.versions if FINAL_RELEASE_RE.match(v)),
                key=release_key,
                default=None,
            )
            if newest is None:
                continue
            for b in cuda_builds:
                if newest in b.versions and b.cuda is not None:
                    oldest = b.cuda if oldest is None or b.cuda < oldest else oldest
        return oldest

    # -- cuDNN -----------------------------------------------------------------

    def cudnn_for_cuda(self, cuda: CudaVersion) -> tuple[CudnnRelease, ...]:
        """cuDNN builds that support a CUDA version, newest first."""
        out = []
        for row in self.cudnn_releases:
            if row.cuda_major != cuda.major:
                continue
            if row.cuda_min is not None and cuda < row.cuda_min:
                continue
            if row.cuda_max is not None and cuda > row.cuda_max:
                continue
            out.append(row)
        return tuple(sorted(out, key=lambda r: release_key(r.version), reverse=True))

    # -- frameworks ------------------------------------------------------------

    def framework_builds(self, framework: str) -> tuple[Build, ...]:
        return self.builds.get(framework, ())

    def builds_for(
        self,
        framework: str,
        version: str,
        variant: Optional[str] = None,
        platform: Optional[str] = None,
    ) -> tuple[Build, ...]:
        """Builds of one framework release (optionally one variant/platform)."""
        out = []
        for build in self._release_index(framework).get(normalise_release(version), ()):
            if variant is not None and build.variant != variant:
                continue
            if platform is not None and build.platforms and platform not in build.platforms:
                continue
            out.append(build)
        return tuple(out)

    @functools.cached_property
    def _release_indexes(self) -> dict[str, dict[str, tuple[Build, ...]]]:
        return {}

    def _release_index(self, framework: str) -> dict[str, tuple[Build, ...]]:
        """Normalised release → the framework's builds listing it, in matrix order.
        The resolver asks ``builds_for`` hundreds of times per plan; scanning and
        normalising every listed version each time was most of its work."""
        index = self._release_indexes.get(framework)
        if index is None:
            lists: dict[str, list[Build]] = {}
            for build in self.framework_builds(framework):
                for release in {normalise_release(v) for v in build.versions}:
                    lists.setdefault(release, []).append(build)
            index = self._release_indexes[framework] = {k: tuple(v) for k, v in lists.items()}
        return index

    def releases(self, framework: str) -> tuple[str, ...]:
        """Every release of a framework in the matrix, oldest first."""
        seen = {v for b in self.framework_builds(framework) for v in b.versions}
        return tuple(sorted(seen, key=release_key))

    def nvidia_pin(
        self, package: str, version: str, variant: str, extra: Optional[str] = None
    ) -> Optional[NvidiaPin]:
        """The NVIDIA wheels ``package[extra]==version`` (that variant) requires; None
        when the matrix does not record them."""
        wanted = normalise_release(version)
        for row in self.nvidia_pins:
            if (
                row.package == package
                and row.variant == variant
                and (row.extra or None) == (extra or None)
                and any(normalise_release(v) == wanted for v in row.versions)
            ):
                return row
        return None

    def arch_floor(
        self, framework: str, version: str, cuda: Optional[CudaVersion] = None
    ) -> Optional[ArchFloor]:
        """The row bounding from below the code every build of ``framework``
        ``version`` with CUDA ``cuda`` carries (SASS or PTX): a row naming the CUDA
        range of the build before one for every build of the release; None when the
        matrix states none."""
        general = None
        for row, spec, cuda_spec in self._arch_floor_specs:
            if row.framework != framework or not spec.contains(version, prereleases=True):
                continue
            if cuda_spec is None:
                general = general or row
            elif cuda is not None and cuda_spec.contains(str(cuda), prereleases=True):
                return row
        return general

    @functools.cached_property
    def _arch_floor_specs(self) -> tuple[tuple[ArchFloor, Any, Any], ...]:
        from packaging.specifiers import SpecifierSet

        return tuple(
            (row, SpecifierSet(row.versions), SpecifierSet(row.cuda) if row.cuda else None)
            for row in self.arch_floors
        )

    def patch_rule(self, framework: str, version: str) -> Optional[PatchRule]:
        """The rule that lets a patch release of ``framework`` the matrix does not
        list be judged by its minor release's builds; None when no row says so."""
        from packaging.specifiers import SpecifierSet

        for row in self.patch_rules:
            if row.framework == framework and SpecifierSet(row.versions).contains(
                version, prereleases=True
            ):
                return row
        return None

    def companion(self, torch_version: str) -> Optional[Companion]:
        return self._companions_by_release.get(normalise_release(torch_version))

    @functools.cached_property
    def _companions_by_release(self) -> dict[str, Companion]:
        # A plan asks for every torch build it judges: index the rows once (the
        # first row of a release answers, as a scan in file order did).
        index: dict[str, Companion] = {}
        for row in self.companions:
            index.setdefault(normalise_release(row.version), row)
        return index


# Field defaults live in Matrix.__init__; left as class attributes they would
# answer for a field that a matrix read from the cache has not unpickled yet.
for _name in Matrix.__record_fields__:  # type: ignore[attr-defined]
    if _name in Matrix.__dict__:
        delattr(Matrix, _name)
del _name


@functools.lru_cache(maxsize=8)
def _gpu_index(gpus: tuple[GpuModel, ...], shared: tuple[SharedGpuName, ...]) -> GpuIndex:
    from envcheck.matrix.gpu_names import GpuIndex

    return GpuIndex(gpus, shared)

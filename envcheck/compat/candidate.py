"""Candidates: the framework builds whose fit to a target the judge decides.

A candidate is one build of one framework release, with the facts that decide
where it runs (CUDA, cuDNN, compiled architectures, Python, platforms). It comes
from a matrix row (``from_build``), from an installed framework whose build facts
were read from its files (``candidates_for_installed``), or from a version alone,
which stands for the set of builds pip could have installed (``pip_candidates``).

Pure: functions of (facts, matrix).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from envcheck.compat.select import (
    Inference,
    Intent,
    Request,
    Selection,
    pip_served,
    select,
    split_local,
)
from envcheck.model._frozen import record, replace
from envcheck.model.versions import (
    ComputeCapability,
    CudaVersion,
    parse_compute_capability,
    parse_cuda_version,
)

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import Build
    from envcheck.model.snapshot import Framework


@record
class Candidate:
    """One build of one framework release. Unknown facts are None."""

    framework: str
    version: str
    package: str
    variant: Optional[str] = None
    """cpu, cu124, rocm6.2 ...; None when not known."""
    cuda: Optional[CudaVersion] = None
    cpu_only: Optional[bool] = None
    """True: a CPU build; False: a GPU (CUDA or ROCm) build; None: not known."""
    archs: Optional[tuple[ComputeCapability, ...]] = None
    """SASS compiled in; None when unknown."""
    ptx: Optional[tuple[ComputeCapability, ...]] = None
    archs_from: Optional[str] = None
    """Where the architecture list was read (the installed build's own file)."""
    build: Optional[Build] = None
    """The matrix row this candidate is (or was matched to)."""
    inference: Optional[Inference] = None
    """Set when the release is not in the matrix and the row is its minor release's,
    under a ``[[patch_rule]]`` (``compat.select``)."""

    @property
    def rocm(self) -> bool:
        return bool(self.variant and self.variant.startswith("rocm"))

    @property
    def python(self) -> tuple[str, ...]:
        return self.build.python if self.build else ()

    @property
    def platforms(self) -> tuple[str, ...]:
        return self.build.platforms if self.build else ()

    @property
    def sources(self) -> tuple[str, ...]:
        return (self.build.origin.cite(),) if self.build else ()

    @property
    def label(self) -> str:
        """``torch 2.5.1 (cu124)``; ``tensorflow[and-cuda] 2.15.0``."""
        name = self.package
        if self.build is not None and self.build.extra:
            name += f"[{self.build.extra}]"
        shown = self.variant if self.variant not in (None, "", "default") else None
        return f"{name} {self.version}" + (f" ({shown})" if shown else "")


def from_build(build: Build, version: str, inference: Optional[Inference] = None) -> Candidate:
    return Candidate(
        framework=build.framework,
        version=version,
        package=build.package,
        variant=build.variant,
        cuda=build.cuda,
        cpu_only=build.cpu_only,
        archs=build.archs,
        ptx=build.ptx,
        build=build,
        inference=inference,
    )


def parse_arch_list(
    text: Optional[str],
) -> Optional[tuple[tuple[ComputeCapability, ...], tuple[ComputeCapability, ...]]]:
    """``sm_50,sm_60,compute_80`` (TensorFlow's build_info) → (SASS, PTX); None if absent."""
    if not text:
        return None
    sass: list[ComputeCapability] = []
    ptx: list[ComputeCapability] = []
    for item in text.split(","):
        item = item.strip().lower()
        cc = parse_compute_capability(item)
        if cc is None:
            continue
        (ptx if item.startswith("compute_") else sass).append(cc)
    if not sass and not ptx:
        return None
    return tuple(sass), tuple(ptx)


def local_label(version: str) -> Optional[str]:
    """``2.5.1+cu124`` → ``cu124``; None without a local label."""
    return version.split("+", 1)[1].lower() if "+" in version else None


def release_selection(
    matrix: Matrix,
    framework: str,
    version: str,
    platform: Optional[str],
    package: Optional[str] = None,
) -> Selection:
    """The rows of one release on a platform, through the one selector (a patch
    release the matrix does not list is judged by its minor release's rows where a
    ``[[patch_rule]]`` says so)."""
    # An installed distribution does not record the extras it was installed with:
    # every row of it is a possibility (ASK); the local label is narrowed by callers.
    base, _ = split_local(f"=={version}")
    found = select(matrix, Request(framework, package, base, intent=Intent.ASK))
    if platform is not None:
        on = tuple(p for p in found.pairs if not p[0].platforms or platform in p[0].platforms)
        found = replace(found, pairs=on, inferred=found.inferred if on else None)
    return found


def pip_candidates(
    matrix: Matrix,
    framework: str,
    version: str,
    platform: Optional[str],
    package: Optional[str] = None,
) -> tuple[Candidate, ...]:
    """The builds ``version`` can stand for when nothing else is known of it.

    A local label (``+cu118``) names the variant. Without one, the builds plain
    pip serves for that release (a ``+cuXYZ`` label is what the extra indexes and
    find-links pages carry, so its absence rules them out); when the matrix has no
    such row, every build of the release.
    """
    label = local_label(version)
    found = release_selection(matrix, framework, version, platform, package)
    rows = tuple(b for b, _ in found.pairs)
    rows = tuple(b for b in rows if not b.variant.startswith("rocm") or label == b.variant)
    if label is not None:
        chosen = tuple(b for b in rows if b.variant == label)
    else:
        served = tuple(b for b in rows if pip_served(b))
        chosen = served or rows
    base = version.split("+")[0]
    return tuple(from_build(b, base, found.inferred) for b in chosen)


def candidates_for_installed(
    fw: Framework, matrix: Matrix, platform: Optional[str]
) -> tuple[Candidate, ...]:
    """What an installed framework may be, narrowed by every build fact read from it.

    Facts read from the installed files (CUDA version, CPU-only, the compiled
    architecture list) win over the matrix; the matrix fills what they leave
    unknown. An empty tuple means nothing is known of the build.
    """
    if fw.name is None:
        return ()
    own = parse_arch_list(fw.build.get("cuda_compute_capabilities"))
    where = fw.build.get("cuda_compute_capabilities_from") or "the installed build_info.py"
    if fw.version is None:
        if own is None or fw.cpu_only:
            return ()
        # Only what the build was compiled for is known (a message quoting it).
        return (
            Candidate(
                framework=fw.name,
                version="(version unknown)",
                package=fw.package or fw.name,
                variant=fw.variant,
                cuda=parse_cuda_version(fw.cuda_version),
                cpu_only=False,
                archs=own[0],
                ptx=own[1],
                archs_from=where,
            ),
        )
    version = fw.version
    if fw.variant and local_label(version) is None and fw.name == "torch":
        version = f"{version}+{fw.variant}"
    pool = pip_candidates(matrix, fw.name, version, platform, fw.package)
    if not pool or fw.cpu_only is not None or fw.cuda_version or fw.variant:
        # Build facts were read: every row of the release is a possibility.
        found = release_selection(matrix, fw.name, fw.version, platform, fw.package)
        every = tuple(b for b, _ in found.pairs)
        pool = tuple(from_build(b, fw.version.split("+")[0], found.inferred) for b in every)
    cuda = parse_cuda_version(fw.cuda_version)
    if fw.cpu_only is True:
        pool = tuple(c for c in pool if c.cpu_only)
    elif fw.cpu_only is False or cuda is not None:
        pool = tuple(c for c in pool if not c.cpu_only)
    if fw.variant:
        same = tuple(c for c in pool if c.variant == fw.variant)
        pool = same or pool
    if cuda is not None:
        exact = tuple(c for c in pool if c.cuda == cuda)
        major = tuple(c for c in pool if c.cuda is not None and c.cuda.major == cuda.major)
        pool = exact or major
    if fw.rocm_version:
        pool = tuple(c for c in pool if c.rocm)
    if not pool:
        if fw.cpu_only is None and cuda is None:
            return ()
        # The matrix does not know this build: judge it on its own facts.
        pool = (
            Candidate(
                framework=fw.name,
                version=fw.version.split("+")[0],
                package=fw.package or fw.name,
                variant=fw.variant,
                cuda=cuda,
                cpu_only=fw.cpu_only if fw.cpu_only is not None else cuda is None,
            ),
        )
    if cuda is not None:
        pool = tuple(replace(c, cuda=cuda) for c in pool)
    if own is not None:
        sass, ptx = own
        pool = tuple(replace(c, archs=sass, ptx=ptx, archs_from=where) for c in pool)
    return pool


def sibling_builds(candidate: Candidate, matrix: Matrix) -> tuple[Build, ...]:
    """Other CUDA variants of the same release whose architecture lists are known."""
    release = candidate.inference.by if candidate.inference else candidate.version
    rows = matrix.builds_for(candidate.framework, release)
    mine = set(candidate.platforms)
    return tuple(
        b
        for b in rows
        if b.cuda is not None
        and b.archs is not None
        and b is not candidate.build
        and (not mine or not b.platforms or bool(mine & set(b.platforms)))
    )

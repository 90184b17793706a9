"""Judgements about the CUDA libraries a build loads, beside its own kernels (pure).

- ``libraries_reason``: a build whose CUDA release predates the GPU's architecture
  loads cuBLAS and cuDNN of that release, which carry no machine code for the GPU:
  its own kernels may JIT from PTX, but the libraries' do not, so the build fails
  there (TensorFlow 1.15 and PyTorch 1.4, built with CUDA 10, on an RTX 3090).
- ``library_loader``: how a release finds CUDA/cuDNN on a platform (matrix
  ``[[loader]]`` rows), so that a fix names only sources the loader searches.
- ``build_route``: another package that runs the release where its own builds
  cannot (matrix ``[[route]]`` rows: NVIDIA's ``nvidia-tensorflow``).
- ``system_libraries_reasons``: a build against a system CUDA release and cuDNN
  named beside it (``matrix why``'s several specs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from envcheck.model.finding import Category

if TYPE_CHECKING:
    from envcheck.compat.candidate import Candidate
    from envcheck.compat.judge import Reason
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import Build, BuildRoute, LibraryLoader, ToolkitArchs
    from envcheck.model.versions import ComputeCapability, CudaVersion


def _contains(spec: str, version: Optional[str]) -> bool:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    if not version:
        return False
    try:
        return Version(version.split("+")[0]) in SpecifierSet(spec)
    except (InvalidSpecifier, InvalidVersion):
        return False


def first_toolkit_for(cc: ComputeCapability, matrix: Matrix) -> Optional[ToolkitArchs]:
    """The oldest CUDA toolkit row whose nvcc emits SASS that runs on ``cc`` (same
    major, minor at most the GPU's); None when no row does."""
    rows = sorted(matrix.toolkit_archs, key=lambda r: r.cuda)
    for row in rows:
        if any(a.major == cc.major and a.minor <= cc.minor for a in row.compute_capabilities):
            return row
    return None


def libraries_reason(
    c: Candidate, cc: ComputeCapability, name: str, matrix: Matrix
) -> Optional[Reason]:
    """An error when the CUDA libraries of ``c``'s CUDA release have no code for
    ``cc``; None when they have, or when the matrix cannot tell.

    The libraries NVIDIA ships with a CUDA release (cuBLAS, and the cuDNN built for
    it) are compiled for the architectures that release's nvcc can target
    (cuda_arch.toml); a GPU of a newer major than all of them has no SASS there,
    and JIT-compiling the build's own PTX does not give the libraries any. It holds
    where the libraries are that release's: a build that brings (PyTorch's wheels
    pin theirs) or names them per minor (CUDA 10 and older have no minor-version
    compatibility, so ``libcudart.so.10.0`` is 10.0's).
    """
    from envcheck.compat.judge import GPU_ARCH, Level, Reason

    if c.cuda is None:
        return None
    bundled = c.build is not None and c.build.bundles_cuda is True
    toolkit = matrix.toolkit_archs_for(c.cuda)
    if toolkit is None:
        return None
    if any(a.major == cc.major and a.minor <= cc.minor for a in toolkit.compute_capabilities):
        return None
    first = first_toolkit_for(cc, matrix)
    if first is None:
        return None
    whole_major = False
    if not bundled and matrix.minor_compat_for(c.cuda.major) is not None:
        # Libraries loaded from the system under minor-version compatibility
        # (cuda_driver.toml): a newer minor's cuBLAS/cuDNN of the same major may be
        # the one loaded, so the build's own release decides only when no release of
        # its major compiles for the GPU (CUDA 11.x on Blackwell).
        if first.cuda.major <= c.cuda.major:
            return None
        whole_major = True
    reach = min(a for a in first.compute_capabilities if a.major == cc.major)
    route = build_route(c.framework, c.version, cc, matrix)
    way = (
        f"; {route.package} (NVIDIA's build, from {route.index_url}) runs "
        f"{c.framework} {route.versions} on it"
        if route is not None
        else f"; use a build made with CUDA {first.cuda} or newer"
    )
    sources: tuple[str, ...] = (toolkit.origin.cite(), first.origin.cite())
    if route is not None:
        sources += (route.origin.cite(),)
    libraries = f"CUDA {c.cuda.major}.x" if whole_major else f"CUDA {c.cuda}"
    return Reason(
        GPU_ARCH,
        Level.ERROR,
        Category.GPU_ARCH_UNSUPPORTED,
        f"{c.label} cannot run on {name}: its {libraries} libraries (cuBLAS, cuDNN) "
        f"predate the GPU's architecture (CUDA {first.cuda} is the first to compile for "
        f"{reach.sm}), and JIT-compiling its PTX gives them no kernels{way}",
        sources,
        False,
        name,
    )


def library_loader(
    framework: Optional[str], version: Optional[str], platform: Optional[str], matrix: Matrix
) -> Optional[LibraryLoader]:
    """The ``[[loader]]`` row for this release on this platform; None when the
    framework follows the platform's ordinary loader rules."""
    for row in matrix.library_loaders:
        if (
            row.framework == framework
            and platform in row.platforms
            and _contains(row.versions, version)
        ):
            return row
    return None


def build_route(
    framework: Optional[str], version: Optional[str], cc: ComputeCapability, matrix: Matrix
) -> Optional[BuildRoute]:
    """The ``[[route]]`` row that runs ``framework`` ``version`` on ``cc``; None when none."""
    for row in matrix.build_routes:
        if (
            row.framework == framework
            and cc >= row.min_compute_capability
            and _contains(row.versions, version)
        ):
            return row
    return None


SYSTEM_CUDA = "system_cuda"
SYSTEM_CUDNN = "system_cudnn"


def system_libraries_reasons(
    build: Build, cuda: Optional[CudaVersion], cudnn: Optional[str]
) -> tuple[Reason, ...]:
    """A framework build against the system CUDA release and cuDNN version a question
    names beside it (``matrix why torch==X cuda==12.4 cudnn==8.9``).

    A build that brings its own CUDA/cuDNN wheels does not use the system ones (an
    info); otherwise another CUDA major or cuDNN major fails, another minor is only
    what the build was tested with (a warning)."""
    from envcheck.compat.judge import Level, Reason

    cite = (build.origin.cite(),)
    out: list[Reason] = []

    def add(code: str, level: Level, message: str) -> None:
        category = Category.CUDA_RUNTIME_MISSING if code == SYSTEM_CUDA else Category.CUDNN_MISMATCH
        out.append(Reason(code, level, category, message, cite))

    if cuda is not None and build.cuda is not None:
        if build.bundles_cuda:
            add(
                SYSTEM_CUDA,
                Level.INFO,
                f"brings its own CUDA {build.cuda} runtime wheels; the system CUDA {cuda} is not used",
            )
        elif build.cuda.major != cuda.major:
            add(SYSTEM_CUDA, Level.ERROR, f"built for CUDA {build.cuda}, not CUDA {cuda.major}.x")
        elif build.cuda != cuda:
            add(SYSTEM_CUDA, Level.WARNING, f"tested with CUDA {build.cuda}, not {cuda}")
        else:
            add(SYSTEM_CUDA, Level.OK, f"tested with CUDA {cuda}")
    if cudnn is not None and build.cudnn:
        want, have = cudnn.split("."), build.cudnn.split(".")
        if build.bundles_cuda:
            add(
                SYSTEM_CUDNN,
                Level.INFO,
                f"brings its own cuDNN {build.cudnn} wheels; the system cuDNN {cudnn} is not used",
            )
        elif want[0] != have[0]:
            add(SYSTEM_CUDNN, Level.ERROR, f"built with cuDNN {build.cudnn}, not cuDNN {want[0]}.x")
        elif have[:2] != want[:2]:
            add(SYSTEM_CUDNN, Level.WARNING, f"tested with cuDNN {build.cudnn}, not {cudnn}")
        else:
            add(SYSTEM_CUDNN, Level.OK, f"tested with cuDNN {build.cudnn}")
    return tuple(out)

"""Does a framework release have a GPU build for this platform at all.

The matrix lists every build of a release with the platforms its wheels exist
for. A release whose CUDA builds all lack the target's platform (TensorFlow
after 2.10 on native Windows, JAX's CUDA wheels, which are Linux-only) cannot
use an NVIDIA GPU there whatever else is right: that is one judgement, made here
from those rows, for the doctor, explain and the resolver alike. Nothing here
names a release: the last one with a GPU build for the platform is read from
the rows too.

Pure: a function of (framework, release, platform, matrix).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from envcheck.compat.candidate import release_selection
from envcheck.compat.judge import PLATFORM, Level, Reason
from envcheck.model.finding import Category
from envcheck.model.versions import release_key

if TYPE_CHECKING:
    from envcheck.matrix import Matrix
    from envcheck.matrix.rows import Build

_WHERE = {
    "windows-x86_64": "native Windows",
    "macos-arm64": "macOS on Apple silicon",
    "macos-x86_64": "macOS on Intel",
}


def where(platform: str) -> str:
    return _WHERE.get(platform, platform)


def _gpu_rows(rows: tuple[Build, ...]) -> tuple[Build, ...]:
    return tuple(b for b in rows if b.cuda is not None and not b.withdrawn)


def last_gpu_release(matrix: Matrix, framework: str, platform: str) -> Optional[str]:
    """The newest release of ``framework`` with a CUDA build for ``platform``."""
    versions = [
        v
        for b in _gpu_rows(tuple(matrix.framework_builds(framework)))
        if platform in b.platforms
        for v in b.versions
    ]
    return max(versions, key=release_key) if versions else None


def gpu_platform_reason(
    matrix: Matrix,
    framework: str,
    version: str,
    platform: str,
    package: Optional[str] = None,
) -> Optional[Reason]:
    """An error when release ``version`` has CUDA builds but none for ``platform``;
    None when it has one there, or the matrix knows no CUDA build of the release
    (unknown, not judged)."""
    found = release_selection(matrix, framework, version.split("+")[0], None, package)
    rows = _gpu_rows(tuple(b for b, _ in found.pairs))
    if not rows or any(not b.platforms or platform in b.platforms for b in rows):
        return None
    last = last_gpu_release(matrix, framework, platform)
    since = f"the last release with one is {last}" if last else "no release has one"
    return Reason(
        PLATFORM,
        Level.ERROR,
        Category.PLATFORM_UNSUPPORTED,
        f"{framework} {version} has no GPU build for {where(platform)} ({since})",
        tuple(dict.fromkeys(b.origin.cite() for b in rows)),
    )

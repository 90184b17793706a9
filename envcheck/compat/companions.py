"""Whether a torch companion release (torchvision, torchaudio) goes with a torch release.

Two facts decide. The pairing: each companion release is built for one torch release
and its wheels pin it (``Requires-Dist: torch (==X)``), recorded in torch.toml's
``[[companion]]`` rows; a pair the rows contradict fails, a pair they do not cover is
not judged. The variant: a companion's CUDA kernels are compiled for one CUDA variant;
a ``+cpu`` companion beside a CUDA torch has no CUDA kernels, and torchvision refuses
to import beside a torch of another CUDA major (its ``_check_cuda_version``). Pure:
used by the doctor, ``check`` and, through the doctor, explain and fleet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from envcheck.compat.judge import Reason
    from envcheck.matrix import Matrix

COMPANIONS = ("torchvision", "torchaudio")

COMPANION_RELEASE = "companion_release"
"""Reason code: a companion release built for another torch release."""
COMPANION_VARIANT = "companion_variant"
"""Reason code: a companion of another CUDA variant (or a CPU build) than torch's."""

TORCHVISION_CUDA_CHECK = (
    "https://github.com/pytorch/vision/blob/0d7913da146566a8fd92c307ddf21ab12aa4b7bd/"
    "torchvision/extension.py"
)
"""torchvision compares its CUDA version with torch's at import (``_check_cuda_version``;
major and minor in the releases read there, the major only in later ones)."""


def _release(version: str) -> str:
    from envcheck.model.versions import normalise_release

    return normalise_release(version.split("+")[0])


def _local(version: str) -> Optional[str]:
    return version.split("+", 1)[1].lower() if "+" in version else None


def _cuda_major(label: str) -> str:
    """``cu118`` -> ``11``, ``cu92`` -> ``9``: the last digit is the minor."""
    return label[2:-1]


def _built_from_source(*versions: str) -> bool:
    """A pre-release or development build (``2.5.0a0+e000cf0``, NVIDIA's containers'
    ``0.20.0a0``): compiled against the torch beside it, not a published pairing."""
    from packaging.version import InvalidVersion, Version

    for version in versions:
        try:
            if Version(version).is_prerelease or Version(version).is_devrelease:
                return True
        except InvalidVersion:
            return True
    return False


def paired_torch(package: str, version: str, matrix: Matrix) -> tuple[str, ...]:
    """The torch releases the rows pair with ``package`` ``version`` (usually one)."""
    want = _release(version)
    return tuple(
        row.version
        for row in matrix.companions
        if (paired := getattr(row, package, None)) and _release(paired) == want
    )


def companion_reason(
    torch_version: str, package: str, version: str, matrix: Matrix
) -> Optional[Reason]:
    """The error that ``package`` ``version`` was built for another torch release than
    ``torch_version`` (citing the row that says so); None when the rows agree or do not
    cover the pair."""
    from envcheck.compat.judge import Level, Reason
    from envcheck.model.finding import Category

    if package not in COMPANIONS or _built_from_source(torch_version, version):
        return None
    row = matrix.companion(_release(torch_version))
    paired = getattr(row, package) if row is not None else None
    built_for = paired_torch(package, version, matrix)
    if not built_for:
        return None  # a release the rows do not list: which torch it needs is not known
    if paired is not None and row is not None:
        if _release(paired) == _release(version):
            return None
        message = f"torch {_release(torch_version)} pairs with {package} {paired}"
        if built_for:
            message += f"; {package} {_release(version)} is built for torch {built_for[0]}"
        return Reason(
            COMPANION_RELEASE, Level.ERROR, Category.MIXED_WHEELS, message, (row.origin.cite(),)
        )
    if _release(torch_version) not in {_release(v) for v in built_for}:
        first = matrix.companion(built_for[0])
        return Reason(
            COMPANION_RELEASE,
            Level.ERROR,
            Category.MIXED_WHEELS,
            f"{package} {_release(version)} is built for torch {built_for[0]}, "
            f"not {_release(torch_version)}",
            (first.origin.cite(),) if first is not None else (),
        )
    return None


def companion_variant_reason(torch_version: str, package: str, version: str) -> Optional[Reason]:
    """The error that the companion's build variant (its local label) cannot serve the
    torch's: a ``+cpu`` companion beside a CUDA torch, or another CUDA major. None when
    either label is absent (not known) or they agree."""
    from envcheck.compat.judge import Level, Reason
    from envcheck.model.finding import Category

    mine, theirs = _local(torch_version), _local(version)
    if package not in COMPANIONS or mine is None or theirs is None or mine == theirs:
        return None
    if not mine.startswith("cu"):
        return None  # a CPU or ROCm torch: nothing of the companion's CUDA runs anyway
    if theirs == "cpu":
        return Reason(
            COMPANION_VARIANT,
            Level.ERROR,
            Category.MIXED_WHEELS,
            f"{package} {version} is a CPU build beside torch {torch_version}: its "
            "operators have no CUDA kernels",
        )
    if theirs.startswith("cu") and _cuda_major(theirs) != _cuda_major(mine):
        return Reason(
            COMPANION_VARIANT,
            Level.ERROR,
            Category.MIXED_WHEELS,
            f"{package} {version} was built for another CUDA major than torch "
            f"{torch_version}"
            + ("; torchvision refuses to load beside it" if package == "torchvision" else ""),
            (TORCHVISION_CUDA_CHECK,) if package == "torchvision" else (),
        )
    return None
